"""Options shared by several commands, defined once."""

import os

import click

DEFAULT_DB = "errdex.db"


def db_option(f):
    """--db PATH: the SQLite index (default ./errdex.db, or $ERRDEX_DB)."""
    return click.option("--db", "db", default=lambda: os.environ.get("ERRDEX_DB", DEFAULT_DB),
                        show_default="./errdex.db or $ERRDEX_DB", type=click.Path(dir_okay=False),
                        help="SQLite index file.")(f)


def dataset_option(f):
    return click.option("--dataset", "-d", default=None, metavar="REPO@VERSION",
                        help="Dataset to read (default: the most recently indexed).")(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")(f)
