"""The source stage: turn a SOURCE spec into a `SourceTree` (files on disk plus provenance).

Specs: a folder (a git checkout when git knows it), `pypi:NAME[==VERSION]`
and `installed:DIST`. Downloads and unpacked trees live under
`errdex.config.cache_dir()`, never inside the indexed tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from pathlib import Path

from errdex.errors import SourceError
from errdex.models import SourceTree
from errdex.sources.folder import resolve_folder
from errdex.sources.gitrepo import find_work_tree, read_git_state, resolve_git

if TYPE_CHECKING:
    from errdex.sources.archive import UnpackLimits, unpack_archive

__all__ = [
    "GUESSED_PERMALINK_KINDS", "SourceError", "UnpackLimits", "resolve_local", "resolve_source",
    "unpack_archive",
]

#: Kinds whose `permalink_ref` is a guess (`v<version>` tag) rather than a known commit.
GUESSED_PERMALINK_KINDS = frozenset({"pypi", "installed"})

_PREFIX = re.compile(r"^(?P<prefix>[A-Za-z][A-Za-z0-9+.-]*):(?!\\)")

Progress = Callable[[str], None]


def resolve_local(folder: Path, *, repo: str | None = None, version: str | None = None,
                  exclude: Sequence[str] = (), progress: Progress | None = None) -> SourceTree:
    """A folder on disk: a git checkout when git tracks it, else a plain folder."""
    if not folder.exists():
        raise SourceError(f"no such folder: {folder}")
    if not folder.is_dir():
        raise SourceError(f"{folder} is a file; give the folder that contains the code")
    toplevel = find_work_tree(folder, progress)
    state = read_git_state(folder, toplevel) if toplevel else None
    if toplevel and state is None and progress:
        progress(f"{toplevel} has no commit yet; indexing as a plain folder")
    if state is not None:
        return resolve_git(folder, state, repo=repo, version=version, exclude=exclude)
    return resolve_folder(folder, repo=repo, version=version, exclude=exclude)


def resolve_source(spec: str, *, repo: str | None = None, version: str | None = None,
                   exclude: Sequence[str] = (), home: Path | None = None,
                   progress: Progress | None = None) -> SourceTree:
    """Resolve SOURCE to files on disk; `repo`/`version` override what the source says."""
    text = spec.strip()
    if not text:
        raise SourceError("empty SOURCE: give a folder, pypi:NAME[==VERSION] or installed:DIST")
    if text.startswith("pypi:"):   # archives, downloads and metadata load only for the specs that need them
        from errdex.sources.pypi import resolve_pypi

        return resolve_pypi(text[5:], repo=repo, version=version, exclude=exclude, home=home, progress=progress)
    if text.startswith("installed:"):
        from errdex.sources.installed import resolve_installed

        return resolve_installed(text[10:], local=resolve_local, repo=repo, version=version,
                                 exclude=exclude, progress=progress)
    prefix = _PREFIX.match(text)
    path = Path(text).expanduser()
    if prefix and not path.exists():
        raise SourceError(f"unknown SOURCE prefix {prefix.group('prefix')!r} in {spec!r}: "
                          "use a folder, pypi:NAME[==VERSION] or installed:DIST")
    return resolve_local(path, repo=repo, version=version, exclude=exclude, progress=progress)


def __getattr__(name: str) -> Any:
    if name in ("UnpackLimits", "unpack_archive"):
        from errdex.sources import archive

        return getattr(archive, name)
    raise AttributeError(f"module 'errdex.sources' has no attribute {name!r}")
