"""End to end: a codebase on disk -> `index` -> a real SQLite file -> records in the seed format."""

import sqlite3

from errdex.models import SEED_FIELDS
from errdex.pipeline import index_source
from errdex.store import Store


def records_of(db, dataset=None):
    with Store.open(db, readonly=True) as store:
        return list(store.iter_records(dataset))


def test_index_folder_gives_seed_records(sample, tmp_path):
    db = tmp_path / "e.db"
    report = index_source(str(sample), db, jobs=1, repo="acme/widgets", version="1.0")
    assert report.dataset.name == "acme/widgets@1.0"
    recs = records_of(db)
    assert len(recs) == report.records == 8
    for r in recs:
        assert list(r)[: len(SEED_FIELDS)] == list(SEED_FIELDS) and list(r)[-1] == "errdex"
        assert len(r["id"]) == 16 and int(r["id"], 16) >= 0
    assert len({r["id"] for r in recs}) == len(recs)
    by_msg = {r["errorMessage"]: r for r in recs}
    gemm = by_msg["gemm_ar: M={m} outside [1, {MAX}]"]
    assert gemm["messagePattern"] == r"gemm_ar: M=(.+?) outside \[1, (.+?)\]"
    assert gemm["slug"] == "gemm-ar-m-m-outside-1-max"
    assert (gemm["filePath"], gemm["errorClass"], gemm["errorType"], gemm["severity"]) == \
        ("widgets/core.py", "ValueError", "exception", "error")
    src = (sample / "widgets/core.py").read_text().split("\n")
    assert src[gemm["lineNumber"] - 1].strip().startswith("raise ValueError")
    assert gemm["sourceCodeStart"] == max(1, gemm["lineNumber"] - 18)
    assert gemm["sourceCode"] == "\n".join(src[gemm["sourceCodeStart"] - 1: gemm["sourceCodeEnd"]])
    widget = by_msg["negative size {n}"]
    assert widget["errorCode"] == "W1" and widget["errdex"]["classBases"] == ["ValueError"]
    helper = by_msg["empty widget for kind={kind}"]
    assert helper["errorClass"] == "RuntimeError" and helper["errdex"]["helper"] == "widgets.core._fail"
    assert by_msg["make() is slow"]["errorType"] == "warning"
    assert by_msg["math broke"]["tags"][0] == "test" and by_msg["math broke"]["errdex"]["test"]


def test_result_is_identical_whatever_jobs(sample, tmp_path):
    def strip(recs):
        return [{k: v for k, v in r.items() if k != "analyzedAt"} for r in recs]
    index_source(str(sample), tmp_path / "a.db", jobs=1, repo="acme/widgets", version="1")
    index_source(str(sample), tmp_path / "b.db", jobs=3, repo="acme/widgets", version="1")
    assert strip(records_of(tmp_path / "a.db")) == strip(records_of(tmp_path / "b.db"))


def test_reindex_reuses_unchanged_files(sample, tmp_path):
    db = tmp_path / "e.db"
    first = index_source(str(sample), db, jobs=1, repo="acme/widgets", version="1")
    again = index_source(str(sample), db, jobs=1, repo="acme/widgets", version="1")
    assert first.extracted == first.files and again.extracted == 0
    assert again.records == first.records
    core = sample / "widgets/core.py"
    core.write_text(core.read_text() + "\ndef extra():\n    raise KeyError('added')\n")
    third = index_source(str(sample), db, jobs=1, repo="acme/widgets", version="1")
    assert third.extracted == 1 and third.records == first.records + 1
    with Store.open(db, readonly=True) as store:
        assert [d.name for d in store.datasets()] == ["acme/widgets@1"]


def test_ids_stable_when_lines_move_and_distinct_for_twins(sample, tmp_path):
    db = tmp_path / "e.db"
    index_source(str(sample), db, jobs=1, repo="acme/widgets", version="1")
    before = {r["errorMessage"]: r["id"] for r in records_of(db)}
    core = sample / "widgets/core.py"
    core.write_text("# a new comment line\n\n" + core.read_text() +
                    "\ndef twin():\n    raise KeyError('same')\n    raise KeyError('same')\n")
    index_source(str(sample), db, jobs=1, repo="acme/widgets", version="2")
    after = records_of(db, "acme/widgets@2")
    for r in after:
        if r["errorMessage"] in before:
            assert r["id"] == before[r["errorMessage"]]
    twins = [r for r in after if r["errorMessage"] == "same"]
    assert len(twins) == 2 and twins[0]["id"] != twins[1]["id"] and twins[0]["slug"] != twins[1]["slug"]


