"""The prose and code fields of a record, written from the facts the record holds.

documentation, triggerScenarios, commonSituations, solutions, handlingStrategy,
preventionTips, validationCode, typeGuard, tryCatchPattern and exampleFix are
templates over facts every analysed record stores: its condition and guard,
feeding assignments, placeholders, callers and entry points, backgroundTag, and
the classes owning the site's function and its first entry point (`siteClass`,
`entryClass`). So they are not stored: `fill_prose` writes them when a record is
read (`store.bodies.restore_site`, the runtime hook), ~50 us a record. An index
is smaller and faster to build, and better templates reach every index without
indexing again. A record without `siteClass` was stored with its prose (an
older index, or a catalog without analysis) and is left as it is.
"""

from __future__ import annotations

import re

from errdex.analyze import codegen, fixes, prose
from errdex.analyze.around import enclosing_while, from_none, next_statement, raise_after_its_if, statement_lines
from errdex.analyze.condexpr import (
    Condition, describe_own, integer_assignments, never_nan, parse_condition, unbound_helper_check,
)

#: The record fields `fill_text` writes.
PROSE_FIELDS = ("documentation", "triggerScenarios", "commonSituations", "solutions", "handlingStrategy",
                "preventionTips", "validationCode", "typeGuard", "tryCatchPattern", "exampleFix")

_SITUATIONS: dict[str, str] = {}   # provenance texts by rule: one string each, not one per record
_HEURISTIC: dict[str, str] = {}


def set_owners(record: dict, qual: str, method_of: dict[str, str], bindings: dict[str, str] | None = None,
               ancestors=None) -> None:
    """Store the classes owning the site's function and its first entry point: the one fact
    the code fields need from the dataset's call facts (`codegen.call_text`). An entry point
    that is a method of a base of the site's class reaches the site through `self` only on an
    instance of the site's class (review 27 #24: `Base.__init__` calling `self._create_buffers()`,
    overridden by the site's class): that class is the entry's. `ancestors(cls)`: a class's bases,
    every level, as qualified names."""
    ex = record["errdex"]
    entry = ex["entryPoints"][0] if ex["entryPoints"] else qual
    site_class = ex["siteClass"] = method_of.get(qual)
    entry_class = ex["entryClass"] = method_of.get(entry)
    if entry_class and site_class and entry_class != site_class and ancestors is not None \
            and entry_class in ancestors(site_class):
        ex["entryClass"] = site_class
    for prefix, name in (("site", qual), ("entry", entry)):
        words = (bindings.get(name) or "").split() if bindings else []
        method = [w for w in words if w in ("static", "class")]   # a static or class method
        runs = " ".join(w for w in words if w not in ("static", "class"))   # "async", "generator", "context"
        for key, value in ((f"{prefix}Binding", method[0] if method else ""), (f"{prefix}Runs", runs)):
            if value:
                ex[key] = value
            else:
                ex.pop(key, None)


def fill_prose(record: dict) -> None:
    """Write the prose and code fields of an analysed record in place (nothing for a record
    that does not hold the facts: see the module docstring). `related` stays last in the
    provenance, where a record completed in one go has it."""
    ex = record.get("errdex")
    if ex.__class__ is not dict or "siteClass" not in ex or ex.get("provenance").__class__ is not dict:
        return
    qual = site_qualname(record)
    prov = ex["provenance"]
    related = prov.pop("related", None)
    try:
        fill_text(record, qual, record.get("backgroundTag") or "",
                  parse_condition(ex.get("condition"), ex.get("guard")))
    except Exception as exc:  # noqa: BLE001 - one record's templates failing must not stop an export or a page
        for name in PROSE_FIELDS:   # none half-written: the fields stay in place, empty
            if name in record:
                record[name] = None
            prov.pop(name, None)
        prov["prose"] = f"unavailable: {type(exc).__name__}: {exc}"[:200]
    if related is not None:
        prov["related"] = related


def site_qualname(record: dict) -> str:
    """The raising function's qualified name (`module.Class.method`)."""
    ex = record["errdex"]
    return f"{ex['module']}.{ex['function']}" if ex.get("module") else ex["function"]


