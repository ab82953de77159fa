"""The files a configuration is made of: the built-in presets, cost profiles and stack
organisations shipped in the package, and a user's configuration files with every file they
extend."""
from __future__ import annotations

import difflib
import tomllib
from importlib import resources
from pathlib import Path

from ..errors import ConfigError

PRESET_DIR = "presets"
PROFILE_DIR = "profiles"
ORG_DIR = "orgs"


def _read_toml(path: Path, what: str, where: str = "") -> dict:
    """A TOML file (tomlfile.read_toml); any failure is one line naming it, and who named it."""
    from .tomlfile import read_toml

    try:
        return read_toml(path, what)
    except ConfigError as e:
        if not where:
            raise
        raise ConfigError(f"{e}{where}") from None


def preset_names() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files("nicsim").joinpath(PRESET_DIR).iterdir() if p.name.endswith(".toml"))


def load_preset(name: str) -> dict:
    f = resources.files("nicsim").joinpath(PRESET_DIR, f"{name}.toml")
    if not f.is_file():
        hint = difflib.get_close_matches(name, preset_names(), n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise ConfigError(f"no preset or file named {name!r}{extra}; presets: {', '.join(preset_names())}")
    doc = tomllib.loads(f.read_text())
    if "preset" in doc:  # a variant: its base preset's settings, then its own
        return _deep_merge(load_preset(doc.pop("preset")), doc)
    return doc


def is_file_ref(value: str) -> bool:
    """Whether a configuration's `preset` names another configuration file (a value ending in
    `.toml`, a path relative to the file that names it) rather than a built-in preset."""
    return value.endswith(".toml")


def load_file(path: Path, chain: tuple[Path, ...] = ()) -> tuple[dict, str | None]:
    """Configuration file `path` with every file it extends merged under it: a file's `preset`
    may name another configuration file by its path, relative to the naming file's folder
    (`preset = "host.toml"`), which may extend another in turn, down to a built-in preset or
    none. Returns the merged document without `preset`, and the built-in preset the chain ends
    at (None if it ends at a file that names none). A file met twice is a cycle."""
    real = path.resolve()
    if real in chain:
        names = " -> ".join(str(c) for c in (*chain, real))
        raise ConfigError(f"configuration file {str(path)!r} extends itself: {names}")
    doc = _read_toml(path, "configuration file", f" (the preset of {str(chain[-1])!r})" if chain else "")
    base = doc.pop("preset", None)
    if base is None:
        return doc, None
    if not isinstance(base, str) or not base:
        raise ConfigError(f"configuration file {str(path)!r}: preset = {base!r} must name a preset or a .toml file")
    if not is_file_ref(base):
        return doc, base
    parent, preset = load_file(path.parent / base, (*chain, real))
    return _deep_merge(parent, doc), preset


def _deep_merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def load_profile(name: str) -> dict:
    """A cost profile; one that `inherits` another takes that one's stages where it declares
    none of its own (each such stage is then the other profile's, source and all)."""
    f = resources.files("nicsim").joinpath(PROFILE_DIR, f"{name}.toml")
    doc = tomllib.loads(f.read_text())
    if "inherits" in doc:
        base = load_profile(doc["inherits"])
        doc["stages"] = {**base["stages"], **doc["stages"]}
    return doc


def org_doc(name: str) -> dict:
    """Organisation file `name` with what it `inherits` under its own `set` and `ilp` tables."""
    doc = tomllib.loads(resources.files("nicsim").joinpath(ORG_DIR, f"{name}.toml").read_text())
    parent = doc.pop("inherits", None)
    if parent is None:
        return doc
    base = org_doc(parent)
    merged = {**base, **doc, "set": {**base.get("set", {}), **doc.get("set", {})}}
    if "ilp" in base or "ilp" in doc:
        merged["ilp"] = {**base.get("ilp", {}), **doc.get("ilp", {})}
    return merged
