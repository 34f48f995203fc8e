"""Owners of traceback files remembered across processes, in one small JSON file in ERRDEX_HOME.

Finding a file's distribution costs a new process ~80 ms (importing
`importlib.metadata` and reading every installed distribution's metadata),
more than the whole explanation may take. The answer is stored per resolved
file and trusted only while what it was derived from is unchanged:

- "owned by DIST VERSION": while the dist's RECORD has the same mtime and
  size (an upgrade or reinstall replaces or rewrites it);
- "owned by no distribution": while the sys.path folders are the same ones
  with the same mtimes (installing anything adds entries to site-packages).

The file is an optimisation only: unreadable, damaged or unwritable means
"ask importlib.metadata", never an error. It is written only into a folder
that already exists (the hook never creates ERRDEX_HOME just for it), by
replacing it whole, so readers never see half a file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from errdex.hook.owners import DistOwner, dist_owner, path_roots, resolved

FILE_NAME = "hook-owners.json"
FORMAT = 1
#: Beyond this many files the oldest half is forgotten (a traceback touches a handful).
MAX_ENTRIES = 2000
#: Returned by `lookup` when the cache has no valid answer (None means "no owner").
UNKNOWN = object()


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def roots_stamp() -> dict[str, int]:
    """{sys.path folder: mtime_ns}: negative answers hold while this is unchanged."""
    out = {}
    for root in path_roots():
        stamp = _stamp(root)
        out[root] = stamp[0] if stamp else -1
    return out


class OwnerCache:
    """The remembered answers of one cache file; `save()` writes them back if any changed."""

    __slots__ = ("path", "files", "roots", "dirty", "_roots_now")

    def __init__(self, path: Path, files: dict | None = None, roots: dict | None = None) -> None:
        self.path = path
        self.files: dict[str, dict] = files or {}
        self.roots: dict[str, int] = roots or {}
        self.dirty = False
        self._roots_now: dict[str, int] | None = None

    @classmethod
    def load(cls, path: Path) -> OwnerCache:
        """The cache at `path`; empty when the file is missing, damaged or of another format."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return cls(path)
        files, roots = data.get("files"), data.get("roots")
        return cls(path, files if isinstance(files, dict) else {}, roots if isinstance(roots, dict) else {})

    def lookup(self, key: str) -> DistOwner | None | object:
        """The remembered owner of the resolved file `key`, None for "no owner", or UNKNOWN."""
        entry = self.files.get(key)
        if not isinstance(entry, dict):
            return UNKNOWN
        try:
            if entry.get("owner") is None:
                return None if self.roots == self._current_roots() else UNKNOWN
            name, version, rel, record = entry["owner"]
            if record and _stamp(record) == entry.get("stamp"):
                return DistOwner(name, version, rel, record)
        except (TypeError, ValueError, KeyError):
            pass
        return UNKNOWN

    def remember(self, key: str, owner: DistOwner | None) -> None:
        """Store an answer just computed (owners without a RECORD file are not stored)."""
        if owner is None:
            current = self._current_roots()
            if self.roots != current:   # older negatives were for other folders: drop them
                self.files = {k: v for k, v in self.files.items() if v.get("owner") is not None}
                self.roots = current
            self.files[key] = {"owner": None}
        else:
            stamp = _stamp(owner.record_file) if owner.record_file else None
            if stamp is None:
                return
            self.files[key] = {"owner": list(owner), "stamp": stamp}
        if len(self.files) > MAX_ENTRIES:
            keep = list(self.files.items())[MAX_ENTRIES // 2:]
            self.files = dict(keep)
        self.dirty = True

    def _current_roots(self) -> dict[str, int]:
        if self._roots_now is None:
            self._roots_now = roots_stamp()
        return self._roots_now

    def save(self) -> None:
        """Write the answers back when any changed; silently skipped when that is not possible."""
        if not self.dirty or not self.path.parent.is_dir():
            return
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            temp.write_text(json.dumps({"format": FORMAT, "roots": self.roots, "files": self.files}),
                            encoding="utf-8")
            os.replace(temp, self.path)
            self.dirty = False
        except OSError:
            try:
                temp.unlink(missing_ok=True)
            except OSError:
                pass


def owner_of(filename: str, cache: OwnerCache | None) -> DistOwner | None:
    """`dist_owner(filename)`, answered from `cache` when it holds a still-valid answer."""
    if cache is None:
        return dist_owner(filename)
    key = resolved(filename)
    if key is None:
        return None
    found = cache.lookup(key)
    if found is not UNKNOWN:
        return found  # type: ignore[return-value]
    owner = dist_owner(filename)
    cache.remember(key, owner)
    return owner
