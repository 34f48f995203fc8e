"""Records -> what their stored rows need: body hash and bytes, filter and search columns, window.

Encoding (canonical JSON, `bodies`) and packing (zlib with the file's
dictionary, `codec`) are most of a large publish's CPU and need nothing from
the database. So a large publish hands them, chunk by chunk, to forked
processes while the publishing process writes the chunks already done. The
forked processes inherit the records, window packs and dictionary (nothing is
pickled on the way in) and hand back plain tuples. The rows, and so the
stored dataset, are the same either way.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any, NamedTuple

from errdex.cores import forkable_cores
from errdex.store.bodies import body_columns, encode_body, search_columns
from errdex.store.codec import DICT_SIZE, Packer
from errdex.store.windows import pack_window

#: Records below this many are encoded in the publishing process alone (forking costs more).
PARALLEL_MIN = 6000
#: Forked encoders at most (each takes one chunk at a time).
MAX_ENCODERS = 4

Packed = tuple[bytes, bytes]   # (sha256 digest, stored bytes)
#: Completes a record in place right before it is encoded, in whichever process encodes it (see `row_chunks`).
Finish = Callable[[dict], None]


class BodyRow(NamedTuple):
    """One record as the publish writes it."""

    digest: bytes                 # sha256 of the body text: the body's identity
    record_id: str
    line: int | None              # lineNumber, kept out of the body (see `bodies`)
    window: Packed | None         # sourceCode, hashed and compressed (see `windows`)
    columns: tuple                # `body_columns`
    search: tuple                 # `search_columns`
    text: bytes | None            # body JSON, while it is not packed yet
    blob: bytes | None            # packed body (None: the publisher packs it if it is new)
    related: str | bytes | None = None   # errdex.related for the membership row (see `bodies`)


def body_row(record: dict[str, Any], packed_windows: Mapping[str, Packed], packer: Packer | None = None,
             finish: Finish | None = None) -> BodyRow:
    """Encode one record (completed by `finish` first); pack its body too when `packer` is given."""
    if finish is not None:
        finish(record)
    item = encode_body(record)
    blob = packer.pack(item.text) if packer is not None else None
    return BodyRow(item.digest, item.record_id, item.line, _window(item.window, packed_windows),
                   body_columns(item.body), search_columns(item.body), None if blob is not None else item.text,
                   blob, item.related)


def _window(text: str | None, packed_windows: Mapping[str, Packed]) -> Packed | None:
    return None if text is None else packed_windows.get(text) or pack_window(text)


def row_chunks(records: Iterable[dict], size: int, packer: Packer,
               packed_windows: Mapping[str, Packed] | None = None, finish: Finish | None = None
               ) -> Iterator[list[BodyRow]]:
    """Rows, `size` records at a time, in record order.

    When the records are many and the platform forks, the later chunks are
    encoded and packed by forked processes, started before anything else, while
    this process encodes the first chunk; the file's dictionary, if it has none,
    is made from that chunk's bodies and handed to the encoders, which pack once
    they have it. Otherwise every chunk is encoded here.

    `finish` completes each record first, where it is encoded: work that needs
    nothing but the record then runs on every core. A forked encoder completes
    its own copy, which is never sent back, so the caller's records end up
    completed or not depending on where each was encoded: only the stored
    records are to be read afterwards.
    """
    packed = packed_windows or {}
    encoders = _encoder_count()
    if isinstance(records, Sequence) and len(records) >= max(PARALLEL_MIN, size + 1) and encoders > 1:
        yield from _forked_chunks(records, size, packer, packed, encoders, finish)
        return
    iterator = iter(records)
    while chunk := list(islice(iterator, size)):
        yield [body_row(r, packed, None, finish) for r in chunk]


def _encoder_count() -> int:
    return forkable_cores(MAX_ENCODERS)


def _forked_chunks(records: Sequence[dict], size: int, packer: Packer, packed: Mapping[str, Packed],
                   encoders: int, finish: Finish | None) -> Iterator[list[BodyRow]]:
    """The first chunk encoded here, then the later chunks' rows from a pool forked first
    (children inherit `records`; a new dictionary reaches them through `_Handoff`)."""
    ctx = multiprocessing.get_context("fork")
    bounds = [(start, min(start + size, len(records))) for start in range(size, len(records), size)]
    known = packer.dictionary
    handoff = None if known is not None else _Handoff(ctx)
    with ctx.Pool(min(encoders, len(bounds)), initializer=_start_encoder,
                  initargs=(records, packed, known, handoff, finish)) as pool:
        later = pool.imap(_encode_range, bounds)   # the encoders start now, while the first chunk is encoded here
        first = [body_row(r, packed, None, finish) for r in records[:size]]
        if handoff is not None:
            packer.sample([row.text for row in first])
            handoff.put(packer.dictionary)
        yield first
        yield from later


class _Handoff:
    """A dictionary made after the encoders were forked: shared memory mapped before the fork, and an event.

    `None` is handed over too (no dictionary could be made): the encoders then
    return their bodies unpacked and the publisher packs them.
    """

    def __init__(self, ctx) -> None:
        self._ready = ctx.Event()
        self._memory = mmap.mmap(-1, _HANDOFF_HEADER.size + DICT_SIZE + 64)   # anonymous: shared with children
        self._parent = os.getpid()

    def put(self, dictionary: tuple[bytes, bytes] | None) -> None:
        ident, data = dictionary if dictionary is not None else (b"", b"")
        header = _HANDOFF_HEADER.pack(dictionary is not None, len(ident), len(data))
        self._memory[:len(header) + len(ident) + len(data)] = header + ident + data
        self._ready.set()

    def get(self) -> tuple[bytes, bytes] | None:
        """Wait for `put` (in a forked encoder); a parent that died meanwhile ends this process."""
        while not self._ready.wait(1.0):
            if os.getppid() != self._parent:
                os._exit(1)
        made, id_len, data_len = _HANDOFF_HEADER.unpack_from(self._memory)
        if not made:
            return None
        at = _HANDOFF_HEADER.size
        return bytes(self._memory[at:at + id_len]), bytes(self._memory[at + id_len:at + id_len + data_len])


_HANDOFF_HEADER = struct.Struct("<?II")

#: Set in each forked encoder: records, window packs, packer (None until the dictionary is handed over),
#: the handoff to wait on, finish.
_ENCODER: list | None = None


def _start_encoder(records: Sequence[dict], packed: Mapping[str, Packed], dictionary: tuple[bytes, bytes] | None,
                   handoff: _Handoff | None, finish: Finish | None) -> None:
    global _ENCODER
    _ENCODER = [records, packed, Packer(None, dictionary) if dictionary is not None else None, handoff, finish]


def _encode_range(bounds: tuple[int, int]) -> list[BodyRow]:
    """Rows of records[start:end], packed with the file's dictionary (encoded first: it may not exist yet)."""
    assert _ENCODER is not None
    records, packed, packer, handoff, finish = _ENCODER
    rows = [body_row(records[i], packed, packer, finish) for i in range(*bounds)]
    if packer is not None or handoff is None:   # packed; or no dictionary was made: the publisher packs
        return rows
    dictionary = handoff.get()
    _ENCODER[3] = None
    if dictionary is None:
        return rows
    packer = _ENCODER[2] = Packer(None, dictionary)
    return [row._replace(text=None, blob=packer.pack(row.text)) for row in rows]
