"""The core's layout keeps its promises (docs/design.md): no Rust file needs a scroll bar, no
file imports one that imports it back, hardware knows frames and not the stack, the TCP
endpoint is sans-IO, and the wiring does not reach into workloads."""
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "crates" / "nicsim" / "src"
MAX_LINES = 520


def module_of(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(parts)


def dependencies(src_dir: Path = SRC) -> dict[str, set[str]]:
    """Module → the crate modules its non-test code imports (longest existing prefix)."""
    files = {module_of(p): p for p in src_dir.rglob("*.rs")}
    deps = {}
    for mod, path in files.items():
        text = path.read_text().split("#[cfg(test)]")[0]
        found = set()
        refs = re.findall(r"crate::([a-z_:]+)", text)
        parent = mod.rsplit("::", 1)[0] if "::" in mod else ""
        refs += [f"{parent}::{m}" if parent else m for m in re.findall(r"^use super::([a-z_]+)", text, re.M)]
        for r in refs:
            parts = [x for x in r.split("::") if x]
            for k in range(len(parts), 0, -1):
                cand = "::".join(parts[:k])
                if cand in files:
                    found.add(cand)
                    break
        found.discard(mod)
        deps[mod] = found
    return deps


def cycles(deps: dict[str, set[str]]) -> list[list[str]]:
    out, state = [], {}

    def visit(n, stack):
        state[n] = 1
        stack.append(n)
        for d in sorted(deps.get(n, ())):
            if state.get(d) == 1:
                out.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d, stack)
        stack.pop()
        state[n] = 2

    for n in sorted(deps):
        if n not in state:
            visit(n, [])
    return out


def test_no_rust_file_needs_a_scroll_bar():
    long = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.rs") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"split these by concern: {long}"


def test_no_file_imports_one_that_imports_it_back():
    assert cycles(dependencies()) == []


def test_the_cycle_check_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_hardware_knows_frames_not_the_stack():
    for mod, ds in dependencies().items():
        if mod.startswith("hw"):
            bad = {d for d in ds if not d.startswith(("hw", "config", "units"))}
            assert not bad, f"{mod} imports {bad}"


def test_tcp_is_sans_io():
    for mod, ds in dependencies().items():
        if mod.startswith("stack::tcp"):
            bad = {d for d in ds if not d.startswith(("stack::tcp", "config", "units"))}
            assert not bad, f"{mod} imports {bad}"


def test_wiring_does_not_reach_into_workloads_or_reports():
    assert not {d for d in dependencies()["system"] if d.startswith(("workload", "report"))}
