"""Dataset-level analysis: fills callers, entry points, related errors, tags and the facts the prose needs.

Runs once per index over all records (after `build_records`). Only callers,
entry points and `related` need the whole dataset: `prepare_dataset` builds
what they read (the call graph, the ranking index) in the main process. Each
record's own part (its callers and entry points looked up in the graph, its
ranking, tags, the classes owning its function and entry point) follows from
that and the record alone, so `errdex index` has the publish fill it where
each record is encoded, in the encoders it forks anyway, on every core
(`Store.publish(finish=...)`). The prose and code fields are written from the
stored facts when a record is read (`fields`). Every field filled gets an
entry in `errdex.provenance`: "fact" when it follows from the code (an exact
condition, a resolved call), "heuristic:<rule>" when a rule chose it.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field

from errdex.analyze.callgraph import CallGraph, build_call_graph
from errdex.analyze.checked import checking_callers, refutable_test, refute_key
from errdex.analyze.condexpr import own_test_source
from errdex.analyze.fields import fill_prose, set_owners, site_qualname
from errdex.analyze.raisers import called_names, mark_record, raising_in, resolve_calls
from errdex.analyze.reach import CallerCalls, args_key
from errdex.analyze.related import RelatedIndex, RelatedKey
from errdex.analyze.setters import init_args_for, merged_setters, setters_for
from errdex.analyze.tags import background_tag, tags_for
from errdex.collector import collector_paused
from errdex.extract.handlers import error_names
from errdex.extract.link import Codebase
from errdex.models import FileFacts


@dataclass(slots=True)
class CallFacts:
    """The call graph and method owners: kept by a re-index to fill the records of changed files alone."""

    graph: CallGraph
    method_of: dict[str, str]
    setters: dict[str, dict[str, list[str]]]   # `FileFacts.setters` of every file
    cb: Codebase                               # its classes' bases, for the setters of ancestors
    bindings: dict[str, str] = field(default_factory=dict)   # qualname -> `FunctionFacts.binding` words
    #: callee name -> the raising function it runs, for the names that run one (`analyze.raisers`)
    ways: dict[str, str] = field(default_factory=dict)
    #: a re-index: the callee names `ways` covers besides its own (`raisers.mark_record`)
    known: set[str] | None = None
    #: qualname -> `FunctionFacts.params` (a site's test read through its callers' checks, `analyze.checked`)
    params: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: the functions some caller calls after a check (`Checked.targets`): only their sites' tests are compared
    targets: frozenset[str] = frozenset()


@dataclass(slots=True)
class Prepared:
    """What `prepare_dataset` leaves: the call facts, `finish` for each record, and each record's ranking key."""

    calls: CallFacts
    finish: "Finisher"   # callable: finish(record)
    keys: list[RelatedKey]   # in record order; the re-index state keeps them (`delta.state.related_rows`)
    #: callers whose calls were read for the arguments they pass (`analyze.reach`): a re-index that
    #: changes one of them redoes the whole dataset (`delta.reindex`)
    examined: frozenset[str] = frozenset()


def analyze_dataset(records: list[dict], facts: list[FileFacts], cb: Codebase | None = None,
                    root: str | None = None) -> CallFacts:
    """Complete each record in place, prose and code fields included (records in file/line
    order, as `build_records` returns them): the in-memory path; a publish stores records
    without their prose (see `fields`).

    The cyclic garbage collector is paused meanwhile: this pass allocates many
    small objects next to a large live heap (every record), so its full
    collections would cost more than the pass itself, and it makes no cycles.
    """
    prepared = prepare_dataset(records, facts, cb, root)
    with collector_paused():
        for record in records:
            prepared.finish(record)
            fill_prose(record)
    return prepared.calls


def prepare_dataset(records: list[dict], facts: list[FileFacts], cb: Codebase | None = None,
                    root: str | None = None) -> Prepared:
    """What needs the whole dataset, now: the call graph and the ranking index over every record's key.

    Returns, with the call facts, `finish`, which fills one record (callers and entry points from
    the graph, `related` from the index, then tags, backgroundTag, the prose and code fields). The publish
    calls it where it encodes each record (`Store.publish(finish=...)`), so that
    work runs on every core inside the encoders the publish forks anyway. Run here
    (`analyze_dataset`) or in an encoder, `finish` fills a record alike.
    """
    with collector_paused():
        graph = build_call_graph(facts, cb)
        method_of = {fn.qualname: fn.cls for f in facts for fn in f.functions if fn.cls}
        bindings = {fn.qualname: fn.binding for f in facts for fn in f.functions if getattr(fn, "binding", "")}
        functions = {fn.qualname: fn for f in facts for fn in f.functions}
        checked = Checked(graph, functions)
        setters = merged_setters([f.setters for f in facts if f.setters])
        cb = cb if cb is not None else Codebase.from_facts(facts)
        keys: list[RelatedKey] = []
        position: dict[int, int] = {}   # by id: the same objects in a forked encoder
        quals: list[str] = []
        of = RelatedKey.of
        for i, record in enumerate(records):   # one pass: each record is read while it is in the cache
            keys.append(of(record))
            quals.append(site_qualname(record))
            position[id(record)] = i
        index = RelatedIndex(keys)
        examined = _examined_callers(records, quals, graph)
        unreached = Unreached(graph, root, facts) if examined else None
        ways = resolve_calls(called_names(facts, records), graph.target,
                             frozenset(q for f in facts for q in raising_in(f)))
    return Prepared(CallFacts(graph, method_of, setters, cb, bindings, ways, params=checked.params,
                              targets=checked.targets),
                    Finisher(graph, method_of, index, position, quals, setters, cb, bindings, unreached, ways,
                             checked), keys,
                    examined)


