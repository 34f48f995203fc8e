"""The generated prose and code claim only what the condition shows (golden cases found reading sglang pages)."""

from __future__ import annotations

import ast
import re

import pytest

from errdex.analyze.fixes import with_values
from errdex.analyze.condexpr import describe, parse_condition
from errdex.analyze.flow import NON_LITERAL_LOOP
from errdex.analyze.prose import SiteFacts, common_situations, documentation, solutions, trigger_scenarios
from errdex.store import Store
from tests.analyze.analyze_support import mismatches
from tests.entry_code import entry_call
from .sources import index_sources, records_by_message

FILES = {
    "app/__init__.py": "",
    "app/core.py": """
        def configure(tools, size):
            limit = size * 2
            width = len(tools)
            if limit > 8 and not tools:
                raise ValueError(f"tools are required when limit is {limit}")
            return width


        class Tool:
            def register(self):
                if self.kind == "function" and not self.name:
                    raise ValueError("function tools need a name")


        def _inner(m):
            if m >= 64:
                raise ValueError("m too large")


        def outer(m):
            return _inner(m)


        def pick(items, i):
            if items and (i is None or i >= len(items)):
                raise IndexError(f"no item {i}")
            return items[i]


        def last_tool(messages):
            if not messages:
                return None
            last = messages[-1]
            target = last.recipient
            if target is None or not target.startswith("browser."):
                raise ValueError("no tool call found")


        def check_filled(make, first, second):
            box = make()
            box.put(first)
            box.put(second)
            assert box.items == [1, 2], "box holds the wrong items"


        def check_rule(rules):
            if not rules:
                return
            rule = rules[0]
            if rule == "tse":
                assert len(rules) == 4, "tse takes four values"
            return target


        _MISSING = object()


        def rope_theta_of(config, is_mova):
            rope = getattr(config, "rope", _MISSING)
            if rope is not _MISSING and rope is not None:
                theta = rope.get("theta", _MISSING)
                if theta is _MISSING:
                    if is_mova:
                        raise ValueError("rope needs a theta")


        def normalize_layers(layer_ids, num_layers):
            if layer_ids is None:
                return list(range(num_layers))
            normalized = [int(layer_id) for layer_id in layer_ids]
            for layer_id in normalized:
                assert 0 <= layer_id < num_layers, "layer out of range"
            return normalized


        class PostError(RuntimeError):
            pass


        class Poster:
            def _post(self, handle, msg):
                state = self.agent.check(handle)
                if state == "ERR":
                    raise PostError(msg)

            def send(self, handle, size, need):
                if size < need:
                    return None
                self._post(handle, "bulk transfer failed to post")
                return handle


        def resolve(tokenizer, token):
            token_id = tokenizer.convert(token)
            unk_id = tokenizer.unk_token_id
            if token_id is None or (unk_id is not None and token_id == unk_id):
                raise ValueError(f"token {token!r} did not resolve")
            return token_id


        def ring(opts):
            if (opts.get("ring") or 1) > 1:
                raise ValueError("ring parallelism is not supported")


        def render(messages, multimodal):
            images = []
            prompt = encode(messages, images=images)
            if prompt is not None and images and not multimodal:
                raise ValueError("image input is not supported")


        def targets_of(patches):
            loras = {"target": [], "path": []}
            for patch in patches:
                loras["target"].append(patch)
            targets = set(loras["target"])
            if "all" in targets and len(targets) > 1:
                raise ValueError("mixed lora targets")


        def admit(n, name):
            if n < 0:
                raise ValueError("n must not be negative")
            if not name:
                raise ValueError("name is required")


        class Settings:
            def __post_init__(self):
                if self.size < 1:
                    raise ValueError("size must be at least 1")

            def __setattr__(self, name, value):
                if getattr(self, "_frozen", False):
                    raise AttributeError(f"settings.{name} is frozen -- declare it with declare(settings, name)")
                object.__setattr__(self, name, value)

            def __getitem__(self, key):
                if key not in self.table:
                    raise KeyError(f"no setting {key}")
                return self.table[key]


        def attn_backend(runner):
            if runner.model_config.hf_text_config is not None and runner.model_config.hf_text_config.kind == "dots":
                return None
            if isinstance(runner.model_config.mamba2, ShortConvConfig):
                if is_npu():
                    raise NotImplementedError("short conv models are not supported on NPU")


        class Plan:
            @classmethod
            def from_spec(cls, spec):
                if spec.size < 1:
                    raise ValueError("plan size must be positive")
                return cls()


        def parse_count(text):
            try:
                if not text:
                    raise ValueError("empty count text")
                n = int(text)
            except ValueError as exc:
                raise AssertionError(f"bad count {text}") from exc
            return n


        def warm(x):
            try:
                if x < 0:
                    raise RuntimeError("negative warmup")
            except Exception:
                log("warmup failed")


        class Frozen:
            def __setattr__(self, name, value):
                raise AttributeError(f"Frozen.{name} cannot be set: the value is invalid here")
        """,
    "app/waits.py": """
        import time


        def wait_ready(probe, timeout):
            start = time.perf_counter()
            while not probe():
                if time.perf_counter() - start > timeout:
                    raise TimeoutError(f"not ready after {timeout}s")
                time.sleep(0.1)


        def check_elapsed(start, timeout):
            elapsed = time.time() - start
            if elapsed > timeout:
                raise TimeoutError("took too long")
        """,
    "tests/test_core.py": """
        from app.core import configure


        def test_configure():
            count = 0
            width = configure(["a"], 1)
            assert width == 1
            assert count == 2


        def make_grid(n):
            assert n % 2 == 0, f"grid size {n} must be even"
            return [[0] * n for _ in range(n)]


        def test_configure_rejects_zero():
            try:
                configure([], 0)
            except ValueError:
                pass
            else:
                raise AssertionError("configure accepted a zero width")
        """,
}


