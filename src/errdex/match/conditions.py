"""Check a record's guard condition against the values bound from the text.

Never `eval`: `errdex.safe_eval` evaluates the condition (numbers, strings,
tuples, comparisons, boolean logic, arithmetic and a few pure helpers such as
`triton.cdiv`); anything else leaves the answer undecided.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

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
    result = evaluate(condition, values)
    satisfied = None if result is UNKNOWN else _truth(result)
    return ConditionCheck(condition, exact, used, satisfied)


def _truth(value: object) -> bool | None:
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - an odd value: not decided
        return None
