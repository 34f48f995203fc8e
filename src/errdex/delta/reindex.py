"""Re-index a published dataset by redoing only the files whose content changed.

`index_tree` tries this first. It applies when the same (repo, version) was
indexed before in the same mode from the same file list, few files changed,
and each changed file kept its link surface (`state.surface_digest`): then no
other file's facts change. The changed files are extracted again; their
sites are linked through name tables loaded lazily from the per-file cache
(`lazy`); callers and entry points come from their previous records (a
function's callers cannot change while every file keeps its calls); ids go
through identity linking against their previous records. When the changed
files' records keep their ids, order and ranking keys, no other record
changes; otherwise slugs are checked over the whole dataset and `related`
is ranked again for the records a change can reach, and the records whose
list changed are rewritten. Anything else returns None and the full path runs
(still reusing every unchanged file's facts from the per-file cache).

Files are compared by size and mtime first, content hash second, as git does.
"""

from __future__ import annotations

import os
import pickle
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from errdex.analyze.related import RelatedIndex, RelatedKey
from errdex.analyze.reuse import ReusingAnalyzer
from errdex.delta.lazy import FactsLoader, MissingFacts
from errdex.delta.state import (
    STATE_VERSION,
    FileEntry,
    Manifest,
    RelatedRow,
    dumps,
    file_stat,
    loads,
    pack_examined,
    pack_ways,
    pack_related,
    related_rows,
    source_path,
    surface_digest,
    tree_fingerprint,
    unpack_examined,
    unpack_ways,
    unpack_related,
)
from errdex.extract.files import cache_key, extract_file_lines
from errdex.extract.link import helper_sites, inline_imported_constants, link_factories
from errdex.extract.wire import pack_facts
from errdex.models import (
    EXTRACTOR_VERSION,
    DatasetInfo,
    ErrorSite,
    FileFacts,
    SourceTree,
)
from errdex.records import build_records, fill_window, record_path, slug_of
from errdex.versions.identity import link_identities

#: At most this share of the files (and at least `MIN_CHANGED` files) may change for a delta.
MAX_CHANGED_SHARE = 0.02
MIN_CHANGED = 8


class NeedFull(Exception):
    """Something the delta cannot redo alone: the caller runs the full index."""


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
    files, changed = _compare(str(tree.root), tree, manifest, analysis)
    if len(changed) > max(MIN_CHANGED, int(len(tree.files) * MAX_CHANGED_SHARE)):
        return None
    if not changed:
        if files != manifest.files:
            store.save_state(info.id, {"manifest": dumps(replace(manifest, files=files))}, replace=False)
        return Delta(info, [], info.record_count)
    try:
        return _apply(tree, store, info, manifest, files, changed, analysis, analyzed_at)
    except (NeedFull, MissingFacts):
        return None


def _apply(tree: SourceTree, store, info: DatasetInfo, manifest: Manifest, files: dict[str, FileEntry],
           changed: list[str], analysis: bool, analyzed_at: str) -> Delta:
    old_loader = FactsLoader(store, manifest)
    facts = _changed_facts(store, tree, old_loader, files, changed, analysis)
    examined = _check_examined(store, info, facts) if analysis else None
    loader = FactsLoader(store, manifest, {rel: f for rel, (f, _) in facts.items()})
    records, windows = _changed_records(tree, store, facts, {rel: files[rel].key for rel in changed}, loader,
                                        analyzed_at, analysis)
    paths = {record_path(tree, rel) for rel in changed}
    old = sorted(store.stored_records(info.id, file_paths=sorted(paths)),
                 key=lambda r: (source_path(tree, r["filePath"]), r["lineNumber"], r["errorMessage"]))
    built = {r["id"]: r["id"] for r in records}
    all_ids = store.record_ids(info.id)
    links = link_identities(records, [r for r in old if r["id"] not in built], all_ids)
    hash_ids = {link.old_id: link.new_id for link in links}
    if analysis:
        _fill_analysis(records, old, loader, _ways(store, info),
                       {c for f, _ in facts.values() for fn in f.functions for c in fn.calls},
                       _checked_targets(store, info))
    state = {"manifest": dumps(replace(manifest, files=files))}
    if examined is not None:   # what the full index read is read again by nothing here: kept as it is
        state["examined"] = examined
    patched: list[dict] = []
    if _same_places(records, old, analysis):
        _keep_dataset_fields(records, old, analysis)
    else:
        places = store.record_places(info.id)
        _check_slugs(places, tree, records, old, hash_ids, paths)
        if analysis:
            rows, patches = _rank_again(store, info, places, tree, records, paths)
            patched = _patched(store, info.id, patches)
            state["related"] = pack_related(rows)
    diagnostics = [f.diagnostic for f, _ in facts.values() if f.diagnostic is not None]
    info = store.apply_delta(info.id, drop_ids=[r["id"] for r in old] + [r["id"] for r in patched],
                             records=records + patched, packed_windows=windows, diagnostic_files=changed,
                             diagnostics=diagnostics, analyzed_at=analyzed_at, state=state)
    return Delta(info, changed, info.record_count)


