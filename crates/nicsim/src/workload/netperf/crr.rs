//! TCP_CRR's transaction: the client connects, sends the request, reads the response and
//! closes; a server thread accepts, reads the request, responds, reads to the end of the
//! stream and closes.

use super::Netperf;
use crate::os::thread::Op;
use crate::stack::tcp::State;
use crate::system::World;

/// TCP_CRR: the client's operation in its transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ClientStep {
    Connect,
    Request,
    Response,
    Close,
}

/// TCP_CRR: the server thread's operation on the connection it accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ServerStep {
    Accept,
    Request,
    Respond,
    Eof,
    Close,
}

impl Netperf {
    /// CRR: instance `i`'s client opens a new connection (a transaction starts).
    pub(super) fn connect(&mut self, w: &mut World, i: usize) -> Result<(), String> {
        let s = &mut self.inst[i];
        s.client_conn = w.socket(s.client, w.server(), self.p.nodelay)?;
        s.client_step = ClientStep::Connect;
        s.txn_start = w.eng.now();
        w.start_op(
            s.client,
            s.client_thread,
            Op::Connect {
                conn: s.client_conn,
            },
        );
        Ok(())
    }

    /// CRR: a thread of instance `i` finished its operation; the next one.
    pub(super) fn crr_step(
        &mut self,
        w: &mut World,
        i: usize,
        server_side: bool,
    ) -> Result<(), String> {
        let now = w.eng.now();
        let in_window = self.win.in_window(now);
        let bytes = self.p.msg_bytes;
        let server = w.server();
        let s = &mut self.inst[i];
        if server_side {
            let st = s.server_thread;
            if s.server_step == ServerStep::Accept {
                s.server_conn = w.nodes[server].accepted(st).expect("accept returned");
            }
            let conn = s.server_conn;
            let (next, op) = match s.server_step {
                ServerStep::Accept => (ServerStep::Request, Op::Recv { conn, bytes }),
                ServerStep::Request => (ServerStep::Respond, Op::Send { conn, bytes }),
                // Read until the client's FIN: the read returns at the end of the stream.
                ServerStep::Respond => (ServerStep::Eof, Op::Recv { conn, bytes: 1 }),
                ServerStep::Eof => (ServerStep::Close, Op::Close { conn }),
                ServerStep::Close => (ServerStep::Accept, Op::Accept),
            };
            s.server_step = next;
            w.start_op(server, st, op);
            return Ok(());
        }
        let conn = s.client_conn;
        let client = &w.nodes[s.client];
        if s.client_step == ClientStep::Connect && client.conns[conn].tcp.state() == State::Done {
            // connect() failed (the handshake gave up): netperf counts it and tries anew.
            self.failed_connects += 1;
            w.nodes[s.client].discard(conn);
            return self.connect(w, i);
        }
        let (next, op) = match s.client_step {
            ClientStep::Connect => (ClientStep::Request, Op::Send { conn, bytes }),
            ClientStep::Request => (ClientStep::Response, Op::Recv { conn, bytes }),
            ClientStep::Response => (ClientStep::Close, Op::Close { conn }),
            ClientStep::Close => {
                s.transactions += 1;
                if in_window {
                    self.latencies_ps.push((now - s.txn_start).0);
                }
                return self.connect(w, i);
            }
        };
        s.client_step = next;
        w.start_op(s.client, s.client_thread, op);
        Ok(())
    }
}
