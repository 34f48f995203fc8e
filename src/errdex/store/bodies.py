"""How a record becomes a shareable stored body, and back.

A body is the record minus the fields that belong to the dataset rather than
to the error site (`DATASET_FIELDS`), serialised in one canonical field order
and identified by a hash of that text. Identical sites in two versions thus
hash alike and are stored once. On read the dataset's values are put back.

What moves when lines above a site are edited stays out of the body, so a
site that only moved still shares its body with the previous version: the
`lineNumber` goes to the membership row, `sourceCodeStart`/`sourceCodeEnd`
and `errdex.endLine` are kept relative to it, and the `sourceCode` window is
stored once per distinct text (`windows`). What changes with the rest of the
dataset rather than the site, `errdex.related`, goes to the membership row too.
`restore_site` puts them back.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from errdex.models import SEED_FIELDS, DatasetInfo
from errdex.seed import in_seed_order
from errdex.store.codec import pack_ids, unpack, unpack_ids

#: Record fields whose value depends on the dataset, not on the error site.
DATASET_FIELDS = frozenset({"githubUrl", "analyzedSha", "analyzedAt", "schemaVersion"})

_SEED_SET = frozenset(SEED_FIELDS)
_BODY_FIELDS = tuple(f for f in SEED_FIELDS if f not in DATASET_FIELDS)
#: Position fields stored relative to `lineNumber` when the line is taken out of the body.
RELATIVE_FIELDS = ("sourceCodeStart", "sourceCodeEnd")
#: The fallback for a value orjson refuses (an integer over 64 bits, a non-string key): same JSON, UTF-8.
_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)


@dataclass(slots=True)
class EncodedBody:
    """A record's body as stored: canonical JSON (UTF-8) and its hash, and what was taken out."""

    body: dict[str, Any]
    text: bytes
    digest: bytes
    record_id: str
    line: int | None       # lineNumber, for the membership row (None: the body kept its own)
    window: str | None     # sourceCode, stored once per distinct text (None: the body kept its own)
    related: str | bytes | None = None   # errdex.related, `codec.pack_ids` (None: the body kept its own)


def encode_body(record: dict[str, Any]) -> EncodedBody:
    """Strip dataset fields and serialise in canonical order (seed fields, extras, `errdex`)."""
    body = {f: record[f] for f in _BODY_FIELDS if f in record}
    stripped = sum(1 for f in DATASET_FIELDS if f in record)
    has_errdex = "errdex" in record
    if len(body) + stripped + has_errdex != len(record):  # keys beyond the seed's: keep, in order
        body.update((k, v) for k, v in record.items() if k not in _SEED_SET and k != "errdex")
    if has_errdex:
        body["errdex"] = record["errdex"]
    line, window = _take_positions(body)
    related = _take_related(body)
    text = _json(body)
    digest = hashlib.sha256(text).digest()
    return EncodedBody(body, text, digest, str(body.get("id") or ""), line, window, related)


def _json(body: dict[str, Any]) -> bytes:
    """Compact JSON in the body's own key order: orjson (~4x the standard encoder's speed)."""
    global _dumps
    if _dumps is None:   # imported on first use: readers of the store never need it
        from orjson import dumps as _dumps
    try:
        return _dumps(body)
    except TypeError:                         # orjson.JSONEncodeError
        return _encoder.encode(body).encode()


_dumps = None


def _take_positions(body: dict[str, Any]) -> tuple[int | None, str | None]:
    """Take lineNumber and the window out of `body`; positions become line-relative."""
    line = body.get("lineNumber")
    if line.__class__ is not int:
        return None, None
    del body["lineNumber"]
    for name in RELATIVE_FIELDS:
        value = body.get(name)
        if value.__class__ is int:
            body[name] = value - line
    extra = body.get("errdex")
    if extra.__class__ is dict and extra.get("endLine").__class__ is int:
        body["errdex"] = extra = {**extra, "endLine": extra["endLine"] - line}
    if extra.__class__ is dict and extra.get("raisedFirstBy").__class__ is list:
        body["errdex"] = {**extra, "raisedFirstBy": _shifted(extra["raisedFirstBy"], -line)}
    window = body.get("sourceCode")
    if window.__class__ is not str:
        return line, None
    del body["sourceCode"]
    return line, window


