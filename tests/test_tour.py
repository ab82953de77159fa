"""Every README tour line runs as written, in a folder of its own, and exits as README says:
0 unless its comment documents another status. Lines that need a file the user writes, or a
tool this machine may lack, run where they can and accept the statuses their comment names."""
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def tour_lines() -> list[tuple[str, str]]:
    text = README.read_text()
    block = text.split("## A tour", 1)[1].split("```", 2)[1]
    lines = []
    for raw in block.splitlines():
        if not raw.startswith("nicsim"):
            continue
        parts = re.split(r"\s+#\s", raw, maxsplit=1)
        command, comment = parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")
        for part in command.split(";"):
            lines.append((part.strip(), comment.strip()))
    return lines


def expected(command: str, comment: str) -> set[int]:
    """The statuses README documents for a line."""
    if "needs iperf3 or netperf" in comment:
        return {0, 2}  # exit 2 without the tool (docs say so beside the line)
    if "exits 2 listing them" in comment:
        return {2}
    if "my-figures.csv" in command:
        return {2}  # a placeholder for the user's own file: README says so beside it
    if re.search(r"\bexit 1\b", comment):
        return {1}
    return {0}


LINES = tour_lines()


def test_the_tour_is_found():
    assert len(LINES) > 30


@pytest.mark.parametrize("command,comment", LINES, ids=[c for c, _ in LINES])
def test_a_tour_line_exits_as_readme_says(command, comment, tmp_path_factory):
    if "--perf" in command and "probe --out" in command:
        pytest.skip("measures the host with iperf3/netperf and perf for minutes: docs/real-host.md runs it")
    folder = tmp_path_factory.getbasetemp() / "tour"  # one folder: later lines read earlier ones' files
    folder.mkdir(exist_ok=True)
    argv = [sys.executable, "-m", "nicsim", *shlex.split(command)[1:]]
    r = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=600)
    assert r.returncode in expected(command, comment), f"{command}: exit {r.returncode}\n{r.stderr[-600:]}"
    assert "Traceback" not in r.stderr
