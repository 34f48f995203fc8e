"""Bare templates (`assert c, f"{x}"`): found by their printed class, with low confidence,
one occurrence per line naming the candidates; frames still pin the exact site."""

import json
import random
import subprocess
import sys

import pytest

from errdex.match import MatchContext, explain, load_context, scan
from errdex.match.events import ErrorEvent
from errdex.match.resolve import match_event

from .conftest import make_record, index_one_module

SOURCE = '''
class KVTransferError(RuntimeError):
    pass


def check_block(x, y):
    assert x > 0, f"{y}"


def check_dtype(dtype):
    assert dtype in ("bf16", "fp16"), f"{dtype!r}"


def check_shape(a, b):
    assert a == b, f"{a}, {b}"


def send(status):
    raise KVTransferError(f"{status}")


def run(err):
    raise RuntimeError(f"{err}")


def parse(v):
    raise ValueError(f"bad value {v} for block size")
'''
CHECK_BLOCK_LINE = 7


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return index_one_module(tmp_path_factory, "barelib", "checks", SOURCE)


def _records(db):
    from errdex.store import Store

    with Store.open(db, readonly=True) as store:
        return list(store.iter_records(None))


def _ids_of(db, error_class=None, templates=None):
    """Record ids in dataset order, by class and template, read from the store."""
    return [r["id"] for r in _records(db)
            if (error_class is None or r["errorClass"] == error_class)
            and (templates is None or r["errorMessage"] in templates)]


LOG = [
    "2026-11-29 20:00:00,001 INFO scheduler: Decode batch. #running-req: 3",
    "2026-11-29 20:00:00,002 ERROR worker: AssertionError: 4096",
    "2026-11-29 20:00:00,003 ERROR worker: AssertionError: 1, 2",
    "2026-11-29 20:00:00,004 ERROR worker: RuntimeError: boom",
    "2026-11-29 20:00:00,005 ERROR worker: KVTransferError: (2, 3)",
    "2026-11-29 20:00:00,006 ERROR worker: ValueError: bad value 3 for block size",
    "2026-11-29 20:00:00,007 ERROR worker: ValueError: something else",
    "2026-11-29 20:00:00,008 ERROR worker: TypeError: 'bf16'",
    "2026-11-29 20:00:00,009 INFO http: 127.0.0.1:5000 - \"POST /generate HTTP/1.1\" 200 OK",
    "2026-11-29 20:00:00,010 ERROR worker: AssertionError: 'model.layers.3'",
]


def test_bare_lines_are_found_with_low_confidence_and_their_candidates(db, tmp_path):
    log = tmp_path / "app.log"
    log.write_text("\n".join(LOG) + "\n")
    report = scan(log, db=db)
    by_line = {}
    for m in report.occurrences:
        by_line.setdefault(m.log_line, []).append(m)
    assert all(len(ms) == 1 for ms in by_line.values())   # one occurrence per line, however many sites
    single = _ids_of(db, "AssertionError", {"{y}", "{dtype!r}"})
    every_assert = _ids_of(db, "AssertionError")
    runtime = _ids_of(db, "RuntimeError") + _ids_of(db, "KVTransferError")
    expected = {2: single, 3: every_assert, 4: runtime, 5: _ids_of(db, "KVTransferError"), 10: single}
    assert len(single) == 2 and len(every_assert) == 3 and len(runtime) == 2
    for line, ids in expected.items():
        (m,) = by_line[line]
        assert (m.match_kind, m.via, m.confidence) == ("bare", "class", "low"), line
        assert m.candidates == len(ids) and set(m.candidate_ids) == set(ids), line
        assert m.id in ids
    # a printed class names its own sites first, then its subclasses' (KVTransferError comes first in the file)
    order, (kv,), (rt,) = _ids_of(db), _ids_of(db, "KVTransferError"), _ids_of(db, "RuntimeError")
    assert order.index(kv) < order.index(rt)   # dataset order alone would name the subclass's site
    assert by_line[4][0].candidate_ids == [rt, kv] and by_line[4][0].error_class == "RuntimeError"
    (full,) = by_line[6]
    assert full.confidence == "high" and full.match_kind == "full" and full.candidates == 0
    assert set(by_line) == {2, 3, 4, 5, 6, 10}   # no bare ValueError template, no TypeError record
    unknown = {u["example"] for u in report.unknown_list()}
    assert unknown == {"ValueError: something else", "TypeError: 'bf16'"}
    groups = {(g["firstLine"], g["count"]): g for g in report.groups()}
    assert groups[(2, 2)]["candidates"] == 2 and groups[(2, 2)]["matchKind"] == "bare"
    assert "candidates" not in groups[(6, 1)]
    assert json.loads(report.to_json()) == report.to_dict()   # the piecewise encoder agrees


