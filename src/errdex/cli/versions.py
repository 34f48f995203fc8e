"""`errdex diff A B` and `errdex history ID`: what changed between versions, and a site's past."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click

from errdex.cli.options import db_option, json_option
from errdex.errors import ErrdexError


@click.command()
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@db_option
@json_option
def diff(a: str, b: str, db: str, as_json: bool) -> None:
    """What changed from dataset A to dataset B (each REPO@VERSION).

    Every record of B is added, changed (the fields that differ are named) or
    unchanged; removed lists the records of A that B no longer has.
    """
    from errdex.store import Store
    from errdex.versions import diff_datasets

    with Store.open(db, readonly=True) as store:
        result = diff_datasets(store, a, b)
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2))
        return
    click.echo(f"{result.a} -> {result.b}: {len(result.added)} added, {len(result.removed)} removed, "
               f"{len(result.changed)} changed, {result.unchanged} unchanged")
    for label, sites in (("+", result.added), ("-", result.removed)):
        for s in sites:
            click.echo(f"{label} {s.id}  {s.file_path}:{s.line}  {s.error_class or ''}: {s.message}")
    for c in result.changed:
        s = c.site
        click.echo(f"~ {s.id}  {s.file_path}:{s.line}  [{', '.join(c.fields)}]  {s.message}")
        for name, before in c.before.items():
            click.echo(f"    {name}: {before!r} -> {c.after[name]!r}")


@click.command()
@click.argument("record_id", metavar="ID")
@db_option
@json_option
def history(record_id: str, db: str, as_json: bool) -> None:
    """The versions in which error ID exists, its template and condition at each.

    For commits indexed with `errdex index PATH --rev A..B`, also the commit
    that introduced it and the commits that last changed its message and guard.
    """
    from errdex.store import Store
    from errdex.versions import site_history

    with Store.open(db, readonly=True) as store:
        found = site_history(store, record_id)
    if found is None:
        raise ErrdexError(f"no dataset in {db} holds error {record_id}")
    if as_json:
        click.echo(json.dumps(found.as_dict(), indent=2))
        return
    click.echo(f"{found.id} ({found.repo}): first seen {found.first_seen}, last seen {found.last_seen}")
    for e in found.entries:
        click.echo(f"  {e.version}  {e.file_path}:{e.line}  {e.error_class or ''}: {e.template}")
        click.echo(f"      when: {e.condition or '?'}" + ("" if e.identity == "same-key" else f"  ({e.identity})"))
    if found.missing:
        click.echo(f"  absent from: {', '.join(found.missing)}")
    p = found.provenance
    if p is not None:
        for label, ref in (("introduced", p.introduced), ("message last changed", p.message_changed),
                           ("guard last changed", p.guard_changed)):
            when = datetime.fromtimestamp(ref.committed_at, UTC).strftime("%Y-%m-%d")
            prefix = "at or before " if ref.before_range else ""
            click.echo(f"  {label}: {prefix}{ref.sha[:12]} {when} {ref.author}: {ref.subject}")
