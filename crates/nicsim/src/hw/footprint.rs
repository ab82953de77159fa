//! Where a node's code and data lie, and how a piece of work's references become line
//! accesses in mode B (host-path §4.3): hit rates emerge from these addresses, never from a
//! set ratio. Each stage's code is its own range of kernel text; a connection's state, a
//! received frame's ring slot, the socket buffers (at their stream offsets) and the user's
//! buffers (at the offset in the call) each have their place, so reuse across messages is
//! real. The profile's reference counts are kept: a part visits each distinct line it touches
//! once through the caches, and its remaining references hit the L1 (documented in
//! docs/design.md, "Detailed caches").

use crate::config::{CacheCfg, Costs};
use crate::hw::caches::{Caches, Cost};
use crate::hw::cpu::{JobData, Part, Touches};
use crate::hw::frame::FlowId;

const CODE: u64 = 0x0100_0000;
const PRIVATE: u64 = 0x0800_0000;
const CONNECTION: u64 = 0x1000_0000;
const RING: u64 = 0x2000_0000;
/// Buffer regions, one per kind, each with room for every flow's span.
const RX_BUFFER: u64 = 1 << 44;
const TX_BUFFER: u64 = 2 << 44;
const USER_IN: u64 = 3 << 44;
const USER_OUT: u64 = 4 << 44;
const FLOW_STRIDE: u64 = 1 << 28;
/// Bytes one reference reads or writes (host-path §2.2: a 32-bit Pentium 4 word).
const WORD_BYTES: f64 = 4.0;

#[derive(Clone, Debug)]
pub struct Layout {
    /// Per stage id: where its code starts and how long it is.
    code: Vec<(u64, u64)>,
    line: u64,
    instruction_bytes: f64,
    store_share: f64,
    private_bytes: u64,
    conn_bytes: u64,
    slot_bytes: u64,
    slot_dma_bytes: u64,
    slots: u64,
    span: u64,
}

impl Layout {
    pub fn new(
        cfg: &CacheCfg,
        costs: &Costs,
        ring_slots: u64,
        line_bytes: u64,
    ) -> Result<Layout, String> {
        if !cfg.buffer_span_bytes.is_power_of_two() || cfg.buffer_span_bytes > FLOW_STRIDE {
            return Err(format!(
                "cache.buffer_span_bytes: {} is not a power of two up to 256 MiB",
                cfg.buffer_span_bytes
            ));
        }
        let mut costs = costs.clone();
        let mut code = vec![(CODE, 0)];
        let mut at = CODE;
        for s in costs.stages_mut() {
            code.push((at, s.code_bytes));
            at += s.code_bytes.div_ceil(line_bytes) * line_bytes;
        }
        Ok(Layout {
            code,
            line: line_bytes,
            instruction_bytes: cfg.instruction_bytes,
            store_share: cfg.store_share,
            private_bytes: cfg.private_bytes.max(line_bytes),
            conn_bytes: cfg.conn_state_bytes.max(line_bytes),
            slot_bytes: cfg.ring_slot_bytes.max(line_bytes),
            slot_dma_bytes: cfg.ring_dma_bytes.min(cfg.ring_slot_bytes),
            slots: ring_slots.max(1),
            span: cfg.buffer_span_bytes,
        })
    }

    fn ring_slot(&self, slot: u32) -> u64 {
        RING + (slot as u64 % self.slots) * self.slot_bytes
    }

    fn buffer(&self, base: u64, flow: FlowId, offset: u64) -> u64 {
        base + flow as u64 * FLOW_STRIDE + (offset & (self.span - 1))
    }

    /// What a received frame's DMA writes: its slot's descriptor and headers, and its payload
    /// at stream offset `seq` of the flow's receive buffer.
    pub fn rx_dma(&self, flow: FlowId, seq: u64, payload_bytes: u64, slot: u32) -> [(u64, u64); 2] {
        [
            (self.ring_slot(slot), self.slot_dma_bytes),
            (self.buffer(RX_BUFFER, flow, seq), payload_bytes),
        ]
    }

    /// What a sent frame's DMA reads from the send buffer.
    pub fn tx_dma(&self, flow: FlowId, seq: u64, payload_bytes: u64) -> (u64, u64) {
        (self.buffer(TX_BUFFER, flow, seq), payload_bytes)
    }

