"""Asking about one batch of records and turning the answer into verified enrichments.

A batch is several records in one request. When the answer is malformed or
leaves records out, those records are asked again one by one; a single
record whose answer stays malformed is reported as failed and not cached,
so the next run asks again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from errdex.enrich.answer import MalformedAnswer, RecordProse, parse_answer
from errdex.enrich.client import ChatClient
from errdex.enrich.facts import PROSE_FIELDS
from errdex.enrich.prompt import Prompt
from errdex.enrich.verify import verify_fields
from errdex.store.enrichment import Enrichment

#: Extra attempts for a single record whose answer was malformed.
MALFORMED_RETRIES = 1


@dataclass(slots=True)
class PendingRecord:
    """A record to ask about: its facts, and every stored body that shares them."""

    facts_hash: str
    record_id: str
    facts: dict[str, Any]
    record: dict[str, Any]
    body_hashes: list[bytes]


@dataclass(slots=True)
class BatchResult:
    """What one batch produced: enrichments to store and records that failed."""

    enrichments: list[Enrichment] = field(default_factory=list)
    pending: list[PendingRecord] = field(default_factory=list)   # the records behind `enrichments`
    failed: list[tuple[PendingRecord, str]] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0


async def ask_batch(client: ChatClient, prompt: Prompt, batch: list[PendingRecord]) -> BatchResult:
    """Enrichments for `batch`; EndpointError (endpoint down) propagates to stop the run."""
    result = BatchResult()
    await _ask(client, prompt, batch, result, MALFORMED_RETRIES)
    return result


async def _ask(client: ChatClient, prompt: Prompt, batch: list[PendingRecord],
               result: BatchResult, retries_left: int) -> None:
    completion = await client.complete(prompt.messages([(p.record_id, p.facts) for p in batch]))
    result.tokens_in += completion.tokens_in
    result.tokens_out += completion.tokens_out
    try:
        answers = {entry.id: entry for entry in parse_answer(completion.text).records}
    except MalformedAnswer as exc:
        answers, problem = {}, str(exc)
    else:
        problem = "record missing from the answer"
    share = len(batch)
    missing = []
    for item in batch:
        entry = answers.get(item.record_id)
        if entry is None:
            missing.append(item)
            continue
        result.enrichments.append(verified(item, entry, client.config.model, prompt.version,
                                           completion.tokens_in // share,
                                           completion.tokens_out // share))
        result.pending.append(item)
    if not missing:
        return
    if len(batch) > 1:       # ask again one by one: smaller answers go wrong less often
        for item in missing:
            await _ask(client, prompt, [item], result, retries_left)
    elif retries_left > 0:
        await _ask(client, prompt, missing, result, retries_left - 1)
    else:
        result.failed.append((missing[0], problem))


def verified(item: PendingRecord, entry: RecordProse, model: str, prompt_version: str,
             tokens_in: int, tokens_out: int) -> Enrichment:
    """Check each field against the record's facts; keep what holds, note what does not."""
    prose = {name: getattr(entry, name) for name in PROSE_FIELDS}
    accepted: dict[str, Any] = {}
    provenance: dict[str, str] = {}
    rejected: dict[str, Any] = {}
    for verdict in verify_fields(item.record, prose):
        if verdict.accepted:
            accepted[verdict.field] = verdict.value
            provenance[verdict.field] = f"model:{model}"
        else:
            provenance[verdict.field] = f"model-rejected:{verdict.reason}"
            rejected[verdict.field] = {"reason": verdict.reason, "detail": verdict.detail,
                                       "value": verdict.value}
    return Enrichment(item.facts_hash, model, prompt_version, accepted, provenance, rejected,
                      tokens_in, tokens_out)
