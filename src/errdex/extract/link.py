"""The cross-file link step: class hierarchy, re-exports, and sites raised through helpers.

Workers see one file each; this step sees the whole codebase's FileFacts and
resolves what needs more than one file: `pkg.KernelLimitError` re-exported by
`pkg/__init__.py` is `pkg.errors.KernelLimitError`, whose bases go down to
builtins; a call `fail(f"bad {x}")` to `def fail(msg): raise ValueError(msg)`
in another module is a site of its own.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field, replace

from errdex.extract.messages import merged_literals
from errdex.models import ClassFacts, ErrorSite, FactoryDef, FileFacts, HelperCall, HelperDef, Placeholder, Template

_MAX_HOPS = 12


@dataclass(slots=True)
class ClassInfo:
    """What a site's class resolves to."""

    qualname: str              # resolved dotted name ("builtins.ValueError" shown as "ValueError")
    bases: list[str]           # direct bases, display names
    ancestors: list[str]       # every ancestor, nearest first, display names
    error_code: str | None = None


@dataclass(slots=True)
class Codebase:
    """Name tables over every file of a dataset."""

    classes: dict[str, ClassFacts] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    helpers: dict[str, HelperDef] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)   # "pkg.mod.NAME" -> module-level string
    factories: dict[str, FactoryDef] = field(default_factory=dict)

    @classmethod
    def from_facts(cls, facts: list[FileFacts]) -> "Codebase":
        cb = cls()
        for f in facts:
            for c in f.classes:
                cb.classes[c.qualname] = c
            for local, target in f.imports.items():
                cb.aliases[f"{f.module}.{local}"] = target
            for local, target in f.class_aliases.items():
                cb.aliases[f"{f.module}.{local}"] = target
            for h in f.helpers:
                cb.helpers.setdefault(h.qualname, h)
            for name, text in f.string_constants.items():
                cb.constants[f"{f.module}.{name}"] = text
            for d in f.factories:
                cb.factories.setdefault(d.qualname, d)
        return cb

    def resolve(self, ref: str, table: dict, _depth: int = 0) -> str:
        """Follow re-exports until `ref` names something in `table` (or give up as is).

        Bounded in hops and in depth, so alias cycles (`a.X -> b.X -> a.X`) end.
        """
        seen = 0
        while ref not in table and seen < _MAX_HOPS:
            seen += 1
            target = self.aliases.get(ref)
            if target is None:
                head, _, tail = ref.rpartition(".")
                if not head or _depth >= _MAX_HOPS:
                    break
                base = self.resolve(head, {}, _depth + 1) if head in self.aliases else None
                if base is None or base == head:
                    break
                target = f"{base}.{tail}"
            if target == ref:
                break
            ref = target
        return ref

    def class_info(self, ref: str) -> ClassInfo:
        qual = self.resolve(ref, self.classes)
        facts = self.classes.get(qual)
        bases = [self.resolve(b, self.classes) for b in facts.bases] if facts else _builtin_bases(qual)
        ancestors: list[str] = []
        todo, seen = list(bases), {qual}
        code = facts.error_code if facts else None
        while todo:
            b = todo.pop(0)
            if b in seen:
                continue
            seen.add(b)
            ancestors.append(b)
            bf = self.classes.get(b)
            if bf is not None:
                code = code or bf.error_code
                todo.extend(self.resolve(x, self.classes) for x in bf.bases)
            else:
                todo.extend(_builtin_bases(b))
        return ClassInfo(qual, [_display(b) for b in bases], [_display(a) for a in ancestors], code)

    def helper_for(self, call: HelperCall) -> HelperDef | None:
        return self._function(call.callee, self.helpers)

    def factory_for(self, call: HelperCall) -> FactoryDef | None:
        return self._function(call.callee, self.factories)

    def _function(self, callee: str, table: dict):
        """The entry of `table` a call reaches: through re-exports, and for a method reached
        through self, in the class's ancestors."""
        ref = self.resolve(callee, table)
        found = table.get(ref)
        if found is None and "." in ref:
            cls_ref, _, meth = ref.rpartition(".")
            if cls_ref in self.classes:
                for anc in self.class_info(cls_ref).ancestors:
                    found = table.get(f"{self.resolve(anc, self.classes)}.{meth}")
                    if found is not None:
                        break
        return found


def _builtin_bases(qual: str) -> list[str]:
    if not qual.startswith("builtins."):
        return []
    obj = getattr(builtins, qual[9:], None)
    if not isinstance(obj, type):
        return []
    return [f"builtins.{b.__name__}" for b in obj.__bases__ if b is not object]


def _display(qual: str) -> str:
    return qual[9:] if qual.startswith("builtins.") else qual


def inline_imported_constants(cb: Codebase, facts: list[FileFacts]) -> None:
    """A message naming a string constant imported from another module of the codebase
    (`from .errors import NO_LORA; raise RuntimeError(NO_LORA)`) holds the constant's text.

    The walker inlines constants of the site's own module; imported ones are known only
    here. A placeholder is replaced when it is a bare name the file imports and the name
    resolves, through re-exports, to a module-level string of the codebase.
    """
    for f in facts:
        if not f.imports:
            continue
        for site in f.sites:
            message = _with_constants(cb, f, site.message)
            if message is not None:
                site.message = message


