"""State the per-site analysis keeps between sites: it must not outlive or leak across files.

Memoised negations, definitions and flows used to sit on the AST nodes and
tie each file's tree into reference cycles; the walrus shortcut is decided
per file. These tests run real site analyses on real source text.
"""

from __future__ import annotations

import ast
import gc
import textwrap

from .analyze_support import _site_paths
from errdex.analyze.site import analyze_site
from errdex.analyze.simplify import FALSE, TRUE, _simplify_and, _simplify_or, conjoin, disjoin, render, simplify
from errdex.models import ErrorSite, Placeholder, Template

VALIDATIONS = textwrap.dedent('''
    def check(x, y, cfg, items):
        n = cfg.get("n", 4)
        assert x > 0, "x"
        if not isinstance(y, (int, float)) or y < x:
            raise ValueError(f"bad {y}")
        if 0 < n <= 8 and x != 3:
            raise ValueError("n")
        for k in (1, 2):
            if n == k:
                return k
        try:
            v = int(cfg["v"])
        except (KeyError, ValueError) as e:
            raise TypeError(f"v {e}")
        while items and items[0] is None:
            items = items[1:]
        assert v not in (1, 2, 3) and x < 1e3, f"{v}"
''')

WALRUS = textwrap.dedent('''
    def pick(cfg):
        if (m := cfg.get("m")) is None:
            return 0
        assert m > 2, f"m {m}"
''')


def _analyze_all(source: str) -> list[ErrorSite]:
    """Analyse every site of the source's first function, as the walker does (with the file's lines)."""
    tree = ast.parse(source)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    lines = source.split("\n")
    sites = []
    for path in _site_paths(func.body, []):
        site = ErrorSite("m.py", path[-1].lineno, func.name, "exception", None, None,
                         Template(["value ", Placeholder("m", "m")], "fstring"))
        analyze_site(func, path, site, lines)
        sites.append(site)
    return sites


def test_analysed_trees_are_freed_without_the_cycle_collector():
    gc.collect()
    gc.disable()
    try:
        for _ in range(20):   # more files than any cache of recent scopes holds
            sites = _analyze_all(VALIDATIONS)
            assert any(s.condition not in ("True", "False") for s in sites)
        _analyze_all(WALRUS)   # a new file: the previous file's memo tables are emptied
        del sites
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_walrus_bindings_feed_after_a_file_without_walrus():
    _analyze_all(VALIDATIONS)
    site = _analyze_all(WALRUS)[-1]
    assert site.condition.endswith("not m > 2")
    assert any("m := cfg.get" in line for line in site.feeding)


def test_results_do_not_depend_on_the_files_analysed_before():
    first = [(s.condition, s.guard, s.condition_exact, s.condition_reason, s.feeding) for s in _analyze_all(WALRUS)]
    _analyze_all(VALIDATIONS)
    again = [(s.condition, s.guard, s.condition_exact, s.condition_reason, s.feeding) for s in _analyze_all(WALRUS)]
    assert again == first


def _guards(source: str) -> list[ast.expr]:
    tree = ast.parse(source)
    return [simplify(node.test) for node in ast.walk(tree) if isinstance(node, (ast.If, ast.Assert, ast.While))]


def test_one_term_shortcut_gives_what_the_full_simplifier_gives():
    guards = _guards(VALIDATIONS) + _guards(WALRUS)
    assert len(guards) >= 7
    for guard in guards:
        for parts in ([guard], [guard, TRUE], [TRUE, guard, TRUE], [guard, FALSE], [FALSE]):
            assert render(conjoin(parts)) == render(_simplify_and(list(parts)))
        for parts in ([guard], [guard, FALSE], [FALSE, guard], [guard, TRUE], [TRUE]):
            assert render(disjoin(parts)) == render(_simplify_or(list(parts)))
