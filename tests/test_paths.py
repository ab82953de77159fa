"""Every output path is checked before any simulation starts: one line naming the argument and
the problem, exit 2, nothing printed as a result (issue 31 item 2)."""
import sqlite3
import subprocess
import sys

import pytest


@pytest.mark.parametrize("argv, says", [
    (["netpipe", "--plot", "/nonexistent-dir/x.png"], "the folder '/nonexistent-dir' does not exist"),
    (["netpipe", "--plot", "DIR"], "is a directory"),
    (["netpipe", "--plot", "DIR/x.txt"], "must end in one of .png"),
    (["gamma-sweep", "ortiz2008-offload", "--plot", "DIR/x.csv"], "must end in one of .png"),
    (["sweep", "ortiz2008-base", "--grid", "cpu.count=1", "--out", "DIR"], "is a directory"),
    (["sweep", "ortiz2008-base", "--grid", "cpu.count=1", "--out", "DIR/notastore.txt"], "not a sweep store"),
    (["report", "DIR/s.sqlite", "--out", "DIR/notastore.txt"], "is a file; give a directory"),
])
def test_output_paths_are_checked_before_anything_runs(tmp_path, argv, says):
    (tmp_path / "notastore.txt").write_text("hello\n")
    sqlite3.connect(tmp_path / "s.sqlite").execute("CREATE TABLE t (x)").connection.commit()
    argv = [a.replace("DIR", str(tmp_path)) for a in argv]
    p = subprocess.run([sys.executable, "-m", "nicsim", *argv], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert says in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert p.stdout == "", "nothing ran: no results printed"


def test_a_grid_above_ten_thousand_points_says_its_size_and_needs_yes(tmp_path):
    store = tmp_path / "big.sqlite"
    argv = ["sweep", "ortiz2008-base", "--grid", "cpu.clock_hz=100MHz:1GHz:100kHz", "--grid", "nic.mtu_bytes=1500B,9000B",
            "--out", str(store)]
    p = subprocess.run([sys.executable, "-m", "nicsim", *argv], capture_output=True, text=True)
    assert p.returncode == 2 and "18,002 points" in p.stderr and "--yes" in p.stderr
    assert not store.exists()


# Every output flag of every command (issue 49 item 3): a folder that cannot take a file
# (/proc refuses new files even to root, where os.access says yes), a missing folder and a
# file used as a folder each get one line naming the flag, exit 2, at once, nothing run.
OUTPUTS = [
    ["netpipe", "--plot", "X.png"],
    ["netpipe", "--pcap-out", "X.pcap"],
    ["netpipe", "--trace-out", "X.json"],
    ["netpipe", "--series", "1ms", "--series-plot", "X.png"],
    ["netperf", "--pcap-out", "X.pcap"],
    ["netperf", "--trace-out", "X.json"],
    ["netperf", "--series", "1ms", "--series-plot", "X.png"],
    ["web", "--users", "10,20", "--plot", "X.png"],
    ["web", "--pcap-out", "X.pcap"],
    ["hpcbench", "--trace-out", "X.json"],
    ["run", "--pcap-out", "X.pcap"],
    ["handoff", "W-1024-P-L-FCFS-400", "--trace-out", "X.json"],
    ["bulkecho", "roca1996-ethernet", "--pcap-out", "X.pcap"],
    ["gamma-sweep", "ortiz2008-offload", "--plot", "X.png"],
    ["study", "laws", "ortiz2008-offload", "--plot", "X.png"],
    ["laws", "--alpha", "1", "--beta", "0.4", "--gamma", "1", "--sigma", "0.2", "--plot", "X.png"],
    ["demo", "--out", "X"],
    ["sweep", "ortiz2008-base", "--grid", "cpu.count=1", "--out", "X.sqlite"],
    ["report", "STORE", "--out", "X"],
    ["validate", "--suite", "ortiz2008", "--report", "X"],
    ["calibrate", "--reference", "REF", "--fit", "costs.scale.copy", "--out", "X.toml"],
    ["probe", "--out", "X.csv"],
    ["probe", "--out", "ok.csv", "--host-out", "X.toml"],
]


@pytest.fixture
def store_and_reference(tmp_path):
    store = tmp_path / "s.sqlite"
    sqlite3.connect(store).execute("CREATE TABLE t (x)").connection.commit()
    ref = tmp_path / "ref.csv"
    ref.write_text("preset,command,metric,value,tolerance\northo2008-base,netpipe,peak_mbps,234,10%\n")
    return store, ref


@pytest.mark.parametrize("where, says", [
    ("/proc/", "a file cannot be created in the folder '/proc'"),
    ("MISSING/", "does not exist"),
    ("AFILE/", "is a file"),
])
@pytest.mark.parametrize("argv", OUTPUTS, ids=lambda a: " ".join(a[:2]) + " " + next(x for x in a if x.startswith("--") and "X" in a[a.index(x) + 1]))
def test_every_output_flag_is_checked_at_once(tmp_path, store_and_reference, argv, where, says):
    import time

    store, ref = store_and_reference
    (tmp_path / "afile").write_text("x")
    prefix = where.replace("MISSING", str(tmp_path / "missing")).replace("AFILE", str(tmp_path / "afile"))
    if "demo" in argv or "report" in argv or "validate" in argv:
        # A directory is created with its parents: only an unwritable ancestor or a file refuses it.
        if where == "MISSING/":
            return
        says = {"AFILE/": "is a file", "/proc/": says}[where]
    flag = next(x for i, x in enumerate(argv) if x.startswith("--") and "X" in argv[i + 1])
    argv = [prefix + "x" + a[1:] if a.startswith("X") else a for a in argv]
    argv = [str(store) if a == "STORE" else str(ref) if a == "REF" else a for a in argv]
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "nicsim", *argv], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and says in lines[0], p.stderr
    assert p.stdout == "" and time.monotonic() - t < 10, "refused before anything ran"


