"""Shared helpers: run small scripts in a real subprocess, with and without errdex."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PY = sys.executable


def run(code: str, tmp: Path, *, home: Path | None, env: dict | None = None,
        args: list[str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `code` as a script file under `tmp`; `home` None means ERRDEX_HOME unset (and errdex unused)."""
    script = tmp / "script.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ERRDEX_")}
    full_env["PYTHONDONTWRITEBYTECODE"] = "1"
    full_env["COLUMNS"] = "100"
    if home is not None:
        full_env["ERRDEX_HOME"] = str(home)
    full_env.update(env or {})
    cmd = [PY, *(args or []), str(script)]
    return subprocess.run(cmd, capture_output=True, text=True, env=full_env, cwd=cwd or tmp, timeout=120)


def with_hook(body: str) -> str:
    """`body` preceded by `errdex.install()`."""
    return "import errdex\nerrdex.install()\n" + textwrap.dedent(body)


def extra_lines(with_errdex: str, without: str) -> list[str]:
    """The lines errdex added after the untouched original output (asserts the prefix is intact)."""
    with_errdex, without = (re.sub(r"0x[0-9a-f]+", "0x?", t) for t in (with_errdex, without))
    assert with_errdex.startswith(without), f"original output changed:\n{with_errdex}\n---\n{without}"
    return with_errdex[len(without):].splitlines()


@pytest.fixture(scope="session")
def indexed_home(tmp_path_factory) -> Path:
    """An ERRDEX_HOME that already holds the installed `packaging`; copy it before writing."""
    home = tmp_path_factory.mktemp("home")
    done = subprocess.run([PY, "-m", "errdex", "index", "installed:packaging", "-q", "-j", "1",
                           "--db", str(home / "errdex.db")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return home


@pytest.fixture
def home_copy(indexed_home, tmp_path) -> Path:
    target = tmp_path / "home"
    shutil.copytree(indexed_home, target)
    return target
