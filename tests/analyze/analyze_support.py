"""Test helpers: find error-site paths in a function's source, and compare
two conditions by evaluating them on many generated inputs."""

from __future__ import annotations

import ast
import builtins
import itertools
import random
import textwrap

_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


def _is_site(node: ast.AST) -> bool:
    if isinstance(node, (ast.Raise, ast.Assert)):
        return True
    value = getattr(node, "value", None)
    return isinstance(node, (ast.Expr, ast.Assign)) and isinstance(value, ast.Call) and (
        ast.unparse(value.func) in ("warnings.warn", "warn"))


def _site_paths(block: list[ast.AST], prefix: list[ast.AST]):
    for node in block:
        path = [*prefix, node]
        if _is_site(node):
            yield path
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in _BLOCKS:
            yield from _site_paths(getattr(node, field, None) or [], path)


def site_path(source: str, n: int = 0) -> tuple[ast.FunctionDef, list[ast.AST]]:
    """(function, path) of the n-th raise/assert/warn of the first function in `source`."""
    tree = ast.parse(textwrap.dedent(source))
    func = next(node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    paths = list(_site_paths(func.body, []))
    return func, paths[n]


class _RaisedToNames(ast.NodeTransformer):
    """Replace each `raised(call, E)` with a boolean variable named after it."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id == "raised":
            key = ast.unparse(ast.Tuple(node.args))
            name = self.table.setdefault(key, f"_raised_{len(self.table)}")
            return ast.Name(name, ast.Load())
        return self.generic_visit(node)


def _prepare(text: str, table: dict[str, str]) -> ast.Expression:
    tree = ast.parse(text, mode="eval")
    tree = _RaisedToNames(table).visit(tree)
    return ast.fix_missing_locations(tree)


def _free_names(tree: ast.AST) -> set[str]:
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return {n for n in loaded - bound if not hasattr(builtins, n)}


def _numbers(*trees: ast.AST) -> list[object]:
    values: set[object] = {0, 1, -1}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and type(node.value) in (int, float):
                for delta in (-1, 0, 1):
                    values.add(node.value + delta)
                if isinstance(node.value, float):
                    values.update({node.value - 0.5, node.value + 0.5})
    return sorted(values, key=float)


class _Obj:
    """An object whose every attribute is itself and whose call returns `value`: lets a sample
    evaluate `scheduler.is_fully_idle()` (the same answer at every call)."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __getattr__(self, name: str) -> "_Obj":
        return self

    def __call__(self, *args, **kwargs) -> object:
        return self.value

    def __repr__(self) -> str:
        return f"_Obj({self.value!r})"


def _pool(name: str, numbers: list[object], strings: list[str], objects: bool) -> list[object]:
    """`objects`: objects with methods too (`_Obj`), for tests whose two sides name the same objects."""
    if name.startswith("_raised_"):
        return [False, True]
    pool = [*numbers, None, True, False, *strings, [], [1], [1, 2], [0, 3, 5]]
    return pool + [_Obj(True), _Obj(False), _Obj(0), _Obj(3), _Obj(None)] if objects else pool


def mismatches(produced: str, expected: str, samples: int = 4000, seed: int = 7,
               objects: bool = False) -> tuple[list[str], int]:
    """Inputs where the two conditions differ in truth value, and how many were compared.

    Inputs on which `expected` raises (e.g. `None > 3`) are skipped: the
    code under test would have raised there before reaching the site.
    """
    table: dict[str, str] = {}
    want, got = _prepare(expected, table), _prepare(produced, table)
    names = sorted(_free_names(want) | _free_names(got))
    numbers = _numbers(want, got)
    strings = sorted({n.value for t in (want, got) for n in ast.walk(t)
                      if isinstance(n, ast.Constant) and isinstance(n.value, str)} | {"", "a"})
    pools = [_pool(name, numbers, strings, objects) for name in names]
    total = 1
    for pool in pools:
        total *= len(pool)
    if total <= samples:
        rows = itertools.product(*pools)
    else:
        rng = random.Random(seed)
        rows = (tuple(rng.choice(pool) for pool in pools) for _ in range(samples))
    want_code = compile(want, "<expected>", "eval")
    got_code = compile(got, "<produced>", "eval")
    bad: list[str] = []
    compared = 0
    for row in rows:
        env = dict(zip(names, row))
        try:
            truth = bool(eval(want_code, dict(env)))  # noqa: S307 - test-written expressions
        except Exception:  # noqa: BLE001
            continue
        compared += 1
        try:
            answer = bool(eval(got_code, dict(env)))  # noqa: S307
        except Exception as exc:  # noqa: BLE001
            bad.append(f"{env}: produced raised {exc!r}")
            continue
        if answer != truth:
            bad.append(f"{env}: produced {answer}, expected {truth}")
    return bad, compared
