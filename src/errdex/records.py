"""Error sites -> catalog records in the seed format, plus errdex's own `errdex` object.

The conventions are fixed here and nowhere else: id, slug, messagePattern,
the 18-line source window, the pinned permalink, tags.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict

from errdex.analyze.caught import caught_by
from errdex.analyze.raisers import EARLIER_CALLS
from errdex.extract.link import ClassInfo
from errdex.models import SCHEMA_VERSION, ErrorSite, SourceTree

_WORD = re.compile(r"[a-z0-9]+")
_TEST_DIRS = frozenset({"test", "tests", "testing"})
WINDOW = 18  # lines of source either side of the site


def fill_window(site: ErrorSite, lines: list[str]) -> None:
    """sourceCode: WINDOW lines either side of the site's line, clipped to the file."""
    site.source_start, site.source_end, site.source_code = window_of(site.line, lines)


def window_of(line: int, lines: list[str]) -> tuple[int, int, str]:
    """(start, end, text) of the window around `line`: the one place its bounds are decided."""
    count = len(lines) - 1 if lines and not lines[-1] else len(lines)   # "a\nb\n" has two lines, not three
    start = max(1, line - WINDOW)
    end = max(start, min(count, line + WINDOW))
    return start, end, "\n".join(lines[start - 1:end])


def record_id(repo: str, file_path: str, function: str, template: str, ordinal: int) -> str:
    """16 hex, stable while file path, function and template stay the same.

    `ordinal` tells apart sites with the same message in the same function.
    """
    key = f"{repo}\0{file_path}\0{function}\0{template}\0{ordinal}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def slug_of(template: str) -> str:
    """The lower-case alphanumeric words of the template, at most 10, joined by `-`."""
    return "-".join(_WORD.findall(template.lower())[:10]) or "error"


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(p in _TEST_DIRS for p in parts[:-1]))


def record_path(tree: SourceTree, rel_path: str) -> str:
    """filePath: relative to the repository root for git checkouts, to the archive root otherwise."""
    return tree.url_prefix + rel_path if tree.kind == "git" else rel_path


def url_base(tree: SourceTree) -> str | None:
    """Permalink prefix the store completes with `filePath#Lstart-Lend`."""
    if not tree.github_repo or not tree.permalink_ref:
        return None
    prefix = "" if tree.kind == "git" else tree.url_prefix
    return f"https://github.com/{tree.github_repo}/blob/{tree.permalink_ref}/{prefix}"


def build_records(tree: SourceTree, sites: list[ErrorSite], classes: dict[str, ClassInfo],
                  modules: dict[str, str], analyzed_at: str) -> list[dict]:
    """One record per site, ordered by file and line, ids and slugs unique within the dataset."""
    rendered = sorted(((s, s.message.rendered()) for s in sites),
                      key=lambda p: (p[0].file_path, p[0].line, p[1][0]))
    ordinals: dict[tuple, int] = defaultdict(int)
    slugs: set[str] = set()
    base = url_base(tree)
    analyzed_sha = tree.sha or tree.permalink_ref or tree.version
    records = []
    files: dict[str, tuple[str, bool]] = {}  # per file: record path, test file?
    for site, parts in rendered:
        where = files.get(site.file_path)
        if where is None:
            where = files[site.file_path] = (record_path(tree, site.file_path), is_test_path(site.file_path))
        path, test = where
        template = parts[0]
        key = (path, site.function, template)
        rid = record_id(tree.repo, path, site.function, template, ordinals[key])
        ordinals[key] += 1
        slug = slug_of(template)
        if slug in slugs:
            slug = f"{slug}-{rid[:6]}"
        slugs.add(slug)
        info = classes.get(site.class_ref) if site.class_ref else None
        records.append(_record(tree, site, path, test, rid, slug, parts, info, modules.get(site.file_path, ""),
                               base, analyzed_sha, analyzed_at))
    return records


