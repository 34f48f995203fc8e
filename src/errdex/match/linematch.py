"""A log scan's common case, matched with per-record memos: one frame-less event on one
flagged line whose candidates the block scan already found.

`LineMatcher.match` answers exactly as `resolve.match_event(..., top_only=True)`
would, or returns None when the event is not that case (no verified hit, hits
of the wrong class only, text not verbatim in the line, a frame, an assert),
and the caller takes the general path. What it saves per line:

* records sharing a template (after whitespace normalisation) are verified
  once per event, not once each (some lines have 50 candidates, of a handful
  of templates);
* a record's normalised chunks and placeholder expressions are built once.

Scores and confidence come from `grading`'s `hit_score`, `full_hit_is_high` and kin;
`tests/match/test_linematch.py` holds the two paths' answers together.
"""

from __future__ import annotations

from errdex.match.engine import PatternEngine
from errdex.match.events import ErrorEvent
from errdex.match.patterns import (
    RecordRef,
    normalize_space,
    normalized_chunks,
    place_template,
)
from errdex.match.grading import ASK, contained_hit_is_high, full_hit_is_high, hit_score, ranked_as, set_apart
from errdex.match.resolve import Match, class_agrees, mirrors_after_originals, printed_class_of


class _Plan:
    """One record's constants for message matches."""

    __slots__ = ("chunks", "expressions", "fields", "literal", "rec", "template")

    def __init__(self, rec: RecordRef, chunks: list[str], template: int) -> None:
        self.rec, self.chunks, self.template = rec, chunks, template
        self.literal = rec.literal_length
        self.fields = (rec.id, rec.repo, rec.file_path, rec.line, rec.error_class, rec.error_message)   # a Match's first six
        self.expressions: dict[int, dict[str, str]] = {}   # values bound -> expressions


class LineMatcher:
    """Memos for one scan's single-line events (an engine's records are fixed)."""

    def __init__(self, engine: PatternEngine) -> None:
        self.engine = engine
        self.records = engine.records
        self._plans: dict[int, _Plan] = {}
        self._templates: dict[tuple[str, ...], int] = {}

    def match(self, event: ErrorEvent, hint: set[int], seen_in: str) -> list[Match] | None:
        """`match_event(event, ..., top_only=True, hint=hint, seen_in=seen_in)`, or None
        when that would take a path other than verified message candidates."""
        message = event.message
        if event.frames or event.failing_expr is not None or not message or (
                event.error_class is None and printed_class_of(event, self.engine) is not None):
            return None   # the general path splits the class off (`printed_class_of`)
        text = normalize_space(message)
        if not text or text not in seen_in:
            return None
        found = self._verified(event.error_class, text, sorted(hint) if len(hint) > 1 else hint)
        if not found:
            return None
        if len(found) == 1 and found[0][1] == "full":   # most lines: one record, the whole message
            item = found[0]
            return [_to_match(item, _score(item, text, event.primary, None), _confidence(item, text, event, None),
                              event)]
        for item in found:
            if item[1] != "contained":
                break
        else:   # all inside the text: a template whose whole first line it is, or one it is a cut
            # rendering of that covers more, ranks first (general path)
            first, cuts = self.engine.cut_renderings(text, {item[0].rec.idx for item in found},
                                                     max(item[0].literal for item in found))
            if first or cuts:
                return None
        primary = event.primary
        apart: dict[int, tuple | None] = {}   # template -> `grading.set_apart`, for hits inside the text
        if len(found) == 1:
            item = found[0]
            return [_to_match(item, _score(item, text, primary, apart), _confidence(item, text, event, apart), event)]
        scores = [_score(item, text, primary, apart) for item in found]
        top = max(scores)
        matches, ids = [], set()
        for item, score in zip(found, scores):   # the top score's ties, one per record id, graded
            if score == top and item[0].rec.id not in ids:
                ids.add(item[0].rec.id)
                matches.append(_to_match(item, score, _confidence(item, text, event, apart), event))
        return mirrors_after_originals(matches) if len(matches) > 1 else matches

    def _verified(self, cls: str | None, text: str, candidates) -> list[tuple]:
        """(plan, kind, values, class agreement) of each candidate whose template the text
        holds and whose class does not disagree, in candidate order."""
        plans, memo = self._plans, self.engine.agree_memo
        placed: dict[int, tuple[str, list[str]] | None] = {}
        found = []
        for idx in candidates:
            plan = plans.get(idx)
            if plan is None:
                plan = self._plan(idx)
            key = (cls, idx)   # resolve._agrees's memo, shared; asked first: it is a look-up
            agrees = memo.get(key, _UNSEEN)
            if agrees is _UNSEEN:
                agrees = memo[key] = class_agrees(cls, plan.rec)
            if agrees is False:
                continue
            outcome = placed.get(plan.template, _UNSEEN)
            if outcome is _UNSEEN:
                outcome = placed[plan.template] = place_template(plan.chunks, text)
            if outcome is not None:
                found.append((plan, outcome[0], outcome[1], agrees))
        return found

    def _plan(self, idx: int) -> _Plan:
        rec = self.records[idx]
        chunks = normalized_chunks(rec)
        template = self._templates.setdefault(tuple(chunks), len(self._templates))
        plan = self._plans[idx] = _Plan(rec, chunks, template)
        return plan


def _score(found: tuple, text: str, primary: bool, apart: dict | None) -> float:
    """A message hit's score: `grading.hit_score`, ranked as `grading.ranked_as` says for a hit
    inside the text, so both paths rank alike (`apart`: the event's `_set_apart` memo, read for
    such a hit only)."""
    plan, kind, _values, agrees = found
    if kind == "full":
        ranked, coverage = kind, plan.literal / max(1, len(text))
    else:
        ranked, coverage = ranked_as(plan.chunks, text, plan.literal, _set_apart(plan, text, apart))
    return hit_score(0.0, ranked, agrees, coverage, plan.literal, plan.rec, primary)


def _confidence(found: tuple, text: str, event: ErrorEvent, apart: dict | None) -> str:
    """A kept hit's confidence: `grading.full_hit_is_high` or `contained_hit_is_high` (asked
    only of the top score's ties: the others are dropped ungraded)."""
    plan, kind, values, agrees = found
    if kind == "full":
        high = full_hit_is_high(plan.literal / max(1, len(text)), plan.literal, plan.rec, agrees, event, None, values)
    else:
        high = contained_hit_is_high(plan.chunks, text, plan.literal, plan.rec, agrees, event, values,
                                     _set_apart(plan, text, apart))
    return "high" if high else "low"


def _set_apart(plan: _Plan, text: str, apart: dict):
    """`grading.set_apart` of the plan's template in the text, worked out once per template of
    an event: its score and its grade ask the same (records sharing it ask again)."""
    found = apart.get(plan.template, ASK)
    if found is ASK:
        found = apart[plan.template] = set_apart(plan.chunks, text)
    return found


def _to_match(found: tuple, score: float, confidence: str, event: ErrorEvent) -> Match:
    plan, kind, values, _agrees = found
    rec = plan.rec
    bindings = dict(zip(rec.groups, values))
    expressions = plan.expressions.get(len(values))
    if expressions is None:
        placeholders = rec.placeholders
        expressions = plan.expressions[len(values)] = {k: placeholders.get(k, k) for k in bindings}
    return Match(*plan.fields, score, confidence, "message", bindings, dict(expressions), kind,
                 None, event.log_line, event.chain, event.primary, rec.dataset)


_UNSEEN = object()
