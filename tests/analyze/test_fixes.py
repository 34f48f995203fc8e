"""The caller's guard of the example fix: locals written as their values, and what it cannot write so."""

from __future__ import annotations

import textwrap

import pytest

from errdex.analyze.fixes import over_loops, with_values
from errdex.pipeline import index_source
from errdex.store import Store
from tests.entry_code import entry_call


@pytest.mark.parametrize("guard, feeding, expected", [
    # unpacking: each name is its part of the value
    ("h % m == 0", ["t, h = q.shape[0], q.shape[1]"], "q.shape[1] % m == 0"),
    ("n % 8 == 0", ["b, n = x.shape"], "x.shape[1] % 8 == 0"),
    ("n > 0", ["b, *n = x.shape"], "n > 0"),   # starred: not one value per name
    # a local named like the attribute it reads is no self-reference
    ("isinstance(spec_info, dict)", ["spec_info = batch.spec_info"], "isinstance(batch.spec_info, dict)"),
    ("n > 0", ["n = n + 1"], "n + 1 > 0"),   # a parameter changed once from itself: over the argument
    ("n > 0", ["n = n + 1", "for x in xs"], "n > 0"),   # ... but not where a loop may run it again
    # a branch that may rebind the name: its value depends on the path
    ("s.shape == (n, 2)", ["s = w.scale", "if s.ndim == 1:\n    s = s[:, None]"], "s.shape == (n, 2)"),
])
def test_locals_written_as_their_values(guard, feeding, expected):
    assert with_values(guard, feeding) == expected


def test_a_loop_headers_locals_are_written_as_values_but_not_into_the_loop():
    feeding = ["bs = len(recv.rids)", "for i in range(bs)", "rid = recv.rids[i]"]
    guard = over_loops(with_values("rid is not None", feeding), ["for i in range(bs)"])
    assert with_values(guard, feeding) == "all(recv.rids[i] is not None for i in range(len(recv.rids)))"
    # `m` read before the loop that binds `x`: inside `all(... for x in xs)` `x` would be the loop's
    feeding = ["m = len(x)", "for x in xs"]
    assert with_values("all(x.n < m for x in xs)", feeding) == "all(x.n < m for x in xs)"


def _records(tmp_path, source: str) -> dict[str, dict]:
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "mod.py").write_text(textwrap.dedent(source))
    index_source(str(tmp_path / "src"), tmp_path / "e.db", jobs=1, repo="o/fixes", version="1")
    with Store.open(tmp_path / "e.db", readonly=True) as store:
        return {r["errorMessage"]: r for r in store.iter_records(limit=100)}


def test_a_branch_rebinding_the_tested_name_is_replayed(tmp_path):
    """`s` may be rebound by a short `if`: the validation code and the caller's guard replay the
    lines (the `if` whole) and so read what the site reads; both run."""
    recs = _records(tmp_path, """
        def pairs(w, n):
            s = w.scale
            if s.ndim == 1:
                s = s[:, None].expand(-1, 2)
            if s.shape != (n, 2):
                raise ValueError("one pair per expert")
            return s
        """)
    r = recs["one pair per expert"]
    lines = ["s = w.scale", "if s.ndim == 1:", "    s = s[:, None].expand(-1, 2)"]
    assert r["errdex"]["feeding"] == ["s = w.scale", "if s.ndim == 1:\n    s = s[:, None].expand(-1, 2)"]
    assert r["validationCode"].splitlines()[1:] == [*lines, "assert s.shape == (n, 2)"]
    assert r["exampleFix"].splitlines()[4:8] == [*lines, "if s.shape == (n, 2):"]
    assert "`if s.ndim == 1: s = s[:, None].expand(-1, 2)`" in r["documentation"]

    class Scale:   # the code runs: an input of each kind
        def __init__(self, shape):
            self.ndim, self.shape = len(shape), shape

        def __getitem__(self, key):
            return self

        def expand(self, *sizes):
            return Scale((self.shape[0], 2))

    for scale, n, fails in ((Scale((4,)), 4, False), (Scale((4, 2)), 4, False), (Scale((3,)), 4, True)):
        env = {"w": type("W", (), {"scale": scale})(), "n": n}
        code = "\n".join(r["validationCode"].splitlines()[1:])
        if fails:
            with pytest.raises(AssertionError):
                exec(code, env)
        else:
            exec(code, env)


