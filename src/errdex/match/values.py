"""Whether a bound value is what its placeholder names: evidence beyond the literal text.

A template's placeholders are named after the code that fills them (`{pool_name}`
from `pool_name`); a value printed in their place that names the same thing
(`token_to_kv_pool_allocator` for `pool_name`) says the text came from that code
as plainly as literal text does. A value corroborates its placeholder when it is
a formatted traceback in place of a traceback's text (`{traceback}`, `{tb}`), or when it is
one code identifier (dotted or not, no spaces) and shares a word with the
placeholder's name other than the generic ones (`name`, `type`, `value` ...): a
generic phrase such as `{name} must be contiguous` gains nothing from `weight_scale`.
"""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
#: Words of a placeholder's name that say nothing about what its value is.
_GENERIC = frozenset({
    "name", "names", "type", "types", "kind", "id", "ids", "key", "keys", "value", "values", "val", "str", "s",
    "msg", "message", "text", "info", "data", "obj", "item", "arg", "args", "x", "y", "i", "j", "k", "n", "num",
    "e", "err", "error", "self", "cls", "the", "of", "to", "in",
})


#: A formatted traceback's first line, and what code calls the text it fills a message with.
_TRACEBACK = "Traceback (most recent call last)"
_TRACE_WORDS = frozenset({"traceback", "tb", "trace", "stack", "stacktrace"})


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD_SPLIT.split(text) if w} - {""}


def corroborates(expression: str, value: str) -> bool:
    """Whether `value`, printed in place of the placeholder whose source is `expression`,
    names what the placeholder names (see the module docstring)."""
    value = value.strip()
    if value.startswith(_TRACEBACK) and _words(expression) & _TRACE_WORDS:
        return True   # `hit an exception: {traceback}`, printed as Python prints one
    if len(value) < 4 or _IDENTIFIER.fullmatch(value) is None:
        return False
    named = _words(expression) - _GENERIC
    return bool(named & _words(value))


def corroborated_length(groups: list[str], placeholders: dict[str, str], values: list[str]) -> int:
    """Characters of the values that corroborate their placeholders."""
    total = 0
    for name, value in zip(groups, values):
        if corroborates(placeholders.get(name, name), value):
            total += len(value.strip())
    return total