def _manifest(store, info: DatasetInfo | None, tree: SourceTree, analysis: bool) -> Manifest | None:
    """The dataset's manifest when a delta can apply to it at all."""
    if info is None:
        return None
    blob = store.load_state(info.id, "manifest")
    manifest = _decoded_manifest(blob) if blob is not None else None
    if (manifest is None or manifest.state_version != STATE_VERSION
            or manifest.extractor_version != EXTRACTOR_VERSION or manifest.analysis != analysis
            or manifest.tree != tree_fingerprint(tree) or len(manifest.files) != len(tree.files)
            or any(rel not in manifest.files for rel in tree.files)):
        return None
    return manifest


def _compare(root: str, tree: SourceTree, manifest: Manifest, analysis: bool
             ) -> tuple[dict[str, FileEntry], list[str]]:
    """Every file's entry now, and the files whose content changed."""
    files: dict[str, FileEntry] = {}
    changed: list[str] = []
    for rel in tree.files:
        entry = manifest.files[rel]
        stat = file_stat(root, rel)
        if stat == (entry.size, entry.mtime_ns):
            files[rel] = entry
            continue
        try:
            with open(os.path.join(root, rel), "rb") as fh:
                data = fh.read()
        except OSError:
            data = b""
        size, mtime = stat or (-1, -1)
        files[rel] = FileEntry(cache_key(rel, entry.module, data, analysis), size, mtime, entry.module)
        if files[rel].key != entry.key:
            changed.append(rel)
    return files, changed


def _changed_facts(store, tree: SourceTree, old: FactsLoader, files: dict[str, FileEntry], changed: list[str],
                   analysis: bool) -> dict[str, tuple[FileFacts, list[str]]]:
    """New facts (and lines) of the changed files, each with its link surface kept; cached like the workers'."""
    from errdex.pipeline import _site_analyzer

    analyze = _site_analyzer() if analysis else None
    out: dict[str, tuple[FileFacts, list[str]]] = {}
    fresh: dict[str, bytes] = {}
    for rel in changed:
        before = old.facts(rel)
        reusing = ReusingAnalyzer(analyze, before.sites) if analyze is not None else None
        facts, lines = extract_file_lines(str(tree.root), rel, files[rel].module, analyze=reusing, calls=analysis)
        if surface_digest(facts) != surface_digest(before):
            raise NeedFull(f"{rel} changed what it offers other files")
        out[rel] = (facts, lines)
        fresh[files[rel].key] = pack_facts(facts)
    store.put_cached_facts(fresh)
    return out


def _check_examined(store, info: DatasetInfo, facts: dict[str, tuple[FileFacts, list[str]]]) -> bytes | None:
    """The dataset's `examined` part, after checking that no changed function is one of those callers:
    one whose calls were read for the arguments they pass (`analyze.reach`) may now reach, or no
    longer reach, a site in another file, which takes the whole dataset (so does a part that does
    not decode)."""
    blob = store.load_state(info.id, "examined")
    if blob is None:
        return None
    examined = unpack_examined(blob)
    if examined is None:
        raise NeedFull("the callers read for their arguments are not known")
    for f, _ in facts.values():
        for fn in f.functions:
            if fn.qualname in examined:
                raise NeedFull(f"{fn.qualname} passes arguments a site elsewhere needs")
    return blob


