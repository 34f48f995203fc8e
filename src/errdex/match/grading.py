"""How a message hit is ranked and graded: the one scoring formula and the confidence rules
that `explain`, a scan's general path and its line fast path (`linematch`) all apply, so the
three answer alike. README's "How an error is matched" states each rule and its reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from errdex.match.builtin_messages import interpreter_shaped
from errdex.match.pasted import quoted_rendering
from errdex.match.patterns import RecordRef, normalize_space, rendered_closing, rendered_opening, wrapped_start
from errdex.match.values import corroborated_length, corroborates

if TYPE_CHECKING:
    from errdex.match.events import ErrorEvent

HIGH_MIN_LITERAL = 12
HIGH_MIN_LITERAL_CLASSLESS = 20   # no class printed: nothing to agree with, so ask for more text
HIGH_MIN_LITERAL_PREFIX = 30      # a cut-off paste (issue title, first sentence) with the class agreeing
HIGH_MIN_LITERAL_PREFIX_CLASSLESS = 40   # the same with no class printed (an issue title's own words)
HIGH_MIN_COVERAGE = 0.5
#: A template that opens with a placeholder ("{name} must be contiguous", "{a} is not divisible by {b}")
#: has only a generic phrase to go on, which other libraries print too: it needs more literal text.
HIGH_MIN_LITERAL_UNANCHORED = 24
#: Values may fill most of a message (a wrapped exception's text, a long list): with the class
#: agreeing and the template opening with literal text, this much literal text is enough.
HIGH_MIN_LITERAL_LONG_VALUES = 24
#: The same with no class printed: a value that names its placeholder stands in for the class,
#: and the words and vouching values must make as much text as a class-less cut paste needs.
HIGH_MIN_LITERAL_LONG_VALUES_CLASSLESS = HIGH_MIN_LITERAL_PREFIX_CLASSLESS
#: With no class printed (a logged line names none), words opening the message that cover half of
#: it up to a last value (the caught error it appends) need as many characters as a cut paste
#: with its class agreeing.
HIGH_MIN_LITERAL_APPENDED_CLASSLESS = HIGH_MIN_LITERAL_PREFIX
#: With no class printed and no value vouching, the words alone are the witness when there are
#: this many of them (half again a class-less cut paste's): long values (a list of adapters,
#: a dict of settings) between them cannot make another message fit.
HIGH_MIN_LITERAL_LONG_VALUES_WORDS = 60


def high_min_literal(rec: RecordRef, agrees: bool | None) -> int:
    """Literal characters a full message match needs to be high confidence."""
    need = HIGH_MIN_LITERAL if agrees else HIGH_MIN_LITERAL_CLASSLESS
    chunks = rec.chunks
    return max(need, HIGH_MIN_LITERAL_UNANCHORED) if chunks and not chunks[0] else need


#: "wrapped": a whole rendering behind a wrapper's label (`ranked_as`), ranked as a template's whole
#: first line is: above one found inside the text, below a template whose own words are the label.
_KIND_SCORE = {"full": 40.0, "firstline": 35.0, "wrapped": 35.0, "contained": 30.0, "prefix": 20.0, "drift": 10.0}
#: Per placeholder: among templates the text fits alike, the one with fewer holes wins; it must stay
#: below what one more literal character earns, or `{a}` would beat `{a}: {b}` on "7: x".
GROUP_PENALTY = 0.1


#: `ranked_as` and `contained_hit_is_high` work `set_apart` out themselves when given this.
ASK = object()


def set_apart(chunks: list[str], text: str) -> tuple[str, int | str] | None:
    """How a whole rendering of the template is set apart inside the normalised text, the first
    of: behind a label (`("label", its start)`, `patterns.wrapped_start`), before the writer's
    own words (`("opening", its end)`), after them (`("closing", its start)`), quoted in a
    sentence (`("quoted", the span)`); None when it is not. `ranked_as` and
    `contained_hit_is_high` read the same answer (a scan works it out once for both)."""
    start = wrapped_start(chunks, text)
    if start is not None:
        return "label", start
    end = rendered_opening(chunks, text)
    if end is not None:
        return "opening", end
    start = rendered_closing(chunks, text)
    if start is not None:
        return "closing", start
    if "`" in text or '"' in text or "“" in text:
        span = quoted_rendering(chunks, text)
        if span is not None:
            return "quoted", span
    return None


def ranked_as(chunks: list[str], text: str, literal: int, apart=ASK) -> tuple[str, float]:
    """(kind, coverage) a hit found inside the text is ranked as: a whole rendering the writer or
    a wrapper set apart (behind a label, `Failed to start: <message>`; before the writer's own
    words, `<message> when running X`; quoted in a sentence) is ranked "wrapped", on the part it
    covers, or a template opening or ending with a value would take the rest in and outrank it;
    a template whose own words are the label (`Capture failed: {e}` around `CUDA error: {err}`)
    still ranks first. `apart`: `set_apart(chunks, text)` when the caller has it."""
    apart = set_apart(chunks, text) if apart is ASK else apart
    if not apart:
        return "contained", literal / max(1, len(text))
    how, at = apart
    if how == "label" or how == "closing":
        return "wrapped", literal / max(1, len(text) - at)
    if how == "opening":
        return "wrapped", literal / at
    return "wrapped", literal / max(1, len(at))


def hit_score(score: float, kind: str, agrees: bool | None, coverage: float, literal: int, rec: RecordRef,
              primary: bool) -> float:
    """A message hit's score, added to `score` (a frame's, or 0): the one formula of `explain`,
    a scan's general path and its line fast path (`linematch`)."""
    score += _KIND_SCORE.get(kind, 0.0)
    if agrees:
        score += 10.0
    score += 10.0 * min(1.0, coverage) + min(10.0, literal / 10.0)
    return record_terms(score, rec, primary)


