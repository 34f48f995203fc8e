"""Record factory for match tests: seed-format dicts built from a template."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import pytest

_META = set(".^$*+?{}[]\\|()")
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def _escape(text: str) -> str:
    return "".join("\\" + ch if ch in _META else ch for ch in text)


def pattern_of(template: str) -> tuple[str, list[str]]:
    """messagePattern and group names, derived the way the indexer does."""
    parts, groups, last = [], [], 0
    for m in _PLACEHOLDER.finditer(template):
        parts.append(_escape(template[last:m.start()]))
        parts.append("(.+?)")
        groups.append(m.group(1))
        last = m.end()
    parts.append(_escape(template[last:]))
    return "".join(parts), groups


def make_record(template: str, *, file_path: str = "pkg/core/ops.py", line: int = 10,
                error_class: str | None = "ValueError", bases: list[str] | None = None,
                function: str = "run", condition: str | None = None, tags=None,
                assert_test: str | None = None, error_type: str = "exception",
                repo: str = "acme/pkg", placeholders: dict | None = None) -> dict:
    pattern, groups = pattern_of(template) if template else ("", [])
    rid = hashlib.sha256(f"{file_path}:{function}:{template}:{line}".encode()).hexdigest()[:16]
    return {
        "id": rid, "repo": repo, "errorMessage": template, "messagePattern": pattern,
        "errorType": error_type, "errorClass": error_class, "filePath": file_path,
        "lineNumber": line, "tags": list(tags or []),
        "errdex": {
            "function": function,
            "classBases": bases if bases is not None else (["ValueError", "Exception", "BaseException"] if error_class == "ValueError" else ["Exception", "BaseException"]),
            "placeholders": placeholders if placeholders is not None else {g: g for g in groups},
            "groups": groups, "condition": condition, "conditionExact": True if condition else None,
            "module": file_path[:-3].replace("/", "."), "assertTest": assert_test,
        },
    }


def both_engines(build: Callable[[], list[dict]]):
    """A fixture of a `MatchContext` over `build()`'s records, once with each engine (hyperscan and
    the pure-Python one): every test using it checks that both give the same answers."""
    @pytest.fixture(params=["hyperscan", "python"])
    def context(request, tmp_path):
        from errdex.match import MatchContext

        return MatchContext.from_records(build(), cache_dir=tmp_path / "engine", backend=request.param)
    return context


@pytest.fixture
def record_factory():
    return make_record


@pytest.fixture(params=["hyperscan", "python"])
def scan_ctx(request, tmp_path):
    """Two records (a kernel check, a scheduler budget) under both engines, for the scan tests."""
    from errdex.match import MatchContext

    records = [
        make_record("Packed decode kernel only supports NK=1 (got K={K}, BK={BK}).",
                    file_path="sglang/kernels/fused.py", line=358, function="packed_decode"),
        make_record("Request {rid} exceeded the token budget of {n}", file_path="sglang/sched.py",
                    line=40, function="admit", error_class="RuntimeError"),
    ]
    return MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=request.param)


def index_one_module(tmp_path_factory, package: str, module: str, source: str):
    """Index a package of one module written from `source` into a fresh SQLite file; returns its path."""
    import textwrap

    from errdex.pipeline import index_source

    root = tmp_path_factory.mktemp("src") / package
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / f"{module}.py").write_text(textwrap.dedent(source))
    path = tmp_path_factory.mktemp("db") / "errdex.db"
    index_source(str(root), path)
    return path