def _changed_records(tree: SourceTree, store, facts: dict[str, tuple[FileFacts, list[str]]], keys: dict[str, str],
                     loader: FactsLoader, analyzed_at: str, analysis: bool) -> tuple[list[dict], dict]:
    """The changed files' records, linked through the lazily loaded name tables (ids as built)."""
    from errdex.pipeline import _analyze_helper_calls, _cut_windows

    file_facts = [f for f, _ in facts.values()]
    inline_imported_constants(loader.cb, file_facts)
    link_factories(loader.cb, file_facts)
    sites: list[ErrorSite] = [s for f in file_facts for s in f.sites]
    through = helper_sites(loader.cb, [c for f in file_facts for c in f.helper_calls])
    if through and analysis:
        from errdex.analyze.helper_guard import note_earlier_checks

        _analyze_helper_calls(tree, file_facts, through, store, keys, loader.cb)
        note_earlier_checks([*sites, *through], through)   # a function's calls all sit in its file
    sites.extend(through)
    windows = {}
    for f, lines in facts.values():
        cut = _cut_windows(f, lines)
        for s in (x for x in sites if x.file_path == f.file_path):
            fill_window(s, lines)
            if s.line in cut:
                windows[s.source_code] = cut[s.line][3:]
    classes = {s.class_ref: loader.cb.class_info(s.class_ref) for s in sites if s.class_ref}
    modules = {f.file_path: f.module for f in file_facts}
    return build_records(tree, sites, classes, modules, analyzed_at), windows


class _NoGraph:
    """Callers come from the previous records; a function that had none needs the whole call graph."""

    def callers(self, qualname: str, *_args, **_kwargs) -> list[str]:
        raise NeedFull(f"no previous record in {qualname}")

    entry_points = climb = callers


class _AnyClass(dict):
    """Reach by `reach_key`; a class the function did not raise before takes the reach of its
    (function, test, arguments needed) when that met no handler on the way up; other arguments
    needed take the reach of a function no call reaches at all (no caller to leave out)."""

    def get(self, key, default=None):
        found = super().get(key)
        if found is None:
            found = super().get(key[:3])
        return found if found is not None else super().get(("callerless", *key[:2]), default)


def _checked_targets(store, info: DatasetInfo) -> frozenset[str]:
    """The dataset's `checked` part: the functions some caller calls after a check (`Checked.targets`;
    each file's surface holds what decides it, and none changed)."""
    blob = store.load_state(info.id, "checked")
    found = unpack_examined(blob) if blob is not None else None
    if found is None:
        raise NeedFull("the callers' checks are not known")
    return frozenset(found) - {""}


def _ways(store, info: DatasetInfo) -> dict[str, str]:
    """The dataset's `ways` part: the callee names that run a raising function, of all the dataset's
    names, resolved when it was indexed whole (what resolves them, and which functions raise, is
    each file's surface: it has not changed)."""
    blob = store.load_state(info.id, "ways")
    ways = unpack_ways(blob) if blob is not None else None
    if ways is None:
        raise NeedFull("the calls on the way to sites are not resolved")
    return ways


def _fill_analysis(records: list[dict], old: list[dict], loader: FactsLoader, ways: dict[str, str],
                   called: set[str], targets: frozenset[str]) -> None:
    """The dataset-analysis fields but `related`; callers and entry points from the function's previous
    records. `called`: the changed files' callee names (the same as before: they are their surface),
    which `ways` covers; a call on the way to a site among none of them takes the full path."""
    from errdex.analyze.dataset import BY_HANDLERS, CallFacts, fill_record, reach_key, site_qualname
    from errdex.analyze.raisers import Unresolved

    reach: dict[tuple, tuple] = {}
    for r in old:
        key, ex = reach_key(r, site_qualname(r), loader.params, targets), r["errdex"]
        found = reach[key] = (ex["callers"], ex["entryPoints"], ex["provenance"].get("entryPoints", "fact"),
                              ex.get("unreachedFrom") or [], ex.get("checkedBy") or [])
        if found[2] != BY_HANDLERS:   # met no handler on the way up: the same for any class
            reach.setdefault(key[:3], found)
            if not found[0] and not found[3] and not found[4]:   # no caller at all: the same for any arguments needed
                reach.setdefault(("callerless", *key[:2]), found)
    reach = _AnyClass(reach)
    calls = CallFacts(_NoGraph(), loader.method_of, loader.setters, loader.cb, loader.bindings,  # type: ignore[arg-type]
                      ways, called, loader.params, targets)
    try:
        for r in records:
            fill_record(r, calls, reach)
    except Unresolved as exc:
        raise NeedFull(f"a new call on the way to a site: {exc}") from None


