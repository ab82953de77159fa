//! The cost profile as the core receives it: every software stage's work per packet and per
//! byte, its category, and the category scales (`python/nicsim/profiles/*.toml` declares
//! them with their sources).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Copy,
    Tcpip,
    Driver,
    Os,
    App,
    /// Connection setup and teardown: connect, accept, SYN and child-socket work, close.
    Conn,
}

/// How many cost categories there are (`Category as usize` indexes per-category arrays).
pub const CATEGORY_COUNT: usize = 6;

/// One work item of the cost profile: `instructions = i_pkt + i_byte * bytes` (taking
/// `instructions / ipc` cycles) and `references = r_pkt + r_byte * bytes`, accounted to
/// `category`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageCost {
    pub category: Category,
    pub i_pkt: f64,
    pub i_byte: f64,
    pub r_pkt: f64,
    pub r_byte: f64,
    pub pio_reads: u32,
    pub pio_writes: u32,
    /// Kernel text the stage executes (mode B fetches it through the L1I).
    pub code_bytes: u64,
    /// Uncontended spinlock acquire-release pairs its path takes each time a job runs it (per
    /// piece, whatever the piece's count), priced by the `spin_lock` stage when
    /// `smp.spinlocks` models an SMP kernel.
    pub locks: u32,
    /// Instructions per cycle of its code on the profile's processor: its cycles are its
    /// instructions over this (1 where the profile counts cycles at the processor's CPI).
    pub ipc: f64,
    /// Its index in `Costs::stages` (1-based; 0 is work of no stage), set on load.
    #[serde(skip)]
    pub id: u8,
}

