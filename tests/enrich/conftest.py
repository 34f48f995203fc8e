import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from errdex.pipeline import index_source  # noqa: E402
from errdex.store import Store  # noqa: E402

OPS = '''
class GemmError(ValueError):
    pass


def gemm_ar(M, N):
    if M > 512:
        raise GemmError(f"gemm_ar: M={M} exceeds 512")
    if N % 16 != 0 or N <= 0:
        raise ValueError(f"N={N} must be a positive multiple of 16")
    return M * N


def pick(kind):
    if kind not in ("a", "b"):
        raise KeyError(f"unknown kind {kind}")
    return kind
'''


def write_package(root: Path, extra_functions: int = 0) -> Path:
    pkg = root / "kern"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    body = OPS + "".join(
        f"\n\ndef check_{i}(x):\n    if x < {i}:\n        raise ValueError(f\"x={{x}} below {i}\")\n"
        for i in range(extra_functions))
    (pkg / "ops.py").write_text(textwrap.dedent(body))
    return root


@pytest.fixture
def indexed(tmp_path):
    """A real index of a small package: (db path, {errorMessage: record})."""
    src = write_package(tmp_path / "src")
    db = tmp_path / "errdex.db"
    index_source(str(src), str(db))
    with Store.open(db) as store:
        records = {r["errorMessage"]: r for r in store.iter_records()}
    return db, records


@pytest.fixture
def indexed_many(tmp_path):
    src = write_package(tmp_path / "src", extra_functions=12)
    db = tmp_path / "errdex.db"
    index_source(str(src), str(db))
    with Store.open(db) as store:
        records = list(store.iter_records())
    return db, records
