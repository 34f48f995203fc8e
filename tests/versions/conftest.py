import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CORE_V1 = '''
    MAX = 512


    def make(n, kind="a"):
        if n < 0:
            raise ValueError(f"negative size {n}")
        elif kind not in ("a", "b"):
            raise KeyError("unknown kind %s" % kind)
        if n > MAX:
            raise OverflowError(f"size {n} over {MAX}")
        return n


    def pick(items, i):
        if not items:
            raise IndexError("cannot pick from an empty list")
        return items[i]
'''

UTIL_V1 = '''
    def parse_mode(text):
        """Turn a mode name into its number."""
        modes = {"fast": 1, "slow": 2}
        if text not in modes:
            raise ValueError(f"unknown mode {text!r}; expected fast or slow")
        return modes[text]
'''


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write `files` under root, removing .py files that are not listed."""
    root.mkdir(parents=True, exist_ok=True)
    for old in root.rglob("*.py"):
        rel = old.relative_to(root).as_posix()
        if rel not in files:
            old.unlink()
    for rel, body in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(body).lstrip("\n"), encoding="utf-8")
    return root


def git(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="T",
               GIT_COMMITTER_EMAIL="t@example.com")
    proc = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def commit(root: Path, files: dict[str, str], subject: str, when: int) -> str:
    write_files(root, files)
    git(root, "add", "-A")
    date = f"{1_700_000_000 + when} +0000"
    git(root, "-c", "user.name=T", "commit", "-q", "-m", subject, "--date", date)
    env_date = date
    git(root, "commit", "-q", "--amend", "--no-edit", "--date", env_date)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def run_cli(tmp_path):
    """The real `errdex` CLI in a subprocess, ERRDEX_HOME inside tmp_path."""
    def run(*args, check=True):
        env = {**os.environ, "ERRDEX_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
        proc = subprocess.run([sys.executable, "-m", "errdex", *args], capture_output=True, text=True,
                              env=env, timeout=300)
        if check and proc.returncode != 0:
            raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        return proc
    return run
