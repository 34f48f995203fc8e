"""The CLI as a user runs it: output, JSON shapes, exit codes, a killed index."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time


from errdex.models import SEED_FIELDS


def test_index_list_show_export_stats(sample, tmp_path, run_cli):
    db = str(tmp_path / "e.db")
    out = run_cli("index", str(sample), "--db", db, "--repo", "acme/widgets", "--version", "1.0", "-q")
    assert "indexed acme/widgets@1.0: 8 records from 4 files" in out.stdout
    assert "skipped 0 files" in out.stdout
    listed = json.loads(run_cli("list", "--db", db, "--json", "--class", "WidgetError").stdout)
    assert {r["errorMessage"] for r in listed} == {"negative size {n}", "unknown kind {kind}"}
    rid = listed[0]["id"]
    shown = json.loads(run_cli("show", rid, "--db", db, "--json").stdout)
    assert shown["record"]["id"] == rid and "errdex" in shown["record"] and shown["datasetVersion"]
    seed = json.loads(run_cli("show", rid, "--db", db, "--json", "--seed-format").stdout)
    assert list(seed["record"]) == list(SEED_FIELDS)
    text = run_cli("show", "gemm-ar-m-m-outside-1-max", "--db", db).stdout
    assert "gemm_ar: M={m} outside [1, {MAX}]" in text and "widgets/core.py" in text
    run_cli("export", str(tmp_path / "out.json"), "--db", db, "--format", "json", "--seed-format")
    exported = json.loads((tmp_path / "out.json").read_text())
    assert len(exported) == 8 and set(exported[0]) == {"record", "datasetVersion"}
    assert list(exported[0]["record"]) == list(SEED_FIELDS)
    run_cli("export", str(tmp_path / "out.jsonl"), "--db", db)
    lines = (tmp_path / "out.jsonl").read_text().splitlines()
    assert len(lines) == 8 and all("errdex" in json.loads(line) for line in lines)
    stats = json.loads(run_cli("stats", "--db", db, "--json").stdout)
    assert stats["records"] == 8 and stats["by_error_type"]["warning"] == 1


def test_exit_codes_and_messages(tmp_path, run_cli):
    db = str(tmp_path / "e.db")
    bad = run_cli("index", str(tmp_path / "missing"), "--db", db, check=False)
    assert bad.returncode == 2 and "no such folder" in bad.stderr and "Traceback" not in bad.stderr
    none = run_cli("list", "--db", db, check=False)
    assert none.returncode != 0 and "errdex index" in none.stderr and "Traceback" not in none.stderr
    assert run_cli("--help").stdout.count("index") >= 1
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    corrupt = run_cli("list", "--db", str(junk), check=False)
    assert corrupt.returncode != 0 and "Traceback" not in corrupt.stderr
    assert junk.read_bytes() == b"not a database at all" * 100


def test_show_unknown_record(sample, tmp_path, run_cli):
    db = str(tmp_path / "e.db")
    run_cli("index", str(sample), "--db", db, "-q")
    missing = run_cli("show", "0123456789abcdef", "--db", db, check=False)
    assert missing.returncode == 1 and "no record" in missing.stderr


def _big_tree(root, files=300, per_file=40):
    for i in range(files):
        p = root / f"pkg{i % 7}" / f"mod{i}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"def f{j}(x):\n    if x > {j}:\n        raise ValueError(f'x={{x}} over {j} in {i}')\n"
                         for j in range(per_file))
        p.write_text(body)
    return root


def _wait_for_writes(db, proc, timeout=60.0):
    """Until the run has written to the index (its WAL grew), so the kill lands part-way."""
    wal = db.with_name(db.name + "-wal")
    start = wal.stat().st_size if wal.exists() else 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if wal.exists() and wal.stat().st_size != start:
            return
        time.sleep(0.005)


def test_killed_index_keeps_previous_dataset(tmp_path):
    files, per_file = 300, 40
    tree = _big_tree(tmp_path / "big", files, per_file)
    db = tmp_path / "e.db"
    env = {**os.environ, "ERRDEX_HOME": str(tmp_path / "home")}
    cmd = [sys.executable, "-m", "errdex", "index", str(tree), "--db", str(db), "--repo", "acme/big", "-q", "-j", "2"]
    subprocess.run(cmd + ["--version", "1"], check=True, env=env, capture_output=True, timeout=300)
    con = sqlite3.connect(db)
    count = con.execute("SELECT record_count FROM datasets").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    assert count == files * per_file
    (tree / "pkg0" / "mod0.py").write_text("def g():\n    raise KeyError('changed')\n")
    for stale in tree.rglob("mod1*.py"):  # new content: the run must parse and cache, i.e. write
        stale.write_text(stale.read_text() + "\n# changed\n")
    proc = subprocess.Popen(cmd + ["--version", "2"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for_writes(db, proc)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = dict(con.execute("SELECT version, record_count FROM datasets").fetchall())
    con.close()
    assert rows == {"1": count}
    subprocess.run(cmd + ["--version", "2"], check=True, env=env, capture_output=True, timeout=300)
    rows = dict(sqlite3.connect(db).execute("SELECT version, record_count FROM datasets").fetchall())
    assert rows == {"1": count, "2": count - per_file + 1}


def test_index_ends_with_the_collector_still_off(sample, tmp_path, monkeypatch):
    """Re-enabled before the exit, the collector would sweep the run's whole heap once; embedded, it comes back on."""
    import gc

    from click.testing import CliRunner

    import errdex.cli.index as index_cli
    from errdex.cli import main

    seen = []
    monkeypatch.setattr(index_cli, "end_without_teardown", lambda command: seen.append(gc.isenabled()))
    assert gc.isenabled()
    result = CliRunner().invoke(main, ["index", str(sample), "--db", str(tmp_path / "e.db"), "-q"])
    assert result.exit_code == 0, result.output
    assert seen == [False]
    assert gc.isenabled()


def test_tables_written_to_a_pipe_are_not_squeezed_to_80_columns(sample, tmp_path, run_cli):
    """Redirected, rich would assume 80 columns and wrap every message over several lines."""
    db = str(tmp_path / "e.db")
    run_cli("index", str(sample), "--db", db, "-q")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["ERRDEX_HOME"] = str(tmp_path / "home")
    out = subprocess.run([sys.executable, "-m", "errdex", "list", "--db", db], capture_output=True, text=True,
                         env=env, check=True).stdout
    row = next(line for line in out.splitlines() if "gemm_ar" in line)
    assert "gemm_ar: M={m} outside [1, {MAX}]" in row and "widgets/core.py:" in row
    assert max(len(line) for line in out.splitlines()) > 80
