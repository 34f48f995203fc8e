"""Re-index a published dataset by redoing only the files whose content changed.

`index_tree` tries this first. It applies when the same (repo, version) was
indexed before in the same mode, the file list is the same, few files
changed, and each changed file kept its link surface (`state.surface_digest`):
then no other file's facts change, so only the changed files' records are
rebuilt (extraction, per-site analysis, links through the kept `Codebase`,
callers through the kept call graph, identity against their previous
records), and the dataset-wide fields of other records (a slug's uniqueness
suffix, `related`) are recomputed from small per-record rows and patched
where they differ. Anything else returns None and the full path runs (still
reusing every unchanged file's facts from the per-file cache).

Files are compared by size and mtime first, content hash second, as git does.
"""

from __future__ import annotations

import os
import pickle
import zlib
from dataclasses import dataclass, replace

from errdex.analyze.related import RelatedIndex, RelatedKey
from errdex.delta.state import (STATE_VERSION, Manifest, RecordRow, dumps, file_stat, loads, pack_rows,
                                record_rows, surface_digest, tree_fingerprint, unpack_rows)
from errdex.extract.files import cache_key, extract_file_lines
from errdex.extract.link import Codebase, helper_sites
from errdex.extract.scope import module_name
from errdex.models import EXTRACTOR_VERSION, DatasetInfo, ErrorSite, FileFacts, SourceTree
from errdex.records import build_records, fill_window, record_path
from errdex.versions.identity import link_identities

#: At most this share of the files (and at least `MIN_CHANGED` files) may change for a delta.
MAX_CHANGED_SHARE = 0.02
MIN_CHANGED = 8


@dataclass(slots=True)
class Delta:
    """What a delta re-index did (the pipeline turns it into its report)."""

    dataset: DatasetInfo
    changed: list[str]
    records: int


def reindex(tree: SourceTree, store, analysis: bool, analyzed_at: str) -> Delta | None:
    """Apply the changes of `tree` to its published dataset in place, or None when a full index is needed."""
    info = next((d for d in store.datasets() if d.repo == tree.repo and d.version == tree.version), None)
    manifest = _manifest(store, info, tree, analysis)
    if info is None or manifest is None:
        return None
    root = str(tree.root)
    files, changed = _compare(root, tree, manifest, analysis)
    if len(changed) > max(MIN_CHANGED, int(len(tree.files) * MAX_CHANGED_SHARE)):
        return None
    if not changed:
        if files != manifest.files:
            store.save_state(info.id, {"manifest": dumps(replace(manifest, files=files))}, replace=False)
        return Delta(info, [], info.record_count)
    facts = _changed_facts(store, root, tree, manifest, files, changed, analysis)
    if facts is None:
        return None
    parts = _load_parts(store, info.id, analysis)
    if parts is None:
        return None
    cb, calls, rows = parts
    records, windows = _changed_records(tree, store, facts, {rel: files[rel][0] for rel in changed}, cb,
                                        analyzed_at, analysis)
    paths = {record_path(tree, rel) for rel in changed}
    old = store.stored_records(info.id, file_paths=sorted(paths))
    hash_ids = {r["id"]: r["id"] for r in records}
    links = link_identities(records, [r for r in old if r["id"] not in hash_ids], {row.id for row in rows})
    hash_ids.update({link.old_id: link.new_id for link in links})
    if calls is not None:
        from errdex.analyze.dataset import fill_record
        reach: dict = {}
        for r in records:
            fill_record(r, calls, reach)
    new_rows, patches = _dataset_fields(tree, rows, records, hash_ids, paths, analysis)
    patched = _patched(store, info.id, patches)
    drop = [r["id"] for r in old] + [r["id"] for r in patched]
    manifest = replace(manifest, files=files)
    diagnostics = [f.diagnostic for f, _ in facts.values() if f.diagnostic is not None]
    info = store.apply_delta(info.id, drop_ids=drop, records=records + patched, packed_windows=windows,
                             diagnostic_files=changed, diagnostics=diagnostics, analyzed_at=analyzed_at,
                             state={"manifest": dumps(manifest), "rows": pack_rows(new_rows)})
    return Delta(info, changed, info.record_count)


