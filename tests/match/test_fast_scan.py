"""The scan fast paths give the same answers as the slow ones: snapshot load,
reused line candidates, reused answers per message, and hyperscan's lost match."""

import subprocess
import sys

import pytest

from errdex.match import MatchContext, explain, scan
from errdex.match.api import LazyRecords, load_context
from errdex.match.patterns import line_regex

from .conftest import make_record

SHAPE_A = "`out` must have shape {(B, 1, HV, V)} (got out.shape={tuple(out.shape)})."
SHAPE_B = "`{name}` must have shape {list(shape)}, got {list(tensor.shape)}."
EDGES = " you have to pass a value for `mu` when `use_dynamic_shifting` is set to be `True`"


def _records():
    return [
        make_record(SHAPE_A, file_path="pkg/ops/a.py", line=10),
        make_record(SHAPE_B, file_path="pkg/ops/b.py", line=20),
        make_record(EDGES, file_path="pkg/sched.py", line=30),
        make_record("Request {rid} exceeded the token budget of {n}", file_path="pkg/admit.py",
                    line=40, error_class="RuntimeError"),
    ]


def test_one_chunk_template_loses_both_edge_spaces_in_its_line_regex():
    assert line_regex([EDGES]) == line_regex([EDGES.strip()])
    assert not line_regex([EDGES]).startswith(" ")


@pytest.mark.parametrize("backend", ["hyperscan", "python"])
def test_matches_hyperscan_alone_loses_are_found(backend, tmp_path):
    ctx = MatchContext.from_records(_records(), cache_dir=tmp_path / "engine", backend=backend)
    (m,) = explain("ValueError: `out` must have shape None (got out.shape='model.layers.3').", context=ctx)
    assert (m.file_path, m.match_kind) == ("pkg/ops/a.py", "full")
    (m,) = explain("ValueError:  you have to pass a value for `mu` when `use_dynamic_shifting` is set to be `True`",
                   context=ctx)
    assert (m.file_path, m.match_kind) == ("pkg/sched.py", "full")


def _log_lines():
    lines = []
    for i in range(600):
        if i % 50 == 7:   # the same text again and again: answered once, reported at every line
            lines.append("2024-01-01 00:00:01 ERROR w: RuntimeError: Request r1 exceeded the token budget of 4096")
        elif i % 50 == 21:  # new values each time
            lines.append(f"2024-01-01 00:00:01 ERROR w: RuntimeError: Request r{i} exceeded the token budget of {i * 2}")
        elif i % 50 == 33:
            lines.append("2024-01-01 00:00:02 ERROR w: ValueError: `out` must have shape 7 (got out.shape=(1, 2)).")
        elif i % 50 == 44:  # ANSI colour inside the message: the line candidates cannot be reused
            lines.append("ERROR RuntimeError: Request \x1b[1mr9\x1b[0m exceeded the token budget of 12")
        else:
            lines.append(f"2024-01-01 00:00:00 INFO step {i} ok")
    return lines


def _answers(report):
    return [(m.log_line, m.file_path, m.bindings, m.score, m.confidence, m.match_kind)
            for m in report.occurrences]


@pytest.mark.parametrize("backend", ["hyperscan", "python"])
def test_reused_answers_and_candidates_equal_per_line_explain(backend, tmp_path):
    ctx = MatchContext.from_records(_records(), cache_dir=tmp_path / "engine", backend=backend)
    lines = _log_lines()
    log = tmp_path / "run.log"
    log.write_text("\n".join(lines) + "\n")
    report = scan(log, context=ctx, chunk_size=1000)
    got = _answers(report)
    expected = []
    for number, line in enumerate(lines, 1):
        ms = explain(line, context=ctx)
        top = [m for m in ms if m.score == ms[0].score] if ms else []
        expected += [(number, m.file_path, m.bindings, m.score, m.confidence, m.match_kind) for m in top]
    assert got == expected
    assert len({g[0] for g in got}) == 4 * 12
    bindings = {g[2]["rid"] for g in got if g[1] == "pkg/admit.py"}
    assert {"r1", "r9"} <= bindings and len(bindings) == 14   # ANSI codes cleaned off the value


def _admit_db(tmp_path):
    """A package whose one module raises through an f-string, indexed into tmp_path/errdex.db."""
    from errdex.pipeline import index_source

    src = tmp_path / "src" / "pkg"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "admit.py").write_text(
        "def admit(rid, n):\n    raise RuntimeError(f'Request {rid} exceeded the token budget of {n}')\n")
    db = tmp_path / "errdex.db"
    index_source(str(src), db)
    return db


