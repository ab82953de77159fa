"""Every simulation parameter, declared once: key, kind (its unit), default as a person writes
it, what it means, and where the default comes from. Tags as in the spec: [S] stated in the
thesis, [I] our interpretation, [N] a nicsim decision, [R] outside knowledge (Linux 2.6, tg3,
NetPIPE source). Keys are exactly the core's field names, so the Rust config mirrors this table;
`tests/test_contract.py` keeps the two from drifting. The cost profile (per-stage work) is not
here: it lives in `profiles/*.toml`, with a source for every number.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_HOST_CPUS = 16  # the core's config::MAX_HOST_CPUS
PROCESSORS = tuple(f"cpu{k}" for k in range(MAX_HOST_CPUS)) + ("nic_cpu",)


@dataclass(frozen=True)
class Param:
    key: str
    kind: str  # size | rate | freq | time | int | float | bool | choice | sizes | procs | path | text
    default: Any
    description: str
    source: str
    choices: tuple[str, ...] = ()
    # Every number has both bounds: physical sense, and simulated time kept within u64
    # picoseconds (213 days) however the values combine (`tests/test_robustness.py`).
    min: float | None = None
    max: float | None = None


def P(key, kind, default, description, source, choices=(), min=None, max=None):
    return Param(key, kind, default, description, source, tuple(choices), min, max)


PARAMS: list[Param] = [
    P("run.seed", "int", 1, "seed of the random generator (only stochastic inputs use it)", "[N]", min=0, max=18446744073709551615),
    P("run.scenario", "text", "", "a label naming the scenario in the results and the configuration's hash; the simulation ignores it (stacks.md §A.9's X and Z run C's and E's placements under their own names)", "[N]"),
    # processors
    P("cpu.clock_hz", "freq", "400 MHz", "host CPU clock", "[S] thesis Table 4.5", min=1e+06, max=1e+12),
    P("cpu.cpi", "float", 1.0, "cycles per instruction, memory stalls excluded", "[S] §4.1 Simics stall mode", min=0.01, max=1000),
    P("cpu.count", "int", 1, "host CPUs per node (cpu0, cpu1, ...), sharing the north bridge and memory", "[S] base Fig. 3.7; Q22; stacks.md §B.1, §B.7 (SMPs of 4 and 8, runs to 16)", min=1, max=MAX_HOST_CPUS),
    P("nic_cpu.present", "bool", False, "the NIC has a processor (offload, hybrid)", "[S] §4.7"),
    P("nic_cpu.speed_fraction", "float", 1.0, "NIC processor speed as a fraction of the host CPU's (scales its CPI)", "[S] §4.1 sweep 1, 0.75, 0.5, 0.25; Q14 cpi", min=0.01, max=10),
    P("nic_cpu.mem_latency_cycles", "float", 10.0, "NIC processor's mean memory access, host cycles ('Offload x')", "[I] §4.2: same mean as the host", min=0, max=100000),
    P("nic_cpu.io_latency_cycles", "float", 0.0, "NIC processor's register access to the NIC, host cycles", "[N] §5.8: a connector", min=0, max=100000),
    # memory and buses
    P("mem.mode", "choice", "mean", "how host CPUs' references are priced: mean access time (mode A, Eq. 4.1) or detailed caches (mode B, cache.*)", "[S] §4.2, §4.7 (both modes); host-path §4.3", choices=("mean", "detailed")),
    P("mem.hit_ratio", "float", 0.9, "cache hit ratio of the mean-access model (Eq. 4.1)", "[S] §4.2", min=0, max=1),
    P("mem.hit_cycles", "float", 1.0, "hit time, cycles", "[S] §4.2", min=0, max=100000),
    P("mem.miss_cycles", "float", 91.0, "miss time, cycles (gives the 10-cycle mean)", "[S] §4.2", min=0, max=100000),
    P("mem.batch_refs", "int", 160, "memory references per chunk of work: the granularity of contention and preemption (160 references at h = 0.9 are 16 bridge transactions)", "[N] §4.4; docs/design.md measures the effect", min=1, max=1000000),
    # detailed caches (mem.mode = "detailed"): thesis Table 4.17, host-path §4.3
    P("cache.l1i_size_bytes", "size", "16 KiB", "L1 instruction cache size, per host CPU", "[S] Table 4.17 (256 lines of 64 B)", min=64, max=1 << 30),
    P("cache.l1i_line_bytes", "size", "64 B", "L1 instruction cache line", "[S] Table 4.17", min=4, max=4096),
    P("cache.l1i_ways", "int", 2, "L1 instruction cache associativity", "[S] Table 4.17", min=1, max=1024),
    P("cache.l1i_read_cycles", "float", 2.0, "L1I read penalty (hit latency), host cycles", "[S] Table 4.17", min=0, max=100000),
    P("cache.l1d_size_bytes", "size", "16 KiB", "L1 data cache size, per host CPU (write-through, no write allocation)", "[S] Table 4.17; 32 KiB variant §4.7", min=64, max=1 << 30),
    P("cache.l1d_line_bytes", "size", "64 B", "L1 data cache line", "[S] Table 4.17", min=4, max=4096),
    P("cache.l1d_ways", "int", 4, "L1 data cache associativity", "[S] Table 4.17", min=1, max=1024),
    P("cache.l1d_read_cycles", "float", 3.0, "L1D read penalty, host cycles", "[S] Table 4.17", min=0, max=100000),
    P("cache.l1d_write_cycles", "float", 3.0, "L1D write penalty, host cycles (every write also goes to the L2)", "[S] Table 4.17", min=0, max=100000),
    P("cache.l2_size_bytes", "size", "512 KiB", "unified L2 size (write-back, write allocation); private per CPU unless cache.l2_shared", "[S] §4.7: 512 KB private (base, offload), 1 MB shared (onload)", min=64, max=1 << 34),
    P("cache.l2_line_bytes", "size", "128 B", "L2 line", "[S] Table 4.17", min=4, max=4096),
    P("cache.l2_ways", "int", 8, "L2 associativity", "[S] Table 4.17", min=1, max=1024),
    P("cache.l2_read_cycles", "float", 5.0, "L2 read penalty, host cycles", "[S] Table 4.17", min=0, max=100000),
    P("cache.l2_write_cycles", "float", 5.0, "L2 write penalty, host cycles", "[S] Table 4.17", min=0, max=100000),
    P("cache.l2_shared", "bool", False, "one L2 for both host CPUs, kept coherent with the L1Ds (onload, hybrid); false: one L2 per CPU with MESI between them", "[S] Table 4.17 note, Fig. 4.32"),
    P("cache.memory_cycles", "float", 60.0, "main memory behind the L2, host cycles (added to the levels passed)", "[S] §5.3.1", min=0, max=100000),
    P("cache.dma_policy", "choice", "invalidate", "what NIC DMA writes do to cached copies: invalidate them, or allocate the lines into the L2 (DDIO-like)", "[N] host-path §4.3", choices=("invalidate", "allocate")),
    P("cache.prefetch_next_line", "bool", False, "a next-line prefetcher in each cache (the handoff study's host has one)", "[S] handoff.md §8; off in the thesis"),
    P("cache.store_share", "float", 0.3, "share of a stage's non-copy references that are stores (copies are half loads, half stores)", "[R] loads:stores about 7:3 in integer code (Hennessy & Patterson)", min=0, max=1),
    P("cache.instruction_bytes", "float", 3.5, "mean instruction length: one L1I fetch per line of instructions executed", "[R] IA-32 mean instruction length", min=0.5, max=16),
    P("cache.private_bytes", "size", "4 KiB", "per-CPU kernel stack and per-CPU data every stage's private references go to", "[R] Linux 2.6 i386: 4 KB stacks (CONFIG_4KSTACKS), the hot part of a stack and per-CPU data", min=64, max=65536),
    P("cache.conn_state_bytes", "size", "1536 B", "a connection's socket and TCP control block", "[R] Linux 2.6 i386: struct tcp_sock about 1.1 KB, with struct socket and the file about 1.5 KB", min=64, max=1 << 20),
    P("cache.ring_slot_bytes", "size", "320 B", "a received frame's ring slot: return descriptor, headers and sk_buff", "[R] tg3 return descriptor 32 B, headers 64 B, struct sk_buff about 190 B (Linux 2.6 i386)", min=64, max=65536),
    P("cache.ring_dma_bytes", "size", "96 B", "the part of a ring slot the NIC's DMA writes (descriptor and headers)", "[R] tg3 return descriptor 32 B and 64 B of headers", min=0, max=65536),
    P("cache.buffer_span_bytes", "size", "128 KiB", "memory a connection's socket buffers cycle through (stream offsets wrap in it; a power of two)", "[R] Linux 2.6 tcp_rmem default 87,380 B, rounded up", min=64, max=1 << 28),
    P("nb.collision_penalty_cycles", "float", 20.0, "penalty of an access that finds the bus held", "[S] Table 4.7", min=0, max=1e+06),
    P("nb.transaction_hold_ps", "time", "30 ns", "time one bridge transaction (a 64-byte line) occupies the memory bus; only misses and DMA lines reach the bridge", "[N][R] 64 B over a 64-bit DDR-266 bus (2.13 GB/s); fixed before calibration", min=0, max=1e9),
    P("nb.line_bytes", "size", "64 B", "bytes per bridge transaction: a DMA transfer of n bytes is ceil(n / line) transactions", "[N][R] Pentium 4 cache line", min=1, max=4096),
    P("nb.ideal", "bool", False, "memory path is a pure connector: no latency, no collisions", "[S] ideal-bus mode §4.2"),
    P("io.rate_bps", "rate", "2.12 Gbps", "I/O bus bandwidth (PCI-X, 64 bit, 33 MHz)", "[S] Table 4.7", min=1e+06, max=1e+13),
    P("io.transaction_overhead_ps", "time", "120 ns", "per-transaction I/O bus overhead (pci_time)", "[N] Q7: 4 cycles of a 33 MHz bus (address, attribute, response, turnaround)", min=0, max=1e+09),
    P("io.dma_chunk_bytes", "size", "512 B", "bytes per DMA transaction", "[N][R] PCI-X default maximum memory read byte count", min=8, max=1048576),
    P("io.pio_write_fraction", "float", 0.25, "share of a register round trip a posted write stalls the CPU", "[N] §4.5", min=0, max=1),
    P("io.ideal", "bool", False, "I/O bus is a pure connector: no overhead, infinite bandwidth", "[S] ideal-bus mode"),
    # interrupts
    P("apic.ioapic_latency_ps", "time", "500 ns", "I/O APIC + APIC bus delivery latency", "[N][R] §5.8", min=0, max=1e+09),
    P("apic.ipi_latency_ps", "time", "500 ns", "inter-processor interrupt delivery latency", "[N][R] §5.8", min=0, max=1e+09),
    P("apic.ipi_send_cycles", "float", 100.0, "cycles the sender spends posting an IPI", "[N][R] §5.8", min=0, max=1e+06),
    # NIC
    P("nic.mtu_bytes", "size", "9000 B", "MTU (9000: jumbo frames)", "[S] Table 4.5", min=576, max=65536),
    P("nic.rx_ring_entries", "int", 0, "receive buffers posted; 0 = tg3's default (200 standard, 100 jumbo)", "[R] tg3 TG3_DEF_RX_(JUMBO_)RING_PENDING", min=0, max=65536),
    P("nic.tx_ring_entries", "int", 511, "transmit descriptors", "[R] tg3 TG3_TX_RING_SIZE − 1", min=1, max=65536),
    P("nic.rx_coalesce_ps", "time", "0 us", "receive coalescing timer (0: interrupt at once)", "[R] early 2.6 tg3: 0 ticks, 1 frame", min=0, max=1e+12),
    P("nic.rx_coalesce_frames", "int", 1, "receive frames per interrupt", "[R] early 2.6 tg3", min=1, max=65536),
    P("nic.tx_coalesce_ps", "time", "150 us", "transmit-completion coalescing timer", "[R] tg3.h LOW_TXCOL_TICKS", min=0, max=1e+12),
    P("nic.tx_coalesce_frames", "int", 53, "transmit completions per interrupt", "[R] tg3.h LOW_TXMAX_FRAMES", min=1, max=65536),
    P("nic.rx_notify", "choice", "napi", "receive notification: NAPI (interrupt, then poll) or one interrupt per event", "[S] NAPI in all runs", choices=("napi", "interrupt")),
    P("nic.csum_offload", "bool", False, "the NIC computes and checks TCP/IP checksums (false: software checksum in rx_tcp, folded into the sender's copy)", "[N] Q23: not stated by the thesis; decided by the candidate comparison in docs/calibration.md"),
    P("nic.descriptor_bytes", "size", "16 B", "DMA descriptor size", "[R] tg3 tx buffer descriptor", min=0, max=4096),
    P("nic.status_block_bytes", "size", "80 B", "status block written after receive DMA", "[R] tg3 hardware status block", min=0, max=4096),
    P("nic.memory_bytes", "size", "128 KiB", "NIC packet memory (ring accumulation)", "[S] Table 4.5", min=1024, max=1073741824),
    P("nic.ring_slot_overhead_bytes", "size", "0 B", "bytes a held frame occupies beyond its length", "[N] §5.5.4", min=0, max=65536),
    P("nic.ring_flush_idle_ps", "time", 0, "flush the accumulation ring after this idle time; 0 = wire time of one max frame", "[N] Q10", min=0, max=1e+12),
    P("nic.ring_flush_on_push", "bool", True, "flush the accumulation ring when a PUSH segment arrives", "[N] Q10"),
    P("nic.tx_fifo_bytes", "size", "16 KiB", "the MAC's transmit FIFO: the NIC fetches the next frame by DMA only while the link has no more than this left to send, so a sender faster than the link fills the ring and then its socket, not the wire", "[N] of the order of a gigabit NIC's on-chip transmit buffer (two jumbo frames); only matters when the link is the bottleneck", min=0, max=1073741824),
    P("nic.gro", "bool", False, "generic receive offload: a NAPI poll merges the in-order frames of a flow into one segment before IP and TCP (the driver still handles each frame)", "[R] Linux 2.6.29+ GRO (later than the thesis's kernel, hence off); host-path §3.2", ),
    P("nic.tso", "bool", False, "TCP segmentation offload: TCP hands the driver up to nic.tso_max_bytes at once (one pass through tcp_transmit_skb, ip_queue_xmit, dev_queue_xmit and one descriptor); the NIC cuts it into MSS frames that repeat its header", "[R] Linux TSO (NETIF_F_TSO; the thesis's tg3 setup ran without it, hence off); host-path §3.2"),
    P("nic.tso_max_bytes", "size", "64 KiB", "the largest IP datagram one TSO send carries", "[R] Linux GSO_MAX_SIZE 65536", min=1, max=1073741824),
    P("nic.gro_max_bytes", "size", "64 KiB", "the largest segment GRO builds", "[R] Linux GRO_MAX_SIZE 65536", min=1, max=1073741824),
    P("napi.budget", "int", 300, "packets per net_rx_action before deferring", "[R] Linux 2.6 netdev_budget", min=1, max=1e+06),
    P("napi.weight", "int", 64, "frames one device is polled for before the next device with work on the same CPU has its turn (NAPI's per-device quota); a device alone with work keeps polling", "[R] Linux 2.6 dev->weight = 64 (tg3, weight_p)", min=1, max=100000),
    P("napi.backlog_packets", "int", 1000, "packets netif_rx may queue per CPU before dropping (non-NAPI, flushed bursts)", "[R] Linux 2.6 netdev_max_backlog", min=1, max=1e+07),
    # link
    P("link.rate_bps", "rate", "1 Gbps", "link bandwidth, each direction", "[S] Table 4.5", min=1e+06, max=1e+13),
    P("link.latency_ps", "time", "1 us", "propagation delay", "[N] Q8", min=0, max=1e+12),
    # topology
    P("topology.clients", "int", 1, "client nodes (node0 … node{clients-1}, with placement.sender); the server after them has placement.preset", "[N] one sender per server in NetPIPE and Hpcbench", min=1, max=254),
    P("topology.server_nics", "int", 1, "network devices of the server, each with its rings and interrupt (clients have one); connections spread over them round-robin through a switch, or one per client on point-to-point links", "[N] issue 11; stacks.md Part A: two gigabit NICs", min=1, max=16),
    P("topology.server_nic_irq", "choice", "same", "interrupt affinity of the server's NICs: all on the placement's irq_target (Linux without irqbalance), NIC k on host CPU k mod cpu.count, or chosen per interrupt: the next host CPU in turn (round_robin) or the least busy one, idle before process context (lowest_priority); or as same at first and re-chosen every topology.irq_rebalance_interval_ps as irqbalance does (periodic_rebalance: the devices with the most interrupts in the interval first, each to the CPU with the fewest interrupts assigned, staying where it is among equals, else the least busy; taken at each device's next interrupt); the softirq follows the interrupt unless the placement gives the protocol its own processor", "[R] Linux /proc/irq/N/smp_affinity, x86 lowest-priority delivery; stacks.md §A.9 note 1 (test B: 'distributed', round_robin by default); irqbalance", choices=("same", "spread", "round_robin", "lowest_priority", "periodic_rebalance")),
    P("topology.irq_rebalance_interval_ps", "time", "10 s", "how often server_nic_irq = periodic_rebalance re-chooses the interrupts' affinity", "[R] irqbalance's default 10-second interval; stacks.md §A.9 note 1 (rebalance_interval)", min=1, max=1e15),
    P("topology.client_nic_irq", "choice", "same", "interrupt distribution of each client node's NIC: all on its placement's irq_target (same), or chosen per interrupt, the next host CPU in turn (round_robin) or the least busy one (lowest_priority)", "[R] as topology.server_nic_irq; [N] the clients of the SMP presets spread theirs as the server does", choices=("same", "round_robin", "lowest_priority")),
    P("topology.loopback", "bool", False, "netperf's connections (TCP_STREAM, TCP_RR) join the server to itself over its loopback interface: both ends' processes share its CPUs, each segment goes onto the sending CPU's backlog and is taken in by the receive softirq there (the lo_xmit stage); no NIC, DMA, interrupt or link; the client nodes idle", "[S] stacks.md §B.8 (most runs over memory loopback, MSS 1460); [R] Linux loopback_xmit/netif_rx, AIX looutput"),
    P("topology.server_nic_cpus", "procs", [], "explicit interrupt affinity instead of server_nic_irq: one processor per server device (NIC, or each RSS queue of each NIC), in order, e.g. 'cpu1,cpu0'; empty: the policy", "[R] Linux /proc/irq/N/smp_affinity"),
    P("topology.server_rx_queues", "int", 1, "receive queues per server NIC, each with its own ring and interrupt, flows hashed over them (RSS); with server_nic_irq = spread, queue k (over all NICs) interrupts host CPU k mod cpu.count; 1 = no RSS", "[R] receive-side scaling (Microsoft RSS, Linux multiqueue NICs); [N] a fixed hash of the flow id stands in for Toeplitz", min=1, max=16),
    P("topology.client_clock_hz", "freq", 0, "the client nodes' host CPU clock; 0 = the server's (cpu.clock_hz). Every other hardware figure is the same on every node", "[N] stacks.md §A.10: the remote senders' hardware is not given", min=0, max=1e12),
    P("switch.present", "bool", False, "an output-queued switch joins every NIC; false: point-to-point links, each client to a server NIC of its own (so topology.clients must equal topology.server_nics)", "[N]"),
    P("switch.port_rate_bps", "rate", "1 Gbps", "rate of each switch output port", "[N] the link rate of Table 4.5", min=1e+06, max=1e+13),
    P("switch.latency_ps", "time", "1 us", "store-and-forward latency of the switch plus the output link's propagation", "[N][R] a gigabit switch's forwarding latency is a few µs", min=0, max=1e+12),
    P("switch.buffer_bytes", "size", "128 KiB", "bytes each output port may hold waiting to be sent (wire bytes); frames beyond it are dropped and counted", "[N][R] shallow per-port buffers of commodity gigabit switches", min=1, max=1e+10),
    # TCP
    P("tcp.prequeue", "bool", True, "Linux 2.6's prequeue (tcp_prequeue): while a reader waits in recv on a connection, the softirq queues the connection's segments for it (the first wakes it, the rest do not) and TCP input runs in the reader's context, on its processor; beyond the receive buffer, in the softirq as without it", "[R] Linux 2.6 net.ipv4.tcp_low_latency = 0 (prequeue on)"),
    P("tcp.socket_buffer_bytes", "size", "64 KiB", "requested send and receive socket buffers", "[S] Table 4.5", min=2048, max=1073741824),
    P("tcp.buffer_semantics", "choice", "linux", "linux: doubled, truesize-charged, adv_win_scale; literal: window = buffer", "[N] Q24", choices=("linux", "literal")),
    P("tcp.adv_win_scale", "int", 2, "share of free buffer kept back from the window (1/2^n; 0 would keep it all back, a zero window, as Linux's space - space/2^0)", "[R] Linux 2.6", min=1, max=8),
    P("tcp.timestamps", "bool", True, "TCP timestamp option (12 bytes off the MSS)", "[R] Linux 2.6 default"),
    P("tcp.skb_overhead_bytes", "size", "256 B", "sk_buff bookkeeping charged per buffer beyond its payload", "[R] struct sk_buff + shared info, approx.", min=0, max=65536),
    P("tcp.charge_truesize", "bool", True, "charge socket buffers by truesize", "[N][R] §2.7"),
    P("tcp.initial_window_segments", "int", 0, "initial congestion window; 0 = RFC 3390 from the MSS", "[R] RFC 3390", min=0, max=1e+06),
    P("tcp.delack_min_ps", "time", "40 ms", "delayed-ACK timeout", "[R] Linux TCP_ATO_MIN", min=1, max=1e+13),
    P("tcp.timers", "choice", "precise", "how TCP's timers fire: precise (each at its own deadline: Linux's per-socket timers, the delayed ACK tcp.delack_min_ps after the segment), bsd (BSD's periodic routines: tcp_fasttimo at 5 Hz sends every due delayed ACK, tcp_slowtimo at 2 Hz runs the retransmission, persist and TIME_WAIT timers, each deadline put on the next tick; 7 routine runs a second, each priced one timer stage on cpu0) or merged (the demultiplexed stack's one 4 Hz routine: delayed ACKs every tick, the other timers every other tick; 4 runs a second)", "[S] stacks.md §B.4 (merged TCP timer); [R] 4.4BSD tcp_fasttimo, tcp_slowtimo (PR_FASTHZ 5, PR_SLOWHZ 2); [N] the runs evenly spaced", choices=("precise", "bsd", "merged")),
    P("tcp.ack_policy", "choice", "linux", "when the receiver acknowledges: linux (every second full-sized segment at once, every segment in quick-ack mode, else the delayed ACK; a read sends one when the window has grown enough, tcp_cleanup_rbuf) or bsd (an in-order segment only schedules the delayed ACK; an ACK leaves when the reader's reads open the window by two segments or by half the buffer, tcp_output's window update after PRU_RCVD, or at the delayed ACK's tick); set by the organisation files", "[R] Linux 2.6 tcp_input.c __tcp_ack_snd_check, tcp.c tcp_cleanup_rbuf; 4.4BSD tcp_input TCP_REASS (TF_DELACK) and tcp_output (adv >= 2 t_maxseg or >= sb_hiwat / 2); stacks.md §B.2, §B.5", choices=("linux", "bsd")),
    P("tcp.quickack_segments", "int", 16, "segments acknowledged at once at start and after idle", "[R] Linux TCP_MAX_QUICKACKS", min=0, max=1e+06),
    P("tcp.rto_min_ps", "time", "200 ms", "minimum retransmission timeout", "[R] Linux TCP_RTO_MIN", min=1, max=6e+13),
    P("tcp.rto_initial_ps", "time", "3 s", "retransmission timeout before an RTT sample", "[R] RFC 2988", min=1, max=6e+14),
    P("tcp.fast_retransmit", "bool", True, "retransmit at the duplicate-ACK threshold instead of waiting for the timer", "[R] RFC 5681; Linux default"),
    P("tcp.dupack_threshold", "int", 3, "duplicate ACKs that trigger fast retransmit", "[R] RFC 5681", min=1, max=1000),
    P("tcp.sack", "bool", True, "selective acknowledgements (RFC 2018) with SACK-based loss recovery (RFC 6675)", "[R] Linux 2.6 net.ipv4.tcp_sack = 1"),
    P("udp.socket_buffer_bytes", "size", "110592 B", "send and receive buffer of a UDP socket; a datagram that would overfill the receiver's is dropped, a sender sleeps while its own is full", "[R] Linux 2.6 net.core.rmem_default = wmem_default = 110592 on 32-bit (256 x (sizeof(sk_buff) + 256))", min=1, max=1073741824),
    P("tcp.syn_retries", "int", 5, "retransmissions of a SYN (or SYN-ACK) before the handshake gives up and connect() fails", "[R] Linux 2.6 net.ipv4.tcp_syn_retries = tcp_synack_retries = 5", min=0, max=30),
    P("tcp.time_wait_ps", "time", "60 s", "how long the end that closes first holds the connection (and its port) in TIME_WAIT", "[R] Linux TCP_TIMEWAIT_LEN (2 MSL = 60 s)", min=1, max=1e+15),
    P("tcp.ephemeral_ports", "int", 28233, "ports a node may hold at once for connections it opens (including those in TIME_WAIT); connect fails beyond", "[R] Linux 2.6 net.ipv4.ip_local_port_range 32768-61000", min=1, max=65535),
    P("sched.wakeup_preempts", "bool", True, "a woken communication thread preempts the load thread", "[N] §2.6"),
    # receive-path choices (host-path §2.3 notes)
    P("rx.softirq_payload_copy", "bool", True, "the receive softirq copies each payload from the DMA buffer into the socket (skb_copy), on the protocol processor", "[S] thesis Appendix III: data_ready 'copies the data to the socket'; §3.5.2; decided in docs/calibration.md"),
    # placement-specific switches (host-path §5.5)
    P("org.name", "choice", "", "stack organisation whose settings (nicsim/orgs/NAME.toml: the profile, org.* mechanisms, stage costs) go over the preset, under explicit settings; empty: the configuration's own (docs/stacks.md)", "[N] stacks.md Part B", choices=("", "linux", "bsd", "streams", "streams-demux", "user_level_tcp")),
    P("org.ilp", "bool", False, "with org.name: the organisation's fused copy+checksum (ILP) stage costs as well (stacks.md §B.6)", "[S] stacks.md §B.6, §B.9"),
    P("org.buffers", "choice", "skb", "the kernel buffers a send allocates, one skb_alloc each: skb (Linux: one sk_buff per copy into the socket), streams_mblk (the Stream-Head: a data block and an M_PROTO block per write) or bsd_mbuf (AIX's BSD: a 4 KB cluster per whole 4 KB, a remainder up to 936 B in 236-byte small mbufs, else one more cluster; new data first fills the free tail of the send list's last buffer)", "[S] stacks.md §B.2 (allocation rule and tail append), §B.3 and §B.7 (the Stream-Head allocates for every write: streams_mblk, the data block and the M_PROTO block); [I] the rule for the remainder", choices=("skb", "bsd_mbuf", "streams_mblk")),
    P("org.wakeup", "choice", "per_segment", "when a reader blocked in a receive call is woken: per_segment (at every segment that brings data: BSD, Linux, classic Streams) per_call (once the data waiting cover what the call still wants, or half the receive buffer, or the stream ends: the demultiplexed stack's M_READ, receive-buffer strategy 2), per_ack (strategy 1: TCP holds data until it acknowledges them, so the reader wakes at each immediate ACK, every second full segment, and each delayed ACK's expiry) or fill_or_push (strategy 4: the Stream-Head fills the call's buffer, and a segment the sender pushed flushes it)", "[S] stacks.md §B.2 (BSD wakes per segment), §B.4 (receive-buffer strategies 1, 2 and 4; strategy 2 implemented by the thesis); [N] the half-buffer cap of per_call (a call larger than the window would never fill); the sender's push as strategy 4's flush message", choices=("per_segment", "per_call", "per_ack", "fill_or_push")),
    P("org.segment_buffers", "int", 0, "kernel buffers TCP output allocates per data segment besides the data's (one skb_alloc each): 0 for Linux (the sk_buff carries its headers), 2 for BSD (a header mbuf, and the mbuf m_copy makes for the retransmission copy)", "[R] 4.4BSD tcp_output: MGETHDR and m_copy; stacks.md §B.9: a 1024-B BSD send allocates 3 buffers", min=0, max=64),
    P("org.tx_service", "bool", False, "sends leave through a service routine that the software interrupt runs (classic Streams on AIX 4.1.2: putq from thread context raises it), on the protocol processor, instead of from the calling thread", "[S] stacks.md §B.3 (per-queue processing; TSDUs through write queues and service routines)"),
    P("org.ip_serialised", "bool", False, "with smp.spinlocks: IP input and output (rx_ip, tx_ip) hold one node-wide lock: classic Streams' single stream between IP and DLPI, whose queue-level synchronisation cannot be switched off, serialises IP across connections and CPUs", "[S] stacks.md §B.3 (structural limits), §B.7 (Streams class); [N] a spinning lock stands in for the Synchronisation Element, whose waiter leaves its request to the holder"),
    P("org.context_list_lock", "bool", False, "with smp.spinlocks: the demultiplexed stack's one private TCP lock, over the TCP context list: held by the anchor driver's demultiplexing of each received packet (rx_ip) and by the TCP timers' walks (timer), node-wide", "[S] stacks.md §B.4 (parallelism and locking: the only private TCP lock, taken when the list changes or is walked)"),
    P("org.tcp_in_library", "bool", False, "TCP runs in a library in the application's process (user-level TCP): the kernel's demultiplexing driver (priced as rx_ip) queues each segment for its socket and wakes the process, which runs TCP input itself and fetches each segment with select and recv (two rx_syscall); every segment it sends, ACKs included, is one system call (tx_syscall) carrying one PMTU, and a send copies the data twice (into the retransmission buffer, then into the kernel). Retransmission and delayed-ACK timers stay in the kernel [N]", "[S] stacks.md §B.5"),
    P("tx.model", "choice", "linux", "transmit model: linux (send-initiated output on the sending thread) or toe (on the NIC processor, after a doorbell; only where the protocol runs on nic_cpu)", "[N] Q2, host-path §5.3", choices=("linux", "toe")),
    P("tx.queue_frames", "int", 0, "frames a device's transmit queue (the qdisc, BSD's ifq) holds while its ring is full; 0: no limit", "[R] BSD IFQ_MAXLEN = 50, Linux txqueuelen = 1000; stacks.md §B.8 (the flood saturates it)", min=0, max=1_000_000),
    P("tx.local_flow_control", "bool", True, "a full transmit queue blocks the sender rather than dropping what it sends: a UDP sender sleeps while its unreclaimed datagrams fill its send buffer or its device's queue is full (Linux's sndbuf accounting, AIX's CC blocking), and TCP's window-bounded output waits in the queue; false (BSD): a datagram is not charged to its socket, its sender never sleeps, and whatever finds the queue at tx.queue_frames is dropped at the sender and counted", "[S] stacks.md §B.8 (the UDP flood with and without local flow control); [R] Linux sock_alloc_send_skb, BSD if_output IF_QFULL"),
    P("onload.per_packet_irq", "bool", False, "onload NIC raises one interrupt per received packet (no NAPI) on a node whose protocol runs on a host CPU other than its communication thread's (the onload placement, or a custom one like it); the core decides it (physics.derived()['roles'])", "[N] Q13: the thesis's literal reading; default as base"),
    P("smp.background_ipi_per_s", "float", 0.0, "background cross-calls (TLB shootdowns, function calls) per second on every host CPU", "[N] Q28, host-path §5.8", min=0, max=1e6),
    P("smp.notification_handler", "choice", "ipi", "how a notification (reschedule IPI, softirq kick, doorbell) is handled on its target: ipi (Linux 2.6's IPI vectors: entry stub, APIC EOI, return; profile stage ipi_handler) or irq (the full do_IRQ path, irq_entry + irq_exit)", "[N][R] Linux 2.6 arch/i386 smp_reschedule_interrupt bypasses do_IRQ; decided before fitting (docs/calibration.md)", choices=("ipi", "irq")),
    P("sched.tick_hz", "float", 0.0, "local timer interrupts per second on every host CPU (Linux's HZ): each runs the timer_tick stage; 0 leaves the tick out, as the calibrated presets do", "[R] Linux 2.6 HZ = 100, 250 or 1000; stacks.md §A.10 counts the timer apart", min=0, max=100000),
    P("sched.ksoftirqd", "choice", "deferral", "who runs softirq work left after its budget: deferral (the softirq yields after one budget and resumes when nothing else runs, no thread: the calibrated presets) or thread (Linux 2.6: after sched.softirq_restarts budgets the CPU's ksoftirqd, a nice-19 thread, runs the rest when no other thread wants the CPU, a context switch to it counted and charged)", "[S] stacks.md §A.3 (MAX_SOFTIRQ_RESTART, ksoftirqd per CPU); [N] deferral by default: the thesis's calibration predates it", choices=("deferral", "thread")),
    P("sched.softirq_restarts", "int", 10, "with sched.ksoftirqd = thread: budgets (napi.budget frames each) one softirq activation may run before ksoftirqd takes over", "[R] Linux 2.6 MAX_SOFTIRQ_RESTART = 10", min=1, max=1000),
    P("smp.spinlocks", "bool", False, "model the stack's spinlocks as shared resources (os/lock.rs): a processor that finds one held by another spins until its release; each device's transmit queue lock (dev->queue_lock, taken by tx_dev) and each socket's spinlock (bh_lock_sock, taken by the softirq's rx_tcp); and every stage pays its uncontended acquire-release pairs (the profile's `locks`, priced by the spin_lock stage). Off in the thesis presets, whose calibration predates it", "[N] stacks.md §A.9, §B.7"),
    P("smp.allocator_lock", "bool", False, "with smp.spinlocks: every buffer allocation and free (skb_alloc, skb_free) holds the node's one allocator lock; false: per-CPU caches take no shared lock", "[S] stacks.md §B.7 (memory class: AIX 4.1's memory services); [R] Linux 2.6 slab per-CPU array caches"),
    P("smp.thread_lock", "bool", False, "with smp.spinlocks: every wake-up (rx_wake) and context switch (context_switch) holds the node's one dispatcher lock, a global run queue; false: per-CPU run queues take no shared lock", "[S] stacks.md §B.7 (thread-management class: system calls, thread and timer management); [I] AIX 4.1's dispatcher ran one global run queue; [R] Linux 2.6's O(1) scheduler has per-CPU run queues"),
    # CPU-NET, the dedicated polling network CPU (stacks.md §A.8), with placement cpu_net_d or cpu_net_e
    P("cpu_net.device_irqs", "choice", "masked", "whether the NICs CPU-NET polls interrupt: masked (never; the loop finds their work and does the interrupt's ring bookkeeping inline) or to_cpu_net (routed to CPU-NET as ordinary interrupts, which NAPI then masks while the loop polls)", "[I/N] stacks.md §A.8: interrupts are avoided, yet tests D and E list interrupt processing", choices=("masked", "to_cpu_net")),
    P("cpu_net.idle_accounting", "choice", "busy_poll", "how CPU-NET's empty poll passes count in the sar-like %idle (processors' sar_idle): busy_poll (system time, a thread that never sleeps) or empty_poll_is_idle", "[N] stacks.md §A.8 (the slides do not say)", choices=("busy_poll", "empty_poll_is_idle")),
    P("offload.softirq_kick", "choice", "doorbell", "how the driver tells the NIC processor to run the softirq", "[N] Q31", choices=("doorbell", "ipi")),
    P("offload.ack_path", "choice", "nic_local", "ACKs built and consumed on the NIC, or through the host driver", "[N] §5.5.5", choices=("nic_local", "via_host_driver")),
    # the connection-handoff NIC (handoff.md): off unless handoff.max_connections > 0
    P("handoff.max_connections", "int", 0, "the hard limit: connections the NIC may own at once; 0: no handoff, a plain programmable NIC that forwards every packet", "[S] handoff.md §6.1, §10 (maxconns field)", min=0, max=65535),
    P("handoff.priority", "choice", "host_first", "how the NIC processor orders its work: fcfs (one queue in arrival order) or host_first (every queued host packet before any work for an owned connection); non-preemptive per task", "[S] handoff.md §5 (P / N in names)", choices=("fcfs", "host_first")),
    P("handoff.selection", "choice", "fcfs", "which connections the OS hands over: fcfs (each at accept, until the NIC refuses) or threshold (at the send that brings its data segments sent to handoff.threshold_packets); a refused connection is never tried again", "[S] handoff.md §7.1, §7.4; [I] the estimator", choices=("fcfs", "threshold")),
    P("handoff.threshold_packets", "int", 4, "the threshold policy's lifetime: data segments sent so far", "[N] handoff.md §7.4 (the study's values are not in our copy, §12.5)", min=1, max=1000000),
    P("handoff.load_control", "bool", True, "load control: a soft limit moved by the receive queue's watermarks (§6.2 state machine, evaluated on every enqueue); off: soft limit = hard limit", "[S] handoff.md §6 (L / N in names)"),
    P("handoff.hiwat_packets", "int", 0, "high watermark on the NIC receive queue, packets; 0: ceil(target_rx_delay x NIC rate / instructions of a received segment)", "[N] handoff.md §6.3", min=0, max=65535),
    P("handoff.lowat_packets", "int", 0, "low watermark, packets; 0: hiwat / 4", "[N] handoff.md §6.3", min=0, max=65535),
    P("handoff.target_rx_delay_ps", "time", "20 us", "the queueing-delay budget the derived high watermark stands for", "[N] handoff.md §6.3 (no value in the sources)", min=1, max=1e+12),
    P("handoff.step_packets", "int", 1, "connections the soft limit moves per evaluation, down or up", "[N] handoff.md §6.2", min=1, max=65535),
    P("handoff.soft_min", "int", 0, "the soft limit's floor", "[N] handoff.md §6.2", min=0, max=65535),
    P("handoff.state_bytes", "size", "512 B", "TCP state a handoff DMA-reads from host memory", "[N] handoff.md §12.3", min=1, max=1048576),
    P("handoff.nic_conn_state_bytes", "size", "2 KiB", "NIC memory per owned connection", "[N] handoff.md §12.3", min=1, max=1048576),
    P("handoff.nic_reserved_bytes", "size", "4 MiB", "NIC memory the firmware keeps for itself (code, buffers); the rest bounds the hard limit", "[N] handoff.md §6.1", min=0, max=1 << 34),
    P("handoff.queue_packets", "int", 1024, "capacity of each NIC processor queue (host, NIC), packets; overflow drops and is counted per class", "[N] handoff.md §5", min=1, max=1000000),
    P("handoff.sample_interval_ps", "time", "1 ms", "interval of the timeline samples of the soft limit, owned connections, Qlen and load state (taken at the first arrival after it)", "[N] handoff.md §11", min=1, max=1e+15),
    P("handoff.on_excess", "choice", "refuse_new", "when the soft limit falls below the owned count: refuse_new (refuse handoffs; the count drains as connections close) or restore_excess (the NIC raises an event and the OS restores the excess, the most recently handed off first, by RESTORE commands that DMA the state back)", "[N] handoff.md §6.2 (the sources do not say; [S] the OS can reclaim connections)", choices=("refuse_new", "restore_excess")),
    P("handoff.count", "choice", "data_segments", "what the threshold policy counts as packets sent: data segments, or all segments (pure ACKs, SYN and FIN too)", "[N] handoff.md §7.4", choices=("data_segments", "all_segments")),
    P("handoff.time_wait_on_nic", "bool", False, "owned connections keep their NIC slot through TIME_WAIT; off: TIME_WAIT is handed back to the host as a minimal record", "[N] handoff.md §4.5"),
    P("handoff.lookup_buckets", "int", 0, "lookup-table buckets; 0: the next power of two >= 2 x max_connections", "[N] handoff.md §3", min=0, max=1 << 24),
    # placement (resolved into the core's per-node tables by config.py)
    P("placement.preset", "choice", "base", "placement both nodes start from (handoff: the connection-handoff NIC of handoff.md, on the server only; cpu_net_d, cpu_net_e: CPU-NET, stacks.md §A.9 tests D and E)", "[S] §5.2; handoff.md §2", choices=("base", "offload", "onload", "hybrid", "handoff", "cpu_net_d", "cpu_net_e")),
    P("placement.driver", "choice", "", "override: processor taking the NIC interrupt and running the driver", "[S] Table 5.1", choices=("",) + PROCESSORS),
    P("placement.protocol", "choice", "", "override: processor running the softirq, IP and TCP", "[S] Table 5.1", choices=("",) + PROCESSORS),
    P("placement.comm_thread", "choice", "", "override: processor of the benchmark's communication thread (system calls, copies)", "[S] Table 5.1", choices=("",) + PROCESSORS),
    P("placement.app", "choice", "", "override: processor of the application-load thread", "[S] §5.7", choices=("",) + PROCESSORS),
    P("placement.irq_path", "choice", "", "override: ioapic (with its latency) or direct", "[S] §4.6, §5.5.4", choices=("", "ioapic", "direct")),
    P("placement.rx_mode", "choice", "", "override: host_ring (per-packet DMA), ring_accumulate (NIC memory, one burst per flush), poll (the host ring polled without end by the protocol CPU, CPU-NET) or handoff (the NIC processor looks up every frame, runs TCP for the connections it owns and forwards the rest to the host ring)", "[S] §5.5.4; handoff.md §3", choices=("", "host_ring", "ring_accumulate", "handoff", "poll")),
    P("placement.sender", "choice", "same", "placement of the client nodes (the streaming senders); 'same' = as the server", "[N] Q1", choices=("same", "base", "offload", "onload", "hybrid")),
    # cost profile
    P("costs.profile", "choice", "ortiz2008", "cost profile file in nicsim/profiles: ortiz2008 (Linux 2.6 on the thesis's host, calibrated, docs/calibration.md) or roca1996-power (BSD on AIX 4.1.2, the 41.7 MHz POWER's instruction counts and IPCs of stacks.md §B.9, unfitted)", "[N] docs/calibration.md; stacks.md §B.9", choices=("ortiz2008", "roca1996-power")),
    # workloads
    P("workload.kind", "choice", "netpipe", "benchmark to run", "[S] §7", choices=("netpipe", "hpcbench", "packet_gen", "netperf", "web")),
    P("workload.netpipe.mode", "choice", "stream", "streaming (bandwidth) or ping-pong (latency)", "[S] §7.2", choices=("stream", "pingpong")),
    P("workload.netpipe.target_ps", "time", "2 s", "simulated time per point (NetPIPE's RUNTM)", "[S] Table 4.6", min=1, max=1e+15),
    P("workload.netpipe.start_bytes", "size", "1 B", "first block size", "[R] NetPIPE", min=1, max=1073741824),
    P("workload.netpipe.max_bytes", "size", "2 MiB", "largest nominal block", "[S] Table 4.6", min=1, max=1073741824),
    P("workload.netpipe.perturbation_bytes", "size", "3 B", "± perturbation around nominal sizes", "[R] NetPIPE DEFPERT", min=0, max=1048576),
    P("workload.netpipe.trials", "int", 1, "trials per point (deterministic: more only matter with random inputs)", "[N] §7.2", min=1, max=20),
    P("workload.netpipe.trial_aggregate", "choice", "min", "how trials combine", "[R] NetPIPE code", choices=("min", "mean")),
    P("workload.netpipe.stop_ps", "time", "1 s", "stop when a transfer takes longer than this (STOPTM)", "[R] NetPIPE", min=1, max=1e+15),
    P("workload.netpipe.nodelay", "bool", True, "TCP_NODELAY on the benchmark socket", "[R] NetPIPE's TCP module sets it"),
    P("workload.netpipe.sizes_bytes", "sizes", [], "measure only these sizes instead of NetPIPE's schedule", "[N]"),
    P("workload.hpcbench.message_bytes", "size", "256 KiB", "message size (2 Mbit, binary reading)", "[I] Q19", min=1, max=1073741824),
    P("workload.hpcbench.duration_ps", "time", "2 s", "measured window", "[S] 2 s per point", min=1, max=1e+15),
    P("workload.hpcbench.warmup_ps", "time", "200 ms", "unmeasured warm-up before the window", "[N]", min=0, max=1e+15),
    P("workload.hpcbench.app_cycles_per_byte", "float", 0.0, "load-thread work per received byte, host cycles (a)", "[N] §7.4", min=0, max=1e+06),
    P("workload.hpcbench.app_refs_per_byte", "float", 0.25, "load-thread memory references per byte (one read pass)", "[N] §7.4", min=0, max=1000),
    P("workload.hpcbench.queue_messages", "int", 1, "messages the receiver may queue for the load thread", "[N] §7.4", min=1, max=1e+06),
    P("workload.hpcbench.nodelay", "bool", False, "TCP_NODELAY on the Hpcbench socket", "[N] §6 item 7: unknown, Nagle on"),
    P("workload.netperf.test", "choice", "tcp_stream", "netperf test: bulk transfer, request/response transactions, or a new connection per transaction (connect, request, response, close); over TCP or, for bulk and request/response, UDP (udp_rr: no retransmission, a lost datagram stalls its instance)", "[R] netperf's tests of the same names", choices=("tcp_stream", "tcp_rr", "tcp_crr", "udp_stream", "udp_rr")),
    P("workload.netperf.connections", "int", 1, "concurrent connections (netperf instances), spread round-robin over the clients", "[R] netperf runs one connection per instance", min=1, max=65535),
    P("workload.netperf.msg_bytes", "size", 0, "send size (TCP_STREAM), datagram size (UDP_STREAM) or request and response size (TCP_RR, TCP_CRR); 0 = the socket buffer (TCP_STREAM, netperf's default), one full frame (UDP_STREAM), or 1 byte", "[R] netperf -m / -r defaults", min=0, max=1073741824),
    P("workload.netperf.backlog", "int", 128, "the server's listen() backlog (TCP_CRR): while more than this many accepted connections wait for accept(), SYNs and handshake-ending ACKs are dropped (Linux sk_acceptq_is_full) and the peer retransmits", "[R] Linux 2.6 SOMAXCONN = 128, the cap on a listen() backlog", min=0, max=65535),
    P("workload.netperf.duration_ps", "time", "1 s", "measured window", "[N] netperf -l", min=1, max=1e+15),
    P("workload.netperf.warmup_ps", "time", "200 ms", "unmeasured warm-up before the window", "[N]", min=0, max=1e+15),
    P("workload.netperf.start_spread_ps", "time", "1 ms", "connections start at seeded uniform offsets within this time (never in lockstep)", "[N]", min=0, max=1e+15),
    P("workload.netperf.server_threads", "choice", "comm", "where the netservers run: comm (pinned to the placement's comm_thread processor), nic (each pinned to the CPU its connection's device interrupts, stacks.md §A.9 test C; TCP_CRR servers stay on comm_thread) or free (start on comm_thread, migrate when woken to an idle CPU, test B)", "[S] stacks.md §A.9 tests B, C", choices=("comm", "nic", "free")),
    P("workload.netperf.client_threads", "choice", "comm", "where the netperf clients run: comm (pinned to the client placement's comm_thread processor) or free (start there, migrate when woken to an idle CPU: one process per connection on an SMP, stacks.md §B.8)", "[S] stacks.md §B.8 (bench forks one child per connection)", choices=("comm", "free")),
    P("workload.netperf.udp_flood_flows", "int", 0, "UDP_STREAM flows from the clients to the server beside TCP_STREAM's connections, each a process sending workload.netperf.udp_flood_bytes datagrams back to back; reported per flow (sent, received, dropped at the sender)", "[S] stacks.md §B.8 (a UDP flood alongside one TCP connection)", min=0, max=1024),
    P("workload.netperf.udp_flood_bytes", "size", "1 KiB", "datagram size of the UDP flood", "[S] stacks.md §B.8: 512, 1024 and 4096 B", min=1, max=65507),
    P("workload.netperf.nodelay", "bool", False, "TCP_NODELAY on every connection", "[R] netperf sets it only with -D"),
    # web server (host-path §7.8; Q26 defaults)
    P("workload.web.users", "int", 100, "concurrent users, closed loop, spread round-robin over the client nodes", "[S] §7.8: 100 to 2,500 users", min=1, max=65535),
    P("workload.web.workers", "int", 256, "server worker threads blocking in accept() and reads", "[R] Apache 2.0 prefork MaxClients = 256", min=1, max=65535),
    P("workload.web.page_size_bytes", "size", "5 KiB", "response size (a static page)", "[S] §7.8: 5 KB and 300 KB pages", min=1, max=1073741824),
    P("workload.web.request_bytes", "size", "200 B", "HTTP request size", "[N] Q26 default", min=1, max=1048576),
    P("workload.web.think_ps", "time", "0 s", "mean of the exponential think time between a response and the next request; 0: none", "[N] Q26 default: no think time", min=0, max=1e+15),
    P("workload.web.keep_alive", "bool", False, "users keep their connection across requests (HTTP/1.1 keep-alive); off: a connection per request, the server closing first", "[N] Q26 default: off"),
    P("workload.web.sendfile", "bool", False, "the server sends responses with sendfile(): the socket takes page references, no copy (only the call's fixed part of tx_copy); off: copied as Apache 1.3/2.0 without EnableSendfile", "[S] handoff.md §1, §9.2: zero-copy send in the handoff study; [N] off by default (§7.8 Q26)"),
    P("workload.web.mix", "choice", "fixed", "response sizes: fixed (page_size_bytes); specweb99_static (four classes, 35/50/14/1 % of requests, nine files each from 102 B to 921 KiB, chosen evenly within a class); lognormal (heavy-tailed sizes with mean page_size_bytes and, with keep-alive, lifetimes with mean requests_per_connection; shape 1.2816 so the smaller half carries 10%: a stand-in, not a trace)", "[R] SPECweb99 static file set (class shares as handoff.md §9.1 gives them, unverified); [N] handoff.md §7.5", choices=("fixed", "specweb99_static", "lognormal")),
    P("workload.web.requests_per_connection", "float", 100.0, "with keep-alive: requests per connection (its mean with the lognormal mix), after which the user closes and reconnects; 0: a connection lasts for ever (users beyond the workers then wait for ever)", "[R] Apache 2.0 MaxKeepAliveRequests = 100", min=0, max=1e6),
    P("workload.web.trace_file", "path", "", "CSV request trace to replay instead of the mix (connection_id, request_index, response_bytes[, arrival_ns]): each user replays the next connection, its requests on one connection, no earlier than its arrival; the trace repeats when it runs out; empty: the mix", "[S] handoff.md §9.2"),
    P("workload.web.backlog", "int", 128, "the server's listen() backlog", "[R] Apache ListenBacklog 511, capped by Linux 2.6 SOMAXCONN = 128", min=0, max=65535),
    P("workload.web.duration_ps", "time", "1 s", "measured window", "[N]", min=1, max=1e+15),
    P("workload.web.warmup_ps", "time", "200 ms", "unmeasured warm-up", "[N]", min=0, max=1e+15),
    P("workload.web.start_spread_ps", "time", "100 ms", "users start at seeded uniform offsets within this time", "[N] a ramp, so the first SYNs do not all land in one millisecond", min=0, max=1e+15),
    P("workload.packet_gen.frame_bytes", "size", "64 B", "Ethernet frame length of generated frames (header and FCS included)", "[S] HDL paper: 64-byte packets", min=64, max=65554),
    P("workload.packet_gen.rate_pps", "float", 100000.0, "offered frames per second at node1's MAC", "[N] §7.9", min=1, max=1e+09),
    P("workload.packet_gen.poisson", "bool", False, "exponential gaps (seeded by run.seed) instead of a constant interval", "[N] §7.9"),
    P("workload.packet_gen.duration_ps", "time", "100 ms", "measured window", "[N]", min=1, max=1e+15),
    P("workload.packet_gen.warmup_ps", "time", "10 ms", "unmeasured warm-up", "[N]", min=0, max=1e+15),
    P("workload.packet_gen.trace_file", "path", "", "CSV packet trace to replay instead (length_bytes, interval_ns or time_ns); empty: synthetic", "[S] HDL paper: trace-driven input"),
]

BY_KEY: dict[str, Param] = {p.key: p for p in PARAMS}
