"""Builders for store tests: seed-format records and dataset metadata from parameters."""

from __future__ import annotations

from errdex.models import SCHEMA_VERSION, SEED_FIELDS, DatasetMeta


def make_record(n: int, *, path: str = "pkg/mod.py", error_class: str = "ValueError",
                message: str | None = None, **overrides: object) -> dict:
    """A record in seed field order, `errdex` last, distinct per `n`."""
    message = message or f"bad value number {n}: got {{x}}"
    values = {
        "id": f"{n:016x}", "repo": "acme/widgets",
        "slug": "-".join(message.lower().replace("{", "").replace("}", "").split()[:10]),
        "errorCode": None, "errorMessage": message,
        "messagePattern": message.replace("{x}", "(.+?)"), "errorType": "exception",
        "errorClass": error_class, "httpStatus": None, "severity": "error",
        "filePath": path, "lineNumber": 10 + n, "sourceCode": f"def f():\n    raise X({n})\n",
        "sourceCodeStart": n, "sourceCodeEnd": n + 36, "githubUrl": None,
        "documentation": f"Raised when widget {n} is out of range.", "triggerScenarios": "t",
        "commonSituations": "c", "solutions": ["check the widget", f"use value {n}"],
        "exampleFix": None, "handlingStrategy": "fix-input", "validationCode": None,
        "typeGuard": None, "tryCatchPattern": None, "preventionTips": ["validate"],
        "tags": ["widgets", "range"], "backgroundTag": "value-range", "analyzedSha": None,
        "analyzedAt": "", "schemaVersion": SCHEMA_VERSION,
    }
    values.update({k: v for k, v in overrides.items() if k in SEED_FIELDS})
    record = {name: values[name] for name in SEED_FIELDS}
    record["errdex"] = {"function": f"pkg.mod.f{n}", "callers": ["pkg.api.run"],
                        "placeholders": {"x": "value"}}
    return record


def make_meta(version: str = "1.0", repo: str = "acme/widgets", **extra: object) -> DatasetMeta:
    return DatasetMeta(
        repo=repo, version=version, kind="git", sha="a" * 40, analyzed_sha="a" * 40,
        url_base=f"https://github.com/{repo}/blob/{'a' * 40}/", analyzed_at="2026-01-02T03:04:05.006Z",
        file_count=3, **extra,
    )
