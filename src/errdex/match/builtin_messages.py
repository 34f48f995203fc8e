"""Messages the Python interpreter itself raises, which a codebase's template can mimic.

`'{type(self).__name__}' object has no attribute '{name}'` in a codebase's
`__getattr__` renders exactly like the AttributeError Python raises for any
object anywhere; so does a re-raised `list index out of range`. A message
that fits one of these shapes proves nothing about where it was raised: a
match on its text alone is never high confidence (a traceback frame in the
record's file still is).
"""

from __future__ import annotations

import re

#: (exception classes the interpreter raises it as, the message's shape).
_SHAPES: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"AttributeError"}), r"'[^']+' object has no attribute '[^']+'"),
    (frozenset({"AttributeError"}), r"module '[^']+' has no attribute '[^']+'"),
    (frozenset({"AttributeError"}), r"type object '[^']+' has no attribute '[^']+'"),
    (frozenset({"AttributeError"}), r"'[^']+' object attribute '[^']+' is read-only"),
    (frozenset({"AttributeError"}), r"can't set attribute(?: '[^']+')?|property '[^']+' of '[^']+' object has no setter"),
    (frozenset({"TypeError"}), r"'[^']+' object is not (?:subscriptable|callable|iterable|an iterator|a mapping)"),
    (frozenset({"TypeError"}), r"'[^']+' object does not support (?:item assignment|item deletion|the context manager protocol)"),
    (frozenset({"TypeError"}), r"unsupported operand type\(s\) for .+: '[^']+' and '[^']+'"),
    (frozenset({"TypeError"}), r"(?:bad operand type for .+|unhashable type): '[^']+'"),
    (frozenset({"TypeError"}), r"'[<>=!]=?' not supported between instances of '[^']+' and '[^']+'"),
    (frozenset({"TypeError"}), r"\S+\(\) (?:got an unexpected keyword argument|got multiple values for argument) '[^']+'"),
    (frozenset({"TypeError"}), r"\S+\(\) missing \d+ required (?:positional|keyword-only) arguments?: .+"),
    (frozenset({"TypeError"}), r"\S+\(\) takes (?:from )?\d+ (?:to \d+ )?positional arguments? but \d+ (?:were|was) given"),
    (frozenset({"TypeError"}), r"can only concatenate \S+ \(not \"[^\"]+\"\) to \S+"),
    (frozenset({"TypeError"}), r"(?:list|tuple|string) indices must be integers(?: or slices)?, not \S+"),
    (frozenset({"TypeError"}), r"object of type '[^']+' has no len\(\)"),
    (frozenset({"IndexError"}), r"(?:list|tuple|string|bytearray|deque) (?:assignment )?index out of range|pop from empty list"),
    (frozenset({"ZeroDivisionError"}), r"(?:float |integer )?division(?: or modulo)? by zero|float modulo|integer modulo by zero"),
    (frozenset({"ValueError"}), r"invalid literal for int\(\) with base \d+: .+|could not convert string to float: .+"),
    (frozenset({"ValueError"}), r"(?:too many values to unpack|not enough values to unpack) \(expected \d+(?:, got \d+)?\)"),
    (frozenset({"ValueError"}), r"math domain error|.+ is not in list|list\.remove\(x\): x not in list"),
    (frozenset({"NameError", "UnboundLocalError"}),
     r"(?:global )?name '[^']+' is not defined|local variable '[^']+' referenced before assignment"
     r"|cannot access (?:local|free) variable '[^']+' where it is not associated with a value"),
    (frozenset({"ModuleNotFoundError", "ImportError"}), r"No module named '[^']+'|cannot import name '[^']+' from '[^']+'.*"),
    (frozenset({"RecursionError"}), r"maximum recursion depth exceeded.*"),
    (frozenset({"OSError", "FileNotFoundError", "PermissionError", "ConnectionRefusedError", "ConnectionResetError",
                "IsADirectoryError", "NotADirectoryError", "FileExistsError", "BrokenPipeError", "TimeoutError",
                "BlockingIOError", "InterruptedError", "ConnectionAbortedError", "ProcessLookupError"}),
     r"\[Errno -?\d+\] .+"),
)
_CLASS_SHAPES: dict[str, list[str]] = {}
for _classes, _shape in _SHAPES:
    for _name in _classes:
        _CLASS_SHAPES.setdefault(_name, []).append(_shape)
# Compiled on first use, per class: a scan process asks about a few classes, and compiling
# every shape at import cost ~8 ms of each `errdex scan`'s start-up.
_BY_CLASS: dict[str, re.Pattern | None] = {}
_ANY: list[re.Pattern] = []


def interpreter_shaped(error_class: str | None, message: str) -> bool:
    """True when the interpreter itself raises `error_class: message` (any class when none is printed)."""
    text = message.strip()
    if error_class:
        name = error_class.rsplit(".", 1)[-1]
        pattern = _BY_CLASS.get(name, _UNSEEN)
        if pattern is _UNSEEN:
            pattern = _BY_CLASS[name] = _compiled(_CLASS_SHAPES.get(name))
        return pattern is not None and pattern.fullmatch(text) is not None
    if not _ANY:
        _ANY.append(re.compile("|".join(f"(?:{shape})" for _, shape in _SHAPES)))
    return _ANY[0].fullmatch(text) is not None


_UNSEEN = object()


def _compiled(shapes: list[str] | None) -> re.Pattern | None:
    """One class's shapes as one pattern, alternatives in `_SHAPES` order."""
    if not shapes:
        return None
    pattern = shapes[0]
    for shape in shapes[1:]:
        pattern = f"(?:{pattern})|(?:{shape})"
    return re.compile(pattern)