@pytest.fixture(scope="module")
def recs(tmp_path_factory) -> dict[str, dict]:
    db = index_sources(tmp_path_factory.mktemp("claims"), FILES, "o/claims")
    with Store.open(db, readonly=True) as store:
        return {(r["errorMessage"] or r["errdex"]["condition"]): r for r in store.iter_records(limit=100)}


def _texts(r: dict) -> str:
    parts = [r.get("documentation") or "", r.get("triggerScenarios") or "", r.get("commonSituations") or ""]
    return "\n".join(parts + (r.get("solutions") or []) + (r.get("preventionTips") or []))


def test_entry_point_advice_only_for_another_function(recs):
    public = recs["tools are required when limit is {limit}"]   # configure is its own entry point
    assert public["errdex"]["entryPoints"] == ["app.core.configure"]
    assert not any("entry point" in s for s in public["solutions"])
    private = recs["m too large"]                                # reached through outer
    assert any("entry point `app.core.outer` on" in s for s in private["solutions"])


def test_values_listed_only_when_the_own_test_reads_them(recs):
    r = recs["tools are required when limit is {limit}"]
    # `limit = size * 2` feeds only the earlier guard `limit > 8`, not the test `not tools`.
    assert "limit = size * 2" in r["errdex"]["feeding"]
    assert "Values it depends on" not in r["documentation"]
    assert not any("size * 2" in t for t in r["preventionTips"])


def test_truthiness_in_words_and_code(recs):
    r = recs["function tools need a name"]
    assert "`self.name` is falsy" in r["documentation"]
    assert r["solutions"][0].startswith("Make sure `self.name` is truthy")
    assert r["validationCode"].splitlines()[-1] == "    assert self.name"
    assert describe(parse_condition("not list(p.iterdir())").own) == \
        "`list(p.iterdir())` is falsy (`bool(list(p.iterdir()))` is False)"
    assert parse_condition("(a and b)").neg == "not a or not b"


@pytest.mark.parametrize("condition, said", [
    ('"fp8" not in name', '`name` does not contain `"fp8"`'),          # a substring test (review 19)
    ('"fp8" in name', '`name` contains `"fp8"`'),
    ("mode not in SUPPORTED", "`mode` is not in `SUPPORTED`"),           # a container of unknown kind
    ("mode in ('a', 'b')", "`mode` is one of `('a', 'b')`"),
])
def test_in_reads_as_membership_only_for_a_list_of_values(condition, said):
    assert describe(parse_condition(condition).own) == said


def test_an_and_inside_an_or_reads_as_one_group():
    """`a or (b and c)` in words must not read as "a, or b, and c" (which reads as `(a or b) and c`)."""
    said = describe(parse_condition("r is None or (not r.startswith('x') and not r.startswith('y'))").own)
    assert said == ("`r` is `None`, or (`r.startswith('x')` is False and `r.startswith('y')` is False)")
    said = describe(parse_condition("k or (n > 3 and (m is None or m < 0))").own)
    assert said == "`k` is truthy, or (`n` is greater than `3` and (`m` is `None` or `m` is less than `0`))"


def test_a_loop_fall_through_reads_as_every_element():
    """`all(t for x in xs)`, what a loop that leaves on `t` failing falls through on, in words."""
    said = describe(parse_condition("all(not isinstance(v, int) for v in values)").own)
    assert said == "`v` is not an instance of `int`, for every `v` in `values`"
    said = describe(parse_condition("any(d() is not None for d in plugins.values())").own)
    assert said == "`d()` is not `None`, for some `d` in `plugins.values()`"
    said = describe(parse_condition("all(x > 0 for x in xs if x)").own)   # a filtered one stays code
    assert said == "`all(x > 0 for x in xs if x)` holds"


def test_a_nested_test_is_not_read_as_bounds():
    """`t is None or (u is not None and t == u)`: two literal bounds for two parts, but not one per
    part; "keep t is not None and u is None" would forbid `u = 3, t = 4`, which the code accepts."""
    cond = parse_condition("t is None or (u is not None and t == u)")
    f = SiteFacts("m.f", "f", "ValueError", cond, True, None, {}, [], [], [], "input-validation",
                  "exception", False)
    f.neg, f.said = cond.neg, describe(cond.own)
    sols = solutions(f)[0]
    assert sols[0] == "Make sure `t is not None and (u is None or t != u)` holds where `f` checks it."


def test_a_bound_on_an_or_keeps_its_brackets():
    cond = parse_condition("(degree or 1) > 1")
    f = SiteFacts("m.f", "f", "ValueError", cond, True, None, {}, [], [], [], "input-validation",
                  "exception", False)
    f.neg, f.said = cond.neg, describe(cond.own)
    assert solutions(f)[0][0] == "Keep `(degree or 1) <= 1` where `f` checks it."


def test_a_predicate_call_is_false_not_falsy():
    """A call that answers True or False is not "empty, zero or None"."""
    for test in ("issubclass(cls, Base)", "torch.equal(a, b)", "out.is_contiguous()", "path.exists()",
                 "self.has_lora(name)", "name.startswith('x')"):
        assert describe(parse_condition(f"not {test}").own) == f"`{test}` is False", test
    for test in ("list(p.iterdir())", "self.get(name)", "load(x)"):
        assert describe(parse_condition(f"not {test}").own).endswith(f"is falsy (`bool({test})` is False)"), test


def test_no_generic_catch_tip(recs):
    for r in recs.values():
        assert not any(t.startswith("Catch `") for t in r.get("preventionTips") or [])


def test_example_fix_names_the_earlier_checks(recs):
    fix = recs["name is required"]["exampleFix"]
    assert "raises ValueError when not name (once the earlier checks in it pass)" in fix
    ast.parse(fix)
    plain = recs["m too large"]["exampleFix"]
    assert "raises ValueError when m >= 64\n" in plain