def record_terms(score: float, rec: RecordRef, primary: bool) -> float:
    score -= GROUP_PENALTY * len(rec.groups)
    if rec.is_test:
        score -= 15.0
    if not primary:
        score -= 3.0
    return round(score, 2)


def contained_hit_is_high(chunks: list[str], text: str, literal: int, rec: RecordRef, agrees: bool | None,
                          event: ErrorEvent, values: Sequence[str] = (), apart=ASK) -> bool:
    """Whether a hit inside the text is high: only a whole rendering set apart, graded on the
    part it covers: behind a wrapper's label (`Error in request: <message>`) or quoted in a
    sentence (`I got `<message>` when ...`) as a whole message; followed by the writer's own
    words (`<message> when running X`) as a cut paste. `apart`: `set_apart(chunks, text)`
    when the caller has it."""
    apart = set_apart(chunks, text) if apart is ASK else apart
    if not apart:
        return False
    how, at = apart
    if how == "label":
        part = text[at:]
    elif how == "opening":
        # The writer's words after a whole rendering: graded as a cut paste is, on what it covers.
        need = HIGH_MIN_LITERAL_PREFIX if agrees else HIGH_MIN_LITERAL_PREFIX_CLASSLESS
        return literal >= need and full_hit_is_high(literal / at, literal, rec, agrees, event, text[:at], values)
    elif how == "closing":
        # The writer's words before a whole rendering ending the text (an issue title's tag and
        # version): graded as a cut paste is, on what it covers.
        need = HIGH_MIN_LITERAL_PREFIX if agrees else HIGH_MIN_LITERAL_PREFIX_CLASSLESS
        part = text[at:]
        return literal >= need and full_hit_is_high(literal / len(part), literal, rec, agrees, event, part, values)
    else:
        part = at
    # The part behind the label is the message: one the interpreter raises is no evidence.
    return full_hit_is_high(literal / max(1, len(part)), literal, rec, agrees, event, part, values)


