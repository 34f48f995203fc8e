"""The seed catalog's record shape: field order, schema version, and putting a stored body back in order.

Kept free of imports: the runtime hook reads records in a fresh process and
must not pay for `errdex.models` (dataclasses) or the store to do it.
"""

from __future__ import annotations

#: The record schema version written into every record (`schemaVersion`).
SCHEMA_VERSION = 2

#: The fields of the seed catalog record, in the seed's order. `errdex`
#: (our own facts) follows them in every non-strict export.
SEED_FIELDS: tuple[str, ...] = (
    "id", "repo", "slug", "errorCode", "errorMessage", "messagePattern",
    "errorType", "errorClass", "httpStatus", "severity", "filePath",
    "lineNumber", "sourceCode", "sourceCodeStart", "sourceCodeEnd",
    "githubUrl", "documentation", "triggerScenarios", "commonSituations",
    "solutions", "exampleFix", "handlingStrategy", "validationCode",
    "typeGuard", "tryCatchPattern", "preventionTips", "tags",
    "backgroundTag", "analyzedSha", "analyzedAt", "schemaVersion",
)


def github_url(url_base: str | None, body: dict) -> str | None:
    """Permalink pinned by the dataset's url_base, anchored to the source window."""
    path = body.get("filePath")
    if url_base is None or not path:
        return None
    start, end = body.get("sourceCodeStart"), body.get("sourceCodeEnd")
    anchor = f"#L{start}-L{end}" if start is not None and end is not None else ""
    return f"{url_base}{path}{anchor}"


def in_seed_order(body: dict, url_base: str | None, analyzed_sha: str | None, analyzed_at: str) -> dict:
    """The full record from a stored body (emptied on the way) and its dataset's values, seed fields first."""
    values = {"githubUrl": github_url(url_base, body), "analyzedSha": analyzed_sha,
              "analyzedAt": analyzed_at, "schemaVersion": SCHEMA_VERSION}
    record: dict = {}
    for name in SEED_FIELDS:
        if name in values:
            record[name] = values[name]
        elif name in body:
            record[name] = body.pop(name)
    record.update(body)  # extras, then `errdex` (last in the canonical body)
    return record
