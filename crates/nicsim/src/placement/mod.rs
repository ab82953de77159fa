//! A placement is data: which processor runs each group of stages on a node, and the typed
//! policies for *how* work crosses between them: how received frames reach the host, where
//! pure ACKs are built, how the interrupt travels, how the protocol processor is notified and
//! who runs send-side output (host-path §5). No model branches on a placement's name or on a
//! processor's name; `Roles` is all the node consults.

use crate::config::{
    AckPath, Config, IrqPath, Placement, ProcName, RxMode, RxNotify, SoftirqKick, TxModel,
    TxOutput, MAX_HOST_CPUS,
};

/// How received frames travel from the NIC to the protocol's input queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receive {
    /// Host receive ring; one interrupt, then the softirq polls the ring (NAPI).
    NapiPoll,
    /// Host receive ring; the hardirq hands every ready frame to the backlog (`netif_rx`).
    NetifRx,
    /// The NIC accumulates frames in its memory and DMAs bursts; one interrupt per burst,
    /// after which the driver hands the burst to the backlog (the offload NIC, §5.4).
    RingAccumulate,
}

impl Receive {
    pub fn as_str(self) -> &'static str {
        match self {
            Receive::NapiPoll => "napi_poll",
            Receive::NetifRx => "netif_rx",
            Receive::RingAccumulate => "ring_accumulate",
        }
    }

    /// Frames sit in a host ring written one DMA per frame (not in NIC memory).
    pub fn host_ring(self) -> bool {
        self != Receive::RingAccumulate
    }
}

/// Where pure ACKs are built and consumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acks {
    /// On the host path like any segment.
    Host,
    /// By the NIC processor in NIC memory: no descriptor, no DMA, no host interrupt.
    NicLocal,
}

/// A placement resolved to processor indices of one node, with its typed policies.
#[derive(Clone, Copy, Debug)]
pub struct Roles {
    pub driver: usize,
    pub protocol: usize,
    pub comm: usize,
    pub app: usize,
    pub irq_target: usize,
    pub irq_path: IrqPath,
    pub receive: Receive,
    pub acks: Acks,
    pub tx_output: TxOutput,
    /// How a host CPU tells the NIC processor there is work (an IPI to any host CPU).
    pub kick: SoftirqKick,
    /// The NIC processor of a connection-handoff NIC, which sees every frame first.
    pub firmware: Option<usize>,
    /// CPU-NET: the host CPU that polls its devices' rings without end.
    pub poller: Option<usize>,
    /// An accumulating NIC's interrupts stay masked from one interrupt until the protocol
    /// processor's poll has drained every burst (NAPI, `nic.rx_notify = napi`); the bursts
    /// that land meanwhile are taken by that poll, with no interrupt of their own.
    pub burst_masking: bool,
}

/// The configuration's choices that refine a placement into roles: each is decided here and
/// nowhere else (Python asks the core, `derived::RolesReport`).
#[derive(Clone, Copy, Debug)]
pub struct Policies {
    pub rx_notify: RxNotify,
    pub ack_path: AckPath,
    pub kick: SoftirqKick,
    pub tx_model: TxModel,
    /// `onload.per_packet_irq`: one interrupt per packet where the protocol has a host CPU of
    /// its own.
    pub onload_per_packet_irq: bool,
    /// Classic Streams' service routine sends from the software interrupt (`org.tx_service`).
    pub tx_service: bool,
}

impl Policies {
    pub fn of(cfg: &Config) -> Policies {
        Policies {
            rx_notify: cfg.nic.rx_notify,
            ack_path: cfg.offload.ack_path,
            kick: cfg.offload.softirq_kick,
            tx_model: cfg.tx.model,
            onload_per_packet_irq: cfg.onload.per_packet_irq,
            tx_service: cfg.org.tx_service,
        }
    }
}

/// Processors of a node, in index order.
pub fn processors(host_cpus: usize, nic_cpu: bool) -> Vec<ProcName> {
    let host_cpus = host_cpus.min(MAX_HOST_CPUS);
    let mut v: Vec<ProcName> = (0..host_cpus as u8).map(ProcName::Cpu).collect();
    if nic_cpu {
        v.push(ProcName::NicCpu);
    }
    v
}

/// Where processor `p` sits on a node with `procs` (`validate::config` checked it is there).
fn index_of(procs: &[ProcName], p: ProcName) -> usize {
    procs
        .iter()
        .position(|n| *n == p)
        .expect("a placement's processors exist on its node (checked before the build)")
}

/// The server processor each server device's interrupt is steered to
/// (`topology.server_nic_cpus`, one per device or none), as processor indices.
pub fn server_nic_cpus(cfg: &Config) -> Vec<usize> {
    let ids = processors(cfg.cpu.count, cfg.nic_cpu.present);
    cfg.topology
        .server_nic_cpus
        .iter()
        .map(|&p| index_of(&ids, p))
        .collect()
}

