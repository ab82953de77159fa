"""The model's own physics, asked of the core: MSS and header bytes, wire sizes and times, the
link's payload rate, the mean memory access, processor speeds, and the fixed latencies of one
frame's path. Python never re-derives these (docs/design.md, "Physics in one place"); the
schemas are in docs/output.md."""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from .. import _core
from ..errors import ConfigError


def _doc(cfg: Any) -> str:
    """The core configuration document of a `Resolved`, a core dict, or JSON text."""
    if isinstance(cfg, str):
        return cfg
    if hasattr(cfg, "to_json"):
        return cfg.to_json()
    return json.dumps(cfg, sort_keys=True)


def _call(f, *args) -> dict[str, Any]:
    try:
        return json.loads(f(*args))
    except ValueError as e:
        raise ConfigError(str(e)) from None


@lru_cache(maxsize=64)
def _defaults(mtu_bytes: int, timestamps: bool, rate_bps: int) -> str:
    return _core.derived_defaults(mtu_bytes, timestamps, rate_bps)


def defaults(mtu_bytes: int, timestamps: bool, rate_bps: int) -> dict[str, Any]:
    """What the "0 = auto" parameters resolve to: `mss_bytes`, `initial_window_segments`
    (RFC 3390), `max_frame_wire_bytes` and `max_frame_wire_ps` (one full frame's wire time)."""
    return _call(_defaults, int(mtu_bytes), bool(timestamps), int(rate_bps))


def derived(cfg: Any) -> dict[str, Any]:
    """The core's derived quantities of a resolved configuration (`Resolved`, core dict or JSON)."""
    return _call(_core.derived, _doc(cfg))


def hardware_latencies(cfg: Any, payload_bytes: int) -> dict[str, Any]:
    """The fixed, uncontended latencies (ps) of one frame of `payload_bytes` from node0 to node1."""
    return _call(_core.hardware_latencies, _doc(cfg), int(payload_bytes))


def parsed_config(cfg: Any) -> dict[str, Any]:
    """The configuration as the core parsed it, serialised back by the core."""
    return _call(_core.parsed_config, _doc(cfg))
