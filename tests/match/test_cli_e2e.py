"""End to end: index a small package into a real SQLite file, then explain and scan through the CLI."""

import json
import subprocess
import sys

import pytest

from errdex.match import explain, load_context, scan

from .conftest import index_one_module

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
    return index_one_module(tmp_path_factory, "mylib", "kernels", SOURCE)


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


def test_cli_scan_jobs_splits_a_big_log_with_the_same_report(db, tmp_path):
    """Over the 32 MiB threshold `--jobs 2` forks; its JSON equals `--jobs 1`'s but for timings."""
    block = ("INFO step ok\n" * 3000
             + "ERROR RuntimeError: Unknown model name q, expected one of a, b\n"
             + "Traceback (most recent call last):\n"
             + '  File "/srv/site-packages/mylib/kernels.py", line 5, in packed_decode\n'
             + "    raise ValueError(\n"
             + "ValueError: Packed decode kernel only supports NK=1 (got K=3, BK=4).\n")
    log = tmp_path / "big.log"
    with open(log, "w") as f:
        f.write(block * (35_000_000 // len(block) + 1))
    reports = []
    for jobs in ("1", "2"):
        out = _cli("scan", "--db", str(db), "--json", "--jobs", jobs, str(log))
        assert out.returncode == 0, out.stderr
        reports.append(json.loads(out.stdout))
    single, split = reports
    assert (single["stats"]["processes"], split["stats"]["processes"]) == (1, 2)
    assert len(split["stats"]["workerCpuSeconds"]) == 1
    for key in ("occurrences", "groups", "unknown"):
        assert split[key] == single[key]
    assert split["stats"]["lines"] == single["stats"]["lines"] == block.count("\n") * (35_000_000 // len(block) + 1)
    assert len(split["occurrences"]) == 2 * (35_000_000 // len(block) + 1)


def test_cli_scan_text_report_shows_the_most_frequent_groups(db, tmp_path, monkeypatch):
    """The text report lists at most `--top` groups, most frequent first, and says how
    many more there are; it never encodes an occurrence."""
    from errdex.cli import explain as cli_explain
    from errdex.match import resolve

    log = tmp_path / "app.log"
    log.write_text("ERROR RuntimeError: Unknown model name q, expected one of a, b\n" * 3
                   + "ValueError: Packed decode kernel only supports NK=1 (got K=3, BK=4).\n"
                   + "ERROR OSError: disk 3 full\n")
    report = scan(log, db=db)
    assert len(report.groups()) == 2
    monkeypatch.setattr(resolve.Match, "to_dict", lambda self: pytest.fail("occurrence encoded"))
    for cap, more in ((50, None), (None, None), (1, "... and 1 more indexed errors (1 occurrences); --top 0")):
        out = _print(lambda r, cap=cap: cli_explain._print_report(r, cap), report, monkeypatch)
        assert "kernels.py:13" in out or "kernels.py:18" in out   # the 3-times group: always shown
        assert ("kernels.py:5" in out) is (more is None)
        assert (more in out) if more else "more indexed errors" not in out
        assert "disk <*> full" in out and "5 lines" in out


def _print(fn, report, monkeypatch) -> str:
    """What `fn(report)` prints to a rich console, 200 columns wide."""
    import io

    import rich.console

    from errdex.cli import console

    buffer, real = io.StringIO(), rich.console.Console
    with monkeypatch.context() as patch:
        patch.setattr(console, "stdout_console", lambda: real(file=buffer, width=200))
        fn(report)
    return buffer.getvalue()


#: What a small log's scan and a line's explain (`--json`) need not load: printing, the store
#: (once the context snapshot is written), forking workers, malloc tuning, the fallback engine.
NOT_ON_THE_SMALL_PATH = ("rich", "pydantic", "sqlite3", "errdex.store", "errdex.match.parallel", "ctypes",
                         "pickle", "hashlib", "ahocorasick")


def _imported(*args) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run the CLI under `-X importtime`; the modules it imported."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "errdex", *args], capture_output=True,
                          text=True, timeout=60, check=True)
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return proc, names


def test_a_small_scan_and_an_explain_import_only_what_they_use(db, tmp_path):
    log = tmp_path / "app.log"
    log.write_text("INFO start\nERROR RuntimeError: Unknown model name q, expected one of a, b\n")
    assert _cli("scan", "--db", str(db), "--json", str(log)).returncode == 0   # the snapshot exists from here on
    scanned, scan_modules = _imported("scan", "--db", str(db), "--json", str(log))
    assert [o["logLine"] for o in json.loads(scanned.stdout)["occurrences"]] == [2]
    explained, explain_modules = _imported("explain", "--db", str(db), "--json",
                                           "ValueError: Packed decode kernel only supports NK=1 (got K=0, BK=1).")
    assert json.loads(explained.stdout)[0]["bindings"] == {"K": "0", "BK": "1"}
    for modules in (scan_modules, explain_modules):
        assert "errdex.match.engine" in modules and "hyperscan" in modules
        assert not {name for name in modules for heavy in NOT_ON_THE_SMALL_PATH
                    if name == heavy or name.startswith(heavy + ".")}