def _places(records: list[dict], analysis: bool) -> list[tuple]:
    return [(r["id"], slug_of(r["errorMessage"]), RelatedKey.of(r) if analysis else None) for r in records]


def _same_places(records: list[dict], old: list[dict], analysis: bool) -> bool:
    """Same ids in the same order with the same slug words and ranking keys: nothing outside these files moves."""
    return _places(records, analysis) == _places(old, analysis)


def _keep_dataset_fields(records: list[dict], old: list[dict], analysis: bool) -> None:
    from errdex.analyze.dataset import set_related

    for new, before in zip(records, old):
        new["slug"] = before["slug"]
        if analysis:
            set_related(new, list(before["errdex"].get("related") or []))


def _check_slugs(places: list[tuple], tree: SourceTree, records: list[dict], old: list[dict],
                 hash_ids: dict[str, str], paths: set[str]) -> None:
    """Give the new records their slugs in dataset order; a change to another record's slug needs the full path.

    Only records sharing slug words with a new or previous record of the changed files can be affected:
    a stored slug is its words, or its words and a dash and 6 hex.
    """
    bases = {slug_of(r["errorMessage"]) for r in records} | {slug_of(r["errorMessage"]) for r in old}
    kept = [(source_path(tree, path), line, message, rid, slug, None)
            for rid, slug, path, line, message in places
            if path not in paths and (slug in bases or slug[:-7] in bases)]
    fresh = [(source_path(tree, r["filePath"]), r["lineNumber"], r["errorMessage"], r["id"], None, r)
             for r in records]
    seen: set[str] = set()
    for _, _, message, rid, slug, record in sorted(kept + fresh, key=lambda t: t[:3]):
        base = slug_of(message)
        want = base if base not in seen else f"{base}-{hash_ids.get(rid, rid)[:6]}"
        seen.add(want)
        if record is not None:
            record["slug"] = want
        elif want != slug:
            raise NeedFull("another record's slug changes")


def _rank_again(store, info: DatasetInfo, places: list[tuple], tree: SourceTree, records: list[dict],
                paths: set[str]) -> tuple[list[RelatedRow], dict[str, dict]]:
    """Splice the new records into the ranking rows; rank again every record the change can reach.

    Reachable: the new records, every record of their modules (the function, guard and class tiers
    never leave a module), records whose list names a changed file's record, and records sharing a
    probe-able word with a new or removed one (the similarity tier). Ties are broken without
    distances across modules, so shifting positions elsewhere reorders nothing.

    Returns the new rows and {id: {"related": [...]}} for other files' records whose list changed.
    """
    from errdex.analyze.dataset import set_related

    blob = store.load_state(info.id, "related")
    if blob is None:
        raise NeedFull("no related state")
    rows = unpack_related(blob)
    file_of = {rid: path for rid, _, path, _, _ in places}
    place = {rid: (source_path(tree, path), line, message) for rid, _, path, line, message in places}
    by_id = {r["id"]: r for r in records}
    kept = [row for row in rows if file_of.get(row.id) not in paths]
    fresh = related_rows(records)   # their lists are still empty: ranked below
    for r in records:
        place[r["id"]] = (source_path(tree, r["filePath"]), r["lineNumber"], r["errorMessage"])
    spliced = sorted(kept + fresh, key=lambda row: place[row.id])
    make = RelatedKey._make
    keys = [make(row.key) for row in spliced]
    index = RelatedIndex(keys)
    new_ids = set(by_id)
    before = {row.id for row in rows if file_of.get(row.id) in paths}   # the changed files' previous records
    modules = {k.module for k, row in zip(keys, spliced) if row.id in new_ids}
    modules |= {make(row.key).module for row in rows if row.id in before}
    touched = {i for i, (k, row) in enumerate(zip(keys, spliced))
               if row.id in new_ids or k.module in modules or not before.isdisjoint(row.related)
               or not new_ids.isdisjoint(row.related)}
    for i, row in enumerate(spliced):
        if row.id in new_ids:
            touched.update(index.sharing_words(i))
    if before - new_ids:
        # Records gone: those sharing their words, as ranked before (the index of the previous rows).
        old_index = RelatedIndex([make(row.key) for row in rows])
        ids = [row.id for row in spliced]
        where = {rid: i for i, rid in enumerate(ids)}
        for k, row in enumerate(rows):
            if row.id in before - new_ids:
                touched.update(where[rows[j].id] for j in old_index.sharing_words(k) if rows[j].id in where)
    patches: dict[str, dict] = {}
    for i in sorted(touched):
        row = spliced[i]
        related = index.related(i)
        if row.id in new_ids:
            set_related(by_id[row.id], related)
        elif tuple(related) != row.related:
            patches[row.id] = {"related": related}
        spliced[i] = row._replace(related=tuple(related))
    return spliced, patches


