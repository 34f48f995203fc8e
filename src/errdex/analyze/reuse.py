"""A site's local analysis, taken from an earlier version of its file when its function is unchanged.

Between two releases most files change somewhere, but most functions do not:
in sglang 0.5.22 -> 0.5.23, 1,897 of 4,719 files differ while 92% of their
lines are the same. The local analysis (`analyze.site`) reads only the
enclosing function's syntax tree and text, the site's place in it and its
message's placeholders; the digest of exactly those (`analysis_key`) names a
result that holds wherever the same function text appears, whatever line it
moved to. Only the handlers' line numbers are absolute: they move with it.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable

from errdex.models import ErrorSite, Placeholder

#: What `analyze.site` writes on a site, all of it a function of what `analysis_key` digests.
RESULT_FIELDS = ("condition", "guard", "holds", "unordered", "condition_exact", "condition_reason", "condition_calls",
                 "feeding", "loops", "handlers", "unfed", "no_input", "changed", "checks_args", "optional_args")

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def analysis_key(scope: ast.AST, site: ErrorSite, lines: list[str], texts: dict[int, bytes]) -> bytes:
    """The digest of the function's lines, the site's line within them and its placeholders;
    empty outside a function (a module's or class body's analysis is not kept apart from the file).

    `texts`: the digest of each function's text so far, by node id (its sites share it).
    """
    if scope.__class__ not in _FUNCTIONS or not lines:
        return b""
    own = texts.get(id(scope))
    if own is None:
        body = "\n".join(lines[scope.lineno - 1:scope.end_lineno])
        own = texts[id(scope)] = hashlib.blake2b(body.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    holes = "\0".join(s.expr for s in site.message.segments if isinstance(s, Placeholder))
    where = f"{site.line - scope.lineno}\0{holes}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(own + where, digest_size=12).digest()


def copy_result(source: ErrorSite, target: ErrorSite) -> None:
    """The analysis of `source` on `target`, a site with the same key, its handler lines moved along."""
    for name in RESULT_FIELDS:
        value = getattr(source, name)
        setattr(target, name, list(value) if isinstance(value, list) else value)
    shift = target.line - source.line
    if shift and target.handlers:
        target.handlers = [(line + shift, *rest) for line, *rest in target.handlers]


class ReusingAnalyzer:
    """A site analyzer (`extract.visitor.SiteAnalyzer`) that takes a site's result from the earlier
    sites given when one has its key, and runs `analyze` otherwise. `reused` counts the hits."""

    def __init__(self, analyze, earlier: Iterable[ErrorSite] = ()) -> None:
        self.analyze = analyze
        self.earlier = {s.analysis_key: s for s in earlier if s.analysis_key}
        self.reused = 0
        self._texts: dict[int, bytes] = {}

    def __call__(self, scope: ast.AST, path: list, site: ErrorSite, lines: list[str] | None = None) -> None:
        site.analysis_key = key = analysis_key(scope, site, lines or [], self._texts)
        source = self.earlier.get(key) if key else None
        if source is not None:
            copy_result(source, site)
            self.reused += 1
            return
        self.analyze(scope, path, site, lines)