def link_factories(cb: Codebase, facts: list[FileFacts]) -> None:
    """`raise self._unsupported(ratio, "KV")`: the site raises what the factory returns, its class
    and its message with the call's arguments in place of the parameters. A class whose constructor
    shapes its message (`extract.constructors`) is a factory of its own message only."""
    for f in facts:
        for call in f.factory_calls:
            factory = cb.factory_for(call)
            if factory is None:
                continue
            inner, site = factory.site, call.site
            site.message = _applied(inner.message, factory.params, call.args)
            if factory.qualname in cb.classes:   # the class's own constructor: the class stays as written
                continue
            site.error_type, site.error_class, site.class_ref = inner.error_type, inner.error_class, inner.class_ref
            site.http_status = inner.http_status if inner.http_status is not None else site.http_status
            site.error_code = inner.error_code or site.error_code


_NAME = re.compile(r"(?<![\w.'\"])[A-Za-z_]\w*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?|True|False|None")


def _applied(message: Template, params: list[str], args: dict[str, Template]) -> Template:
    """The factory's message with each parameter bound to the call's argument: a string argument's
    own text (or template) in place of a bare `{param}`, else the argument's source in the expression."""
    bound = {p: args.get(str(i)) or args.get(p) for i, p in enumerate(params)}
    sources = {p: _source(a) for p, a in bound.items() if a is not None}
    segments: list = []
    for s in message.segments:
        if not isinstance(s, Placeholder):
            segments.append(s)
            continue
        arg = bound.get(s.expr)
        if arg is not None and s.name == s.expr and arg.form != "dynamic":
            segments.extend(arg.segments)
            continue
        if arg is not None and s.name == s.expr and _NUMBER.fullmatch(_source(arg)):
            segments.append(_source(arg))   # `CodeError(42, ...)` prints 42
            continue
        rename = (lambda m: sources.get(m.group(), m.group())) if sources else None
        segments.append(Placeholder(_NAME.sub(rename, s.name), _NAME.sub(rename, s.expr)) if rename else s)
    only = len(message.segments) == 1 and isinstance(message.segments[0], Placeholder)
    arg = bound.get(message.segments[0].expr) if only else None
    return Template(merged_literals(segments), arg.form if arg is not None else message.form)


def _source(arg: Template) -> str:
    """An argument as an expression: its source when it is one value, else its text as a literal."""
    if len(arg.segments) == 1 and isinstance(arg.segments[0], Placeholder):
        expr = arg.segments[0].expr
        return expr if _atom(expr) else f"({expr})"
    if all(isinstance(s, str) for s in arg.segments):
        return repr("".join(arg.segments))
    return f"({arg.text()!r})"


def _atom(expr: str) -> bool:
    """Whether an expression needs no parentheses where a name stood (a call, subscript, attribute)."""
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant))


def _with_constants(cb: Codebase, f: FileFacts, message: Template) -> Template | None:
    segments: list = []
    changed = False
    for s in message.segments:
        if isinstance(s, Placeholder) and s.name == s.expr and s.expr in f.imports:
            text = cb.constants.get(cb.resolve(f.imports[s.expr], cb.constants))
            if text is not None:
                segments.append(text)
                changed = True
                continue
        segments.append(s)
    if not changed:
        return None
    merged = merged_literals(segments)
    whole = all(isinstance(s, str) for s in merged)
    return Template(merged, "constant" if whole and message.form == "dynamic" else message.form)


def helper_sites(cb: Codebase, calls: list[HelperCall]) -> list[ErrorSite]:
    """A site per helper call whose message argument is a template (literal, f-string, ...)."""
    out = []
    for call in calls:
        helper = cb.helper_for(call)
        if helper is None:
            continue
        arg = call.args.get(str(helper.param_index)) or call.args.get(helper.param)
        if arg is None or arg.form == "dynamic":
            continue
        segments: list = []
        for s in helper.site.message.segments:
            if isinstance(s, Placeholder) and s.expr == helper.param:
                segments.extend(arg.segments)
            else:
                segments.append(s)
        inner = helper.site
        site = replace(call.site, error_type=inner.error_type, error_class=_passed_kind(helper, call) or inner.error_class,
                       class_ref=inner.class_ref, message=Template(segments, arg.form),
                       severity=inner.severity, http_status=_passed_status(helper, call) or inner.http_status,
                       error_code=inner.error_code, helper=helper.qualname, responds=inner.responds)
        out.append(site)
    return out


def _passed(helper: HelperDef, param: str | None, table: dict):
    """What a call passes for one of the helper's parameters, by keyword or by position."""
    if param is None:
        return None
    found = table.get(param)
    if found is None and param in helper.params:
        found = table.get(str(helper.params.index(param)))
    return found


def _passed_status(helper: HelperDef, call: HelperCall) -> int | None:
    """The status a call gives an error-response helper (`status_code=HTTPStatus.NOT_FOUND`)."""
    return _passed(helper, helper.status_param, call.statuses)


def _passed_kind(helper: HelperDef, call: HelperCall) -> str | None:
    """The error kind a call gives an error-response helper (`err_type="InternalServerError"`), when literal."""
    arg = _passed(helper, helper.kind_param, call.args)
    if arg is None or not arg.segments or not all(isinstance(s, str) for s in arg.segments):
        return None
    return "".join(arg.segments)
