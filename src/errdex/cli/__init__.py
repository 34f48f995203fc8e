"""The `errdex` command line: a thin layer over the library; each command group lives in its own module.

Errors errdex reports on purpose (`ErrdexError`) become one line on stderr
and their `exit_code`, here and nowhere else.
"""

import sys

import click

from errdex.errors import ErrdexError


class _Group(click.Group):
    """Commands are imported only when run (or listed), so `errdex scan` does not pay for `errdex serve`."""

    lazy: dict[str, tuple[str, str]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy and name not in self.commands:
            from importlib import import_module

            module, attr = self.lazy[name]
            self.add_command(getattr(import_module(module), attr), name)
        return super().get_command(ctx, name)

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


# --- command registration: name -> (module, attribute), imported on first use ---
_Group.lazy = {
    "index": ("errdex.cli.index", "index"),
    "list": ("errdex.cli.catalog", "list_records"),
    "show": ("errdex.cli.catalog", "show"),
    "stats": ("errdex.cli.catalog", "stats"),
    "export": ("errdex.cli.catalog", "export"),
    "explain": ("errdex.cli.explain", "explain"),
    "scan": ("errdex.cli.explain", "scan"),
    "diff": ("errdex.cli.versions", "diff"),
    "history": ("errdex.cli.versions", "history"),
    "serve": ("errdex.cli.serve", "serve"),
    "enrich": ("errdex.cli.enrich", "enrich"),
    "run": ("errdex.cli.run", "run"),
}


if __name__ == "__main__":
    main()
