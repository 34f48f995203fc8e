"""Values a sentence states as triggering the error, read out of prose.

"raised when M <= 0", "if M is 0", "N = 1024", "when M is greater than 512"
each name a value for a name the condition reads. For a range (`M > 100`)
the value nearest its bound stands for the whole claim: if the condition
rules that value out, the claim is wrong for part of its range at least.
Sentences that tell the reader what to do ("keep M <= 512", "ensure ...")
are advice, not trigger claims, and are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_OPS = {
    "<=": "<=", "≤": "<=", "=<": "<=", ">=": ">=", "≥": ">=", "=>": ">=",
    "==": "==", "=": "==", "!=": "!=", "≠": "!=", "<": "<", ">": ">",
}
_WORD_OPS = (
    (r"is\s+(?:greater|larger|more|bigger)\s+than\s+or\s+equal\s+to", ">="),
    (r"is\s+(?:less|smaller|lower|fewer)\s+than\s+or\s+equal\s+to", "<="),
    (r"(?:is\s+)?(?:greater|larger|more|bigger|higher)\s+than|exceeds?|is\s+above|is\s+over", ">"),
    (r"(?:is\s+)?(?:less|smaller|lower|fewer)\s+than|is\s+below|is\s+under", "<"),
    (r"is\s+at\s+least", ">="),
    (r"is\s+at\s+most", "<="),
    (r"is\s+not|!=", "!="),
    (r"equals?|is\s+equal\s+to|is|of|set\s+to", "=="),
)
_WORD_VALUES = {"zero": 0, "negative": -1, "positive": 1, "none": None, "true": True, "false": False}
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n+")
_ADVICE = re.compile(
    r"\b(ensure|make sure|keep|must|should|need(?:s)? to|valid|allowed|supported|avoid|"
    r"instead|check that|limit|clamp|use|pass|set|reduce|increase|lower|raise the)\b", re.I)
_TRIGGER = re.compile(r"\b(when|if|whenever|raise[sd]?|trigger(?:s|ed)?|fails?|occurs?|happens?|"
                      r"throws?|error)\b", re.I)


@dataclass(frozen=True, slots=True)
class Claim:
    """`name op value` as a sentence states it, and the value that stands for it."""

    name: str
    op: str
    value: object
    sentence: str

    def witness(self) -> object:
        """A value the claim says triggers: the bound itself, or next to it."""
        if self.op in ("==", "<=", ">=") or not isinstance(self.value, (int, float)) \
                or isinstance(self.value, bool):
            return self.value
        step = 1 if isinstance(self.value, int) else 1e-9
        if self.op == ">":
            return self.value + step
        if self.op == "<":
            return self.value - step
        return None  # "!=": no single value stands for it


def trigger_claims(text: str, names: set[str], *, all_sentences: bool) -> list[Claim]:
    """Claims about `names` in the trigger sentences of `text`.

    `all_sentences` treats every non-advice sentence as describing a trigger
    (triggerScenarios, commonSituations); otherwise a sentence must say so
    ("when", "raises", ...), as in documentation.
    """
    claims: list[Claim] = []
    for sentence in _SENTENCE.split(text):
        if _ADVICE.search(sentence):
            continue
        if not all_sentences and not _TRIGGER.search(sentence):
            continue
        claims.extend(_sentence_claims(sentence, names))
    return claims


def _sentence_claims(sentence: str, names: set[str]) -> list[Claim]:
    found: list[Claim] = []
    for name in sorted(names, key=len, reverse=True):
        if not re.search(rf"(?<![\w.]){re.escape(name)}(?![\w(])", sentence):
            continue
        found.extend(_claims_for(name, sentence))
    return found


def _claims_for(name: str, sentence: str) -> list[Claim]:
    ref = rf"`?(?<![\w.]){re.escape(name)}(?![\w(])`?"
    value = rf"`?({_NUMBER}|{'|'.join(_WORD_VALUES)})\b`?"
    symbols = "|".join(re.escape(op) for op in sorted(_OPS, key=len, reverse=True))
    claims: list[Claim] = []
    for match in re.finditer(rf"{ref}\s*({symbols})\s*{value}", sentence, re.I):
        claims.append(Claim(name, _OPS[match.group(1)], _value(match.group(2)), sentence))
    if claims:
        return claims
    for phrase, op in _WORD_OPS:
        for match in re.finditer(rf"{ref}\s+(?:{phrase})\s+{value}", sentence, re.I):
            claims.append(Claim(name, op, _value(match.group(1)), sentence))
        if claims:
            break
    return claims


def _value(text: str) -> object:
    lowered = text.lower()
    if lowered in _WORD_VALUES:
        return _WORD_VALUES[lowered]
    number = float(text)
    return int(number) if number.is_integer() and not re.search(r"[.eE]", text) else number