def fill_text(record: dict, qual: str, tag: str, cond: Condition) -> None:
    """The prose and code fields from the record's facts (`set_owners` run first) and its parsed condition."""
    ex = record["errdex"]
    prov = ex["provenance"]
    exact = bool(ex.get("conditionExact")) and cond.tree is not None
    cls = record.get("errorClass") or ("AssertionError" if record.get("errorType") == "assertion" else
                                       "" if record.get("errorType") == "returned" else "Exception")
    f = prose.SiteFacts(qual, prose.short_name(qual), cls, cond, exact, ex.get("conditionReason"),
                        ex.get("placeholders") or {}, ex.get("feeding") or [], ex.get("entryPoints") or [],
                        ex.get("callers") or [], tag, _reported_as(record),
                        bool(ex.get("test")) and is_test_function(qual))
    f.message = _printed_braces(record)
    f.setters = ex.get("setters") or {}
    f.init_args = ex.get("initArgs") or {}
    f.helper_check = unbound_helper_check(f.reason) if ex.get("helper") else None
    f.loops = ex.get("loops") or []
    f.site_class = ex.get("siteClass")
    f.caught = ex.get("caughtBy")
    f.unfed = ex.get("unfedLocals") or []
    if f.reason and " tested on the way" in f.reason:
        f.feeding, f.unfed = _before_rebinding(f.reason, f.feeding, f.unfed, cond.text)
    f.no_input = bool(ex.get("noInputRead"))
    f.test_file = bool(ex.get("test"))
    f.holds = bool(ex.get("assertHolds"))
    f.nan_only = bool(ex.get("nanOnly"))
    f.checked_by = ex.get("checkedBy") or []
    f.helper = ex.get("helper")
    f.from_none = cond.is_except and from_none(record)
    f.then = next_statement(record) if f.error_type in ("log", "warning") else None
    f.raise_follows = f.error_type in ("exception", "assertion") and raise_after_its_if(record)
    f.runs = ex.get("siteRuns") or ""
    f.while_test = enclosing_while(record) if cond.context and "while " in (record.get("sourceCode") or "") \
        else None
    never_nan(_integer_names(record, cond) if "NaN" not in (f.reason or "") else frozenset())
    if cond.own is not None:
        f.neg, f.said = cond.neg, describe_own(cond)
    from_condition = "fact" if exact else "heuristic:approximate-condition"
    _set(record, prov, "documentation", prose.documentation(f), from_condition)
    _set(record, prov, "triggerScenarios", prose.trigger_scenarios(f), from_condition)
    _set(record, prov, "commonSituations", prose.common_situations(f),
         _SITUATIONS.get(tag) or _SITUATIONS.setdefault(tag, f"heuristic:situations:{tag}"))
    sols, sols_fact = prose.solutions(f)
    _set(record, prov, "solutions", sols, "fact" if sols_fact else "heuristic:solutions")
    strategy, rule = prose.handling_strategy(f)
    by_rule = _HEURISTIC.get(rule) or _HEURISTIC.setdefault(rule, f"heuristic:{rule}")
    _set(record, prov, "handlingStrategy", strategy, by_rule)
    _set(record, prov, "preventionTips", prose.prevention_tips(f), "heuristic:tips")
    if f.helper_check:   # the check that decides is the helper's: no code can be written for it here
        cond = parse_condition(None, None)
    _set(record, prov, "validationCode", codegen.validation_code(cond, f.feeding, f.placeholders, qual, exact,
                                                                 f.reason, prose.relevant_feeding(f), f.loops,
                                                                 ex.get("changedBefore"), f.unfed, f.error_type,
                                                                 ex.get("moduleImports")),
         from_condition)
    _set(record, prov, "typeGuard", codegen.type_guard(cond, ex.get("module"),
                                                         fixes.report_verb(f.error_type, bare=True)), from_condition)
    if f.test and f.error_type == "assertion":
        return   # a test's own assertion: wrapping or guarding the test's call would be no fix
    entry = f.entry_points[0] if f.entry_points else qual
    call = codegen.call_text(entry, ex.get("entryClass"), ex.get("entryBinding"), ex.get("entryRuns"))
    caught = f.caught
    unreachable = f.cond.constant is False and f.exact   # no input reaches the line: nothing to catch
    # a method that raises NotImplementedError whenever it runs is a stub a subclass overrides:
    # no input of a caller's takes another way, so no alternative is worth a try/except
    stub = f.cond.constant is True and cls.rpartition(".")[2] == "NotImplementedError"
    if not unreachable and not stub and (not caught or (caught["outcome"] == "converted" and caught.get("into"))):
        # (handled inside: none reaches a caller)
        seen = caught["into"] if caught else cls   # converted: the class a caller sees
        _set(record, prov, "tryCatchPattern", codegen.try_catch(call, seen, f.error_type, strategy, f.tag), by_rule)
    if f.error_type in ("log", "warning"):
        return   # the call goes on after logging or warning: a guard skipping it would skip its work
    if ex.get("test"):
        return   # a check in test code finds a bug in the code under test: a guard around it would hide one
    if _VALIDATOR.match(f.short):
        return   # guarding a validation call would skip all its checks (review 17 P2: `SamplingParams.verify`)
    alternative = _ALTERNATIVES.get(strategy, "handle this case here instead: {short} {verb} for it").format(
        short=f.short, verb=fixes.report_verb(f.error_type, bare=True))
    if caught and caught["outcome"] == "handled":
        return   # the function goes on: a caller never sees this error, so there is nothing to guard
    if ex.get("siteClass") is None and "." in (ex.get("function") or ""):
        return   # defined inside another function: no caller names it, its enclosing function calls it
    if _while_constructing(f):
        return   # review 27 #24: raised while the object is built: there is no `obj` yet to guard a call on
    site_call = codegen.call_text(qual, ex.get("siteClass"), ex.get("siteBinding"), ex.get("siteRuns"))
    seen = caught["into"] if caught and caught.get("into") else cls
    _set(record, prov, "exampleFix", fixes.example_fix(cond, site_call, seen, qual, alternative, exact, f.reason,
                                                             f.error_type, f.feeding, f.loops,
                                                             ex.get("changedBefore"), f.unfed,
                                                             ex.get("moduleImports")),
         from_condition)


