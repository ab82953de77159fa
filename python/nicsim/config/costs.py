"""A cost profile with its overrides: each stage's fields and category, and the four category
scales, checked."""
from __future__ import annotations

import math
from typing import Any

from ..errors import ConfigError
from .files import load_profile

COST_FIELDS = ("category", "i_pkt", "i_byte", "r_pkt", "r_byte", "pio_reads", "pio_writes", "code_bytes", "locks", "ipc")
# Fields a profile may leave out, with the value an absent one means.
COST_DEFAULTS = {"locks": 0, "ipc": 1.0}
# The cost categories, declared once, in the order every table prints them: what a stage's
# work counts as (a profile stage's `category`).
CATEGORIES = ("copy", "tcpip", "driver", "os", "app", "conn")
# The four of protocol processing: the scales the calibration fits, what LAWS counts as
# communication (laws.md §4.4), what a real host's perf samples are sorted into.
COMMUNICATION = CATEGORIES[:4]
# The thesis's ranking of the four by their share of the base system's time (Table 4.4: copy
# 20.3%, TCP/IP 7.2%, OS 5.89%, driver 2.82%): the order row T5 checks.
RANKED = ("copy", "tcpip", "os", "driver")


def _costs(profile: str, over: dict[str, Any]) -> dict:
    doc = load_profile(profile)
    scale = dict(doc["scale"])
    stages = {k: {f: v[f] if f in v else COST_DEFAULTS[f] for f in COST_FIELDS} for k, v in doc["stages"].items()}
    bad = [k for k, v in stages.items() if not v["ipc"] > 0]
    if bad:
        raise ConfigError(f"profile {profile!r}: ipc must be above 0 (stages {', '.join(bad)})")
    for key, raw in over.items():
        parts = key.split(".")
        if len(parts) == 3 and parts[1] == "scale" and parts[2] in scale:
            scale[parts[2]] = _number(key, raw, 0, SCALE_MAX)
        elif len(parts) == 3 and parts[1] in stages and parts[2] in COST_FIELDS:
            if parts[2] == "category":
                if raw not in CATEGORIES:
                    raise ConfigError(f"{key}: {raw!r} is not a category; choose {', '.join(CATEGORIES)}")
                stages[parts[1]]["category"] = raw
            elif parts[2].startswith("pio_") or parts[2] in ("code_bytes", "locks"):
                v = _number(key, raw, 0)
                if not v.is_integer():
                    raise ConfigError(f"{key}: {raw!r} must be a whole number")
                stages[parts[1]][parts[2]] = int(v)
            elif parts[2] == "ipc":
                v = _number(key, raw, 0)
                if v <= 0:
                    raise ConfigError(f"{key}: {raw!r} must be above 0 (instructions per cycle)")
                stages[parts[1]]["ipc"] = v
            else:
                stages[parts[1]][parts[2]] = _number(key, raw, 0)
        else:
            raise ConfigError(f"unknown cost key {key!r}; cost keys are costs.scale.{{{','.join(scale)}}} and costs.STAGE.{{{','.join(COST_FIELDS)}}} with STAGE one of {', '.join(stages)}")
    return {"scale": scale, "stages": stages}


# A cost field or scale beyond these is a typo, not a machine: 10^9 instructions is a second
# of a 1 GHz CPU per packet or byte, and a scale of 1000 a thousand times the profile.
COST_MAX = 1e9
SCALE_MAX = 1000.0


def _number(key: str, raw: Any, lo: float, hi: float = COST_MAX) -> float:
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{key}: {raw!r} is not a number") from None
    if not math.isfinite(v):
        raise ConfigError(f"{key}: {raw!r} is not a finite number")
    if not lo <= v <= hi:
        raise ConfigError(f"{key}: {raw!r} must be between {lo:g} and {hi:g}")
    return v
