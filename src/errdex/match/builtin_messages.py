"""Messages the Python interpreter (and argparse) itself raises, which a codebase's template can mimic.

`'{type(self).__name__}' object has no attribute '{name}'` in a codebase's
`__getattr__` renders exactly like the AttributeError Python raises for any
object anywhere; so does a re-raised `list index out of range`. A message
that fits one of these shapes proves nothing about where it was raised: a
match on its text alone is never high confidence (a traceback frame in the
record's file still is).
"""

from __future__ import annotations

import functools
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
    # argparse's usage errors (stdlib), which a command-line tool's own check may print word for word
    (frozenset({"SystemExit"}), r"error: (?:unrecognized arguments|the following arguments are required): .+"
                                r"|error: argument \S+: .+"),
    (frozenset({"OSError", "FileNotFoundError", "PermissionError", "ConnectionRefusedError", "ConnectionResetError",
                "IsADirectoryError", "NotADirectoryError", "FileExistsError", "BrokenPipeError", "TimeoutError",
                "BlockingIOError", "InterruptedError", "ConnectionAbortedError", "ProcessLookupError"}),
     r"\[Errno -?\d+\] .+"),
)
_CLASS_SHAPES: dict[str, list[str]] = {}
for _classes, _shape in _SHAPES:
    for _name in _classes:
        _CLASS_SHAPES.setdefault(_name, []).append(_shape)


def interpreter_shaped(error_class: str | None, message: str) -> bool:
    """True when the interpreter itself raises `error_class: message` (any class when none is printed),
    also when the paste was cut inside the message's last quoted name (`... has no attribute 'floa`)."""
    global _LAST
    last = _LAST
    if last[1] is message and last[0] is error_class:   # a scan grades a line's tied records against one text
        return last[2]
    shaped = _shaped(error_class, message)
    _LAST = (error_class, message, shaped)   # held: the identity test cannot meet a recycled object
    return shaped


def _shaped(error_class: str | None, message: str) -> bool:
    if error_class:
        pattern = _BY_CLASS.get(error_class, _UNSEEN)
        if pattern is _UNSEEN:   # a log scan asks about the same few printed classes thousands of times
            pattern = _BY_CLASS[error_class] = _class_pattern(error_class.rsplit(".", 1)[-1])
    else:
        pattern = _any_pattern()
    if pattern is None:
        return False
    text = message.strip()
    return pattern.fullmatch(text) is not None or (text.count("'") % 2 == 1 and pattern.fullmatch(text + "'") is not None)


_BY_CLASS: dict[str, re.Pattern | None] = {}   # printed class, dotted as printed -> its shapes
_UNSEEN = object()
_LAST: tuple = (_UNSEEN, _UNSEEN, False)   # the last (class, message, answer), matched by identity


# Compiled on first use, per class: a scan process asks about a few classes, and compiling
# every shape at import cost ~8 ms of each `errdex scan`'s start-up.
@functools.cache
def _class_pattern(name: str) -> re.Pattern | None:
    shapes = _CLASS_SHAPES.get(name)
    return _alternatives(shapes) if shapes else None


@functools.cache
def _any_pattern() -> re.Pattern:
    return _alternatives([shape for _, shape in _SHAPES])


def _alternatives(shapes: list[str]) -> re.Pattern:
    """The shapes as one pattern, tried in `_SHAPES` order."""
    return re.compile("|".join(f"(?:{shape})" for shape in shapes))
