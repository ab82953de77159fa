//! The web workload's closed-loop users: each connects, sends a request, reads the response,
//! closes (or keeps the connection), thinks and repeats. With `pipeline_depth` above 1 a user
//! on a kept-alive connection sends up to that many requests back to back (HTTP/1.1
//! pipelining), reads their responses in order and thinks after the last.

use super::Web;
use crate::os::thread::Op;
use crate::stack::conn::ConnId;
use crate::stack::tcp::State;
use crate::system::World;
use crate::units::{Duration, Time};
use std::cmp::Reverse;
use std::collections::VecDeque;

/// Where a user is in its loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    Thinking,
    Connect,
    Request,
    Response,
    /// Without keep-alive: reading to the end of the stream (the server closes first).
    Eof,
    Close,
}

#[derive(Clone, Debug)]
pub(super) struct User {
    pub(super) node: usize,
    pub(super) thread: usize,
    pub(super) conn: Option<ConnId>,
    pub(super) step: Step,
    /// Requests left on the kept-alive connection (0: no limit).
    left: u32,
    /// The requests sent together (1 without pipelining), those of them not yet sent, and
    /// those sent whose responses are awaited, oldest first: when each started (connect() or
    /// its send) and its response size.
    batch: u32,
    unsent: u32,
    awaited: VecDeque<(Time, u64)>,
    /// The line-rate pacing of `workload.web.user_rate_bps`: when the batch's first request
    /// started, and the response bytes it asked for.
    paced_from: Option<Time>,
    paced_bytes: u64,
    /// Replaying a trace: the trace connection, and its next request.
    pub(super) replay: Option<(usize, usize)>,
}

impl User {
    pub(super) fn new(node: usize, thread: usize) -> Self {
        User {
            node,
            thread,
            conn: None,
            step: Step::Thinking,
            left: 0,
            batch: 1,
            unsent: 0,
            awaited: VecDeque::new(),
            paced_from: None,
            paced_bytes: 0,
            replay: None,
        }
    }
}

impl Web {
    /// Think time before a user's next request: exponential with the configured mean.
    fn think(&mut self) -> Duration {
        let mean = self.p.think_ps.0 as f64;
        if mean == 0.0 {
            return Duration::ZERO;
        }
        Duration((-self.rng.uniform_open0().ln() * mean) as u64)
    }

    /// The response size of user `u`'s next request: the trace's, or a draw from the mix.
    fn next_size(&mut self, u: usize) -> u64 {
        match self.users[u].replay {
            Some((c, k)) => {
                self.users[u].replay = Some((c, k + 1));
                self.p.trace_responses[c][k]
            }
            None => self.response_size(),
        }
    }

    /// User `u`'s request of `size` starts now on connection `conn`: the worker will answer
    /// it with that size, after those sent before it.
    fn sent(&mut self, w: &World, u: usize, conn: ConnId, size: u64) {
        let user = &mut self.users[u];
        user.awaited.push_back((w.eng.now(), size));
        user.paced_from.get_or_insert(w.eng.now());
        user.paced_bytes += size;
        let flow = w.nodes[user.node].conns[conn].tcp.flow;
        self.sizes.entry(flow).or_default().push_back(size);
    }

    /// User `u` starts a request (with pipelining, a batch of them): on a new connection, or
    /// its kept-alive one.
    pub(super) fn request(&mut self, w: &mut World, u: usize) -> Result<(), String> {
        if self.take_trace(w, u) {
            return Ok(());
        }
        let server = w.server();
        let trace_len = self.users[u]
            .replay
            .map(|(c, _)| self.p.trace_responses[c].len() as u32);
        let size = self.next_size(u);
        let lifetime = match trace_len {
            Some(n) => n,
            None => self.lifetime(),
        };
        let depth = self.p.pipeline_depth;
        let user = &mut self.users[u];
        let (conn, op) = match user.conn {
            Some(conn) => {
                user.step = Step::Request;
                let bytes = self.p.request_bytes;
                (conn, Op::Send { conn, bytes })
            }
            None => {
                let conn = w.socket(user.node, server, true)?;
                user.conn = Some(conn);
                user.left = lifetime;
                user.step = Step::Connect;
                (conn, Op::Connect { conn })
            }
        };
        user.batch = match user.left {
            0 => depth,
            left => depth.min(left),
        };
        user.unsent = user.batch - 1;
        let (node, thread) = (user.node, user.thread);
        w.start_op(node, thread, op);
        self.sent(w, u, conn, size);
        Ok(())
    }

