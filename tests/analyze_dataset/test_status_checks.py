"""A check of the status a call returned (`ret = lib.init(x)`, `if ret != 0: raise ...`): the
advice sends the reader to the call, not to "keep `ret == 0`" (review 19, host_callback.py:53)."""

from __future__ import annotations

from .sources import index_sources, records_by_message

FILES = {
    "dev/__init__.py": "",
    "dev/open.py": """
        import native


        def open_device(index, flags):
            rc = native.open_device(index, flags)
            if rc != 0:
                raise RuntimeError(f"open_device failed with {rc}")
            return index


        def reserve(pool, n):
            free = pool.free_pages(n)
            if free < n:
                raise MemoryError(f"only {free} pages free")


        def attach(handle):
            ret = native.attach(handle)
            ret = ret + 1
            if ret:
                raise RuntimeError("attach failed")
        """,
}


def test_a_status_check_points_at_the_call_that_returned_it(tmp_path):
    recs = records_by_message(index_sources(tmp_path, FILES, "o/dev"))
    r = recs["open_device failed with {rc}"]
    assert r["solutions"][0].startswith(
        "The check tests the status `rc` that `native.open_device(index, flags)` returned: find why"
        " `native.open_device(...)` failed there")
    assert not any("Keep" in s or "Make sure" in s for s in r["solutions"])
    assert not any("Validate `rc == 0`" in t for t in r["preventionTips"])


def test_other_checks_of_call_results_keep_their_advice(tmp_path):
    recs = records_by_message(index_sources(tmp_path, FILES, "o/dev"))
    # a count compared with another value is no status of a call
    reserve = recs["only {free} pages free"]
    assert not any(s.startswith("The check tests the status") for s in reserve["solutions"])
    # the status the test reads was changed after the call returned it
    attach = recs["attach failed"]
    assert not any(s.startswith("The check tests the status") for s in attach["solutions"])
