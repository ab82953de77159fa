"""Output paths checked before any simulation runs, so a mistake costs one line and nothing
that was computed: plots, captures, traces, stores, reports and written configurations.

Every command's parser declares its output arguments with one of the argparse types below
(`out_file`, `out_dir`, `out_store`, `in_store`), so the check runs while the command line is
parsed, before anything is imported or simulated. Writability is tried, not assumed: a
scratch file is created and removed in the folder (`os.access` says yes to root everywhere,
/proc included)."""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from .errors import ConfigError

PLOT_EXTENSIONS = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")
SQLITE_MAGIC = b"SQLite format 3\x00"


def _folder_problem(folder: Path) -> str | None:
    """Why a new file cannot be made in `folder` (an existing directory), or None."""
    try:
        fd, name = tempfile.mkstemp(prefix=".nicsim-check-", dir=folder)
    except OSError as e:
        return f"a file cannot be created in the folder {str(folder)!r} ({e.strerror or e})"
    os.close(fd)
    os.unlink(name)
    return None


def _parent_problem(p: Path) -> str | None:
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        if parent.exists():
            return f"{str(parent)!r} is a file, not a folder"
        return f"the folder {str(parent)!r} does not exist"
    return _folder_problem(parent)


def _existing_file_problem(p: Path) -> str | None:
    if p.is_file():
        try:
            with open(p, "ab"):  # append: nothing written, nothing truncated
                pass
        except OSError as e:
            return f"exists and is not writable ({e.strerror or e})"
    elif not os.access(p, os.W_OK):
        return "is not writable"
    return None


def file_problem(path: str, suffixes: tuple[str, ...] = (), example: str = "run") -> str | None:
    """Why `path` cannot be written as an output file ending in one of `suffixes`, or None."""
    p = Path(path)
    if not path.strip():
        return "is empty; give a file name"
    if p.is_dir():
        return f"is a directory; give a file such as {str(p / (example + (suffixes[0] if suffixes else '')))!r}"
    if suffixes and p.suffix.lower() not in suffixes:
        allowed = f"one of {', '.join(suffixes)}" if len(suffixes) > 1 else suffixes[0]
        return f"the file name must end in {allowed}"
    if p.exists():
        why = _existing_file_problem(p)
        if why:
            return why
    return _parent_problem(p)


def dir_problem(path: str) -> str | None:
    """Why `path` cannot be (or be created as) a writable output directory, or None."""
    p = Path(path)
    if not path.strip():
        return "is empty; give a directory"
    if p.exists() and not p.is_dir():
        return "is a file; give a directory (it is created if missing)"
    if p.is_dir():
        return _folder_problem(p)
    # Created with its parents: the nearest existing ancestor must take a new folder.
    anc = next((a for a in p.absolute().parents if a.exists()), Path("/"))
    if not anc.is_dir():
        return f"cannot be created: {str(anc)!r} is a file"
    return _folder_problem(anc)


def store_problem(path: str) -> str | None:
    """Why `path` is neither a sweep store to resume nor a new one that can be created."""
    p = Path(path)
    if p.is_dir():
        return f"is a directory; give a file such as {str(p / 'sweep.sqlite')!r}"
    if p.exists():
        try:
            with open(p, "rb") as f:
                head = f.read(16)
        except OSError as e:
            return f"cannot be read: {e.strerror}"
        if head and head != SQLITE_MAGIC:
            return "exists and is not a sweep store (not an SQLite file); choose another name"
        why = _existing_file_problem(p)
        if why:
            return why
    return _parent_problem(p)


def existing_store_problem(path: str) -> str | None:
    """Why `path` is not a sweep store that can be read (`nicsim report`), or None."""
    p = Path(path)
    if not p.exists():
        return "not found"
    if p.is_dir():
        return "is a folder, not a sweep store (give the file nicsim sweep --out wrote, e.g. s.sqlite)"
    try:
        with open(p, "rb") as f:
            head = f.read(16)
    except OSError as e:
        return f"cannot be read: {e.strerror}"
    if head != SQLITE_MAGIC:
        return "is not a sweep store (not an SQLite file written by nicsim sweep --out)"
    return None


def _raise(arg: str, path: str, why: str | None) -> None:
    if why:
        sep = " " if why.split()[0] in ("is", "exists", "cannot", "not") else ": "
        raise ConfigError(f"{arg} {path!r}{sep}{why}")


# --- the argparse types every parser declares its outputs with ----------------------------


class _Checked:
    """An argparse `type`: returns the path unchanged, or fails the parse with one line."""

    def __init__(self, problem, *extra):
        self.problem, self.extra = problem, extra
        self.__name__ = "path"

    def __call__(self, text: str) -> str:
        why = self.problem(text, *self.extra)
        if why:
            sep = " " if why.split()[0] in ("is", "exists", "cannot", "not") else ": "
            raise argparse.ArgumentTypeError(f"{text!r}{sep}{why}")
        return text


def out_file(*suffixes: str, example: str = "run") -> _Checked:
    """An output file ending in one of `suffixes` (any name when none), in a writable folder."""
    return _Checked(file_problem, tuple(suffixes), example)


def out_plot() -> _Checked:
    return _Checked(file_problem, PLOT_EXTENSIONS, "plot")


def out_dir() -> _Checked:
    return _Checked(dir_problem)


def out_store() -> _Checked:
    return _Checked(store_problem)


def in_store() -> _Checked:
    return _Checked(existing_store_problem)


def is_checked(action: argparse.Action) -> bool:
    """Whether a parser argument is declared with one of the types above (tests/test_paths.py)."""
    return isinstance(action.type, _Checked)


# --- the same checks as calls, for paths that do not come from a parser ------------------


def output_file(path: str | None, arg: str, suffixes: tuple[str, ...], example: str = "run") -> None:
    """An output file: a name ending in one of `suffixes`, writable, in a writable folder."""
    if path:
        _raise(arg, path, file_problem(path, suffixes, example))


def plot_file(path: str | None, arg: str = "--plot") -> None:
    """A plot goes to a file with an image extension matplotlib writes, in a writable folder."""
    output_file(path, arg, PLOT_EXTENSIONS, "plot")


def store_file(path: str, arg: str = "--out") -> None:
    """A sweep store: an SQLite file that exists (resumed) or can be created."""
    _raise(arg, path, store_problem(path))


def output_dir(path: str, arg: str = "--out", create: bool = False) -> Path:
    """A directory that exists and is writable, or can be created (and is, with `create`)."""
    _raise(arg, path, dir_problem(path))
    p = Path(path)
    if create:
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"{arg} {path!r} cannot be created: {e.strerror}") from None
    return p
