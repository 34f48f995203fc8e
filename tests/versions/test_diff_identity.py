"""Many versions in one index: ids kept across line moves and renames, diff accounts for every record."""

import json

import pytest

from .conftest import CORE_V1, UTIL_V1, write_files
from errdex.pipeline import index_source
from errdex.store import Store
from errdex.versions import diff_datasets, link_identities, site_history
from errdex.versions.diff import changed_fields

REPO = "o/pkg"


def _v2_files():
    """Lines moved in core.py, one message reworded, util.py renamed, a function renamed, a site added."""
    core = "\n    # moved down by a comment\n    import os\n" + CORE_V1.replace("empty list", "empty sequence")
    core += '''

    def load(path):
        if not os.path.exists(path):
            raise FileNotFoundError(f"no such file {path}")
    '''
    util = UTIL_V1.replace("def parse_mode(", "def mode_number(")
    return {"pkg/__init__.py": "", "pkg/core.py": core, "pkg/modes.py": util}


@pytest.fixture
def two_versions(tmp_path):
    src = write_files(tmp_path / "src", {"pkg/__init__.py": "", "pkg/core.py": CORE_V1, "pkg/util.py": UTIL_V1})
    db = tmp_path / "x.db"
    index_source(str(src), db, repo=REPO, version="1.0", jobs=1)
    write_files(src, _v2_files())
    index_source(str(src), db, repo=REPO, version="2.0", jobs=1)
    with Store.open(db) as store:
        v1 = {r["errorMessage"]: r for r in store.iter_records(f"{REPO}@1.0")}
        v2 = {r["errorMessage"]: r for r in store.iter_records(f"{REPO}@2.0")}
    return db, v1, v2


def test_moved_lines_keep_id_and_same_key(two_versions):
    _, v1, v2 = two_versions
    old, new = v1["negative size {n}"], v2["negative size {n}"]
    assert new["lineNumber"] == old["lineNumber"] + 3
    assert new["id"] == old["id"]
    assert new["errdex"]["identity"] == "same-key"


def test_renames_and_rewording_keep_the_old_id(two_versions):
    _, v1, v2 = two_versions
    mode = "unknown mode {text!r}; expected fast or slow"
    assert v2[mode]["filePath"] == "pkg/modes.py" and v2[mode]["errdex"]["function"] == "mode_number"
    assert v2[mode]["id"] == v1[mode]["id"]
    assert v2[mode]["errdex"]["identity"] in {"renamed-file", "moved"}
    reworded = v2["cannot pick from an empty sequence"]
    assert reworded["id"] == v1["cannot pick from an empty list"]["id"]
    assert reworded["errdex"]["identity"] == "changed-message"
    assert "no such file {path}" in v2
    assert v2["no such file {path}"]["id"] not in {r["id"] for r in v1.values()}


def test_diff_accounts_for_every_record_of_b_once(two_versions):
    db, v1, v2 = two_versions
    with Store.open(db, readonly=True) as store:
        result = diff_datasets(store, f"{REPO}@1.0", f"{REPO}@2.0").as_dict()
    changed = {c["id"]: c["fields"] for c in result["changed"]}
    listed = result["added"] + list(changed)
    assert len(listed) == len(set(listed))
    assert len(listed) + result["unchanged"] == len(v2)
    assert set(listed) <= {r["id"] for r in v2.values()}
    assert result["added"] == [v2["no such file {path}"]["id"]]
    assert result["removed"] == []
    assert "template" in changed[v2["cannot pick from an empty sequence"]["id"]]
    assert "file" in changed[v2["unknown mode {text!r}; expected fast or slow"]["id"]]


def test_identical_dataset_diff_is_all_unchanged(two_versions):
    db, _, v2 = two_versions
    with Store.open(db, readonly=True) as store:
        result = diff_datasets(store, f"{REPO}@2.0", f"{REPO}@2.0").as_dict()
    assert result == {"added": [], "removed": [], "changed": [], "unchanged": len(v2)}


def test_history_lists_versions_oldest_first(two_versions):
    db, v1, v2 = two_versions
    rid = v2["cannot pick from an empty sequence"]["id"]
    with Store.open(db, readonly=True) as store:
        found = site_history(store, rid).as_dict()
        assert site_history(store, "0" * 16) is None
    assert [v["version"] for v in found["versions"]] == ["1.0", "2.0"]
    assert found["firstSeen"] == "1.0" and found["lastSeen"] == "2.0"
    assert [v["template"] for v in found["versions"]] == ["cannot pick from an empty list",
                                                          "cannot pick from an empty sequence"]
    assert found["versions"][0]["condition"] == "not items"
    assert found["provenance"] is None


def _record(rid, path, function, template, source, cls="ValueError"):
    return {"id": rid, "filePath": path, "errorMessage": template, "errorClass": cls,
            "sourceCode": source, "errdex": {"function": function}}


def test_link_rejects_unrelated_code_and_takes_each_old_site_once():
    body = "def f(x):\n    if x:\n        raise ValueError('bad value')\n    return x"
    other = "class Z:\n    items = []\n    def g(self):\n        while True:\n            raise ValueError('bad value')"
    prev = [_record("a" * 16, "p/old.py", "f", "bad value", body)]
    new = [_record("b" * 16, "p/new.py", "f", "bad value", body), _record("c" * 16, "p/new2.py", "f", "bad value", body)]
    links = link_identities(new, prev)
    assert [(l.new_id, l.old_id, l.how) for l in links] == [("b" * 16, "a" * 16, "renamed-file")]
    assert [r["id"] for r in new] == ["a" * 16, "c" * 16]
    unrelated = [_record("d" * 16, "q/x.py", "h", "bad value", other)]
    assert link_identities(unrelated, prev) == []
    assert unrelated[0]["id"] == "d" * 16 and unrelated[0]["errdex"]["identity"] == "same-key"
    generic = [_record("e" * 16, "p/new.py", "f", "{e}", body)]
    assert link_identities(generic, [_record("a" * 16, "p/old.py", "f", "{e}", body)]) == []


def test_changed_fields_names_each_compared_field():
    a = _record("a" * 16, "p.py", "f", "x", "s")
    b = {**a, "errorClass": "KeyError", "severity": "warning", "errdex": {"function": "f", "condition": "y"}}
    assert changed_fields(a, b) == ["class", "condition", "severity"]
    assert changed_fields(a, dict(a)) == []


def test_cli_diff_and_history(two_versions, run_cli):
    db, _, v2 = two_versions
    out = json.loads(run_cli("diff", "--db", str(db), f"{REPO}@1.0", f"{REPO}@2.0", "--json").stdout)
    assert set(out) == {"added", "removed", "changed", "unchanged"}
    assert len(out["added"]) + len(out["changed"]) + out["unchanged"] == len(v2)
    text = run_cli("diff", "--db", str(db), f"{REPO}@1.0", f"{REPO}@2.0").stdout
    assert "1 added, 0 removed" in text and "'cannot pick from an empty list' -> " in text
    rid = v2["negative size {n}"]["id"]
    hist = json.loads(run_cli("history", "--db", str(db), rid, "--json").stdout)
    assert [v["line"] for v in hist["versions"]] == [6, 9]
    missing = run_cli("history", "--db", str(db), "f" * 16, check=False)
    assert missing.returncode == 1 and "f" * 16 in missing.stderr
    bad = run_cli("diff", "--db", str(db), f"{REPO}@1.0", f"{REPO}@9.9", check=False)
    assert bad.returncode != 0 and "unknown dataset" in bad.stderr
