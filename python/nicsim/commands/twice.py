"""A value given twice: a command's option and a `--set` of the parameter it stands for
(`--max-size 1KiB --set workload.netpipe.max_bytes=0B`). Checked once the command line is
parsed, before anything runs: the `--set` value is checked as any other, and when the two
differ the command is refused in one line naming both. The same value given both ways runs."""
from __future__ import annotations

from typing import Any, Callable

from ..errors import ConfigError

ANY = object()  # an option whose meaning is not one parameter value: any --set of the key conflicts


def _same(v: Any) -> Any:
    return v


def _test(v: str) -> Any:
    from ..benchmarks.netperf import TESTS

    return TESTS.get(v, ANY)


def _true(v: Any) -> Any:
    return True if v else None


def _users(v: str) -> Any:
    return v if "," not in str(v) else ANY


def _any(v: Any) -> Any:
    return ANY


# The options that stand for a parameter, per command: (option, argparse dest, key, how the
# option's value reads as the key's; None means the option was not given).
_RECORD = [("--series", "series", "run.series_ps", _same), ("--pcap-out", "pcap_out", "run.pcap", _true),
           ("--trace-out", "trace_out", "run.trace", _true)]
_WINDOW = [("--duration", "duration", "duration_ps", _same), ("--warmup", "warmup", "warmup_ps", _same)]
OPTIONS: dict[str, list[tuple[str, str, str, Callable[[Any], Any]]]] = {
    "netpipe": [("--mode", "mode", "workload.netpipe.mode", _same), ("--max-size", "max_size", "workload.netpipe.max_bytes", _same)],
    "netperf": [("--test", "test", "workload.netperf.test", _test),
                ("--connections", "connections", "workload.netperf.connections", _same),
                ("--clients", "clients", "topology.clients", _same), ("--msg-size", "msg_size", "workload.netperf.msg_bytes", _same),
                ("--seed", "seed", "run.seed", _same)] + [(o, d, f"workload.netperf.{k}", c) for o, d, k, c in _WINDOW],
    "web": [("--users", "users", "workload.web.users", _users), ("--page-size", "page_size", "workload.web.page_size_bytes", _same),
            ("--mix", "mix", "workload.web.mix", _same), ("--trace", "trace", "workload.web.trace_file", _same),
            ("--think", "think", "workload.web.think_ps", _same), ("--keep-alive", "keep_alive", "workload.web.keep_alive", _true),
            ("--clients", "clients", "topology.clients", _same), ("--seed", "seed", "run.seed", _same)]
           + [(o, d, f"workload.web.{k}", c) for o, d, k, c in _WINDOW],
    "hpcbench": [("--msg-size", "msg_size", "workload.hpcbench.message_bytes", _same),
                 ("--duration", "duration", "workload.hpcbench.duration_ps", _same),
                 ("--gamma", "gamma", "workload.hpcbench.app_cycles_per_byte", _any),
                 ("--app-work-per-byte", "app_work_per_byte", "workload.hpcbench.app_cycles_per_byte", _any)],
    "gamma-sweep": [("--duration", "duration", "workload.hpcbench.duration_ps", _same),
                    ("--msg-size", "msg_size", "workload.hpcbench.message_bytes", _any)],
    "study laws": [("--duration", "duration", "workload.hpcbench.duration_ps", _same),
                   ("--msg-size", "msg_size", "workload.hpcbench.message_bytes", _same)],
    "handoff": [("--seed", "seed", "run.seed", _same)],
    "bulkecho": [("--org", "org", "org.name", _same), ("--nodelay", "nodelay", "workload.netperf.nodelay", _true),
                 ("--ilp", "ilp", "org.ilp", _true), ("--cpus", "cpus", "cpu.count", _users), ("--seed", "seed", "run.seed", _same)],
}
for _cmd in ("netpipe", "netperf", "web", "hpcbench", "handoff", "bulkecho", "run"):
    OPTIONS.setdefault(_cmd, []).extend(_RECORD)


def _value(key: str, raw: Any) -> Any:
    from ..config import parse_value
    from ..config.params import BY_KEY

    return parse_value(BY_KEY[key], raw) if key in BY_KEY else raw


def check_given_twice(cmd: str, args: Any, sets: dict[str, str], parser: Any = None) -> None:
    """Refuses an option and a `--set` that give the same parameter different values
    (`parser`: the command's, to say when the option's value is its default)."""
    for option, dest, key, read in OPTIONS.get(cmd, []):
        given = getattr(args, dest, None)
        if given is None or given is False or given == [] or key not in sets:
            continue
        mine = read(given[0] if isinstance(given, list) and len(given) == 1 else given)
        if mine is None:
            continue
        try:
            theirs, why = _value(key, sets[key]), ""
        except ConfigError as e:  # the --set is checked like any other: said beside the conflict
            theirs, why = ANY, f" (and the --set is not valid: {e})"
        if theirs is ANY or mine is ANY or isinstance(given, list) and len(given) > 1 or _value(key, mine) != theirs:
            shown = ",".join(map(str, given)) if isinstance(given, list) else given
            flag = option if given is True else f"{option} {shown}"
            if parser is not None and given == parser.get_default(dest):
                flag = f"{option}'s default {shown}"
            raise ConfigError(f"{flag} and --set {key}={sets[key]} both give {key}; give one of them{why}")
