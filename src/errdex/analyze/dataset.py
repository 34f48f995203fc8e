"""Dataset-level analysis: fills callers, entry points, related errors, tags and the prose/code fields.

Runs once per index over all records (after `build_records`). The call graph
needs every file, so callers and entry points come from the main process; on
a large dataset two helper processes, fed compact rows, rank related records
and fill the fields each record's own facts decide meanwhile (the second
core is idle at this stage). Every field it fills gets an entry
in `errdex.provenance`: "fact" when it follows from the code (an exact
condition, a resolved call), "heuristic:<rule>" when a rule chose it.
"""

from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from errdex.collector import collector_paused
from errdex.analyze import codegen, prose
from errdex.analyze.callgraph import CallGraph, build_call_graph
from errdex.analyze.condexpr import Condition, describe_own, parse_condition
from errdex.analyze.related import related_ids
from errdex.analyze.tags import background_tag, tags_for
from errdex.extract.link import Codebase
from errdex.models import FileFacts


@dataclass(slots=True)
class CallFacts:
    """The call graph and method owners: kept by a re-index to fill the records of changed files alone."""

    graph: CallGraph
    method_of: dict[str, str]


def analyze_dataset(records: list[dict], facts: list[FileFacts], cb: Codebase | None = None, *,
                    offload: bool | None = None) -> CallFacts:
    """Fill each record in place (records in file/line order, as `build_records` returns them).

    With `offload` (by default: a dataset of `OFFLOAD_MIN_RECORDS` or more on a
    machine with a second core), helper processes rank related records and
    fill the fields that need no call graph while this process builds the
    graph; the output is the same either way. The cyclic garbage collector is
    paused meanwhile: this pass allocates many small objects next to a large
    live heap (every record), so its full collections would cost more than the
    pass itself, and it makes no cycles.
    """
    if offload is None:
        offload = len(records) >= OFFLOAD_MIN_RECORDS and (os.cpu_count() or 1) > 1
    with collector_paused():
        parts = _start_helpers(records) if offload else []
        try:
            graph = build_call_graph(facts, cb)
            method_of = {fn.qualname: fn.cls for f in facts for fn in f.functions if fn.cls}
            calls = CallFacts(graph, method_of)
            if parts:
                _fill_with_helpers(records, calls, parts)
            else:
                _fill_here(records, calls)
        finally:
            for part in parts:
                part.helper.close()
    return calls


def _fill_here(records: list[dict], calls: CallFacts) -> None:
    """Every field in this process, record by record."""
    reach: dict[tuple[str, bool], tuple[list[str], list[str]]] = {}
    for record, related in zip(records, related_ids(records)):
        fill_record(record, calls, reach)
        set_related(record, related)


def _fill_with_helpers(records: list[dict], calls: CallFacts, parts: list[_Part]) -> None:
    """Callers and entry points here; the helpers' fields merged in the order `fill_record` sets them.

    This process fills the records before the first helper's part itself
    (`MAIN_SHARE`) while the helpers work, and any part whose helper failed.
    """
    reach: dict = {}
    quals = [site_qualname(r) for r in records]
    entries = [fill_reach(r, q, calls.graph, reach)[1] for r, q in zip(records, quals)]
    for part in parts:
        lo, hi = part.lo, part.hi
        owners = {q: calls.method_of[q] for q in {*quals[lo:hi], *(e[0] for e in entries[lo:hi] if e)}
                  if q in calls.method_of}
        part.helper.send((lo - part.base, entries[lo:hi], owners))
    for record, qual in zip(records[:parts[0].lo], quals[:parts[0].lo]):
        fill_own(record, qual, calls.method_of)
    related = None
    for part in parts:
        answer = part.helper.result()
        if answer is None:
            for record, qual in zip(records[part.lo:part.hi], quals[part.lo:part.hi]):
                fill_own(record, qual, calls.method_of)
            continue
        _merge_own(records[part.lo:part.hi], answer[1])
        related = answer[0] if answer[0] is not None else related
    for record, ids in zip(records, related if related is not None else related_ids(records)):
        set_related(record, ids)


