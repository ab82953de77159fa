"""The headline runs reproduce the frozen text tables in tests/golden/ byte for byte."""
from _golden_helpers import golden


def test_every_run_has_a_frozen_table():
    frozen = {p.name for p in golden.GOLDEN.glob("*.txt")}
    assert frozen == set(golden.runs())


def test_golden_outputs_are_identical():
    diffs = golden.check()
    assert not diffs, "\n\n".join(diffs)


def test_a_changed_result_is_caught(monkeypatch):
    real = golden.api.run

    def nudged(cfg, sets=None):
        out = real(cfg, sets)
        out["simulator"]["events"] += 1
        return out

    monkeypatch.setattr(golden.api, "run", nudged)
    assert golden.check(), "a different event count must show as a difference"
