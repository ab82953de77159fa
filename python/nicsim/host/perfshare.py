"""Where a real host's kernel spends a run, from `perf record -a` samples: the share of the
copy, TCP/IP, driver and OS categories (nicsim's cost categories, `share.CATEGORY` rows of
`nicsim validate --reference`), for `nicsim probe --perf`.

Kernel symbols are sorted into the category of the model stage that stands for them
(profiles/linux6-x86_64.toml): user copies and the per-skb copy loop are `copy`; TCP, IP, GRO
and congestion control are `tcpip`; the device layer, loopback, veth, the backlog and the
qdisc are `driver`; everything else in the kernel (system calls, sk_buff allocation and
freeing, wake-ups, the scheduler, softirq dispatch, interrupts) is `os`. User-space samples
are the application's and idle-loop samples are idle: neither is in a share, as in the model's
shares of the server's busy time. Only the benchmark's own processes and the softirq threads
count (`perf report --comms`): softirq work runs in whichever task it interrupts, which on a
quiet host is the benchmark's; other processes' kernel time is left out. Run probe on a quiet
host all the same."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from ..config.costs import COMMUNICATION

CATEGORIES = COMMUNICATION
# Symbol prefixes by category, tried in this order (the first match wins). The socket calls'
# own work (tcp_sendmsg, tcp_recvmsg and what they call per call, not per segment) is the
# model's tx_syscall and rx_syscall stages, which are `os`, so it goes there before `tcp`.
PREFIXES = {
    "os": ("tcp_sendmsg", "tcp_recvmsg", "tcp_cleanup_rbuf", "tcp_rcv_space_adjust", "tcp_stream_alloc_skb",
           "tcp_release_cb", "tcp_poll", "tcp_recv_timestamp", "tcp_stream_memory_free", "tcp_wmem_schedule",
           "tcp_remove_empty_skb", "inet_sendmsg", "inet_recvmsg", "inet_send_prepare"),
    "copy": ("copy_user", "rep_movs", "_copy_to_iter", "_copy_from_iter", "copy_page_to_iter", "copy_page_from_iter",
             "__copy_", "copyin", "copyout", "skb_copy_datagram", "simple_copy_to_iter", "csum_partial_copy",
             "skb_do_copy_data", "memcpy", "__memcpy", "memmove", "copy_to_user", "copy_from_user"),
    "tcpip": ("tcp", "__tcp", "ip_", "__ip_", "ip4_", "ipv4_", "inet_", "__inet", "inet6_", "bictcp", "cubictcp",
              "dev_gro_receive", "napi_gro", "gro_", "skb_gro", "dst_", "__sk_dst", "fib_", "raw_v4", "nf_hook",
              "skb_segment", "__skb_gso", "skb_gso", "skb_try_coalesce"),
    "driver": ("loopback_", "veth_", "dev_hard_start_xmit", "__dev_queue_xmit", "dev_queue_xmit", "netif_rx", "__netif_rx",
               "enqueue_to_backlog", "process_backlog", "__netif_receive_skb", "netif_receive_skb", "eth_type_trans",
               "validate_xmit", "sch_direct_xmit", "__qdisc", "qdisc_", "pfifo_", "fq_codel", "__dev_forward_skb",
               "dev_forward_skb", "skb_scrub_packet"),
}
# The processes whose samples count: the benchmarks', nicsim's own RR client and ksoftirqd.
TOOLS = ("iperf3", "netperf", "netserver", "python3", "python", "nicsim")
IDLE = ("default_idle", "acpi_idle", "intel_idle", "cpuidle", "native_safe_halt", "pv_native_safe_halt", "do_idle",
        "poll_idle", "mwait_idle", "cpu_idle", "arch_cpu_idle", "__cpuidle")
LINE = re.compile(r"^\s*([0-9.]+)%\s+\[([k.])\]\s+(\S+)")


def category(symbol: str) -> str | None:
    """The category of kernel symbol `symbol`, or None for the idle loop."""
    if symbol.startswith(IDLE):
        return None
    for cat, prefixes in PREFIXES.items():
        if symbol.startswith(prefixes):
            return cat
    return "os"


def shares(report: str) -> dict[str, float] | None:
    """Each category's share of the kernel's non-idle samples, from `perf report --stdio
    --sort sym` text; None when it holds no kernel sample."""
    total = dict.fromkeys(CATEGORIES, 0.0)
    for line in report.splitlines():
        m = LINE.match(line)
        if not m or m.group(2) != "k":
            continue
        cat = category(m.group(3))
        if cat is not None:
            total[cat] += float(m.group(1))
    s = sum(total.values())
    return {c: v / s for c, v in total.items()} if s > 0 else None


def comms() -> str:
    """`perf report --comms`: the tools and every CPU's ksoftirqd."""
    return ",".join((*TOOLS, *(f"ksoftirqd/{i}" for i in range(os.cpu_count() or 1))))


class Recording:
    """`perf record -a` around a run: `with Recording() as r: run()`, then `r.shares`. Without
    perf, or where it cannot sample, `shares` stays None and `why` says why."""

    def __init__(self) -> None:
        self.shares: dict[str, float] | None = None
        self.why = ""

    def __enter__(self) -> Recording:
        self.dir = tempfile.TemporaryDirectory(prefix="nicsim-perf-")
        self.data = Path(self.dir.name) / "perf.data"
        self.proc = None
        if shutil.which("perf") is None:
            self.why = "perf is not installed (apt install linux-perf)"
            return self
        self.proc = subprocess.Popen(["perf", "record", "-a", "-F", "999", "-q", "-o", str(self.data)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc) -> bool:
        try:
            if self.proc is not None:
                self.proc.send_signal(signal.SIGINT)
                try:
                    _, err = self.proc.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    _, err = self.proc.communicate()
                rep = subprocess.run(["perf", "report", "-i", str(self.data), "--stdio", "--sort", "sym", "--no-children",
                                      "--percent-limit", "0", "--comms", comms()], capture_output=True, text=True, timeout=120)
                self.shares = shares(rep.stdout)
                if self.shares is None:
                    last = (err or rep.stderr).strip().splitlines()
                    self.why = "perf recorded no kernel samples" + (f" ({last[-1]})" if last else "")
        finally:
            self.dir.cleanup()
        return False
