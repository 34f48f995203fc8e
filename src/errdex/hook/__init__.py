"""The hook stage: explain exceptions when they happen (excepthook, threads, unraisable, IPython, pytest).

`install()`/`uninstall()` live in `install.py`; `explain_exception()` finds the
record for a live exception (frames first, then the message), indexing the
owning distribution's exact version on first sight (`lazy_index.py`).
"""

from errdex.hook.install import install, is_installed, report_exception, uninstall

__all__ = ["install", "is_installed", "report_exception", "uninstall"]
