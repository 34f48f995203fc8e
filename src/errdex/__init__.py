"""errdex: a static error index of a Python codebase, and explanations of the errors it raises.

The public API is loaded on first use (module `__getattr__`), so `import errdex`
stays cheap enough to sit at the top of any script:

- `errdex.install(db=None, *, index_missing=True) -> bool`: explain uncaught exceptions.
- `errdex.uninstall() -> None`: put the previous hooks back.
- `errdex.explain(text_or_exception, db=None, dataset=None) -> list[Match]`: match error text.
- `errdex.scan(path_or_stream, db=None, dataset=None) -> ScanReport`: every error in a log.
- `errdex.index(spec, db_path="errdex.db", *, jobs=None, ...) -> IndexReport`: build a dataset.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["explain", "index", "install", "scan", "uninstall"]

_LAZY = {
    "install": ("errdex.hook.install", "install"),
    "uninstall": ("errdex.hook.install", "uninstall"),
    "explain": ("errdex.match", "explain"),
    "scan": ("errdex.match", "scan"),
    "index": ("errdex.pipeline", "index_source"),
}


def __getattr__(name: str):
    """Import a public name's module only when the name is first used."""
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'errdex' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(target[0]), target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
