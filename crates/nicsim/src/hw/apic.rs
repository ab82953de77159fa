//! The interrupt fabric: the I/O APIC that carries a device interrupt, inter-processor
//! interrupts between host CPUs, and the doorbell (a posted register write across the I/O bus)
//! that reaches the NIC's own processor (host-path §4.6, §5.8). It prices the flight and the
//! sender's cost; the handlers are the OS's (`os::irq`).

use crate::config::{Category, IrqPath, ProcName, SoftirqKick};
use crate::hw::bus::IoBus;
use crate::hw::cpu::Piece;
use crate::units::Duration;

#[derive(Clone, Debug)]
pub struct Apic {
    ioapic_latency: Duration,
    ipi_latency: Duration,
    ipi_send_cycles: f64,
    /// How host CPUs notify the NIC processor.
    kick: SoftirqKick,
}

impl Apic {
    pub fn new(
        ioapic_latency: Duration,
        ipi_latency: Duration,
        ipi_send_cycles: f64,
        kick: SoftirqKick,
    ) -> Self {
        Apic {
            ioapic_latency,
            ipi_latency,
            ipi_send_cycles,
            kick,
        }
    }

    fn doorbell(&self, to: ProcName) -> bool {
        to.is_nic() && self.kick == SoftirqKick::Doorbell
    }

    /// Flight of a device interrupt to its target processor.
    pub fn irq_latency(&self, path: IrqPath) -> Duration {
        match path {
            IrqPath::Ioapic => self.ioapic_latency,
            IrqPath::Direct => Duration::ZERO,
        }
    }

    /// Flight of a notification to processor `to`: an IPI, or a doorbell's bus transaction.
    pub fn notice_latency(&self, to: ProcName, io: &IoBus) -> Duration {
        if self.doorbell(to) {
            io.hold(8)
        } else {
            self.ipi_latency
        }
    }

    /// What sending a notification to `to` costs the sender: the ICR write sequence of an IPI
    /// (OS work), or one register write of a doorbell (driver work).
    pub fn send_cost(&self, to: ProcName) -> Piece {
        if self.doorbell(to) {
            Piece {
                cat: Some(Category::Driver),
                pio_writes: 1,
                ..Default::default()
            }
        } else {
            Piece {
                cat: Some(Category::Os),
                cycles: self.ipi_send_cycles,
                ..Default::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::BitRate;

    fn apic(kick: SoftirqKick) -> Apic {
        Apic::new(Duration(1_000_000), Duration(2_000_000), 300.0, kick)
    }

    #[test]
    fn a_doorbell_reaches_only_the_nic_processor() {
        let io = IoBus::new(BitRate(8_000_000_000), Duration(100_000), false);
        let a = apic(SoftirqKick::Doorbell);
        assert_eq!(a.notice_latency(ProcName::NicCpu, &io), io.hold(8));
        assert_eq!(a.send_cost(ProcName::NicCpu).pio_writes, 1);
        assert_eq!(a.send_cost(ProcName::NicCpu).cycles, 0.0);
        // Host CPUs still get IPIs.
        assert_eq!(a.notice_latency(ProcName::Cpu(1), &io), Duration(2_000_000));
        assert_eq!(a.send_cost(ProcName::Cpu(1)).cycles, 300.0);
        // Without doorbells the NIC processor gets an IPI too.
        let b = apic(SoftirqKick::Ipi);
        assert_eq!(b.notice_latency(ProcName::NicCpu, &io), Duration(2_000_000));
        assert_eq!(b.send_cost(ProcName::NicCpu).pio_writes, 0);
    }

    #[test]
    fn a_direct_interrupt_has_no_apic_flight() {
        let a = apic(SoftirqKick::Ipi);
        assert_eq!(a.irq_latency(IrqPath::Direct), Duration::ZERO);
        assert_eq!(a.irq_latency(IrqPath::Ioapic), Duration(1_000_000));
    }
}
