"""Who owns a file a traceback points at: an installed distribution, or an indexed folder.

Answers are cached per process (each file is looked up once) and, through
`owner_cache`, across processes: a new process that already saw a file asks
no `importlib.metadata` question at all. Only a file seen for the first time
pays for `packages_distributions()` (the top-level-module -> distribution
map, tens of milliseconds) and the owning distribution's RECORD.
`importlib.metadata` is imported only then, for the same reason.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple


class DistOwner(NamedTuple):
    """An installed distribution and the file's path inside its install root.

    A NamedTuple, not a dataclass: importing `dataclasses` (and with it
    `inspect`) would cost the hook's fast path more than its whole lookup.
    """

    name: str            # distribution name as its metadata spells it ("packaging")
    version: str
    rel_path: str        # posix path relative to site-packages ("packaging/version.py")
    record_file: str = ""   # the dist's RECORD (its mtime tells a cached answer is still true)

    @property
    def repo(self) -> str:
        """The dataset repo an `installed:` index gives it (GitHub "owner/name", else the name)."""
        return _repo_of(self.name)

    @property
    def dataset(self) -> str:
        return f"{self.repo}@{self.version}"

    def find_dataset(self, names) -> str | None:
        """This dist's dataset among `names`, matched by name and exact version first.

        Cheap: computing `repo` imports the sources stage (and its HTTP client),
        which only indexing should pay for.
        """
        wanted = self.name.lower().replace("_", "-")
        for name in names:
            repo, _, version = name.rpartition("@")
            if version == self.version and repo.rsplit("/", 1)[-1].lower().replace("_", "-") == wanted:
                return name
        return self.dataset if self.dataset in names else None


def resolved(filename: str) -> str | None:
    """The absolute, symlink-free form of a frame's file name (cache key), or None."""
    try:
        return str(Path(filename).resolve())
    except (OSError, RuntimeError, ValueError):
        return None


@lru_cache(maxsize=1)
def _top_level_map() -> dict[str, list[str]]:
    from importlib import metadata

    return metadata.packages_distributions()


@lru_cache(maxsize=1)
def _path_roots() -> tuple[Path, ...]:
    """sys.path folders, longest first, so the most specific root wins."""
    roots = []
    for entry in sys.path:
        try:
            folder = Path(entry or os.getcwd()).resolve()
        except (OSError, RuntimeError):
            continue
        if folder.is_dir():
            roots.append(folder)
    return tuple(sorted(set(roots), key=lambda p: -len(p.parts)))


def path_roots() -> tuple[str, ...]:
    """The sys.path folders owners are looked for under (the negative answers depend on them)."""
    return tuple(str(root) for root in _path_roots())


@lru_cache(maxsize=512)
def dist_owner(filename: str) -> DistOwner | None:
    """The installed distribution that put `filename` on disk, or None (user code, stdlib)."""
    found = resolved(filename)
    if found is None:
        return None
    path = Path(found)
    for root in _path_roots():
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        top = rel.parts[0].removesuffix(".py") if rel.parts else ""
        for name in _top_level_map().get(top, ()):
            owner = _owner_in(name, root, rel.as_posix())
            if owner is not None:
                return owner
    return None


def _owner_in(name: str, root: Path, rel: str) -> DistOwner | None:
    """`name` as the owner of `rel`, when its RECORD lists that file under `root`."""
    from importlib import metadata

    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    files = dist.files or ()
    if not any(f.as_posix() == rel for f in files):
        return None
    try:
        if Path(dist.locate_file("")).resolve() != root:
            return None
    except (OSError, RuntimeError):
        return None
    meta_dir = getattr(dist, "_path", None)   # PathDistribution's folder; others are not cached
    record = str(Path(meta_dir) / "RECORD") if meta_dir is not None else ""
    return DistOwner(str(dist.metadata.get("Name") or name), dist.version, rel, record)


@lru_cache(maxsize=64)
def _repo_of(name: str) -> str:
    from importlib import metadata

    from errdex.sources.github import github_repo_from_metadata

    return github_repo_from_metadata(metadata.distribution(name).metadata) or name


def folder_owner(filename: str, roots: dict[str, str]) -> tuple[str, str] | None:
    """(dataset, rel_path) for a file under one of the indexed folders `roots` {root: dataset}.

    The deepest root wins, so a sub-folder indexed on its own beats its parent.
    """
    if not roots:
        return None
    found = resolved(filename)
    if found is None:
        return None
    path = Path(found)
    best: tuple[int, str, str] | None = None
    for root, dataset in roots.items():
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        depth = len(Path(root).parts)
        if best is None or depth > best[0]:
            best = (depth, dataset, rel.as_posix())
    return (best[1], best[2]) if best else None