def _record(tree: SourceTree, site: ErrorSite, path: str, test: bool, rid: str, slug: str, parts: tuple,
            info: ClassInfo | None, module: str, base: str | None, analyzed_sha: str, analyzed_at: str) -> dict:
    template, pattern, placeholders, groups, literal_length = parts
    record = {
        "id": rid,
        "repo": tree.repo,
        "slug": slug,
        "errorCode": site.error_code or (info.error_code if info else None),
        "errorMessage": template,
        "messagePattern": pattern,
        "errorType": site.error_type,
        "errorClass": site.error_class,
        "httpStatus": site.http_status,
        "severity": site.severity,
        "filePath": path,
        "lineNumber": site.line,
        "sourceCode": site.source_code,
        "sourceCodeStart": site.source_start,
        "sourceCodeEnd": site.source_end,
        "githubUrl": f"{base}{path}#L{site.source_start}-L{site.source_end}"
        if base else None,
        "documentation": None,
        "triggerScenarios": None,
        "commonSituations": None,
        "solutions": [],
        "exampleFix": None,
        "handlingStrategy": None,
        "validationCode": None,
        "typeGuard": None,
        "tryCatchPattern": None,
        "preventionTips": [],
        "tags": _tags(site, test),
        "backgroundTag": None,
        "analyzedSha": analyzed_sha,
        "analyzedAt": analyzed_at,
        "schemaVersion": SCHEMA_VERSION,
        "errdex": {
            "module": module,
            "function": site.function,
            "placeholders": placeholders,
            "groups": groups,
            "messageForm": site.message.form,
            "literalLength": literal_length,
            "classQualname": info.qualname if info else site.class_ref,
            "classBases": info.bases if info else [],
            "classAncestors": info.ancestors if info else [],
            "helper": site.helper,
            "factory": site.factory,
            "assertTest": site.assert_test,
            "endLine": site.end_line,
            "test": test,
            "condition": site.condition,
            "guard": site.guard,
            "conditionExact": site.condition_exact,
            "conditionReason": site.condition_reason,
            "conditionCalls": site.condition_calls,
            "feeding": site.feeding,
            "loops": site.loops,
            "callers": [],
            "entryPoints": [],
            "related": [],
            "provenance": {},
        },
    }
    if site.handlers and site.error_type != "log":   # a try of its own function catches it (a log raises nothing)
        caught = caught_by(site.handlers, site.error_class or ("AssertionError" if site.error_type == "assertion"
                                                                 else None), info.ancestors if info else [])
        if caught is not None:
            record["errdex"]["caughtBy"] = caught
    if site.responds:   # an HTTP error answered, not raised: nothing to catch
        record["errdex"]["responds"] = True
    if site.changed:   # what the check reads is not what the caller passed
        record["errdex"]["changedBefore"] = list(site.changed)
    if site.unfed:   # what the check reads only the function has
        record["errdex"]["unfedLocals"] = list(site.unfed)
    if site.no_input:   # what decides it no caller passes
        record["errdex"]["noInputRead"] = True
    if site.checks_args:   # an assert on what the caller passed
        record["errdex"]["checksArguments"] = True
    if site.holds:   # reached, never failing: not an unreachable line
        record["errdex"]["assertHolds"] = True
    if site.unordered:   # met only by a NaN: no number fails its test
        record["errdex"]["nanOnly"] = True
    if site.optional_args:   # arguments a call must pass to get here
        record["errdex"]["optionalArgs"] = {k: dict(v) for k, v in site.optional_args.items()}
    if site.imports:   # what a snippet replaying the check must import
        record["errdex"]["moduleImports"] = dict(site.imports)
    if site.earlier_calls:   # read by the dataset stage (`analyze.raisers`), not stored
        record["errdex"][EARLIER_CALLS] = [list(c) for c in site.earlier_calls]
    return record


def _tags(site: ErrorSite, test: bool) -> list[str]:
    tags = ["test"] if test else []
    return tags
