"""`errdex.setters`: the methods that assign the attribute a site finds unset, and the advice built on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from errdex.pipeline import index_source
from errdex.store import Store
from tests.extract.conftest import write_tree

FILES = {
    "app/__init__.py": "",
    "app/base.py": """
        class PoolOwner:
            def attach_pool(self, pool):
                self.pool = pool

            def detach_pool(self):
                self.pool = None
        """,
    "app/cache.py": """
        from app.base import PoolOwner


        class Cache(PoolOwner):
            def __init__(self, size):
                self.size = size
                self.ready = False

            def warm(self):
                self.ready = True

            def _load(self):
                self.table = {}

            @staticmethod
            def fill(other):
                other.table = {"k": 1}   # `other` is no instance of Cache: not a setter

            def lookup(self, key):
                if self.table is None:
                    raise KeyError("table is not loaded")
                return self.table[key]

            def get(self, key):
                if self.pool is None:
                    raise RuntimeError("pool is not attached")
                return self.pool[key]

            def reset(self):
                if self.size is None:
                    raise ValueError("size is not set")

            def put(self, key, value):
                if not self.ready:
                    raise RuntimeError("cache is not warm")
                if self.size < 1:
                    raise ValueError("size must be positive")
                self.pool[key] = value
        """,
}


def _index(root: Path, db: Path, in_place: bool = False) -> dict[str, dict]:
    report = index_source(str(root), db, jobs=1, repo="o/setters", version="1")
    assert report.in_place is in_place
    with Store.open(db, readonly=True) as store:
        return {r["errorMessage"]: r for r in store.iter_records(limit=100)}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("setters") / "src"
    write_tree(root, FILES)
    return root


def test_a_method_of_a_base_class_that_sets_the_attribute_is_named(tree, tmp_path):
    recs = _index(tree, tmp_path / "s.db")
    r = recs["pool is not attached"]
    # `detach_pool` assigns None: it unsets the attribute, so it is no setter
    assert r["errdex"]["setters"] == {"self.pool": ["app.base.PoolOwner.attach_pool"]}
    assert r["errdex"]["provenance"]["setters"] == "fact"
    assert "Call `PoolOwner.attach_pool` before `get`: it sets `self.pool`." in r["solutions"]


def test_a_flag_set_false_in_init_is_set_by_the_method_that_sets_it_true(tree, tmp_path):
    recs = _index(tree, tmp_path / "s.db")
    r = recs["cache is not warm"]
    assert r["errdex"]["setters"] == {"self.ready": ["app.cache.Cache.warm"]}
    assert "Call `Cache.warm` before `put`: it sets `self.ready`." in r["solutions"]


def test_a_private_setter_is_named_not_advised(tree, tmp_path):
    r = _index(tree, tmp_path / "s.db")["table is not loaded"]
    assert r["errdex"]["setters"] == {"self.table": ["app.cache.Cache._load"]}
    assert ("`self.table` is assigned in `Cache._load`: check that one ran, with a value, before `lookup`."
            in r["solutions"])
    assert not any(s.startswith("Call `Cache._load`") for s in r["solutions"])


def test_an_attribute_compared_gets_the_fact_but_no_call_order_advice(tree, tmp_path):
    recs = _index(tree, tmp_path / "s.db")
    r = recs["size must be positive"]
    assert r["errdex"]["setters"] == {"self.size": ["app.cache.Cache.__init__"]}
    assert not any("`self.size`" in s and ("sets" in s or "assigned in" in s) for s in r["solutions"])


def test_a_reindex_of_the_changed_file_keeps_the_setters(tree, tmp_path):
    db = tmp_path / "r.db"
    _index(tree, db)
    cache = tree / "app" / "cache.py"
    original = cache.read_text()
    try:
        cache.write_text(original.replace("pool is not attached", "no pool attached"))
        recs = _index(tree, db, in_place=True)   # the delta path: the base class's facts come from the cache
    finally:
        cache.write_text(original)
    assert recs["no pool attached"]["errdex"]["setters"] == {"self.pool": ["app.base.PoolOwner.attach_pool"]}


def test_a_constructor_setter_is_no_step_to_check(tree, tmp_path):
    """Review 29 #9, #23: `self.size` set only in `__init__`, which ran for any object `reset` runs on:
    "check that one ran" cannot be the fix."""
    r = _index(tree, tmp_path / "s.db")["size is not set"]
    assert r["errdex"]["setters"] == {"self.size": ["app.cache.Cache.__init__"]}
    assert not any("check that one ran" in s for s in r["solutions"])
