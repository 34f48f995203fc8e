"""The `errdex` command line: a thin layer over the library; each command group lives in its own module.

Errors errdex reports on purpose (`ErrdexError`) become one line on stderr
and their `exit_code`, here and nowhere else.
"""

import sys

import click

from errdex.errors import ErrdexError


class _Group(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ErrdexError as exc:
            click.echo(f"errdex: {exc}", err=True)
            sys.exit(exc.exit_code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="errdex")
def main() -> None:
    """errdex: index every error a codebase can raise, then explain any error text.

    Start with `errdex index SOURCE` (a folder, a git checkout, pypi:NAME==VER
    or installed:DIST), then `errdex list`, `errdex show ID` or
    `errdex explain "ValueError: ..."`.
    """


# --- command registration (one import + add_command per command module) ---
from errdex.cli.catalog import export, list_records, show, stats  # noqa: E402
from errdex.cli.enrich import enrich  # noqa: E402
from errdex.cli.explain import explain, scan  # noqa: E402
from errdex.cli.index import index  # noqa: E402
from errdex.cli.run import run  # noqa: E402
from errdex.cli.serve import serve  # noqa: E402
from errdex.cli.versions import diff, history  # noqa: E402

for _command in (index, list_records, show, stats, export, explain, scan, diff, history, serve, enrich, run):
    main.add_command(_command)


if __name__ == "__main__":
    main()
