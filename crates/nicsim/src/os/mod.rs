//! The operating system: threads and their system calls, the scheduler, interrupt handling.

pub mod eevdf;
pub mod effects;
pub mod irq;
pub mod lock;
pub mod sched;
pub mod span;
pub mod syscall;
pub mod task;
pub mod thread;
pub mod timeline;