def _manifest(store, info: DatasetInfo | None, tree: SourceTree, analysis: bool) -> Manifest | None:
    """The dataset's manifest when a delta can apply to it at all."""
    if info is None:
        return None
    blob = store.load_state(info.id, "manifest")
    if blob is None:
        return None
    try:
        manifest = loads(blob)
    except (pickle.UnpicklingError, zlib.error, AttributeError, EOFError, TypeError):
        return None
    if (not isinstance(manifest, Manifest) or manifest.state_version != STATE_VERSION
            or manifest.extractor_version != EXTRACTOR_VERSION or manifest.analysis != analysis
            or manifest.tree != tree_fingerprint(tree) or len(manifest.files) != len(tree.files)
            or any(rel not in manifest.files for rel in tree.files)):
        return None
    return manifest


def _compare(root: str, tree: SourceTree, manifest: Manifest, analysis: bool
             ) -> tuple[dict[str, tuple[str, int, int]], list[str]]:
    """Every file's (key, size, mtime) now, and the files whose content changed."""
    files: dict[str, tuple[str, int, int]] = {}
    changed: list[str] = []
    modules = _Modules(tree)
    for rel in tree.files:
        key, size, mtime = manifest.files[rel]
        stat = file_stat(root, rel)
        if stat == (size, mtime):
            files[rel] = (key, size, mtime)
            continue
        try:
            data = open(os.path.join(root, rel), "rb").read()
        except OSError:
            data = b""
        now = cache_key(rel, modules[rel], data, analysis)
        files[rel] = (now, *(stat or (-1, -1)))
        if now != key:
            changed.append(rel)
    return files, changed


class _Modules(dict):
    """Dotted module names, worked out for the files asked for only."""

    def __init__(self, tree: SourceTree) -> None:
        super().__init__()
        self.tree = tree
        self.pkg_dirs: frozenset[str] | None = None

    def __missing__(self, rel: str) -> str:
        if self.pkg_dirs is None:
            self.pkg_dirs = frozenset(f.rsplit("/", 1)[0] if "/" in f else ""
                                      for f in self.tree.files if f.endswith("__init__.py"))
        name = self[rel] = module_name(rel, self.pkg_dirs)
        return name


def _changed_facts(store, root: str, tree: SourceTree, manifest: Manifest, files: dict, changed: list[str],
                   analysis: bool) -> dict[str, tuple[FileFacts, list[str]]] | None:
    """New facts (and lines) of the changed files, when each kept its link surface; cached like the workers'."""
    from errdex.pipeline import _site_analyzer

    modules = _Modules(tree)
    analyze = _site_analyzer() if analysis else None
    out: dict[str, tuple[FileFacts, list[str]]] = {}
    fresh: dict[str, bytes] = {}
    for rel in changed:
        facts, lines = extract_file_lines(root, rel, modules[rel], analyze=analyze, calls=analysis)
        if surface_digest(facts) != manifest.surfaces.get(rel):
            return None
        out[rel] = (facts, lines)
        fresh[files[rel][0]] = zlib.compress(pickle.dumps(facts, pickle.HIGHEST_PROTOCOL), 1)
    store.put_cached_facts(fresh)
    return out


def _load_parts(store, dataset_id: int, analysis: bool) -> tuple[Codebase, object, list[RecordRow]] | None:
    blobs = {name: store.load_state(dataset_id, name) for name in ("codebase", "calls", "rows")}
    if blobs["codebase"] is None or blobs["rows"] is None or (analysis and blobs["calls"] is None):
        return None
    calls = loads(blobs["calls"]) if analysis else None
    return loads(blobs["codebase"]), calls, unpack_rows(blobs["rows"])


def _changed_records(tree: SourceTree, store, facts: dict[str, tuple[FileFacts, list[str]]], keys: dict[str, str],
                     cb: Codebase, analyzed_at: str, analysis: bool) -> tuple[list[dict], dict]:
    """The changed files' records, linked through the kept Codebase (ids as built, before identity)."""
    from errdex.pipeline import _analyze_helper_calls, _pack_windows

    file_facts = [f for f, _ in facts.values()]
    sites: list[ErrorSite] = [s for f in file_facts for s in f.sites]
    through = helper_sites(cb, [c for f in file_facts for c in f.helper_calls])
    if through and analysis:
        _analyze_helper_calls(tree, file_facts, through, store, keys)
    sites.extend(through)
    windows = {}
    for f, lines in facts.values():
        packed = _pack_windows(f, lines)
        for s in (x for x in sites if x.file_path == f.file_path):
            fill_window(s, lines)
            if s.line in packed:
                windows[s.source_code] = packed[s.line]
    classes = {s.class_ref: cb.class_info(s.class_ref) for s in sites if s.class_ref}
    modules = {f.file_path: f.module for f in file_facts}
    return build_records(tree, sites, classes, modules, analyzed_at), windows