def set_related(record: dict, related: list[str]) -> None:
    record["errdex"]["related"] = related
    record["errdex"]["provenance"]["related"] = "heuristic:related-rank"


def site_qualname(record: dict) -> str:
    ex = record["errdex"]
    return f"{ex['module']}.{ex['function']}" if ex.get("module") else ex["function"]


def fill_record(record: dict, calls: CallFacts, reach: dict) -> None:
    """Everything but `related`. `reach` caches callers and entry points per function: a function often raises several times."""
    qual = site_qualname(record)
    fill_reach(record, qual, calls.graph, reach)
    fill_own(record, qual, calls.method_of)


def fill_reach(record: dict, qual: str, graph: CallGraph, reach: dict) -> tuple[list[str], list[str]]:
    """Callers and entry points: the only fields that need the whole call graph. Returns the shared pair."""
    ex = record["errdex"]
    prov = ex["provenance"]
    key = (qual, bool(ex.get("test")))
    found = reach.get(key)
    if found is None:
        found = reach[key] = (graph.callers(qual), graph.entry_points(qual, include_tests=key[1]))
    ex["callers"], ex["entryPoints"] = list(found[0]), list(found[1])
    prov["callers"] = prov["entryPoints"] = "fact"
    return found


def fill_own(record: dict, qual: str, method_of: dict) -> None:
    """Tags, backgroundTag and the prose/code fields: from the record, its entry points and method owners alone."""
    ex = record["errdex"]
    prov = ex["provenance"]
    cond = parse_condition(ex.get("condition"), ex.get("guard"))
    own_text = cond.own_text if cond.own is not None else None
    record["tags"] = tags_for(record, own_text)
    prov["tags"] = "heuristic:tags"
    tag, rule = background_tag(record, own_text)
    record["backgroundTag"] = tag
    prov["backgroundTag"] = f"heuristic:taxonomy:{rule}"
    _fill_text(record, qual, tag, method_of, cond)


def _fill_text(record: dict, qual: str, tag: str, method_of: dict, cond: Condition) -> None:
    ex = record["errdex"]
    exact = bool(ex.get("conditionExact")) and cond.tree is not None
    cls = record.get("errorClass") or ("AssertionError" if record.get("errorType") == "assertion" else "Exception")
    f = prose.SiteFacts(qual, qual.rpartition(".")[2], cls, cond, exact, ex.get("conditionReason"),
                        ex.get("placeholders") or {}, ex.get("feeding") or [], ex["entryPoints"],
                        ex["callers"], tag, record.get("errorType") or "exception", bool(ex.get("test")))
    if cond.own is not None:
        f.neg, f.said = cond.neg, describe_own(cond)
    from_condition = "fact" if exact else "heuristic:approximate-condition"
    _set(record, "documentation", prose.documentation(f), from_condition)
    _set(record, "triggerScenarios", prose.trigger_scenarios(f), from_condition)
    _set(record, "commonSituations", prose.common_situations(f), f"heuristic:situations:{tag}")
    sols, sols_fact = prose.solutions(f)
    _set(record, "solutions", sols, "fact" if sols_fact else "heuristic:solutions")
    strategy, rule = prose.handling_strategy(f)
    _set(record, "handlingStrategy", strategy, f"heuristic:{rule}")
    _set(record, "preventionTips", prose.prevention_tips(f), "heuristic:tips")
    _set(record, "validationCode", codegen.validation_code(cond, f.feeding, f.placeholders, qual, exact,
                                                           f.reason, prose.relevant_feeding(f)), from_condition)
    _set(record, "typeGuard", codegen.type_guard(cond), from_condition)
    if f.test and f.error_type == "assertion":
        return   # a test's own assertion: wrapping or guarding the test's call would be no fix
    entry = ex["entryPoints"][0] if ex["entryPoints"] else qual
    call = codegen.call_text(entry, method_of.get(entry))
    _set(record, "tryCatchPattern", codegen.try_catch(call, cls, f.error_type, strategy),
         f"heuristic:{rule}")
    alternative = "take a path without this check" if strategy != "fix-configuration" else "change the configuration"
    site_call = codegen.call_text(qual, method_of.get(qual))
    _set(record, "exampleFix", codegen.example_fix(cond, site_call, cls, qual, alternative, exact, f.reason,
                                                       f.error_type == "warning"),
         from_condition)


