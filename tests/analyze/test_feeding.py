"""Feeding values: the dominating assignments that give a site's names their values."""

from __future__ import annotations

import pytest

from .analyze_support import site_path
from errdex.analyze import feeding_values, trigger_condition


def feed(source: str, names, site: int = 0) -> list[str]:
    func, path = site_path(source, site)
    return feeding_values(func, path, names)


def test_packed_decode_block_size():
    source = """
def decode(K, x):
    BK = triton.next_power_of_2(K)
    other = x * 2
    if triton.cdiv(K, BK) != 1:
        raise ValueError(f"Packed decode kernel only supports NK=1 (got K={K}, BK={BK}).")
"""
    func, path = site_path(source)
    cond = trigger_condition(func, path)
    assert feeding_values(func, path, {"K", "BK"} | {"triton"}) == ["BK = triton.next_power_of_2(K)"]
    assert cond.expr == "triton.cdiv(K, BK) != 1"


def test_transitive_in_source_order():
    assert feed("""
def f(x):
    a = g(x)
    unrelated = 5
    b = a + 1
    if b > 2:
        raise ValueError
""", {"b"}) == ["a = g(x)", "b = a + 1"]


def test_later_assignment_kills_earlier():
    assert feed("""
def f():
    n = 1
    n = g()
    if n:
        raise ValueError
""", {"n"}) == ["n = g()"]


def test_augmented_keeps_the_earlier_value():
    assert feed("""
def f(k):
    n = 1
    n += k
    if n > 3:
        raise ValueError
""", {"n"}) == ["n = 1", "n += k"]


def test_tuple_and_annotated_targets():
    assert feed("""
def f(x):
    q, r = divmod(x, 3)
    limit: int = q * 2
    if r > limit:
        raise ValueError
""", {"r", "limit"}) == ["q, r = divmod(x, 3)", "limit: int = q * 2"]


def test_a_short_branch_that_only_assigns_is_shown_whole():
    """`n = 5` in the branch may replace `n = 0`: both are shown, the `if` as one entry, and the
    slice goes on through it (to what its test and blocks read), so replaying them gives the site's `n`."""
    assert feed("""
def f(c, w):
    k = w.k
    n = 0
    if c:
        n = 5 + k
    else:
        n = w.n
    if n:
        raise ValueError
""", {"n"}) == ["k = w.k", "n = 0", "if c:\n    n = 5 + k\nelse:\n    n = w.n"]


@pytest.mark.parametrize("branch", [
    "    if c:\n        n = 5\n        return None",   # it leaves
    "    if c:\n        for x in c:\n            n += x",   # it loops
    "    if c:\n" + "        n += 1\n" * 6,   # too long to read as one entry
])
def test_other_branches_that_assign_end_the_slice(branch):
    """Such a branch is not shown: `n = 0` alone would claim the site reads it."""
    assert feed("def f(c):\n    n = 0\n" + branch + "\n    if n:\n        raise ValueError\n", {"n"}) == []


def test_a_value_set_in_a_try_or_loop_is_not_its_initial_value():
    assert feed("""
def f(url, items):
    info = None
    total = 0
    self.limit = 4
    try:
        info = fetch(url)
    except OSError:
        pass
    for item in items:
        total += item
    with lock:
        self.limit = 8
    if info.size > total or self.limit < 2:
        raise ValueError
""", {"info", "total", "self.limit"}) == ["self.limit = 8"]   # a `with` block runs to its end


def test_a_with_block_ran_to_its_end_unless_its_manager_may_swallow_an_error():
    """Review 19 pattern 3: `data = json.load(f)` inside `with open(p) as f:` feeds a check after
    the block; under `pytest.raises` or `suppress` the block may stop half-way."""
    assert feed("""
def f(path, limit):
    with open(path) as f:
        data = json.load(f)
    if len(data) > limit:
        raise ValueError
""", {"data", "limit"}) == ["with open(path) as f", "data = json.load(f)"]
    assert feed("""
def f(path, limit):
    data = []
    with contextlib.suppress(OSError):
        data = load(path)
    if len(data) > limit:
        raise ValueError
""", {"data", "limit"}) == []
    assert feed("""
def test_f(path):
    with pytest.raises(ValueError):
        out = load(path)
    if out:
        raise AssertionError
""", {"out"}) == []


def test_past_a_try_with_only_a_finally_block_its_body_ran():
    assert feed("""
def f(url, lock):
    lock.acquire()
    try:
        info = fetch(url)
    finally:
        lock.release()
    if info.size > 3:
        raise ValueError
""", {"info"}) == ["info = fetch(url)"]


def test_past_a_try_whose_handlers_all_leave_its_body_ran():
    """Falling past `try: ... except E: return`, the body, else and finally blocks ran to their ends."""
    assert feed("""
def f(url, cfg):
    info = None
    try:
        info = fetch(url)
        width = int(cfg.w)
    except (OSError, ValueError):
        return None
    else:
        size = info.size
    finally:
        done = True
    if size > width:
        raise ValueError
""", {"size", "width", "info"}) == ["info = fetch(url)", "width = int(cfg.w)", "size = info.size"]
    assert feed("""
def f(url):
    info = None
    try:
        info = fetch(url)
    except OSError:
        log("failed")
    if info.size > 3:
        raise ValueError
""", {"info"}) == []


