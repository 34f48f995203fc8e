"""The read side of the CLI: `list`, `show`, `stats`, `export`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.syntax import Syntax
from rich.table import Table

from errdex.cli.console import stdout_console
from errdex.cli.options import dataset_option, db_option, json_option
from errdex.errors import ErrdexError
from errdex.export import SEED_FORMAT_HELP, write_export


def _store(db: str):
    from errdex.store import Store

    return Store.open(db, readonly=True)


@click.command("list")
@db_option
@dataset_option
@click.option("--class", "error_class", default=None, help="Only this errorClass (as written).")
@click.option("--type", "error_type", default=None,
              type=click.Choice(["exception", "assertion", "warning", "http", "log", "returned"]), help="Only this errorType.")
@click.option("--path", "path_glob", default=None, metavar="GLOB", help="Only files matching GLOB.")
@click.option("--text", default=None, help="Only messages containing TEXT.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(min=0), help="0 = no limit.")
@json_option
def list_records(db, dataset, error_class, error_type, path_glob, text, limit, as_json) -> None:
    """List records of a dataset, filtered."""
    with _store(db) as store:
        info = store.resolve_dataset(dataset)
        rows = list(store.iter_records(info.name, error_class=error_class, error_type=error_type,
                                       path_glob=path_glob, text=text, limit=limit or None))
        total = store.count_records(info.name, error_class=error_class, error_type=error_type,
                                    path_glob=path_glob, text=text)
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    table = Table(title=f"{info.name}: {len(rows):,} of {total:,} records", title_justify="left")
    for col in ("id", "class", "where", "message"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["id"], r["errorClass"] or "", f"{r['filePath']}:{r['lineNumber']}",
                      _clip(r["errorMessage"] or "(no message)", 100))
    stdout_console().print(table)


@click.command()
@click.argument("ref")
@db_option
@dataset_option
@json_option
@click.option("--seed-format", is_flag=True, help="Only the seed catalog's fields (with --json).")
def show(ref, db, dataset, as_json, seed_format) -> None:
    """Show one record by id (16 hex) or slug."""
    from errdex.export import to_seed

    with _store(db) as store:
        found = store.get_record(ref, dataset)
    if found is None:
        raise ErrdexError(f"no record {ref!r}" + (f" in {dataset}" if dataset else ""))
    record = found["record"]
    if as_json:
        body = to_seed(record) if seed_format else record
        click.echo(json.dumps({"record": body, "datasetVersion": found["datasetVersion"]},
                              ensure_ascii=False, indent=2))
        return
    _print_record(record, found["dataset"])


def _print_record(r: dict, dataset: str) -> None:
    from errdex.render import text_sections

    console = stdout_console()
    console.rule(f"[bold]{r['repo']} · error · {r['errorClass'] or r['errorType']}")
    for title, body, heuristic in text_sections(r):
        mark = " [yellow](heuristic)[/]" if heuristic else ""
        console.print(f"[bold]{title}[/]{mark}")
        console.print(body, highlight=False, markup=False)
        console.print()
    lexer_start = r["sourceCodeStart"]
    console.print(f"[bold]Source[/]  thrown at {r['filePath']}:{r['lineNumber']}")
    console.print(Syntax(r["sourceCode"], "python", line_numbers=True, start_line=lexer_start,
                         highlight_lines={r["lineNumber"]}, word_wrap=False))
    if r.get("githubUrl"):
        console.print(f"[link={r['githubUrl']}]{r['githubUrl']}[/link]")
    console.print(f"[dim]{dataset} · id {r['id']} · slug {r['slug']}[/]")


@click.command()
@db_option
@dataset_option
@json_option
@click.option("--files", "list_files", is_flag=True, help="List the files that were skipped, with reasons.")
def stats(db, dataset, as_json, list_files) -> None:
    """Counts by class, type and tag, and files skipped, for one dataset (or all)."""
    with _store(db) as store:
        data = store.stats(dataset)
        datasets = store.datasets()
        skipped = store.diagnostics(data["dataset"] or store.resolve_dataset(None).name) if list_files else []
    if as_json:
        data["datasetNames"] = [d.name for d in datasets]
        if list_files:
            data["skippedFiles"] = [{"filePath": d.file_path, "reason": d.reason, "detail": d.detail} for d in skipped]
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    console = stdout_console()
    table = Table(title="datasets", title_justify="left")
    for col in ("dataset", "records", "files", "skipped", "published"):
        table.add_column(col)
    for d in datasets:
        table.add_row(d.name, f"{d.record_count:,}", f"{d.file_count:,}", f"{d.diagnostic_count:,}", d.published_at)
    console.print(table)
    console.print(f"records: {data['records']:,} in {data['files_with_records']:,} files")
    for key in ("by_error_type", "by_severity", "by_error_class", "by_background_tag"):
        items = list(data[key].items())[:15]
        console.print(f"{key.replace('_', ' ')}: " + ", ".join(f"{k or '-'} {v:,}" for k, v in items))
    console.print(f"skipped files: {data['diagnostics']:,} " + ", ".join(
        f"{k} {v}" for k, v in data["diagnostics_by_reason"].items()))
    for d in skipped:
        console.print(f"  {d.file_path}: {d.reason}: {d.detail}", markup=False)


@click.command()
@click.argument("out", type=click.Path(dir_okay=True, writable=True))
@db_option
@dataset_option
@click.option("--format", "fmt", type=click.Choice(["json", "jsonl", "site"]), default="jsonl", show_default=True,
              help="json: one array of {record, datasetVersion}; jsonl: one record per line; "
                   "site: static HTML pages + one JSON file per record + a client-side search index (OUT is a folder).")
@click.option("--seed-format", is_flag=True, help=SEED_FORMAT_HELP)
def export(out, db, dataset, fmt, seed_format) -> None:
    """Export a dataset's records to OUT (`-` for stdout, a folder for --format site)."""
    if fmt == "site":
        from errdex.web import export_site

        report = export_site(db, out, dataset)
        click.echo(f"exported {report.records:,} records ({report.pages:,} pages) of "
                   f"{', '.join(report.datasets)} to {report.out} in {report.seconds:.1f} s", err=True)
        return
    with _store(db) as store:
        info = store.resolve_dataset(dataset)
        if out == "-":
            n = write_export(store, info, sys.stdout, fmt, seed_format)
        else:
            target = Path(out)
            tmp = target.with_name(target.name + ".part")
            with tmp.open("w", encoding="utf-8") as fh:
                n = write_export(store, info, fh, fmt, seed_format)
            tmp.replace(target)
    click.echo(f"exported {n:,} records of {info.name}" + ("" if out == "-" else f" to {out}"), err=True)


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