impl StageCost {
    /// The instruction-cycles (before the processor's CPI) and references of one job of this
    /// stage over `bytes` bytes and `count` packets, its category's scale applied: the one
    /// place a stage's work is priced.
    #[inline]
    pub fn work(&self, scale: &Scale, bytes: f64, count: f64) -> (f64, f64) {
        let s = scale.of(self.category);
        (
            s * (self.i_pkt * count + self.i_byte * bytes) / self.ipc,
            s * (self.r_pkt * count + self.r_byte * bytes),
        )
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scale {
    pub copy: f64,
    pub tcpip: f64,
    pub driver: f64,
    pub os: f64,
    /// Connection setup and teardown; not fitted (no calibration row opens a connection).
    pub conn: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Costs {
    pub scale: Scale,
    pub irq_entry: StageCost,
    pub irq_exit: StageCost,
    pub ipi_handler: StageCost,
    pub rx_hardirq: StageCost,
    pub rx_schedule: StageCost,
    pub softirq_dispatch: StageCost,
    pub rx_poll: StageCost,
    pub rx_poll_end: StageCost,
    pub skb_alloc: StageCost,
    pub skb_free: StageCost,
    pub rx_ip: StageCost,
    pub rx_tcp: StageCost,
    pub csum: StageCost,
    /// Checksum folded into the sender's copy when the NIC does not compute it.
    pub tx_csum_fold: StageCost,
    /// The softirq's payload copy into the socket (`rx.softirq_payload_copy`).
    pub skb_copy: StageCost,
    pub rx_wake: StageCost,
    pub context_switch: StageCost,
    pub rx_syscall: StageCost,
    pub rx_copy: StageCost,
    pub tx_syscall: StageCost,
    pub tx_copy: StageCost,
    pub tx_tcp: StageCost,
    pub tx_ip: StageCost,
    pub tx_dev: StageCost,
    pub tx_complete: StageCost,
    pub tx_ack: StageCost,
    pub timer: StageCost,
    pub app_message: StageCost,
    /// connect(): the system call, the port search and the SYN's construction.
    pub connect_syscall: StageCost,
    /// A listener's work on a SYN: the request socket and the SYN-ACK's construction.
    pub tcp_syn: StageCost,
    /// The ACK that ends SYN_RECV: the child socket, cloned from the listener.
    pub tcp_child: StageCost,
    /// accept(): the system call, dequeuing the child and installing its descriptor.
    pub accept_syscall: StageCost,
    /// close(): the system call and the FIN's queueing.
    pub close_syscall: StageCost,
    /// The socket's destruction (at TIME_WAIT or LAST_ACK's end): timewait bucket, sk_free.
    pub tcp_teardown: StageCost,
    /// GRO's work per received frame: matching it to the flow being merged.
    pub gro_receive: StageCost,
    /// A web server's own work per request (parsing, the file lookup, logging).
    pub http_request: StageCost,
    /// epoll_wait(): the call, the ready-list check, copying the events out.
    pub epoll_wait: StageCost,
    /// A datagram's UDP output: udp_sendmsg, ip_append_data, udp_push_pending_frames.
    pub udp_tx: StageCost,
    /// A datagram's UDP input: udp_rcv, the socket lookup, sock_queue_rcv_skb.
    pub udp_rx: StageCost,
    /// The local timer interrupt's work: update_process_times, scheduler_tick, the timer
    /// softirq's check (with `sched.tick_hz`).
    pub timer_tick: StageCost,
    /// The handoff NIC's lookup of a received frame's connection, and each further chain step.
    pub nic_lookup: StageCost,
    pub nic_lookup_step: StageCost,
    /// The handoff NIC forwarding one host packet, either way.
    pub nic_forward: StageCost,
    /// The handoff NIC decoding and executing one command, and writing one event.
    pub nic_command: StageCost,
    pub nic_event: StageCost,
    /// The host driver's side of one handoff command, and of one NIC event.
    pub handoff_driver: StageCost,
    pub handoff_event: StageCost,
    /// One pass of CPU-NET's poll loop that found nothing (rings' status, host queues).
    pub poll_empty: StageCost,
    /// A hand-over through a shared-memory queue between CPU-HOST and CPU-NET.
    pub cpu_net_handover: StageCost,
    /// One uncontended spin_lock/spin_unlock pair of an SMP kernel (the locked instruction).
    pub spin_lock: StageCost,
    /// The loopback interface: its transmit routine, the enqueue on the local CPU's backlog
    /// and the softirq's dequeue (`topology.loopback`).
    pub lo_xmit: StageCost,
    /// recv()'s copy of each further fragment of a GRO-merged sk_buff (one per wire frame
    /// after the first): `skb_copy_datagram_iter`'s per-fragment loop around the copy.
    pub rx_copy_frag: StageCost,
    /// The release of each further fragment of a GRO-merged sk_buff (its page reference).
    pub skb_free_frag: StageCost,
    /// GRO's release of a merged frame's own sk_buff, its data kept as a fragment.
    pub gro_free_head: StageCost,
    /// A woken thread's activation (its run-queue enqueue), on the waker's processor or, with
    /// `sched.wake_list`, on its own.
    pub wake_activate: StageCost,
    /// Each stage's `locks` and `ipc` by id (index 0: work of no stage), set with the ids.
    #[serde(skip)]
    pub locks_by_id: Vec<u32>,
    #[serde(skip)]
    pub ipc_by_id: Vec<f64>,
}

/// A per-stage slot's name: `other` is work of no stage (application work, IPI sends),
/// `lock_spin` spinning on a spinlock.
pub fn stage_name(i: usize) -> &'static str {
    match i {
        0 => "other",
        i if i <= STAGE_NAMES.len() => STAGE_NAMES[i - 1],
        _ => "lock_spin",
    }
}

/// Every stage's name, in `Costs::stages_mut` order (`STAGE_NAMES[id - 1]`).
pub const STAGE_NAMES: [&str; 55] = [
    "irq_entry",
    "irq_exit",
    "ipi_handler",
    "rx_hardirq",
    "rx_schedule",
    "softirq_dispatch",
    "rx_poll",
    "rx_poll_end",
    "skb_alloc",
    "skb_free",
    "rx_ip",
    "rx_tcp",
    "csum",
    "tx_csum_fold",
    "skb_copy",
    "rx_wake",
    "context_switch",
    "rx_syscall",
    "rx_copy",
    "tx_syscall",
    "tx_copy",
    "tx_tcp",
    "tx_ip",
    "tx_dev",
    "tx_complete",
    "tx_ack",
    "timer",
    "app_message",
    "connect_syscall",
    "tcp_syn",
    "tcp_child",
    "accept_syscall",
    "close_syscall",
    "tcp_teardown",
    "gro_receive",
    "http_request",
    "epoll_wait",
    "udp_tx",
    "udp_rx",
    "timer_tick",
    "nic_lookup",
    "nic_lookup_step",
    "nic_forward",
    "nic_command",
    "nic_event",
    "handoff_driver",
    "handoff_event",
    "poll_empty",
    "cpu_net_handover",
    "spin_lock",
    "lo_xmit",
    "rx_copy_frag",
    "skb_free_frag",
    "gro_free_head",
    "wake_activate",
];

impl Scale {
    /// The scale of a category (application work is never scaled).
    #[inline]
    pub fn of(&self, c: Category) -> f64 {
        match c {
            Category::Copy => self.copy,
            Category::Tcpip => self.tcpip,
            Category::Driver => self.driver,
            Category::Os => self.os,
            Category::App => 1.0,
            Category::Conn => self.conn,
        }
    }
}

impl Costs {
    /// A stage by its name (`STAGE_NAMES`), or None.
    pub fn stage(&self, name: &str) -> Option<StageCost> {
        let i = STAGE_NAMES.iter().position(|n| *n == name)?;
        let mut c = self.clone();
        let s = *c.stages_mut()[i];
        Some(s)
    }

    /// Every stage, in declaration order: the order their ids and code are laid out in.
    pub fn stages_mut(&mut self) -> [&mut StageCost; 55] {
        [
            &mut self.irq_entry,
            &mut self.irq_exit,
            &mut self.ipi_handler,
            &mut self.rx_hardirq,
            &mut self.rx_schedule,
            &mut self.softirq_dispatch,
            &mut self.rx_poll,
            &mut self.rx_poll_end,
            &mut self.skb_alloc,
            &mut self.skb_free,
            &mut self.rx_ip,
            &mut self.rx_tcp,
            &mut self.csum,
            &mut self.tx_csum_fold,
            &mut self.skb_copy,
            &mut self.rx_wake,
            &mut self.context_switch,
            &mut self.rx_syscall,
            &mut self.rx_copy,
            &mut self.tx_syscall,
            &mut self.tx_copy,
            &mut self.tx_tcp,
            &mut self.tx_ip,
            &mut self.tx_dev,
            &mut self.tx_complete,
            &mut self.tx_ack,
            &mut self.timer,
            &mut self.app_message,
            &mut self.connect_syscall,
            &mut self.tcp_syn,
            &mut self.tcp_child,
            &mut self.accept_syscall,
            &mut self.close_syscall,
            &mut self.tcp_teardown,
            &mut self.gro_receive,
            &mut self.http_request,
            &mut self.epoll_wait,
            &mut self.udp_tx,
            &mut self.udp_rx,
            &mut self.timer_tick,
            &mut self.nic_lookup,
            &mut self.nic_lookup_step,
            &mut self.nic_forward,
            &mut self.nic_command,
            &mut self.nic_event,
            &mut self.handoff_driver,
            &mut self.handoff_event,
            &mut self.poll_empty,
            &mut self.cpu_net_handover,
            &mut self.spin_lock,
            &mut self.lo_xmit,
            &mut self.rx_copy_frag,
            &mut self.skb_free_frag,
            &mut self.gro_free_head,
            &mut self.wake_activate,
        ]
    }

    /// Gives each stage its id (1-based), so work items can name the code they run.
    pub fn number_stages(&mut self) {
        let (mut locks, mut ipc) = (vec![0], vec![1.0]);
        for (i, s) in self.stages_mut().into_iter().enumerate() {
            s.id = (i + 1) as u8;
            locks.push(s.locks);
            ipc.push(s.ipc);
        }
        self.locks_by_id = locks;
        self.ipc_by_id = ipc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_names_are_the_fields_in_stages_mut_order() {
        let fixture = include_str!("../../tests/fixtures/base-short.json");
        let v: serde_json::Value = serde_json::from_str(fixture).unwrap();
        let mut costs: Costs = serde_json::from_value(v["costs"].clone()).unwrap();
        let by_name = v["costs"].as_object().unwrap();
        for (name, stage) in STAGE_NAMES.iter().zip(costs.stages_mut()) {
            assert_eq!(
                by_name[*name]["i_pkt"].as_f64().unwrap(),
                stage.i_pkt,
                "{name}"
            );
            assert_eq!(
                by_name[*name]["code_bytes"].as_u64().unwrap(),
                stage.code_bytes,
                "{name}"
            );
        }
    }
}
