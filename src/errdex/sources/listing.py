"""Which `.py` files under a root belong to the source, and why the others were left out.

Every source kind ends here: a folder walk, git's file list, or a
distribution's RECORD all become a `Listing` of posix paths relative to the
root plus `(path, reason)` pairs for what was skipped. Nothing is left out
silently, and nothing outside the root (through `..` or a symlink) is listed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from errdex.errors import SourceError

#: Folders that never hold the project's own code, by name.
SKIP_DIR_REASONS: dict[str, str] = {
    ".git": "version-control folder",
    ".hg": "version-control folder",
    ".svn": "version-control folder",
    "__pycache__": "bytecode cache",
    ".venv": "virtual environment",
    "venv": "virtual environment",
    ".tox": "tox environments",
    ".nox": "nox environments",
    "node_modules": "node packages",
    "site-packages": "installed packages",
}

#: Folders of package metadata inside wheels and sdists.
METADATA_DIR_SUFFIXES = (".dist-info", ".egg-info")

EXCLUDED = "excluded"


@dataclass(slots=True)
class Listing:
    """Files kept (relative posix paths) and `(path, reason)` pairs left out."""

    files: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def sorted_files(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.files)))


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _symlink_reason(full: Path, real_root: Path, *, is_dir: bool) -> str | None:
    """Why a symlink is skipped, or None when it is a file link that stays inside the root."""
    try:
        target = full.resolve(strict=True)
    except (OSError, RuntimeError):
        return "broken symlink"
    if not _is_within(target, real_root):
        return "symlink pointing outside the root"
    if is_dir:
        return "symlink to a folder inside the root (listed at its real path)"
    if not target.is_file():
        return "symlink to something that is not a file"
    return None


def _dir_skip_reason(name: str, *, metadata_dirs: bool) -> str | None:
    if name in SKIP_DIR_REASONS:
        return SKIP_DIR_REASONS[name]
    if metadata_dirs and name.endswith(METADATA_DIR_SUFFIXES):
        return "package metadata"
    return None


def walk_python_files(root: Path, *, metadata_dirs: bool = False,
                      own_data: Path | None = None) -> Listing:
    """All `.py` files under `root`, pruning skipped folders and unsafe symlinks.

    `metadata_dirs=True` also prunes `*.dist-info` / `*.egg-info` folders
    (unpacked wheels and sdists); `own_data` (errdex's home) is pruned so a
    folder that contains it never indexes errdex's downloads.
    """
    real_root = root.resolve()
    real_own = own_data.resolve() if own_data is not None else None
    listing = Listing()

    def unreadable(error: OSError) -> None:
        where = Path(error.filename or real_root)
        rel = where.relative_to(real_root).as_posix() if _is_within(where, real_root) else str(where)
        listing.skipped.append((rel + "/", f"unreadable folder: {error.strerror or error}"))

    todo = [(real_root, "")]
    while todo:
        here, prefix = todo.pop()
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as error:
            unreadable(error)
            continue
        subdirs = []
        for entry in entries:
            name = entry.name
            if entry.is_symlink():
                if entry.is_dir():
                    listing.skipped.append((prefix + name + "/", _symlink_reason(Path(entry.path), real_root,
                                                                                 is_dir=True) or "symlink"))
                elif name.endswith(".py"):
                    _add_file(listing, real_root, prefix + name)   # a file link: checked in full
            elif entry.is_dir(follow_symlinks=False):
                full = here / name
                reason = "errdex data folder" if full == real_own else _dir_skip_reason(name, metadata_dirs=metadata_dirs)
                if reason:
                    listing.skipped.append((prefix + name + "/", reason))
                else:
                    subdirs.append((full, prefix + name + "/"))
            elif name.endswith(".py"):
                # A regular file met walking the real root without following links is inside it.
                if not entry.is_file(follow_symlinks=False):
                    listing.skipped.append((prefix + name, "not a regular file"))
                elif not os.access(entry.path, os.R_OK):
                    listing.skipped.append((prefix + name, "not readable"))
                else:
                    listing.files.append(prefix + name)
        todo.extend(reversed(subdirs))
    return listing


def _add_file(listing: Listing, real_root: Path, rel: str) -> None:
    """Keep `rel` if it is a regular file (or an in-root file symlink) under the root."""
    full = real_root / rel
    if full.is_symlink():
        reason = _symlink_reason(full, real_root, is_dir=False)
    elif not full.exists():
        reason = "missing on disk"
    elif not full.is_file():
        reason = "not a regular file"
    elif not _is_within(full.resolve(), real_root):
        reason = "path leads outside the root"
    elif not os.access(full, os.R_OK):
        reason = "not readable"
    else:
        reason = None
    if reason:
        listing.skipped.append((rel, reason))
    else:
        listing.files.append(rel)


def filter_candidates(root: Path, rel_paths: Iterable[str]) -> Listing:
    """Keep the `.py` entries of an explicit list (git's files, a RECORD) that are safe to read."""
    real_root = root.resolve()
    listing = Listing()
    for rel in sorted(set(rel_paths)):
        if not rel.endswith(".py"):
            continue
        parts = rel.split("/")
        if rel.startswith("/") or ".." in parts:
            listing.skipped.append((rel, "path leads outside the root"))
            continue
        dir_reason = next((SKIP_DIR_REASONS[p] for p in parts[:-1] if p in SKIP_DIR_REASONS), None)
        if dir_reason:
            listing.skipped.append((rel, dir_reason))
            continue
        _add_file(listing, real_root, rel)
    return listing


def is_excluded(rel: str, patterns: Sequence[str]) -> bool:
    """True when a pattern matches the path or one of its folder prefixes (`tests` hits `tests/a.py`)."""
    parts = rel.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts))]
    for raw in patterns:
        pattern = raw.strip().rstrip("/")
        if pattern and (fnmatchcase(rel, pattern) or any(fnmatchcase(p, pattern) for p in prefixes)):
            return True
    return False


def apply_excludes(listing: Listing, patterns: Sequence[str]) -> Listing:
    """Move files matching `patterns` to `skipped` with reason "excluded"."""
    if not patterns:
        return listing
    kept = Listing(skipped=list(listing.skipped))
    for rel in listing.files:
        if is_excluded(rel, patterns):
            kept.skipped.append((rel, EXCLUDED))
        else:
            kept.files.append(rel)
    return kept


def require_files(listing: Listing, where: str) -> tuple[str, ...]:
    """The sorted files, or a SourceError naming what was skipped when none are left."""
    files = listing.sorted_files()
    if not files:
        detail = ""
        if listing.skipped:
            path, reason = listing.skipped[0]
            detail = f" ({len(listing.skipped)} skipped, e.g. {path}: {reason})"
        raise SourceError(f"no Python files found in {where}{detail}")
    return files