    /// Prices `part` run by host CPU `p`: its instruction fetches and its data references.
    pub fn price(&self, caches: &mut Caches, p: usize, part: &Part, d: &JobData) -> Cost {
        let mut cost = Cost::default();
        self.fetch(caches, p, part, &mut cost);
        if part.refs > 0.0 {
            self.data(caches, p, part, d, &mut cost);
        }
        cost
    }

    /// The stage's fetches run sequentially through its code, one per line of instructions,
    /// wrapping when the stage executes more than its text (loops); a chunk takes its share.
    /// Fetches that return to lines this chunk already fetched are L1I hits.
    fn fetch(&self, caches: &mut Caches, p: usize, part: &Part, cost: &mut Cost) {
        let (base, bytes) = self.code[part.stage as usize];
        if bytes == 0 || part.cycles <= 0.0 {
            return;
        }
        let share = (part.to - part.from).max(1e-9);
        let total = (part.cycles / share * self.instruction_bytes / self.line as f64).ceil();
        let k0 = (part.from * total).floor() as u64;
        let k1 = ((part.to * total).floor() as u64).max(k0 + 1);
        let lines = bytes.div_ceil(self.line);
        let distinct = (k1 - k0).min(lines);
        for k in k0..k0 + distinct {
            add(cost, caches.fetch(p, base + (k % lines) * self.line));
        }
        let repeats = (k1 - k0 - distinct) as f64;
        cost.cycles += repeats * caches.latencies().l1i_read_cycles;
        caches.word_hits(p, repeats, 0.0, 0.0);
    }

    fn data(&self, caches: &mut Caches, p: usize, part: &Part, d: &JobData, cost: &mut Cost) {
        let refs = part.refs;
        let lat = caches.latencies();
        let (hit_read, hit_write) = (
            lat.l1d_read_cycles,
            lat.l1d_write_cycles + lat.l2_write_cycles,
        );
        let flow = d.flow as u64 * FLOW_STRIDE;
        // (region, offset of the job's first byte, span the offsets wrap in)
        let rx = (RX_BUFFER + flow, d.buffer_addr as u64, self.span);
        let tx = (TX_BUFFER + flow, d.buffer_addr as u64, self.span);
        let user_in = (USER_IN + flow, d.user_addr as u64, FLOW_STRIDE);
        let user_out = (USER_OUT + flow, d.user_addr as u64, FLOW_STRIDE);
        let (src, dst) = match part.touches {
            Touches::Buffer => (rx, None),
            Touches::CopyIn => (user_in, Some(tx)),
            Touches::CopyOut => (rx, Some(user_out)),
            Touches::Private | Touches::Connection | Touches::Ring => {
                let (base, bytes) = match part.touches {
                    Touches::Private => (PRIVATE + p as u64 * 0x1_0000, self.private_bytes),
                    Touches::Connection => (
                        CONNECTION + d.flow as u64 * self.conn_bytes.next_power_of_two(),
                        self.conn_bytes,
                    ),
                    _ => (self.ring_slot(d.ring_slot), self.slot_bytes),
                };
                self.mixed(caches, p, part, base, bytes, cost);
                return;
            }
        };
        // A copy moves the part's share of the job's bytes: half its references load the
        // source, half store the destination; a checksum only loads.
        let bytes = d.buffer_bytes as f64;
        let (a, b) = ((part.from * bytes) as u64, (part.to * bytes) as u64);
        let (loads, stores) = match dst {
            None => (refs, 0.0),
            Some(_) => (refs / 2.0, refs / 2.0),
        };
        if b <= a {
            // No bytes in this share (a checksum of a bare ACK): its references hit.
            cost.cycles += loads * hit_read + stores * hit_write;
            caches.word_hits(p, 0.0, loads, stores);
            return;
        }
        let line = self.line;
        let lines = |(base, start, wrap): (u64, u64, u64)| {
            ((start + a) / line..=(start + b - 1) / line)
                .map(move |l| base + ((l * line) & (wrap - 1)))
        };
        let mut stream =
            |addrs: &mut dyn Iterator<Item = u64>, write: bool, refs: f64, hit: f64| {
                let (mut lines_cost, mut n) = (Cost::default(), 0);
                for addr in addrs {
                    let c = if write {
                        caches.write(p, addr)
                    } else {
                        caches.read(p, addr)
                    };
                    add(&mut lines_cost, c);
                    n += 1;
                }
                let extra = settle(cost, lines_cost, n, refs, hit);
                let (l, st) = if write { (0.0, extra) } else { (extra, 0.0) };
                caches.word_hits(p, 0.0, l, st);
            };
        stream(&mut lines(src), false, loads, hit_read);
        if let Some(dst) = dst {
            stream(&mut lines(dst), true, stores, hit_write);
        }
    }

