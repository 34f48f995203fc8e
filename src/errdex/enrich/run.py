"""One enrich run over a dataset: select, skip what is cached, ask in batches, store per batch.

Each finished batch is committed on its own, so a run that is killed (or
whose endpoint dies) keeps everything answered so far, and the next run
asks only about records whose (facts hash, model, prompt version) has no
enrichment yet. When the endpoint fails for good the run stops scheduling
new requests, stores what finished, and raises `EndpointError`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from errdex.enrich.answer import json_schema
from errdex.enrich.batch import BatchResult, PendingRecord, ask_batch
from errdex.enrich.client import ChatClient, ClientConfig, EndpointError
from errdex.enrich.facts import facts_hash, record_facts
from errdex.enrich.prompt import PROMPT_VERSION, Prompt, load_prompt
from errdex.store import Store

#: progress(records finished, records to ask about)
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class EnrichConfig:
    """What to enrich and how."""

    client: ClientConfig
    dataset: str | None = None       # None: the most recently indexed dataset
    limit: int | None = None         # first N records (by file and line)
    batch_size: int = 4              # records per request
    prompt_version: str = PROMPT_VERSION


@dataclass(slots=True)
class EnrichReport:
    """What a run did; `summary()` is the CLI's final line."""

    dataset: str = ""
    records: int = 0           # distinct records selected
    cached: int = 0            # already enriched for this model and prompt
    enriched: int = 0          # answered, verified and stored by this run
    failed: int = 0            # answer stayed malformed: asked again next run
    fields_accepted: int = 0
    fields_rejected: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    requests: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.enriched + self.cached}/{self.records} records done"
                f" ({self.enriched} enriched, {self.cached} cached, {self.failed} failed;"
                f" fields {self.fields_accepted} kept, {self.fields_rejected} rejected)"
                f" · tokens in {self.tokens_in:,} / out {self.tokens_out:,}"
                f" · {self.seconds:.1f} s · {self.requests} requests")


def enrich_dataset(store: Store, config: EnrichConfig, *,
                   progress: Progress | None = None) -> EnrichReport:
    """Enrich one dataset's records in `store`; see the module docstring."""
    return asyncio.run(enrich_dataset_async(store, config, progress=progress))


async def enrich_dataset_async(store: Store, config: EnrichConfig, *,
                               progress: Progress | None = None) -> EnrichReport:
    started = time.monotonic()
    info = store.resolve_dataset(config.dataset)
    report = EnrichReport(dataset=info.name)
    prompt = load_prompt(config.prompt_version)
    pending = _select(store, info.id, config, report)
    if progress:
        progress(0, len(pending))
    batches = [pending[i:i + max(1, config.batch_size)]
               for i in range(0, len(pending), max(1, config.batch_size))]
    try:
        async with ChatClient(config.client, schema=json_schema()) as client:
            try:
                await _run_batches(store, client, prompt, batches, report, progress, len(pending))
            finally:
                report.requests = client.requests
    finally:
        report.seconds = time.monotonic() - started
    return report


def _select(store: Store, dataset_id: int, config: EnrichConfig,
            report: EnrichReport) -> list[PendingRecord]:
    """Records to ask about, one per distinct facts hash; cached ones are linked right away."""
    by_hash: dict[str, PendingRecord] = {}
    for raw in store.enrichments.raw_records(dataset_id, config.limit):
        facts = record_facts(raw.record)
        digest = facts_hash(facts)
        if digest in by_hash:
            by_hash[digest].body_hashes.append(raw.body_hash)
        else:
            by_hash[digest] = PendingRecord(digest, str(raw.record.get("id")), facts,
                                            raw.record, [raw.body_hash])
    report.records = len(by_hash)
    model, version = config.client.model, config.prompt_version
    cached = store.enrichments.cached(list(by_hash), model, version)
    if cached:
        links = [(body, digest) for digest in cached for body in by_hash[digest].body_hashes]
        store.enrichments.save([], links, model, version)
    report.cached = len(cached)
    return [item for digest, item in by_hash.items() if digest not in cached]


async def _run_batches(store: Store, client: ChatClient, prompt: Prompt,
                       batches: list[list[PendingRecord]], report: EnrichReport,
                       progress: Progress | None, total: int) -> None:
    """Run every batch under the client's concurrency bound, storing each as it finishes."""
    tasks = {asyncio.create_task(ask_batch(client, prompt, batch)) for batch in batches}
    fatal: EndpointError | None = None
    done_records = 0
    while tasks:
        finished, tasks = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in finished:
            if task.cancelled():
                continue
            error = task.exception()
            if isinstance(error, EndpointError):
                fatal = fatal or error
                continue
            if error is not None:
                raise error
            done_records += _store_batch(store, task.result(), client.config.model,
                                         prompt.version, report)
            if progress:
                progress(done_records, total)
        if fatal and tasks:
            for task in tasks:
                task.cancel()
    if fatal:
        report.errors.append(str(fatal))
        raise fatal


def _store_batch(store: Store, result: BatchResult, model: str, version: str,
                 report: EnrichReport) -> int:
    """Commit one batch's enrichments (one transaction) and count them into the report."""
    links = [(body, item.facts_hash) for item in result.pending for body in item.body_hashes]
    if result.enrichments:
        store.enrichments.save(result.enrichments, links, model, version)
    report.enriched += len(result.enrichments)
    report.failed += len(result.failed)
    report.errors.extend(f"{item.record_id}: {problem}" for item, problem in result.failed)
    report.tokens_in += result.tokens_in
    report.tokens_out += result.tokens_out
    for enrichment in result.enrichments:
        report.fields_accepted += len(enrichment.fields)
        report.fields_rejected += len(enrichment.rejected)
    return len(result.enrichments) + len(result.failed)
