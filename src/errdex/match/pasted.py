"""Pieces of pasted prose that may be an error: quoted or labelled messages, a retyped
message's spelling, the literal text of an `assert` statement's message, an assert's
test written where Python would print the message.
"""

from __future__ import annotations

import ast
import re

from errdex.match.patterns import WRAPPER_LABEL_MAX, place_template

_QUOTED = re.compile(r'"([^"]{20,})"|`([^`]{20,})`|“([^”]{20,})”')


def quoted_rendering(chunks: list[str], text: str) -> str | None:
    """The quoted span of a sentence (`I got `<message>` when streaming`) that is a whole
    rendering of the template (normalised chunks), or None: the writer marked it as the message."""
    for m in _QUOTED.finditer(text):
        span = next(g for g in m.groups() if g).strip()
        placed = place_template(chunks, span)
        if placed is not None and placed[0] == "full":
            return span
    return None


#: What a tracker or a writer puts where it cut a text (GitHub cuts a long title with `…`).
_CUT_MARKS = ("…", "...")


def cut_mark_dropped(message: str) -> str | None:
    """The message without a cut mark ending it (`... Some GPUs …`, a title GitHub cut), or
    None when it ends with none: what comes before the mark is a cut paste."""
    text = message.rstrip()
    for mark in _CUT_MARKS:
        if text.endswith(mark):
            rest = text[:-len(mark)].rstrip()
            return rest or None
    return None


_OPENERS = {"'": "'", '"': '"', "`": "`", "“": "”"}


def _unclosed_quote(message: str) -> str | None:
    """What follows a quote mark opened after a space and never closed, in a cut text (`fix the
    exception 'the memory capacity is unbalanced. Some GPUs`): the quoted message, cut."""
    best = None
    for opener, closer in _OPENERS.items():
        at = message.find(" " + opener)
        while at != -1:
            rest = message[at + 2:]
            if closer not in rest and len(rest) >= 20 and (best is None or len(rest) > len(best)):
                best = rest
                break
            at = message.find(" " + opener, at + 1)
    return best


def quoted_parts(message: str) -> list[str]:
    """Parts of a sentence that may be an error message: quoted spans of 20+ characters,
    then what follows a label near the start: several words ending in ': ', or any ending in
    a full-width colon (`报错信息：<message>`). In a text ending with a cut mark, a quote opened
    and never closed holds a cut message. A part whose first letter the writer lowered to fit
    the sentence (`fix the exception 'the memory ...`) is also tried capitalised."""
    cut = cut_mark_dropped(message)
    if cut is not None:
        message = cut
    parts = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(message)]
    if cut is not None and (opened := _unclosed_quote(message)) is not None:
        parts.append(opened)
    wide = message.find("：")   # a full-width colon: a CJK label, words without spaces
    if 0 < wide <= WRAPPER_LABEL_MAX and len(message) - wide > 20:
        parts.append(message[wide + 1:].strip())
    at = message.find(": ")
    while 0 < at <= WRAPPER_LABEL_MAX:
        if " " in message[:at].strip() and len(message) - at > 20:
            parts.append(message[at + 2:])
            break
        at = message.find(": ", at + 1)
    out = []
    for part in parts:
        out.append(part)
        if part[:1].islower() and part[1:2].islower():
            out.append(part[0].upper() + part[1:])
    return out


_WRAPPED = re.compile(r'^(?P<q>[`"“\'])(?P<body>.+?)(?P<end>[`"”\'])$', re.S)
_CLOSERS = {"`": "`", '"': '"', "“": "”", "'": "'"}


def unwrapped(text: str) -> str:
    """A pasted message without what the writer put around it: quotes or backticks enclosing
    all of it (markdown code), and a question mark ending it (`... not supported for now? `):
    a message ends with its own words, the writer's question is not one of them."""
    text = text.strip()
    found = _WRAPPED.match(text)
    if found and _CLOSERS[found.group("q")] == found.group("end") \
            and found.group("q") not in found.group("body") and found.group("end") not in found.group("body"):
        text = found.group("body").strip()   # a quote inside: the marks belong to the message ('x' has no 'y')
    if text.endswith("?") and not text.endswith("??"):
        text = text[:-1].rstrip()
    return text