def test_the_rest_of_the_own_path_is_not_an_earlier_check(recs):
    """`if a and b: raise`: `a` is part of the site's own path. Saying "after the earlier
    checks pass" and asserting `not b` alone would claim a raise where the code has none."""
    r = recs["function tools need a name"]
    assert r["documentation"].startswith("`app.core.Tool.register` raises `ValueError` when `self.name` is falsy"
                                         " (`bool(self.name)` is False), where `self.kind == 'function'` holds.")
    assert "earlier checks" not in _texts(r) + r["validationCode"] + r["exampleFix"]
    assert r["validationCode"].splitlines() == ["if self.kind == 'function':", "    assert self.name"]
    assert "raises ValueError when self.kind == 'function' and not self.name\n" in r["exampleFix"]
    # a real earlier check is still named as one, and the own test stands alone
    checked = recs["name is required"]
    assert checked["errdex"]["condition"] == "not n < 0 and not name"
    # review 23 #18: a few short earlier checks are named, not only pointed at
    assert "It is reached only where the earlier checks in the function let it through: `not n < 0`." \
        in checked["documentation"]
    assert checked["validationCode"].splitlines()[-1] == "assert name"


def test_an_or_test_after_its_path_keeps_its_parentheses(recs):
    r = recs["no item {i}"]
    assert "raises IndexError when items and (i is None or i >= len(items))\n" in r["exampleFix"]
    assert r["validationCode"].splitlines() == ["if items:", "    assert i is not None and i < len(items), (i,)"]


def _fails(code: str, names: dict) -> bool:
    """Whether the code fails its assert, run with `names` standing in for the module's own (the
    snippet's `from app.m import _MISSING` is left out when `_MISSING` is given: the test's sentinel
    is the one its values hold)."""
    kept = [line for line in code.splitlines()
            if not (line.startswith("from ") and line.rpartition(" import ")[2] in names)]
    try:
        exec("\n".join(kept), {}, dict(names))
    except AssertionError:
        return True
    return False


def test_validation_code_holds_exactly_where_the_site_does_not_raise(recs):
    """Run each generated check against the site's own condition on a grid of values."""
    grids = {
        "function tools need a name": [{"self": type("S", (), {"kind": k, "name": n})()}
                                       for k in ("function", "other") for n in ("", "x")],
        "no item {i}": [{"items": items, "i": i} for items in ([], [1, 2]) for i in (None, 0, 5)],
    }
    for message, grid in grids.items():
        r = recs[message]
        for names in grid:
            assert _fails(r["validationCode"], names) == bool(eval(r["errdex"]["condition"], {}, dict(names))), \
                (message, names)


def test_validation_code_assigns_every_name_it_reads_after_the_guards_it_needs(recs):
    """`target = last.recipient` needs `last = messages[-1]` too, and both run only past the early
    return (`messages[-1]` before `if messages:` would fail where the function returns)."""
    r = recs["no tool call found"]
    lines = r["validationCode"].splitlines()
    assert lines[-4:] == ["if messages:", "    last = messages[-1]", "    target = last.recipient",
                          '    assert target is not None and target.startswith("browser.")']
    for messages, expected in (([], False), ([type("M", (), {"recipient": None})()], True),
                               ([type("M", (), {"recipient": "browser.x"})()], False),
                               ([type("M", (), {"recipient": "python"})()], True)):
        assert _fails(r["validationCode"], {"messages": messages}) is expected, messages
    assert "`last = messages[-1]`" in r["documentation"]


def test_validation_code_runs_a_line_only_past_the_guards_before_it(recs):
    """Review 18 (validation_hook.py:399): `rule = rules[0]` read by the path's test `rule == "tse"`
    ran before `if rules`, so the check raised IndexError on `[]` and TypeError on None, values
    the function returns early for; the terms that read none of its names now go first."""
    r = recs["tse takes four values"]
    for rules, expected in (([], False), (None, False), (["tse", 1, 2, 3], False), (["tse", 1], True),
                            (["default"], False)):
        assert _fails(r["validationCode"], {"rules": rules}) is expected, rules
    assert r["validationCode"].splitlines()[-4:] == ["if rules:", "    rule = rules[0]", "    if rule == 'tse':",
                                                     "        assert len(rules) == 4"]


def test_validation_code_runs_a_loop_only_past_the_guards_before_it(recs):
    """Review 20 (expert_location.py:475): `normalized = [int(x) for x in layer_ids]` and the loop
    over it ran before `if layer_ids is not None`, so the check raised TypeError on None, the
    value the function returns early for."""
    r = recs["layer out of range"]
    assert r["validationCode"].splitlines()[-4:] == [
        "if layer_ids is not None:", "    normalized = [int(layer_id) for layer_id in layer_ids]",
        "    for layer_id in normalized:", "        assert layer_id >= 0 and layer_id < num_layers"]
    for layer_ids, expected in ((None, False), ([], False), ([0, 3], False), ([0, 4], True), (["-1"], True)):
        assert _fails(r["validationCode"], {"layer_ids": layer_ids, "num_layers": 4}) is expected, layer_ids


def test_validation_code_runs_a_line_under_the_test_on_what_a_line_before_made(recs):
    """Review 20 (xllm.py:347): `theta = rope.get(...)` runs in the source only under `if rope is
    not _MISSING and rope is not None`, on what `rope = getattr(...)` made; replayed before that
    test, it raised AttributeError on None and on the sentinel, where the function raises nothing.
    The identity tests go between the two lines (`rope.get` cannot change what `rope` is)."""
    r = recs["rope needs a theta"]
    assert r["validationCode"].splitlines()[-5:] == [
        'rope = getattr(config, "rope", _MISSING)', "if rope is not _MISSING and rope is not None:",
        '    theta = rope.get("theta", _MISSING)', "    if theta is _MISSING:", "        assert not is_mova"]
    missing = object()
    config = type("C", (), {})
    for rope, is_mova, expected in ((None, True, False), (missing, True, False), ({}, True, True), ({}, False, False),
                                    ({"theta": 1.0}, True, False)):
        config.rope = rope
        assert _fails(r["validationCode"], {"config": config, "is_mova": is_mova, "_MISSING": missing}) is expected, rope


