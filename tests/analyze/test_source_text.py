"""Texts cut from the source (analysis with the file's lines) read the same as unparsed ones."""

from __future__ import annotations

import ast
import textwrap

from .analyze_support import site_path
from errdex.analyze import feeding_values, trigger_condition
from errdex.analyze.source import analyzing, node_text

SOURCE = textwrap.dedent('''
    def f(mode, cfg):
        n = cfg.get("size",  4)
        if hasattr(cfg, "a") and hasattr(cfg, 'a') and mode == "x":
            return
        if (y := cfg.get("y")) is None:
            raise ValueError(f"bad {mode} {n}")
''')


def _both(n: int = 0):
    func, path = site_path(SOURCE, n)
    plain = trigger_condition(func, path), feeding_values(func, path, {"mode", "n"})
    func, path = site_path(SOURCE, n)
    with analyzing(SOURCE.split("\n")):
        cut = trigger_condition(func, path), feeding_values(func, path, {"mode", "n"})
    return plain, cut


def test_condition_cut_from_source_is_the_same_expression():
    (plain, plain_feed), (cut, cut_feed) = _both()
    assert cut.expr != plain.expr  # quotes as written in the file
    assert ast.dump(ast.parse(cut.expr)) == ast.dump(ast.parse(plain.expr))
    assert cut.exact == plain.exact and cut.reason == plain.reason
    assert 'cfg.get("y")' in cut.calls


def test_calls_written_two_ways_are_listed_once():
    (plain, _), (cut, _) = _both()
    assert len(cut.calls) == len(plain.calls)
    assert sum(c.startswith("hasattr(cfg") for c in cut.calls) == 1


def test_feeding_lines_are_source_lines():
    (_, plain_feed), (_, cut_feed) = _both()
    assert cut_feed == ['n = cfg.get("size",  4)']
    assert [ast.dump(ast.parse(t)) for t in cut_feed] == [ast.dump(ast.parse(t)) for t in plain_feed]


def test_walrus_and_multiline_nodes_fall_back_to_unparse():
    lines = ["x = (y := f(a,", "          b))"]
    tree = ast.parse("\n".join(lines))
    walrus = tree.body[0].value
    with analyzing(lines):
        assert node_text(walrus) == "(y := f(a, b))"
        assert node_text(walrus.value) == "f(a, b)"


def test_built_constants_read_as_ast_unparse_writes_them():
    from errdex.analyze.source import unparse

    values = [0, -3, 2**70, True, False, None, "it's", 'say "x"', "a\nb", 1.5, float("inf"), b"x", ..., (1, "a")]
    for value in values:
        assert unparse(ast.Constant(value)) == ast.unparse(ast.Constant(value))
    written_u = ast.parse("u'x'", mode="eval").body
    assert unparse(written_u) == ast.unparse(written_u) == "u'x'"
