"""What a full index leaves behind so that a re-index can redo only the files that changed.

A dataset's records depend on other files only through their *link surface*:
the classes, imports, re-exports, helpers and function calls a file offers to
the rest of the codebase (`surface_digest`). While a changed file keeps its
surface, no other file's facts change, and the records of other files change
at most in their dataset-wide fields (`related`, a slug's uniqueness suffix),
which the re-index recomputes from the small per-record rows kept here.

Parts are stored separately (`store.state`) so a re-index loads only what it needs.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import zlib
from dataclasses import dataclass
from typing import NamedTuple

from errdex.analyze.related import RelatedKey
from errdex.models import EXTRACTOR_VERSION, FileFacts, SourceTree
from errdex.records import slug_of

#: Bumped when the parts' layout changes: an older state is ignored (the next run is a full one).
STATE_VERSION = 1


@dataclass(slots=True)
class Manifest:
    """The files a dataset was built from: cache key, size and mtime, and link surface per file."""

    analysis: bool
    tree: tuple                               # what of the SourceTree the records depend on
    files: dict[str, tuple[str, int, int]]    # rel path -> (cache key, size, mtime_ns)
    surfaces: dict[str, bytes]                # rel path -> digest of its link surface
    state_version: int = STATE_VERSION
    extractor_version: str = EXTRACTOR_VERSION


class RecordRow(NamedTuple):
    """One record as a re-index sees it: position, id, slug and what `related` ranks by."""

    source_path: str        # the file's path in the tree (filePath minus a git checkout's prefix)
    line: int
    template: str
    id: str
    hash_id: str            # the id `build_records` gave it (before identity linking): slugs end with its head
    file_path: str          # the record's filePath
    base_slug: str
    slug: str
    related: tuple[str, ...]
    key: tuple | None       # a `RelatedKey` as a plain tuple; None in a catalog without analysis

    def order(self) -> tuple[str, int, str]:
        """`build_records`' order: file, line, template."""
        return self.source_path, self.line, self.template


def pack_rows(rows: list[RecordRow]) -> bytes:
    """Rows as plain tuples: pickling named tuples or dataclasses by the ten thousand is several times slower."""
    return dumps([tuple(r) for r in rows])


def unpack_rows(blob: bytes) -> list[RecordRow]:
    make = RecordRow._make
    return [make(t) for t in loads(blob)]


def tree_fingerprint(tree: SourceTree) -> tuple:
    """The parts of a source tree other than its files that records are built from."""
    return (tree.kind, str(tree.root), tree.sha, tree.dirty, tree.github_repo, tree.permalink_ref,
            tree.url_prefix, tuple(tree.skipped))


def file_stat(root: str, rel: str) -> tuple[int, int] | None:
    """(size, mtime_ns), or None when the file cannot be stat'ed."""
    try:
        st = os.stat(os.path.join(root, rel))
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def surface_digest(facts: FileFacts) -> bytes:
    """A digest of what this file offers other files; lines are left out, so moving code keeps it."""
    helpers = [(h.qualname, h.param, h.param_index, h.site.error_type, h.site.error_class, h.site.class_ref,
                h.site.message.rendered()[0], h.site.message.form, h.site.severity, h.site.http_status,
                h.site.error_code) for h in facts.helpers]
    functions = [(fn.qualname, fn.calls, fn.public, fn.cls) for fn in facts.functions]
    classes = [(c.qualname, c.bases, c.error_code) for c in facts.classes]
    surface = (facts.module, classes, sorted(facts.imports.items()), facts.exports, helpers, functions,
               sorted(facts.string_constants.items()), facts.diagnostic is not None)
    return hashlib.sha256(pickle.dumps(surface, 4)).digest()


def source_path(tree: SourceTree, file_path: str) -> str:
    """The tree-relative path of a record's filePath (`records.record_path` backwards)."""
    if tree.kind == "git" and tree.url_prefix and file_path.startswith(tree.url_prefix):
        return file_path[len(tree.url_prefix):]
    return file_path


def record_rows(records: list[dict], tree: SourceTree, hash_ids: dict[str, str]) -> list[RecordRow]:
    """Rows for records in file/line order; `hash_ids`: final id -> built id, where they differ."""
    out = []
    for r in records:
        ex = r["errdex"]
        key = tuple(RelatedKey.of(r)) if "related" in ex.get("provenance", {}) else None
        out.append(RecordRow(source_path(tree, r["filePath"]), r["lineNumber"], r["errorMessage"], r["id"],
                             hash_ids.get(r["id"], r["id"]), r["filePath"], slug_of(r["errorMessage"]), r["slug"],
                             tuple(ex.get("related") or ()), key))
    return out


def dumps(part: object) -> bytes:
    return zlib.compress(pickle.dumps(part, pickle.HIGHEST_PROTOCOL), 1)


def loads(blob: bytes) -> object:
    return pickle.loads(zlib.decompress(blob))
