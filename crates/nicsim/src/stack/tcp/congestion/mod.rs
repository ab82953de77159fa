//! Congestion control: the algorithms `tcp.congestion` chooses between.

pub(super) mod bbr;
pub(super) mod cubic;