def test_validation_code_replays_the_calls_that_fill_what_it_reads(recs):
    """Review 18 (test_wan_animate_2_config.py:1344): the check replayed `stage = make()` and read
    `stage.debugs` without the `stage.extract(inputs)` calls that fill it, so it always failed."""
    r = recs["box holds the wrong items"]
    assert r["errdex"]["feeding"] == ["box = make()", "box.put(first)", "box.put(second)"]
    assert r["validationCode"].splitlines()[-4:] == ["box = make()", "box.put(first)", "box.put(second)",
                                                     "assert box.items == [1, 2]"]

    class Box:
        def __init__(self):
            self.items = []

        def put(self, item):
            self.items.append(item)

    for first, second, expected in ((1, 2, False), (2, 1, True), (1, 1, True)):
        assert _fails(r["validationCode"], {"make": Box, "first": first, "second": second}) is expected


def test_a_container_filled_in_place_is_not_shown_as_its_initial_value(recs):
    """`loras = {"target": []}` then appends: showing that line would claim `targets` is empty."""
    r = recs["mixed lora targets"]
    assert "loras = " not in r["validationCode"] and "loras = " not in r["documentation"]
    assert 'targets = set(loras["target"])' in r["validationCode"]


def test_a_container_a_call_fills_is_not_shown_empty(recs):
    """`images = []` passed to `encode(..., images=images)`: shown, it would make the check read
    `if prompt is not None and []:`, which never runs the assert."""
    r = recs["image input is not supported"]
    assert "images = []" in r["errdex"]["feeding"]   # the fact: it dominates the site
    assert "images = []" not in r["validationCode"]
    assert r["validationCode"].splitlines()[-3:] == ["prompt = encode(messages, images=images)",
                                                     "if prompt is not None and images:",
                                                     "    assert multimodal"]


def _asserted(validation_code: str) -> str:
    return validation_code.splitlines()[-1].strip()[len("assert "):].rsplit(", (", 1)[0]


def _passes(validation_code: str) -> str:
    """What the validation code checks, path included: `not (path) or (asserted)` under an `if`."""
    lines = validation_code.splitlines()
    depth = len(lines[-1]) - len(lines[-1].lstrip())
    path = [line.strip()[3:-1] for line in lines[:-1]
            if line.strip().startswith("if ") and len(line) - len(line.lstrip()) == depth - 4]
    asserted = _asserted(validation_code)
    return f"not ({path[-1]}) or ({asserted})" if path else asserted


def test_every_keep_and_guard_says_what_the_validation_code_asserts(recs):
    """A "Keep ..." solution and the example fix's guard must mean the validation code's assert:
    compared by evaluation (found wrong on sglang pages: nested bounds flattened, `x or 1 <= 1`)."""
    checked = 0
    for r in recs.values():
        if not r.get("validationCode"):
            continue
        asserted = _asserted(r["validationCode"])
        keep = re.match(r"^Keep (at least one of )?(.*) where `", (r["solutions"] or [""])[0])
        claims = []
        if keep:
            parts = re.findall(r"`([^`]+)`", keep.group(2))
            claims.append((" or " if keep.group(1) else " and ").join(f"({p})" for p in parts))
        guard = [line[3:].rstrip(":") for line in (r.get("exampleFix") or "").splitlines() if line.startswith("if ")]
        # the guard writes a local's plain value for its name (`with_values`): so is the check it is held to
        passes = with_values(_passes(r["validationCode"]), r["errdex"]["feeding"])
        claims = [(claim, asserted) for claim in claims] + [(claim, passes) for claim in guard[:1]]
        for claim, meant in claims:
            bad, compared = mismatches(claim, meant)
            assert not bad, (r["errorMessage"], claim, meant, bad[:2])
            checked += bool(compared)
    assert checked >= 10
    assert recs["ring parallelism is not supported"]["solutions"][0].startswith("Keep `(opts.get(\"ring\") or 1) <= 1`")


def test_a_helper_whose_own_check_decides_is_named_not_the_call_path(recs):
    """The call is made whenever `size >= need`; `_post` raises when its own `state == 'ERR'`. Advice to
    keep `size < need` would only skip the call: the helper's check is what to look into."""
    r = recs["bulk transfer failed to post"]
    assert r["errdex"]["helper"].endswith("Poster._post")
    assert "_post's own check holds" in r["errdex"]["conditionReason"]
    assert r["documentation"].startswith("`app.core.Poster.send` raises `PostError` through `_post`, when that"
                                         " helper's own check holds (`state == 'ERR'`")
    assert r["solutions"][0].startswith("Find why `_post`'s own check (`state == 'ERR'`) holds")
    assert not any("size < need" in s for s in r["solutions"])
    assert not r.get("validationCode") and not r.get("exampleFix")


def test_a_helper_in_test_code_checks_its_inputs(recs):
    """`make_grid` lives in a test file but is no test: its assert rejects an input, like any check."""
    r = recs["grid size {n} must be even"]
    assert r["errdex"]["test"]
    assert "The test" not in _texts(r)
    assert r["solutions"][0] == "Keep `n % 2 == 0` where `make_grid` checks it."
    # a guard skipping the helper where its check fails would hide the bug the test is there to find
    assert r["exampleFix"] is None


def test_test_assertion_gets_test_advice(recs):
    r = recs["width == 1 and count != 2"]
    assert r["errdex"]["test"]
    # reached only where `configure` (which raises itself) did not raise: not exact
    assert r["errdex"]["raisedFirstBy"] == [{"call": "configure", "line": 7, "function": "app.core.configure"}]
    assert r["solutions"] == ["The test expects `count == 2` (approximately): find which change in the code it "
                              "exercises broke that."]
    assert r["commonSituations"].startswith("The test `test_configure` expects `count == 2`")
    assert not r.get("tryCatchPattern") and not r.get("exampleFix") and not r.get("preventionTips")
    # the feeding line is shown with a comment saying the statements between are left out
    lines = r["validationCode"].splitlines()
    assert lines[-2:] == ["count = 0", "assert count == 2"]
    assert any("left out" in line for line in lines)


