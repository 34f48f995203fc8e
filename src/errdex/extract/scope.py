"""Name resolution inside one module: imports, module constants, builtins.

Resolving a name here means turning what the code wrote (`errors.KernelLimitError`)
into a dotted name in the codebase's namespace (`pkg.errors.KernelLimitError`),
using only the module's own import statements; the link step follows
re-exports across modules later.
"""

from __future__ import annotations

import ast
import builtins
import functools
from collections.abc import Iterator

BUILTIN_NAMES = frozenset(dir(builtins))


def module_name(rel_path: str, package_dirs: frozenset[str]) -> str:
    """Dotted module name for a file, relative to the import root it sits under.

    An import root is the folder holding a top-level package (a package whose
    parent is not one): `""` for a wheel's `sglang/`, `python/` for a repo's
    `python/sglang/`. Below a root every folder is a package, with or without
    `__init__.py` (namespace packages), so `sglang/srt/ns/x.py` is
    `sglang.srt.ns.x`. A file under no root (a loose script, `tests/` without
    `__init__.py`) is named from its nearest chain of `__init__.py` folders.
    """
    parts = rel_path[:-3].split("/") if rel_path.endswith(".py") else rel_path.split("/")
    is_init = parts[-1] == "__init__"
    dirs = parts[:-1]
    root = _root_of(dirs, _import_roots(package_dirs))
    if root is not None:
        start = root
    else:
        start = len(dirs)
        while start > 0 and "/".join(dirs[:start]) in package_dirs:
            start -= 1
    named = parts[start:-1] if is_init else parts[start:]
    return ".".join(named) or "__init__"


@functools.lru_cache(maxsize=8)
def _import_roots(package_dirs: frozenset[str]) -> frozenset[str]:
    """Folders that hold a top-level package ("" is the tree's own root).

    A top-level package has no package among its ancestors: in
    `sglang/srt/layers/attention/linear/` (where `attention/` lacks an
    `__init__.py`) `linear` is still inside the `sglang` package.
    """
    roots = set()
    for d in package_dirs:
        if not d:
            continue
        parts = d.split("/")
        if not any("/".join(parts[:i]) in package_dirs for i in range(1, len(parts))):
            roots.add("/".join(parts[:-1]))
    return frozenset(roots)


def _root_of(dirs: list[str], roots: frozenset[str]) -> int | None:
    """How many leading folders of `dirs` form the deepest import root holding the file."""
    for depth in range(len(dirs), -1, -1):
        if "/".join(dirs[:depth]) in roots:
            return depth
    return None


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """Absolute module for `from <level dots><target> import ...` inside `module`."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    if target:
        base = base + target.split(".")
    return ".".join(base)


def argument_names(args: ast.arguments | None) -> frozenset[str]:
    """The names a function's parameters bind (`*args` and `**kwargs` included)."""
    if args is None:
        return frozenset()
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    return frozenset(names | {a.arg for a in (args.vararg, args.kwarg) if a is not None})


def collect_imports(stmt: ast.Import | ast.ImportFrom, module: str, is_package: bool, out: dict[str, str]) -> None:
    """Record local name -> dotted target for one import statement."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                out[alias.asname] = alias.name
            else:
                head = alias.name.split(".")[0]
                out[head] = head
        return
    base = resolve_relative(module, is_package, stmt.level, stmt.module)
    for alias in stmt.names:
        if alias.name == "*":
            continue
        out[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name


def dotted_source(node: ast.expr) -> str | None:
    """`a.b.C` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def resolve_dotted(written: str, module: str, imports: dict[str, str], local_defs: set[str]) -> str:
    """Resolve a dotted name as written to the codebase namespace."""
    head, _, rest = written.partition(".")
    if head in imports:
        target = imports[head]
    elif head in local_defs:
        target = f"{module}.{head}"
    elif head in BUILTIN_NAMES:
        target = f"builtins.{head}"
    else:
        return written
    return f"{target}.{rest}" if rest else target


def own_nodes(stmts: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a block, statements and expressions, outside nested functions, lambdas and
    classes: what the block itself runs."""
    stack: list[ast.AST] = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def class_named(name: str) -> bool:
    """CapWords, private ones too (`_Unsupported`): a class's name, not a function's."""
    return name.lstrip("_")[:1].isupper()


def looks_like_class(func: ast.expr) -> bool:
    """Whether a call's callee is named like a class (`class_named`): a class, not a function returning one."""
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return class_named(name)