def _set(record: dict, name: str, value, provenance: str) -> None:
    """Fill a field and record where it came from; an empty value leaves both unset."""
    if value:
        record[name] = value
        record["errdex"]["provenance"][name] = provenance


# The helper process ------------------------------------------------------------------------------
#
# Started before the call graph is built and fed compact tuples (not a fork of this process: with
# its large heap, copy-on-write faults would cost more than the work). It ranks related records for
# all of them, then fills the own fields of the records this process leaves to it.

#: Below this many records the helper's start-up (about 0.1 s on the second core) is not worth it.
OFFLOAD_MIN_RECORDS = 3000
#: Share of the records (the first ones) whose own fields this process fills while the helpers work.
MAIN_SHARE = 0.0
#: How the other records are divided between the helpers (one each). The first helper also ranks
#: every record's related records (about half the cost of filling them all), so it fills fewer.
HELPER_SHARES = (0.3, 0.7)

_TOP_FIELDS = ("id", "filePath", "errorClass", "errorType", "errorMessage", "httpStatus")
_EX_FIELDS = ("module", "function", "test", "condition", "guard", "classQualname", "classAncestors",
              "placeholders", "feeding", "conditionExact", "conditionReason")


def _row(record: dict) -> tuple:
    """What `fill_own` and `related_ids` read of a record, as one flat tuple (in `_TOP_FIELDS`, `_EX_FIELDS` order)."""
    get, ex = record.get, record["errdex"]
    exget = ex.get
    return (get("id"), get("filePath"), get("errorClass"), get("errorType"), get("errorMessage"), get("httpStatus"),
            exget("module"), exget("function"), exget("test"), exget("condition"), exget("guard"),
            exget("classQualname"), exget("classAncestors"), exget("placeholders"), exget("feeding"),
            exget("conditionExact"), exget("conditionReason"))


def _record_of(row: tuple) -> dict:
    """A record holding only the fields of `_row`, shaped as the fill functions expect."""
    top = len(_TOP_FIELDS)
    record = dict(zip(_TOP_FIELDS, row[:top]))
    ex = record["errdex"] = dict(zip(_EX_FIELDS, row[top:]))
    ex["provenance"] = {}
    ex["callers"] = []
    return record


@dataclass(slots=True)
class _Part:
    """One helper and the records whose own fields it fills."""

    helper: Helper
    lo: int      # records[lo:hi]
    hi: int
    base: int    # the record its first row is of (the first helper has every row, the others their own)


def _start_helpers(records: list[dict]) -> list[_Part]:
    """Start the helpers and send them their rows; [] when one cannot be started."""
    n = len(records)
    bounds = [int(n * MAIN_SHARE)]
    total = 0.0
    for share in HELPER_SHARES:
        total += share
        bounds.append(min(n, bounds[0] + round((n - bounds[0]) * total)))
    bounds[-1] = n
    rows = [_row(r) for r in records]
    # The first helper needs every row (to rank), the others only their own: each slice is pickled once.
    chunks = [pickle.dumps(rows[:bounds[1]], protocol=pickle.HIGHEST_PROTOCOL)]
    chunks += [pickle.dumps(rows[lo:hi], protocol=pickle.HIGHEST_PROTOCOL) for lo, hi in zip(bounds[1:], bounds[2:])]
    parts: list[_Part] = []
    for i in range(len(HELPER_SHARES)):
        helper = Helper.start()
        if helper is None:
            for part in parts:
                part.helper.close()
            return []
        sent = chunks if i == 0 else [chunks[i]]
        helper.send((i == 0, len(sent)))
        for chunk in sent:
            helper.send_bytes(chunk)
        parts.append(_Part(helper, bounds[i], bounds[i + 1], 0 if i == 0 else bounds[i]))
    return parts


