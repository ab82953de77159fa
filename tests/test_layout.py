"""The core's layout keeps its promises (docs/design.md): no Rust file needs a scroll bar, no
file imports one that imports it back, hardware knows frames and not the stack, the TCP
endpoint is sans-IO, and the wiring does not reach into workloads."""
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "crates" / "nicsim" / "src"
DESIGN = Path(__file__).resolve().parents[1] / "docs" / "design.md"
MAX_LINES = 520
MAX_FN_LINES = 120
# The core's layers, bottom up (docs/design.md, "Layers"): a module may import from its own
# layer and those below. The sans-IO TCP endpoint is a layer of its own under the kernel code.
LAYERS = [
    {"units"}, {"config"}, {"engine"}, {"hw", "stack::tcp"}, {"placement"}, {"derived", "validate"},
    {"node"}, {"os"}, {"stack"}, {"handoff"}, {"system"}, {"stats"}, {"report"}, {"workload"}, {"api", "lib"},
]


def module_of(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(parts)


def is_test_file(p: Path) -> bool:
    return p.stem == "tests" or p.stem.endswith("_tests") or p.stem.startswith("tests_")


def dependencies(src_dir: Path = SRC) -> dict[str, set[str]]:
    """Module → the crate modules its non-test code imports (longest existing prefix)."""
    # Unit tests kept in files of their own (`tests.rs`, `*_tests.rs`, `tests_*.rs`) compile
    # only under cfg(test), as an inline test module does, so they may build a whole world.
    files = {module_of(p): p for p in src_dir.rglob("*.rs") if not is_test_file(p)}
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


def layer_of(mod: str) -> str:
    """A module's unit in the layering: its top-level module, or `stack::tcp`."""
    return "stack::tcp" if mod.startswith("stack::tcp") else (mod.split("::")[0] or "lib")


def upward_arrows(deps: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(from, to) for every import from a lower layer into a higher one."""
    rank = {u: i for i, layer in enumerate(LAYERS) for u in layer}
    out = set()
    for mod, ds in deps.items():
        a = layer_of(mod) if mod else "lib"
        for d in ds:
            b = layer_of(d)
            if a != b and rank[b] > rank[a]:
                out.add((a, b))
    return out


def documented_arrows() -> set[tuple[str, str]]:
    """The arrows docs/design.md's "Layers" section names and justifies: rows `a` → `b`."""
    text = DESIGN.read_text().split("## Layers", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z_:]+)` → `([a-z_:]+)` \|", text, re.M))


def long_functions(src_dir: Path = SRC) -> dict[str, int]:
    """`file:function` → lines, for every function of the core longer than MAX_FN_LINES."""
    out = {}
    for p in src_dir.rglob("*.rs"):
        lines = p.read_text().splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?fn\s+(\w+)", line)
            if not m or line.rstrip().endswith(";"):
                continue
            indent = m.group(1)
            end = next((j for j in range(i + 1, len(lines)) if lines[j] == indent + "}"), i)
            if end - i + 1 > MAX_FN_LINES:
                out[f"{p.relative_to(src_dir)}:{m.group(5)}"] = end - i + 1
    return out


def test_every_module_has_a_layer():
    rank = {u for layer in LAYERS for u in layer}
    assert {layer_of(m) if m else "lib" for m in dependencies()} <= rank


def test_no_import_runs_up_the_layers_unless_design_md_justifies_it():
    documented = documented_arrows()
    assert len(documented) <= 5, f"at most five justified arrows: {sorted(documented)}"
    actual = upward_arrows(dependencies())
    assert actual <= documented, f"justify in docs/design.md (Layers) or remove: {sorted(actual - documented)}"
    assert documented <= actual, f"design.md justifies arrows the code no longer has: {sorted(documented - actual)}"


def test_the_layer_check_sees_an_arrow_up():
    assert upward_arrows({"hw::nic": {"stack::socket"}, "stack::socket": {"hw::nic"}}) == {("hw", "stack")}
    assert upward_arrows({"derived": {"stack::tcp"}}) == set(), "the TCP endpoint sits below derived"


def test_no_function_in_the_core_is_over_120_lines():
    assert not long_functions(), f"split these into named steps: {long_functions()}"


def test_the_function_check_sees_a_long_function(tmp_path):
    body = "\n".join(f"    let x{i} = {i};" for i in range(MAX_FN_LINES))
    (tmp_path / "long.rs").write_text(f"pub fn long() {{\n{body}\n}}\n\nfn short() {{\n}}\n")
    assert long_functions(tmp_path) == {"long.rs:long": MAX_FN_LINES + 2}


def code_lines(path: Path) -> list[str]:
    """A Rust file's lines before its tests, without comments."""
    text = path.read_text().split("#[cfg(test)]")[0]
    return [ln.split("//")[0] for ln in text.splitlines() if ln.split("//")[0].strip()]


def test_the_configuration_is_checked_in_one_place():
    """Every check lives in validate.rs; outside it only the build (system.rs, World::new) and
    the API boundary (api.rs) call it."""
    callers = {str(p.relative_to(SRC)) for p in SRC.rglob("*.rs")
               if p.name != "validate.rs" and any("validate::" in ln for ln in code_lines(p))}
    assert callers <= {"system.rs", "api.rs"}, callers


def test_lib_rs_is_a_pure_face():
    """lib.rs declares modules and re-exports; the code it fronts lives in its modules."""
    lines = [ln.strip() for ln in code_lines(SRC / "lib.rs")]
    other = [ln for ln in lines if not ln.startswith(("pub mod ", "pub use ", "mod ", "use ", "#!["))]
    assert not other, other