def test_an_error_its_own_function_handles_gets_no_callers_fix(tmp_path):
    recs = _records(tmp_path, """
        import logging

        def listen(sock):
            while True:
                try:
                    msg = sock.recv()
                    if not isinstance(msg, str):
                        raise ValueError("invalid message")
                except ValueError as e:
                    logging.warning("bad message: %s", e)

        def load(path):
            try:
                if not path:
                    raise KeyError("no path")
            except KeyError as e:
                raise RuntimeError("cannot load") from e
        """)
    handled = recs["invalid message"]
    assert handled["errdex"]["caughtBy"]["outcome"] == "handled"
    assert handled["exampleFix"] is None and handled["tryCatchPattern"] is None
    assert handled["validationCode"]   # when the raise runs is still a fact worth checking
    converted = recs["no path"]
    assert "raises RuntimeError when not path" in converted["exampleFix"]


def test_code_runs_a_generator_awaits_a_coroutine_and_reaches_a_closure_through_its_owner(tmp_path):
    """A generator's body, and so its raise, runs only as it is consumed: the code fields consume
    it; a coroutine is awaited; a function defined inside another is reached through the one that
    calls it by its bare name, and no caller guard is written for it."""
    recs = _records(tmp_path, """
        class Loader:
            def load(self, weights):
                for name, w in weights:
                    if not name:
                        raise ValueError("empty name")
                    yield name, w


        async def fetch(url):
            if not url:
                raise ValueError("no url")
            return url


        async def stream(url):
            if not url:
                raise ValueError("no stream url")
            yield url


        def remap(weights):
            def mapped():
                for name, w in weights:
                    if not name.startswith("mtp."):
                        raise KeyError("unexpected weight")
                    yield name, w
            return dict(mapped())
        """)
    gen = recs["empty name"]
    assert gen["errdex"]["siteRuns"] == "generator" and "siteBinding" not in gen["errdex"]
    assert entry_call(gen) == "list(obj.load(...))  # obj: Loader"
    assert gen["exampleFix"].splitlines()[1] == "list(obj.load(...))  # raises ValueError when not name"
    assert entry_call(recs["no url"]) == "await fetch(...)"
    assert entry_call(recs["no stream url"]) == "[item async for item in stream(...)]"
    closure = recs["unexpected weight"]
    assert closure["errdex"]["entryPoints"] == ["pkg.mod.remap"]
    assert closure["errdex"]["callers"] == ["pkg.mod.remap"]
    assert entry_call(closure) == "remap(...)"
    assert closure["exampleFix"] is None and closure["validationCode"]


def test_a_type_dispatch_accepts_every_type_its_branches_take(tmp_path):
    """`if isinstance(img, str): ...; if isinstance(img, bytes): ...; raise`: the last test alone is not
    the requirement. The typeGuard accepts every handled type and the solution names them; where the
    branches test pairs, no single-type guard is claimed and the solution is the whole path failing."""
    recs = _records(tmp_path, """
        def size(img):
            if isinstance(img, str):
                return len(img)
            if isinstance(img, (bytes, bytearray)):
                return 0
            if not isinstance(img, memoryview):
                raise TypeError("unsupported image")
            return img.nbytes


        def copy(out, buf):
            if isinstance(out, int) and isinstance(buf, int):
                return
            if not isinstance(out, list) or not isinstance(buf, list):
                raise TypeError("unsupported pair")
        """)
    r = recs["unsupported image"]
    guard = r["typeGuard"]
    assert "TypeGuard[str | bytes | bytearray | memoryview]" in guard
    scope = {}
    exec(guard, scope)
    is_valid = scope["is_valid_img"]
    assert all(is_valid(v) for v in ("a", b"a", bytearray(), memoryview(b""))) and not is_valid(1)
    assert r["solutions"][0] == "Pass `img` as one of the types `size` handles: `str`, `bytes`, `bytearray`, `memoryview`."
    pair = recs["unsupported pair"]
    assert pair["typeGuard"] is None
    assert pair["solutions"][0] == ("Make sure `isinstance(out, int) and isinstance(buf, int) or (isinstance(out, list)"
                                    " and isinstance(buf, list))` holds where `copy` checks it.")


