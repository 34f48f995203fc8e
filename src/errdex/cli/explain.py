"""`errdex explain` and `errdex scan`: thin commands over `errdex.match`.

Exit codes: `explain` returns 0 when at least one match has high confidence,
1 when there are only low-confidence matches or none; `scan` returns 0 when
the log was read (whatever it contained). errdex's own failures (no index,
unknown dataset) print `error: ...` on stderr and exit with the error's
`ErrdexError.exit_code`.
"""

from __future__ import annotations

import json
import os
import sys

import click

from errdex.cli.teardown import end_without_teardown
from errdex.errors import ErrdexError

# rich is imported inside the printing functions: `scan --json` on a big log
# should not pay for it at start-up.


def _fail(exc: ErrdexError) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(exc.exit_code)


@click.command()
@click.argument("text", required=False)
@click.option("--db", type=click.Path(dir_okay=False), default=None, help="Index file (default $ERRDEX_DB or ./errdex.db).")
@click.option("--dataset", "datasets", multiple=True, help="Dataset name (repo@version); repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print matches as JSON.")
def explain(text: str | None, db: str | None, datasets: tuple[str, ...], as_json: bool) -> None:
    """Explain an error line, traceback or log excerpt (TEXT, or `-`/stdin).

    Exits 0 when at least one match has high confidence, 1 when the matches are all low confidence
    or there are none (the low ones are still printed), and errdex's own error code (no index,
    unknown dataset) otherwise.
    """
    from errdex.match import explain as explain_text

    if text is None or text == "-":
        if text is None and sys.stdin.isatty():
            raise click.UsageError("give TEXT, or pipe the error text on stdin")
        text = sys.stdin.read()
    try:
        matches = explain_text(text, db=db, dataset=list(datasets) or None)
    except ErrdexError as exc:
        _fail(exc)
        return
    if as_json:
        click.echo(json.dumps([m.to_dict() for m in matches], indent=2))  # a list, as the API's "matches"
    else:
        _print_matches(matches)
    sys.exit(0 if any(m.confidence == "high" for m in matches) else 1)


def _print_matches(matches) -> None:
    from rich.text import Text

    from errdex.cli.console import stdout_console

    console = stdout_console()
    if not matches:
        console.print("[yellow]No indexed error matches this text.[/]")
        return
    for m in matches:
        colour = "green" if m.confidence == "high" else "yellow"
        console.print(Text.assemble(
            (f"{m.error_class or 'error'} ", "bold"), (f"{m.repo} ", "cyan"),
            (f"{m.file_path}:{m.line_number}", "underline"),
            (f"  [{m.confidence} · via {m.via} · {m.match_kind} · score {m.score}]", colour),
        ))
        console.print(Text("  ") + _template_text(m.error_message, m.bindings))
        if m.candidates:
            console.print(f"    [dim]{_bare_note(m.candidates, m.error_class, m.candidate_ids)}[/]",
                          markup=True, highlight=False)
        for name, value in m.bindings.items():
            expr = m.expressions.get(name, name)
            console.print(Text.assemble("    ", (expr, "magenta"), " = ", (value, "bold green")))
        if m.condition_check is not None:
            console.print(f"    [dim]{m.condition_check.text}[/]", markup=True, highlight=False)
        if m.log_line:
            console.print(f"    [dim]at line {m.log_line} of the text[/]")
        console.print()


def _bare_note(candidates: int, error_class: str | None, ids) -> str:
    """What a bare match stands for: the message names no site, only the class does."""
    shown = ", ".join(ids)
    more = ", ..." if candidates > len(ids) else ""
    site = "site" if candidates == 1 else "sites"
    return (f"one of {candidates} {site} raising {error_class or 'this class'} with a message that is "
            f"only placeholders (this one is the first): {shown}{more}")


def _template_text(template: str, bindings: dict[str, str]):
    """The template with each placeholder replaced by its bound value, highlighted (a rich Text)."""
    from rich.text import Text

    out = Text()
    rest = template
    while "{" in rest:
        head, _, tail = rest.partition("{")
        name, sep, after = tail.partition("}")
        if not sep:
            break
        out.append(head)
        if name in bindings:
            out.append(bindings[name], style="bold green")
        else:
            out.append("{" + name + "}", style="magenta")
        rest = after
    out.append(rest)
    return out


#: Groups shown in the text report, most frequent first (`--json` has them all): rich lays a
#: table out cell by cell (~1.5 ms a row): all 8,019 groups of a 100 MB log took ~6 s to print.
TABLE_GROUPS = 50


