"""IPython/Jupyter: explain cell errors after the shell's own traceback display.

IPython never calls `sys.excepthook` for cell errors; it offers
`set_custom_exc` instead. IPython is looked for only if it is already
imported, so a plain script never pays for it.
"""

from __future__ import annotations

import sys
from typing import Callable


def current_shell():
    """The running IPython shell, or None (IPython not imported, or no shell)."""
    module = sys.modules.get("IPython")
    get = getattr(module, "get_ipython", None)
    try:
        return get() if get else None
    except Exception:  # noqa: BLE001 - a half-initialised IPython means no shell
        return None


def hook_ipython(report: Callable[[BaseException], None]) -> Callable[[], None] | None:
    """Install the handler in the running shell; returns the function that undoes it, or None."""
    shell = current_shell()
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return None
    saved = (shell.custom_exceptions, getattr(shell, "CustomTB", None))

    def handler(self, etype, value, tb, tb_offset=None):
        self.showtraceback((etype, value, tb), tb_offset=tb_offset)
        if value is not None:
            report(value.with_traceback(tb) if value.__traceback__ is None else value)

    shell.set_custom_exc((Exception,), handler)

    def restore() -> None:
        shell.custom_exceptions = saved[0]
        if saved[1] is not None:
            shell.CustomTB = saved[1]

    return restore
