"""The static export: the same pages as plain files, one JSON file per record, client-side search.

Error pages carry the site's history; each repo with two or more datasets
gets the diff page of its two most recent ones, linked from the home page.

Every link is relative, so the folder works from `file://` or any static host.
The search index ships both as JSON (for tools) and as a script assigning it
to `window.ERRDEX_INDEX`, because browsers refuse `fetch()` from `file://`.
The export is written to a sibling folder and swapped in at the end.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from errdex.errors import ErrdexError
from errdex.store import Store
from errdex.versions.history import single_version_history
from errdex.web.api import dataset_json
from errdex.web.links import SiteLinks, dataset_file_name, diff_file_name
from errdex.web.pages import PAGE_SIZE
from errdex.web.templating import render_page
from errdex.web.versions import (
    MAX_LISTED,
    HistoryView,
    dataset_diff,
    history_view,
    latest_pairs,
)
from errdex.web.views import pygments_css

STATIC_DIR = Path(__file__).parent / "static"
#: File that marks a folder as an errdex site, so a re-export may replace it.
MARKER = ".errdex-site"


@dataclass(frozen=True, slots=True)
class SiteReport:
    out: Path
    datasets: list[str]
    records: int
    pages: int
    seconds: float


def export_site(db: str | Path, out: str | Path, dataset: str | None = None) -> SiteReport:
    """Write the static site for `dataset` (default: every dataset) to the folder `out`."""
    started = time.perf_counter()
    out = Path(out)
    _check_target(out)
    tmp = out.with_name(out.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    with Store.open(db, readonly=True) as store:
        infos = [store.resolve_dataset(dataset)] if dataset else list(reversed(store.datasets()))
        pairs = [] if dataset else latest_pairs(store)
        writer = _SiteWriter(tmp, pairs)
        writer.write_static()
        # Newest first: a site's page shows the most recent dataset holding it, as the server does.
        records = sum(writer.write_dataset(store, info) for info in reversed(infos))
        for older, newer in pairs:
            writer.write_diff(store, older, newer)
        writer.write_home(infos, pairs)
    (tmp / MARKER).write_text("errdex static site\n")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return SiteReport(out, [i.name for i in infos], records, writer.pages,
                      time.perf_counter() - started)


def _check_target(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise ErrdexError(f"{out} exists and is not an errdex site export; choose an empty or new folder")


class _SiteWriter:
    """Writes pages under `root`, remembering the search index rows."""

    def __init__(self, root: Path, pairs: list[tuple] = ()) -> None:
        self.root = root
        self.pairs = list(pairs)        # (older, newer) datasets whose diff page is written
        self.pages = 0
        self.index_rows: dict[str, dict] = {}

    def _write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel.endswith(".html"):
            self.pages += 1

    def write_static(self) -> None:
        shutil.copytree(STATIC_DIR, self.root / "static")
        self._write("static/pygments.css", pygments_css())

    def write_dataset(self, store: Store, info) -> int:
        stats = store.stats(info.name)
        versions = sum(1 for d in store.datasets() if d.repo == info.repo)
        total = store.count_records(info.name)
        pages = max(1, math.ceil(total / PAGE_SIZE))
        chunk: list[dict] = []
        page_no = n = 0
        for envelope in _records(store, info):
            record = envelope["record"]
            if record["id"] not in self.index_rows:
                self._write_record(envelope, info, _history(store, info, record, versions))
            chunk.append(record)
            n += 1
            if len(chunk) == PAGE_SIZE:
                page_no += 1
                self._write_dataset_page(info, stats, chunk, page_no, pages, total)
                chunk = []
        if chunk or page_no == 0:
            self._write_dataset_page(info, stats, chunk, page_no + 1, pages, total)
        return n

    def _write_record(self, envelope: dict, info, history: HistoryView | None) -> None:
        record, dataset = envelope["record"], info.name
        rid = record["id"]
        self._write(f"api/errors/{rid}.json", json.dumps(
            {"record": record, "datasetVersion": envelope["datasetVersion"]}, ensure_ascii=False))
        self._write(f"errors/{rid}.html", render_page(
            "error.html", SiteLinks(depth=1), record=record, dataset=dataset,
            dataset_version=envelope["datasetVersion"], bindings={}, history=history))
        self.index_rows[rid] = {"i": rid, "m": record.get("errorMessage") or "",
                                "c": record.get("errorClass") or record.get("errorType") or "",
                                "p": f"{record['filePath']}:{record['lineNumber']}"}

    def _write_dataset_page(self, info, stats, records, page_no, pages, total) -> None:
        offset = (page_no - 1) * PAGE_SIZE
        name = dataset_file_name(info.name)[:-5] + ("" if page_no == 1 else f"-{page_no}")
        self._write(f"datasets/{name}.html", render_page(
            "dataset.html", SiteLinks(depth=1), info=info, stats=stats, records=records,
            total=total, filters={}, query={}, page=page_no, pages=pages, compare=self._compare(info),
            first=offset + 1 if records else 0, last=offset + len(records)))

    def _compare(self, info) -> list[tuple[str, str, str]]:
        """The "compare with" link of a dataset page: only to the diff page the export writes."""
        return [(a.name, b.name, (b if a.id == info.id else a).version)
                for a, b in self.pairs if info.id in (a.id, b.id)]

    def write_diff(self, store: Store, older, newer) -> None:
        """The diff page between a repo's two most recent datasets (no form: a static page cannot run one)."""
        view = dataset_diff(store, older.name, newer.name)
        self._write(f"diff/{diff_file_name(older.name, newer.name)}", render_page(
            "diff.html", SiteLinks(depth=1), datasets=[], view=view, max_listed=MAX_LISTED,
            a=older.name, b=newer.name))

    def write_home(self, infos: list, pairs: list) -> None:
        newest_first = list(reversed(infos))
        links = SiteLinks(depth=0)
        compares = [(f"{a.name} → {b.name}", links.diff(a.name, b.name)) for a, b in pairs]
        self._write("index.html", render_page("home.html", links, datasets=newest_first, compares=compares))
        self._write("search.html", render_page("search.html", links, query="", dataset=None,
                                               error_class=None, datasets=newest_first, results=[]))
        rows = list(self.index_rows.values())
        self._write("static/search-index.json", json.dumps(rows, ensure_ascii=False))
        # `</` cannot end the script early: JSON escapes "/" here.
        script = json.dumps(rows, ensure_ascii=True).replace("</", "<\\/")
        self._write("static/search-index.js", f"window.ERRDEX_INDEX = {script};\n")
        self._write("api/datasets.json", json.dumps(
            {"datasets": [dataset_json(i) for i in newest_first]}, ensure_ascii=False))


def _history(store: Store, info, record: dict, versions: int) -> HistoryView | None:
    """A repo indexed once needs no query: its one version is the record in hand."""
    if versions < 2:
        return HistoryView(single_version_history(info, record), 1)
    return history_view(store, record["id"], info.repo)


def _records(store: Store, info):
    """Each record of a dataset as an {"record", "datasetVersion"} envelope."""
    for record in store.iter_records(info.name):
        yield {"record": record, "datasetVersion": info.published_at}