def _examined_callers(records: list[dict], quals: list[str], graph: CallGraph) -> frozenset[str]:
    """The direct callers of every function with a site that needs arguments passed (`optionalArgs`):
    their calls are read (`Unreached`), so a re-index changing one of them redoes the dataset."""
    examined: set[str] = set()
    for record, qual in zip(records, quals):
        if record["errdex"].get("optionalArgs"):
            examined.update(graph.callers_of.get(qual, ()))
    return frozenset(examined)


class Unreached:
    """(function, `args_key`) -> the callers whose calls never pass what its sites with those
    `optionalArgs` need (`analyze.reach`), read when first asked: in the encoders the publish
    forks, each with its own answers, on every core."""

    def __init__(self, graph: CallGraph, root: str | None, facts: list[FileFacts]) -> None:
        self.graph, self.root, self.facts = graph, root, facts
        self.reader: CallerCalls | None = None
        self.known: dict[tuple, frozenset[str]] = {}

    def get(self, qual: str, key: tuple, optional: dict) -> frozenset[str]:
        found = self.known.get((qual, key))
        if found is None:
            callers = self.graph.callers_of.get(qual, ())
            if not callers:
                found = frozenset()
            else:
                if self.reader is None:
                    self.reader = CallerCalls(self.root, {fn.qualname: (f.file_path, fn.line)
                                                          for f in self.facts for fn in f.functions})
                found = self.reader.unreached(qual, callers, optional)
            self.known[(qual, key)] = found
        return found


class Checked:
    """The callers that check a site's own test before each call (`analyze.checked`), asked in the
    encoders the publish forks: each with its own answers."""

    def __init__(self, graph: CallGraph, functions: dict) -> None:
        self.graph, self.functions = graph, functions
        self.params = {q: fn.params for q, fn in functions.items() if fn.params}
        targets: set[str] = set()
        for fn in functions.values():
            for name in fn.checks:
                found = graph.target(name)
                if found is not None:
                    targets.update(found if found.__class__ is tuple else (found,))
        self.targets = frozenset(targets)

    def get(self, qual: str, own: tuple[str, ...]) -> frozenset[str]:
        """`own`: the site's test as `reach_key` keeps it (`checked.refute_key`)."""
        callers = self.graph.callers_of.get(qual)
        if not callers:
            return frozenset()
        test = ast.parse(" and ".join(f"({part})" for part in own), mode="eval").body
        return checking_callers(qual, test, callers, self.functions, self.graph.target)


class Finisher:
    """`finish(record)`: what the dataset around the record decides (callers and entry points from
    the graph, `related` from the index), then the rest (tags, backgroundTag, the owning classes)
    from the record as that left it. The graph and the index are the dataset's; looking a record
    up in them runs in the encoders, on every core."""

    __slots__ = ("graph", "method_of", "index", "position", "quals", "reached", "setters", "cb", "bindings",
                 "unreached", "ways", "checked")

    def __init__(self, graph: CallGraph, method_of: dict[str, str], index: RelatedIndex,
                 position: dict[int, int], quals: list[str], setters: dict, cb: Codebase,
                 bindings: dict[str, str] | None = None, unreached: Unreached | None = None,
                 ways: dict[str, str] | None = None, checked: Checked | None = None) -> None:
        self.graph, self.method_of, self.index, self.position, self.quals = graph, method_of, index, position, quals
        self.setters, self.cb, self.bindings = setters, cb, bindings or {}
        self.reached: dict = {}   # callers and entry points by function: each encoder fills its own copy
        self.unreached = unreached
        self.ways = ways or {}
        self.checked = checked

    def __call__(self, record: dict) -> None:
        i = self.position[id(record)]
        mark_record(record, self.quals[i], self.ways)
        fill_reach(record, self.quals[i], self.graph, self.reached, self.unreached, self.checked)
        record["errdex"]["related"] = self.index.related(i)
        fill_own(record, self.quals[i], self.method_of, self.setters, self.cb, self.bindings)
        record["errdex"]["provenance"]["related"] = RELATED_PROVENANCE


RELATED_PROVENANCE = "heuristic:related-rank"


def set_related(record: dict, related: list[str]) -> None:
    record["errdex"]["related"] = related
    record["errdex"]["provenance"]["related"] = RELATED_PROVENANCE


