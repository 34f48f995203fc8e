"""`errdex enrich`: optional model-written prose for an indexed dataset, verified before it is stored."""

from __future__ import annotations

import os

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from errdex.cli.options import dataset_option, db_option
from errdex.enrich import ClientConfig, EnrichConfig, enrich_dataset
from errdex.errors import ErrdexError
from errdex.store import Store


@click.command()
@db_option
@dataset_option
@click.option("--endpoint", required=True, metavar="URL",
              help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1.")
@click.option("--model", required=True, metavar="NAME", help="Model name sent to the endpoint.")
@click.option("--api-key-env", default=None, metavar="VAR",
              help="Environment variable holding the API key (sent as a Bearer token).")
@click.option("--concurrency", default=4, show_default=True, type=click.IntRange(1, 256),
              help="Requests in flight at once.")
@click.option("--batch-size", default=4, show_default=True, type=click.IntRange(1, 64),
              help="Records per request.")
@click.option("--limit", default=None, type=click.IntRange(1), help="Only the first N records.")
@click.option("--timeout", default=120.0, show_default=True, type=float, help="Seconds per request.")
@click.option("--retries", default=5, show_default=True, type=click.IntRange(0, 20),
              help="Retries per request on 429, 5xx and timeouts.")
@click.option("--backoff", default=0.5, show_default=True, type=float,
              help="First retry delay in seconds (doubles each retry).")
def enrich(db: str, dataset: str | None, endpoint: str, model: str, api_key_env: str | None,
           concurrency: int, batch_size: int, limit: int | None, timeout: float, retries: int,
           backoff: float) -> None:
    """Ask a language model to rewrite a dataset's prose; keep only what agrees with the facts.

    Resumable: re-running asks only about records without an answer for this
    model and prompt version (and, after a re-index, those whose facts changed).
    """
    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            raise ErrdexError(f"environment variable {api_key_env} is not set")
    config = EnrichConfig(
        ClientConfig(endpoint, model, api_key=api_key, concurrency=concurrency, timeout=timeout,
                     retries=retries, backoff=backoff),
        dataset=dataset, limit=limit, batch_size=batch_size)
    console = Console(stderr=True)
    with Store.open(db) as store, Progress(
            TextColumn("enrich"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=console, transient=True) as bar:
        task = bar.add_task("enrich", total=None)
        report = None
        try:
            report = enrich_dataset(store, config,
                                    progress=lambda done, total: bar.update(task, completed=done,
                                                                            total=total))
        finally:
            bar.stop()
    click.echo(report.summary())
    for problem in report.errors[:10]:
        click.echo(f"  failed: {problem}", err=True)
