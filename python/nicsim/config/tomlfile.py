"""A user's TOML file (a configuration, a reference table, a `--config` of overrides) read in
one place, so every way it can be wrong is one line naming the file: missing, unreadable, not
text (binary or not UTF-8), not TOML, or nested deeper than any configuration is."""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ..errors import ConfigError

# A configuration nests a few tables deep (workload.netpipe.max_bytes, a placement table's
# rows); anything deeper is not a configuration, and would only exhaust the recursion of the
# code that walks it.
MAX_DEPTH = 16


def depth(doc: Any) -> int:
    """How deeply tables and arrays nest in `doc` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(doc, 0)]
    while stack:
        node, d = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, d + 1)
        if d + 1 > MAX_DEPTH:
            break
        stack.extend((c, d + 1) for c in children)
    return deepest


def read_toml(path: str | Path, what: str = "configuration file") -> dict:
    """The document in `path`, or a ConfigError of one line beginning `what 'path'`."""
    name = f"{what} {str(path)!r}"
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{name} not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{name} is a directory, not a TOML file") from None
    except OSError as e:
        raise ConfigError(f"{name} cannot be read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{name} is not a text file (byte {data[e.start]:#04x} at offset {e.start} is not UTF-8); "
                          "a configuration is a TOML text file") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{name} is not valid TOML: {str(e).splitlines()[0]}") from None
    except RecursionError:
        raise ConfigError(f"{name} nests tables or arrays more than {MAX_DEPTH} deep; no configuration does") from None
    if depth(doc) > MAX_DEPTH:
        raise ConfigError(f"{name} nests tables or arrays more than {MAX_DEPTH} deep; no configuration does")
    return doc