def _take_related(body: dict[str, Any]) -> str | bytes | None:
    """Take `errdex.related` out of `body` (a null keeps its place in the key order)."""
    extra = body.get("errdex")
    if extra.__class__ is not dict or extra.get("related").__class__ is not list:
        return None
    packed = pack_ids(extra["related"])
    if packed is not None:
        body["errdex"] = {**extra, "related": None}
    return packed


def restore_site(stored: str | bytes, line: int | None, window: str | None,
                 related: str | bytes | None = None, prose: bool = True) -> dict[str, Any]:
    """The body with its line, absolute positions, window and related ids back (no dataset fields),
    and its prose and code fields written from its facts (`analyze.fields`; `prose=False`: as stored)."""
    body = json.loads(body_text(stored))
    if related is not None and body.get("errdex").__class__ is dict:
        body["errdex"]["related"] = unpack_ids(related)
    if line is None:  # written before positions left the body, or a record without a line
        return _with_prose(body) if prose else body
    body["lineNumber"] = line
    for name in RELATIVE_FIELDS:
        value = body.get(name)
        if value.__class__ is int:
            body[name] = value + line
    extra = body.get("errdex")
    if extra.__class__ is dict and extra.get("endLine").__class__ is int:
        extra["endLine"] += line
    if extra.__class__ is dict and extra.get("raisedFirstBy").__class__ is list:
        extra["raisedFirstBy"] = _shifted(extra["raisedFirstBy"], line)
    if window is not None:
        body["sourceCode"] = window
    return _with_prose(body) if prose else body


def _with_prose(body: dict[str, Any]) -> dict[str, Any]:
    """The prose and code fields written from the facts, once the window and lines are back (the
    prose reads the statements around the site in the window)."""
    from errdex.analyze.fields import fill_prose   # ~40 ms of imports, paid by readers of full records only

    fill_prose(body)
    return body


def _shifted(calls: list, by: int) -> list:
    """`errdex.raisedFirstBy` with each call's line moved by `by` (relative to the site in a body)."""
    return [{**c, "line": c["line"] + by} if c.__class__ is dict and c.get("line").__class__ is int else c
            for c in calls]


def body_text(stored: str | bytes) -> str:
    """The JSON text of a stored body (plain text, or bytes packed by `codec`)."""
    return unpack(stored)


def body_columns(body: dict[str, Any]) -> tuple[Any, ...]:
    """The denormalised filter columns, in `record_bodies` order after `body`."""
    line = body.get("lineNumber")
    return (
        body.get("slug"),
        body.get("errorClass"),
        body.get("errorType"),
        body.get("severity"),
        body.get("backgroundTag"),
        body.get("filePath"),
        line if isinstance(line, int) else None,
        body.get("errorMessage"),
    )


def search_columns(body: dict[str, Any]) -> tuple[str, ...]:
    """The text indexed by FTS, in `record_search` column order. A body stored without its
    prose (`analyze.fields`) gives the facts the prose is written from instead: its trigger
    condition and asserted test."""
    documentation = body.get("documentation")
    if documentation is None and body.get("errdex").__class__ is dict:
        ex = body["errdex"]
        documentation = [t for t in (ex.get("condition"), ex.get("assertTest")) if t.__class__ is str]
    return (
        _as_text(body.get("errorMessage")),
        _as_text(body.get("errorClass")),
        _as_text(documentation),
        _as_text(body.get("solutions")),
        _as_text(body.get("tags")),
        _as_text(body.get("filePath")),
    )


def _as_text(value: Any) -> str:
    if value.__class__ is str:
        return value
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(item if item.__class__ is str else _as_text(item) for item in value)
    return str(value)


def restore_record(stored: str | bytes, dataset: DatasetInfo, line: int | None = None,
                   window: str | None = None, related: str | bytes | None = None,
                   prose: bool = True) -> dict[str, Any]:
    """The full record: body fields, positions, related ids and the dataset's values back in seed
    order (`prose`: see `restore_site`)."""
    return in_seed_order(restore_site(stored, line, window, related, prose), dataset.url_base,
                         dataset.analyzed_sha, dataset.analyzed_at)
