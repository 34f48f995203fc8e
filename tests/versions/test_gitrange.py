"""`errdex index PATH --rev A..B` on a git repository the test builds: commits, renames, provenance."""

import json

import pytest

from .conftest import CORE_V1, UTIL_V1, commit, git
from errdex.store import Store
from errdex.versions import index_git_range, site_history
from errdex.versions.gitrange import range_commits

PICK = "cannot pick from an empty list"


@pytest.fixture
def repo(tmp_path):
    """c0 baseline; c1 adds util.py; c2 rewords its message; c3 tightens its guard; c4 renames core.py."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    base = {"pkg/__init__.py": "", "pkg/core.py": CORE_V1, "README.md": "hi\n"}
    shas = [commit(root, base, "baseline", 0)]
    shas.append(commit(root, {**base, "pkg/util.py": UTIL_V1}, "add parse_mode", 10))
    util2 = UTIL_V1.replace("expected fast or slow", "expected one of fast, slow")
    shas.append(commit(root, {**base, "pkg/util.py": util2}, "reword mode error", 20))
    util3 = util2.replace("if text not in modes:", "if text not in modes or not text:")
    shas.append(commit(root, {**base, "pkg/util.py": util3}, "stricter guard", 30))
    moved = {"pkg/__init__.py": "", "pkg/pick.py": CORE_V1, "pkg/util.py": util3, "README.md": "hi\n"}
    shas.append(commit(root, moved, "split core", 40))
    return root, shas


def test_range_lists_commits_oldest_first_with_the_baseline(repo):
    root, shas = repo
    found = range_commits(root, f"{shas[0]}..{shas[-1]}")
    assert [c.sha for c in found] == shas
    assert [c.subject for c in found][:2] == ["baseline", "add parse_mode"]


def test_index_range_shares_files_and_answers_provenance(repo, tmp_path):
    root, shas = repo
    db = tmp_path / "r.db"
    report = index_git_range(root, f"{shas[0]}..{shas[-1]}", db, jobs=1, repo="o/proj")
    assert report.commits == shas and len(report.datasets) == 5
    # baseline writes 2 files; then util.py three times; then pick.py (core.py removed): 6 in all.
    assert report.files_written == 6
    # pick.py has core.py's content but another path and module: it is parsed again, nothing else is.
    assert report.extracted == 6
    with Store.open(db, readonly=True) as store:
        last = {r["errorMessage"]: r for r in store.iter_records(f"o/proj@{shas[-1]}")}
        first = {r["errorMessage"]: r for r in store.iter_records(f"o/proj@{shas[0]}")}
        mode = last["unknown mode {text!r}; expected one of fast, slow"]
        hist = site_history(store, mode["id"])
        pick = site_history(store, last[PICK]["id"])
    assert last[PICK]["id"] == first[PICK]["id"]
    assert last[PICK]["filePath"] == "pkg/pick.py" and last[PICK]["errdex"]["identity"] == "renamed-file"
    assert [e.version for e in hist.entries] == shas[1:]
    assert [e.template for e in hist.entries][:2] == ["unknown mode {text!r}; expected fast or slow",
                                                      "unknown mode {text!r}; expected one of fast, slow"]
    p = hist.provenance
    assert (p.introduced.sha, p.introduced.before_range) == (shas[1], False)
    assert p.message_changed.sha == shas[2]
    assert p.guard_changed.sha == shas[3] and p.guard_changed.subject == "stricter guard"
    assert pick.provenance.introduced.before_range and pick.provenance.introduced.sha == shas[0]
    assert pick.provenance.message_changed.sha == shas[0]


def test_cli_index_rev_and_history(repo, tmp_path, run_cli):
    root, shas = repo
    db = str(tmp_path / "cli.db")
    out = run_cli("index", str(root), "--rev", f"{shas[1]}..{shas[3]}", "--db", db, "-q", "-j", "1").stdout
    assert "indexed 3 commits" in out
    listed = json.loads(run_cli("list", "--db", db, "--json", "--dataset",
                                f"proj@{shas[3]}").stdout)
    records = listed if isinstance(listed, list) else listed.get("records", listed)
    mode = next(r for r in records if "unknown mode" in r["errorMessage"])
    text = run_cli("history", "--db", db, mode["id"]).stdout
    assert f"message last changed: {shas[2][:12]}" in text
    assert f"guard last changed: {shas[3][:12]}" in text and "stricter guard" in text
    assert f"introduced: at or before {shas[1][:12]}" in text
    bad = run_cli("index", str(root), "--rev", "nope..main", "--db", db, check=False)
    assert bad.returncode == 2 and "nope" in bad.stderr
