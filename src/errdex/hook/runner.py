"""`python -m errdex run script.py [args]`: run a script as `__main__` with the hook installed.

The script runs in this interpreter through `runpy`, with `sys.argv` and
`sys.path[0]` set as `python script.py` would set them. An uncaught exception
goes through `sys.excepthook` (so the traceback and exit status 1 are
Python's own); `SystemExit` keeps its code.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Sequence


def run_script(script: str, args: Sequence[str] = (), *, module: bool = False) -> int:
    """Run `script` (a path, or a module name when `module`) as `__main__`; its exit status."""
    from errdex.hook.install import install

    install()
    sys.argv = [script, *args]
    if not module:
        sys.path.insert(0, str(Path(script).resolve().parent))
    try:
        if module:
            runpy.run_module(script, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(script, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as exc:   # noqa: BLE001 - reported exactly as Python would
        tb = exc.__traceback__
        # Drop errdex's own frames (this function, runpy) so the traceback reads as `python script.py`.
        while tb is not None and _is_runner_frame(tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next
        sys.excepthook(type(exc), exc.with_traceback(tb or exc.__traceback__), tb or exc.__traceback__)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    return 0


def _is_runner_frame(filename: str) -> bool:
    return filename in (__file__, runpy.__file__) or filename.endswith("<frozen runpy>")