def test_a_flag_that_excuses_the_rest_of_the_path_is_not_advised_to_flip(tmp_path):
    """`if end % n != 0 and not is_final_stage: raise`: setting the flag would silence the check
    on a stage it describes wrongly; the advice is the whole path failing. A value that must be
    given (`not self.name`) is still advised as such."""
    recs = _records(tmp_path, """
        def chunks(start, end, n, is_final_stage):
            if end % n != 0 and not is_final_stage:
                raise ValueError("only the final stage may end short")
            return [start, end]


        class Tool:
            def validate(self):
                if self.kind == "function" and not self.name:
                    raise ValueError("function tools need a name")
        """)
    r = recs["only the final stage may end short"]
    assert r["solutions"][0] == "Make sure `end % n == 0 or is_final_stage` holds where `chunks` checks it."
    assert r["preventionTips"][0].startswith("Validate `end % n == 0 or is_final_stage` where")
    assert recs["function tools need a name"]["solutions"][0].startswith("Make sure `self.name` is truthy")


def test_an_input_the_function_changes_before_its_check_gets_no_caller_guard(tmp_path):
    """`d` filled by the function before `k not in d` is checked: a caller's `all(k in d ...)` would
    turn away exactly the calls it fills for. No caller guard; the validation code says it checks
    the value as the function leaves it. A change the code replays (`self.n = n`) needs no word,
    and a guard written over the argument itself (`n >= 0`) stays."""
    recs = _records(tmp_path, """
        def fill(d, keys):
            for k in keys:
                if k not in d:
                    d[k] = 0
            for k in keys:
                if k not in d:
                    raise RuntimeError("evicted")


        class Counter:
            def __init__(self, n):
                self.n = n
                if self.n < 0:
                    raise ValueError("negative")

            def bump(self):
                self.count += 1
                if self.count > 5:
                    raise RuntimeError("too many bumps")
        """)
    evicted = recs["evicted"]
    assert evicted["errdex"]["changedBefore"] == ["d"]
    assert evicted["exampleFix"] is None
    assert evicted["validationCode"].startswith("# pkg.mod.fill changes `d` before the check")
    bumped = recs["too many bumps"]
    assert bumped["errdex"]["changedBefore"] == ["self.count"] and bumped["exampleFix"] is None
    assert "changes" not in bumped["validationCode"]   # `self.count += 1` is replayed
    negative = recs["negative"]
    assert negative["errdex"]["changedBefore"] == ["self.n"]
    assert negative["exampleFix"].splitlines()[4] == "if n >= 0:"


def test_a_write_in_the_other_arm_of_an_if_changes_nothing_on_the_way(tmp_path):
    """`steps = len(sigmas)` in a sibling arm never runs on the way to the `else: raise` (review 14
    P4b), but on an earlier pass of a loop around the `if` it may; and a name the guard binds
    itself with a walrus is no earlier value (P4a)."""
    recs = _records(tmp_path, """
        def set_steps(steps=None, sigmas=None, timesteps=None):
            if steps is not None:
                if sigmas is not None and len(sigmas) != steps:
                    raise ValueError("sigmas must have steps entries")
            else:
                if sigmas is not None:
                    steps = len(sigmas)
                elif timesteps is not None:
                    steps = len(timesteps)
                else:
                    raise ValueError("steps, sigmas or timesteps must be given")
            return steps


        def drain(items, limit):
            for item in items:
                if item is None:
                    limit -= 1
                elif limit <= 0:
                    raise RuntimeError("over the limit")


        def build(field, allowed):
            if unknown := set(field) - allowed:
                raise ValueError(f"unknown keys {sorted(unknown)}")
            if "content" not in field:
                raise ValueError("no content")
        """)
    assert recs["steps, sigmas or timesteps must be given"]["errdex"].get("changedBefore") is None
    assert recs["over the limit"]["errdex"]["changedBefore"] == ["limit"]
    no_content = recs["no content"]["errdex"]
    assert no_content["conditionExact"] is True and no_content.get("conditionReason") is None


