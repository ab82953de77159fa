"""The parameter declarations (params.py) and the core's config (config.rs) cannot drift: every
preset resolves and the core accepts it; the core rejects a document missing any declared key
or carrying an extra one; the Rust test fixture is what Python resolves."""
import json
from pathlib import Path

import pytest

from nicsim import _core
from nicsim.config import PLACEMENT_SWITCHES, preset_names, resolve
from nicsim.params import PARAMS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_is_accepted_by_the_core(preset):
    _core.validate(resolve(preset).to_json())


def _paths(d, prefix=""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from _paths(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}"


def test_core_requires_every_declared_key():
    doc = resolve(None).core
    for path in _paths({k: v for k, v in doc.items() if k not in ("placements",)}):
        broken = json.loads(json.dumps(doc))
        d = broken
        *parents, leaf = path.split(".")
        for p in parents:
            d = d[p]
        del d[leaf]
        with pytest.raises(ValueError, match=leaf):
            _core.validate(json.dumps(broken))


def test_core_rejects_undeclared_keys():
    doc = resolve(None).core
    doc["nic"]["undeclared_knob"] = 1
    with pytest.raises(ValueError, match="undeclared_knob"):
        _core.validate(json.dumps(doc))


def test_every_declared_parameter_reaches_the_core():
    core_keys = set(_paths(resolve(None).core))
    for p in PARAMS:
        if p.key.startswith(("placement.", "costs.")) or p.kind == "path" or p.key in PLACEMENT_SWITCHES:
            continue  # resolved into other core fields (placements, costs, trace arrays)
        assert p.key in core_keys, p.key


def test_rust_fixture_is_in_sync():
    fixture = json.loads((ROOT / "crates/nicsim/tests/fixtures/base-short.json").read_text())
    r = resolve("ortiz2008-base", {"workload.netpipe.target_ps": "5 ms", "workload.netpipe.sizes_bytes": "1 B,64 KiB"})
    assert fixture == json.loads(r.to_json()), "regenerate the fixture (see tests/it/main.rs)"
