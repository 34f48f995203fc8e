"""Sites reached only past a call of a function that raises itself: their condition is not exact.

`key = parse_key(cfg.key)` before `if cfg.n > 3: raise ValueError(...)`: where `parse_key`
raises, the site is not reached, and the path condition does not say so (review 19,
validation_hook.py:75, 502 sglang records). The walker lists each site's calls on the way
(`extract.earlier_calls`, resolved through the file's imports); here they are resolved across
files as the call graph's are, and a call of a function with a raising site of its own (or of a
helper, which raises what it is given) makes the condition not exact and is named in
`errdex.raisedFirstBy`. Only direct callees count: a function that calls one that raises is not
followed further.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from errdex.models import FileFacts

#: Record key of a site's calls on the way, as `records.build_records` leaves them for `mark_record`.
EARLIER_CALLS = "earlierCalls"
#: Error types that leave a function when raised (a log or a warning goes on).
RAISING_TYPES = frozenset({"exception", "assertion", "http"})
#: At most this many raising calls are named per record.
MAX_NAMED = 5
#: No line in it: a stored body stays the same when lines above the site move (`store.bodies`).
REASON = "`{call}(...)`, called before it, raises itself for some inputs: the site is reached only if it did not"
ALSO = ", called before it too, may raise first as well"


def raising_in(facts: FileFacts) -> list[str]:
    """Qualnames of the file's functions that raise themselves: a raising site outside any `try`
    of its own function that some input reaches (condition not False), or a helper (it raises
    the message it is given). Part of what a file offers others (`delta.state.surface_digest`)."""
    found = {f"{facts.module}.{s.function}" for s in facts.sites
             if s.error_type in RAISING_TYPES and not s.handlers and s.condition != "False"
             and s.function != "<module>"}
    found.update(h.qualname for h in facts.helpers)
    return sorted(found)


def called_names(facts: Iterable[FileFacts], records: Iterable[dict]) -> set[str]:
    """Every callee name the dataset holds: the functions' calls (`FunctionFacts.calls`) and the
    calls on the way to the records' sites (the same names, read from the syntax tree)."""
    names = {c for f in facts for fn in f.functions for c in fn.calls}
    names.update(c[0] for r in records for c in r["errdex"].get(EARLIER_CALLS) or ())
    return names


def resolve_calls(names: Iterable[str], target, raising: frozenset[str]) -> dict[str, str]:
    """Each callee name that runs a raising function -> that function; names that run none are left
    out (`target`: the call graph's resolver; a class stands for what constructing it runs)."""
    out: dict[str, str] = {}
    for name in names:
        found = target(name)
        runs = found if found.__class__ is tuple else (found,) if found is not None else ()
        callee = next((q for q in runs if q in raising), None)
        if callee is not None:
            out[name] = callee
    return out


class Unresolved(KeyError):
    """A call on the way that the dataset's table cannot answer for (a re-index met a new name)."""


def mark_record(record: dict, qual: str, resolved: Mapping[str, str], known: set[str] | None = None) -> None:
    """Take the record's calls on the way out of it; name those that run a raising function
    (other than its own) and make an exact condition not exact. `resolved`: `resolve_calls` over
    every name of the dataset; `known` (a re-index): the names it covered besides those it holds,
    any other raises `Unresolved`."""
    ex = record["errdex"]
    calls = ex.pop(EARLIER_CALLS, None)
    if not calls:
        return
    named = []
    for name, line, text in calls:
        callee = resolved.get(name)
        if callee is None and known is not None and name not in known:
            raise Unresolved(name)
        if callee and callee != qual:
            named.append({"call": text, "line": line, "function": callee})
            if len(named) >= MAX_NAMED:
                break
    if not named:
        return
    ex["raisedFirstBy"] = named
    ex["provenance"]["raisedFirstBy"] = "fact"
    if ex.get("conditionExact") and ex.get("condition") != "False":
        first = named[0]
        ex["conditionExact"] = False
        ex["conditionReason"] = REASON.format(call=first["call"])
    reason = ex.get("conditionReason")
    if reason and ex.get("conditionExact") is False:
        # review 25 #20: the reason named the first call only; another raising one before the site
        # (`self._positive_finite_extra(...)`) went unsaid
        others = [n for n in named if f"`{n['call']}" not in reason][:2]
        if others:
            ex["conditionReason"] = reason + "; " + " and ".join(
                f"`{n['call']}(...)` (line {n['line']})" for n in others) + ALSO