def test_every_number_in_the_prose_comes_from_the_code(recs):
    for r in recs.values():
        ex = r["errdex"]
        source = " ".join([ex["condition"] or "", r["errorMessage"] or "", *ex["feeding"], *ex["entryPoints"],
                           ex["function"], r["filePath"], str((ex.get("caughtBy") or {}).get("line", "")),
                           *(str(c["line"]) for c in ex.get("raisedFirstBy") or ())])
        for number in re.findall(r"(?<![\w.])\d+(?:\.\d+)?", _texts(r)):
            assert number in source, (number, r["errorMessage"])


@pytest.mark.parametrize("text", ["approximately", "always", "never"])
def test_exact_conditions_make_no_hedged_or_absolute_claims(recs, text):
    for r in recs.values():
        if r["errdex"]["conditionExact"]:
            assert not re.search(rf"\b{text}\b", _texts(r)), r["errorMessage"]   # "whenever" is no "never"


EXCEPT_FILES = {
    "app/__init__.py": "",
    "app/io.py": """
        import warnings


        def load():
            try:
                import foo_missing_pkg
            except ImportError:
                raise ImportError("foo is required: pip install foo")


        def fetch(api, key):
            try:
                value = api.get(key)
            except LookupError as e:
                if e.args[0] == 404:
                    raise RuntimeError(f"{key} not found")
                raise
            return value


        def old(flag):
            seen = None
            if flag and seen is None:
                warnings.warn("flag is deprecated", DeprecationWarning)


        warnings.warn("app.io is deprecated; use app.files instead.", DeprecationWarning)


        try:
            from bar_missing.core import Thing
        except ImportError:
            raise ImportError("bar is required: pip install bar")


        try:
            original = Engine.run
        except Exception as e:
            warnings.warn(f"engine patch failed: {e}")
        """,
    "app/ports.py": """
        from enum import Enum


        def load_port_or_none(text):
            try:
                port = int(text)
            except ValueError:
                return None
            if port < 1024:
                raise PermissionError(f"port {port} is privileged")
            return port


        def get_item(store, key):
            from fastapi import HTTPException
            try:
                return store.fetch(key)
            except OSError as exc:
                raise HTTPException(status_code=503, detail=f"store unavailable for {key}") from exc


        def check_requests(reqs):
            for req in reqs:
                if req.delimiters[0] < 0:
                    raise ValueError(f"bad delimiter in {req.rid}")


        def resolve(registry, arch, explicit, hint):
            try:
                return registry.resolve(arch)
            except Exception as exc:
                if explicit is not None and hint is None:
                    raise RuntimeError(f"cannot resolve {arch}") from exc


        def poll(session, url, proc):
            try:
                resp = session.get(url)
                if resp.status == 200:
                    return resp
            except OSError:
                pass
            if not proc.alive():
                raise RuntimeError("server died")


        class Color(Enum):
            RED = 1

            @classmethod
            def parse(cls, name):
                name = name.upper()
                try:
                    return cls[name]
                except KeyError as exc:
                    raise ValueError(f"unknown colour {name}") from exc
        """,
}


@pytest.fixture(scope="module")
def io_recs(tmp_path_factory) -> dict[str, dict]:
    return records_by_message(index_sources(tmp_path_factory.mktemp("io"), EXCEPT_FILES, "o/io"))


def test_except_around_an_import_names_the_import(io_recs):
    r = io_recs["foo is required: pip install foo"]
    assert r["errdex"]["condition"] == "raised(__import__('foo_missing_pkg'), ImportError)"
    assert r["errdex"]["conditionExact"]
    assert "`None`" not in _texts(r) and "__import__" not in r["documentation"]
    assert "importing `foo_missing_pkg` raised `ImportError`" in r["documentation"]
    assert r["solutions"][0].startswith("Fix the underlying failure first: importing `foo_missing_pkg` raised")
    assert "which Python chains to this one" in r["solutions"][0]
    # the message's own remedy is quoted, and replaces the generic "install the package the message names"
    assert r["solutions"][1:] == ['The message says what to do: "pip install foo"']


def test_module_level_code_raises_when_its_module_is_imported(io_recs):
    r = io_recs["bar is required: pip install bar"]
    assert r["errdex"]["function"] == "<module>"
    assert r["documentation"].startswith("Importing `app.io` raises `ImportError` when importing `bar_missing.core`"
                                         " raised `ImportError` (approximately: a name imported from a module"
                                         " may be what is missing).")
    assert r["triggerScenarios"].startswith("Importing `app.io` when importing `bar_missing.core` raised")
    assert "<module>" not in _texts(r)
    r = io_recs["app.io is deprecated; use app.files instead."]
    assert r["errdex"]["condition"] == "True"
    assert r["solutions"] == ['The message says what to do: "use app.files instead."']
    assert r["documentation"] == ("Importing `app.io` warns with `DeprecationWarning` when this line is reached.")


def test_except_without_a_call_names_no_call(io_recs):
    """A try block of an attribute read: its first expression is no call, so it is not named as a
    call and the condition says it is approximate."""
    r = io_recs["engine patch failed: {e}"]
    # The module goes on past the guarded import above only when it did not fail (its handler raises).
    assert r["errdex"]["condition"] == "not raised(__import__('bar_missing.core'), ImportError) and raised(Engine.run, Exception)"
    assert r["errdex"]["guard"] == "raised(Engine.run, Exception)"
    assert not r["errdex"]["conditionExact"]
    assert r["errdex"]["conditionReason"] == "a name imported from a module may be what is missing; the `try` body makes no call to name as the failure"
    assert "evaluating `Engine.run` raised `Exception`" in r["documentation"]
    assert "the call `Engine.run`" not in _texts(r)
    # review 16 P4: the documentation gives the reason; the other fields only mark the caveat
    reason = r["errdex"]["conditionReason"]
    assert f"(approximately: {reason})" in r["documentation"]
    assert r["triggerScenarios"].endswith(" (approximately).") and reason not in r["triggerScenarios"]
    assert not any(reason in s for s in r["solutions"])


