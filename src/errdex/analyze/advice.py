"""The fix an error message states itself: "…; use --tp-size instead", "Please install timm".

Authors often write the remedy into the message. It is the code's own word,
so a page quotes it (with the template's placeholders as written) next to
the fixes derived from the condition, instead of leaving the reader to find
it in the message. Rules, no model: a sentence of the template that starts
with an instruction verb ("use", "set", "please install", "call … first"),
or one that says "instead", or a `pip install …` command.
"""

from __future__ import annotations

import re

_VERBS = ("use|please|try|consider|set|unset|pass|install|run|make sure|ensure|enable|disable|specify|"
          "increase|decrease|reduce|lower|upgrade|downgrade|add|remove|omit|drop|provide|call|switch|choose|"
          "select|update|rebuild|reinstall|export|launch|start|restart|check|change|configure|define|override|"
          "implement|register|rename|move|shorten|retry|wait|declare|adjust|avoid|do not|don't|turn (?:on|off)|"
          "recompile|convert|apply|assign|refer to|see|report|file an issue|open an issue|contact|allocate")
_LEAD = (r"(?:\(?\d+[.)]\s*)?(?:you (?:can|may|should|must|need to)\s+|to fix(?: this)?,?\s+|hint:\s*|fix:\s*|"
         r"instead,?\s+)?")
_ADVICE = re.compile(rf"{_LEAD}(?:{_VERBS})\b(?![:(])", re.I)   # not a label ("override: ...") or a call ("retry()")
#: A report, not an instruction: "register memory failed for {name}", "Retry with ... also failed".
_REPORT = re.compile(r"\bfailed\b", re.I)
_INSTEAD = re.compile(r"\binstead\b(?!\s+of\b)", re.I)
_PIP = re.compile(r"`?pip install [^`)\n]+`?")
#: Sentence ends, but not inside "e.g." or "i.e." and not in a decimal or a dotted name; a
#: dash between spaces ("... -- declare it with ...") starts a clause of its own.
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<=[.;!?])\s+|:\s+(?=[A-Z])|\n+|\s+(?:--|\u2014)\s+")
#: "launch failed", "check is off": a verb-like first word that is a noun here.
_NOT_AN_ORDER = re.compile(r"^\w+\s+(?:failed|finished|started|completed|succeeded|timed|crashed|stopped|exited|"
                           r"returned|raised|reached|exceeded|aborted|is|was|are|were|has|have|had|not|of|for|"
                           r"error|errors|mismatch|timeout)\b|^(?:do not|don't)\s+(?:support|have|know|match|exist|"
                           r"work|allow|accept|expect)\b", re.I)
MAX_ADVICE = 2
MAX_CHARS = 240


#: In a log line, a sentence that tells what the code itself did, however it opens: "Disable X
#: because Y", "Set DSA backends for ...: prefill=a, decode=b", "Use {backend} as attention
#: backend on {platform}" (review 29 #16: quoted as the fix, it stops nothing).
_DONE = re.compile(r"\b(?:because|as it|since|due to)\b|:\s*\w+=|\w=\{|\bas [\w ]*backend\b", re.I)
_ASKED = re.compile(r"^(?:please|you (?:can|may|should|must|need to)|to fix|consider|try)\b", re.I)


def message_advice(template: str | None, report: bool = False) -> list[str]:
    """Up to `MAX_ADVICE` instructions the message gives, in its order (none for most messages).
    `report`: a log or warning's message, which often tells what the code did in the words of an
    order (`_DONE`); such a sentence is left out unless it plainly asks (`_ASKED`)."""
    if not template:
        return []
    found: list[str] = []
    for sentence in _SENTENCE_END.split(template):
        sentence = sentence.strip().rstrip(";,:").strip()
        if sentence[:1] in "([" and sentence[-1:] in ")]":
            sentence = sentence[1:-1].strip()
        if len(sentence) < 6 or len(sentence) > MAX_CHARS:
            continue
        if report and _DONE.search(sentence) and not _ASKED.match(sentence):
            continue
        if (_ADVICE.match(sentence) and not _NOT_AN_ORDER.match(sentence) and not _REPORT.search(sentence)) \
                or _INSTEAD.search(sentence):
            found.append(sentence)
        else:
            found.extend(m.group(0).strip("`") for m in _PIP.finditer(sentence))
        if len(found) >= MAX_ADVICE:
            break
    return found[:MAX_ADVICE]
