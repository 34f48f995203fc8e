"""Statements of the code that raised, pasted by a writer or printed under a traceback's frame,
to the records they name: an `assert` by its test (and its message's literal text), a `raise`
by its message's literal text, an assert whose test was rewritten since by the text it kept, and
whether a cut traceback stops at the raising statement.

Tables over all records are built on first use and kept on the engine (explain only asks).
"""

from __future__ import annotations

from collections import defaultdict

from errdex.match.engine import PatternEngine
from errdex.match.pasted import concatenated_skeleton, literal_skeleton, squash
from errdex.match.patterns import RecordRef
from errdex.match.record_index import RecordIndex

#: Literal characters (whitespace aside) a pasted `raise` statement's message must hold to name
#: its site by them: as many as a whole-message match with the class agreeing needs
#: (`grading.HIGH_MIN_LITERAL`).
SOURCE_MIN_LITERAL = 12
#: Characters of its test's opening or end a printed assert must share with one in the raising
#: function to be taken for it rewritten (`not get_args().flag` printed, `not get_config().flag`
#: now): as many as a drifted message must share with its template's opening near its frame.
ASSERT_DRIFT_MIN_SHARED = 20


def asserts_with_message(index: RecordIndex, test: str, message_source: str) -> list[RecordRef]:
    """The asserts of a pasted statement: the same test, and when its message is a string
    literal, the same literal text around the values (`f"{res=}, {res.text=}"` reads as
    `res=..., res.text=...`)."""
    sites = index.by_assert_test.get(squash(test), [])
    skeleton = literal_skeleton(message_source)
    if skeleton is None:
        return list(sites)
    return [r for r in sites if literal_skeleton(repr(r.error_message)) == skeleton]


def raises_with_literal(engine: PatternEngine, message_source: str) -> list[RecordRef]:
    """The raise sites whose message's literal text, values aside, is that of a pasted
    statement's message written as string literals (f-strings, adjacent literals); the caller
    checks the class."""
    skeleton = concatenated_skeleton(message_source)
    if skeleton is None or len(skeleton) < SOURCE_MIN_LITERAL:
        return []
    return list(_raise_skeletons(engine).get(skeleton, ()))


def _raise_skeletons(engine: PatternEngine) -> dict[str, list[RecordRef]]:
    """Records by the literal text of their message (`literal_skeleton`); once per engine."""
    table = getattr(engine, "raise_skeletons", None)
    if table is None:
        table = defaultdict(list)
        for r in engine.records:
            if r.error_message and r.error_type != "assertion":
                skeleton = literal_skeleton(repr(r.error_message))
                if skeleton:
                    table[skeleton].append(r)
        table = engine.raise_skeletons = dict(table)
    return table


def assert_counts(engine: PatternEngine) -> dict[str, int]:
    """How many records assert each (whitespace-free) expression; once per engine."""
    counts = getattr(engine, "assert_counts", None)
    if counts is None:
        counts = defaultdict(int)
        for r in engine.records:
            if r.assert_test:
                counts[squash(r.assert_test)] += 1
        counts = engine.assert_counts = dict(counts)
    return counts


def cut_at_raise(source: str | None, message: str) -> bool:
    """Whether a traceback cut before its exception line shows, under its deepest frame, the
    statement that raised (`raise Runt...`, `assert ...`): that frame is where the error came
    from, not a caller whose callee's frames were cut away."""
    return not message and (source or "").lstrip().startswith(("raise", "assert"))


def rewritten_asserts(recs: list[RecordRef], test: str) -> list[RecordRef]:
    """The raising function's asserts whose (squashed) test shares its opening or its end with
    the printed one: the same check, its object fetched another way in this version."""
    out = []
    for r in recs:
        if not r.assert_test:
            continue
        own = squash(r.assert_test)
        if max(_shared_prefix(own, test), _shared_prefix(own[::-1], test[::-1])) >= ASSERT_DRIFT_MIN_SHARED:
            out.append(r)
    return out


def _shared_prefix(a: str, b: str) -> int:
    n, limit = 0, min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    return n
