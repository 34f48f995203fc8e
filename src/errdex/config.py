"""Where errdex keeps its own files: the home folder and the download/unpack cache.

`ERRDEX_HOME` wins over the platform default so tests and CI can point errdex
at a throw-away folder without touching the user's data.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HOME_ENV = "ERRDEX_HOME"


def errdex_home() -> Path:
    """The folder errdex owns: `$ERRDEX_HOME`, else the platform's user data dir."""
    configured = os.environ.get(HOME_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    return Path(platformdirs.user_data_dir("errdex"))


def cache_dir(home: Path | None = None) -> Path:
    """`<home>/cache`, created on demand; downloads and unpacked trees live here."""
    path = (home if home is not None else errdex_home()) / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path