def test_a_traceback_frame_still_pins_the_exact_site(db):
    text = ("Traceback (most recent call last):\n"
            '  File "/srv/app/barelib/checks.py", line 7, in check_block\n'
            '    assert x > 0, f"{y}"\n'
            "AssertionError: 4096\n")
    (m, *_) = explain(text, db=db)
    assert (m.via, m.confidence, m.line_number, m.candidates) == ("frame", "high", CHECK_BLOCK_LINE, 0)
    assert m.match_kind != "bare"


def test_explain_names_the_candidates_and_keeps_the_exit_code(db):
    (m,) = explain("AssertionError: 4096", db=db)
    assert m.match_kind == "bare" and m.confidence == "low" and m.candidates == 2
    assert m.to_dict()["candidateIds"] == m.candidate_ids and m.to_dict()["candidates"] == 2
    run = [sys.executable, "-c", "from errdex.cli import main; main()", "explain", "--db", str(db)]
    text = subprocess.run(run + ["AssertionError: 4096"], capture_output=True, text=True, timeout=60)
    assert text.returncode == 1, text.stderr   # low confidence only
    assert "one of 2 sites" in text.stdout
    as_json = subprocess.run(run + ["--json", "AssertionError: 4096"], capture_output=True, text=True, timeout=60)
    (d,) = json.loads(as_json.stdout)
    assert d["matchKind"] == "bare" and d["candidates"] == 2


def test_both_engines_and_both_job_counts_agree_on_bare_lines(db, tmp_path):
    rng = random.Random(3)
    values = ["0", "4096", "'bf16'", "(2, 3)", "1, 2", "None", "x y"]
    classes = ["AssertionError", "RuntimeError", "KVTransferError", "ValueError", "TypeError"]
    lines = []
    for i in range(6000):
        if rng.random() < 0.2:
            lines.append(f"2026-11-29 20:00:{i % 60:02d} ERROR worker: {rng.choice(classes)}: {rng.choice(values)}")
        else:
            lines.append(f"2026-11-29 20:00:{i % 60:02d} INFO scheduler: batch {i} ok")
    log = tmp_path / "big.log"
    log.write_text("\n".join(lines) + "\n")
    reports = []
    for backend in ("hyperscan", "python"):
        ctx = load_context(db, backend=backend)
        for jobs in (1, 2):
            reports.append(scan(log, context=ctx, jobs=jobs, chunk_size=16 << 10, split_threshold=0).to_dict())
    first = reports[0]
    assert sum(o["matchKind"] == "bare" for o in first["occurrences"]) > 500
    for other in reports[1:]:
        assert {k: other[k] for k in ("occurrences", "groups", "unknown")} == \
               {k: first[k] for k in ("occurrences", "groups", "unknown")}


def test_fallback_agrees_on_many_bare_shapes(tmp_path):
    """Many bare templates of several shapes and classes: hyperscan and pure Python agree."""
    rng = random.Random(11)
    shapes = ["{x}", "{x!r}", "{a}, {b}", "{a} {b}", "[{a}]", "{a}: {b}", "{a}!={b}"]
    classes = ["AssertionError", "RuntimeError", "ValueError"]
    records = [make_record(rng.choice(shapes), line=i + 1, function=f"f{i}", error_class=rng.choice(classes),
                           bases=["Exception", "BaseException"])
               for i in range(300)]
    records.append(make_record("Invalid value {v} for block size", line=999))
    contexts = [MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend=b)
                for b in ("hyperscan", "python")]
    values = ["0", "4096", "(2, 3)", "a, b", "a b", "[1]", "k: v", "1!=2", "Invalid value 3 for block size"]
    seen = set()
    for i in range(400):
        event = ErrorEvent(rng.choice(classes + ["Exception", "TypeError"]), rng.choice(values), [], i + 1)
        answers = [[m.to_dict() for m in match_event(event, c.index, c.engine, top_only=True)] for c in contexts]
        assert answers[0] == answers[1], event
        for a in answers[0]:
            seen.add((a["matchKind"], a.get("candidates", 0) > 1))
    assert ("bare", True) in seen and ("full", False) in seen
