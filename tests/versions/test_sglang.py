"""The issue's check on real code: sglang 0.5.22 and 0.5.23 in one database (wheels cached after one download)."""

import dataclasses
import json
import os
from pathlib import Path

import pytest

from errdex.pipeline import index_tree
from errdex.store import Store

CACHE_HOME = Path.home() / ".cache" / "errdex-tests" / "home"
REPO = "sgl-project/sglang"


@pytest.mark.network
def test_sglang_022_to_023_diff_accounts_for_every_record(tmp_path, monkeypatch, run_cli):
    monkeypatch.setenv("ERRDEX_HOME", os.environ.get("ERRDEX_TEST_HOME", str(CACHE_HOME)))
    from errdex.sources import resolve_source

    db = tmp_path / "sgl.db"
    for version in ("0.5.22", "0.5.23"):
        tree = dataclasses.replace(resolve_source(f"pypi:sglang=={version}"), repo=REPO)
        index_tree(tree, db)
    out = json.loads(run_cli("diff", "--db", str(db), f"{REPO}@0.5.22", f"{REPO}@0.5.23", "--json").stdout)
    with Store.open(db, readonly=True) as store:
        old = {r["id"]: r for r in store.iter_records(f"{REPO}@0.5.22")}
        new = {r["id"]: r for r in store.iter_records(f"{REPO}@0.5.23")}
    listed = out["added"] + [c["id"] for c in out["changed"]]
    assert len(listed) == len(set(listed)) and set(listed) <= set(new)
    assert len(listed) + out["unchanged"] == len(new)
    unchanged = set(new) - set(listed)
    assert unchanged <= set(old) and len(unchanged) == out["unchanged"] > 1000
    assert set(out["removed"]) == set(old) - set(new)
    # Same path, function and template in both: the same id, whatever the line.
    key = lambda r: (r["filePath"], r["errdex"]["function"], r["errorMessage"])  # noqa: E731
    old_keys = {}
    for r in old.values():
        old_keys.setdefault(key(r), []).append(r["id"])
    new_keys = {}
    for r in new.values():
        new_keys.setdefault(key(r), []).append(r["id"])
    kept = [r for r in new.values() if len(old_keys.get(key(r), ())) == 1 == len(new_keys[key(r)])]
    assert kept and all(r["id"] == old_keys[key(r)][0] for r in kept)
