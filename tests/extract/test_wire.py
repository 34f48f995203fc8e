"""Facts cross the process boundary (and sit in the cache) as compact pickles, and the catalog skips call lists."""

import pickle
import zlib

from errdex.extract.files import extract_file
from errdex.extract.wire import pack_facts, unpack_facts
from errdex.store.codec import inflate

from .conftest import write_tree

SOURCE = '''
import warnings
from .errors import Broken

LIMIT = "limit is %d"

def fail(msg):
    raise Broken(msg)

class Engine:
    def run(self, n, kind):
        if n < 0:
            raise Broken(f"negative {n!r:>4} for {kind}")
        self.check(n)
        warnings.warn(LIMIT % n, RuntimeWarning)
        assert kind, "kind is required"
        fail("engine stopped")

    def check(self, n):
        raise ValueError("bad %s" % n)
'''


def _facts(tmp_path, **kw):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/errors.py": "class Broken(Exception): pass\n",
                          "pkg/mod.py": SOURCE})
    return extract_file(str(tmp_path), "pkg/mod.py", "pkg.mod", **kw)


def test_packed_facts_load_equal_and_keep_shared_objects(tmp_path):
    facts = _facts(tmp_path)
    assert facts.sites and facts.helpers and facts.helper_calls and facts.functions
    back = unpack_facts(pack_facts(facts))
    assert back == facts
    # A helper's site is the very site listed in `sites` (link relies on the same object).
    assert any(h.site is s for h in back.helpers for s in back.sites)
    assert back.sites[0].message.placeholders() == facts.sites[0].message.placeholders()


def test_packed_facts_are_smaller_than_a_default_pickle(tmp_path):
    facts = _facts(tmp_path)
    compact = inflate(pack_facts(facts))
    assert len(compact) < 0.7 * len(pickle.dumps(facts, pickle.HIGHEST_PROTOCOL))


def test_blobs_of_the_default_pickler_still_load(tmp_path):
    facts = _facts(tmp_path)
    old = zlib.compress(pickle.dumps(facts, pickle.HIGHEST_PROTOCOL), 1)
    assert unpack_facts(old) == facts


def test_catalog_mode_records_no_functions_and_nothing_else_changes(tmp_path):
    full = _facts(tmp_path)
    catalog = _facts(tmp_path, calls=False)
    run = next(f for f in full.functions if f.qualname == "pkg.mod.Engine.run")
    assert "pkg.mod.Engine.check" in run.calls and "pkg.mod.fail" in run.calls
    assert catalog.functions == []   # only the call graph reads them
    full.functions = []
    assert catalog == full
