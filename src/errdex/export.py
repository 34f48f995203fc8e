"""Record exports: JSON (wrapped as `{"record", "datasetVersion"}`), JSONL, and the strict seed format."""

from __future__ import annotations

import json
from typing import IO

import orjson

from errdex.models import SEED_FIELDS, DatasetInfo

SEED_FORMAT_HELP = "Only the seed catalog's fields, in its order (drops the errdex object)."


def to_seed(record: dict) -> dict:
    """Exactly the seed record's fields, in the seed's order."""
    return {k: record.get(k) for k in SEED_FIELDS}


def write_export(store, info: DatasetInfo, out: IO[str], fmt: str, seed_format: bool) -> int:
    """Stream a dataset's records to `out`; returns how many were written."""
    n = 0
    if fmt == "json":
        out.write("[")
    for record in store.iter_records(info.name):
        body = to_seed(record) if seed_format else record
        if fmt == "json":
            out.write(",\n" if n else "\n")
            out.write(_dumps({"record": body, "datasetVersion": info.published_at}))
        else:
            out.write(_dumps(body))
            out.write("\n")
        n += 1
    if fmt == "json":
        out.write("\n]\n")
    return n


def _dumps(value: dict) -> str:
    """One JSON value on one line, UTF-8 kept: orjson (~3x the standard library on a large export),
    or the standard library for what orjson refuses (an integer over 64 bits)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False)