def test_bad_files_are_counted_not_fatal(sample, tmp_path):
    (sample / "widgets/broken.py").write_text("def f(:\n")
    (sample / "widgets/old.py").write_text('print "hi"\n')
    (sample / "widgets/blob.py").write_bytes(b"\x00\x01binary")
    db = tmp_path / "e.db"
    report = index_source(str(sample), db, jobs=2, repo="acme/widgets", version="1")
    assert sorted(d.reason for d in report.diagnostics) == ["binary", "python2", "syntax"]
    assert report.records == 8
    with Store.open(db, readonly=True) as store:
        assert store.stats("acme/widgets@1")["diagnostics_by_reason"] == {"binary": 1, "python2": 1, "syntax": 1}
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_explained_values_are_checked_against_the_sites_own_guard(tmp_path):
    from errdex.match import explain

    from .conftest import write_sample

    root = write_sample(tmp_path / "src", {"lim/__init__.py": "", "lim/core.py": '''
        def take(n, limit, kind):
            if kind not in ("a", "b"):
                raise ValueError(f"unknown kind {kind}")
            assert limit > 0, "limit must be positive"
            if n > limit:
                raise ValueError(f"n={n} over limit={limit}")
    '''})
    db = tmp_path / "e.db"
    index_source(str(root), db, jobs=1, repo="acme/lim", version="1")
    (rec,) = [r for r in records_of(db) if r["errorMessage"].startswith("n=")]
    assert rec["errdex"]["guard"] == "n > limit"
    assert rec["errdex"]["condition"] == "kind in ('a', 'b') and limit > 0 and n > limit" or \
        rec["errdex"]["condition"].endswith("n > limit")
    (m, *_) = explain("ValueError: n=7 over limit=5", db=db)
    assert m.id == rec["id"] and m.confidence == "high"
    assert m.condition_check.satisfied is True and "n > limit" in m.condition_check.text


def test_windows_from_workers_and_from_the_cache_match_the_source(sample, tmp_path):
    import gc
    import hashlib

    from errdex.store.codec import inflate

    db = tmp_path / "e.db"
    first = index_source(str(sample), db, jobs=2, repo="acme/widgets", version="1")
    assert gc.isenabled()
    index_source(str(sample), db, jobs=1, repo="acme/widgets", version="2")  # every file from the cache
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT hash, text FROM source_windows").fetchall()
    assert rows and all(hashlib.sha256(inflate(t)).digest() == h for h, t in rows)
    lines = (sample / "widgets/core.py").read_text().split("\n")
    for rec in records_of(db, "acme/widgets@2"):
        if rec["filePath"] == "widgets/core.py":
            assert rec["sourceCode"] == "\n".join(lines[rec["sourceCodeStart"] - 1:rec["sourceCodeEnd"]])
    assert len(records_of(db, "acme/widgets@2")) == first.records


def test_window_is_clipped_to_the_file_s_last_line(tmp_path) -> None:
    """`sourceCodeEnd` is a line of the file: the newline ending the last line opens no line after it."""
    from errdex.records import window_of

    assert window_of(2, ["a", "b", "c", ""]) == (1, 3, "a\nb\nc")
    assert window_of(2, ["a", "b", "c"]) == (1, 3, "a\nb\nc")
    assert window_of(1, [""]) == (1, 1, "")
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "m.py").write_text("def f(n):\n    if n > 3:\n        raise ValueError('big')\n")
    index_source(str(tmp_path / "src"), tmp_path / "e.db", jobs=1, repo="acme/w", version="1")
    (rec,) = [r for r in records_of(tmp_path / "e.db", "acme/w@1") if r["filePath"] == "pkg/m.py"]
    assert (rec["sourceCodeStart"], rec["sourceCodeEnd"]) == (1, 3)
    assert rec["sourceCode"] == "def f(n):\n    if n > 3:\n        raise ValueError('big')"
