import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SAMPLE = {
    "widgets/__init__.py": "from .errors import WidgetError\n__all__ = ['make']\nfrom .core import make\n",
    "widgets/errors.py": "class WidgetError(ValueError):\n    code = 'W1'\n",
    "widgets/core.py": '''
        import warnings
        from .errors import WidgetError

        MAX = 512

        def _fail(msg):
            raise RuntimeError(msg)

        def _cell_of(m):
            for c in (8, 16, 32, 64, 128, 256, 512):
                if m <= c:
                    return c
            raise ValueError(f"gemm_ar: M={m} outside [1, {MAX}]")

        def make(n, kind="a"):
            if n < 0:
                raise WidgetError(f"negative size {n}")
            elif kind not in ("a", "b"):
                raise WidgetError("unknown kind %s" % kind)
            if n == 0:
                _fail(f"empty widget for kind={kind}")
            assert n < 10_000, "too big"
            warnings.warn("make() is slow", DeprecationWarning)
            return _cell_of(n)
    ''',
    "tests/test_core.py": '''
        def test_x():
            assert 1 + 1 == 2, "math broke"
    ''',
}


def write_sample(root: Path, files=SAMPLE) -> Path:
    for rel, body in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(body), encoding="utf-8")
    return root


@pytest.fixture
def sample(tmp_path):
    return write_sample(tmp_path / "widgets-src")


@pytest.fixture
def run_cli(tmp_path):
    """Run the real `errdex` CLI in a subprocess, ERRDEX_HOME inside tmp_path."""
    def run(*args, input=None, check=True):
        env = {**os.environ, "ERRDEX_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
        proc = subprocess.run([sys.executable, "-m", "errdex", *args], capture_output=True, text=True,
                              input=input, env=env, timeout=300)
        if check and proc.returncode != 0:
            raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        return proc
    return run