def _dataset_fields(tree: SourceTree, rows: list[RecordRow], records: list[dict], hash_ids: dict[str, str],
                    paths: set[str], analysis: bool) -> tuple[list[RecordRow], dict[str, dict]]:
    """Splice the new records into the rows; recompute slugs and related; {id: {field: value}} for other records."""
    kept = [r for r in rows if r.file_path not in paths]
    fresh = record_rows(records, tree, hash_ids)
    spliced = sorted(kept + fresh, key=RecordRow.order)
    new_ids = {r.id for r in fresh}
    by_id = {r["id"]: r for r in records}
    patches: dict[str, dict] = {}
    seen: set[str] = set()
    for i, row in enumerate(spliced):
        slug = row.base_slug if row.base_slug not in seen else f"{row.base_slug}-{row.hash_id[:6]}"
        seen.add(slug)
        if slug != row.slug:
            spliced[i] = row._replace(slug=slug)
            if row.id in new_ids:
                by_id[row.id]["slug"] = slug
            else:
                patches.setdefault(row.id, {})["slug"] = slug
    if analysis:
        _related(spliced, rows, new_ids, by_id, patches)
    return spliced, patches


def _related(spliced: list[RecordRow], rows: list[RecordRow], new_ids: set[str], by_id: dict[str, dict],
             patches: dict[str, dict]) -> None:
    """Rank again the records a change can reach: new ones, their modules', those pointing at gone or similar ones."""
    from errdex.analyze.dataset import set_related

    for i, row in enumerate(spliced):
        if row.id in new_ids:
            spliced[i] = row._replace(key=tuple(RelatedKey.of(by_id[row.id])))
    if any(row.key is None for row in spliced):
        return
    make = RelatedKey._make
    keys = [make(row.key) for row in spliced]
    index = RelatedIndex(keys)
    gone = {r.id for r in rows} - {r.id for r in spliced}
    modules = {k.module for k, row in zip(keys, spliced) if row.id in new_ids}
    modules |= {make(r.key).module for r in rows if r.id in gone and r.key is not None}
    touched = {i for i, (k, row) in enumerate(zip(keys, spliced))
               if row.id in new_ids or k.module in modules or gone.intersection(row.related)}
    for i, row in enumerate(spliced):
        if row.id in new_ids:
            touched.update(index.similar_records(i))
    for i in sorted(touched):
        row = spliced[i]
        related = index.related(i)
        if row.id in new_ids:
            set_related(by_id[row.id], related)
        elif tuple(related) != row.related:
            patches.setdefault(row.id, {})["related"] = related
        spliced[i] = row._replace(related=tuple(related))


def _patched(store, dataset_id: int, patches: dict[str, dict]) -> list[dict]:
    """Stored records of other files with their new slug or related list."""
    if not patches:
        return []
    out = store.stored_records(dataset_id, record_ids=sorted(patches))
    for record in out:
        change = patches[record["id"]]
        if "slug" in change:
            record["slug"] = change["slug"]
        if "related" in change:
            record["errdex"]["related"] = change["related"]
    return out


def full_state(tree: SourceTree, stats: dict[str, tuple[int, int] | None], keys: dict[str, str],
               facts: list[FileFacts], cb: Codebase, calls: object, records: list[dict],
               hash_ids: dict[str, str], analysis: bool) -> dict[str, bytes]:
    """The state a full index leaves for the next re-index, as stored parts."""
    files = {rel: (keys[rel], *(stats.get(rel) or (-1, -1))) for rel in tree.files}
    manifest = Manifest(analysis, tree_fingerprint(tree), files, {f.file_path: surface_digest(f) for f in facts})
    parts = {"manifest": dumps(manifest), "codebase": dumps(cb), "rows": pack_rows(record_rows(records, tree, hash_ids))}
    if calls is not None:
        parts["calls"] = dumps(calls)
    return parts


def stat_files(tree: SourceTree) -> dict[str, tuple[int, int] | None]:
    """(size, mtime) of every file, taken before reading them: a file that changes later differs from it."""
    root = str(tree.root)
    return {rel: file_stat(root, rel) for rel in tree.files}