def _while_constructing(f: prose.SiteFacts) -> bool:
    """A private method whose every caller is its class's (or a base's) constructor: it runs while the
    object is built, so no caller holds an object to call it on."""
    return bool(f.callers) and f.short.startswith("_") and not f.short.startswith("__") and all(
        c.rpartition(".")[2] in prose.CONSTRUCTORS for c in f.callers)


_DOUBLED = re.compile(r"\{\{|\}\}")


def _printed_braces(record: dict) -> str:
    """errorMessage with the doubled braces of an f-string or str.format template written once, as
    the code prints them: the prose quotes the message's own advice (review 27 #18: a quoted
    `'{{"verify_on_load": false}}'` is no JSON a user can pass)."""
    text = record.get("errorMessage") or ""
    if ("{{" in text or "}}" in text) and record["errdex"].get("messageForm") in ("fstring", "format", "tuple"):
        return _DOUBLED.sub(lambda m: m.group()[0], text)
    return text


def _integer_names(record: dict, cond: Condition) -> frozenset[str]:
    """The names of the own test that every assignment in the window before the site makes an
    integer (`rank = int(raw)`, `heads, n, blocks = score.shape`): no NaN reaches their order tests.
    Only a test with an order comparison asks (the rest never words NaN)."""
    text = cond.own_text or ""
    if "<" not in text and ">" not in text:
        return frozenset()
    found = statement_lines(record)
    if found is None:
        return frozenset()
    lines, at, _end = found
    return integer_assignments(lines[:max(0, at)], text)


_TESTED_NAMES = re.compile(r"`([A-Za-z_]\w*)`")


def _before_rebinding(reason: str, feeding: list[str], unfed: list[str], condition: str) -> tuple[list[str], list[str]]:
    """Feeding lines without the assignments of names tested on the way and assigned after that test
    (`if not _warned: _warned = True; log(...)`, review 28 #19): replayed before the test, the snippet
    tested the later value (`_warned = True`, then `if not _warned:`, never true). Those names become
    values to set as they were when tested (`unfedLocals`)."""
    names = set(_TESTED_NAMES.findall(reason.split(" tested on the way", 1)[0]))
    kept = [line for line in feeding if names.isdisjoint(codegen.assigned(line))]
    if len(kept) == len(feeding):
        return feeding, unfed
    dropped = {n for line in feeding if line not in kept for n in codegen.assigned(line) & names}
    read = codegen.names_in(condition)
    return kept, sorted(set(unfed) | {n for n in dropped if n in read})


def _reported_as(record: dict) -> str:
    """The record's errorType as the prose reads it: "response" for an HTTP error answered, not raised."""
    return "response" if record["errdex"].get("responds") else record.get("errorType") or "exception"


def is_test_function(qual: str) -> bool:
    """A test as pytest and unittest collect them (`test*`, or a method of a `Test*` class): an
    assertion there checks the code under test. A helper in test code checks its inputs like any
    other function, and the prose says so."""
    parts = qual.split(".")
    return parts[-1].startswith("test") or (len(parts) > 1 and parts[-2].startswith("Test"))


#: A function whose job is to check (`verify`, `_validate_args`, `check_shape`, `assert_ready`).
_VALIDATOR = re.compile(r"_*(?:verify|validate|check|assert)(?:_|$)", re.I)
#: The caller's other branch of an exampleFix, by handling strategy: what to do with what the
#: function rejects (review 17 P2: "take a path without this check" read as "skip the work").
_ALTERNATIVES = {
    "fix-configuration": "change the configuration",
    "validate": "correct the value, or reject it where it came from: {short} {verb} for it",
    "fallback": "use an alternative that supports this: {short} does not",
    "retry": "retry later, or report the failure: {short} {verb} for it now",
}


def _set(record: dict, prov: dict, name: str, value, provenance: str) -> None:
    """Fill a field and record where it came from (`prov`: the record's provenance); an empty value leaves both unset."""
    if value:
        record[name] = value
        prov[name] = provenance