def test_snapshot_next_to_the_index_answers_like_a_fresh_build(tmp_path):
    db = _admit_db(tmp_path)
    log = tmp_path / "run.log"
    log.write_text("x\nERROR RuntimeError: Request r5 exceeded the token budget of 9\n" * 3)
    first = scan(log, db=db)
    assert list((tmp_path / "errdex.db.engine").glob("context-*.marshal"))
    code = ("import sys, json; from errdex.match import scan; from errdex.match.api import load_context;"
            "c = load_context(sys.argv[1]); r = scan(sys.argv[2], context=c);"
            "print(json.dumps([c.engine.stats.loaded_from_cache, type(c.index.records).__name__,"
            " [(m.log_line, m.id, m.bindings) for m in r.occurrences]]))")
    out = subprocess.run([sys.executable, "-c", code, str(db), str(log)], capture_output=True, text=True,
                         check=True).stdout
    import json

    cached, kind, occurrences = json.loads(out)
    assert cached and kind == LazyRecords.__name__
    assert occurrences == [[m.log_line, m.id, m.bindings] for m in first.occurrences]
    assert [o[0] for o in occurrences] == [2, 4, 6]
    ctx = load_context(db)
    assert len(ctx.index.records) == len(list(ctx.index.records)) >= 1
    from errdex.match.api import _read_snapshot

    (path,) = (tmp_path / "errdex.db.engine").glob("context-*.marshal")
    snap = _read_snapshot(path)
    lazy, fresh = LazyRecords(snap["records"], snap["offsets"]), ctx.index.records
    assert [r.to_row() for r in lazy] == [r.to_row() for r in fresh]
    assert lazy[-1].to_row() == fresh[-1].to_row() and [r.id for r in lazy[0:2]] == [r.id for r in fresh[0:2]]
    import os

    (old,) = (tmp_path / "errdex.db.engine").glob("context-*.marshal")
    later = old.stat().st_mtime_ns + 10**10
    os.utime(db, ns=(later, later))   # the index changed after the snapshot was written
    load_context(db)
    (new,) = (tmp_path / "errdex.db.engine").glob("context-*.marshal")
    assert new.name != old.name


def test_a_cut_short_or_empty_snapshot_is_built_again(tmp_path):
    """The mapped snapshot checks that its records blob is whole; a damaged file is ignored."""
    from errdex.match.api import _CONTEXTS, _read_snapshot

    db = _admit_db(tmp_path)
    log = tmp_path / "run.log"
    log.write_text("ERROR RuntimeError: Request r5 exceeded the token budget of 9\n")
    first = [m.id for m in scan(log, db=db).occurrences]
    (path,) = (tmp_path / "errdex.db.engine").glob("context-*.marshal")
    whole = path.read_bytes()
    assert _read_snapshot(path) is not None
    for damaged in (whole[:-3], b""):
        path.write_bytes(damaged)
        assert _read_snapshot(path) is None
        _CONTEXTS.clear()
        assert [m.id for m in scan(log, db=db).occurrences] == first


def test_a_snapshot_under_another_keys_name_is_not_used(tmp_path):
    """File names only spread keys (a short checksum): a snapshot found under the current
    key's name but written for another key (an older index here) reads as a miss."""
    import os
    import shutil

    from errdex.match.api import _CONTEXTS
    from errdex.pipeline import index_source

    src = tmp_path / "src" / "pkg"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    module = src / "pkg" / "admit.py"
    module.write_text("def admit(rid, n):\n    raise RuntimeError(f'Request {rid} exceeded the token budget of {n}')\n")
    db = tmp_path / "errdex.db"
    index_source(str(src), db)
    log = tmp_path / "run.log"
    log.write_text("ERROR RuntimeError: Request r5 exceeded the token budget of 9\n"
                   "ERROR ValueError: Shard 3 is missing from the checkpoint\n")
    assert [m.log_line for m in scan(log, db=db).occurrences] == [1]
    (old,) = (tmp_path / "errdex.db.engine").glob("context-*.marshal")
    kept = tmp_path / "old.marshal"
    shutil.copy2(old, kept)
    module.write_text(module.read_text() + "\ndef load(k):\n    raise ValueError(f'Shard {k} is missing from the checkpoint')\n")
    index_source(str(src), db)
    later = old.stat().st_mtime_ns + 10**10
    os.utime(db, ns=(later, later))
    _CONTEXTS.clear()
    assert [m.log_line for m in scan(log, db=db).occurrences] == [1, 2]
    (new,) = (tmp_path / "errdex.db.engine").glob("context-*.marshal")
    shutil.copy2(kept, new)   # the old index's snapshot under the new key's name
    _CONTEXTS.clear()
    assert [m.log_line for m in scan(log, db=db).occurrences] == [1, 2]


