"""Message templates: turn the expression passed to a raise/assert/warn into a `Template`.

A template is the message as written, with `{expr}` placeholders where the
runtime value goes: literals, implicit concatenation, f-strings (keeping `!r`
and format specs), `%` formatting, `str.format`, `+` concatenation, and names
resolved by the caller (local variables built earlier, module constants).
"""

from __future__ import annotations

import ast
import re
import string
import textwrap

from errdex.models import Placeholder, Template

_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[#0\- +]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?"
    r"[hlL]?(?P<conv>[diouxXeEfFgGcrsa%])"
)
_CONVERSIONS = {114: "!r", 115: "!s", 97: "!a"}
#: The expression node types `MessageBuilder.build` can turn into a template; for any other it returns None.
#: A parameter named like a message: a helper passes it on as one (not `x` in `f"bad {x}"`).
MESSAGE_PARAM = re.compile(r"msg|message|text|reason|detail|desc|what|err|why|explanation", re.I)

STRING_LIKE = frozenset({ast.Call, ast.Name, ast.Constant, ast.JoinedStr, ast.BinOp})


#: Forms whose template is a string's own text (a `repr` of it is that text quoted).
_STRING_FORMS = frozenset({"literal", "fstring", "percent", "format", "concat", "constant"})


def literal(text: str) -> Template:
    return Template([text] if text else [], "literal")


def whole(expr: str, form: str = "dynamic") -> Template:
    return Template([Placeholder(expr, expr)], form)


