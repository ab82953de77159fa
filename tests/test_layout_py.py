"""The Python package keeps the plan docs/design.md draws ("The Python package: rooms"): a
few modules at the top, the rest in rooms; no room imports one above it; no file needs a
scroll bar; and every module path from before the rooms still imports."""
import ast
import importlib
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "python" / "nicsim"
DESIGN = Path(__file__).resolve().parents[1] / "docs" / "design.md"
SECTION = "## The Python package: rooms"
MAX_LINES = 400
MAX_TOP_MODULES = 10
# The package's units bottom up: a top-level module or a room (a folder). A unit may import
# from its own row and those below, never from a row above.
ROOMS = [
    {"_core", "errors", "units"},
    {"paths"},
    {"config"},
    {"analytic"},
    {"stopping", "progress"},
    {"io"},
    {"api"},
    {"benchmarks"},
    {"host"},
    {"check"},
    {"sweep"},
    {"commands"},
    {"__init__", "__main__"},
]


def unit_of(module: str) -> str:
    """`nicsim.check.suite` → `check`; `nicsim` itself is the package face, `__init__`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_of(path: Path) -> str:
    parts = ["nicsim", *path.relative_to(PKG).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, text: str | None = None) -> set[str]:
    """Every nicsim module `path` (or `text` read as that file) imports, at the top or inside
    a function."""
    me = module_of(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "nicsim")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "nicsim":
                continue
            # `from .. import units` names a module; `from .. import __version__` the package.
            subs = [f"{target}.{a.name}" for a in node.names if _is_module(f"{target}.{a.name}")]
            out.update(subs or [target])
    return out


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (PKG / rel).with_suffix(".py").exists() or (PKG / rel / "__init__.py").exists() or name == "nicsim._core"


def upward(path: Path, text: str | None = None) -> list[str]:
    """The imports of one file that run up the rows of ROOMS."""
    rank = {u: i for i, row in enumerate(ROOMS) for u in row}
    a = path.stem if path.parent == PKG else path.relative_to(PKG).parts[0]
    return [f"{path.relative_to(PKG)} ({a}) imports {t} ({unit_of(t)})"
            for t in sorted(imports(path, text)) if rank[unit_of(t)] > rank[a]]


def test_every_module_sits_in_a_room_of_the_plan():
    units = {p.stem if p.parent == PKG else p.relative_to(PKG).parts[0] for p in PKG.rglob("*.py")}
    planned = set().union(*ROOMS)
    assert units <= planned, f"give these a row in ROOMS and docs/design.md: {sorted(units - planned)}"


def test_no_room_imports_a_room_above_it():
    assert [line for p in sorted(PKG.rglob("*.py")) for line in upward(p)] == []


def test_the_room_check_sees_an_import_upward():
    # A figure that ran a benchmark would tie io to a room above it; units sits below.
    text = "from ..benchmarks import netperf\nfrom .. import units\n\ndef f():\n    from ..api import run\n"
    assert upward(PKG / "io" / "x.py", text) == ["io/x.py (io) imports nicsim.api (api)",
                                                  "io/x.py (io) imports nicsim.benchmarks.netperf (benchmarks)"]


def test_no_python_file_needs_a_scroll_bar():
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"split these by concern: {long}"


def test_at_most_ten_modules_at_the_top():
    top = sorted(p.name for p in PKG.iterdir() if p.is_file() and p.suffix in (".py", ".so"))
    assert len(top) <= MAX_TOP_MODULES, top


def test_design_md_draws_the_rooms_in_this_order():
    text = DESIGN.read_text().split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = [re.findall(r"`([\w]+)(?:/|\.py)?`", line.split("|")[1]) for line in text.splitlines()
            if line.startswith("| `")]
    assert [set(r) for r in rows] == ROOMS


def moved() -> dict[str, str]:
    import nicsim

    return nicsim._MOVED


@pytest.mark.parametrize("old", sorted(moved()))
def test_an_old_module_path_imports_the_module_at_its_new_one(old):
    module = importlib.import_module(f"nicsim.{old}")
    assert module is importlib.import_module(f"nicsim.{moved()[old]}")
    assert module.__spec__.name == f"nicsim.{moved()[old]}"
