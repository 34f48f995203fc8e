"""`install()` / `uninstall()`: explain uncaught exceptions after Python's own traceback.

Hooks `sys.excepthook`, `threading.excepthook`, `sys.unraisablehook` and,
when running inside IPython, the shell's custom-exception handler. Each hook
first calls the hook it replaced (so the traceback is printed exactly as
before), then prints the errdex explanation (a panel on a terminal, plain
text elsewhere). Whatever goes wrong inside errdex becomes one line on stderr; KeyboardInterrupt and SystemExit are passed on
untouched; a hook firing while errdex is already explaining does nothing more.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

DISABLE_ENV = "ERRDEX_DISABLE"
TIMEOUT_ENV = "ERRDEX_TIMEOUT"
DEFAULT_TIMEOUT = 120.0
_PASS_THROUGH = (KeyboardInterrupt, SystemExit, GeneratorExit)


class _State:
    installed = False
    db_path: Path | None = None
    index_missing = True
    previous: dict[str, Any] = {}
    busy = threading.local()


def disabled() -> bool:
    """True when `ERRDEX_DISABLE` is set to anything but "", "0", "false" or "no"."""
    return os.environ.get(DISABLE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def is_installed() -> bool:
    return _State.installed


def install(db: str | os.PathLike | None = None, *, index_missing: bool = True) -> bool:
    """Hook uncaught exceptions; True when the hooks are (now) in place, False when disabled.

    `db` defaults to `ERRDEX_HOME/errdex.db`; `index_missing=False` only reads
    what is already indexed and never indexes a distribution on first sight.
    """
    if disabled():
        return False
    _State.db_path = Path(db) if db is not None else None
    _State.index_missing = index_missing
    if _State.installed:
        return True
    _State.previous = {"sys": sys.excepthook, "threading": threading.excepthook,
                       "unraisable": sys.unraisablehook}
    sys.excepthook = _excepthook
    threading.excepthook = _threading_hook
    sys.unraisablehook = _unraisable_hook
    from errdex.hook.ipython import hook_ipython

    _State.previous["ipython"] = hook_ipython(report_exception)
    _State.installed = True
    return True


def uninstall() -> None:
    """Put back the hooks `install()` replaced (only those still ours)."""
    if not _State.installed:
        return
    prev = _State.previous
    if sys.excepthook is _excepthook:
        sys.excepthook = prev["sys"]
    if threading.excepthook is _threading_hook:
        threading.excepthook = prev["threading"]
    if sys.unraisablehook is _unraisable_hook:
        sys.unraisablehook = prev["unraisable"]
    restore = prev.get("ipython")
    if restore is not None:
        restore()
    _State.previous = {}
    _State.installed = False


def _excepthook(exc_type, exc, tb) -> None:
    _State.previous.get("sys", sys.__excepthook__)(exc_type, exc, tb)
    if exc is not None and exc.__traceback__ is None:
        exc = exc.with_traceback(tb)
    report_exception(exc)


def _threading_hook(args) -> None:
    _State.previous.get("threading", threading.__excepthook__)(args)
    if args.exc_value is not None and args.exc_type is not SystemExit:
        report_exception(args.exc_value)


def _unraisable_hook(unraisable) -> None:
    _State.previous.get("unraisable", sys.__unraisablehook__)(unraisable)
    if unraisable.exc_value is not None:
        report_exception(unraisable.exc_value)


def report_exception(exc: BaseException, stream: TextIO | None = None) -> None:
    """Print the explanation of `exc` on `stream` (stderr); never raises, never recurses."""
    if isinstance(exc, _PASS_THROUGH) or disabled() or getattr(_State.busy, "active", False):
        return
    out = stream or sys.stderr
    _State.busy.active = True
    try:
        _run_with_timeout(exc, out)
    except BaseException as failure:  # noqa: BLE001 - errdex must never make an error worse
        _note(out, f"could not explain this error ({type(failure).__name__}: {failure})")
    finally:
        _State.busy.active = False


def _run_with_timeout(exc: BaseException, out: TextIO) -> None:
    """Explain in a worker thread so a slow index cannot hold the process past the timeout."""
    outcome: dict[str, BaseException] = {}

    def work() -> None:
        try:
            _explain_and_print(exc, out)
        except BaseException as failure:  # noqa: BLE001 - handed to the caller below
            outcome["error"] = failure

    try:
        worker = threading.Thread(target=work, name="errdex-explain", daemon=True)
        worker.start()
    except RuntimeError:   # no new threads (interpreter shutting down): run inline
        work()
    else:
        timeout = _timeout()
        worker.join(timeout)
        if worker.is_alive():
            raise TimeoutError(f"gave up after {timeout:g}s (set {TIMEOUT_ENV} to wait longer)")
    if "error" in outcome:
        raise outcome["error"]


def _explain_and_print(exc: BaseException, out: TextIO) -> None:
    from errdex.hook.explainer import explain_exception
    from errdex.hook.lazy_index import default_db
    from errdex.hook.panel import print_explanations

    db_path = _State.db_path or default_db()
    explanations = explain_exception(exc, db_path, out, index_missing=_State.index_missing)
    if explanations:
        print_explanations(explanations, out)
    else:
        _note(out, "no indexed error site raised this (index your own code with `errdex index DIR`)")


def _timeout() -> float:
    try:
        return float(os.environ.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT)
    except ValueError:
        return DEFAULT_TIMEOUT


def _note(out: TextIO, text: str) -> None:
    """One line on `out`, however the text is shaped; silent if even that fails."""
    line = " ".join(text.split())
    try:
        print(f"errdex: {line[:300]}", file=out, flush=True)
    except Exception:  # noqa: BLE001 - a closed stderr is not our problem to report
        pass