_ENDING_SPAN = re.compile(r"`(?P<body>[^`]{20,})`[\s.,;:!?)]*$")


def ending_code_span(line: str) -> str | None:
    """The markdown code span a writer's sentence ends with (``it fails with `Model architectures
    [...] are not supported for now? ` ``), when it is not the whole line; else None."""
    found = _ENDING_SPAN.search(line)
    if found is None or not line[:found.start()].strip():
        return None
    return found.group("body")


def closing_mark_dropped(message: str) -> str:
    """A parsed message without the backtick that closes a markdown code span opened before
    it (`` `ValueError: bad x` ``: the span began before the class, so the message keeps only
    its end); a backtick the message pairs inside stays."""
    text = message.rstrip()
    if text.endswith("`") and text.count("`") % 2 == 1:
        return text[:-1].rstrip()
    return message


_STRING_LITERAL = re.compile(r"""^[rRbBuUfF]{0,2}(?P<q>'{3}|"{3}|'|")(?P<body>.*)(?P=q)$""", re.S)
_FIELD = re.compile(r"\{[^{}]*\}")
_SELF_DOCUMENTING = re.compile(r"\{([^{}=!:]+)=[^{}]*\}")


def literal_skeleton(source: str) -> str | None:
    """The literal text of a string-literal message source, values removed, no whitespace."""
    found = _STRING_LITERAL.match(source.strip())
    if found is None:
        return None
    return _skeleton_of(found.group("body"))


def _skeleton_of(body: str) -> str:
    body = _SELF_DOCUMENTING.sub(lambda m: m.group(1).strip() + "=", body)
    return squash(_FIELD.sub("", body))


_LITERAL_PART = re.compile(r"""[rRbBuUfF]{0,2}(?P<q>'{3}|"{3}|'|")(?P<body>(?:\\.|(?!(?P=q)).)*)(?P=q)""", re.S)


def concatenated_skeleton(source: str) -> str | None:
    """`literal_skeleton` of a message source written as adjacent string literals, in brackets
    or not (`("Cannot " f"run {x}")`, how long messages are split over lines), or None when
    the source holds anything else (a name, a call, `+`)."""
    parts = list(_LITERAL_PART.finditer(source))
    rest = _LITERAL_PART.sub("", source)
    if not parts or rest.strip(" \t\n()"):
        return None
    return _skeleton_of("".join(p.group("body") for p in parts))


#: Characters a retyped message must keep (letters and digits) to be looked up by them alone.
RETYPED_MIN_CHARS = 20
_NOT_ALNUM = re.compile(r"[\W_]+")


def spelled(text: str) -> str:
    """Letters and digits only, case folded: what survives retyping a message by hand."""
    return _NOT_ALNUM.sub("", text).casefold()


def squash(expr: str) -> str:
    """An expression without whitespace (how asserts are compared)."""
    return "".join(expr.split())


_SELF = re.compile(r"(?<![\w.])self\.")
_KEYWORD = r"(?:and|or|not|is|in|if|else|for|lambda|await)\b"
#: Two words in a row, neither a keyword: a sentence, not an expression (read before parsing).
_PROSE = re.compile(rf"(?<![\w.])(?!{_KEYWORD})[A-Za-z_]\w*\s+(?!{_KEYWORD})[A-Za-z_(]")
#: What a test does (compares, calls, negates, combines): a bare name or number is no test.
_TESTING = (ast.Compare, ast.Call, ast.BoolOp, ast.UnaryOp)


def told_test(message: str) -> str | None:
    """The message as the test of a bare `assert`, squashed and without `self.`, when it is
    one Python expression that tests something: a writer quoting the assert that failed
    (`AssertionError: pool.free() <= pool.size`), which Python itself prints with no message
    and a writer retells without the method's `self.`."""
    text = message.strip()
    if not text or len(text) > 400 or _PROSE.search(text):
        return None
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return None
    return unselfed(text) if isinstance(tree.body, _TESTING) else None


def unselfed(expr: str) -> str:
    """An assert's test squashed, without `self.` (how a retold test is compared)."""
    return _SELF.sub("", squash(expr))
