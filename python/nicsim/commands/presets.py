"""`nicsim presets`: the presets, one a line."""
from __future__ import annotations



def add(sub) -> None:
    sub.add_parser("presets", help="list the presets").set_defaults(run=cmd_presets)


def cmd_presets(args) -> int:
    from ..config import load_preset, preset_names

    for n in preset_names():
        print(f"{n:<26} {load_preset(n).get('description', '')}")
    return 0
