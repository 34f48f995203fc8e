"""`finish` where the publish encodes: the same records as `analyze_dataset` in one process.

A small codebase written here goes through the real pipeline stages up to
`build_records`; `analyze_dataset` fills copies of its records in this
process, and they must equal, field for field and in the same key order,
what `errdex index` stores when forked encoders run each record's `finish`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from errdex import pipeline
from errdex.analyze.dataset import analyze_dataset, prepare_dataset
from errdex.analyze.fields import fill_prose
from errdex.records import build_records
from errdex.sources import resolve_source
from errdex.store import Store, codec, encoding, publish
from .sources import write_sources

PKG = {
    "pkg/__init__.py": "from pkg.api import run, Runner\n__all__ = ['run', 'Runner']\n",
    "pkg/api.py": """
        import warnings
        from pkg import kernels as k

        def run(m, backend="triton"):
            if backend not in ("triton", "flashinfer"):
                raise ValueError(f"unsupported backend {backend}")
            return k.cell_of(m)

        class Runner:
            def __init__(self, size):
                if not isinstance(size, int):
                    raise TypeError(f"size must be int, got {size!r}")
                self.size = size

            def go(self, x):
                if x is None:
                    warnings.warn("x is None; using 0", DeprecationWarning)
                try:
                    return run(x)
                except KeyError as e:
                    raise RuntimeError(f"lookup failed for {x}") from e
        """,
    "pkg/kernels.py": """
        def cell_of(m: int) -> int:
            n = m * 2
            for c in (8, 16, 32):
                if n <= c:
                    return c
            if m > 512:
                raise ValueError(f"gemm_ar: M={m} outside [1, 512]")
            raise NotImplementedError("no cell for this size")

        def _check(shape, dtype):
            assert len(shape) == 2, f"expected 2 dims, got {shape}"
            if dtype not in ("fp16", "bf16"):
                raise TypeError(f"unsupported dtype {dtype}")
        """,
    "tests/test_kernels.py": """
        from pkg.kernels import cell_of

        def test_cell():
            assert cell_of(3) == 8, "cell of 3"
        """,
}


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return write_sources(tmp_path_factory.mktemp("finish") / "src", PKG)


@pytest.fixture(scope="module")
def stage(tmp_path_factory):
    """(records, facts, linked Codebase) as `index_tree` has them right before `analyze_dataset`."""
    root = tmp_path_factory.mktemp("offload")
    src = write_sources(root / "src", PKG)
    tree = resolve_source(str(src), repo="o/pkg", version="1")
    with Store.open(root / "facts.db") as store:
        got = pipeline._extract_all(tree, store, 1, lambda *a: None, True)
        facts = got.files
        sites, classes, cb = pipeline.link(facts, tree, store, got.keys)
        got.fill_windows(sites, store)
    modules = {f.file_path: f.module for f in facts}
    return build_records(tree, sites, classes, modules, "2026-01-01T00:00:00Z"), facts, cb, str(tree.root)


def _analyzed(stage) -> list[dict]:
    records, facts, cb, root = stage
    mine = copy.deepcopy(records)
    analyze_dataset(mine, facts, cb, root)
    return mine


def test_prepare_then_finish_fills_records_as_analyze_dataset(stage):
    records, facts, cb, root = stage
    mine = copy.deepcopy(records)
    prepared = prepare_dataset(mine, facts, cb, root)
    finish = prepared.finish
    assert [k.id for k in prepared.keys] == [r["id"] for r in mine]
    assert all(r["errdex"]["callers"] is not None and "documentation" not in r["errdex"]["provenance"] for r in mine)
    for record in reversed(mine):   # order does not matter: each record needs only itself
        finish(record)
    # A published record holds the facts, not the prose: written from them when it is read.
    assert not any(r.get("documentation") or r.get("validationCode") for r in mine)
    assert all("siteClass" in r["errdex"] and "entryClass" in r["errdex"] for r in mine)
    for record in mine:
        fill_prose(record)
    assert [json.dumps(r) for r in mine] == [json.dumps(r) for r in _analyzed(stage)]   # key order included
    assert all(r["documentation"] and r["tags"] and r["backgroundTag"] for r in mine)
    assert any(r["errdex"]["related"] for r in mine)
    assert any(r["typeGuard"] for r in mine) and any(r["tryCatchPattern"] for r in mine)


def test_forked_encoders_store_what_analyze_dataset_fills(source, stage, tmp_path, monkeypatch):
    # A publish this small is encoded in one process: make it fork two encoders, two records per chunk.
    monkeypatch.setattr(encoding, "PARALLEL_MIN", 1)
    monkeypatch.setattr(codec, "MIN_SAMPLE", 1)
    monkeypatch.setattr(encoding, "_encoder_count", lambda: 2)
    monkeypatch.setattr(publish, "PUBLISH_CHUNK", 2)
    forks = []
    real = encoding._forked_chunks
    monkeypatch.setattr(encoding, "_forked_chunks", lambda *a: forks.append(1) or real(*a))
    db = tmp_path / "x.db"
    pipeline.index_source(str(source), db, jobs=1, repo="o/pkg", version="1")
    assert forks, "the encoders were forked"
    expected = {r["id"]: r for r in _analyzed(stage)}
    with Store.open(db, readonly=True) as store:
        stored = list(store.iter_records())
    assert len(stored) == len(expected) > 2 * 2
    for record in stored:
        want = expected[record["id"]]
        for field in ("documentation", "solutions", "tags", "backgroundTag", "validationCode", "exampleFix"):
            assert record.get(field) == want.get(field), field
        stored_ex = dict(record["errdex"])
        stored_ex.pop("identity", None)   # identity linking (not run on the stage above) adds it last
        assert json.dumps(stored_ex) == json.dumps({**want["errdex"], "endLine": stored_ex["endLine"]})