class Helper:
    """A helper process, spoken to with pickles over its stdin and stdout."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.writer: threading.Thread | None = None

    @classmethod
    def start(cls) -> Helper | None:
        """Start a helper; None when it cannot be started."""
        if not sys.executable:
            return None
        env = dict(os.environ)
        home = str(Path(__file__).resolve().parents[2])   # the folder this errdex is imported from
        env["PYTHONPATH"] = home + os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else home
        try:
            proc = subprocess.Popen([sys.executable, "-P", "-c", "from errdex.analyze.dataset import serve; serve()"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    env=env)
        except OSError:
            return None
        return cls(proc)

    def send(self, value) -> None:
        self.send_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def send_bytes(self, blob: bytes) -> None:
        """Write from a thread: the helper reads only when it gets to it."""
        before = self.writer

        def write() -> None:
            if before is not None:
                before.join()
            try:
                self.proc.stdin.write(blob)
                self.proc.stdin.flush()
            except (OSError, ValueError):
                pass   # the helper died: `result` says so

        self.writer = threading.Thread(target=write, daemon=True)
        self.writer.start()

    def result(self):
        """(related ids of every record or None, own fields of the helper's records), or None when it failed."""
        if self.writer is not None:
            self.writer.join()
        try:
            self.proc.stdin.close()
            answer = pickle.load(self.proc.stdout)   # from the pipe: the answer's bytes are never held whole
        except Exception:  # noqa: BLE001 - no answer or a cut-short one: this process fills the part instead
            answer = None
        return answer if self.proc.wait() == 0 else None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass


def serve() -> None:
    """The helper's side: rows in (and related ids when it ranks), then the own fields of its records."""
    gc.disable()   # many small acyclic objects, as in `analyze_dataset`
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    rank, chunks = pickle.load(source)
    records = [_record_of(row) for _ in range(chunks) for row in pickle.load(source)]
    related = related_ids(records) if rank else None
    start, entries, owners = pickle.load(source)
    filled = []
    shared: dict = {}
    for record, entry in zip(records[start:], entries):
        record["errdex"]["entryPoints"] = list(entry)
        fill_own(record, site_qualname(record), owners)
        filled.append(_own_fields(record, shared))
    pickle.dump((related, filled), sink, protocol=pickle.HIGHEST_PROTOCOL)
    sink.flush()


#: The own fields whose text many records share (on sglang, 5 to 16,563 distinct values in 28,709 records);
#: the others are nearly all distinct, so looking them up would cost more than sending them twice.
_SHARED_TEXTS = frozenset({"backgroundTag", "commonSituations", "handlingStrategy", "tryCatchPattern"})


def _own_fields(record: dict, shared: dict) -> tuple[dict, dict]:
    """(the fields `fill_own` set, their provenance entries), each in the order they were set.

    A text many records share, and equal provenance maps, are sent as one
    object (pickle sends an object once).
    """
    prov = record["errdex"]["provenance"]
    values = {name: shared.setdefault(record[name], record[name]) if name in _SHARED_TEXTS else record[name]
              for name in prov}
    origins = tuple(prov.items())
    return values, shared.setdefault(origins, prov)


def _merge_own(records: list[dict], filled: list[tuple[dict, dict]]) -> None:
    """The helper's own fields into the records, in the order `fill_own` would set them."""
    for record, (values, origins) in zip(records, filled):
        record.update(values)
        record["errdex"]["provenance"].update(origins)