def test_a_value_the_loop_body_assigns_again_is_not_its_value_before_the_loop():
    """From the second pass on, `total` is what the body left, not `total = 0`."""
    assert feed("""
def f(path, items, cap):
    total = 0
    scale = 2
    for item in items:
        n = total + item * scale
        if n > cap:
            raise ValueError
        total = n
""", {"n"}) == ["scale = 2", "for item in items", "n = total + item * scale"]


def test_a_branch_binding_other_names_keeps_the_slice():
    """Only the names a compound statement binds or changes in place end the slice."""
    assert feed("""
def f(c, d):
    n = len(d)
    q = load(d)
    if c:
        m = 5
        d["k"] = 1
        q["k"] = 2
        self.items.append(m)
    if n > q.get("k"):
        raise ValueError
""", {"n", "q"}) == ["n = len(d)", "q = load(d)"]   # `q` changed in place still comes from `load(d)`


def test_a_container_filled_in_a_loop_is_not_its_initial_value():
    """`found = {}` then `found[k] = v` in a loop: `found = {}` is not what `len(found)` reads."""
    assert feed("""
def f(items, names):
    found = {}
    seen = []
    for k, v in items:
        found[k] = v
        seen.append(k)
    if len(found) != len(names) or not seen:
        raise ValueError
""", {"found", "seen", "names"}) == []


def test_assignments_after_the_site_are_ignored():
    assert feed("""
def f(x):
    if x:
        raise ValueError(y)
    y = 3
""", {"y"}) == []


def test_parameters_are_not_assignments():
    assert feed("""
def f(n):
    if n > 3:
        raise ValueError
""", {"n"}) == []


def test_loop_target_with_as_and_except_as():
    source = """
def f(cells, path):
    with open(path) as fh:
        for c in cells:
            try:
                v = int(c)
            except ValueError as e:
                raise TypeError(f"{c} in {fh.name}: {e}")
"""
    assert feed(source, {"c", "fh", "e"}) == [
        "with open(path) as fh", "for c in cells", "except ValueError as e"]


def test_walrus_in_guard():
    assert feed("""
def f(text):
    if (m := pattern.match(text)) is None:
        return
    if m.end() > 3:
        raise ValueError
""", {"m"}) == ["(m := pattern.match(text))"]


def test_attribute_targets_follow_the_chain():
    assert feed("""
def f(self, n):
    self.size = n * 2
    self.other = 1
    if self.size > 10:
        raise ValueError
""", {"self.size"}) == ["self.size = n * 2"]


def test_placeholder_expressions_give_their_names():
    assert feed("""
def f(x):
    inp = x.reshape(-1)
    if inp.shape[-1] % 16:
        raise ValueError(f"The last dimension ({inp.shape[-1]})")
""", {"inp.shape[-1]"}) == ["inp = x.reshape(-1)"]


def test_inside_blocks_on_the_path():
    assert feed("""
def f(x):
    a = 1
    if x:
        b = a + 1
        for i in range(b):
            c = i * 2
            if c > 4:
                raise ValueError
""", {"c"}) == ["a = 1", "b = a + 1", "for i in range(b)", "c = i * 2"]


def test_at_most_eight_kept_closest_to_the_site():
    lines = "\n".join(f"    v{i} = v{i - 1} + 1" for i in range(1, 13))
    got = feed(f"def f(v0):\n{lines}\n    if v12:\n        raise ValueError\n", {"v12"})
    assert got == [f"v{i} = v{i - 1} + 1" for i in range(5, 13)]


def test_an_attribute_the_guard_reads_is_fed_through_a_call_that_may_change_it():
    """`self.group_size = ...` feeds `self.group_size == -1`; after `self.reload()` an attribute of
    `self` may hold anything: the call is shown after the assignments, so that code replaying the
    lines changes them as the function does (review 18: `stage = make()` replayed without the
    `stage.extract(inputs)` calls that fill what the check reads)."""
    source = """
def f(self, strategy, group_size, cfg):
    self.strategy = strategy
    self.group_size = -1 if group_size is None else group_size
    log.info("built")
    if self.group_size == -1 and self.strategy != "channel":
        raise ValueError
"""
    assert feed(source, {"self.group_size == -1 and self.strategy != 'channel'"}) == [
        "self.strategy = strategy", "self.group_size = -1 if group_size is None else group_size"]
    assert feed(source.replace('log.info("built")', "self.reload()"),
                {"self.group_size == -1 and self.strategy != 'channel'"}) == [
        "self.strategy = strategy", "self.group_size = -1 if group_size is None else group_size", "self.reload()"]
    # given to a call, `self` may be changed or only read (`configure_logger(args)`, more often): the
    # slice of what is inside it ends there, unshown
    assert feed(source.replace('log.info("built")', "helper(self)"),
                {"self.group_size == -1 and self.strategy != 'channel'"}) == []


