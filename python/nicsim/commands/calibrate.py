"""`nicsim calibrate`: fits to the reference rows (docs/calibration.md)."""
from __future__ import annotations

import argparse

from ..paths import out_file, output_file
from .validate import cmd_validate


def add(sub) -> None:
    c = sub.add_parser("calibrate", help="fit the four category scales to T1-T5 and P1-P3, or the zabaljauregui placeholders to test A (docs/calibration.md)")
    c.add_argument("--family", choices=("ortiz2008", "zabaljauregui"), default="ortiz2008",
                   help="ortiz2008: the profile's category scales; zabaljauregui: test A's fitted placeholders")
    c.add_argument("--write", nargs="?", const="", metavar="CONFIG.toml", type=out_file(".toml", example="calibrated"),
                   help="write the fitted values as a configuration extending the family's preset (default calibrated-FAMILY.toml); "
                   "the shipped presets and profiles are never changed")
    c.add_argument("--check", action="store_true", help="only evaluate the current profile (same as nicsim validate)")
    c.add_argument("--candidates", action="store_true", help="fit every structural candidate and report each one's residuals")
    c.add_argument("--ioapic", action="store_true", help="fit the I/O APIC's delivery latency with the scales: each candidate of its cited range with the scales fitted to it, every candidate's residuals (with --write, the best one's values)")
    c.add_argument("--reference", metavar="FILE", help="fit to your own reference rows instead (with --fit, --train, --out; docs/validation.md)")
    c.add_argument("--fit", metavar="KEY[,KEY...]", help="with --reference: the numeric keys to fit, e.g. costs.scale.copy,costs.scale.tcpip")
    c.add_argument("--train", metavar="ID[,ID...]", help="with --reference: the training rows (default: rows whose role is training)")
    c.add_argument("--out", metavar="CONFIG.toml", type=out_file(".toml", example="fitted"), help="with --reference: write the fitted values as a configuration extending the rows' preset")
    c.add_argument("--config", metavar="FILE", help="with --reference: a configuration (your host's overrides) applied to every row before the fit, and kept in --out")
    c.add_argument("--json", action="store_true", help="with --reference: print one JSON document")
    c.set_defaults(run=cmd_calibrate)


def cmd_calibrate(args) -> int:
    from ..check.calibrate import main_calibrate

    if args.reference or args.fit or args.train or args.out:
        from ..check.reffit import main_reference

        return main_reference(args)
    write = None
    if args.write is not None:
        write = args.write or f"calibrated-{args.family}.toml"
        output_file(write, "--write", (".toml",), "calibrated")
    if args.family == "zabaljauregui":
        from ..check.calibrate_testa import main

        return main(write=write, check=args.check)
    if args.check:
        return cmd_validate(argparse.Namespace(reference=None, set=[], json=False, suite=None, only=None, report=None, config=None))
    return main_calibrate(write=write, candidates=args.candidates, ioapic=args.ioapic)
