"""A validationCode runs with the check's inputs alone: every local it reads is assigned in it or
named as a value to set (page review 16: 3,107 sglang records read locals they never assigned)."""

from __future__ import annotations

import pytest

from .sources import index_sources, records_by_message

FILES = {
    "app/__init__.py": "",
    "app/checks.py": """
        def quant(cfg):
            methods = {"modelopt", "modelopt_fp8"}
            method = cfg.get("quant_method")
            if method in methods and cfg.get("algo") == "MIXED":
                raise ValueError("mixed precision is not supported")


        def route(name, offset, limit):
            is_text = offset <= limit
            if is_text:
                name = name.replace(".experts.", ".text.")
            else:
                name = name.replace(".experts.", ".vision.")
            if name.endswith(".text.bad"):
                raise KeyError(f"{name} not found")


        def store_pages(op, pages):
            try:
                keys = op.prefix()
            except AttributeError:
                keys = None
            info = dict(keys=keys)
            ok = pages.put(info)
            if not ok:
                raise RuntimeError("write failed")


        import logging
        import warnings

        logger = logging.getLogger(__name__)


        def spread(group, nodes):
            if nodes > 1 and group != "quick":
                logger.warning("quick allreduce is disabled: the group spans %d nodes", nodes)
                return None
            if nodes == 0:
                warnings.warn("no nodes given, using one", UserWarning)
            return group


        _DECODER = None


        def decode(data):
            if _DECODER is None:
                raise RuntimeError("no decoder installed")
            return _DECODER(data)


        def limit(n):
            if n > 3:
                raise ValueError("n above the limit")


        def api(data, n):
            limit(n)
            return decode(data)


        def token(items, kind):
            for item in items:
                item.seen = True
            if all(item.kind != kind for item in items):
                raise KeyError(kind)
            return kind


        async def wait_ready(client):
            resp = await client.get("/health")
            if resp.status != 200:
                raise RuntimeError(f"not ready: {resp.status}")


        class Params:
            def verify(self):
                if self.min_p < 0:
                    raise ValueError(f"min_p must be non-negative, got {self.min_p}")


        def serve(params):
            params.verify()


        def pad_rows(rows, width):
            if width <= 0:
                raise ValueError(f"width must be positive, got {width}")
            return [r[:width] for r in rows]


        def run(rows, width):
            return pad_rows(rows, width)


        def load_profiler():
            try:
                import fancy_profiler
            except ImportError as exc:
                logger.warning("full runtime unavailable (%s); using a fallback", exc)
                return None
            return fancy_profiler


        def reserve(n, cap):
            if n > cap:
                raise ValueError("over capacity")
            assert n <= cap, "capacity check"
            return n


        def probe_audio(path, server):
            import json
            import subprocess
            server.start()
            result = subprocess.run(["ffprobe", "-of", "json", path], capture_output=True, text=True)
            payload = json.loads(result.stdout)
            duration = float(payload["format"]["duration"])
            assert duration > 0, "empty audio"


        def settle(slots):
            if slots != 4:
                raise ValueError("four slots only")
            assert slots == 4, "slot check"
            return slots


        def collect(items):
            bad = []
            for it in items:
                if it < 0:
                    bad.append(it)
            assert not bad, f"negative items: {bad}"
        """,
}


FILES["tests/test_flow.py"] = """
    def _expect_done(job):
        assert job.state == "done", f"job not done: {job.state}"


    def test_flow(job):
        _expect_done(job)
    """