    /// References to a structure of `bytes` at `base`: references are to consecutive words
    /// (host-path §2.2's 4-byte word), so the part reads one line per line of words it
    /// references, from where its piece's share starts, and writes back `store_share` of
    /// the lines it read (structures are read, then updated). Its other references hit.
    fn mixed(
        &self,
        caches: &mut Caches,
        p: usize,
        part: &Part,
        base: u64,
        bytes: u64,
        cost: &mut Cost,
    ) {
        let lines = bytes.div_ceil(self.line);
        let visit = ((part.refs * WORD_BYTES / self.line as f64).ceil() as u64).min(lines);
        let start = (part.from * lines as f64) as u64;
        let s = self.store_share;
        let mut stores = 0u64;
        let mut lines_cost = Cost::default();
        for i in 0..visit {
            let a = base + ((start + i) % lines) * self.line;
            add(&mut lines_cost, caches.read(p, a));
            if ((i + 1) as f64 * s).floor() as u64 > stores {
                stores += 1;
                add(&mut lines_cost, caches.write(p, a));
            }
        }
        let lat = caches.latencies();
        let hit =
            (1.0 - s) * lat.l1d_read_cycles + s * (lat.l1d_write_cycles + lat.l2_write_cycles);
        let extra = settle(cost, lines_cost, visit + stores, part.refs, hit);
        caches.word_hits(p, 0.0, (1.0 - s) * extra, s * extra);
    }
}

/// Adds `n` line accesses that cost `lines` to a part with `refs` references: the others
/// hit at `hit` cycles each. A part never pays for more accesses than it has references
/// (a 1-byte copy touches two lines with one reference): then the lines' cycles are scaled
/// to its references, so the profile's counts stay authoritative. Returns the references
/// that hit beyond the line accesses.
fn settle(cost: &mut Cost, lines: Cost, n: u64, refs: f64, hit: f64) -> f64 {
    let n = n as f64;
    cost.bridge_transactions += lines.bridge_transactions;
    if refs >= n {
        cost.cycles += lines.cycles + (refs - n) * hit;
        refs - n
    } else {
        cost.cycles += lines.cycles * refs / n;
        0.0
    }
}

fn add(total: &mut Cost, c: Cost) {
    total.cycles += c.cycles;
    total.bridge_transactions += c.bridge_transactions;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Category;
    use crate::hw::caches::tests::table_4_17;
    use crate::hw::job::LockRef;

    /// A copy out of 256 bytes in 64 word references (32 loads, 32 stores): the loads read
    /// 4 lines, the stores write 4, and the other 24 loads and 24 stores hit, so per access
    /// the L1D's rates are hits over all 32 loads and all 32 stores.
    #[test]
    fn per_access_hit_rates_count_every_load_and_store() {
        let cfg =
            crate::parse_config(include_str!("../../tests/fixtures/base-short.json")).unwrap();
        let layout = Layout::new(&cfg.cache, &cfg.costs, 64, 64).unwrap();
        let mut caches = Caches::new(table_4_17(false), 1).unwrap();
        let part = Part {
            cat: Category::Copy,
            refs: 64.0,
            cycles: 0.0,
            touches: Touches::CopyOut,
            stage: 0,
            from: 0.0,
            to: 1.0,
            lock: LockRef::None,
        };
        let data = JobData {
            buffer_bytes: 256,
            ..JobData::default()
        };
        layout.price(&mut caches, 0, &part, &data);
        let l1d = caches.stats(0)[1];
        assert_eq!(
            (l1d.read_hits, l1d.read_misses, l1d.read_word_hits),
            (0, 4, 28)
        );
        assert_eq!(
            (l1d.write_hits + l1d.write_misses, l1d.write_word_hits),
            (4, 28)
        );
        let per_access = (l1d.read_hits + l1d.read_word_hits) as f64
            / (l1d.read_hits + l1d.read_misses + l1d.read_word_hits) as f64;
        assert_eq!(per_access, 28.0 / 32.0);
        // The write-through L1D passes every store on: the L2 sees the 28 extra stores too.
        assert_eq!(caches.stats(0)[2].write_word_hits, 28);
    }
}
