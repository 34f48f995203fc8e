"""Many files: reading overlaps the worker pool, and cached and extracted files mix without changing records."""

from errdex.pipeline import _BATCH, _READ_GROUP, index_source
from errdex.store import Store

N_FILES = 2 * _READ_GROUP + 7   # several read groups and batches, the last ones partial


def _write(root, changed=()):
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "pkg/__init__.py").write_text("from .errors import Broken\n")
    (root / "pkg/errors.py").write_text("class Broken(ValueError):\n    code = 'E1'\n")
    for i in range(N_FILES):
        extra = f"    warnings.warn('changed {i}')\n" if i in changed else ""
        (root / f"pkg/m{i:03d}.py").write_text(
            "import warnings\nfrom .errors import Broken\n\n"
            f"def f{i}(x):\n    if x < {i}:\n        raise Broken(f'x={{x}} under {i}')\n{extra}"
            f"    assert x != {i}, 'not {i}'\n    return x\n")
    return root


def _records(db, dataset=None):
    with Store.open(db, readonly=True) as store:
        return [{k: v for k, v in r.items() if k != "analyzedAt"} for r in store.iter_records(dataset)]


def test_pool_and_single_process_give_the_same_records(tmp_path):
    root = _write(tmp_path / "src")
    one = index_source(str(root), tmp_path / "one.db", jobs=1, repo="acme/many", version="1", analysis=False)
    two = index_source(str(root), tmp_path / "two.db", jobs=2, repo="acme/many", version="1", analysis=False)
    assert one.records == two.records == 2 * N_FILES
    assert _records(tmp_path / "one.db") == _records(tmp_path / "two.db")


def test_cached_and_extracted_files_mix_in_any_group(tmp_path):
    root = _write(tmp_path / "src")
    db = tmp_path / "index.db"
    index_source(str(root), db, jobs=2, repo="acme/many", version="1", analysis=False)
    changed = set(range(0, N_FILES, 3))          # misses in every read group, more than one batch
    assert len(changed) > _BATCH
    _write(root, changed)
    again = index_source(str(root), db, jobs=2, repo="acme/many", version="2", analysis=False)
    assert again.extracted == len(changed)
    fresh = index_source(str(root), tmp_path / "fresh.db", jobs=1, repo="acme/many", version="2", analysis=False)
    assert again.records == fresh.records == 2 * N_FILES + len(changed)
    assert _records(db, "acme/many@2") == _records(tmp_path / "fresh.db")