def _patched(store, dataset_id: int, patches: dict[str, dict]) -> list[dict]:
    """Stored records of other files with their new related list."""
    if not patches:
        return []
    out = store.stored_records(dataset_id, record_ids=sorted(patches))
    for record in out:
        record["errdex"]["related"] = patches[record["id"]]["related"]
    return out


def full_state(tree: SourceTree, stats: dict[str, tuple[int, int] | None], keys: dict[str, str],
               modules: dict[str, str], records: list[dict], analysis: bool,
               related_keys: list[RelatedKey] | None = None,
               related_lists: Mapping[str, Sequence[str]] | None = None,
               examined: Iterable[str] = (), ways: Mapping[str, str] | None = None,
               checked: Iterable[str] = ()) -> dict[str, bytes]:
    """The state a full index leaves for the next re-index, as stored parts (`related_keys`: the records',
    if known; `related_lists`: their `related` ids by record id, as stored, else read from the records;
    `examined`: the callers whose calls were read for the arguments they pass; `ways`: the callees
    on the way to sites, resolved, `analyze.raisers`; `checked`: the functions some caller calls
    after a check, `analyze.dataset.Checked.targets`)."""
    files = {rel: FileEntry(keys[rel], *(stats.get(rel) or (-1, -1)), modules[rel]) for rel in tree.files}
    parts = {"manifest": dumps(Manifest(analysis, tree_fingerprint(tree), files))}
    if analysis:
        parts["related"] = pack_related(related_rows(records, related_keys, related_lists))
        parts["examined"] = pack_examined(examined)
        parts["ways"] = pack_ways(ways or {})
        parts["checked"] = pack_examined(checked)
    return parts


def prune_cache(store, repo: str, keys: Iterable[str]) -> int:
    """Keep the per-file cache to this run's files and those of each other repo's latest dataset.

    Called once a full run has read what it needs from the cache: the next version, or a re-index,
    finds every file of this one; an older version indexed again is parsed again. Without it the
    cache grows by every file version ever indexed (it was the largest table of a many-version index).
    """
    keep = set(keys)
    for _, other, blob in store.state_parts("manifest"):
        manifest = _decoded_manifest(blob) if other != repo else None
        if manifest is not None:
            keep.update(entry.key for entry in manifest.files.values())
    return store.prune_file_cache(keep)


def earlier_keys(store, repo: str) -> dict[str, str]:
    """Path -> cache key of the files of the repo's latest analysed dataset, when this build wrote it:
    a changed file's earlier facts, still in the cache until `prune_cache`, lend it the analysis of
    its unchanged functions (`analyze.reuse`)."""
    latest: tuple[int, bytes] | None = None
    for dataset_id, other, blob in store.state_parts("manifest"):
        if other == repo and (latest is None or dataset_id > latest[0]):
            latest = (dataset_id, blob)
    manifest = _decoded_manifest(latest[1]) if latest is not None else None
    if manifest is None or not manifest.analysis or manifest.extractor_version != EXTRACTOR_VERSION:
        return {}
    return {rel: entry.key for rel, entry in manifest.files.items()}


def _decoded_manifest(blob: bytes) -> Manifest | None:
    """A stored manifest, or None for a part that no longer decodes as one (damaged, or an older layout)."""
    try:
        manifest = loads(blob)
    except (pickle.UnpicklingError, zlib.error, AttributeError, EOFError, TypeError, ValueError):
        return None
    return manifest if isinstance(manifest, Manifest) else None


def stat_files(tree: SourceTree) -> dict[str, tuple[int, int] | None]:
    """(size, mtime) of every file, taken before reading them: a file that changes later differs from it."""
    root = str(tree.root)
    return {rel: file_stat(root, rel) for rel in tree.files}
