//! Interrupt handling on a node: the NIC's hardirq, inter-processor notifications (IPIs or a
//! doorbell to the NIC processor) and the background cross-calls every host CPU receives.

use crate::config::NotificationHandler;
use crate::engine::Engine;
use crate::hw::cpu::{Job, Notice, Piece, Then};
use crate::node::netdev::DevId;
use crate::node::{Ev, IrqKind, Node, Wire};
use crate::placement::Receive;
use crate::units::{Duration, Time};
use std::rc::Rc;

impl Node {
    /// Sends a notification to processor `to` (IPI, or a doorbell to the NIC processor).
    /// The sender pays `notify_cost` in a job of its own; this is the flight and delivery.
    pub(crate) fn notify(&mut self, eng: &mut Engine<Ev>, to: usize, notice: Notice) {
        self.stats.ipis_sent += 1;
        let mut lat = self.apic.notice_latency(self.proc_id(to), &self.io);
        if matches!(notice, Notice::Reschedule | Notice::WakeList) {
            lat += self.cfg.sched.wake_latency_ps;
        }
        eng.after(
            lat,
            Ev::Irq {
                node: self.id,
                proc: to as u8,
                kind: IrqKind::Notice(notice),
            },
        );
    }

    pub(crate) fn notify_cost(&self, to: usize) -> Piece {
        self.apic.send_cost(self.proc_id(to))
    }

    /// An interrupt reached processor `p`.
    pub fn on_irq(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, kind: IrqKind) {
        let cfg = Rc::clone(&self.cfg);
        let c = &cfg.costs;
        let job = match kind {
            IrqKind::Nic(dev) => {
                self.procs[p].stats.irqs_nic += 1;
                let d = &self.devs[dev as usize];
                // NAPI schedules one poll; netif_rx (no NAPI, or a flushed burst) queues
                // every frame the handler finds.
                let taken = match self.roles.receive {
                    Receive::RingAccumulate => d.delivered.len() as u32,
                    Receive::NapiPoll => 0,
                    Receive::NetifRx => d.nic.rx_ready.len() as u32,
                };
                let protocol = d.protocol;
                let mut j = Job::new(Then::HardIrq { dev, taken })
                    .with(self.piece(&c.irq_entry, 0, 1))
                    .with(self.piece(&c.rx_hardirq, 0, 1))
                    .with(self.piece(&c.rx_schedule, 0, taken.max(1)));
                if protocol != p {
                    j.push(self.notify_cost(protocol));
                }
                j.with(self.piece(&c.irq_exit, 0, 1))
            }
            IrqKind::Notice(Notice::NicEvent) => {
                self.procs[p].stats.irqs_nic += 1;
                Job::new(Then::Notified(Notice::NicEvent))
                    .with(self.piece(&c.irq_entry, 0, 1))
                    .with(self.piece(&c.handoff_event, 0, 1))
                    .with(self.piece(&c.irq_exit, 0, 1))
            }
            IrqKind::Notice(Notice::NicExcess) => {
                self.procs[p].stats.irqs_nic += 1;
                // The handler picks the connections to restore and writes a RESTORE each.
                let k = self.restore_choose();
                let mut j = Job::new(Then::Notified(Notice::NicExcess))
                    .with(self.piece(&c.irq_entry, 0, 1))
                    .with(self.piece(&c.handoff_event, 0, 1));
                if k > 0 {
                    j.push(self.piece(&c.handoff_driver, 0, k));
                    j.push(self.command_pieces()[1]);
                }
                j.with(self.piece(&c.irq_exit, 0, 1))
            }
            IrqKind::Notice(n) => {
                self.procs[p].stats.irqs_ipi += 1;
                // sched_ttwu_pending: the wake list's thread is activated here.
                let activate = self.piece(&c.wake_activate, 0, u32::from(n == Notice::WakeList));
                match self.cfg.smp.notification_handler {
                    NotificationHandler::Ipi => Job::new(Then::Notified(n))
                        .with(self.piece(&c.ipi_handler, 0, 1))
                        .with(activate),
                    NotificationHandler::Irq => Job::new(Then::Notified(n))
                        .with(self.piece(&c.irq_entry, 0, 1))
                        .with(activate)
                        .with(self.piece(&c.irq_exit, 0, 1)),
                }
            }
            IrqKind::TcpTimer => {
                // Called from the clock interrupt (softclock): only the list walk is new work.
                self.priced_job(Then::Nothing, &[self.piece(&c.timer, 0, 1)])
            }
            IrqKind::Tick => {
                self.procs[p].stats.irqs_timer += 1;
                // smp_apic_timer_interrupt: a vector entry stub like an IPI's, then the tick.
                let tick = self.piece(&c.timer_tick, 0, 1);
                Job::new(Then::Nothing)
                    .with(self.piece(&c.ipi_handler, 0, 1))
                    .with(tick)
                    .with(self.lock_piece(&[tick]))
            }
        };
        self.procs[p].hardirq_q.push_back(job);
        self.kick(eng, wire, p);
    }

