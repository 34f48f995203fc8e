"""What a full index leaves behind so that a re-index can redo only the files that changed.

A dataset's records depend on other files only through their *link surface*:
the classes, imports, re-exports, helpers and function calls a file offers to
the rest of the codebase (`surface_digest`). While a changed file keeps its
surface, no other file's facts change, so other files' records change at most
in their dataset-wide fields (a slug's uniqueness suffix, `related`).

Kept per dataset, small and cheap to write on every full index:
- "manifest": each file's cache key, size, mtime and module name (the facts
  of any file, old or new, are then one lookup away in the per-file cache);
- "related" (with analysis): each record's id, `related` list and ranking key,
  in dataset order, so related lists can be recomputed for a few records.
Everything else a re-index needs is read from the per-file cache and from
the stored records of the changed files.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from errdex.analyze.raisers import raising_in
from errdex.analyze.related import RelatedKey
from errdex.models import EXTRACTOR_VERSION, FileFacts, SourceTree

#: Bumped when the parts' layout changes: an older state is ignored (the next run is a full one).
STATE_VERSION = 2


class FileEntry(NamedTuple):
    key: str          # per-file cache key (content, path, module, mode)
    size: int
    mtime_ns: int
    module: str


@dataclass(slots=True)
class Manifest:
    """The files a dataset was built from, and the mode and tree they were indexed in."""

    analysis: bool
    tree: tuple                     # what of the SourceTree the records depend on
    files: dict[str, FileEntry]     # tree-relative path -> entry
    state_version: int = STATE_VERSION
    extractor_version: str = EXTRACTOR_VERSION


class RelatedRow(NamedTuple):
    """One record as `related` ranking sees it, in dataset (file, line, template) order."""

    id: str
    related: tuple[str, ...]
    key: tuple          # a `RelatedKey` as a plain tuple


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
                h.site.error_code, h.status_param, h.kind_param) for h in facts.helpers]
    functions = [(fn.qualname, fn.calls, fn.public, fn.cls, fn.guarded, fn.binding, fn.passes, fn.supers, fn.params,
                  sorted(fn.checks.items()))
                 for fn in facts.functions]
    factories = [(d.qualname, d.params, d.site.error_type, d.site.error_class, d.site.class_ref,
                  d.site.message.segments, d.site.message.form, d.site.http_status, d.site.error_code)
                 for d in facts.factories]
    classes = [(c.qualname, c.bases, c.error_code, c.init_kind, c.init_args) for c in facts.classes]
    # analysed: which functions raise themselves decides the exactness of sites past their calls elsewhere
    raising = raising_in(facts) if any(s.condition is not None for s in facts.sites) else ()
    surface = (facts.module, classes, sorted(facts.imports.items()), facts.exports, helpers, functions,
               sorted(facts.string_constants.items()), facts.diagnostic is not None, factories, raising,
               sorted(facts.class_aliases.items()))
    return hashlib.sha256(pickle.dumps(surface, 4)).digest()


def source_path(tree: SourceTree, file_path: str) -> str:
    """The tree-relative path of a record's filePath (`records.record_path` backwards)."""
    if tree.kind == "git" and tree.url_prefix and file_path.startswith(tree.url_prefix):
        return file_path[len(tree.url_prefix):]
    return file_path


def related_rows(records: list[dict], keys: list[RelatedKey] | None = None,
                 lists: Mapping[str, Sequence[str]] | None = None) -> list[RelatedRow]:
    """Rows for records in dataset order (`keys`: theirs, if known), with their `related` lists: from
    `lists` by id when given (as stored: a publish fills them in its encoders), else from the records."""
    keys = keys if keys is not None else [RelatedKey.of(r) for r in records]
    related = [lists.get(r["id"]) for r in records] if lists is not None else \
        [r["errdex"].get("related") for r in records]
    return [RelatedRow(r["id"], tuple(ids or ()), tuple(k)) for r, ids, k in zip(records, related, keys)]


_SEP = "\x1f"


def pack_related(rows: list[RelatedRow]) -> bytes:
    """Each row as one tuple of strings: sets and nested tuples by the ten thousand pickle several times slower."""
    return dumps([(r.id, _SEP.join(r.related), k[1] or "", k[2] or "", _SEP.join(k[3]), k[4] or "",
                   " ".join(sorted(k[5]))) for r in rows for k in (r.key,)])


def unpack_related(blob: bytes) -> list[RelatedRow]:
    out = []
    for rid, related, module, function, guards, cls, words in loads(blob):
        key = (rid, module or None, function or None, tuple(guards.split(_SEP)) if guards else (), cls or None,
               frozenset(words.split()) if words else frozenset())
        out.append(RelatedRow(rid, tuple(related.split(_SEP)) if related else (), key))
    return out


def pack_examined(qualnames: Iterable[str]) -> bytes:
    """The callers whose calls a full index read for the arguments they pass (`analyze.reach`)."""
    return zlib.compress("\n".join(sorted(qualnames)).encode())


def unpack_examined(blob: bytes) -> set[str] | None:
    """`pack_examined`'s names; None for a part that does not decode (nothing can be told from it)."""
    try:
        return set(zlib.decompress(blob).decode().split("\n"))
    except (zlib.error, UnicodeDecodeError):
        return None


def pack_ways(ways: Mapping[str, str]) -> bytes:
    """Each callee name that runs a raising function, with that function (`analyze.raisers`)."""
    return zlib.compress("\n".join(f"{name}\t{callee}" for name, callee in sorted(ways.items())).encode())


def unpack_ways(blob: bytes) -> dict[str, str] | None:
    """`pack_ways`'s table; None for a part that does not decode."""
    try:
        text = zlib.decompress(blob).decode()
    except (zlib.error, UnicodeDecodeError):
        return None
    return dict(line.split("\t", 1) for line in text.split("\n") if "\t" in line)


def dumps(part: object) -> bytes:
    return zlib.compress(pickle.dumps(part, pickle.HIGHEST_PROTOCOL), 1)


def loads(blob: bytes) -> object:
    return pickle.loads(zlib.decompress(blob))