def full_hit_is_high(coverage: float, literal: int, rec: RecordRef, agrees: bool | None, event: ErrorEvent,
                     message: str | None = None, values: Sequence[str] = ()) -> bool:
    """Whether a whole-message hit is high confidence (see README, "How an error is matched");
    `message` is the part of the event's text the template covers, when not all of it.

    Values that name what their placeholders name (`values.corroborates`) count with the
    literal text, and such a value opening the message anchors it as literal text would."""
    need = high_min_literal(rec, agrees)
    said = event.message if message is None else message
    if literal >= need and coverage >= HIGH_MIN_COVERAGE:   # the words alone suffice (most lines of a log)
        return not interpreter_shaped(event.error_class, said)
    vouched = corroborated_length(rec.groups, rec.placeholders, values) if values else 0
    evidence = literal + vouched
    if evidence < need or interpreter_shaped(event.error_class, said):
        return False
    if coverage * evidence / max(1, literal) >= HIGH_MIN_COVERAGE:
        return True
    if agrees and evidence >= HIGH_MIN_LITERAL_LONG_VALUES and _own_part_covered(rec, said, values, evidence):
        return True
    anchored = bool(rec.chunks) and (bool(rec.chunks[0]) or (
        vouched > 0 and bool(rec.groups) and corroborates(rec.placeholders.get(rec.groups[0], rec.groups[0]), values[0])))
    # Mostly values: a second witness besides the words, the class or (none printed) a vouching value.
    if agrees:
        return evidence >= HIGH_MIN_LITERAL_LONG_VALUES and anchored
    if literal >= HIGH_MIN_LITERAL_LONG_VALUES_WORDS and anchored:
        return True
    if (agrees is None and anchored and literal >= HIGH_MIN_LITERAL_APPENDED_CLASSLESS and _appends_an_error(rec)
            and _own_part_covered(rec, said, values, evidence)):
        return True   # a logged `Ignore import error when loading {name}: {e}`: the appended error is not its text
    return vouched > 0 and evidence >= HIGH_MIN_LITERAL_LONG_VALUES_CLASSLESS and anchored


#: What a caught error is called where a message appends it (`{e}`, `{str(exc)}`, `{traceback.format_exc()}`).
_ERROR_VALUE = re.compile(r"^(?:str\(|repr\()?(?:e|ex|exc|err|error|exception|tb|traceback(?:\.format_exc\(\))?)\)?(?:!r|!s)?$")


def _appends_an_error(rec: RecordRef) -> bool:
    """Whether the template's last placeholder is a caught error's text."""
    return bool(rec.groups) and _is_error_value(rec, len(rec.groups) - 1)


def _is_error_value(rec: RecordRef, i: int) -> bool:
    expr = rec.placeholders.get(rec.groups[i], rec.groups[i]).replace(" ", "")
    return _ERROR_VALUE.match(expr) is not None


def cut_own_length(rec: RecordRef, values: Sequence[str], message_length: int) -> int:
    """The length of a cut rendering's own part: all of it, but a caught error's text it ends
    in (`... with exception {e}`, cut after the error: that text is another site's, however long)."""
    if values and len(values) <= len(rec.groups) and _is_error_value(rec, len(values) - 1):
        return max(1, message_length - len(values[-1]))
    return message_length


def _own_part_covered(rec: RecordRef, said: str, values: Sequence[str], evidence: int) -> bool:
    """Whether the words and vouching values cover half of the message up to its last value, when
    the template ends with that value: what a caller appends (`... + message`, `: {e}`) is the
    caller's text, however long, and the site's own part is everything before it (a template
    opening with a placeholder has no other way past a long appended hint)."""
    if not values or len(values) != len(rec.groups) or not rec.chunks or rec.chunks[-1]:
        return False
    own = len(normalize_space(said)) - len(values[-1])
    return own > 0 and evidence / own >= HIGH_MIN_COVERAGE