    /// Device `d`'s handler ran on `p`: the frames it took go to the backlog of the
    /// processor that runs the device's protocol, whose softirq is raised.
    pub(crate) fn after_hardirq(&mut self, eng: &mut Engine<Ev>, p: usize, d: DevId, taken: u32) {
        let to = self.devs[d].protocol;
        // netif_rx moved the frames the handler found to the protocol's backlog.
        for _ in 0..taken {
            let dev = &mut self.devs[d];
            let f = match self.roles.receive {
                Receive::RingAccumulate => dev.delivered.pop_front(),
                Receive::NapiPoll | Receive::NetifRx => dev.nic.take_rx(),
            };
            let Some(f) = f else { break };
            if self.sq[to].backlog.len() as u32 >= self.cfg.napi.backlog_packets {
                self.stats.backlog_dropped += 1;
                self.stats.backlog_dropped_bytes += f.hdr.payload_bytes();
                self.stats.count_drop(&f.hdr);
            } else {
                self.sq[to].backlog.push_back(f);
            }
        }
        if to == p {
            self.raise_softirq_local(p);
        } else {
            self.notify(eng, to, Notice::RaiseSoftirq);
        }
    }

    pub(crate) fn raise_softirq_local(&mut self, p: usize) {
        self.sq[p].pending = true;
    }

    /// Starts a periodic event on every host CPU at `per_s` (none at 0), the CPUs spread in
    /// phase: the local timer tick, or the background cross-calls (the exclusive NIC
    /// processor takes neither, host-path §5.8).
    pub fn start_periodic(&self, eng: &mut Engine<Ev>, per_s: f64, ev: fn(u8, u8) -> Ev) {
        if per_s <= 0.0 {
            return;
        }
        let host: Vec<usize> = (0..self.procs.len())
            .filter(|&p| !self.proc_id(p).is_nic())
            .collect();
        let period = 1e12 / per_s;
        for (k, &p) in host.iter().enumerate() {
            let phase = period * (k + 1) as f64 / (host.len() + 1) as f64;
            eng.at(Time(phase as u64), ev(self.id, p as u8));
        }
    }

    /// CPU-NET's loop starts with the run (one notification raises its softirq, which then
    /// never ends).
    pub fn start_polling(&self, eng: &mut Engine<Ev>) {
        if let Some(p) = self.roles.poller {
            let kind = IrqKind::Notice(Notice::RaiseSoftirq);
            eng.at(
                Time::ZERO,
                Ev::Irq {
                    node: self.id,
                    proc: p as u8,
                    kind,
                },
            );
        }
    }

    pub fn on_tick(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, hz: f64) {
        let (node, proc) = (self.id, p as u8);
        eng.after(Duration((1e12 / hz) as u64), Ev::Tick { node, proc });
        // scheduler_tick → task_tick_fair: a used-up slice is noticed here.
        if self.eevdf() {
            self.update_curr(p);
        }
        self.on_irq(eng, wire, p, IrqKind::Tick);
    }

    /// The periodic TCP timer routine runs on the first host CPU; the timers it serves fire at
    /// their (tick-aligned) deadlines as before.
    pub fn on_tcp_timer(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire) {
        let ticks = self
            .cfg
            .tcp
            .timers
            .ticks()
            .expect("a periodic TCP timer routine");
        eng.after(ticks.run_interval(), Ev::TcpTimer { node: self.id });
        self.on_irq(eng, wire, 0, IrqKind::TcpTimer);
    }

    pub fn on_cross_call(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, p: usize, per_s: f64) {
        eng.after(
            Duration((1e12 / per_s) as u64),
            Ev::CrossCall {
                node: self.id,
                proc: p as u8,
            },
        );
        self.on_irq(eng, wire, p, IrqKind::Notice(Notice::CrossCall));
    }

    /// One irqbalance pass (`periodic_rebalance`, stacks.md §A.9 note 1): the devices, the
    /// most interrupts in the interval first, each to the host CPU with the fewest of this
    /// pass's interrupts so far; among equals it stays where it is, else goes to the least
    /// busy in the interval (then the lowest numbered). The new affinity takes effect at each
    /// device's next interrupt.
    pub fn rebalance_irqs(&mut self) {
        let irqs: Vec<u64> = self.devs.iter().map(|d| d.nic.stats.irqs_raised).collect();
        let busy: Vec<u64> = self
            .procs
            .iter()
            .map(|p| p.stats.busy_ps.iter().sum())
            .collect();
        let (last_irqs, last_busy) = std::mem::take(&mut self.rebalance_mark);
        let since =
            |now: &[u64], then: &[u64], i: usize| now[i] - then.get(i).copied().unwrap_or(0);
        let hosts: Vec<usize> = (0..self.procs.len())
            .filter(|&p| !self.proc_id(p).is_nic())
            .collect();
        let mut order: Vec<usize> = (0..self.devs.len()).collect();
        order.sort_by_key(|&d| (std::cmp::Reverse(since(&irqs, &last_irqs, d)), d));
        let mut assigned = vec![0u64; self.procs.len()];
        for d in order {
            let now = self.devs[d].irq;
            let to = *hosts
                .iter()
                .min_by_key(|&&p| (assigned[p], p != now, since(&busy, &last_busy, p), p))
                .expect("a node has a host CPU");
            assigned[to] += since(&irqs, &last_irqs, d).max(1);
            self.devs[d].next_irq = (to != self.devs[d].irq).then_some(to);
        }
        self.rebalance_mark = (irqs, busy);
    }
}