    pub(super) fn user_done(&mut self, w: &mut World, u: usize) -> Result<(), String> {
        let user = &self.users[u];
        let conn = user.conn.expect("a user in a request has a connection");
        let (node, thread, step) = (user.node, user.thread, user.step);
        let bytes = self.p.request_bytes;
        let op = match step {
            Step::Connect if w.nodes[node].conns[conn].tcp.state() == State::Done => {
                // The handshake gave up: try again with a new connection.
                self.failed_connects += 1;
                self.users[u].conn = None;
                self.users[u].awaited.clear();
                self.sizes.remove(&w.nodes[node].conns[conn].tcp.flow);
                w.nodes[node].discard(conn);
                return self.request(w, u);
            }
            Step::Connect => {
                self.users[u].step = Step::Request;
                Op::Send { conn, bytes }
            }
            // Pipelining: the next request of the batch follows at once.
            Step::Request if user.unsent > 0 => {
                self.users[u].unsent -= 1;
                let size = self.next_size(u);
                self.sent(w, u, conn, size);
                Op::Send { conn, bytes }
            }
            Step::Request => {
                let user = &mut self.users[u];
                user.step = Step::Response;
                let &(_, size) = user.awaited.front().expect("a request awaits its response");
                Op::Recv { conn, bytes: size }
            }
            Step::Response => match self.response_read(w, u) {
                Some(op) => op,
                None => return self.think_then(w, u),
            },
            Step::Eof => {
                self.users[u].step = Step::Close;
                Op::Close { conn }
            }
            Step::Close | Step::Thinking => {
                self.users[u].conn = None;
                return self.think_then(w, u);
            }
        };
        w.start_op(node, thread, op);
        Ok(())
    }

    /// User `u` read a response: it counts, and the next one is read, or the batch is done.
    fn response_read(&mut self, w: &World, u: usize) -> Option<Op> {
        let now = w.eng.now();
        let user = &mut self.users[u];
        let conn = user.conn.expect("a user in a request has a connection");
        let (started, size) = user.awaited.pop_front().expect("a response was awaited");
        let next = user.awaited.front().map(|&(_, size)| size);
        self.count_response(now, started, size);
        match next {
            // The next pipelined response follows on the connection.
            Some(bytes) => Some(Op::Recv { conn, bytes }),
            None => self.batch_done(u),
        }
    }

    /// A response of `size` bytes, requested at `started`, was read in full at `now`.
    fn count_response(&mut self, now: Time, started: Time, size: u64) {
        self.health.completed();
        if self.win.in_window(now) {
            self.requests += 1;
            self.response_bytes += size;
            self.response_ps.push((now - started).0);
        }
    }

    /// User `u` read its batch's last response: a kept-alive connection goes on until its
    /// lifetime is spent (None: think, then the next batch); else how the user ends it.
    fn batch_done(&mut self, u: usize) -> Option<Op> {
        let persistent = self.persistent();
        let user = &mut self.users[u];
        let conn = user.conn.expect("a user in a request has a connection");
        let spent = user.left != 0 && user.left <= user.batch;
        if persistent && !spent {
            user.left = user.left.saturating_sub(user.batch);
            return None;
        }
        user.replay = None;
        Some(if persistent {
            // The user ends a kept-alive connection: the worker sees its end and closes.
            user.step = Step::Close;
            Op::Close { conn }
        } else {
            // The server closes first (HTTP/1.0): read to the end of the stream, then close,
            // so TIME_WAIT sits on the server and no client runs out of ports.
            user.step = Step::Eof;
            Op::Recv { conn, bytes: 1 }
        })
    }

    /// What keeps user `u` below its line rate: the rest of the time its batch's responses
    /// take at `user_rate_bps` from the batch's start (SPECweb99's rated connection).
    fn pace(&mut self, now: Time, u: usize) -> Duration {
        let user = &mut self.users[u];
        let (from, bytes) = (
            user.paced_from.take(),
            std::mem::take(&mut user.paced_bytes),
        );
        match from {
            // A trace's requests come as the trace has them.
            Some(t0) if self.p.user_rate_bps.0 > 0 && self.p.trace_responses.is_empty() => {
                let due = t0 + self.p.user_rate_bps.time_to_send(bytes);
                if due > now {
                    due - now
                } else {
                    Duration::ZERO
                }
            }
            _ => Duration::ZERO,
        }
    }

    fn think_then(&mut self, w: &mut World, u: usize) -> Result<(), String> {
        let d = self.pace(w.eng.now(), u) + self.think();
        if d == Duration::ZERO {
            return self.request(w, u);
        }
        self.users[u].step = Step::Thinking;
        self.thinking.push(Reverse((w.eng.now() + d, u)));
        Ok(())
    }
}
