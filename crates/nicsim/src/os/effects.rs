//! What a thread's finished job changes: the copy's bytes handed to TCP, a read's window
//! update, the handshake's first SYN, an accepted connection (and, on a handoff NIC, its
//! HANDOFF), a close's FIN, datagrams; and waking a thread a softirq made runnable.

use crate::engine::Engine;
use crate::hw::cpu::{Job, Notice, Then};
use crate::node::effect::Effect;
use crate::node::{Ev, Node, Wire};
use crate::os::thread::Op;
use crate::stack::tcp::State;

impl Node {
    pub(crate) fn apply_thread(
        &mut self,
        eng: &mut Engine<Ev>,
        wire: &mut Wire,
        tid: usize,
        e: Effect,
    ) {
        let now = eng.now();
        match e {
            Effect::None => {}
            Effect::Xmit(seg) => {
                let p = self.threads[tid].proc;
                self.nic_xmit(eng, wire, p, seg)
            }
            Effect::Copied {
                conn,
                bytes,
                push,
                zero_copy,
            } => {
                if !zero_copy {
                    self.stats.copy_bytes += bytes;
                }
                self.handoff_issue(eng, wire, conn);
                let autocork = self.cfg.tcp.autocork;
                let tcp = self.tcp_mut(conn);
                tcp.write(bytes, push);
                // tcp_push's autocorking: a short tail waits while an earlier send of this
                // socket is still in the qdisc or the ring; its reclaim pushes it.
                let cork = autocork && tcp.below_bytes > 0 && tcp.should_autocork();
                let segs = if cork { Vec::new() } else { tcp.output(now) };
                tcp.tsq_throttled |= cork;
                self.threads[tid].left -= bytes;
                self.output_from_thread(eng, wire, tid, segs);
                self.release_sock(tid, conn);
            }
            Effect::Read { conn, bytes } => {
                self.stats.copy_bytes += bytes;
                let (n, _, ack) = self.tcp_mut(conn).read(bytes);
                self.threads[tid].left -= n;
                self.conns[conn].bytes_read += n;
                if ack {
                    let a = self.tcp_mut(conn).make_ack();
                    self.output_from_thread(eng, wire, tid, vec![a]);
                }
                // read() returns once the queue is drained; the next read is a new call.
                if self.conns[conn].tcp.readable() == 0 {
                    self.threads[tid].in_call = false;
                }
                if matches!(self.threads[tid].op, Some(Op::RecvAny { .. })) {
                    self.threads[tid].left = 0;
                }
                self.release_sock(tid, conn);
            }
            Effect::BacklogRx(f) => {
                // TCP input on the owner's processor; what it releases (ACKs, wake-ups) goes to
                // that processor's softirq queues.
                let p = self.threads[tid].proc;
                let c = self.conn_of(f.hdr.flow);
                self.tcp_input(eng, p, f);
                self.raise_softirq_local(p);
                if let Some(c) = c {
                    self.release_sock(tid, c);
                }
            }
            Effect::ComputeDone => self.threads[tid].left = 0,
            Effect::Connect(conn) => {
                self.stats.connections_opened += 1;
                let tcp = self.tcp_mut(conn);
                tcp.connect(now);
                let syn = tcp.output(now);
                self.output_from_thread(eng, wire, tid, syn);
            }
            Effect::Accept => {
                // Another thread may have taken the connection first: then this one sleeps.
                if let Some(c) = self.take_accepted() {
                    if self.fw().is_some() {
                        self.handoff_issue(eng, wire, c);
                    }
                    self.threads[tid].accepted = Some(c);
                    self.threads[tid].left = 0;
                }
            }
            Effect::Close(conn) => {
                self.conns[conn].held = false;
                let tcp = self.tcp_mut(conn);
                tcp.close();
                let fin = tcp.output(now);
                if tcp.state() == State::Done {
                    // Closed before its handshake ended: nothing to send, the port is free.
                    self.retire(conn);
                }
                self.threads[tid].left = 0;
                self.output_from_thread(eng, wire, tid, fin);
            }
            Effect::UdpSent { sock, bytes } => {
                self.stats.copy_bytes += bytes;
                self.udp_xmit(eng, sock, bytes);
                self.threads[tid].left = 0;
            }
            Effect::UdpRead(sock) => {
                self.stats.copy_bytes += self.udp[sock].read();
                self.threads[tid].left = 0;
            }
            _ => unreachable!("softirq effect in thread"),
        }
        self.sync_timers(eng);
    }

    /// Makes a sleeping thread runnable, with a reschedule IPI if it sleeps elsewhere.
    /// The softirq on processor `from` made a sleeping thread runnable: with a reschedule IPI
    /// if it sleeps elsewhere.
    pub(crate) fn wake(&mut self, eng: &mut Engine<Ev>, wire: &mut Wire, from: usize, tid: usize) {
        self.stats.wakeups += 1;
        self.procs[from].stats.wakeups += 1;
        self.threads[tid].woken = true;
        let p = self.threads[tid].proc;
        // An idle CPU that polls its need-resched flag sees the wake-up without an IPI
        // (set_nr_if_polling; send_call_function_single_ipi for the wake list).
        let polled = self.cfg.sched.idle_poll && p != from && self.cpu_idle(p);
        self.set_runnable(tid, true);
        if polled && self.fw() != Some(from) {
            if std::mem::take(&mut self.threads[tid].wake_listed) {
                // The idle loop runs the wake list itself (flush_smp_call_function_queue).
                let activate = self.piece(&self.cfg.costs.wake_activate, 0, 1);
                let job = Job::new(Then::Notified(Notice::WakeList)).with(activate);
                self.procs[p].hardirq_q.push_back(job);
            }
            self.kick(eng, wire, p);
        } else if self.fw() == Some(from) {
            // The handoff NIC's RECV_DATA, SEND_ACKED or CONN_EVENT for a waiting thread.
            self.nic_event(eng, p, Notice::NicEvent);
        } else if p != from {
            let listed = std::mem::take(&mut self.threads[tid].wake_listed);
            let notice = if listed {
                Notice::WakeList
            } else {
                Notice::Reschedule
            };
            self.notify(eng, p, notice);
        } else {
            self.kick(eng, wire, p);
        }
    }
}
