"""The helper process of the dataset analysis: the same records as the in-process pass, and a fallback.

A small codebase written here goes through the real pipeline stages up to
`build_records`; `analyze_dataset` then runs on copies of its records with
and without the helper, and the filled records must be equal field for
field, in the same key order.
"""

from __future__ import annotations

import copy
import json
import textwrap
from pathlib import Path

import pytest

from errdex import pipeline
from errdex.analyze import dataset
from errdex.analyze.dataset import Helper, analyze_dataset
from errdex.records import build_records, fill_window
from errdex.sources import resolve_source
from errdex.store import Store

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
def stage(tmp_path_factory):
    """(records, facts, linked Codebase) as `index_tree` has them right before `analyze_dataset`."""
    root = tmp_path_factory.mktemp("offload")
    src = root / "src"
    for rel, text in PKG.items():
        p = src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    tree = resolve_source(str(src), repo="o/pkg", version="1")
    with Store.open(root / "facts.db") as store:
        facts, texts, keys, _, _ = pipeline._extract_all(tree, store, 1, lambda *a: None, True)
        sites, classes, cb = pipeline.link(facts, tree, store, keys)
    for site in sites:
        fill_window(site, texts[site.file_path])
    modules = {f.file_path: f.module for f in facts}
    return build_records(tree, sites, classes, modules, "2026-01-01T00:00:00Z"), facts, cb


def _filled(stage, **kw) -> list[str]:
    records, facts, cb = stage
    mine = copy.deepcopy(records)
    analyze_dataset(mine, facts, cb, **kw)
    return [json.dumps(r) for r in mine]   # key order included


def _spy_results(monkeypatch) -> list:
    """The answers the helper gave, recorded as `analyze_dataset` reads them."""
    seen: list = []
    real = Helper.result

    def result(self):
        answer = real(self)
        seen.append(answer)
        return answer

    monkeypatch.setattr(Helper, "result", result)
    return seen


def test_helper_fills_the_same_records(stage, monkeypatch):
    here = _filled(stage, offload=False)
    seen = _spy_results(monkeypatch)
    there = _filled(stage, offload=True)
    assert len(seen) == len(dataset.HELPER_SHARES) and None not in seen, "every helper answered"
    assert len(seen[0][0]) == len(here), "the first helper ranks every record"
    assert all(related is None for related, _ in seen[1:])
    assert sum(len(filled) for _, filled in seen) == len(here)
    assert there == here
    records = [json.loads(r) for r in there]
    assert all(r["documentation"] and r["tags"] and r["backgroundTag"] for r in records)
    assert any(r["errdex"]["related"] for r in records)
    assert any(r["typeGuard"] for r in records) and any(r["tryCatchPattern"] for r in records)


def test_main_share_splits_the_records(stage, monkeypatch):
    here = _filled(stage, offload=False)
    monkeypatch.setattr(dataset, "MAIN_SHARE", 0.5)
    seen = _spy_results(monkeypatch)
    there = _filled(stage, offload=True)
    assert seen and None not in seen
    assert sum(len(filled) for _, filled in seen) == len(here) - len(here) // 2
    assert there == here


def test_a_dead_helper_leaves_the_work_here(stage, monkeypatch):
    here = _filled(stage, offload=False)
    start = Helper.start.__func__

    def start_and_kill(cls):
        helper = start(cls)
        helper.proc.kill()
        helper.proc.wait()
        return helper

    monkeypatch.setattr(Helper, "start", classmethod(start_and_kill))
    seen = _spy_results(monkeypatch)
    assert _filled(stage, offload=True) == here
    assert seen == [None] * len(dataset.HELPER_SHARES)


def test_one_dead_helper_of_two(stage, monkeypatch):
    here = _filled(stage, offload=False)
    monkeypatch.setattr(dataset, "HELPER_SHARES", (0.5, 0.5))
    start = Helper.start.__func__
    started = []

    def start_second_dead(cls):
        helper = start(cls)
        started.append(helper)
        if len(started) == 2:
            helper.proc.kill()
            helper.proc.wait()
        return helper

    monkeypatch.setattr(Helper, "start", classmethod(start_second_dead))
    seen = _spy_results(monkeypatch)
    assert _filled(stage, offload=True) == here
    assert seen[0] is not None and seen[1] is None


def test_a_helper_that_cannot_start_leaves_the_work_here(stage, monkeypatch, tmp_path):
    here = _filled(stage, offload=False)
    monkeypatch.setattr(dataset.sys, "executable", str(tmp_path / "no-such-python"))
    assert _filled(stage, offload=True) == here


def test_small_datasets_stay_in_process(stage, monkeypatch):
    calls = []
    monkeypatch.setattr(Helper, "start", classmethod(lambda cls: calls.append(1)))
    _filled(stage)
    assert calls == [] and len(stage[0]) < dataset.OFFLOAD_MIN_RECORDS


def test_a_row_round_trips_every_field_the_helper_reads():
    record = {k: f"{k}!" for k in dataset._TOP_FIELDS}
    record["errdex"] = {k: f"{k}?" for k in dataset._EX_FIELDS}
    back = dataset._record_of(dataset._row(record))
    assert {k: back[k] for k in dataset._TOP_FIELDS} == {k: record[k] for k in dataset._TOP_FIELDS}
    assert {k: back["errdex"][k] for k in dataset._EX_FIELDS} == record["errdex"]
