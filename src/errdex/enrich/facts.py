"""What the model is told about one record, and the hash that keys the cache.

Only static facts and the static prose go in: the template, class, condition
and whether it is exact, feeding values, callers and entry points, the
source window. The hash covers exactly what the prompt shows (minus the id,
which only routes answers), so a re-index asks again only about records
whose facts changed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: Top-level record fields shown to the model.
RECORD_FACTS: tuple[str, ...] = (
    "errorMessage", "errorType", "errorClass", "httpStatus", "filePath", "lineNumber",
    "sourceCodeStart", "sourceCode",
)
#: errdex facts shown to the model.
ERRDEX_FACTS: tuple[str, ...] = (
    "module", "function", "placeholders", "classQualname", "classAncestors", "helper",
    "assertTest", "condition", "conditionExact", "conditionReason", "feeding",
    "callers", "entryPoints",
)
#: The prose fields a model may rewrite; the static text is shown as a starting point.
PROSE_FIELDS: tuple[str, ...] = (
    "documentation", "triggerScenarios", "commonSituations", "solutions",
    "exampleFix", "validationCode", "preventionTips",
)


def record_facts(record: dict[str, Any]) -> dict[str, Any]:
    """The facts of one (un-enriched) record, in a fixed order, without its id."""
    ex = record.get("errdex") or {}
    facts: dict[str, Any] = {name: record.get(name) for name in RECORD_FACTS}
    facts.update((name, ex.get(name)) for name in ERRDEX_FACTS)
    facts["staticProse"] = {name: record.get(name) for name in PROSE_FIELDS
                            if record.get(name) not in (None, "", [])}
    return facts


def facts_hash(facts: dict[str, Any]) -> str:
    """sha256 hex of the canonical JSON of `facts`."""
    text = json.dumps(facts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()
