"""`nicsim validate`: the model against reference rows, or a thesis's whole suite."""
from __future__ import annotations

from ..errors import ConfigError
from ..paths import out_dir
from .options import dumps


def add(sub) -> None:
    v = sub.add_parser("validate", help="the model against the base targets T1-T5 and training rows P1-P3, a table of your own, or (--suite ortiz2008) every thesis experiment")
    v.add_argument("--reference", help="TOML or CSV of rows: preset, command, metric, value, tolerance (docs/validation.md)")
    v.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a parameter in every run (repeatable)")
    v.add_argument("--json", action="store_true", help="print one JSON document")
    v.add_argument("--suite", help="run every experiment of a thesis nicsim can run, in its table layout: ortiz2008 (docs/validation.md)")
    v.add_argument("--only", help="with --suite: comma-separated experiment ids (E5) or row-id prefixes (E4.x1)")
    v.add_argument("--report", metavar="DIR", type=out_dir(), help="with --suite: write index.html and PNG plots of the model's curves into DIR")
    v.add_argument("--config", metavar="FILE", help="a configuration (e.g. from calibrate --out) whose overrides apply to every row")
    v.set_defaults(run=cmd_validate)


def cmd_validate(args) -> int:
    """Exit 0 when every row passes, 1 when some row fails (the table says which)."""
    from ..check import validation
    from ..config import parse_set

    if args.suite:
        from ..check.suite_report import main_suite

        if args.config:
            raise ConfigError("validate: --config goes with --reference or the built-in rows; the suite takes --set")

        return main_suite(args)
    if args.only or args.report:
        raise ConfigError("validate: --only and --report go with --suite (e.g. --suite ortiz2008)")
    from ..check.reffit import config_sets

    rows = validation.load_reference(args.reference) if args.reference else validation.BUILTIN
    results = validation.validate(rows, {**config_sets(args.config), **parse_set(args.set)})
    if args.json:
        print(dumps({"rows": results, "passed": sum(r["passed"] for r in results), "total": len(results)}))
    else:
        print(validation.table(results))
    return 0 if all(r["passed"] for r in results) else 1
