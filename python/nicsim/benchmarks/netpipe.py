"""NetPIPE, the main benchmark: its result as text, and where the first ping-pong point's one-way
time goes (calibration.md T1). The core runs it (`workload/netpipe.rs`); `nicsim netpipe` and
`nicsim demo` print it."""
from __future__ import annotations

from ..config import CATEGORIES


def print_netpipe(out: dict) -> None:
    pts = out["points"]
    pl = out["config"]["placements"]
    print(f"placement node0={pl[0]['name']} node1={pl[1]['name']}  mode={out['summary']['mode']}  config {out['config_hash']}")
    procs = list(pts[0]["processors"]) if pts else []
    rx = [k for k in procs if k.startswith("node1.")]
    head = f"{'size B':>9} {'reps':>7} {'time us':>10} {'Mbps':>8}" + "".join(f" {k[6:] + ' util':>13} {'irq/s':>8}" for k in rx)
    print(head)
    for p in pts:
        row = f"{p['size_bytes']:>9} {p['repetitions']:>7} {p['time_us']:>10.2f} {p['throughput_mbps']:>8.1f}"
        for k in rx:
            pr = p["processors"][k]
            row += f" {pr['utilisation']:>13.3f} {pr['irq_per_s']:>8.0f}"
        print(row)
    s = out["summary"]
    if s["mode"] == "pingpong":
        print(f"\nlatency (first point, one-way): {s['latency_us']:.2f} us")
    else:
        print(f"\ntime per message at the first point: {s['latency_us']:.2f} us (streaming; run --mode pingpong for latency)")
    print(f"peak throughput: {s['peak_throughput_mbps']:.1f} Mbps SI ({s['peak_throughput_netpipe_mbps']:.1f} NetPIPE Mbps) at {s['peak_size_bytes']} B")
    if s["saturation_bytes"] is not None:
        print(f"saturation point: {s['saturation_bytes']:.0f} B ({s['saturation_estimator']})")
    if s["mode"] == "pingpong":
        print_latency_breakdown(out)
    if pts:
        from ..io.cachereport import print_caches

        last = pts[-1]
        print_caches(f"caches at {last['size_bytes']} B (mode B, hit rates of reads and writes):",
                     last["processors"], last["nodes"])


def print_latency_breakdown(out: dict) -> None:
    """Where the first ping-pong point's one-way time goes (calibration.md T1): CPU time per
    category on each node per one-way transfer, the fixed hardware latencies of the path, and
    the rest (bus waits and collisions, minus CPU work that overlaps the transfer)."""
    p = out["points"][0]
    c = out["config"]
    msgs = 2 * p["repetitions"]
    window_s = p["time_us"] * 1e-6 * msgs
    print(f"\nlatency breakdown of the {p['size_bytes']}-byte message (µs per one-way transfer):")
    cpu_total = 0.0
    for k, pr in p["processors"].items():
        parts = {cat: pr["busy"][cat] * window_s / msgs * 1e6 for cat in CATEGORIES}
        cpu = sum(parts.values())
        if cpu > 0:
            cpu_total += cpu
            print(f"  {k:<14} " + "  ".join(f"{cat} {v:6.2f}" for cat, v in parts.items()) + f"   = {cpu:6.2f}")
    hw = _hardware_latencies_us(c, p["size_bytes"])
    for k, v in hw.items():
        print(f"  {k:<40} {v:6.2f}")
    rest = p["time_us"] - cpu_total - sum(hw.values())
    if rest >= 0:
        print(f"  {'bus waits and other time not listed':<40} {rest:6.2f}")
    else:
        # The two nodes' CPU work partly runs at the same time, so the lines above add to more
        # than the one-way time; this line takes the overlap back out.
        print(f"  {'CPU work that ran in parallel (overlap)':<40} {rest:6.2f}")
    print(f"  {'one-way time':<40} {p['time_us']:6.2f}")


def _hardware_latencies_us(c: dict, payload: int) -> dict[str, float]:
    """The core's fixed latencies of one frame of `payload` bytes (docs/output.md), in µs."""
    from ..config.physics import hardware_latencies

    h = hardware_latencies(c, payload)
    return {
        "sender DMA read (descriptor + frame)": h["sender_dma_read_ps"] * 1e-6,
        "wire (serialisation)": h["wire_serialisation_ps"] * 1e-6,
        "link propagation": h["link_propagation_ps"] * 1e-6,
        "receiver DMA write (frame + descriptor + status)": h["receiver_dma_write_ps"] * 1e-6,
        "interrupt delivery": h["interrupt_delivery_ps"] * 1e-6,
    }
