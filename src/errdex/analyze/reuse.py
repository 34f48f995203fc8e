"""A site's local analysis, taken from an earlier version of its file when what it reads is unchanged.

Between two releases most files change somewhere, but most functions do not:
in sglang 0.5.22 -> 0.5.23, 1,897 of 4,719 files differ while 92% of their
lines are the same. The local analysis (`analyze.site`) reads the enclosing
function's text up to the end of the statement of its body that holds the site
(what runs before the site, and the loops and trys around it), the site's place
in it and its message's placeholders, and three summaries of the whole function
(the names it binds, its local imports, the names it holds sets in). The digest
of exactly those (`analysis_key`) names a result that holds wherever the same
text appears, whatever line it moved to and whatever follows it in the
function: an edit below a site, the common case in long functions, keeps its
result. Only the handlers' line numbers are absolute: they move with it.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable

from errdex.analyze.condexpr import function_sets
from errdex.analyze.exprs import memo
from errdex.analyze.site import bound_in, local_imports
from errdex.models import ErrorSite, Placeholder

#: What `analyze.site` writes on a site, all of it a function of what `analysis_key` digests.
RESULT_FIELDS = ("condition", "guard", "holds", "unordered", "condition_exact", "condition_reason", "condition_calls",
                 "feeding", "loops", "handlers", "unfed", "no_input", "changed", "checks_args", "optional_args")

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def analysis_key(scope: ast.AST, site: ErrorSite, lines: list[str], texts: dict[tuple[int, int], bytes],
                 path: list | tuple = ()) -> bytes:
    """The digest of the function's lines from its `def` to the end of the body statement
    holding the site (`path`: the nodes from that statement down to the site; without it,
    the whole function), the function's summaries, the site's line within them and its
    placeholders; empty outside a function (a module's or class body's analysis is not kept
    apart from the file).

    `texts`: the digest of each (function, last line) so far (the sites of a statement share it).
    """
    if scope.__class__ not in _FUNCTIONS or not lines:
        return b""
    end = _top_end(scope, path)
    own = texts.get((id(scope), end))
    if own is None:
        body = "\n".join(lines[scope.lineno - 1:end])
        digest = hashlib.blake2b(body.encode("utf-8", "surrogatepass"), digest_size=16)
        digest.update(memo(scope, "_errdex_summary", _summary))
        own = texts[(id(scope), end)] = digest.digest()
    holes = "\0".join(s.expr for s in site.message.segments if isinstance(s, Placeholder))
    where = f"{site.line - scope.lineno}\0{holes}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(own + where, digest_size=12).digest()


def _top_end(scope: ast.AST, path: list | tuple) -> int:
    """The last line of the statement of `scope`'s body that holds the site (`path` starts at it,
    as `analyze_site` gets it), or of the whole function."""
    if path:
        top = path[0]
        if any(top is stmt for stmt in scope.body):
            return top.end_lineno
    return scope.end_lineno


def _summary(scope: ast.AST) -> bytes:
    """What the analysis reads of the whole function besides the text before the site, once per
    function (its parts memoised as the analysis memoises them, so an analysed site pays nothing more)."""
    bound = memo(scope, "_errdex_bound", bound_in)
    imports = memo(scope, "_errdex_imports", local_imports)
    sets = function_sets(scope)
    text = "\0".join(sorted(bound)) + "\1" + "\0".join(f"{k}={v}" for k, v in sorted(imports.items())) \
        + "\1" + "\0".join(sorted(sets))
    return text.encode("utf-8", "surrogatepass")


def copy_result(source: ErrorSite, target: ErrorSite) -> None:
    """The analysis of `source` on `target`, a site with the same key, its handler lines moved along."""
    for name in RESULT_FIELDS:
        value = getattr(source, name)
        setattr(target, name, list(value) if isinstance(value, list) else value)
    shift = target.line - source.line
    if shift and target.handlers:
        target.handlers = [(line + shift, *rest) for line, *rest in target.handlers]
    if shift and target.condition_reason and "line" in target.condition_reason:
        target.condition_reason = _REASON_LINES.sub(
            lambda m: _DIGITS.sub(lambda d: str(int(d.group()) + shift), m.group()), target.condition_reason)


#: The lines a condition's reason names (`condition.EARLIER_CHECK`, `EARLIER_PASSES`,
#: `raised.EARLIER_HANDLER`, `condition.SAME_CALL_TWICE`: "(line 904)", "(`except E`, line 12)",
#: "made at lines 40 and 52"): they move with the site.
_REASON_LINES = re.compile(r"(?<=\(line )\d+(?=\))|(?<=, line )\d+(?=\))|(?<=is made at lines )\d+(?: and \d+)*")
_DIGITS = re.compile(r"\d+")


class ReusingAnalyzer:
    """A site analyzer (`extract.visitor.SiteAnalyzer`) that takes a site's result from the earlier
    sites given when one has its key, and runs `analyze` otherwise. `reused` counts the hits."""

    def __init__(self, analyze, earlier: Iterable[ErrorSite] = ()) -> None:
        self.analyze = analyze
        self.earlier = {s.analysis_key: s for s in earlier if s.analysis_key}
        self.reused = 0
        self._texts: dict[tuple[int, int], bytes] = {}

    def __call__(self, scope: ast.AST, path: list, site: ErrorSite, lines: list[str] | None = None) -> None:
        site.analysis_key = key = analysis_key(scope, site, lines or [], self._texts, path)
        source = self.earlier.get(key) if key else None
        if source is not None:
            copy_result(source, site)
            self.reused += 1
            return
        self.analyze(scope, path, site, lines)