def fill_record(record: dict, calls: CallFacts, reach: dict) -> None:
    """Everything but `related`. `reach` caches callers and entry points per function: a function often raises several times."""
    qual = site_qualname(record)
    mark_record(record, qual, calls.ways, calls.known)
    fill_reach(record, qual, calls.graph, reach, params=calls.params, targets=calls.targets)
    fill_own(record, qual, calls.method_of, calls.setters, calls.cb, calls.bindings)


def fill_reach(record: dict, qual: str, graph: CallGraph, reach: dict,
               unreached: Unreached | None = None, checked: Checked | None = None,
               params: Mapping[str, tuple[str, ...]] | None = None, targets: frozenset[str] = frozenset()) -> tuple:
    """Callers and entry points: the only fields that need the whole call graph. Returns the shared
    (callers, entry points, entry points' provenance, callers that never pass what the site needs,
    callers that check its test before each call)."""
    ex = record["errdex"]
    prov = ex["provenance"]
    key = reach_key(record, qual, checked.params if checked is not None else params,
                    checked.targets if checked is not None else targets)
    found = reach.get(key)
    if found is None:
        skip = unreached.get(qual, key[2][0], ex["optionalArgs"]) if unreached is not None and key[2][0] \
            else frozenset()
        checking = checked.get(qual, key[2][1]) if checked is not None and key[2][1] is not None else frozenset()
        callers = graph.callers(qual, skip | checking)
        entry, met = graph.climb(qual, include_tests=key[1], error=error_names(key[3], key[4]) if key[3] else None,
                                 skip=skip | checking)
        found = reach[key] = (callers, entry, BY_HANDLERS if met else "fact", sorted(skip), sorted(checking))
    ex["callers"], ex["entryPoints"] = found[0][:], found[1][:]   # each record its own lists
    # review 23: "no caller" is what the static calls show, not that nothing calls it (a registry,
    # a hook, a method called on an object whose class is not known)
    prov["callers"] = "fact" if found[0] else NO_STATIC_CALLER
    prov["entryPoints"] = found[2]
    if found[3]:
        ex["unreachedFrom"] = found[3][:]
        prov["unreachedFrom"] = "fact"
    if found[4]:
        ex["checkedBy"] = found[4][:]
        prov["checkedBy"] = "fact"
    return found


#: Provenance of an empty caller list: no call the analysis resolved, which is no proof of none.
NO_STATIC_CALLER = "heuristic:no-static-caller"
#: Provenance of entry points found past `try` blocks around calls: they hold for this class only.
BY_HANDLERS = "fact:handlers"


def reach_key(record: dict, qual: str, params: Mapping[str, tuple[str, ...]] | None = None,
              targets: frozenset[str] = frozenset()) -> tuple:
    """What a record's callers and entry points depend on: its function, whether it is test
    code, the arguments a call must pass to reach it (`optionalArgs`: callers that never pass
    them are left out) with its own test when that reads a parameter (callers that check it
    first are left out, `analyze.checked`), and the class it raises with its ancestors (a warning,
    which does not climb as an exception, none): handlers on the way up may stop one class and not
    another. `params`: qualname -> `FunctionFacts.params`; `targets`: `Checked.targets`."""
    ex = record["errdex"]
    cls = record.get("errorClass") if record.get("errorType") not in ("warning", "log") else None
    own = None
    names = params.get(qual) if params is not None and qual in targets else None
    if names:
        text = own_test_source(ex.get("condition"), ex.get("guard"))
        if text and any(p.lstrip("*") in text for p in names if p != "*"):
            own = refute_key(refutable_test(text, names, ex.get("feeding")))
    return (qual, bool(ex.get("test")), (args_key(ex.get("optionalArgs")), own), cls or "",
            tuple(ex.get("classAncestors") or ()) if cls else ())


def fill_own(record: dict, qual: str, method_of: dict, setters: dict, cb: Codebase,
             bindings: dict[str, str] | None = None) -> None:
    """Tags, backgroundTag and the classes owning the site and its entry point: from the record,
    its entry points and method owners alone. The prose and code fields follow from these and
    the record when it is read (`fields.fill_prose`)."""
    ex = record["errdex"]
    prov = ex["provenance"]
    own_text = own_test_source(ex.get("condition"), ex.get("guard"))
    record["tags"] = tags_for(record, own_text)
    prov["tags"] = "heuristic:tags"
    tag, rule = background_tag(record, own_text)
    record["backgroundTag"] = tag
    prov["backgroundTag"] = _TAXONOMY.get(rule) or _TAXONOMY.setdefault(rule, f"heuristic:taxonomy:{rule}")
    set_owners(record, qual, method_of, bindings, lambda cls: _ancestors(cb, cls))
    found = setters_for(own_text, qual, ex["siteClass"], setters, cb)
    if found:
        ex["setters"] = found
        prov["setters"] = "fact"
    taken = init_args_for(own_text, ex["siteClass"], cb)
    if taken:
        ex["initArgs"] = taken
        prov["initArgs"] = "fact"


def _ancestors(cb: Codebase, cls: str) -> list[str]:
    """A class's bases at every level, as qualified names (asked only where a record's entry point
    belongs to another class than its site)."""
    return cb.class_info(cls).ancestors


_TAXONOMY: dict[str, str] = {}     # provenance texts by rule: one string each, not one per record
