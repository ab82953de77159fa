//! Hardware models. Each is a small state machine that takes `now` and an input and returns
//! times; none of them touches the engine.

pub mod bus;
pub mod cpu;
pub mod link;
pub mod nic;
