"""From a live exception to the record that raised it: frames first, then the message.

Walks the traceback from the deepest frame up. Each frame's file is mapped to
a dataset (the installed distribution that owns it, indexed on first sight,
or an indexed folder such as the user's script folder) and looked up by file
and line, which is exact because the index is of the very version running.
When no frame lands on a record, the message is matched against the
datasets the frames touched (`errdex.match`).

The frame-first path is the one a second error takes, often in a new
process, so it imports little: owners come from the on-disk owner cache,
records from plain SQL (`index_reader`), and the types here are NamedTuples
and slotted classes rather than dataclasses (whose import pulls in `inspect`).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import FrameType, TracebackType
from typing import NamedTuple, TextIO

from errdex.hook.index_reader import IndexView
from errdex.hook.owner_cache import FILE_NAME, OwnerCache, owner_of
from errdex.hook.owners import folder_owner
from errdex.hook.where import frame_values

#: At most this many distributions are indexed for one exception.
MAX_INDEXED_PER_EXCEPTION = 2
#: At most this many exceptions of a chain are explained.
MAX_CHAIN = 4


class Explanation(NamedTuple):
    """One record explaining one exception, with values bound from the message and the frame."""

    record: dict                    # the seed-format record (plus `errdex`)
    dataset: str                    # repo@version
    exc_type: str                   # qualified name of the live exception's class
    exc_message: str
    via: str                        # "frame" | "message"
    frame_file: str = ""            # the frame the record was found at (absolute)
    frame_line: int = 0
    bindings: dict[str, str] = {}       # placeholder -> text from the message (never mutated)
    frame_values: dict[str, str] = {}   # condition variable -> value (never mutated)


class _Lookup:
    """What one `explain_exception` call reads and fills: the index, the owner cache, its budget."""

    __slots__ = ("db_path", "index", "owners", "stream", "indexed", "ignore")

    def __init__(self, db_path: Path, stream: TextIO | None, ignore: frozenset[str]) -> None:
        self.db_path = db_path
        self.index = IndexView(db_path)
        self.owners = OwnerCache.load(owner_cache_path(db_path))
        self.stream = stream
        self.indexed = 0
        self.ignore = ignore


def owner_cache_path(db_path: Path) -> Path:
    """The owner cache sits beside the database it serves (ERRDEX_HOME by default)."""
    return db_path.parent / FILE_NAME


def explain_exception(exc: BaseException, db_path: Path, stream: TextIO | None = None,
                      index_missing: bool = True, ignore: tuple[str, ...] = ()) -> list[Explanation]:
    """Explanations for `exc` and the exceptions chained to it, outermost first.

    `ignore` names distributions whose frames are passed over (a test runner's own).
    """
    lookup = _Lookup(db_path, stream, frozenset(name.lower() for name in ignore))
    out: list[Explanation] = []
    try:
        for item in exception_chain(exc):
            found = _explain_one(item, lookup, index_missing)
            if found is not None and all(found.record["id"] != e.record["id"] for e in out):
                out.append(found)
    finally:
        lookup.index.close()
        lookup.owners.save()
    return out


def exception_chain(exc: BaseException) -> list[BaseException]:
    """`exc`, then its cause or context, and so on, as Python prints them (cycles cut)."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(chain) < MAX_CHAIN:
        seen.add(id(current))
        chain.append(current)
        if current.__cause__ is not None:
            current = current.__cause__
        elif not current.__suppress_context__:
            current = current.__context__
        else:
            current = None
    return chain


def _frames(exc: BaseException) -> list[tuple[FrameType, int]]:
    """(frame, line) of the traceback, deepest first (`traceback.walk_tb` without its import)."""
    out = []
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        out.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return out[::-1]


def _explain_one(exc: BaseException, lookup: _Lookup, index_missing: bool) -> Explanation | None:
    touched: list[str] = []
    for depth, (frame, line) in enumerate(_frames(exc)):
        place = _place(frame.f_code.co_filename, lookup, index_missing)
        if place is None:
            continue
        dataset, rel = place
        if dataset not in touched:
            touched.append(dataset)
        record = lookup.index.record_at(dataset, rel, line)
        # Above the deepest frame a raise statement only re-raises what came from below,
        # unless it is a helper call (the helper's own frame sits below it).
        if record is not None and (depth == 0 or (record.get("errdex") or {}).get("helper")):
            return _build(record, dataset, exc, "frame", frame, line)
    return _by_message(exc, lookup.db_path, touched) if touched else None


def _place(filename: str, lookup: _Lookup, index_missing: bool) -> tuple[str, str] | None:
    """(dataset, path inside it) for a frame's file, indexing its distribution if allowed."""
    if not filename or filename.startswith("<"):
        return None
    owner = owner_of(filename, lookup.owners)
    if owner is not None and owner.name.lower() in lookup.ignore:
        return None
    if owner is not None:
        dataset = owner.find_dataset(lookup.index.datasets)
        if dataset is None:
            if not index_missing or lookup.indexed >= MAX_INDEXED_PER_EXCEPTION:
                return None
            from errdex.hook.lazy_index import ensure_indexed

            lookup.indexed += 1
            lookup.index.close()    # no reader open on the file while it is written
            ensure_indexed(owner, lookup.db_path, set(lookup.index.datasets), lookup.stream)
            lookup.index.refresh()
            dataset = owner.find_dataset(lookup.index.datasets) or owner.dataset
        return dataset, owner.rel_path
    return folder_owner(filename, lookup.index.roots())


def _by_message(exc: BaseException, db_path: Path, datasets: list[str]) -> Explanation | None:
    """The best high-confidence message match in the datasets the frames touched."""
    from errdex.match import explain
    from errdex.store import Store

    matches = [m for m in explain(exc, db=db_path, dataset=datasets) if m.confidence == "high"]
    if not matches:
        return None
    best = matches[0]
    with Store.open(db_path, readonly=True) as store:
        found = store.get_record(best.id, best.dataset or None)
    if not found:
        return None
    return _build(found["record"], best.dataset or datasets[0], exc, "message", None, 0)


def _build(record: dict, dataset: str, exc: BaseException, via: str,
           frame: FrameType | None, line: int) -> Explanation:
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    message = _message_of(exc)
    ex = record.get("errdex") or {}
    wanted = [ex.get("guard") or ex.get("condition") or "", ex.get("assertTest") or ""]
    wanted += [e for e in (ex.get("placeholders") or {}).values()]
    return Explanation(record, dataset, name, message, via,
                       frame.f_code.co_filename if frame else "", line,
                       bind_message(record, message), frame_values([w for w in wanted if w], frame))


def _message_of(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not break the hook
        return ""


def bind_message(record: dict, message: str) -> dict[str, str]:
    """{placeholder: text} when the record's pattern matches the whole message."""
    pattern = record.get("messagePattern")
    groups = (record.get("errdex") or {}).get("groups") or []
    if not pattern or not groups or not message:
        return {}
    try:
        found = re.fullmatch(pattern, message, re.DOTALL)
    except re.error:
        return {}
    if found is None:
        return {}
    return {name: value for name, value in zip(groups, found.groups()) if value is not None}