def test_code_enters_a_context_manager_and_applies_an_autograd_function(tmp_path):
    """`list(cm(...))` would raise TypeError: a `@contextmanager` runs as a `with` block enters; a
    torch.autograd.Function runs through `Cls.apply(...)`, never `Cls.forward(ctx, ...)`."""
    recs = _records(tmp_path, """
        import contextlib
        import torch


        @contextlib.contextmanager
        def staged(device):
            if device == "meta":
                raise ValueError("device cannot be meta")
            yield device


        class Fused(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                if k != 1:
                    raise ValueError("only k=1")
                return x
        """)
    staged = recs["device cannot be meta"]
    assert staged["errdex"]["siteRuns"] == "context"
    assert entry_call(staged) == "with staged(...): ..."
    fused = recs["only k=1"]
    assert entry_call(fused) == "Fused.apply(...)"
    assert fused["exampleFix"].splitlines()[1].startswith("Fused.apply(...)  # raises ValueError")


def test_caller_code_keeps_the_path_and_the_instance_apart(tmp_path):
    """Lines that only run on the site's path (after `if selected:`) are not run before the guard;
    a method's guard reads the instance the call names (`obj.page`), and a constructor's own state
    gets no caller guard. A file the code found missing is fixed, not retried."""
    recs = _records(tmp_path, """
        import os


        def resolve(registry):
            selected = os.environ.get("PLAT")
            if selected:
                result = registry[selected]()
                if result is None:
                    raise RuntimeError("plugin returned None")
                return result


        class Owner:
            def __init__(self, allocator):
                self.cache = allocator.get_cache()
                if not isinstance(self.cache, list):
                    raise ValueError("unsupported cache")

            def finalize(self, n):
                final = int(n)
                if final < self.page:
                    raise ValueError("too small")

            def load(self):
                if not os.path.isfile(self.path):
                    raise FileNotFoundError("source file is missing")
        """)
    # `result = registry[selected]()` runs only on the site's path: not run before a guard, and
    # a guard reading a local no caller has would not run at all
    assert recs["plugin returned None"]["exampleFix"] is None
    assert recs["unsupported cache"]["exampleFix"] is None
    assert recs["too small"]["exampleFix"].splitlines()[4] == "if int(n) >= obj.page:"
    assert recs["source file is missing"]["handlingStrategy"] == "fix-configuration"


def test_a_parameter_normalised_from_itself_is_guarded_as_passed(tmp_path):
    """`tp_size = int(tp_size)` once, no loop: the guard reads `int(tp_size)` over the caller's
    argument (and does not replay the line, which would apply it twice); a parameter changed twice,
    or in a loop, gets no caller guard."""
    recs = _records(tmp_path, """
        def setup_tp(tp_size, rank):
            tp_size = int(tp_size)
            if tp_size < 1:
                raise ValueError("TP>=1")


        def twice(n):
            n = n * 2
            n = n + 1
            if n > 9:
                raise ValueError("too big")


        def looped(xs, n):
            for x in xs:
                n = n - x
                if n < 0:
                    raise ValueError("negative")
        """)
    after = recs["TP>=1"]["exampleFix"].split("# after\n")[1].splitlines()
    assert after[1:3] == ["if int(tp_size) >= 1:", "    setup_tp(...)"]
    assert recs["too big"]["exampleFix"] is None and recs["negative"]["exampleFix"] is None


def test_a_caller_guard_repeats_the_reads_a_function_makes(tmp_path):
    """Review 14 P1: a local read from the environment, a mapping or a string's own view is written
    as that read (the caller can repeat it); a local from a call of the codebase's own function
    gives no guard (review 15 P4: it would read a name no caller has)."""
    recs = _records(tmp_path, """
        import os


        def list_nodes():
            return [[0, 1]]


        def bind(world_size, opts):
            mode = os.environ.get("BIND_MODE", "all")
            level = opts.get("level", 0)
            if mode == "all" and level > world_size:
                raise ValueError("level above the world size")
            nodes = list_nodes()
            if world_size > len(nodes):
                raise ValueError("more ranks than nodes")
        """)
    fix = recs["level above the world size"]["exampleFix"].split("# after\n")[1].splitlines()
    assert fix[1] == "import os"   # the module's import of what the guard reads
    assert fix[2] == "if os.environ.get('BIND_MODE', 'all') != 'all' or opts.get('level', 0) <= world_size:"
    # `nodes = list_nodes()` after an earlier check is not replayed (it could fail on calls that
    # check rejects), and a guard reading `nodes` unassigned would not run: no guard
    assert recs["more ranks than nodes"]["exampleFix"] is None


