"""Callers whose calls never pass what a site needs (`ErrorSite.optional_args`).

`eagle_prepare(...)` calls `plan(batch)` and never passes `full_v2p`: the
assert under `if full_v2p is not None:` in `plan` is out of its reach, so it is
neither a caller on the site's way nor an entry point through that call (review 18:
such callers were listed as ways to the site). Read from each caller's own text, each
call parsed alone from its brackets: a caller counts as unreached only when every call it makes to the
function is understood and each leaves out a needed argument or passes a literal
the site's test refutes. Anything else (`*args`, `**kwargs`, a value not known
here, no call found in its text) keeps the caller.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from errdex.exprsplit import closing_bracket
from errdex.safe_eval import evaluate

#: `__post_init__` takes no arguments of a constructor call (`InitVar`s aside): not read.
_SKIPPED = frozenset({"__post_init__"})


def args_key(optional: dict[str, dict] | None) -> tuple:
    """A record's `optionalArgs` as a hashable key (sites of one function may need different ones)."""
    if not optional:
        return ()
    return tuple((name, spec.get("test"), spec.get("default"), spec.get("position"))
                 for name, spec in sorted(optional.items()))


class CallerCalls:
    """Callers' function texts, read once each (a file once for all its functions), and the calls they make."""

    def __init__(self, root: str | None, locations: dict[str, tuple[str, int]],
                 read: Callable[[str], list[str] | None] | None = None) -> None:
        self.root = root
        self.locations = locations   # function qualname -> (file path under root, `def` line)
        self._read = read or self._read_file
        self._files: dict[str, list[str] | None] = {}
        self._texts: dict[str, str | None] = {}

    def unreached(self, callee: str, callers: Iterable[str], optional: dict[str, dict]) -> frozenset[str]:
        """The callers none of whose calls to `callee` can pass what `optional` needs."""
        owner, _, short = callee.rpartition(".")
        if not optional or short in _SKIPPED:
            return frozenset()
        names = {short}
        if short == "__init__":   # `Cls(...)` runs it
            names.add(owner.rpartition(".")[2])
        out = set()
        for caller in callers:
            text = self._text(caller)
            if text is None:
                continue
            calls = _calls_named(text, names)
            if calls and not any(call is None or _may_reach(call, optional, text) for call in calls):
                out.add(caller)
        return frozenset(out)

    def _text(self, qualname: str) -> str | None:
        if qualname in self._texts:
            return self._texts[qualname]
        text = None
        where = self.locations.get(qualname)
        if where is not None:
            lines = self._files.get(where[0], False)
            if lines is False:
                lines = self._files[where[0]] = self._read(where[0])
            text = _function_text(lines, where[1]) if lines else None
        self._texts[qualname] = text
        return text

    def _read_file(self, rel: str) -> list[str] | None:
        if self.root is None:
            return None
        try:
            return Path(self.root, rel).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return None


def _calls_named(text: str, names: set[str]) -> list[ast.Call | None]:
    """Each call of one of `names` in the text (`name(...)` or `obj.name(...)`), parsed alone from
    its own brackets (parsing every caller whole cost seconds on sglang); None for one whose
    brackets do not parse (a string holding a bracket, say): it may pass anything."""
    found: list[ast.Call | None] = []
    for name in names:
        for m in re.finditer(rf"(?<![\w]){re.escape(name)}\s*\(", text):
            if m.start() and text[m.start() - 1] != "." and _after_def(text, m.start()):
                continue   # `def name(`: its own signature, not a call
            close = closing_bracket(text, m.end() - 1)
            if close is None:
                found.append(None)
                continue
            try:
                call = ast.parse(f"_({text[m.end():close]})", mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                found.append(None)
                continue
            if not isinstance(call, ast.Call):
                call = None
            elif call.args and isinstance(call.args[0], ast.Name) and call.args[0].id == "self" \
                    and m.start() and text[m.start() - 1] == "." and _receiver_is_class(text, m.start() - 1):
                call = None   # `Base.method(self, ...)`: the positions are one off, not worth guessing
            found.append(call)
    return found


def _receiver_is_class(text: str, dot: int) -> bool:
    """Whether the name before the dot at `dot` is capitalised (`Base.__init__(self, ...)`)."""
    start = dot
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start:start + 1].isupper()


