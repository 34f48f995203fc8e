"""Python expression text cut at a separator that stands outside brackets and string literals.

Without parsing: a condition stored as text is split once per record (so only brackets,
quotes and the separator are visited, found by a regex), and a line pasted from an issue
(`assert x, (a, b)`) may be cut short and not parse at all.
"""

from __future__ import annotations

import re

_TOKENS: dict[str, re.Pattern] = {}


def split_top_level(text: str, separator: str, maxsplit: int = -1) -> list[str]:
    """The pieces of `text` between top-level occurrences of `separator`, as written (not stripped);
    at most `maxsplit` cuts when it is not negative."""
    tokens = _TOKENS.get(separator)
    if tokens is None:
        tokens = _TOKENS[separator] = re.compile(r"""[()\[\]{}'"\\]|""" + re.escape(separator))
    pieces: list[str] = []
    depth, start, quote, skip_to = 0, 0, "", -1
    for m in tokens.finditer(text):
        tok, at = m.group(), m.start()
        if at < skip_to:
            continue
        if quote:
            if tok == "\\":
                skip_to = at + 2   # an escaped character never closes the literal
            elif tok == quote:
                quote = ""
        elif tok in "'\"":
            quote = tok
        elif tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth -= 1
        elif tok == separator and depth == 0:
            pieces.append(text[start:at])
            start = at + len(separator)
            if len(pieces) == maxsplit:
                break
    pieces.append(text[start:])
    return pieces


_BRACKET_TOKENS = re.compile(r"""[()\[\]{}'"#\\\n]""")


def closing_bracket(text: str, open_at: int) -> int | None:
    """The index of the bracket that closes the one at `open_at`, past string literals (triple
    quoted too) and comments; None when the text ends first."""
    depth, quote, comment, skip_to = 0, "", False, -1
    for m in _BRACKET_TOKENS.finditer(text, open_at):
        at = m.start()
        if at < skip_to:
            continue
        tok = m.group()
        if comment:
            comment = tok != "\n"
        elif quote:
            if tok == "\\":
                skip_to = at + 2   # an escaped character never closes the literal
            elif text.startswith(quote, at):
                skip_to, quote = at + len(quote), ""
        elif tok in "'\"":
            quote = tok * 3 if text.startswith(tok * 3, at) else tok
            skip_to = at + len(quote)
        elif tok == "#":
            comment = True
        elif tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth -= 1
            if depth == 0:
                return at
    return None