def test_a_snapshot_loads_the_line_and_prefix_databases_only_when_asked(tmp_path):
    db = _admit_db(tmp_path)
    log = tmp_path / "run.log"
    log.write_text("x\nERROR RuntimeError: Request r5 exceeded the token budget of 9\n")
    scan(log, db=db)   # writes the snapshot
    code = ("import sys, json; from errdex.match import explain, scan; from errdex.match.api import load_context;"
            "c = load_context(sys.argv[1]); b = c.engine._backend; r = scan(sys.argv[2], context=c);"
            "before = [b._db is None, b._prefix_db is None, len(r.occurrences)];"
            "m = explain('Request r7 exceeded the token budget of 1', context=c);"
            "print(json.dumps(before + [b._db is None, c.engine.stats.size_bytes, m[0].bindings]))")
    out = subprocess.run([sys.executable, "-c", code, str(db), str(log)], capture_output=True, text=True,
                         check=True).stdout
    import json

    db_unloaded, prefix_unloaded, found, still_unloaded, size, bindings = json.loads(out)
    assert db_unloaded and prefix_unloaded and found == 1   # a clean log's scan never needs them
    assert not still_unloaded and size == load_context(db).engine.stats.size_bytes > 0
    assert bindings == {"rid": "r7", "n": "1"}


def test_a_snapshot_names_the_raised_classes_so_a_scan_decodes_only_the_records_it_meets(tmp_path):
    """A class-less error line asks which classes the index raises: a snapshot-loaded engine
    answers from the snapshot (the same names as every record gives), decoding no other record."""
    from errdex.match.engine import raised_class_names
    from errdex.pipeline import index_source

    src = tmp_path / "src" / "pkg"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    body = ["class CantImplement(Exception):\n    pass\n"]
    body += [f"def f{i}(x):\n    raise ValueError(f'value {i} is wrong: {{x}}')\n" for i in range(30)]
    body.append("def g(x):\n    raise CantImplement(f'cannot implement {x} here')\n")
    (src / "pkg" / "ops.py").write_text("\n".join(body))
    db = tmp_path / "errdex.db"
    index_source(str(src), db)
    log = tmp_path / "run.log"
    log.write_text("INFO ok\nworker-3: CantImplement: cannot implement conv here\n")
    first = scan(log, db=db)   # writes the snapshot
    assert [m.error_class for m in first.occurrences] == ["CantImplement"]
    code = ("import sys, json; from errdex.match import scan; from errdex.match.api import load_context;"
            "c = load_context(sys.argv[1]); r = scan(sys.argv[2], context=c);"
            "print(json.dumps([sorted(c.engine.class_names), sum(x is not None for x in c.index.records._refs),"
            " len(c.index.records), [(m.log_line, m.id) for m in r.occurrences]]))")
    out = subprocess.run([sys.executable, "-c", code, str(db), str(log)], capture_output=True, text=True,
                         check=True).stdout
    import json

    names, decoded, total, occurrences = json.loads(out)
    assert names == sorted(raised_class_names(load_context(db).index.records)) == ["CantImplement", "ValueError"]
    assert total == 31 and decoded <= 2
    assert occurrences == [[m.log_line, m.id] for m in first.occurrences]


