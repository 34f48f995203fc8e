"""`errdex run SCRIPT [ARGS]...`: run a Python script with uncaught exceptions explained."""

from __future__ import annotations

import sys

import click


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                 "allow_interspersed_args": False})
@click.option("-m", "module", is_flag=True, help="SCRIPT is a module name, as in `python -m`.")
@click.argument("script")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(script: str, args: tuple[str, ...], module: bool) -> None:
    """Run SCRIPT (with ARGS) as `python SCRIPT ARGS` would, explaining any uncaught exception.

    The traceback and exit status are Python's own; ERRDEX_DISABLE=1 runs the
    script with no hook at all.
    """
    from errdex.hook.runner import run_script

    sys.exit(run_script(script, args, module=module))