def test_except_with_a_further_check_names_the_failure(io_recs):
    r = io_recs["{key} not found"]
    assert r["errdex"]["condition"].startswith("raised(api.get(key), LookupError) and ")
    assert "It re-reports a failure: the call `api.get(key)` raised `LookupError`." in r["documentation"]
    assert r["solutions"][0].startswith("Fix the underlying failure first: the call `api.get(key)`")
    assert not any("Read the check" in s for s in r["solutions"])


def test_a_warning_has_no_example_fix_and_initial_values_are_not_derived(io_recs):
    r = io_recs["flag is deprecated"]
    assert r["exampleFix"] is None   # the call goes on after warning: a guard skipping it skips its work
    assert "warns with `DeprecationWarning` when" in r["documentation"]
    assert not any("derived value" in t for t in r["preventionTips"])   # `seen = None` is an initial value


def _facts(text: str, exact: bool, reason: str | None = None, test: bool = False,
           entry_points: tuple[str, ...] = ()) -> SiteFacts:
    cond = parse_condition(text)
    f = SiteFacts("m.f", "f", "AssertionError", cond, exact, reason, {}, [], list(entry_points), [],
                  "internal-invariant", "assertion", test)
    f.neg, f.said = cond.neg, describe(cond.own)
    return f


def test_unreachable_only_claimed_when_exact():
    sure = _facts("False", True)
    assert "unreachable as written" in documentation(sure)
    assert trigger_scenarios(sure).startswith("None: no input reaches")
    unsure = _facts("False", False, NON_LITERAL_LOOP, test=True)
    doc = documentation(unsure)
    assert "unreachable" not in doc and "may still reach it" in doc and NON_LITERAL_LOOP in doc
    assert trigger_scenarios(unsure).startswith("None found: no path the analysis followed")
    assert "expects `True`" not in common_situations(unsure)
    assert "Read the check" not in solutions(unsure)[0][0]


def test_unconditional_raise_has_no_check_to_read():
    f = _facts("True", True)
    f.tag, f.error_class, f.error_type = "not-implemented", "NotImplementedError", "exception"
    sols = solutions(f)[0]
    assert sols == ["`f` raises here whenever this line is reached: use a class or option that implements it."]
    assert documentation(f) == "`m.f` raises `NotImplementedError` when this line is reached."
    f.tag, f.error_class, f.error_type = "deprecation", "DeprecationWarning", "warning"
    assert solutions(f)[0] == ["`f` warns here whenever this line is reached: take a path that does not reach it."]


def test_failure_found_in_an_earlier_conjunct_with_a_class_tuple():
    cond = parse_condition("raised(load(p), (AttributeError, ValueError)) and os.path.isfile(p) and cfg is None")
    from errdex.analyze.condexpr import raised_in
    assert raised_in(cond) == [("load(p)", "(AttributeError, ValueError)")]


@pytest.mark.parametrize("text", ["False", "True"])
def test_a_constant_condition_asks_for_no_check_at_the_entry_point(text):
    """An unreachable site, or one that raises whenever reached, has no check a caller could repeat."""
    sols, _ = solutions(_facts(text, True, entry_points=("m.api", "m.f")))
    assert sols and not any("entry point" in s for s in sols)
    sols, _ = solutions(_facts("n > 3", True, entry_points=("m.api", "m.f")))
    assert any(s.startswith("Check it before `f` is called") and "`m.api`" in s for s in sols)


def test_arithmetic_used_as_a_test_is_described_as_nonzero_or_zero():
    """`if n & (n - 1): raise` raises when the value is not zero: "holds" said nothing about a number."""
    assert describe(parse_condition("n & (n - 1)").own) == "`n & (n - 1)` is nonzero"
    assert describe(parse_condition("not (n % 8)").own) == "`n % 8` is zero"


def test_a_call_that_did_not_raise_is_said_and_assumed_not_tested(io_recs):
    """Past a try whose handler returns, the call did not raise: the prose says so, and the
    validation code (which cannot test it: the call returns or raises) states it as assumed."""
    r = io_recs["port {port} is privileged"]
    assert r["errdex"]["condition"] == "not raised(int(text), ValueError) and port < 1024"
    assert r["errdex"]["conditionExact"]
    assert "where the call `int(text)` did not raise `ValueError`" in r["documentation"]
    code = r["validationCode"]
    compile(code, "<validationCode>", "exec")
    assert "raised(" not in code and code.splitlines()[-1] == "assert port >= 1024, (port,)"
    assert "# assumes int(text) did not raise ValueError" in code
    assert r["solutions"][0] == "Keep `port >= 1024` where `load_port_or_none` checks it."


def test_an_enum_lookup_is_no_mapping_test(io_recs):
    """`cls[name]` on an Enum looks a member up by name, which `name in cls` does not test."""
    r = io_recs["unknown colour {name}"]
    assert r["errdex"]["condition"] == "raised(cls[name], KeyError)"
    assert not r["errdex"]["conditionExact"]


def test_a_failure_that_may_have_happened_is_no_except_site(io_recs):
    """Past a try that goes on both ways, `raised(...)` follows the way on in an `or`: the site re-reports no
    failure, so the prose names none and its own test is advised as for any check."""
    r = io_recs["server died"]
    assert r["errdex"]["condition"] == "(resp.status != 200 or raised(session.get(url), OSError)) and not proc.alive()"
    assert r["errdex"]["conditionExact"]
    assert "re-reports" not in _texts(r) and "underlying failure" not in _texts(r)
    assert r["solutions"][0] == "Make sure `proc.alive()` holds where `poll` checks it."


def test_an_except_sites_path_is_said_beside_its_failure(io_recs):
    """The handler's own test is said with the rest of its path; the failure has its own sentence."""
    r = io_recs["cannot resolve {arch}"]
    assert r["errdex"]["condition"] == "raised(registry.resolve(arch), Exception) and explicit is not None and hint is None"
    doc = r["documentation"]
    assert "when `hint` is `None`, where `explicit is not None` holds." in doc
    assert "It re-reports a failure: the call `registry.resolve(arch)` raised `Exception`." in doc


