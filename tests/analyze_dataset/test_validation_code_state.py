"""validationCode keeps what the function sets on its object in locals (review 21).

Replayed as written, `self.idx = (self.idx + 1) % self.size` advanced a ring's index before the
call advanced it again, so the check looked at one slot and the call took the next; in an
`__init__`, `self.cap = int(cap)` needed an object that does not exist before the call. The
snippets are run here (the test's own code) against the methods they stand for.
"""

from __future__ import annotations

import copy
import textwrap

import pytest

from tests.analyze_dataset.sources import fails_assert, index_sources, records_by_message

FILES = {
    "ring/__init__.py": "",
    "ring/slots.py": """
        class Ring:
            def __init__(self, size, start):
                self.size = size
                self.idx = start
                self.slots = [None] * size

            def claim(self, item):
                self.idx = (self.idx + 1) % self.size
                if self.slots[self.idx] is not None:
                    raise RuntimeError("slot taken")
                self.slots[self.idx] = item

            def grow(self, extra):
                self.size += extra
                if self.size > 8:
                    raise ValueError("ring too large")


        class Limits:
            def __init__(self, cap):
                self.cap = int(cap)
                if self.cap < 0:
                    raise ValueError("negative cap")
        """,
}


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    return records_by_message(index_sources(tmp_path_factory.mktemp("state"), FILES, "acme/ring"))


def _indexed_class(name: str):
    """The class as the indexed file defines it (run here, by the test; the indexer never runs it)."""
    namespace: dict = {}
    exec(textwrap.dedent(FILES["ring/slots.py"]), namespace)   # noqa: S102
    return namespace[name]


Ring = _indexed_class("Ring")


def _raises(method, ring, *args) -> bool:
    try:
        method(copy.deepcopy(ring), *args)
    except (RuntimeError, ValueError):
        return True
    return False


def test_a_store_on_the_object_is_replayed_into_a_local(recs):
    code = recs["slot taken"]["validationCode"]
    assert "self.idx =" not in code, code
    for taken in ([], [0], [1], [0, 1, 2, 3]):
        for start in range(4):
            ring = Ring(4, start)
            for i in taken:
                ring.slots[i] = "x"
            before = (ring.idx, list(ring.slots))
            assert fails_assert(code, self=ring, item="y") == _raises(Ring.claim, ring, "y"), (taken, start, code)
            assert (ring.idx, ring.slots) == before   # the snippet left the object as it was


def test_an_augmented_store_reads_the_value_before_it(recs):
    code = recs["ring too large"]["validationCode"]
    for size, extra in ((4, 4), (4, 5), (8, 0), (9, -2)):
        ring = Ring(size, 0)
        assert fails_assert(code, self=ring, extra=extra) == _raises(Ring.grow, ring, extra), (size, extra, code)
        assert ring.size == size


def test_a_constructor_check_runs_without_an_object(recs):
    code = recs["negative cap"]["validationCode"]
    assert "self." not in code and "self_cap = int(cap)" in code.splitlines(), code   # `cap` is the parameter
    for cap, raises in (("3", False), ("0", False), ("-1", True), (-5, True)):
        assert fails_assert(code, cap=cap) is raises, (cap, code)



def test_a_store_stays_on_the_object_when_the_object_itself_is_read():
    """`within(self, ...)` reads what `self.limit = limit` set on the object: kept in a local, the
    call would not see it, so the store is replayed as written."""
    from errdex.analyze.codegen import validation_code
    from errdex.analyze.condexpr import parse_condition

    code = validation_code(parse_condition("not ok", "not ok"), ["self.limit = limit", "ok = within(self, self.limit)"],
                           {}, "ring.Ring.audit", True, None)
    assert code.splitlines()[-3:] == ["self.limit = limit", "ok = within(self, self.limit)", "assert ok"], code

    def within(ring, limit):
        return ring.size <= ring.limit == limit

    for size, limit in ((4, 4), (4, 3), (8, 9)):
        assert fails_assert(code, self=Ring(size, 0), limit=limit, within=within) is (size > limit), (size, limit, code)