class MessageBuilder:
    """Builds templates from expressions of one file.

    `source_of` gives an expression's source text; `lookup` resolves a bare
    name to a template built earlier (local variable or module constant).
    """

    def __init__(self, source_of, lookup) -> None:
        self.source_of = source_of
        self.lookup = lookup

    def build(self, node: ast.expr | None) -> Template | None:
        """The template of a message expression, or None when it is not string-like.

        Dispatches on the exact node class (the parser makes no subclasses): this runs
        for every assignment and call argument of the codebase.
        """
        kind = node.__class__
        if kind is ast.Call:
            return self._call(node)
        if kind is ast.Name:
            return self.lookup(node.id)
        if kind is ast.Constant:
            value = node.value
            if value.__class__ is str:
                return literal(value)
            if isinstance(value, bytes):
                return literal(value.decode("utf-8", "replace"))
            return None
        if kind is ast.JoinedStr:
            return self._fstring(node)
        if kind is ast.BinOp:
            op = node.op.__class__
            if op is ast.Mod:
                left = self.build(node.left)
                if left is not None and left.form in ("literal", "constant"):
                    return self._percent(left, node.right)
                return None
            if op is ast.Add:
                return self._concat(node)
        return None

    def tuple_message(self, node: ast.Tuple) -> Template:
        """The text `str()` gives an assert's tuple message (`assert ok, (f"cp size {n}",)` shows
        `('cp size 2',)`): each element's repr, a string one quoted around its own template, any
        other a `{x!r}` placeholder; a one-element tuple keeps its comma. Review 22 #13: as one
        placeholder the template matched any message."""
        if any(isinstance(e, ast.Starred) for e in node.elts) or not node.elts:
            return whole(self.source_of(node))
        parts = [self.build(element) for element in node.elts]
        if not any(p is not None and p.form in _STRING_FORMS for p in parts):
            # `(a.shape, b.shape)`: no text of its own, only brackets and commas, which every log line
            # has; one placeholder, as before (a template of punctuation alone made scan 3x slower)
            return whole(self.source_of(node))
        segments: list = ["("]
        for i, (element, inner) in enumerate(zip(node.elts, parts)):
            if i:
                segments.append(", ")
            if inner is not None and inner.form in _STRING_FORMS:
                texts = "".join(s for s in inner.segments if isinstance(s, str))
                quote = '"' if "'" in texts and '"' not in texts else "'"
                segments += [quote, *inner.segments, quote]
            else:
                expr = self.source_of(element)
                segments.append(Placeholder(expr + "!r", expr))
        segments.append(",)" if len(node.elts) == 1 else ")")
        if not any(c.isalnum() for seg in segments if isinstance(seg, str) for c in seg):
            return whole(self.source_of(node))   # `(f"{x}", y)`: still no text of its own
        return _merge_literals(Template(segments, "tuple"))

    def build_or_dynamic(self, node: ast.expr) -> Template:
        """Like build, but anything else becomes one placeholder holding the whole expression."""
        t = self.build(node)
        return t if t is not None else whole(self.source_of(node))

    # -- forms -------------------------------------------------------------

    def _fstring(self, node: ast.JoinedStr) -> Template:
        t = Template(form="fstring")
        for v in node.values:
            if isinstance(v, ast.Constant):
                if v.value:
                    t.segments.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                if v.value.__class__ is ast.Name and v.conversion == -1 and v.format_spec is None:
                    inner = self.lookup(v.value.id)   # `f"{msg} To allow ..."`, `msg` a string built before
                    if inner is not None and (inner.form in _STRING_FORMS or (
                            inner.form == "variable" and any(seg.__class__ is str for seg in inner.segments))):
                        t.segments.extend(inner.segments)
                        continue
                expr = self.source_of(v.value)
                name = expr + _CONVERSIONS.get(v.conversion, "")
                if v.format_spec is not None:
                    name += ":" + self._spec_text(v.format_spec)
                t.segments.append(Placeholder(name, expr))
        return _merge_literals(t)

    def _spec_text(self, spec: ast.JoinedStr) -> str:
        out = []
        for v in spec.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                out.append("{" + self.source_of(v.value) + "}")
        return "".join(out)

    def _concat(self, node: ast.BinOp) -> Template | None:
        operands: list[ast.expr] = []
        _flatten_add(node, operands)
        parts = [self.build(op) for op in operands]
        if not any(p is not None and p.form != "dynamic" for p in parts):
            return None
        t = Template(form="concat")
        for op, p in zip(operands, parts):
            if p is None and isinstance(op, ast.Call) and isinstance(op.func, ast.Name) \
                    and op.func.id == "str" and len(op.args) == 1:
                op = op.args[0]  # "..." + str(x): the value shown is x
            t.segments.extend((p if p is not None else whole(self.source_of(op))).segments)
        return _merge_literals(t)

    def _percent(self, left: Template, right: ast.expr) -> Template:
        fmt = left.text() if all(isinstance(s, str) for s in left.segments) else None
        if fmt is None:
            return whole(self.source_of(right), "percent")
        if isinstance(right, ast.Tuple):
            args = [self.source_of(e) for e in right.elts]
            keyed = None
        elif isinstance(right, ast.Dict) and all(isinstance(k, ast.Constant) for k in right.keys):
            args = []
            keyed = {k.value: self.source_of(v) for k, v in zip(right.keys, right.values)}
        else:
            args = None
            keyed = None
            single = self.source_of(right)
        t = Template(form="percent")
        pos = 0
        last = 0
        count = sum(1 for m in _PERCENT.finditer(fmt) if m["conv"] != "%")
        for m in _PERCENT.finditer(fmt):
            t.segments.append(fmt[last:m.start()])
            last = m.end()
            if m["conv"] == "%":
                t.segments.append("%")
                continue
            key = m["key"]
            if key is not None:
                expr = keyed.get(key) if keyed else f"{self.source_of(right)}[{key!r}]"
                expr = expr or key
            elif args is not None:
                expr = args[pos] if pos < len(args) else f"arg{pos}"
            else:
                expr = single if count == 1 else f"{single}[{pos}]"
            pos += 1
            t.segments.append(Placeholder(expr, expr))
        t.segments.append(fmt[last:])
        return _merge_literals(t)

    def _call(self, node: ast.Call) -> Template | None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "format":
            base = self.build(func.value)
            if base is not None and base.form in ("literal", "constant"):
                return self._format(base.text(), node)
            return None
        if isinstance(func, ast.Name) and func.id == "str" and len(node.args) == 1:
            return self.build(node.args[0])
        if isinstance(func, ast.Attribute) and func.attr in ("strip", "rstrip", "lstrip") and not node.args:
            return self.build(func.value)
        if isinstance(func, ast.Attribute) and func.attr == "dedent" and len(node.args) == 1:
            inner = self.build(node.args[0])
            if inner is not None and all(isinstance(s, str) for s in inner.segments):
                return literal(textwrap.dedent(inner.text()))
            return inner
        return None

    def _format(self, fmt: str, call: ast.Call) -> Template:
        args = [self.source_of(a) for a in call.args if not isinstance(a, ast.Starred)]
        kwargs = {k.arg: self.source_of(k.value) for k in call.keywords if k.arg is not None}
        t = Template(form="format")
        auto = 0
        try:
            parsed = list(string.Formatter().parse(fmt))
        except ValueError:
            return literal(fmt)
        for lit, field_name, spec, conv in parsed:
            if lit:
                t.segments.append(lit)
            if field_name is None:
                continue
            head, rest = _split_field(field_name)
            suffix = (f"!{conv}" if conv else "") + (f":{spec}" if spec else "")
            if head == "":
                expr = (args[auto] if auto < len(args) else f"arg{auto}") + rest
                auto += 1
                t.segments.append(Placeholder(expr + suffix, expr))
            elif head.isdigit():
                i = int(head)
                expr = (args[i] if i < len(args) else f"arg{i}") + rest
                t.segments.append(Placeholder(expr + suffix, expr))
            else:
                expr = kwargs.get(head, head) + rest
                t.segments.append(Placeholder(field_name + suffix, expr))
        return _merge_literals(t)


def _split_field(field_name: str) -> tuple[str, str]:
    for i, ch in enumerate(field_name):
        if ch in ".[":
            return field_name[:i], field_name[i:]
    return field_name, ""


def _flatten_add(node: ast.expr, out: list[ast.expr]) -> None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        _flatten_add(node.left, out)
        _flatten_add(node.right, out)
    else:
        out.append(node)


def _merge_literals(t: Template) -> Template:
    t.segments = merged_literals(t.segments)
    return t


def merged_literals(segments: list) -> list:
    """Segments with adjacent literal text joined and empty text dropped, as every built template has them."""
    merged: list = []
    for s in segments:
        if isinstance(s, str):
            if not s:
                continue
            if merged and isinstance(merged[-1], str):
                merged[-1] += s
                continue
        merged.append(s)
    return merged