def test_a_check_inside_a_loop_says_which_pass(io_recs):
    """The loop's names have no assignment to show: the prose says the check is made in each pass
    of the loop, and which; the validation code runs it inside that loop, as the function does."""
    r = io_recs["bad delimiter in {req.rid}"]
    assert r["errdex"]["loops"] == ["for req in reqs"]
    assert "when `req.delimiters[0]` is less than `0`, in a pass of `for req in reqs`." in r["documentation"]
    code = r["validationCode"]
    assert code.splitlines()[1:] == ["for req in reqs:", "    assert req.delimiters[0] >= 0"]

    class Req:
        def __init__(self, first):
            self.delimiters = [first, 9]
    exec(code, {"reqs": [Req(0), Req(3)]})   # noqa: S102 - the generated check, run as a user would
    with pytest.raises(AssertionError):
        exec(code, {"reqs": [Req(0), Req(-1)]})   # noqa: S102
    r = io_recs["port {port} is privileged"]
    assert r["errdex"]["loops"] == [] and "in a pass of" not in _texts(r)


def test_an_http_error_s_cause_is_not_said_to_reach_the_client(io_recs):
    """An HTTP error raised in a handler: the chained cause stays in the server; the client sees
    only the detail."""
    r = io_recs["store unavailable for {key}"]
    assert r["errorType"] == "http" and r["httpStatus"] == 503
    assert "the HTTP response carries only this error's detail" in r["solutions"][0]
    assert "which Python chains to this one" not in _texts(r)


def test_a_special_method_is_reached_by_its_operation(recs):
    """Nobody calls `obj.__setattr__(...)`: the code fields write the operation that runs a special
    method and the prose names it; the fix the message states after a dash is quoted."""
    r = recs["settings.{name} is frozen -- declare it with declare(settings, name)"]
    assert r["triggerScenarios"].startswith("Assigning an attribute of a `Settings` (`")
    assert entry_call(r) == "setattr(obj, name, value)  # obj: Settings"
    assert "__setattr__(" not in r["exampleFix"]
    assert "A value that `Settings.__setattr__` checks" in r["commonSituations"]
    assert 'The message says what to do: "declare it with declare(settings, name)"' in r["solutions"]
    r = recs["size must be at least 1"]
    assert r["triggerScenarios"].startswith("Constructing a `Settings` (`")
    assert entry_call(r) == "Settings(...)"
    # a dataclass's fields are what its constructor is given: `self.size` is the `size=` passed
    assert r["exampleFix"].splitlines()[1].startswith("Settings(...)  # raises ValueError when size < 1")
    assert r["exampleFix"].splitlines()[3:5] == ["# names: the fields given to Settings(...)", "if size >= 1:"]
    r = recs["no setting {key}"]
    assert r["triggerScenarios"].startswith("Indexing a `Settings` (`")
    assert entry_call(r) == "obj[key]  # obj: Settings"
    ast.parse(r["exampleFix"])


@pytest.mark.parametrize("test, words", [
    ("not len(prompt)", "`prompt` is empty"),
    ("len(prompt)", "`prompt` is not empty"),
    ("not seq_lens.is_cuda", "`seq_lens.is_cuda` is False"),
    ("cfg.enable_mixed_chunk", "`cfg.enable_mixed_chunk` is True"),
    ("not items", "`items` is falsy (`bool(items)` is False)"),
])
def test_a_flag_or_a_length_is_said_as_what_it_can_be(test, words):
    """`len(x)` is never None or False, and `x.is_cuda` is a flag: no hedge over kinds of value they never hold."""
    assert describe(parse_condition(test).own) == words


def test_a_raise_with_no_check_before_it_is_not_said_to_reject_a_value(recs):
    """`__setattr__` of a read-only class raises on every assignment: no value is checked, so no
    'value that it checks and rejects' and no 'fix the inputs at the caller'."""
    r = recs["Frozen.{name} cannot be set: the value is invalid here"]
    assert r["errdex"]["condition"] == "True" and r["backgroundTag"] == "input-validation"
    assert r["commonSituations"].startswith("Any run of `Frozen.__setattr__` that reaches this line: it raises every time")
    assert r["handlingStrategy"] == "propagate" and not r.get("tryCatchPattern")


def test_a_long_path_names_its_nearest_tests(recs):
    """A path too long to say whole still says its innermost tests (the short-conv model), which
    decide: 'once the conditions ahead of it on its path hold' alone read as if every NPU run failed."""
    r = recs["short conv models are not supported on NPU"]
    assert ("when `is_npu()` holds, where `isinstance(runner.model_config.mamba2, ShortConvConfig)` holds, "
            "among other conditions on its path.") in r["documentation"]


def test_the_callers_guard_lets_through_every_call_off_the_sites_path(recs):
    """`if items and (i is None or ...)`: a caller guard of the own test alone would skip every
    call with no items, which never raises; the path's failing lets them through. A long path
    gives its tests nearest the site (still never letting a raising call through)."""
    fix = recs["no item {i}"]["exampleFix"].splitlines()
    assert fix[4] == "if not items or (i is not None and i < len(items)):"
    fix = recs["short conv models are not supported on NPU"]["exampleFix"].splitlines()
    assert fix[4] == ("if (runner.model_config.hf_text_config is not None and runner.model_config.hf_text_config.kind"
                      " == 'dots') or not isinstance(runner.model_config.mamba2, ShortConvConfig) or not is_npu():")


def test_a_long_path_gives_its_nearest_tests_or_its_last_one():
    """Past `_GUARD_PATH` characters the guard is off the path's nearest tests that fit in a
    line, or off its last test alone when even that is long: never its own test alone, which
    would turn away every call off the path."""
    from errdex.analyze.condexpr import parse_condition
    from errdex.analyze.fixes import off_path

    names = [f"option_number_{k}_of_the_config" for k in range(12)]
    long_test = " or ".join(f"{n} > {k}" for k, n in enumerate(names[:6]))
    context = " and ".join(f"{n} is not None" for n in names[6:]) + f" and ({long_test})"
    cond = parse_condition(f"{context} and x < 0", f"{context} and x < 0")
    assert len(cond.context) > 320
    assert off_path(cond) == f"not ({long_test}) or x >= 0"
    short_last = " and ".join(f"{n} is not None" for n in names) + " and flag"
    cond = parse_condition(f"{short_last} and x < 0", f"{short_last} and x < 0")
    assert off_path(cond).endswith("option_number_11_of_the_config is None or not flag or x >= 0")