@pytest.fixture(scope="module")
def recs(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    return records_by_message(index_sources(root, FILES, "acme/inputs"))


def _fails(code: str, **inputs) -> bool:
    """Whether the validation code's assert fails when run on these inputs (nothing else defined)."""
    try:
        exec(compile(code, "<validationCode>", "exec"), {"__builtins__": __builtins__, **inputs})
    except AssertionError:
        return True
    return False


def test_a_set_of_real_values_is_shown_not_taken_for_an_empty_container(recs):
    """`methods = {...}` holds the values the check compares with: left out, the code read an
    undefined `methods` (only blank containers, `[]` or `{"k": []}`, are filled before they are read)."""
    code = recs["mixed precision is not supported"]["validationCode"]
    assert 'methods = {"modelopt", "modelopt_fp8"}' in code
    assert _fails(code, cfg={"quant_method": "modelopt", "algo": "MIXED"})
    assert not _fails(code, cfg={"quant_method": "modelopt", "algo": "FP8"})
    assert not _fails(code, cfg={"quant_method": "awq", "algo": "MIXED"})


def test_a_branch_shown_whole_brings_the_line_its_test_reads(recs):
    """`if is_text: name = ...` reads `is_text`: its assignment comes before it."""
    code = recs["{name} not found"]["validationCode"]
    assert "is_text = offset <= limit" in code
    assert code.index("is_text = offset <= limit") < code.index("if is_text:")
    assert _fails(code, name="m.experts.bad", offset=1, limit=2)
    assert not _fails(code, name="m.experts.bad", offset=3, limit=2)


def test_a_local_made_in_a_try_is_named_as_a_value_to_set(recs):
    """`keys` is bound in a try and in its handler: no single line gives it, so the code says the
    reader sets it, instead of reading it undefined."""
    record = recs["write failed"]
    code = record["validationCode"]
    assert "keys" in record["errdex"]["unfedLocals"]
    assert "# `keys`: a value app.checks.store_pages makes before the check that these lines do not replay" in code

    class Pages:
        def __init__(self, ok):
            self.ok = ok

        def put(self, info):
            return self.ok

    assert _fails(code, keys=None, pages=Pages(False))
    assert not _fails(code, keys=None, pages=Pages(True))


def test_a_line_that_runs_a_process_is_not_replayed(recs):
    """Review 20 #5550: a check's snippet replayed `subprocess.run(...)`, `requests.post(...)` and
    `server.start()`. The value such a line gives is named as one to set; what it is computed from
    is not replayed either; the lines after it are."""
    code = recs["empty audio"]["validationCode"]
    assert "subprocess.run(" not in code.replace("`subprocess.run(...)`", "") and "server.start" not in code
    assert "# not replayed, for what else they do (a process, a request, a file, a socket): `subprocess.run(...)`" \
        in code
    assert "# `result`: a value app.checks.probe_audio makes before the check" in code   # `json` is imported
    assert "import json\npayload = json.loads(result.stdout)" in code and "import subprocess" not in code
    assert "json" not in recs["empty audio"]["errdex"].get("unfedLocals", [])

    class Done:
        def __init__(self, seconds):
            self.stdout = '{"format": {"duration": "%s"}}' % seconds

    assert _fails(code, result=Done(0))
    assert not _fails(code, result=Done(2.5))


def test_a_container_filled_in_place_is_named_as_a_value_to_set(recs):
    """`bad = []` is not shown (it claims `bad` stays empty): the code says the reader sets `bad`."""
    code = recs["negative items: {bad}"]["validationCode"]
    assert "bad = []" not in code
    assert code.startswith("# `bad`: a value app.checks.collect makes before the check")
    assert _fails(code, bad=[-1])
    assert not _fails(code, bad=[])


@pytest.mark.parametrize("message, strategy", [
    ("quick allreduce is disabled: the group spans {nodes} nodes", "fallback"),   # the code goes on without it
    ("no nodes given, using one", "propagate")])
def test_a_report_that_goes_on_is_computed_not_asserted(recs, message, strategy):
    """A log or a warning is no failure: asserting its opposite would reject setups it only mentions.
    The code computes `reported`, True exactly where the site reports; nothing propagates."""
    record = recs[message]
    code = record["validationCode"]
    assert "assert" not in code and "reported = " in code
    # nothing is raised, so nothing is validated first (review 18): the report passes on as it is,
    # or says what the code does instead
    assert record["handlingStrategy"] == strategy
    assert record["tryCatchPattern"] is None   # nothing raised to catch: a report's fallback is the code's own
    assert record["solutions"][0].startswith("Nothing is raised here: `spread`")
    cases = [("quick", 2), ("ring", 2), ("ring", 1), ("ring", 0), ("quick", 0)]
    for group, nodes in cases:
        scope = {"group": group, "nodes": nodes}
        exec(compile(code, "<validationCode>", "exec"), scope)
        expected = (nodes > 1 and group != "quick") if "quick" in message else \
            (not (nodes > 1 and group != "quick") and nodes == 0)
        assert scope["reported"] is expected, (group, nodes)


def test_no_entry_point_check_when_no_caller_passes_what_decides_it(recs):
    """`_DECODER is None` reads module state only: checking it "at the entry point" checks nothing
    the entry point is given. A check on a parameter keeps that advice."""
    state, param = recs["no decoder installed"], recs["n above the limit"]
    assert state["errdex"]["noInputRead"] is True and "noInputRead" not in param["errdex"]
    assert state["errdex"]["entryPoints"] and param["errdex"]["entryPoints"]
    assert not any("entry point" in s for s in state["solutions"])
    assert any("entry point `app.checks.api` on" in s for s in param["solutions"])


def test_a_comprehension_target_is_no_unfed_local(recs):
    """`item` of `all(item.kind != kind for item in items)` is the generator's own, though the function
    binds an `item` of its own in a loop before: no value to set."""
    record = recs["{kind}"] if "{kind}" in recs else next(r for r in recs.values() if r["errorClass"] == "KeyError")
    assert "item" not in (record["errdex"].get("unfedLocals") or [])
    assert "`item`" not in (record["validationCode"] or "")


def test_a_check_that_awaits_runs_as_a_coroutine(recs):
    """`resp = await client.get(...)` at the top level would not compile (review 17 P8): the code is
    the body of `async def check()`, run with asyncio.run."""
    import asyncio

    code = recs["not ready: {resp.status}"]["validationCode"]
    assert "async def check():" in code

    class Client:
        def __init__(self, status):
            self.status = status

        async def get(self, path):
            return self

    for status, fails in ((200, False), (503, True)):
        scope = {"client": Client(status)}
        exec(compile(code, "<validationCode>", "exec"), scope)
        try:
            asyncio.run(scope["check"]())
        except AssertionError:
            assert fails
        else:
            assert not fails


def test_an_example_fix_never_tells_the_caller_to_skip_a_validation(recs):
    """Guarding `params.verify()` would skip all its checks (review 17 P2): a validator gets no
    exampleFix. Elsewhere the other branch says what to do with the rejected value, not "skip it"."""
    assert recs["min_p must be non-negative, got {self.min_p}"]["exampleFix"] is None
    fix = recs["width must be positive, got {width}"]["exampleFix"]
    assert "pad_rows(" in fix and "take a path without this check" not in fix
    assert "correct the value, or reject it where it came from: pad_rows raises for it" in fix


def test_a_test_helpers_assert_is_no_bug_upstream(recs):
    """A helper in a test module checks what the test expects (review 17 P3): not "a state it assumes
    cannot occur: a bug upstream", and no tip to add a test."""
    record = recs["job not done: {job.state}"]
    assert record["errdex"]["test"] is True
    assert record["commonSituations"].startswith("In test code: `_expect_done` meets a state it does not expect")
    assert not any("Add a test" in tip for tip in record["preventionTips"] or [])


def test_a_logged_fallback_is_no_failure_to_fix_first(recs):
    """A warning logged in an except that falls back: the call goes on, so the first solution says
    so before naming what failed (review 17: an optional import's fallback told as a failure)."""
    sols = recs["full runtime unavailable ({exc}); using a fallback"]["solutions"]
    assert sols[0].startswith("Nothing is raised here: `load_profiler` logs the failure it caught and then returns"
                              " (its caller gets what it returns)")   # `return None` follows the log (review 26)
    assert sols[1].startswith("Fix the underlying failure first")


def test_an_assert_that_never_fails_is_not_told_unreachable(recs):
    """`assert slots == 4` after `if slots != 4: raise` runs on every call that gets there, and never
    fails (review 17 P10: told as "no input reaches this line")."""
    record = recs["slot check"]
    assert record["errdex"]["condition"] == "False" and record["errdex"]["assertHolds"] is True
    texts = " ".join([record["documentation"], record["triggerScenarios"], record["commonSituations"],
                      *record["solutions"]])
    assert "reaches this line" not in texts and "unreachable" not in texts
    assert "the line runs, but the test it asserts holds on every path that reaches it" in record["documentation"]


def test_an_assert_only_a_nan_fails_is_told_as_such(recs):
    """`assert n <= cap` after `if n > cap: raise` fails for a NaN, which both order tests reject:
    the condition keeps that case (blind samples 14, 15: flipped tests dropped it), and the prose
    speaks of the NaN, not of `n` being greater than `cap`, which the raise before it took."""
    record = recs["capacity check"]
    cond = record["errdex"]["condition"]
    nan = float("nan")
    met = [(n, cap) for n in (0, 1, 5, nan) for cap in (0, 1, 5, nan) if eval(cond, {"n": n, "cap": cap})]
    assert met and all(n != n or cap != cap for n, cap in met) and len(met) == 7   # every pair holding a NaN
    assert record["errdex"]["nanOnly"] is True and "assertHolds" not in record["errdex"]
    assert "only when `n` or `cap` is NaN" in record["documentation"]
    assert "greater than" not in record["documentation"] + record["triggerScenarios"]
    assert "isnan" in record["solutions"][0] and "isnan" in record["preventionTips"][0]
    plain = recs["over capacity"]   # its sibling, which numbers reach: no NaN talk
    assert "nanOnly" not in plain["errdex"] and "NaN" not in plain["documentation"]


def test_splitting_the_work_is_advised_only_where_the_message_speaks_of_the_load(tmp_path):
    """Review 19 pattern 7: "Split the work into smaller requests or batches" was attached to every
    resource-exhaustion record, a kernel's fixed capacity and a pool's slots too."""
    from .sources import index_sources, records_by_message

    recs = records_by_message(index_sources(tmp_path, {
        "srv/__init__.py": "",
        "srv/alloc.py": """
            def alloc(n, free, slots):
                if n > free:
                    raise RuntimeError(f"Prefill out of memory. Try to allocate {n} tokens.")
                if n > 4096:
                    raise ValueError(f"request of {n} tokens exceeds the limit of 4096")
                if slots == 0:
                    raise RuntimeError("buffer pool capacity exhausted")
            """,
    }, "o/srv"))
    split = "Split the work into smaller requests or batches."
    assert split in recs["Prefill out of memory. Try to allocate {n} tokens."]["solutions"]
    assert split in recs["request of {n} tokens exceeds the limit of 4096"]["solutions"]
    pool = recs["buffer pool capacity exhausted"]
    assert pool["backgroundTag"] == "resource-exhaustion" and split not in pool["solutions"]