def _parsers():
    import argparse

    from nicsim.analytic.cli import _eval_parser, _fit_parser
    from nicsim.cli import build_parser
    from nicsim.study import parser as study_parser
    from nicsim.sweep.cli import report_parser, sweep_parser

    top = build_parser()
    subs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    yield from subs.choices.items()
    yield from (("laws", _eval_parser()), ("laws fit", _fit_parser()), ("study laws", study_parser()),
                ("sweep", sweep_parser()), ("report", report_parser()))


def test_every_parser_declares_its_outputs_with_the_checked_types():
    """The check lives in one place (paths.py's argparse types); an output flag added without
    it would be checked by nothing."""
    from nicsim.paths import is_checked

    outputs = ("--out", "--plot", "--pcap-out", "--trace-out", "--series-plot", "--report", "--host-out")
    seen = 0
    for name, p in _parsers():
        for a in p._actions:
            if any(o in a.option_strings for o in outputs):
                assert is_checked(a), f"{name} {a.option_strings[0]} is not declared with a paths.py type"
                seen += 1
    assert seen >= 20


@pytest.mark.parametrize("content, says", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff", "is not a text file (byte 0x89 at offset 0"),
    ("caf\u00e9 = 1\n".encode("latin-1"), "is not a text file (byte 0xe9 at offset 3"),
    (b"a = [", "is not valid TOML"),
    (("x = " + "[" * 5000 + "]" * 5000 + "\n").encode(), "nests tables or arrays more than 16 deep"),
    (("x." * 300 + "y = 1\n").encode(), "nests tables or arrays more than 16 deep"),
])
@pytest.mark.parametrize("argv", [["netpipe", "CFG"], ["sweep", "CFG", "--grid", "cpu.count=1", "--out", "s.sqlite"],
                                  ["validate", "--reference", "CFG"], ["validate", "--config", "CFG"]])
def test_a_toml_file_that_is_not_text_or_not_toml_is_one_line_naming_it(tmp_path, content, says, argv):
    f = tmp_path / "cfg.toml"
    f.write_bytes(content)
    argv = [str(f) if a == "CFG" else a for a in argv]
    p = subprocess.run([sys.executable, "-m", "nicsim", *argv], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr[-2000:]
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and str(f) in lines[0] and says in lines[0], p.stderr
    assert not (tmp_path / "s.sqlite").exists()