def test_the_callers_guard_writes_a_locals_plain_value():
    """A caller has the function's arguments, not its locals: `n` bound once to `len(token_ids)`
    is written as that; a call's result or a name bound twice stays a name."""
    assert with_values("n == len(kv_indices)", ["n = len(token_ids)"]) == "len(token_ids) == len(kv_indices)"
    assert with_values("m > 3 and k", ["n = len(x)", "m = n + 1", "k = load(x)"]) == "len(x) + 1 > 3 and k"
    assert with_values("n == 1", ["n = 1", "n = len(y)"]) == "n == 1"


def test_a_class_method_is_called_on_its_class(recs):
    r = recs["plan size must be positive"]
    assert r["errdex"]["siteBinding"] == "class"
    assert entry_call(r) == "Plan.from_spec(...)"
    assert "Plan.from_spec(...)  # raises ValueError when spec.size < 1" in r["exampleFix"]


def test_an_error_its_own_function_catches_says_what_a_caller_sees(recs):
    """`raise ValueError` inside `try: ... except ValueError: raise AssertionError(...)` leaves the
    function as AssertionError; under `except Exception: log(...)` it does not leave at all."""
    r = recs["empty count text"]
    caught = r["errdex"]["caughtBy"]
    assert caught == {"line": r["lineNumber"] + 2, "handler": "except ValueError", "outcome": "converted",
                      "into": "AssertionError"}
    assert (f"It does not leave `parse_count` as `ValueError`: `except ValueError` at line {caught['line']} raises "
            "`AssertionError` instead.") in r["documentation"]
    assert "# raises AssertionError when" in r["exampleFix"]
    r = recs["negative warmup"]
    assert r["errdex"]["caughtBy"]["outcome"] == "handled" and not r.get("tryCatchPattern")
    assert "catches it and the function goes on" in r["documentation"]
    assert "caughtBy" not in recs["bad count {text}"]["errdex"]


def test_writing_a_value_in_never_copies_what_shared_nodes_hold(monkeypatch):
    """Every parsed tree shares one `Load` context object; a library that marks nodes with their
    parent (`executing`, behind rich tracebacks) leaves it holding a whole tree: a deep copy of a
    value followed it (a full-suite run hung in it). The value is parsed afresh instead."""
    import copy

    monkeypatch.setattr(copy, "deepcopy", lambda *a, **k: pytest.fail("a value was deep-copied"))
    load = ast.parse("x").body[0].value.ctx
    load.parent = ast.parse("\n".join(f"v{i} = [w{i}] * {i}" for i in range(300)))
    try:
        assert with_values("seq_lens.shape[0] == bs", ["seq_lens = meta.seq_lens_casual"]) == \
            "meta.seq_lens_casual.shape[0] == bs"
    finally:
        del load.parent


def test_a_raise_in_a_try_else_needs_the_call_to_go_through(recs):
    """Review 22 (#10, #12): `try: check(0) / except ValueError: pass / else: raise AssertionError`
    was told as raising every time; it raises when the call did not raise, which no code tests
    beforehand: no validationCode, no caller guard, and a solution that names the call."""
    r = recs["configure accepted a zero width"]
    assert r["errdex"]["condition"] == "not raised(configure([], 0), ValueError)"
    assert r["errdex"]["conditionExact"] is True
    assert "did not raise `ValueError`" in r["documentation"]
    assert r["solutions"][0].startswith("`test_configure_rejects_zero` expects the call `configure([], 0)` to raise"
                                        " `ValueError`, and it returned instead")
    assert r["validationCode"] is None and r["exampleFix"] is None
    assert not any("raised(" in tip for tip in r["preventionTips"])


@pytest.mark.parametrize("message", ["not ready after {timeout}s", "took too long"])
def test_a_test_of_elapsed_time_gets_no_check_to_run_beforehand(recs, message):
    """Review 23 #3: the replay set `start_time = time.perf_counter()` and compared at once, so it
    always passed; how long the function's own wait takes no code run before the call knows."""
    r = recs[message]
    assert r["validationCode"] is None and r["exampleFix"] is None


def test_entry_points_are_named_as_the_call_graph_shows_them_not_as_reaching_the_condition():
    """Review 25: "(reached from `X`) when C" read as X getting here when C, where X checks C first
    or takes another branch; the graph shows calls as written, and the words say so."""
    text = trigger_scenarios(_facts("n > 3", True, entry_points=("m.api", "m.f")))
    assert "reached from" not in text
    assert text.endswith(" Public functions that lead to it in the call graph (calls as written; their own"
                         " checks and branches are not followed): `m.api`.")
    sols, _ = solutions(_facts("n > 3", True, entry_points=("m.api", "m.f")))
    assert "Check it before `f` is called; its callers' own checks (from the entry point `m.api` on) are not" \
           " followed, and one may make it already." in sols


@pytest.mark.parametrize("text, words", [
    ("not (len(x) >= 16)", "`len(x)` is less than `16`"),
    ("not (t.dim() >= 2)", "`t.dim()` is less than `2`"),
    ("not (blk & (blk - 1) <= 3)", "`blk & (blk - 1)` is greater than `3`"),
    ("not (m <= 512)", "`m` is greater than `512` (or `m` is NaN)"),
    ("not (x.shape[0] < n)", "`x.shape[0]` is at least `n` (or one of them is NaN)"),
])
def test_a_negated_order_test_names_nan_only_where_a_float_may_reach_it(text, words):
    """Review 25 #22: "(or `blk_k` is NaN)" said of a count; a length, a rank or a bitwise result
    is an integer by its form, which no NaN can be."""
    assert describe(parse_condition(text).own) == words
