"""Bare templates: records whose message has too little literal text to match alone.

`assert cond, f"{x}"` renders as `AssertionError: 4096`: no pattern can find
that, and hundreds of sites share the shape. A line that names the class
and that no pattern matched is still an occurrence of one of them, with
low confidence (the message says nothing about the site). The table maps
each printed class name a record agrees with (its class and its ancestors,
as `resolve.class_agrees` reads them) to the record groups of one template
shape each, in dataset order; a line costs one dict lookup and one
verification per shape of its class.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from errdex.match.patterns import MessageHit, RecordRef, normalized_chunks, normalize_space, verify_full

#: Candidate ids an answer names (the count says how many there are in all).
MAX_CANDIDATE_IDS = 5

#: printed class name -> per template shape, (record indexes, how many of them lead):
#: records of exactly that class first, then those it is an ancestor of, each in dataset order
BareTable = dict[str, list[tuple[tuple[int, ...], int]]]


@dataclass(slots=True)
class BareHit:
    """The records of one class whose bare template fits a message."""

    first: RecordRef          # the first candidate: of the printed class itself when there is one
    hit: MessageHit           # its template on the message
    count: int                # how many candidates in all
    ids: list[str]            # the first MAX_CANDIDATE_IDS record ids: the printed class's own
                              # first, each part in dataset order


def is_bare(rec: RecordRef) -> bool:
    """A record only a frame or its class can point at: a template, but no usable literal."""
    return bool(rec.message_pattern) and bool(rec.error_class) and not rec.matchable


def bare_table(records: Sequence[RecordRef]) -> BareTable:
    """Bare records by printed class name and template shape (the normalised literal chunks)."""
    by_name: dict[str, dict[tuple[str, ...], tuple[list[int], list[int]]]] = defaultdict(dict)
    for rec in records:
        if not is_bare(rec):
            continue
        shape = tuple(normalized_chunks(rec))   # what verification reads
        own = _last(rec.error_class or "")
        for name in class_names(rec):
            own_ids, other_ids = by_name[name].setdefault(shape, ([], []))
            (own_ids if name == own else other_ids).append(rec.idx)
    return {name: [(tuple(own + other), len(own)) for own, other in shapes.values()]
            for name, shapes in by_name.items()}


def class_names(rec: RecordRef) -> set[str]:
    """Printed names that agree with the record's class: its own and its ancestors' last parts."""
    return {_last(n) for n in [rec.error_class or "", *rec.class_bases] if n}


def _last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def find_bare(table: BareTable, records: Sequence[RecordRef], error_class: str | None,
              message: str, memo: dict | None = None) -> BareHit | None:
    """The bare records of the printed class whose template fits the whole message, or None.

    `memo` keeps each (class, fitting shapes) answer: a log repeats the same few with
    ever new values.
    """
    if not error_class or not table:
        return None
    name = _last(error_class)
    shapes = table.get(name)
    text = normalize_space(message) if shapes else ""
    if not text:
        return None
    hits: dict[int, MessageHit] = {}
    for k, (ids, _) in enumerate(shapes):
        hit = _fit(records[ids[0]], text)   # one shape: any of its records answers for all
        if hit is not None:
            hits[k] = hit
    if not hits:
        return None
    key = (name, tuple(hits))
    known = memo.get(key) if memo is not None else None
    if known is None:
        own = {i for k in hits for i in shapes[k][0][:shapes[k][1]]}
        other = {i for k in hits for i in shapes[k][0][shapes[k][1]:]} - own
        ordered = sorted(own) + sorted(other)
        shape_of_first = next(k for k in hits if ordered[0] in shapes[k][0])
        known = (records[ordered[0]], len(ordered), [records[i].id for i in ordered[:MAX_CANDIDATE_IDS]],
                 shape_of_first)
        if memo is not None:
            memo[key] = known
    first, count, ids, k = known
    return BareHit(first, hits[k], count, ids)


def _fit(rec: RecordRef, text: str) -> MessageHit | None:
    """The template read over the whole text; `{x}` alone (most of them) fits any text."""
    chunks = normalized_chunks(rec)
    if len(chunks) == 2 and not chunks[0] and not chunks[1]:
        return MessageHit(rec, "full", [text], 0, len(text))
    hit = verify_full(rec, text)
    return hit if hit is not None and hit.kind == "full" else None
