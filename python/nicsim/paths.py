"""Output paths checked before any simulation runs, so a mistake costs one line and nothing
that was computed: plots, stores, reports and written configurations."""
from __future__ import annotations

import os
from pathlib import Path

from .errors import ConfigError

PLOT_EXTENSIONS = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")
SQLITE_MAGIC = b"SQLite format 3\x00"


def _writable_parent(p: Path, arg: str, path: str) -> None:
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ConfigError(f"{arg} {path!r}: the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise ConfigError(f"{arg} {path!r}: the folder {str(parent)!r} is not writable")


def output_file(path: str | None, arg: str, suffixes: tuple[str, ...], example: str = "run") -> None:
    """An output file: a name ending in one of `suffixes`, writable, in a writable folder."""
    if not path:
        return
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"{arg} {path!r} is a directory; give a file such as {str(p / (example + suffixes[0]))!r}")
    if p.suffix.lower() not in suffixes:
        allowed = f"one of {', '.join(suffixes)}" if len(suffixes) > 1 else suffixes[0]
        raise ConfigError(f"{arg} {path!r}: the file name must end in {allowed}")
    if p.exists() and not os.access(p, os.W_OK):
        raise ConfigError(f"{arg} {path!r} is not writable")
    _writable_parent(p, arg, path)


def plot_file(path: str | None, arg: str = "--plot") -> None:
    """A plot goes to a file with an image extension matplotlib writes, in a writable folder."""
    output_file(path, arg, PLOT_EXTENSIONS, "plot")


def store_file(path: str, arg: str = "--out") -> None:
    """A sweep store: an SQLite file that exists (resumed) or can be created."""
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"{arg} {path!r} is a directory; give a file such as {str(p / 'sweep.sqlite')!r}")
    if p.exists():
        try:
            with open(p, "rb") as f:
                head = f.read(16)
        except OSError as e:
            raise ConfigError(f"{arg} {path!r} cannot be read: {e.strerror}") from None
        if head and head != SQLITE_MAGIC:
            raise ConfigError(f"{arg} {path!r} exists and is not a sweep store (not an SQLite file); choose another name")
        if not os.access(p, os.W_OK):
            raise ConfigError(f"{arg} {path!r} is not writable")
    _writable_parent(p, arg, path)


def output_dir(path: str, arg: str = "--out", create: bool = False) -> Path:
    """A directory that exists and is writable, or can be created in a writable folder (and
    is, with `create`)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ConfigError(f"{arg} {path!r} is a file; give a directory (it is created if missing)")
    if create:
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"{arg} {path!r} cannot be created: {e.strerror}") from None
    if p.is_dir():
        if not os.access(p, os.W_OK | os.X_OK):
            raise ConfigError(f"{arg} {path!r} is not writable")
        return p
    _writable_parent(p, arg, path)
    return p
