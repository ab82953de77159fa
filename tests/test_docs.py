"""The docs stay true to the code (issue 33): docs/design.md's module table names every Rust
source file by its path, and names none that is gone; docs/configuration.md documents every
parameter `nicsim params` lists, in the table `nicsim params --markdown` prints."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "crates" / "nicsim" / "src"
DESIGN = ROOT / "docs" / "design.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
TABLE_HEADING = "## The layout: a room for every concern"


def nicsim(*args):
    r = subprocess.run([sys.executable, "-m", "nicsim", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def section(text: str, heading: str) -> str:
    """The lines under `heading` up to the next heading of the same level."""
    assert heading in text, f"{heading!r} not found"
    body = text.split(heading, 1)[1]
    return re.split(r"^## ", body, maxsplit=1, flags=re.M)[0]


def module_table_paths(text: str) -> set[str]:
    """Every `path.rs` in backticks in the first column of the module table's rows."""
    paths = set()
    for line in section(text, TABLE_HEADING).splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            paths.update(re.findall(r"`([A-Za-z0-9_/]+\.rs)`", cells[1]))
    return paths


def source_files() -> set[str]:
    return {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.rs")}


def test_the_module_table_parser_finds_the_table_and_only_its_first_column():
    paths = module_table_paths(DESIGN.read_text())
    assert len(paths) >= 20
    assert {"units.rs", "engine/mod.rs", "system.rs", "stack/tcp/lifecycle.rs"} <= paths
    assert "not/a/file.rs" not in paths
    fake = f"{TABLE_HEADING}\n\n| file | what |\n|---|---|\n| `a.rs`, `b/c.rs` | see `d.rs` |\n\n## Next\n| `e.rs` | x |\n"
    assert module_table_paths(fake) == {"a.rs", "b/c.rs"}


def test_every_source_file_is_in_the_module_table():
    named = module_table_paths(DESIGN.read_text())
    missing = sorted(source_files() - named)
    assert not missing, f"docs/design.md's module table does not name: {', '.join(missing)}"


def test_the_module_table_names_only_files_that_exist():
    gone = sorted(module_table_paths(DESIGN.read_text()) - source_files())
    assert not gone, f"docs/design.md's module table names files that do not exist: {', '.join(gone)}"


def listed_keys() -> list[str]:
    """The keys `nicsim params` lists, one a line, the key first."""
    return [line.split()[0] for line in nicsim("params").splitlines() if line.strip()]


def test_every_listed_parameter_is_documented_in_configuration_md():
    from nicsim.params import PARAMS

    keys = listed_keys()
    assert keys == [p.key for p in PARAMS]
    reference = section(CONFIGURATION.read_text(), "## Parameter reference")
    documented = set(re.findall(r"^\| `([^`]+)` \|", reference, re.M))
    assert len(documented) >= 100
    missing = [k for k in keys if k not in documented]
    assert not missing, f"docs/configuration.md does not document: {', '.join(missing)} (regenerate with `nicsim params --markdown`)"
    assert "no.such_key" not in documented


def test_the_parameter_reference_is_what_nicsim_params_markdown_prints():
    reference = section(CONFIGURATION.read_text(), "## Parameter reference")
    table = [line for line in reference.splitlines() if line.startswith("|")]
    assert table == nicsim("params", "--markdown").splitlines(), \
        "docs/configuration.md's parameter reference is stale: paste `nicsim params --markdown` into it"


def test_the_notebook_extra_brings_jupyterlab_and_readme_says_so():
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(d.startswith("jupyterlab") for d in extras["notebook"])
    assert not any(d.startswith("jupyterlab") for d in extras["test"]), "the tests run notebooks without JupyterLab"
    readme = (root / "README.md").read_text()
    assert "pip install '.[notebook]'" in readme and "jupyter lab examples/" in readme
