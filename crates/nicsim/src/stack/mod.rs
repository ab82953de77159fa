//! Software above the hardware: the NIC driver, the receive softirq, the socket glue and the
//! TCP endpoint. What each stage costs comes from the cost profile; where it runs, from the
//! placement.

pub mod driver;
pub mod net_rx;
pub mod socket;
pub mod softirq;
pub mod tcp;
pub mod timers;
