"""Check a record's guard condition against the values bound from the text.

Never `eval`: `errdex.safe_eval` evaluates the condition (numbers, strings,
tuples, comparisons, boolean logic, arithmetic and a few pure helpers such as
`triton.cdiv`); anything else leaves the answer undecided.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from errdex.exprsplit import split_top_level
from errdex.safe_eval import UNKNOWN, canonical, evaluate, lookups, parses


@dataclass(slots=True)
class ConditionCheck:
    condition: str
    exact: bool | None
    bound: dict[str, object]      # source expression -> literal value
    satisfied: bool | None        # None: could not be decided

    def to_dict(self) -> dict:
        return {"condition": self.condition, "exact": self.exact,
                "bound": {k: repr(v) for k, v in self.bound.items()},
                "satisfied": self.satisfied, "text": self.text}

    @property
    def text(self) -> str:
        values = "; ".join(f"{k} = {v!r}" for k, v in self.bound.items())
        verdict = {True: "holds", False: "does not hold", None: "not decided"}[self.satisfied]
        lead = f"{values}; " if values else ""
        return f"{lead}raised when {self.condition} ({verdict})"


def literal_values(bindings: dict[str, str], placeholders: dict[str, str]) -> dict[str, object]:
    """Source expression -> value, for captured values that are Python literals."""
    out: dict[str, object] = {}
    for name, text in bindings.items():
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        expr = placeholders.get(name, name)
        out[canonical(expr)] = value
    return out


def check_condition(condition: str | None, exact: bool | None, bindings: dict[str, str],
                    placeholders: dict[str, str]) -> ConditionCheck | None:
    """Evaluate `condition` with the bound values; `satisfied` is None when they do not decide it."""
    if not condition or not parses(condition):
        return None
    read = lookups(condition)
    values = literal_values(bindings, placeholders)
    used = {k: v for k, v in values.items() if k in read}
    result = evaluate(_reached(condition), values)
    satisfied = None if result is UNKNOWN else _truth(result)
    return ConditionCheck(condition, exact, used, satisfied)


def _reached(condition: str) -> str:
    """The condition without its whole `raised(call, E)` and `not raised(call, E)` conjuncts: the
    text was raised there, so the handler it sits in ran, and the tries it went past with every
    handler leaving did not catch anything. What they say is known; the rest is left to decide."""
    if "raised(" not in condition:
        return condition
    parts = [p.strip() for p in split_top_level(condition, " and ")]
    kept = [p for p in parts if not _one_fact(p)]
    return " and ".join(kept) if kept else "True"


def _one_fact(part: str) -> bool:
    """`raised(...)`, `not raised(...)`, or `(raised(a, E) or raised(b, E))` (a try block's calls)."""
    if part.startswith("(") and _closes_at_end(part):
        alternatives = [a.strip() for a in split_top_level(part[1:-1], " or ")]
        return len(alternatives) > 1 and all(_call_of_raised(a) for a in alternatives)
    return _call_of_raised(part[4:] if part.startswith("not ") else part)


def _call_of_raised(fact: str) -> bool:
    return fact.startswith("raised(") and _closes_at_end(fact)


def _closes_at_end(text: str) -> bool:
    """Whether the bracket opened after `raised` closes at the very end (`raised(a) or raised(b)`
    does not)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == ")":
            return i == len(text) - 1
    return False


def _truth(value: object) -> bool | None:
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - an odd value: not decided
        return None
