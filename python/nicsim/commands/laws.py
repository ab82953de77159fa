"""`nicsim laws` and `nicsim laws fit` (the main CLI calls ``main_laws(argv)``).

Evaluation: every model argument takes a value, a list ``a,b,c`` or an
inclusive range ``start:stop:step`` (or a list mixing both); the table is the
Cartesian product.  Bad input prints one line to stderr and returns 2.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys

import numpy as np

from ..analytic import laws
from ..paths import out_plot
from ..analytic.fit import DEFAULT_BOUNDS, FitError, fit_modified, fit_modified_split
from .options import Parser, UsageError

MAX_ROWS = 1_000_000
PROG = "nicsim laws"
CONVENTIONS = {
    "alpha": "LAWS lag ratio Y/X = host speed / CP speed (alpha = 2: CP twice as slow); "
             "speed_fraction = 1/alpha",
    "gamma": "a/o, application work over communication overhead per unit of data",
    "sigma": "1/(oXB), fraction of the link the host fills before offload doing only communication",
    "throughput_units": "normalised: multiples of 1/(oX), the host's communication-only rate",
    "deviations": "multiplicative: a(1+delta_a), o(1+delta_o), host work W(1+tau)",
    "cp_term": "corrected 1/(p*alpha*beta*(1+delta_o)); the thesis prints an extra factor o",
}


def _parse_values(text: str, name: str, low=None, high=None, low_open=False) -> list[float]:
    """Values of one argument: number, list a,b,c, or inclusive range start:stop:step."""
    allowed = "a number, a list a,b,c or a range start:stop:step"
    out: list[float] = []
    for item in text.split(","):
        item = item.strip()
        fields = item.split(":")
        try:
            nums = [float(f) for f in fields]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{item!r} is not {allowed}") from None
        if not all(math.isfinite(v) for v in nums):
            raise argparse.ArgumentTypeError(f"{item!r} is not finite; give {allowed}")
        if len(nums) == 1:
            out.append(nums[0])
        elif len(nums) == 3:
            start, stop, step = nums
            if step <= 0 or stop < start:
                raise argparse.ArgumentTypeError(
                    f"range {item!r} needs step > 0 and stop >= start")
            # The epsilon keeps a stop that lands on the grid despite float error.
            count = int(math.floor((stop - start) / step + 1e-9)) + 1
            if count > MAX_ROWS:
                raise argparse.ArgumentTypeError(f"range {item!r} has more than {MAX_ROWS} values")
            out.extend(round(start + i * step, 12) for i in range(count))
        else:
            raise argparse.ArgumentTypeError(f"{item!r} is not {allowed}")
    for v in out:
        if (low is not None and (v <= low if low_open else v < low)) or \
                (high is not None and v > high):
            lo = "" if low is None else f"{low:g} {'<' if low_open else '<='} "
            hi = "" if high is None else f" <= {high:g}"
            raise argparse.ArgumentTypeError(f"{v:g} is not allowed; need {lo}{name}{hi}")
    return out


def _values(name, low=None, high=None, low_open=False):
    return lambda text: _parse_values(text, name, low, high, low_open)


def _scalar(name, low=None, high=None, low_open=False):
    def parse(text):
        vals = _parse_values(text, name, low, high, low_open)
        if len(vals) != 1:
            raise argparse.ArgumentTypeError(f"the fit takes one value of {name}, got {text!r}")
        return vals[0]
    return parse


def _pair(name, low=None):
    def parse(text):
        fields = text.split(":")
        try:
            lo, hi = (float(f) for f in fields)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not LOW:HIGH") from None
        if not (lo < hi) or (low is not None and lo <= low):
            extra = f" and LOW > {low:g}" if low is not None else ""
            raise argparse.ArgumentTypeError(f"{text!r} needs LOW < HIGH{extra}")
        return lo, hi
    return parse


def _add_model_args(ap, vtype):
    """Arguments shared by evaluation and fit; *vtype* makes list or scalar parsers."""
    ap.add_argument("--p", type=vtype("p", 0.0, 1.0), help="offloaded fraction of the overhead, 0..1 (required by fit)")
    ap.add_argument("--alpha", type=vtype("alpha", 0.0, low_open=True),
                    help="lag ratio Y/X = host speed / CP speed (> 0)")
    ap.add_argument("--speed-fraction", type=vtype("speed-fraction", 0.0, low_open=True),
                    help="CP speed as a fraction of the host's; alpha = 1/speed-fraction")
    ap.add_argument("--beta", type=vtype("beta", 0.0), help="structural ratio (>= 0; required by fit)")
    ap.add_argument("--sigma", type=vtype("sigma", 0.0, low_open=True),
                    help="wire ratio 1/(oXB) (> 0)")
    ap.add_argument("--o", type=vtype("o", 0.0, low_open=True),
                    help="host communication work per bit (e.g. cycles/bit); with --x, --link-bps")
    ap.add_argument("--x", type=_scalar("x", 0.0, low_open=True),
                    help="host seconds per unit of work (e.g. clock period, s)")
    ap.add_argument("--y", type=vtype("y", 0.0, low_open=True),
                    help="CP seconds per unit of work; with --x gives alpha = Y/X")
    ap.add_argument("--link-bps", type=vtype("link-bps", 0.0, low_open=True),
                    help="link bandwidth B in bit/s")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--plot", metavar="FILE", type=out_plot(), help="write a PNG plot of delta_b against gamma")


def _as_list(v):
    return v if isinstance(v, list) else [v]


def _resolve(ns) -> tuple[list, list]:
    """alpha and sigma values from the direct or the absolute arguments (one way each)."""
    alpha_ways = [w for w, given in (("--alpha", ns.alpha is not None),
                                     ("--speed-fraction", ns.speed_fraction is not None),
                                     ("--y", ns.y is not None)) if given]
    if len(alpha_ways) != 1:
        raise UsageError("give exactly one of --alpha, --speed-fraction or --y (with --x); got "
                          + (", ".join(alpha_ways) or "none"))
    sigma_abs = [ns.o is not None, ns.link_bps is not None]
    if ns.sigma is not None and any(sigma_abs):
        raise UsageError("give either --sigma or --o with --x and --link-bps, not both")
    if ns.sigma is None and not (all(sigma_abs) and ns.x is not None):
        raise UsageError("--sigma is required (or --o, --x and --link-bps, from which "
                          "sigma = 1/(o*x*link-bps) follows)")
    if ns.y is not None and ns.x is None:
        raise UsageError("--y needs --x (alpha = y/x)")
    if ns.alpha is not None:
        alphas = _as_list(ns.alpha)
    elif ns.speed_fraction is not None:
        alphas = [1.0 / f for f in _as_list(ns.speed_fraction)]
    else:
        alphas = [y / ns.x for y in _as_list(ns.y)]
    if ns.sigma is not None:
        sigmas = _as_list(ns.sigma)
    else:
        sigmas = [1.0 / (o * ns.x * b) for o in _as_list(ns.o) for b in _as_list(ns.link_bps)]
    return alphas, sigmas


def _fmt(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.4f}" if isinstance(v, float) else str(v)


def _table(rows: list[dict], cols: list[str]) -> str:
    cells = [[_fmt(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
    lines += ["  ".join(x.rjust(w) for x, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    return x


def _evaluate(ns) -> int:
    alphas, sigmas = _resolve(ns)
    if ns.gamma is None:
        raise UsageError("--gamma is required: a value, a list a,b,c or a range start:stop:step")
    if ns.beta is None:
        raise UsageError("--beta is required (>= 0)")
    ps = ns.p if ns.p is not None else [1.0]
    devs = (ns.delta_a, ns.delta_o, ns.tau)
    modified = any(v != 0.0 for d in devs for v in d)
    combos = list(itertools.product(ps, alphas, ns.beta, sigmas, *devs))
    if len(combos) * len(ns.gamma) > MAX_ROWS:
        raise UsageError(f"the arguments give {len(combos) * len(ns.gamma)} rows; "
                          f"at most {MAX_ROWS} are allowed")
    gammas = np.asarray(ns.gamma, dtype=float)
    families, rows = [], []
    for p, alpha, beta, sigma, da, do, tau in combos:
        fam = {"p": p, "alpha": alpha, "speed_fraction": 1.0 / alpha, "beta": beta,
               "sigma": sigma}
        if modified:
            fam.update(delta_a=da, delta_o=do, tau=tau)
        g_pk, v_pk = laws.peak_modified(p, alpha, beta, sigma, da, do, tau)
        fam.update(c=float(laws.c_ratio(alpha, beta, sigma)),
                   c_p=float(laws.c_ratio(alpha, beta, sigma, p)),
                   gamma_peak=float(g_pk), delta_b_peak=float(v_pk),
                   slope_before_peak=float(laws.slope_before_peak(p, alpha, beta, sigma, da, do, tau)),
                   limit_gamma_inf=float(laws.limit_modified(da, tau)))
        families.append(fam)
        before = laws.throughput_before(gammas, sigma)
        after = laws.throughput_after(gammas, sigma, p, alpha, beta, da, do, tau)
        db = laws.delta_b_modified(p, alpha, beta, sigma, gammas, da, do, tau)
        bound = laws.gamma_bound(gammas)
        # The closed-form test is for the original model; with deviations use the sign of delta_b.
        hurts = db < 0 if modified else laws.offload_hurts(p, alpha, beta, sigma, gammas)
        base = {k: fam[k] for k in ("p", "alpha", "beta", "sigma", "delta_a", "delta_o", "tau")
                if k in fam}
        for i, g in enumerate(gammas):
            rows.append({**base, "gamma": float(g), "throughput_before": float(before[i]),
                         "throughput_after": float(after[i]), "delta_b": float(db[i]),
                         "bound_1_over_gamma": float(bound[i]), "offload_hurts": bool(hurts[i])})

    if ns.plot:
        from ..analytic.plot import plot_families
        plot_families(families, float(gammas.max()) if gammas.max() > 0 else 3.5, ns.plot,
                      gamma_min=float(gammas.min()) if gammas.size > 1 else 0.0)

    if ns.json:
        print(json.dumps(_jsonable({"model": "modified LAWS" if modified else "LAWS",
                                    "conventions": CONVENTIONS, "families": families,
                                    "rows": rows, "plot": ns.plot}), indent=2))
        return 0
    fam_cols = ["p", "alpha", "speed_fraction", "beta", "sigma"]
    if modified:
        fam_cols += ["delta_a", "delta_o", "tau"]
    fam_cols += ["c", "c_p", "gamma_peak", "delta_b_peak", "slope_before_peak"]
    if modified:
        fam_cols.append("limit_gamma_inf")
    print(f"{'modified LAWS' if modified else 'LAWS'}: alpha = Y/X (host speed / CP speed); "
          "throughputs in units of 1/(oX)")
    print(_table(families, fam_cols))
    print()
    print(_table(rows, list(rows[0])))
    if ns.plot:
        print(f"\nplot written to {ns.plot}")
    return 0


def _fit(ns) -> int:
    from pathlib import Path

    # The points file is checked first: a missing file is the error to report, not the options.
    if not Path(ns.points).is_file():
        raise FitError(f"points file not found: {ns.points}")
    alphas, sigmas = _resolve(ns)
    missing = [n for n, v in (("--p", ns.p), ("--beta", ns.beta)) if v is None]
    if missing:
        raise UsageError(f"{', '.join(missing)} required for the fit")
    alpha, sigma = alphas[0], sigmas[0]
    kwargs = {"bounds": ns.bounds, "relative": ns.relative}
    if ns.split is not None:
        fits = fit_modified_split(ns.points, ns.p, alpha, ns.beta, sigma, ns.split, **kwargs)
        names = [f"gamma <= {ns.split:g}", f"gamma > {ns.split:g}"]
    else:
        fits = [fit_modified(ns.points, ns.p, alpha, ns.beta, sigma,
                             gamma_range=ns.gamma_range, **kwargs)]
        names = ["all points" if ns.gamma_range is None
                 else f"{ns.gamma_range[0]:g} <= gamma <= {ns.gamma_range[1]:g}"]

    if ns.plot:
        from ..analytic.plot import plot_fit
        plot_fit(fits[0], ns.plot, title=None if len(fits) == 1 else
                 f"Modified LAWS fitted to the points with {names[0]}")
    if ns.json:
        out = [dict(f.to_dict(), subset=n) for f, n in zip(fits, names)]
        print(json.dumps(out[0] if len(out) == 1 else {"split": ns.split, "fits": out}, indent=2))
        return 0
    for f, name in zip(fits, names):
        print(f"modified LAWS fit ({name}): p={f.p:g} alpha={f.alpha:g} beta={f.beta:g} "
              f"sigma={f.sigma:g}, bounds [{f.bounds[0]:g}, {f.bounds[1]:g}], "
              f"{f.n_points} points")
        print(_table([{"param": k, "value": v, "stderr": f.stderr[k]}
                      for k, v in f.params.items()], ["param", "value", "stderr"]))
        print(f"RMSE {f.rmse:.4g}   R^2 {_fmt(f.r2)}")
        for w in f.warnings:
            print(f"warning: {w}")
        pts = [{"gamma": g, "delta_b": d, "fitted": m, "laws": law, "above_laws": d - law}
               for g, d, m, law in zip(f.gamma, f.delta_b, f.fitted, f.laws)]
        print(_table(pts, ["gamma", "delta_b", "fitted", "laws", "above_laws"]))
        print()
    if ns.plot:
        print(f"plot written to {ns.plot}")
    return 0


def _eval_parser() -> Parser:
    ap = Parser(prog=PROG, description="Evaluate LAWS (or the modified LAWS) over a grid; "
                 "any value may be a list a,b,c or an inclusive range start:stop:step.")
    _add_model_args(ap, _values)
    ap.add_argument("--gamma", type=_values("gamma", 0.0), help="application ratio a/o (>= 0)")
    for flag, name in (("--delta-a", "delta_a"), ("--delta-o", "delta_o"), ("--tau", "tau")):
        ap.add_argument(flag, dest=name, type=_values(name, -1.0, low_open=True), default=[0.0],
                        help=f"modified-LAWS deviation {name} (> -1, default 0)")
    return ap


def _fit_parser() -> Parser:
    ap = Parser(prog=f"{PROG} fit", description="Fit delta_a, delta_o and tau of the modified "
                 "LAWS to (gamma, delta_b) points in a CSV or Parquet file. Required: POINTS, --p, "
                 "--beta, --sigma (or --o, --x and --link-bps), and one of --alpha, --speed-fraction "
                 "or --y with --x.")
    ap.add_argument("points", help="CSV/Parquet file with columns gamma, delta_b [, weight]")
    _add_model_args(ap, _scalar)
    ap.add_argument("--bounds", type=_pair("bounds", -1.0), default=DEFAULT_BOUNDS,
                    metavar="LOW:HIGH", help="bounds of every deviation (default -0.9:10)")
    ap.add_argument("--relative", action="store_true", help="minimise relative errors")
    ap.add_argument("--gamma-range", type=_pair("gamma-range"), metavar="LOW:HIGH",
                    help="fit only points with LOW <= gamma <= HIGH")
    ap.add_argument("--split", type=_scalar("split", 0.0), metavar="GAMMA",
                    help="two-set mode: fit gamma <= GAMMA and gamma > GAMMA separately")
    return ap


def main_laws(argv: list[str]) -> int:
    """Entry point of `nicsim laws ...`; *argv* excludes the word `laws`."""
    is_fit = bool(argv) and argv[0] == "fit"
    prog = f"{PROG} fit" if is_fit else PROG
    try:
        if is_fit:
            ns = _fit_parser().parse_args(argv[1:])
            if ns.split is not None and ns.gamma_range is not None:
                raise UsageError("--split and --gamma-range cannot be combined")
            return _fit(ns)
        return _evaluate(_eval_parser().parse_args(argv))
    except UsageError as exc:
        print(f"{prog}: error: {exc.message}", file=sys.stderr)
    except FitError as exc:
        print(f"{prog}: error: POINTS: {exc}", file=sys.stderr)
    except ValueError as exc:  # a domain check inside the models
        print(f"{prog}: error: {exc}", file=sys.stderr)
    except OSError as exc:  # e.g. an unwritable --plot path
        print(f"{prog}: error: --plot: cannot write {exc.filename or 'the file'}: "
              f"{exc.strerror or exc}", file=sys.stderr)
    except SystemExit as exc:  # --help: argparse has printed and wants to exit
        return int(exc.code or 0)
    return 2