impl Roles {
    /// Resolves a placement on a node with `procs`, refined by the configuration's policies
    /// (`validate::config` checked the placement against the node).
    pub fn resolve(p: &Placement, procs: &[ProcName], pol: Policies) -> Roles {
        // NAPI unless the notification is per event, or an onload NIC interrupts per packet
        // (the protocol on a host CPU other than the communication thread's).
        let onload = p.protocol != p.comm_thread && !p.protocol.is_nic();
        let per_packet = pol.onload_per_packet_irq && onload && p.rx_mode == RxMode::HostRing;
        let napi = pol.rx_notify == RxNotify::Napi && !per_packet;
        let receive = match (p.rx_mode, napi) {
            (RxMode::RingAccumulate, _) => Receive::RingAccumulate,
            (RxMode::HostRing | RxMode::Handoff, true) | (RxMode::Poll, _) => Receive::NapiPoll,
            (RxMode::HostRing | RxMode::Handoff, false) => Receive::NetifRx,
        };
        let acks = match (receive, pol.ack_path) {
            (Receive::RingAccumulate, AckPath::NicLocal) => Acks::NicLocal,
            _ => Acks::Host,
        };
        let nic = procs.iter().position(|n| *n == ProcName::NicCpu);
        let firmware = match p.rx_mode {
            RxMode::Handoff => nic,
            _ => None,
        };
        let protocol = index_of(procs, p.protocol);
        Roles {
            driver: index_of(procs, p.driver),
            protocol,
            comm: index_of(procs, p.comm_thread),
            app: index_of(procs, p.app),
            irq_target: index_of(procs, p.irq_target),
            irq_path: p.irq_path,
            receive,
            acks,
            tx_output: tx_output(p, pol),
            kick: pol.kick,
            firmware,
            poller: (p.rx_mode == RxMode::Poll).then_some(protocol),
            burst_masking: receive == Receive::RingAccumulate && napi,
        }
    }
}

/// Who runs send-initiated output: the protocol processor where the row says so (CPU-NET
/// test E), where a TOE runs the protocol on the NIC processor (`tx.model = toe`), or where
/// Classic Streams' service routine sends from the software interrupt; else the sending
/// thread, as Linux does.
fn tx_output(p: &Placement, pol: Policies) -> TxOutput {
    let toe = pol.tx_model == TxModel::Toe && p.protocol.is_nic();
    if p.tx_output == TxOutput::Protocol || toe || pol.tx_service {
        TxOutput::Protocol
    } else {
        TxOutput::Thread
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(rx_mode: RxMode, onload: bool) -> Placement {
        let cpu = |k| ProcName::Cpu(if onload { k } else { 0 });
        Placement {
            name: "test".into(),
            driver: cpu(1),
            protocol: cpu(1),
            comm_thread: ProcName::Cpu(0),
            app: ProcName::Cpu(0),
            irq_target: cpu(1),
            irq_path: IrqPath::Ioapic,
            rx_mode,
            tx_output: TxOutput::Thread,
        }
    }

    fn policies(rx_notify: RxNotify, ack_path: AckPath) -> Policies {
        Policies {
            rx_notify,
            ack_path,
            kick: SoftirqKick::Ipi,
            tx_model: TxModel::Linux,
            onload_per_packet_irq: true,
            tx_service: false,
        }
    }

    fn resolve(p: &Placement, notify: RxNotify, acks: AckPath) -> Roles {
        let procs = processors(2, true);
        Roles::resolve(p, &procs, policies(notify, acks))
    }

    #[test]
    fn receive_policy_follows_the_ring_and_the_notification() {
        let host = placement(RxMode::HostRing, false);
        assert_eq!(
            resolve(&host, RxNotify::Napi, AckPath::ViaHostDriver).receive,
            Receive::NapiPoll
        );
        assert_eq!(
            resolve(&host, RxNotify::Interrupt, AckPath::ViaHostDriver).receive,
            Receive::NetifRx
        );
        let onload = placement(RxMode::HostRing, true);
        assert_eq!(
            resolve(&onload, RxNotify::Napi, AckPath::ViaHostDriver).receive,
            Receive::NetifRx,
            "onload.per_packet_irq: the onload NIC interrupts per packet"
        );
        let mut pol = policies(RxNotify::Napi, AckPath::ViaHostDriver);
        pol.onload_per_packet_irq = false;
        let procs = processors(2, true);
        let r = Roles::resolve(&onload, &procs, pol);
        assert_eq!(r.receive, Receive::NapiPoll, "without the key, NAPI");
        let acc = placement(RxMode::RingAccumulate, false);
        assert_eq!(
            resolve(&acc, RxNotify::Napi, AckPath::ViaHostDriver).receive,
            Receive::RingAccumulate
        );
    }

    #[test]
    fn acks_stay_on_the_nic_only_when_the_nic_holds_the_frames() {
        let acc = placement(RxMode::RingAccumulate, false);
        let host = placement(RxMode::HostRing, false);
        assert_eq!(
            resolve(&acc, RxNotify::Napi, AckPath::NicLocal).acks,
            Acks::NicLocal
        );
        assert_eq!(
            resolve(&host, RxNotify::Napi, AckPath::NicLocal).acks,
            Acks::Host
        );
        assert_eq!(
            resolve(&acc, RxNotify::Napi, AckPath::ViaHostDriver).acks,
            Acks::Host
        );
    }

    #[test]
    fn output_leaves_the_thread_only_where_a_policy_says_so() {
        let procs = processors(1, true);
        let mut offload = placement(RxMode::RingAccumulate, false);
        offload.protocol = ProcName::NicCpu;
        let mut pol = policies(RxNotify::Napi, AckPath::ViaHostDriver);
        let out = |p: &Placement, pol| Roles::resolve(p, &procs, pol).tx_output;
        assert_eq!(
            out(&offload, pol),
            TxOutput::Thread,
            "Linux sends from the thread"
        );
        pol.tx_model = TxModel::Toe;
        assert_eq!(
            out(&offload, pol),
            TxOutput::Protocol,
            "a TOE on the NIC processor"
        );
        let base = placement(RxMode::HostRing, false);
        assert_eq!(
            out(&base, pol),
            TxOutput::Thread,
            "no TOE without the NIC processor"
        );
        pol.tx_service = true;
        assert_eq!(
            out(&base, pol),
            TxOutput::Protocol,
            "Streams' service routine"
        );
    }
}
