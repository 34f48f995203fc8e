"""Record exports: JSON (wrapped as `{"record", "datasetVersion"}`), JSONL, and the strict seed format.

Most of an export's time is reading full records, whose prose and code fields are
written as they are read (`analyze.fields`, ~0.1 ms a record). A large dataset is
therefore read and encoded by forked processes, a chunk of records each, each with
its own connection; this process writes their text in record order, so the file is
the same either way.
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from typing import IO

import orjson

from errdex.cores import forkable_cores
from errdex.models import SEED_FIELDS, DatasetInfo

SEED_FORMAT_HELP = "Only the seed catalog's fields, in its order (drops the errdex object)."

#: Records a forked reader takes at a time, and the fewest worth forking for.
CHUNK = 2000
PARALLEL_MIN = 6000
MAX_READERS = 4


def to_seed(record: dict) -> dict:
    """Exactly the seed record's fields, in the seed's order."""
    return {k: record.get(k) for k in SEED_FIELDS}


def write_export(store, info: DatasetInfo, out: IO[str], fmt: str, seed_format: bool) -> int:
    """Stream a dataset's records to `out`, ordered by file and line; returns how many were written."""
    n = 0
    if fmt == "json":
        out.write("[")
    for text in _encoded(store, info, fmt, seed_format):
        if fmt == "json":
            out.write(",\n" if n else "\n")
            out.write(text)
        else:
            out.write(text)
            out.write("\n")
        n += 1
    if fmt == "json":
        out.write("\n]\n")
    return n


def _encoded(store, info: DatasetInfo, fmt: str, seed_format: bool) -> Iterator[str]:
    """Each record as its export text, in `iter_records` order."""
    readers = _readers()
    if readers > 1 and info.record_count >= PARALLEL_MIN:
        yield from _forked(store, info, fmt, seed_format, readers)
        return
    for record in store.iter_records(info.name):
        yield _encode(record, info, fmt, seed_format)


def _encode(record: dict, info: DatasetInfo, fmt: str, seed_format: bool) -> str:
    body = to_seed(record) if seed_format else record
    return _dumps({"record": body, "datasetVersion": info.published_at} if fmt == "json" else body)


def _dumps(value: dict) -> str:
    """One JSON value on one line, UTF-8 kept: orjson (~3x the standard library on a large export),
    or the standard library for what orjson refuses (an integer over 64 bits)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False)


def _readers() -> int:
    return forkable_cores(MAX_READERS)


def _forked(store, info: DatasetInfo, fmt: str, seed_format: bool, readers: int) -> Iterator[str]:
    ids = store.ordered_record_ids(info.id)
    chunks = [ids[start:start + CHUNK] for start in range(0, len(ids), CHUNK)]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(readers, len(chunks)), initializer=_start_reader,
                  initargs=(str(store.path), info, fmt, seed_format)) as pool:
        for texts in pool.imap(_read_chunk, chunks):
            yield from texts


#: Set in each forked reader: its own read-only store (a connection must not cross a fork), the
#: dataset, the format.
_READER: tuple | None = None


def _start_reader(path: str, info: DatasetInfo, fmt: str, seed_format: bool) -> None:
    from errdex.store import Store

    global _READER
    _READER = (Store.open(path, readonly=True), info, fmt, seed_format)


def _read_chunk(ids: list[str]) -> list[str]:
    assert _READER is not None
    store, info, fmt, seed_format = _READER
    by_id = {r["id"]: r for r in store.records_by_ids(info.id, ids)}
    return [_encode(by_id[i], info, fmt, seed_format) for i in ids]
