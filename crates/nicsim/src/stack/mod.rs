//! Software: the TCP connection endpoint. The stages that run it (driver, softirq, system
//! calls) and their costs are wired in `system.rs` from the cost profile and the placement.

pub mod tcp;
