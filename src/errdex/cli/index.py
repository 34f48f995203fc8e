"""`errdex index SOURCE`: build or refresh a dataset, with a progress bar."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from errdex.cli.options import db_option
from errdex.cli.teardown import end_without_teardown
from errdex.collector import collector_paused


@click.command()
@click.argument("source")
@db_option
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: one per CPU). The result is identical for any value.")
@click.option("--repo", default=None, help="Override the repository name (owner/name).")
@click.option("--version", "version", default=None, help="Override the version (default: git sha, package version).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Leave out files matching GLOB (repeatable).")
@click.option("--rev", default=None, metavar="A..B",
              help="Index every commit of this git range of SOURCE (A too, as the baseline), one dataset each.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-analysis", is_flag=True,
              help="Skip trigger conditions and feeding values (faster; the catalog alone).")
@click.option("--full", is_flag=True,
              help="Rebuild every record. By default a dataset indexed before is updated in place when only "
                   "a few files changed and none changed what it offers other files (classes, helpers, calls).")
def index(source: str, db: str, jobs: int | None, repo: str | None, version: str | None,
          exclude: tuple[str, ...], rev: str | None, quiet: bool, no_analysis: bool, full: bool) -> None:
    """Index every error SOURCE can raise into the SQLite index.

    SOURCE is a folder, a git checkout (version = HEAD sha), pypi:NAME[==VERSION]
    (downloaded without dependencies, never run) or installed:DIST. The code
    is parsed, never imported or executed. Re-indexing reuses per-file
    results for files whose content did not change, and when few files
    changed, rebuilds only their records (see --full).
    """
    # The collector stays off until the process ends: switched back on, its first pass
    # would sweep the whole run's heap (~0.2 s on a large codebase) just before the exit.
    with collector_paused():
        _index(source, db, jobs, repo, version, exclude, rev, quiet, no_analysis, full)


def _index(source: str, db: str, jobs: int | None, repo: str | None, version: str | None,
           exclude: tuple[str, ...], rev: str | None, quiet: bool, no_analysis: bool, full: bool) -> None:
    from errdex.pipeline import index_source

    with _feedback(quiet) as (progress, say):
        if rev is not None:
            return _index_range(source, rev, db, jobs, repo, exclude, progress, say)
        retained: list = []
        report = index_source(source, db, jobs=jobs, repo=repo, version=version, exclude=exclude,
                              progress=progress, message=say, analysis=not no_analysis, full=full,
                              keep=retained)
    ds = report.dataset
    if report.in_place:
        click.echo(f"updated {ds.name} in place: {report.extracted:,} of {report.files:,} files changed, "
                   f"{report.records:,} records, in {report.seconds:.1f}s -> {db}")
        return
    click.echo(f"indexed {ds.name}: {report.records:,} records from {report.files:,} files "
               f"({report.extracted:,} parsed, {report.files - report.extracted:,} from cache) "
               f"in {report.seconds:.1f}s -> {db}")
    if report.diagnostics:
        reasons = Counter(d.reason for d in report.diagnostics)
        detail = ", ".join(f"{n} {r}" for r, n in reasons.most_common())
        click.echo(f"skipped {len(report.diagnostics):,} files: {detail} (errdex stats --dataset {ds.name} lists them)")
    else:
        click.echo("skipped 0 files")
    end_without_teardown("index")


@contextmanager
def _feedback(quiet: bool) -> Iterator[tuple[Callable[[str, int, int], None], Callable[[str], None]]]:
    """(progress, message) callbacks: rich's bars and dim notes on stderr; with --quiet, nothing
    (and rich is not even imported)."""
    if quiet:
        yield (lambda stage, done, total: None), (lambda text: None)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield progress, (lambda text: console.print(f"[dim]{text}[/]"))


def _index_range(source, rev, db, jobs, repo, exclude, progress, say) -> None:
    """--rev: one dataset per commit, files shared across commits by content."""
    from errdex.versions import index_git_range

    report = index_git_range(source, rev, db, jobs=jobs, repo=repo, exclude=exclude,
                             progress=progress, message=say)
    click.echo(f"indexed {len(report.datasets)} commits of {report.repo} ({rev}): {report.files_written:,} "
               f"files written, {report.extracted:,} parsed, {report.records:,} records at the last "
               f"commit, in {report.seconds:.1f}s -> {db}")
