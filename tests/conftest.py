"""Shared test helpers."""
import subprocess
import sys

import pytest
from _golden_helpers import Forced, golden


@pytest.fixture
def golden_tables(monkeypatch):
    """The golden tables made afresh with `section.key = value` forced in every run (a switch
    that must change nothing the tables show), as {file name: text}."""
    def make(section: str, key: str, value) -> dict[str, str]:
        with monkeypatch.context() as m:
            m.setattr(golden.api, "_core", Forced(golden.api._core, section, key, value))
            return {name: run() for name, run in golden.runs().items()}
    return make


@pytest.fixture
def sweep_report(tmp_path):
    """Runs `nicsim sweep CONFIG ARGS... --out STORE` then `nicsim report STORE`, asserting both
    succeed; returns the report's directory."""
    def run(config: str, *args: str):
        store, rep = tmp_path / "sweep.sqlite", tmp_path / "rep"
        for cmd in (["sweep", config, *args, "--workers", "1", "--out", str(store), "--no-progress"],
                    ["report", str(store), "--out", str(rep)]):
            r = subprocess.run([sys.executable, "-m", "nicsim", *cmd], capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, r.stderr
        return rep
    return run
