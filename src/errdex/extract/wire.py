"""How a file's facts travel from a worker to the main process and sit in the per-file cache.

A slots dataclass pickles by default as its class plus a dict of field name
-> value, so every site repeats its ~25 field names and loads through a
Python-level `__setstate__`. Here each stage type pickles as its class and a
tuple of its field values, rebuilt by calling the class: about half the bytes
and CPU on both sides. The blob is a plain pickle, compressed (`store.codec.deflate`):
it loads with `pickle.loads`, so blobs written by the default pickler read the same way.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from dataclasses import fields
from operator import attrgetter

from errdex.models import (
    ClassFacts,
    Diagnostic,
    ErrorSite,
    FactoryDef,
    FileFacts,
    FunctionFacts,
    HelperCall,
    HelperDef,
    Placeholder,
    Template,
)
from errdex.store.codec import deflate, inflate

_COMPACT = (FileFacts, ErrorSite, Template, Placeholder, ClassFacts, HelperDef, HelperCall, FunctionFacts,
            Diagnostic, FactoryDef)


def _reducer(cls: type):
    """(class, field values in constructor order): valid while every field is a positional init argument."""
    specs = fields(cls)
    if any(not f.init or f.kw_only is True for f in specs) or len(specs) < 2:
        raise TypeError(f"{cls.__name__} cannot be rebuilt from positional field values")
    values = attrgetter(*(f.name for f in specs))
    return lambda obj: (cls, values(obj))


_DISPATCH = {**copyreg.dispatch_table, **{cls: _reducer(cls) for cls in _COMPACT}}


def pack_facts(facts: FileFacts) -> bytes:
    """The facts as a compact pickle, compressed."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(facts)
    return deflate(buf.getbuffer())


def cached_facts_or_none(blob: bytes) -> FileFacts | None:
    """`unpack_facts`, or None for a cache entry that no longer decodes (damaged, or from a
    build whose classes changed): the file is then extracted again, never trusted."""
    try:
        facts = unpack_facts(blob)
    except Exception:  # noqa: BLE001 - any failure to decode is a miss, whatever raised it
        return None
    return facts if isinstance(facts, FileFacts) else None


def unpack_facts(blob: bytes) -> FileFacts:
    """Facts back from `pack_facts` (or from a default pickle of FileFacts; zlib-compressed in older files)."""
    return pickle.loads(inflate(blob))
