"""Calibration against a user's reference file (`nicsim calibrate --reference FILE --fit KEYS
--train IDS --out CONFIG.toml`): the named numeric keys, and nothing else, are fitted to the
training rows only; every row, training and held-out apart, is then reported with its
residual, and the fitted values are written as a configuration that extends the rows' preset
(`nicsim validate --reference FILE --config CONFIG.toml` applies it to every row).

Objective: calibrate.py's, the sum over training rows of the squared normalised miss (1 at the
edge of a row's tolerance). Optimiser: fitting.py's, over the logs of the keys' values (every
fitted key must be positive), from the values the rows' configuration gives them, an
initial step of 0.2 and at most `max_evals` evaluations."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .calibrate import objective, residuals
from ..config import BY_KEY, flatten, load_file, resolve
from ..errors import ConfigError
from . import fitting
from .fitting import describe, fit_logs
from .validation import Measurer, Row, check_row

# The fit's initial step, in log units: each value's first trial is 22% above its start.
STEP = 0.2


def config_sets(path: str | None) -> dict[str, Any]:
    """The overrides of a configuration file (`--config`), without its preset and description:
    they apply on top of every row's own preset."""
    if not path:
        return {}
    try:
        doc, _ = load_file(Path(path))
    except ConfigError as e:
        raise ConfigError(f"--config: {e}") from None
    doc.pop("description", None)
    return flatten(doc)


def split_rows(rows: list[Row], train: list[str] | None) -> tuple[list[Row], list[Row]]:
    """Training rows (named by `--train`, or marked `training` in the file) and the rest."""
    ids = [r.id for r in rows]
    if train:
        unknown = [t for t in train if t not in ids]
        if unknown:
            raise ConfigError(f"--train: no row {', '.join(map(repr, unknown))} in the reference file; it has {', '.join(ids)}")
        chosen = set(train)
    else:
        chosen = {r.id for r in rows if r.role == "training"}
    if not chosen:
        raise ConfigError("--train: name the training rows (--train ID,ID) or mark them role = training in the file")
    return [r for r in rows if r.id in chosen], [r for r in rows if r.id not in chosen]


def _check_keys(keys: list[str], start: dict[str, float]) -> None:
    for k in keys:
        if k not in BY_KEY and not k.startswith("costs."):
            raise ConfigError(f"--fit {k}: not a parameter (nicsim params lists them)")
        v = start.get(k)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0:
            raise ConfigError(f"--fit {k}: only keys with a positive numeric value can be fitted (it is {v!r})")


def start_values(rows: list[Row], keys: list[str], sets: dict[str, Any]) -> dict[str, float]:
    """The keys' values in the first training row's configuration, before the fit."""
    r = resolve(rows[0].preset, sets)
    costs = {"scale": r.costs["scale"], **r.costs["stages"]}
    flat = {**r.values, **flatten({"costs": costs})}
    start = {k: flat.get(k) for k in keys}
    _check_keys(keys, start)
    return {k: float(v) for k, v in start.items()}


def fit(rows: list[Row], keys: list[str], train: list[str] | None, sets: dict[str, Any] | None = None,
        max_evals: int = 80) -> dict[str, Any]:
    training, held_out = split_rows(rows, train)
    base = dict(sets or {})
    start = start_values(training, keys, base)
    def measure(values: dict[str, float], which: list[Row]) -> list[dict]:
        m = Measurer({**base, **{k: repr(float(v)) for k, v in values.items()}})
        return [check_row(r, m) for r in which]

    fitted, evals = fit_logs(lambda v: objective(measure(v, training)), {k: start[k] for k in keys}, step=STEP,
                             xatol=0.002, fatol=1e-4, max_evals=max_evals)
    values = {k: float(f"{v:.6g}") for k, v in fitted.items()}
    trained, held = measure(values, training), measure(values, held_out)
    return {"keys": keys, "start": start, "values": values, "base": base, "objective": round(objective(trained), 6), "evaluations": evals,
            "optimiser": describe(STEP), "preset": training[0].preset,
            "training": trained, "held_out": held, "residuals": residuals(trained)}


# A fitted value this far from where it started is not the host running faster or slower but
# the model's structure differing from it: reported, never clamped (the optimiser is unbounded).
PHYSICAL_RATIO = (0.25, 4.0)


def structural_misses(result: dict[str, Any]) -> list[str]:
    """The fitted keys that ended outside 0.25-4 times their start, as sentences."""
    lo, hi = PHYSICAL_RATIO
    return [f"structural miss: {k} = {v:g} is outside {lo:g}-{hi:g} times its start {result['start'][k]:g}"
            for k, v in result["values"].items() if not lo <= v / result["start"][k] <= hi]


def write_config(result: dict[str, Any], out: str, reference: str) -> None:
    """The fitted values as a configuration extending the rows' preset, with the fit's record."""
    notes = [f"Fitted by nicsim calibrate --reference {reference} --fit {','.join(result['keys'])}",
             f"to the training rows {', '.join(r['id'] for r in result['training'])}; objective {result['objective']:g}",
             f"({result['optimiser']}, {result['evaluations']} evaluations).",
             *structural_misses(result)]
    fitting.write_config(out, result["preset"], {**result.get("base", {}), **result["values"]}, notes)


def report(result: dict[str, Any]) -> str:
    def rows(title: str, rs: list[dict]) -> list[str]:
        out = [f"{title}:"]
        for r in rs:
            err = f"{100 * r['error']:+.1f}%" if r.get("error") is not None else "-"
            model = r["model"] if not isinstance(r["model"], float) else f"{r['model']:.4g}"
            out.append(f"  {r['id']:<20} reference {r['reference']!s:>10}  model {model!s:>10}  error {err:>7}  {'pass' if r['passed'] else 'FAIL'}")
        return out

    start = result["start"]
    fitted = ", ".join(f"{k} = {v:g} (from {start[k]:g})" for k, v in result["values"].items())
    head = [f"fitted {fitted}",
            f"objective {result['objective']:g} over the training rows; {result['evaluations']} evaluations"]
    return "\n".join(head + rows("training", result["training"]) + rows("held out", result["held_out"] or []))


def main_reference(args) -> int:
    """`nicsim calibrate --reference FILE --fit KEYS [--train IDS] [--out CONFIG]`."""
    import json

    from .validation import load_reference

    if not (args.reference and args.fit):
        raise ConfigError("calibrate: --reference FILE and --fit KEY[,KEY...] go together (with --train and --out)")
    rows = load_reference(args.reference)
    keys = [k.strip() for k in args.fit.split(",") if k.strip()]
    train = [t.strip() for t in args.train.split(",") if t.strip()] if args.train else None
    result = fit(rows, keys, train, config_sets(args.config))
    if args.out:
        write_config(result, args.out, args.reference)
    misses = structural_misses(result)
    print(json.dumps({**result, "structural_misses": misses}, indent=1, default=str) if args.json
          else "\n".join([report(result), *misses]))
    return 0 if all(r["passed"] for r in result["training"]) and not misses else 1
