"""The import statements that give a site's code the module-level names it reads.

A record's validationCode replays the check outside its function: `torch.cdiv(K, BK)`,
`Path(p).exists()` or `_MAX_TOKENS` there are names the module imports or defines, undefined
in a snippet that does not import them too (review 21: 11 of 25 snippets). Each name is given
the statement that binds it as the module does, written absolute (`from .utils import f` in
`pkg.mod` is `from pkg.utils import f`); a module's own definitions are imported from it.
"""

from __future__ import annotations

import ast
import re

from errdex.extract.scope import argument_names, resolve_relative

#: Identifiers that are no attribute's or keyword argument's name, and outside string literals.
_ROOT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\b(?!\s*=[^=])")
#: A string literal, its prefix apart (an f-string's replacement fields are read).
_STRINGS = re.compile(r"""(?<!\w)([rbfuRBFU]{0,2})('''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")""",
                      re.S)
#: An f-string's replacement field, up to its conversion or format spec (`{{` is no field).
_FIELD = re.compile(r"(?<!\{)\{([^{}!:]*)")
_KEYWORDS = frozenset(("and", "or", "not", "in", "is", "if", "elif", "else", "for", "lambda", "None", "True",
                       "False", "await", "async", "while", "with", "as", "from", "import", "return", "yield", "del",
                       "assert", "pass", "raise", "try", "except", "finally", "global", "nonlocal", "break",
                       "continue", "def", "class"))


def import_statements(stmt: ast.Import | ast.ImportFrom, module: str, is_package: bool, out: dict[str, str]) -> None:
    """Name -> the absolute import statement binding it, for one module-level import statement
    (`import a.b` binds `a` as `import a.b`; a star import binds nothing known). The first
    statement binding a name wins: `try: import x` before its `except ImportError` fallback."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                out.setdefault(alias.asname, f"import {alias.name} as {alias.asname}")
                continue
            head, line = alias.name.partition(".")[0], f"import {alias.name}"
            known = out.setdefault(head, line)
            if known != line and known.startswith(f"import {head}") and " as " not in known \
                    and line not in known.split("\n"):   # `import a.b` and `import a.c` both bind `a`
                out[head] = f"{known}\n{line}"
        return
    base = resolve_relative(module, is_package, stmt.level, stmt.module)
    if not base:
        return
    for alias in stmt.names:
        if alias.name == "*":
            continue
        as_ = f" as {alias.asname}" if alias.asname and alias.asname != alias.name else ""
        out.setdefault(alias.asname or alias.name, f"from {base} import {alias.name}{as_}")


def own_definition(module: str, name: str) -> str | None:
    """The import of a name the module defines itself (`from pkg.mod import LIMIT`); none for a
    module with no importable name (a script run as `__main__`)."""
    if not module or module.startswith("__") or not all(p.isidentifier() for p in module.split(".")):
        return None
    return f"from {module} import {name}"


def root_names(text: str) -> set[str]:
    """The names a line or expression reads at its root (`torch` of `torch.cdiv(K, BK)`, not
    `cdiv`), string literals and keyword arguments' names left out."""
    plain = _STRINGS.sub(_string_reads, text) if "'" in text or '"' in text else text
    return {n for n in _ROOT.findall(plain) if n not in _KEYWORDS}


def _string_reads(m: re.Match) -> str:
    """A string literal as code: nothing, or an f-string's replacement fields (`os` of
    `f"{os.sep}"`)."""
    if "f" not in m.group(1).lower():
        return "''"
    return " " + " ".join(_FIELD.findall(m.group(2))) + " "


def function_bound(scope: ast.AST) -> frozenset[str]:
    """Every name a function's statements bind anywhere in it (its parameters, assignments,
    imports, loop and `with` targets, handlers' names, nested definitions): those shadow the
    module's. Statements only, not expressions (a walrus binding a module's name is left aside):
    a walk of every expression node cost more than the rest of the site's analysis. Kept on the node."""
    found = getattr(scope, "_errdex_all_bound", None)
    if found is not None:
        return found
    names: set[str] = set(argument_names(getattr(scope, "args", None)))
    stack: list = list(getattr(scope, "body", ()))
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is ast.Assign:
            for target in node.targets:
                _names_of(target, names)
        elif kind is ast.AugAssign or kind is ast.AnnAssign:
            _names_of(node.target, names)
        elif kind is ast.For or kind is ast.AsyncFor:
            _names_of(node.target, names)
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in node.items:
                if item.optional_vars is not None:
                    _names_of(item.optional_vars, names)
        elif kind is ast.Import or kind is ast.ImportFrom:
            names.update(a.asname or a.name.partition(".")[0] for a in node.names)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            names.add(node.name)
            continue   # its own body binds its own names
        elif kind is ast.ExceptHandler and node.name:
            names.add(node.name)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if block:
                stack.extend(block)
    found = frozenset(names)
    scope._errdex_all_bound = found   # type: ignore[attr-defined]
    return found


def _names_of(target: ast.expr, out: set[str]) -> None:
    if target.__class__ is ast.Name:
        out.add(target.id)
    elif target.__class__ in (ast.Tuple, ast.List):
        for element in target.elts:
            _names_of(element, out)
    elif target.__class__ is ast.Starred:
        _names_of(target.value, out)


def imports_read(texts: list[str], imports: dict[str, str], defined: set[str], module: str,
                 shadowed: frozenset[str]) -> dict[str, str]:
    """Name -> import statement, for each module-level name these texts read that the function
    does not bind itself (`shadowed`)."""
    out: dict[str, str] = {}
    for text in texts:
        for name in root_names(text):
            if name in out or name in shadowed:
                continue
            line = imports.get(name)
            if line is None and name in defined:
                line = own_definition(module, name)
            if line is not None:
                out[name] = line
    return out
