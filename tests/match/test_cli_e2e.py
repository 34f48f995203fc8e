"""End to end: index a small package into a real SQLite file, then explain and scan through the CLI."""

import json
import subprocess
import sys
import textwrap

import pytest

from errdex.match import explain, load_context, scan

SOURCE = '''
def packed_decode(K, V):
    BK = next_power_of_2(K)
    if triton.cdiv(K, BK) != 1:
        raise ValueError(
            f"Packed decode kernel only supports NK=1 (got K={K}, BK={BK})."
        )
    assert V > 0
    return K


def fail(msg):
    raise RuntimeError(msg)


def load(name):
    if name not in ("a", "b"):
        fail(f"Unknown model name {name}, expected one of a, b")
'''


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    from errdex.pipeline import index_source

    root = tmp_path_factory.mktemp("src") / "mylib"
    (root / "mylib").mkdir(parents=True)
    (root / "mylib" / "__init__.py").write_text("")
    (root / "mylib" / "kernels.py").write_text(textwrap.dedent(SOURCE))
    path = tmp_path_factory.mktemp("db") / "errdex.db"
    index_source(str(root), path)
    return path


def _cli(*args, stdin=None, env_db=None):
    return subprocess.run([sys.executable, "-c", "from errdex.cli import main; main()", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_explain_against_a_real_index(db):
    (m, *_) = explain("ValueError: Packed decode kernel only supports NK=1 (got K=0, BK=1).", db=db)
    assert m.file_path == "mylib/kernels.py" and m.line_number == 5 and m.confidence == "high"
    assert m.condition_check is not None and m.condition_check.satisfied is True
    assert load_context(db) is load_context(db)  # the compiled engine is reused
    assert list(db.parent.glob("errdex.db.engine/*.hsdb"))


def test_helper_traceback_against_a_real_index(db):
    text = ('Traceback (most recent call last):\n'
            '  File "/elsewhere/site-packages/mylib/kernels.py", line 18, in load\n    fail(...)\n'
            '  File "/elsewhere/site-packages/mylib/kernels.py", line 13, in fail\n    raise RuntimeError(msg)\n'
            'RuntimeError: Unknown model name zz, expected one of a, b\n')
    (m, *_) = explain(text, db=db)
    assert (m.line_number, m.via, m.bindings) == (18, "frame", {"name": "zz"})


def test_cli_explain_exit_codes_and_json(db):
    ok = _cli("explain", "--db", str(db), "--json",
              "ValueError: Packed decode kernel only supports NK=1 (got K=0, BK=1).")
    assert ok.returncode == 0, ok.stderr
    (match,) = json.loads(ok.stdout)
    assert match["bindings"] == {"K": "0", "BK": "1"} and match["confidence"] == "high"
    low = _cli("explain", "--db", str(db), "-", stdin="KeyError: 'x'\n")
    assert low.returncode == 1
    rich = _cli("explain", "--db", str(db), "Packed decode kernel only supp")
    assert rich.returncode == 1 and "mylib/kernels.py:5" in rich.stdout
    missing = _cli("explain", "--db", str(db.parent / "nope.db"), "x")
    assert missing.returncode == 2 and "no index" in missing.stderr


def test_cli_scan_json(db, tmp_path):
    log = tmp_path / "app.log"
    log.write_text("INFO start\nERROR RuntimeError: Unknown model name q, expected one of a, b\n"
                   "ERROR OSError: disk 3 full\nINFO done\n")
    out = _cli("scan", "--db", str(db), "--json", str(log))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [o["logLine"] for o in data["occurrences"]] == [2]
    assert data["groups"][0]["count"] == 1 and data["unknown"][0]["firstLine"] == 3
    assert data["stats"]["lines"] == 4
    assert scan(log, db=db).to_dict()["occurrences"][0]["bindings"] == {"name": "q"}