@click.command()
@click.argument("log", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--db", type=click.Path(dir_okay=False), default=None, help="Index file (default $ERRDEX_DB or ./errdex.db).")
@click.option("--dataset", "datasets", multiple=True, help="Dataset name (repo@version); repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes for a big log file (default: CPU count; files under 32 MB use one).")
@click.option("--top", type=click.IntRange(min=0), default=TABLE_GROUPS, show_default=True,
              help="Indexed errors listed in the text report, most frequent first (0: all); --json lists all.")
def scan(log: str, db: str | None, datasets: tuple[str, ...], as_json: bool, jobs: int | None, top: int) -> None:
    """Find every indexed error in a log file of any size."""
    import gc

    from errdex.match import scan as scan_log
    from errdex.match.scan import CHUNK_SIZE

    # The scan's objects are acyclic and the process ends after the report: a
    # collection when the scan turned the collector back on cost ~0.07 s.
    gc.disable()
    if log == "-" or os.path.getsize(log) > CHUNK_SIZE:   # a log of one block frees none to reuse
        _keep_freed_memory()
    source = sys.stdin.buffer if log == "-" else log
    show_bar = not as_json and log != "-" and sys.stderr.isatty()
    try:
        if show_bar:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                Progress,
                TimeRemainingColumn,
                TransferSpeedColumn,
            )

            console = Console(stderr=True)
            with Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                          TransferSpeedColumn(), TimeRemainingColumn(), console=console) as bar:
                task = bar.add_task("scanning", total=None)
                report = scan_log(source, db=db, dataset=list(datasets) or None, jobs=jobs,
                                  progress=lambda done, total: bar.update(task, completed=done, total=total))
        else:
            report = scan_log(source, db=db, dataset=list(datasets) or None, jobs=jobs, encode=as_json)
    except ErrdexError as exc:
        _fail(exc)
        return
    if as_json:
        _write_json(report.json_parts())
    else:
        _print_report(report, top or None)
    end_without_teardown("scan")




def _keep_freed_memory() -> None:
    """glibc's malloc keeps freed blocks for reuse, for this process (and its scan workers).

    A scan reads 8 MB blocks; by default each fresh one is mapped from the
    OS and faulted in page by page again (~0.02 s CPU per 50 MB of log). The
    process ends after the report, so holding on to the memory costs nothing.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(-1, 1 << 30)   # M_TRIM_THRESHOLD: never give the heap's top back
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD (its maximum): 8 MB blocks come from the heap
    except Exception:   # not glibc (no mallopt, or no C library to open): nothing to tune
        pass


def _write_json(parts: list[str]) -> None:
    """The report as one JSON line, written piece by piece (joined, a big log's report would be
    copied once more); plain writes: `click.echo` would scan tens of MB for ANSI codes."""
    from errdex.cli.pipes import widen_pipe

    widen_pipe(sys.stdout)
    write = sys.stdout.write
    for part in parts:
        write(part)
    write("\n")
    sys.stdout.flush()


def _print_report(report, top: int | None = TABLE_GROUPS) -> None:
    """Groups (the `top` most frequent; None: all), unknowns and totals as tables (no occurrence
    is turned into a dict: the text report shows groups only)."""
    from rich.table import Table

    from errdex.cli.console import stdout_console

    console = stdout_console()
    groups = report.groups()
    table = Table(title="Indexed errors in the log")
    for col in ("count", "first", "last", "class", "location", "message", "conf."):
        table.add_column(col)
    for g in groups[:top]:
        message = g["errorMessage"][:80]
        if g.get("candidates"):
            message = f"{message} (bare: 1 of {g['candidates']} sites)"
        table.add_row(str(g["count"]), str(g["firstLine"]), str(g["lastLine"]), g["errorClass"] or "",
                      f"{g['filePath']}:{g['lineNumber']}", message, g["confidence"])
    console.print(table)
    if top is not None and len(groups) > top:
        rest = groups[top:]
        console.print(f"[dim]... and {len(rest)} more indexed errors ({sum(g['count'] for g in rest)} "
                      f"occurrences); --top 0 or --json lists them all[/]")
    unknown_list = report.unknown_list()
    if unknown_list:
        unknown = Table(title="Errors not in the index")
        for col in ("count", "first", "normalized"):
            unknown.add_column(col)
        for u in unknown_list[:30]:
            unknown.add_row(str(u["count"]), str(u["firstLine"]), u["normalized"][:100])
        console.print(unknown)
    s = report.stats
    console.print(f"[dim]{s['lines']} lines, {s['bytes'] / 1e6:.1f} MB in {s['seconds']} s "
                  f"({s['mbPerSecond']} MB/s, engine {s['engine']})[/]")