def _after_def(text: str, at: int) -> bool:
    return text[max(0, at - 4):at] == "def " or text[max(0, at - 6):at] == "class "



def _may_reach(call: ast.Call, optional: dict[str, dict], text: str = "") -> bool:
    """Whether this call may pass every needed argument with a value the site's test accepts.
    `text`: the caller's, where a `**name` spread may be a local dict of known keys."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True   # `*args`: what it holds is not known here
    given = {k.arg: k.value for k in call.keywords if k.arg is not None}
    for k in call.keywords:
        if k.arg is None:   # `**kwargs`: known only for a local dict display (review 28 #10)
            keys = _dict_keys(text, k.value.id) if isinstance(k.value, ast.Name) else None
            if keys is None:
                return True
            given.update((key, ast.Name(key)) for key in keys if key not in given)
    for name, spec in optional.items():
        value = given.get(name)
        position = spec.get("position")
        if value is None and position is not None and position < len(call.args):
            value = call.args[position]
        if value is None:
            return False   # left out: the default, which the site's test refutes
        try:
            literal = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue   # a value not known here: it may pass
        if evaluate(spec["test"], {name: literal}) is False:
            return False
    return True


def _dict_keys(text: str, name: str) -> set[str] | None:
    """The keys a local `name` may hold, when every binding of it in the caller's text is a dict
    display with string keys (`conv_kwargs = {"block_table": t}` or `= {}`) and nothing adds to
    it (`name[k] = v`, `name.update(...)`); None otherwise (a parameter, a call, a comprehension)."""
    signature = text.split(":\n", 1)[0]
    if re.search(rf"(?<![\w.]){re.escape(name)}\b", signature) or re.search(
            rf"(?<![\w.]){re.escape(name)}\s*(?:\[|\.(?:update|setdefault|__setitem__|__ior__)\b|\|=)", text):
        return None
    keys: set[str] = set()
    bound = False
    for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\s*(?::[^=\n]*)?=(?!=)\s*", text):
        if m.end() >= len(text) or text[m.end()] != "{":
            return None
        close = closing_bracket(text, m.end())
        rest = text[close + 1:].split("\n", 1)[0].strip() if close is not None else "?"
        if close is None or (rest and not rest.startswith("#")):
            return None
        try:
            node = ast.parse(text[m.end():close + 1], mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if not isinstance(node, ast.Dict) or not all(
                isinstance(key, ast.Constant) and isinstance(key.value, str) for key in node.keys):
            return None
        keys.update(key.value for key in node.keys)
        bound = True
    return keys if bound else None


def _function_text(lines: list[str], def_line: int) -> str | None:
    """The function starting at `def_line` (1-based), dedented: its signature up to the line its
    brackets close on, then the lines indented past the `def` (blank lines and comments between).
    A text this cuts wrong (a string running back to the margin) fails to parse: no answer then."""
    start = def_line - 1
    if not 0 <= start < len(lines):
        return None
    head = lines[start]
    stripped = head.lstrip()
    if not stripped.startswith(("def ", "async def ")):
        return None
    indent = len(head) - len(stripped)
    depth, end = 0, start
    for end in range(start, len(lines)):   # the signature: until its brackets close
        for ch in lines[end]:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
        if depth <= 0:
            break
    else:
        return None
    last = end
    for i in range(end + 1, len(lines)):
        line = lines[i]
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        if len(line) - len(line.lstrip()) <= indent:
            break
        last = i
    return "\n".join(line[indent:] for line in lines[start:last + 1])