def test_a_starred_unpacking_is_written_from_the_end(tmp_path):
    """Review 15 P4: `*outer, top_k = topk_ids.shape` binds `top_k` to `topk_ids.shape[-1]`, which a
    caller can read; the check replays the lines."""
    recs = _records(tmp_path, """
        def make_inputs(topk_ids, topk_weights):
            *_outer, top_k = topk_ids.shape
            first, *_rest = topk_weights.shape
            if top_k != first:
                raise ValueError("top_k differs")
        """)
    r = recs["top_k differs"]
    assert r["exampleFix"].split("# after\n")[1].splitlines()[1] == "if topk_ids.shape[-1] == topk_weights.shape[0]:"
    assert r["validationCode"].splitlines()[-3:] == ["*_outer, top_k = topk_ids.shape",
                                                     "first, *_rest = topk_weights.shape", "assert top_k == first"]


def test_a_local_bound_in_a_try_gives_no_caller_guard(tmp_path):
    """Review 15 #12: `patch` is bound in a `try`/`except`, so no feeding line gives its value: a
    caller-side guard on it would read a name no caller has. The check code, which runs where
    the function's check runs, still reads it."""
    recs = _records(tmp_path, """
        def process(image, processor, grid):
            if isinstance(grid, str):
                try:
                    patch = processor.size[0]
                except Exception:
                    patch = processor.size["shortest_edge"]
                if patch not in (224, 336):
                    raise ValueError("patch size unsupported")
        """)
    r = recs["patch size unsupported"]
    assert r["errdex"]["unfedLocals"] == ["patch"]
    assert r["exampleFix"] is None
    assert r["validationCode"].splitlines()[-1] == "    assert patch == 224 or patch == 336"


def test_a_nested_unpacking_feeds_the_check(tmp_path):
    """Review 16 #8: `[(header, payload)] = unpack(raw)` binds `header`: the check code replays the
    line, and `header` is no local the feeding left out."""
    recs = _records(tmp_path, """
        def check_frames(raw, unpack):
            [(header, payload)] = unpack(raw)
            if header["bytes"] != 3000:
                raise ValueError("frame size differs")
        """)
    r = recs["frame size differs"]
    assert "unfedLocals" not in r["errdex"]
    assert r["validationCode"].splitlines()[-2:] == ["[(header, payload)] = unpack(raw)", 'assert header["bytes"] == 3000']


def test_an_attribute_named_like_a_later_local_is_no_unfed_local(tmp_path):
    """Review 18 (test_server_common.py:1593): `case.server_args.model_path` was read as the local
    `model_path` the function assigns after the site, and listed as a value to set."""
    recs = _records(tmp_path, """
        def check_model(case, model):
            expected = case.expected or case.server_args.model_path
            if model["id"] != expected:
                raise ValueError("model id mismatch")
            model_path = model["path"]
            return model_path
        """)
    r = recs["model id mismatch"]
    assert "unfedLocals" not in r["errdex"]
    assert "model_path" not in r["validationCode"].replace("case.server_args.model_path", "")


def test_an_attribute_the_check_does_not_read_is_not_named_as_changed(tmp_path):
    """Review 19 (serve_backends.py:100): `self._loaded = {}` was named as changed before a check
    that reads `self._builtins` only, because the check reads `self.<something>`."""
    recs = _records(tmp_path, """
        class Registry:
            def __init__(self, builtins, found):
                self._builtins = list(builtins)
                self._loaded = {}
                self._found = found
                reserved = set(self._builtins) & set(self._found)
                if reserved:
                    raise ValueError("reserved names taken")


        def check(cfg):
            cfg.n = 3
            validate(cfg)
            if not ok(cfg):
                raise ValueError("cfg rejected")
        """)
    taken = recs["reserved names taken"]
    assert taken["errdex"]["changedBefore"] == ["self._builtins", "self._found"]
    assert "self._loaded" not in taken["validationCode"]
    assert recs["cfg rejected"]["errdex"]["changedBefore"] == ["cfg.n"]   # `cfg` itself is read whole
