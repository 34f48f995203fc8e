"""`errdex index`: source -> extract (in worker processes) -> link -> analyze -> records -> store.

The main process reads and hashes every file (the per-file cache key), hands
the files the cache does not know to a process pool, links the results across
files, builds the records and publishes them in one transaction. Results are
sorted before linking, so the dataset is identical whatever `jobs` is.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import pickle
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from errdex.analyze.reuse import ReusingAnalyzer
from errdex.collector import collector_paused
from errdex.delta.reindex import earlier_keys, full_state, prune_cache, reindex, stat_files
from errdex.extract.files import (
    cache_key,
    decode_source,
    extract_file,
    extract_file_lines,
    key_of,
)
from errdex.extract.link import Codebase, helper_sites, inline_imported_constants, link_factories
from errdex.extract.scope import module_name
from errdex.extract.wire import cached_facts_or_none, pack_facts, unpack_facts
from errdex.models import (
    DatasetInfo,
    DatasetMeta,
    Diagnostic,
    ErrorSite,
    FileFacts,
    SourceTree,
)
from errdex.records import build_records, fill_window, url_base, window_of
from errdex.store.codec import deflate, inflate
from errdex.store.aside import Build, build_aside
from errdex.store.windows import STORED, pack_window
from errdex.versions.identity import link_to_previous

#: progress(stage, done, total): the CLI draws it; the library never prints.
ProgressFn = Callable[[str, int, int], None]
_BATCH = 24  # files per worker task: large enough to amortise pickling, small enough to balance
_READ_GROUP = 4 * _BATCH  # files read and looked up in the cache between checks for finished batches
#: Per-file windows cut by the workers: {site line: (start, end, text, sha256 digest, stored bytes)}.
Windows = dict[int, tuple[int, int, str, bytes, bytes]]


@dataclass(slots=True)
class IndexReport:
    """What one `errdex index` run did."""

    dataset: DatasetInfo
    files: int
    extracted: int                  # files parsed in this run (the rest came from the cache)
    records: int
    diagnostics: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0
    in_place: bool = False          # only the changed files' records were rebuilt (`errdex.delta`)


def index_source(spec: str, db_path: str | Path = "errdex.db", *, jobs: int | None = None,
                 repo: str | None = None, version: str | None = None, exclude: Sequence[str] = (),
                 progress: ProgressFn | None = None, message: Callable[[str], None] | None = None,
                 analysis: bool = True, full: bool = False, keep: list | None = None) -> IndexReport:
    """Index SOURCE into the SQLite file at `db_path` and publish it as one dataset.

    A dataset indexed before is updated in place when only a few files changed (`errdex.delta`).

    `analysis=False` skips trigger conditions and feeding values (the catalog alone);
    `full=True` rebuilds every record even when a delta could apply. `keep`: see `index_tree`.
    """
    from errdex.sources import resolve_source

    tree = resolve_source(spec, repo=repo, version=version, exclude=exclude, progress=message)
    return index_tree(tree, db_path, jobs=jobs, progress=progress, analysis=analysis, full=full, keep=keep)


def index_tree(tree: SourceTree, db_path: str | Path, *, jobs: int | None = None,
               progress: ProgressFn | None = None, analysis: bool = True, full: bool = False,
               keep: list | None = None) -> IndexReport:
    """`keep`: a list the run's large structures are appended to instead of freed on return, for a
    caller that exits right after (the CLI): freeing millions of objects costs a few percent of a run."""
    # The collector comes back only once the run's objects are gone, so it has nothing to catch up on.
    with collector_paused():
        return _index_tree(tree, db_path, jobs, progress, analysis, full, keep)


def _index_tree(tree: SourceTree, db_path: str | Path, jobs: int | None, progress: ProgressFn | None,
                analysis: bool, full: bool, keep: list | None = None) -> IndexReport:
    """A new index file is built aside and moved in whole (`store.aside`); an existing one is
    written in one journaled transaction."""
    db_path = Path(db_path)
    if not db_path.exists():
        report = build_aside(db_path, lambda work: _index_into(
            tree, work.private, jobs, progress, analysis, full, keep, aside=work))
        if report is not None:
            return report
    return _index_into(tree, db_path, jobs, progress, analysis, full, keep)


def _index_into(tree: SourceTree, db_path: Path, jobs: int | None, progress: ProgressFn | None,
                analysis: bool, full: bool, keep: list | None = None, aside: Build | None = None) -> IndexReport:
    """`aside`: the new file is being built aside (unjournaled); told when the publish starts."""
    from errdex.store import Store

    started = time.perf_counter()
    progress = progress or (lambda stage, done, total: None)
    with Store.open(db_path, unjournaled=aside is not None) as store:
        analyzed_at = _now()
        delta = None if full else reindex(tree, store, analysis, analyzed_at)
        if delta is not None:
            return IndexReport(delta.dataset, len(tree.files), len(delta.changed), delta.records,
                               store.diagnostics(delta.dataset.name), time.perf_counter() - started, True)
        stats = stat_files(tree)
        got = _extract_all(tree, store, jobs, progress, analysis)
        facts, keys = got.files, got.keys
        prune_cache(store, tree.repo, keys.values())   # before the publish, which reuses the freed pages
        sites, classes, cb = link(facts, tree, store, keys if analysis else None)
        by_text = got.fill_windows(sites, store)
        progress("records", 0, 1)
        modules = {f.file_path: f.module for f in facts}
        records = build_records(tree, sites, classes, modules, analyzed_at)
        # Identity first: `related` lists name records by their final ids.
        link_to_previous(store, tree.repo, tree.version, records)
        # The rest of each record's analysis is done where the publish encodes it (`finish`):
        # from here on `records` are complete only as stored.
        prepared = _prepare(records, facts, cb, str(tree.root)) if analysis else None
        progress("records", 1, 1)
        diagnostics = [f.diagnostic for f in facts if f.diagnostic is not None]
        diagnostics += [Diagnostic(path, reason, reason) for path, reason in tree.skipped]
        meta = DatasetMeta(tree.repo, tree.version, tree.kind, sha=tree.sha, dirty=tree.dirty,
                           analyzed_sha=tree.sha or tree.permalink_ref or tree.version,
                           url_base=url_base(tree), analyzed_at=analyzed_at, file_count=len(tree.files),
                           extra={"root": str(tree.root), "permalinkRef": tree.permalink_ref})
        progress("publish", 0, 1)
        if aside is not None:
            aside.unsafe_from_here()
        info = store.publish(meta, records, diagnostics, packed_windows=by_text,
                             finish=prepared.finish if prepared else None)
        store.save_state(info.id, full_state(tree, stats, keys, modules, records, analysis,
                                             prepared.keys if prepared else None,
                                             store.related_lists(info.id) if prepared else None,
                                             prepared.examined if prepared else (),
                                             prepared.calls.ways if prepared else None,
                                             prepared.calls.targets if prepared else ()))
        progress("publish", 1, 1)
        if keep is not None:
            keep.append((got, sites, records, by_text, cb))
    return IndexReport(info, len(tree.files), got.extracted, len(records), diagnostics,
                       time.perf_counter() - started)


def _extract_all(tree: SourceTree, store, jobs: int | None, progress: ProgressFn, analysis: bool) -> _Gathered:
    """Facts for every file: from the cache when the content is known, else from the workers.

    With anything in the cache, files are read and keyed here a group at a time (while
    the workers extract the misses of earlier groups). An empty cache (a new index file)
    can hold nothing: then this process reads no file, and the workers key what they read.
    """
    root = str(tree.root)
    pkg_dirs = frozenset(f.rsplit("/", 1)[0] if "/" in f else "" for f in tree.files if f.endswith("__init__.py"))
    cold = store.file_cache_size() == 0
    got = _Gathered(root, {f: module_name(f, pkg_dirs) for f in tree.files}, analysis, cold,
                    earlier=earlier_keys(store, tree.repo) if analysis and not cold else {})
    total = len(tree.files)
    groups = (got.read_group(tree.files[i:i + _READ_GROUP], store) for i in range(0, total, _READ_GROUP))
    fresh: dict[str, bytes] = {}
    for rel, key, blob, wblob in _run_workers(root, groups, jobs, analysis):
        got.extracted += 1
        fresh[key] = blob
        got.add(rel, key, unpack_facts(blob), wblob)
        if len(fresh) >= 200:
            store.put_cached_facts(fresh)
            fresh = {}
        progress("extract", len(got.facts), total)
    if fresh:
        store.put_cached_facts(fresh)
    progress("extract", len(got.facts), total)
    got.files = [got.facts[rel] for rel in tree.files]
    return got


@dataclass
class _Gathered:
    """Per file, what `_extract_all` has: cache key, facts, and what windows are cut from.

    A window comes from the worker that parsed the file (`windows`: bounds, text and its
    packing, consistent with the facts) or else from the file's lines (`texts`: files
    that came from the cache, and helper-call sites, which the workers cannot foresee).
    """

    root: str
    modules: dict[str, str]
    analysis: bool
    cold: bool                      # the cache is empty: nothing is read here
    #: path -> cache key of the file in the repo's latest dataset (`delta.reindex.earlier_keys`)
    earlier: dict[str, str] = field(default_factory=dict)
    raw: dict[str, bytes] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    facts: dict[str, FileFacts] = field(default_factory=dict)
    windows: dict[str, Windows] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)
    files: list[FileFacts] = field(default_factory=list)   # every file's facts, in tree order, once done
    extracted: int = 0

    def read_group(self, group: Sequence[str], store) -> list[tuple[str, str, bytes | None]]:
        """Read and key `group`, take what the cache knows; return the items to extract: (path,
        module, the facts of the file's earlier version when the cache has them)."""
        if self.cold:
            return [(rel, self.modules[rel], None) for rel in group]
        for rel in group:
            self.raw[rel] = data = self._read(rel)
            self.keys[rel] = cache_key(rel, self.modules[rel], data, self.analysis)
        cached = store.cached_facts([self.keys[rel] for rel in group])
        misses = []
        for rel in group:
            blob = cached.get(self.keys[rel])
            facts = cached_facts_or_none(blob) if blob is not None else None
            if facts is None:
                misses.append(rel)
            else:
                self.facts[rel] = facts
        before = store.cached_facts([self.earlier[rel] for rel in misses if rel in self.earlier])
        return [(rel, self.modules[rel], before.get(self.earlier.get(rel, ""))) for rel in misses]

    def add(self, rel: str, key: str, facts: FileFacts, wblob: bytes | None) -> None:
        """A worker's facts, keyed by what it read (the file may have changed since this process read it)."""
        self.keys[rel] = key
        self.facts[rel] = facts
        self.raw.pop(rel, None)
        if wblob is not None:
            self.windows[rel] = pickle.loads(wblob)

    def fill_windows(self, sites: list[ErrorSite], store) -> dict[str, tuple[bytes, bytes]]:
        """Fill each site's window; return, by text, the windows the publish need not compress.

        Those are the workers' packs (hashed and compressed in parallel) and the windows the
        index already stores (found by digest, which is cheap, so the cache need not keep a
        second compressed copy of every window).
        """
        by_text: dict[str, tuple[bytes, bytes]] = {}
        unpacked: dict[bytes, str] = {}
        for site in sites:
            cut = self.windows.get(site.file_path, {}).get(site.line)
            if cut is not None:
                site.source_start, site.source_end, site.source_code, digest, blob = cut
                by_text[site.source_code] = (digest, blob)
                continue
            fill_window(site, self._lines(site.file_path))
            if site.source_code is not None and site.source_code not in by_text:
                unpacked[hashlib.sha256(site.source_code.encode()).digest()] = site.source_code
        for digest in store.stored_windows(list(unpacked)):
            by_text[unpacked[digest]] = (digest, STORED)
        return by_text

    def _lines(self, rel: str) -> list[str]:
        lines = self.texts.get(rel)
        if lines is None:
            data = self.raw.pop(rel, None)
            lines = self.texts[rel] = decode_source(data if data is not None else self._read(rel)).split("\n")
        return lines

    def _read(self, rel: str) -> bytes:
        try:
            return Path(self.root, rel).read_bytes()
        except OSError:
            return b""


def _worker_batch(root: str, batch: list[tuple[str, str, bytes | None]], analysis: bool, in_pool: bool = True
                  ) -> list[tuple[str, str, bytes, bytes | None]]:
    """(path, cache key, compressed facts, pickled windows or None) per (path, module, earlier facts) item.

    A site in a function unchanged since the earlier facts keeps their analysis (`analyze.reuse`).
    A pool worker (forked while the collector is paused) frees the batch's few
    cycles (analysis makes some) with one young-generation pass at the end.
    """
    analyze = _site_analyzer() if analysis else None
    out = []
    with collector_paused():
        for rel, module, earlier in batch:
            reusing = None
            if analyze is not None:
                before = cached_facts_or_none(earlier) if earlier is not None else None
                reusing = ReusingAnalyzer(analyze, before.sites if before is not None else ())
            facts, lines = extract_file_lines(root, rel, module, analyze=reusing, calls=analysis)
            windows = _cut_windows(facts, lines)
            out.append((rel, key_of(rel, module, facts.sha256, analysis), pack_facts(facts),
                        pickle.dumps(windows, pickle.HIGHEST_PROTOCOL) if windows else None))
    if in_pool:
        gc.collect(1)
    return out


def _cut_windows(facts: FileFacts, lines: list[str]) -> Windows:
    """Each site's window, hashed and compressed here, in parallel, rather than in the serial publish."""
    if not lines:
        return {}
    out: Windows = {}
    for line in {s.line for s in facts.sites}:
        start, end, text = window_of(line, lines)
        out[line] = (start, end, text, *pack_window(text))
    return out


def _run_workers(root: str, groups: Iterable[list[tuple[str, str, bytes | None]]], jobs: int | None,
                 analysis: bool) -> Iterator[tuple[str, str, bytes, bytes | None]]:
    """Yield `_worker_batch` results for the items of each group, in order.

    Groups are pulled while the pool works, so reading the next files overlaps the
    extraction. A pool starts only once more than one batch waits (a re-index with a
    few changed files forks nothing), and never when jobs == 1.
    """
    jobs = jobs or os.cpu_count() or 1
    waiting: list[tuple[str, str, bytes | None]] = []
    pending: deque[Future] = deque()
    pool: ProcessPoolExecutor | None = None
    try:
        for group in groups:
            waiting.extend(group)
            if jobs <= 1:
                yield from _worker_batch(root, waiting, analysis, in_pool=False)
                waiting = []
                continue
            if pool is None and len(waiting) > _BATCH:
                ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
                pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
            while pool is not None and len(waiting) >= _BATCH:
                pending.append(pool.submit(_worker_batch, root, waiting[:_BATCH], analysis))
                del waiting[:_BATCH]
            while pending and pending[0].done():
                yield from pending.popleft().result()
        if waiting and pool is None:
            yield from _worker_batch(root, waiting, analysis, in_pool=False)
        elif waiting:
            pending.append(pool.submit(_worker_batch, root, waiting, analysis))
        while pending:
            yield from pending.popleft().result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def link(facts: list[FileFacts], tree: SourceTree, store, keys: dict[str, str] | None
         ) -> tuple[list[ErrorSite], dict, Codebase]:
    """Resolve classes and helpers across files; analyze helper-call sites (keys given) where the AST is needed again."""
    cb = Codebase.from_facts(facts)
    inline_imported_constants(cb, facts)
    link_factories(cb, facts)
    sites: list[ErrorSite] = [s for f in facts for s in f.sites]
    calls = [c for f in facts for c in f.helper_calls]
    through_helpers = helper_sites(cb, calls)
    if through_helpers and keys is not None:
        from errdex.analyze.helper_guard import note_earlier_checks

        _analyze_helper_calls(tree, facts, through_helpers, store, keys, cb)
        note_earlier_checks([*sites, *through_helpers], through_helpers)
    sites.extend(through_helpers)
    refs = {s.class_ref for s in sites if s.class_ref}
    classes = {ref: cb.class_info(ref) for ref in refs}
    return sites, classes, cb


def _analyze_helper_calls(tree: SourceTree, facts: list[FileFacts], sites: list[ErrorSite],
                          store, keys: dict[str, str], cb: Codebase) -> None:
    """Helper calls are known only after linking: re-walk their files to analyze just those lines.

    Results are cached like per-file facts, keyed by the file's key and the lines asked for.
    Each call's condition then takes in the helper's own check, its arguments bound
    (`analyze.helper_guard`): the helper may raise only sometimes.
    """
    from errdex.analyze.helper_guard import add_helper_check

    analyze = _site_analyzer()
    if analyze is None:
        return
    modules = {f.file_path: f.module for f in facts}
    wanted: dict[str, list[ErrorSite]] = {}
    for s in sites:
        wanted.setdefault(s.file_path, []).append(s)
    hkeys = {rel: f"{keys[rel]}:helpers:{','.join(str(s.line) for s in group)}" for rel, group in wanted.items()}
    cached = store.cached_facts(list(hkeys.values()))
    fresh = {}
    for rel, group in wanted.items():
        blob = cached.get(hkeys[rel])
        if blob is None:
            lines = frozenset(s.line for s in group)
            again = extract_file(str(tree.root), rel, modules[rel], analyze=analyze, helper_lines=lines, calls=False)
            found = {c.site.line: (c.site.condition, c.site.guard, c.site.condition_exact, c.site.condition_reason,
                                   c.site.feeding, c.site.condition_calls, c.site.earlier_calls, c.site.imports,
                                   c.sources)
                     for c in again.helper_calls if c.site.line in lines}
            blob = fresh[hkeys[rel]] = deflate(pickle.dumps(found))
        found = pickle.loads(inflate(blob))
        for s in group:
            if s.line in found:
                (s.condition, s.guard, s.condition_exact, s.condition_reason, s.feeding,
                 s.condition_calls, s.earlier_calls, s.imports, sources) = found[s.line]
                add_helper_check(s, cb.helpers.get(s.helper), sources)
    if fresh:
        store.put_cached_facts(fresh)


def _prepare(records: list[dict], facts: list[FileFacts], cb: Codebase, root: str):
    """`analyze.dataset.prepare_dataset`, imported only when analysing: a catalog run skips its imports."""
    from errdex.analyze.dataset import prepare_dataset

    return prepare_dataset(records, facts, cb, root)


def _now() -> str:
    """ISO-8601 UTC with milliseconds, as the seed's analyzedAt."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _site_analyzer():
    """The per-site analyzer (trigger condition, feeding values), if the analyze stage is present."""
    try:
        from errdex.analyze.site import analyze_site
    except ImportError:
        return None
    return analyze_site
