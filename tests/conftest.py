"""Shared test helpers."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("golden", Path(__file__).resolve().parent.parent / "scripts" / "golden.py")
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)


class _Forced:
    """The core with one configuration key (`section.key`) forced to `value` in every document
    it runs."""

    def __init__(self, core, section: str, key: str, value):
        self._core, self._at, self._value = core, (section, key), value

    def __getattr__(self, name):
        return getattr(self._core, name)

    def run(self, doc: str) -> str:
        d = json.loads(doc)
        d[self._at[0]][self._at[1]] = self._value
        return self._core.run(json.dumps(d))


@pytest.fixture
def golden_tables(monkeypatch):
    """The golden tables made afresh with `section.key = value` forced in every run (a switch
    that must change nothing the tables show), as {file name: text}."""
    def make(section: str, key: str, value) -> dict[str, str]:
        with monkeypatch.context() as m:
            m.setattr(golden.api, "_core", _Forced(golden.api._core, section, key, value))
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
