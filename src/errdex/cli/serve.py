"""`errdex serve`: the web pages and JSON API over one index (the static site is `errdex export --format site`)."""

from __future__ import annotations

import click

from errdex.cli.options import dataset_option, db_option


@click.command()
@db_option
@dataset_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to bind; the default is reachable from this machine only.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1),
              help="Server processes (each opens the index read-only).")
def serve(db, dataset, host, port, workers) -> None:
    """Serve the index read-only: error pages, search, paste-to-explain and the JSON API."""
    import uvicorn

    from errdex.web import create_app

    app = create_app(db, dataset)  # fails here, with a clear message, if db is not an index
    click.echo(f"errdex: serving {db} at http://{host}:{port}/", err=True)
    if workers > 1:
        import os

        os.environ["ERRDEX_SERVE_DB"] = str(db)
        os.environ["ERRDEX_SERVE_DATASET"] = dataset or ""
        uvicorn.run("errdex.cli.serve:app_from_env", factory=True, host=host, port=port,
                    workers=workers, log_level="warning")
    else:
        uvicorn.run(app, host=host, port=port, log_level="warning")


def app_from_env():
    """App factory for multi-process serving: each worker builds its own app."""
    import os

    from errdex.web import create_app

    return create_app(os.environ["ERRDEX_SERVE_DB"], os.environ.get("ERRDEX_SERVE_DATASET") or None)