def test_a_snapshot_maps_the_databases_a_scan_seldom_needs_and_a_cut_file_is_a_miss(tmp_path):
    """The compiled databases, the line pieces and the record index's tables lie after the header,
    as views of the mapped file; a file cut anywhere after the header (in them, or in the records)
    reads as no snapshot."""
    from errdex.match.api import _read_snapshot

    db = _admit_db(tmp_path)
    load_context(db)
    (path,) = (tmp_path / "errdex.db.engine").glob("context-*.marshal")
    snap = _read_snapshot(path)
    engine = snap["engine"]
    for key in ("db", "pre_db", "targets", "line_pieces"):
        assert isinstance(engine[key], memoryview), key
    assert all(isinstance(table, memoryview) for table in snap["index"].values())
    data = path.read_bytes()
    header = 8 + int.from_bytes(data[:8], "little")
    assert data[header:header + len(engine["db"])] == engine["db"].tobytes()
    for cut in (header + len(engine["db"]) // 2, len(data) - 1):
        cut_path = tmp_path / f"cut{cut}.marshal"
        cut_path.write_bytes(data[:cut])
        assert _read_snapshot(cut_path) is None


def test_a_snapshot_holds_the_record_index_so_explain_decodes_only_the_records_it_meets(tmp_path):
    """Frame, assert and id look-ups of a snapshot-loaded context read the index's tables from
    the snapshot: the same answers as tables derived from every record, decoding few records."""
    import json

    from errdex.match.api import _CONTEXTS
    from errdex.pipeline import index_source

    src = tmp_path / "src" / "pkg"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    body = [f"def f{i}(x):\n    raise ValueError(f'value {i} is wrong: {{x}}')\n" for i in range(30)]
    (src / "pkg" / "ops.py").write_text("\n".join(body))
    (src / "pkg" / "load.py").write_text(
        "def load(shard, total):\n"
        "    if shard >= total:\n"
        "        raise IndexError(f'Shard {shard} is missing from the checkpoint of {total}')\n"
        "    assert shard % 2 == 0\n"
        "    return shard\n")
    db = tmp_path / "errdex.db"
    index_source(str(src), db)
    texts = [
        'Traceback (most recent call last):\n  File "/srv/site-packages/pkg/load.py", line 3, in load\n'
        "IndexError: Shard 9 is missing from the checkpoint of 4",
        'Traceback (most recent call last):\n  File "/srv/site-packages/pkg/load.py", line 4, in load\n'
        "    assert shard % 2 == 0\nAssertionError",
        "assert shard % 2 == 0",
        "IndexError: Shard 7 is missing from the checkpoint of 8",
    ]
    _CONTEXTS.clear()
    derived = load_context(db)   # built from the store: its index derives the tables (and writes the snapshot)
    assert not hasattr(derived.index.records, "_refs")
    wanted = [[m.to_dict() for m in explain(t, context=derived)] for t in texts]
    assert [len(w) for w in wanted] == [1, 1, 1, 1]
    assert wanted[0][0]["via"] == "frame" and wanted[3][0]["conditionCheck"]["satisfied"] is False
    code = ("import sys, json; from errdex.match import explain; from errdex.match.api import load_context;"
            "c = load_context(sys.argv[1]); texts = json.loads(sys.argv[2]);"
            "got = [[m.to_dict() for m in explain(t, context=c)] for t in texts];"
            "print(json.dumps([got, sum(x is not None for x in c.index.records._refs), len(c.index.records)]))")
    out = subprocess.run([sys.executable, "-c", code, str(db), json.dumps(texts)], capture_output=True,
                         text=True, check=True).stdout
    got, decoded, total = json.loads(out)
    assert got == wanted
    assert total == 32 and decoded <= 4


def test_a_loaded_context_leaves_index_tables_and_line_pieces_packed_until_needed(tmp_path):
    db = _admit_db(tmp_path)
    load_context(db)   # writes the snapshot
    log = tmp_path / "run.log"
    log.write_text("INFO ok\nERROR RuntimeError: Request r5 exceeded the token budget of 9\n")
    code = ("import sys, json; from errdex.match import explain, scan; from errdex.match.api import load_context;"
            "c = load_context(sys.argv[1]); b = c.engine._backend; untouched = not c.index._tables;"
            "m = explain('RuntimeError: Request r7 exceeded the token budget of 1', context=c);"
            "after_explain = b._line_pieces is None; r = scan(sys.argv[2], context=c);"
            "print(json.dumps([untouched, after_explain, b._line_pieces is None, m[0].bindings,"
            " [o.log_line for o in r.occurrences]]))")
    out = subprocess.run([sys.executable, "-c", code, str(db), str(log)], capture_output=True, text=True,
                         check=True).stdout
    import json

    index_untouched, packed_after_explain, packed_after_scan, bindings, lines = json.loads(out)
    assert index_untouched   # loading the context unpacks none of the record index's tables
    assert packed_after_explain and not packed_after_scan
    assert bindings == {"rid": "r7", "n": "1"} and lines == [2]


def test_the_index_counts_asserts_as_resolve_would_over_every_record(record_factory):
    """A context gives its engine the assert counts from the record index; they must equal what
    `statements.assert_counts` counts over every record (it takes the index's when given)."""
    from types import SimpleNamespace

    from errdex.match import statements

    records = [
        record_factory("", assert_test="x > 0", line=1),
        record_factory("", assert_test="x  >  0", line=2, file_path="pkg/other.py"),
        record_factory("x must be positive, got {x}", assert_test="x > 0", line=3),
        record_factory("", assert_test="self.ready", line=4),
        record_factory("no assert here {v}", line=5),
    ]
    ctx = MatchContext.from_records(records)
    counted = statements.assert_counts(SimpleNamespace(records=ctx.engine.records))
    assert counted == {"x>0": 3, "self.ready": 1}
    given = statements.assert_counts(ctx.engine)
    assert {test: given.get(test) for test in counted} == counted
    assert given.get("y>0") is None
    assert [m.confidence for m in explain("assert self.ready", context=ctx)] == ["high"]
