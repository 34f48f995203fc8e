"""Which methods set the attribute a site checks: "`self.pool` is set by `register_pool`".

A site that raises when `self.pool is None` is usually a call-order error: a
method that assigns `self.pool` was not called first. The workers note every
`self.attr = value` in a method (`FileFacts.setters`, None and False values
left out: they unset it); here the site's own test is read for `self.<attr>`
and the site's class and its ancestors in the codebase are searched for
methods that assign it. The result is a fact about the code,
`errdex.setters`, which the prose turns into advice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: `self.attr` read as a value, not a method called (`self.run(`).
_SELF_ATTR = re.compile(r"\bself\.([A-Za-z_]\w*)\b(?!\s*\()")
MAX_ATTRS = 2
MAX_METHODS = 4
MAX_ANCESTORS = 12


def merged_setters(per_file: list[dict[str, dict[str, list[str]]]]) -> dict[str, dict[str, list[str]]]:
    """Every file's table in one (a class lives in one file, so nothing is merged twice)."""
    out: dict[str, dict[str, list[str]]] = {}
    for table in per_file:
        out.update(table)
    return out


def setters_for(own_test: str | None, qual: str, site_class: str | None,
                setters: Mapping[str, dict[str, list[str]]], cb) -> dict[str, list[str]] | None:
    """`{"self.pool": ["pkg.mod.Cache.register_pool"]}` for the attributes the own test reads, or None.

    `cb` is the dataset's `Codebase` (its classes and their bases); the site's own method is left out.
    """
    if not own_test or site_class is None or "self." not in own_test:
        return None
    attrs = list(dict.fromkeys(_SELF_ATTR.findall(own_test)))[:MAX_ATTRS]
    if not attrs:
        return None
    lineage = _lineage(site_class, cb)
    found: dict[str, list[str]] = {}
    for attr in attrs:
        methods: list[str] = []
        for cls in lineage:
            for method in setters.get(cls, {}).get(attr, ()):
                name = f"{cls}.{method}"
                if name != qual and name not in methods:
                    methods.append(name)
        if methods:
            found[f"self.{attr}"] = methods[:MAX_METHODS]
    return found or None


def init_args_for(own_test: str | None, site_class: str | None, cb) -> dict[str, str] | None:
    """`{"self.min_p": "min_p"}` for the attributes the own test reads that the site's class takes as
    constructor arguments of that name and stores as they are (`extract.initargs`), or None.

    The constructor is the class's own, else the nearest ancestor's that declares one; the
    annotated fields of a dataclass-like class and its dataclass-like ancestors add up.
    """
    if not own_test or site_class is None or "self." not in own_test:
        return None
    attrs = list(dict.fromkeys(_SELF_ATTR.findall(own_test)))[:MAX_ATTRS]
    if not attrs:
        return None
    taken: set[str] = set()
    fields = False
    for cls in _lineage(site_class, cb):
        facts = cb.classes.get(cls)
        kind = getattr(facts, "init_kind", "")
        if kind == "init":   # an explicit `__init__` is the signature: what lies above it is not
            if not fields:   # below a dataclass-like class, its generated constructor is
                taken.update(facts.init_args)
            break
        if kind == "fields":
            fields = True
            taken.update(facts.init_args)
    found = {f"self.{attr}": attr for attr in attrs if attr in taken}
    return found or None


def _lineage(site_class: str, cb) -> list[str]:
    """The class, then its ancestors defined in the codebase (through re-exports), breadth first (bounded)."""
    order = [site_class]
    seen = {site_class}
    i = 0
    while i < len(order) and len(order) < MAX_ANCESTORS:
        facts = cb.classes.get(order[i])
        i += 1
        for written in getattr(facts, "bases", None) or ():
            base = cb.resolve(written, cb.classes)
            if base not in seen:
                seen.add(base)
                order.append(base)
    return order