def test_a_call_statement_that_fills_an_object_is_fed_with_what_it_reads():
    """The calls that fill `stage.debugs` and the values they are given are part of the slice; one
    that only asserts on `stage` changes nothing."""
    source = """
def test_audio(monkeypatch):
    stage = make_stage(monkeypatch, [])
    inputs = make_inputs(True)
    unrelated = 3
    stage.extract(inputs)
    stage.extract(inputs)
    stage.assert_called_once_with(inputs)
    assert stage.debugs == ["cannot decode"]
"""
    assert feed(source, {'stage.debugs == ["cannot decode"]'}) == [
        "stage = make_stage(monkeypatch, [])", "inputs = make_inputs(True)", "stage.extract(inputs)",
        "stage.extract(inputs)"]


def test_a_method_changing_an_object_read_whole_is_shown():
    """Review 19 pattern 2 (composed_pipeline_base.py:457): `model_index.pop(...)` before a check of
    `"vae" in model_index` changes what the check reads; replayed without it, the check tests the
    dict as loaded. A reading method (`count`) changes nothing and stays out."""
    assert feed("""
def f(path):
    index = load(path)
    index.pop("_class_name")
    print(index.count(3))
    if "vae" not in index:
        raise ValueError("no vae")
""", {"index"}) == ["index = load(path)", "index.pop('_class_name')"]


def test_a_bound_method_result_that_changes_the_object_read_is_shown():
    """Review 20 #25423: `put_ret = self.store.put(key, value)` writes the key that
    `self.store.is_exist(key)` then finds; replayed without it, the check always failed. Shown
    once, though both its binding and its call count."""
    assert feed("""
def warmup(self):
    key = make_key()
    put_ret = self.store.put(key, b"x")
    exist_ret = self.store.is_exist(key)
    if exist_ret != 1:
        raise RuntimeError
""", {"exist_ret"}) == ["key = make_key()", "put_ret = self.store.put(key, b'x')",
                        "exist_ret = self.store.is_exist(key)"]
    assert feed("""
def warmup(self):
    put_ret = self.store.put(key, b"x")
    if put_ret != 0 or self.store.size > 3:
        raise RuntimeError
""", {"put_ret", "self.store.size"}) == ["put_ret = self.store.put(key, b'x')"]


def test_a_value_computed_by_a_method_of_self_feeds_no_check_of_its_other_attributes():
    """Review 27 #19: `logits = self.gate(h)` computes a value; an assert on `self.shared.up` after
    it is not fed by it (a call of its own, `self.reload()`, still is shown: it may change them)."""
    source = """
def forward(self, h):
    logits = self.gate(h)
    out = self.experts(h, logits)
    assert uses_amx(self.shared.up) == uses_amx(self.shared.down)
"""
    assert feed(source, {"self.shared.up", "self.shared.down", "uses_amx"}) == []
    assert feed(source.replace("    out = self.experts(h, logits)\n", "    self.reload()\n"),
                {"self.shared.up", "self.shared.down", "uses_amx"}) == ["self.reload()"]


def test_a_statement_kept_twice_takes_one_place_of_the_cap():
    """Review 27 #17: a call's assignment kept for the name it binds and again for what its call may
    change counted twice towards `MAX_FEEDING`, and the first assignment the check reads was lost."""
    source = """
def grow(self, starts, ends, starts_cpu, ends_cpu, last, count):
    pages_a = pages_needed(ends=ends_cpu, size=self.size, starts=starts_cpu)
    pages_b = pages_needed(ends=ends_cpu // self.ratio, size=self.b_size, starts=starts_cpu // self.ratio)
    if pages_a > self.a.free() // self.size:
        return None
    if pages_b > self.b.free() // self.b_size:
        return None
    idx_a = self.a.grow(starts, starts_cpu, ends, ends_cpu, last, count)
    assert idx_a is not None, "a failed"
    packed = self.cache.pack(idx_a)
    last_b = self.last_of(last)
    idx_b = self.b.grow(starts // self.ratio, starts_cpu // self.ratio, ends // self.ratio, last_b, len(packed))
    assert idx_b is not None, "b failed"
"""
    func, path = site_path(source, 1)
    guard = trigger_condition(func, path).guard
    assert "pages_a" in guard
    fed = feeding_values(func, path, {guard})
    assert fed[0].startswith("pages_a = pages_needed(") and len(fed) == 6


def test_an_attributes_name_is_not_a_local_to_feed():
    """Review 29 #21: the check reads `spec.runtime_config`; a local `runtime_config = ...` before it
    feeds nothing the check reads."""
    source = """
def load(spec, params, direct):
    spec = resolve(params)
    runtime_config = params["quant_config"]
    if direct and spec.runtime_config is not None:
        raise ValueError("direct loading does not take a quant config")
"""
    assert feed(source, {"direct and spec.runtime_config is not None"}) == ["spec = resolve(params)"]
