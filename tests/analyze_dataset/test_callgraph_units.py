"""Call graph depth and re-exports, module-level sites, and condition negation checked by evaluation."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from errdex.analyze.condexpr import negate_code, parse_condition, tail_conjuncts
from tests.entry_code import entry_call
from .sources import index_sources, records_by_message


def _index(tmp_path: Path, files: dict[str, str]) -> dict[str, dict]:
    return records_by_message(index_sources(tmp_path, files, "o/chain"))


def test_a_package_exporting_through_a_module_getattr_table_links_its_callers(tmp_path):
    """Review 22 #1: `from kern import topk as _topk` of a package whose `__getattr__` imports each
    name from the submodule its `_EXPORTS` table names (PEP 562) left the kernel with no caller."""
    recs = _index(tmp_path, {
        "kern/__init__.py": """
            from importlib import import_module

            _EXPORTS = {"topk": "routing.topk_impl", "scale": "kern.ops:scale_impl"}


            def __getattr__(name):
                module = _EXPORTS.get(name)
                if module is None:
                    raise AttributeError(name)
                return getattr(import_module(f"{__name__}.{module}"), name)
            """,
        "kern/routing/__init__.py": "",
        "kern/routing/topk_impl.py": """
            def topk(scores, k):
                if k > len(scores):
                    raise ValueError(f"k={k} above {len(scores)}")
                return sorted(scores)[-k:]
            """,
        "kern/ops.py": """
            def scale_impl(x, f):
                if f == 0:
                    raise ValueError("zero scale")
                return x * f
            """,
        "app/__init__.py": "",
        "app/router.py": """
            from kern import scale
            from kern import topk as _topk


            def route(scores, k):
                return _topk(scores, k)


            def rescale(x):
                return scale(x, 2)
            """,
    })
    assert recs["k={k} above {len(scores)}"]["errdex"]["callers"] == ["app.router.route"]
    assert recs["zero scale"]["errdex"]["callers"] == ["app.router.rescale"]


def test_a_name_in_a_docstring_comment_or_message_is_no_call(tmp_path):
    """Review 22 #5: the docstring "Eager reference for aggregate (materializes ...)" made the
    reference function a caller of `aggregate`, and an entry point of the kernel it reaches."""
    recs = _index(tmp_path, {
        "agg/__init__.py": "",
        "agg/core.py": """
            def kernel(x, addend=None, out=None):
                if addend is not None and out is None:
                    raise ValueError("addend requires out")
                return x


            def aggregate(x):
                return kernel(x, addend=1)


            def aggregate_reference(x):
                \"\"\"Eager reference for aggregate (materializes every row).\"\"\"
                # faster than aggregate(x) on CPU
                if x is None:
                    raise ValueError("call aggregate() first")
                return [x]


            def aggregate_fast(x):
                return kernel(x, addend=f"{aggregate(x)}")
            """,
    })
    r = recs["addend requires out"]
    assert r["errdex"]["callers"] == ["agg.core.aggregate", "agg.core.aggregate_fast"]
    assert "agg.core.aggregate_reference" not in r["errdex"]["entryPoints"]


def test_a_method_aliased_in_a_class_body_links_its_callers(tmp_path):
    """Review 22 #8: `forward = Base.forward` in a class body; `self.forward(...)` in the class's
    methods calls it, and the site in `Base.forward` had no caller."""
    recs = _index(tmp_path, {
        "back/__init__.py": "",
        "back/impl.py": """
            class Base:
                def forward(self, q, sink):
                    if q is not None and sink is None:
                        raise ValueError("prefill needs a sink")
                    return q


            class Radix:
                forward = Base.forward

                def run(self, q, sink):
                    return self.forward(q, sink)
            """,
    })
    assert recs["prefill needs a sink"]["errdex"]["callers"] == ["back.impl.Radix.run"]


def test_an_empty_caller_list_is_no_fact(tmp_path):
    """Review 23: `callers: []` marked as a fact for a function a registry calls; no resolved call
    is what the analysis knows, not that nothing calls it."""
    recs = _index(tmp_path, {
        "reg/__init__.py": "",
        "reg/hooks.py": """
            HOOKS = {}


            def on_load(x):
                if x < 0:
                    raise ValueError("negative load")


            def helper(x):
                if x > 9:
                    raise ValueError("too big")


            def run(x):
                HOOKS["load"] = on_load
                return helper(x)
            """,
    })
    hooked, called = recs["negative load"]["errdex"], recs["too big"]["errdex"]
    assert hooked["callers"] == [] and hooked["provenance"]["callers"] == "heuristic:no-static-caller"
    assert called["callers"] == ["reg.hooks.run"] and called["provenance"]["callers"] == "fact"


def test_entry_points_depth_reexport_and_module_level(tmp_path):
    recs = _index(tmp_path, {
        "chain/__init__.py": "from chain.deep import _f1 as top\n",
        "chain/deep.py": """
            def _f5(x):
                if x < 0:
                    raise ValueError(f"negative {x}")

            def _f4(x):
                return _f5(x)

            def _f3(x):
                return _f4(x)

            def _f2(x):
                return _f3(x)

            def _f1(x):
                return _f2(x)

            def near(x):
                return _f4(x)

            def far(x):
                return top_level(x)

            def top_level(x):
                return _f1(x)
            """,
        "chain/boot.py": """
            import sys
            if sys.version_info < (3, 8):
                raise RuntimeError("python too old")
            """,
    })
    r = recs["negative {x}"]
    assert r["errdex"]["callers"] == ["chain.deep._f4"]
    # near is 2 calls away; _f1 (public through the package __init__) is 4 away; top_level is 5 away
    # (beyond the depth), so neither it nor far appears.
    assert r["errdex"]["entryPoints"] == ["chain.deep.near", "chain.deep._f1"]
    assert any("Keep `x >= 0`" in s for s in r["solutions"])
    boot = recs["python too old"]
    assert boot["errdex"]["function"] == "<module>"
    assert entry_call(boot) == "import chain.boot"
    assert boot["exampleFix"] is None


def test_constructing_a_class_reaches_its_post_init(tmp_path):
    """`Item(...)` runs the dataclass's `__post_init__` (and an `__init__` when one is written):
    whoever constructs it is a caller of both, and reaches their sites."""
    recs = _index(tmp_path, {
        "shop/__init__.py": "",
        "shop/items.py": """
            from dataclasses import dataclass


            @dataclass
            class Item:
                size: int

                def __post_init__(self):
                    if self.size < 1:
                        raise ValueError(f"size {self.size} must be at least 1")


            class Order:
                def __init__(self, n):
                    self.n = n

                def __post_init__(self):
                    raise RuntimeError("never dataclass")


            def make(n):
                return Item(n)


            def order(n):
                return Order(n)
            """,
    })
    r = recs["size {self.size} must be at least 1"]
    assert r["errdex"]["callers"] == ["shop.items.make"]
    assert r["errdex"]["entryPoints"] == ["shop.items.Item.__post_init__", "shop.items.make"]
    assert recs["never dataclass"]["errdex"]["callers"] == ["shop.items.order"]


def test_cls_in_a_classmethod_constructs_its_class(tmp_path):
    """Review 18 (minimax_h3_vdn.py:45): `return cls(...)` in `from_config` runs `__post_init__`,
    so `from_config` and whoever calls it reach its site."""
    recs = _index(tmp_path, {
        "conf/__init__.py": "",
        "conf/vdn.py": """
            from dataclasses import dataclass


            @dataclass
            class VdnConfig:
                depth: int

                def __post_init__(self):
                    if self.depth < 1:
                        raise ValueError(f"depth {self.depth} must be at least 1")

                @classmethod
                def from_config(cls, raw):
                    return cls(raw["depth"])


            def build(raw):
                return VdnConfig.from_config(raw)


            def plain(cls):
                return cls(3)
            """,
    })
    r = recs["depth {self.depth} must be at least 1"]
    assert r["errdex"]["callers"] == ["conf.vdn.VdnConfig.from_config"]
    assert "conf.vdn.build" in r["errdex"]["entryPoints"]


def test_callers_that_stop_the_error_are_not_climbed(tmp_path):
    """A caller whose handlers stop the site's class around every call of it is no way up for
    that class: not an entry point, nor is what calls it only through it. A handler that re-raises
    (always or on some path), a call outside the try, and another class all keep the way open."""
    recs = _index(tmp_path, {
        "svc/__init__.py": "",
        "svc/core.py": """
            import logging


            class LimitError(ValueError):
                pass


            def _check(n):
                if n > 512:
                    raise LimitError(f"n={n} over 512")


            def _lookup(key):
                if key is None:
                    raise KeyError("no key")


            def quiet(n):
                try:
                    _check(n)
                except ValueError:
                    logging.exception("bad")
                    return None


            def converts(n):
                try:
                    _check(n)
                    _lookup(n)
                except LimitError as exc:
                    raise RuntimeError("limit") from exc
                except Exception:
                    raise


            def sometimes(n, strict):
                try:
                    _check(n)
                except Exception:
                    if strict:
                        raise
                    return 0


            def twice(n):
                try:
                    _check(n)
                except ValueError:
                    pass
                return _check(n + 1)


            def serve(n):
                return quiet(n)
            """,
    })
    limit = recs["n={n} over 512"]["errdex"]
    assert limit["callers"] == ["svc.core.converts", "svc.core.quiet", "svc.core.sometimes", "svc.core.twice"]
    assert limit["entryPoints"] == ["svc.core.sometimes", "svc.core.twice"]
    lookup = recs["no key"]["errdex"]
    assert lookup["entryPoints"] == ["svc.core.converts"]


def test_a_function_that_imports_its_callee_itself_is_a_caller(tmp_path):
    """`from .target import checked` inside the function (often to avoid an import cycle, or a
    heavy import): its call resolves through that import, absolute or relative, aliased or not."""
    recs = _index(tmp_path, {
        "app/__init__.py": "",
        "app/target.py": """
            def checked(x):
                if x < 0:
                    raise ValueError("negative")
                return x
            """,
        "app/entry.py": """
            def absolute(x):
                from app.target import checked
                return checked(x)


            def relative(x):
                if x:
                    from .target import checked as chk
                    from . import target
                    chk(x)
                    return target.checked(x + 1)
            """,
    })
    r = recs["negative"]["errdex"]
    assert r["callers"] == ["app.entry.absolute", "app.entry.relative"]
    assert r["entryPoints"] == ["app.target.checked", "app.entry.absolute", "app.entry.relative"]


def test_functions_passed_as_values_are_called_by_whoever_passes_them(tmp_path):
    """`asyncio.to_thread(f, x)`, `Thread(target=self.loop)`, `pool.submit(work, x)` run what they are
    given: the passing function is a caller. A class passed as a value (`isinstance(x, Item)`) constructs
    nothing, and a local variable that only shares a name with nothing in the module is no function."""
    recs = _index(tmp_path, {
        "app/__init__.py": "",
        "app/work.py": """
            import asyncio
            import threading


            def crunch(n):
                if n > 9:
                    raise ValueError("too big")


            class Item:
                def __init__(self, v):
                    if v is None:
                        raise TypeError("no value")


            class Server:
                def _loop(self):
                    raise RuntimeError("loop ended")

                def start(self):
                    threading.Thread(target=self._loop, daemon=True).start()

                async def handle(self, n):
                    return await asyncio.to_thread(crunch, n)


            def check(x, pool):
                fut = pool.submit(crunch, x)
                return isinstance(x, Item) and fut


            def later(n):
                raise KeyError("later")


            def compare(x):
                return bool(x == later) or bool(x <= later) or bool(x != later)


            def schedule(pool):
                return pool.apply(func  =  later)


            def rope(x):
                if x is None:
                    raise ValueError("no rope input")


            class Attention:
                def __init__(self, applier=None):
                    self.applier = applier


            class Layer:
                def __init__(self):
                    self.attn = Attention(dim=4,
                                          applier=rope)


            class Dispatcher:
                def __init__(self, table):
                    self.table = table


            class Scheduler:
                def handle_generate(self, req):
                    if req is None:
                        raise ValueError("no request to generate")

                def init_dispatcher(self):
                    self.dispatch = Dispatcher([(str, self.handle_generate), (int, self.handle_generate)])
            """,
    })
    assert recs["later"]["errdex"]["callers"] == ["app.work.schedule"]   # a comparison passes nothing
    # review 28 #9: a constructor given a callback keeps it for later; building the object calls nothing
    assert recs["no rope input"]["errdex"]["callers"] == []
    assert recs["no request to generate"]["errdex"]["callers"] == []   # review 29 #24: a dispatch table
    assert recs["too big"]["errdex"]["callers"] == ["app.work.Server.handle", "app.work.check"]
    assert recs["loop ended"]["errdex"]["callers"] == ["app.work.Server.start"]
    assert recs["no value"]["errdex"]["callers"] == []


def test_a_call_on_self_reaches_the_overrides_in_subclasses(tmp_path):
    """`self.step()` in a base class runs a subclass's `step` on an instance of it (class hierarchy
    analysis from the caller's own class: a sibling's `self.step()` never reaches it), and
    `Fn.apply(...)` runs a torch autograd Function's `forward`."""
    recs = _index(tmp_path, {
        "eng/__init__.py": "",
        "eng/base.py": """
            class Backend:
                def run(self, n):
                    return self.step(n)

                def step(self, n):
                    return n


            class Other:
                def go(self, n):
                    return self.step(n)

                def step(self, n):
                    return n
            """,
        "eng/fast.py": """
            import torch
            from eng.base import Backend, Other


            class Fast(Backend):
                def step(self, n):
                    if n < 0:
                        raise ValueError("fast needs n >= 0")
                    return n


            class Quiet(Other):
                def step(self, n):
                    if n < 0:
                        raise ValueError("quiet needs n >= 0")
                    return n


            class Scale(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, k):
                    if k == 0:
                        raise ZeroDivisionError("scale by zero")
                    return x / k


            def scaled(x, k):
                return Scale.apply(x, k)
            """,
    })
    assert recs["fast needs n >= 0"]["errdex"]["callers"] == ["eng.base.Backend.run"]
    assert recs["quiet needs n >= 0"]["errdex"]["callers"] == ["eng.base.Other.go"]
    assert recs["scale by zero"]["errdex"]["callers"] == ["eng.fast.scaled"]


def test_guarded_calls_keep_the_handler_chain_innermost_first(tmp_path):
    from errdex.extract.files import extract_file

    (tmp_path / "m.py").write_text(textwrap.dedent("""
        def g():
            pass

        def h():
            pass

        def f():
            try:
                try:
                    g()
                except KeyError:
                    return 1
                h()
            except (ValueError, TypeError):
                raise
            except OSError:
                pass
            h()
        """))
    fn = {f.qualname: f for f in extract_file(str(tmp_path), "m.py", "m").functions}["m.f"]
    outer = ((("ValueError", "TypeError"), False), (("OSError",), True))
    assert fn.guarded == {"m.g": (((("KeyError",), True), *outer),)}   # h is also called outside any try


@pytest.mark.parametrize("cond", [
    "a > 3", "a != 2 and b", "not b", "a in (1, 2)", "a is None or b", "not (a < 1 or b)",
    "c and (a >= 2 or not b)", "(a == 1) == b", "a % 2 != 0 and a > 0",
])
def test_negation_is_exact(cond):
    parsed = parse_condition(cond)
    own = negate_code(parsed.own)
    head = " and ".join(parsed.guards)
    for a, b, c in itertools.product([None, 0, 1, 2, 3, 5], [True, False], [True, False]):
        env = {"a": a, "b": b, "c": c}
        try:
            want = eval(parsed.text and " and ".join(tail_conjuncts(cond)[1]), {}, env)
            got = eval(own, {}, env)
        except TypeError:
            continue
        assert bool(got) == (not want), (cond, own, env, head)


def test_tail_split_respects_brackets_and_strings():
    assert tail_conjuncts("a and (b and c)") == ("a", ["(b and c)"])
    assert tail_conjuncts("x == ' and ' and y") == ("x == ' and '", ["y"])
    assert tail_conjuncts("q and k != 'a' and k != 'b'") == ("q", ["k != 'a'", "k != 'b'"])


@pytest.mark.parametrize("qualname, method, public", [
    ("pkg.mod.run", False, True), ("pkg._mod.run", False, False), ("pkg.mod._run", False, False),
    ("_pkg.mod.run", False, False), ("pkg.mod.Cls.__init__", True, True), ("pkg.mod.Cls.__init__", False, False),
    ("pkg.mod._Cls.__init__", True, False), ("__init__", True, True), ("pkg.mod.Cls.__call__", True, False),
    ("pkg.mod.x__init__", True, True), ("pkg..run", False, True), ("pkg.._run", False, False),
    ("pkg.mod.Cls.__post_init__", True, True), ("pkg.mod._Cls.__post_init__", True, False),
])
def test_public_name(qualname, method, public):
    from errdex.analyze.callgraph import _public_name

    assert _public_name(qualname, method) is public


def _callee_by_resolving(cb, functions: dict, call: str):
    """The callee rule with every name resolved through the re-exports (no shortcut)."""
    from errdex.analyze.callgraph import _CalleeResolver, _resolve

    if call.startswith("builtins."):
        return None
    ref = _resolve(cb, call, functions)
    if ref in functions:
        return ref
    cls = _resolve(cb, call, cb.classes)
    if cls in cb.classes:
        return _CalleeResolver(cb, functions).constructor(cls)
    head, _, meth = ref.rpartition(".")
    if head:
        cls = _resolve(cb, head, cb.classes)
        if cls in cb.classes:
            return _CalleeResolver(cb, functions).method(cls, meth)
    return None


def test_callee_shortcut_for_names_without_reexports_agrees_with_resolving():
    """Most calls name nothing re-exported: the resolver skips resolving them; results must not change."""
    from errdex.analyze.callgraph import _CalleeResolver
    from errdex.extract.link import Codebase
    from errdex.models import ClassFacts

    classes = {q: ClassFacts(q, bases) for q, bases in {
        "p.m.Base": [], "p.m.Child": ["p.m.Base"], "p.n.Other": ["p.Child"]}.items()}
    aliases = {"p.Child": "p.m.Child", "p.api": "p.m", "p.n.run": "p.m.run", "p.loop": "p.loop2",
               "p.loop2": "p.loop", "q.B": "p.m.Base"}
    functions = dict.fromkeys(["p.m.run", "p.m.Base.__init__", "p.m.Base.go", "p.m.Child.stop",
                               "p.n.Other.go", "p.n.helper"])
    cb = Codebase(classes, aliases)
    parts = ["p", "m", "n", "api", "Child", "Base", "Other", "run", "go", "stop", "helper", "loop", "q", "B",
             "__init__", "builtins", "len"]
    names = [".".join(c) for k in (1, 2, 3, 4) for c in itertools.product(parts, repeat=k)]
    resolver = _CalleeResolver(cb, functions)
    got = {n: resolver.target(n) for n in names}
    assert got == {n: _callee_by_resolving(cb, functions, n) for n in names}
    assert got["p.api.run"] == "p.m.run" and got["p.Child.go"] == "p.m.Base.go" and got["p.n.Other"] == "p.m.Base.__init__"
    assert got["p.m.Child"] == "p.m.Base.__init__" and got["q.B.go"] == "p.m.Base.go"


@pytest.mark.parametrize("order", [("p.a", "p.b"), ("p.b", "p.a")])
def test_a_guarded_edge_is_met_whichever_way_reaches_its_caller_first(order):
    """`c` calls `a` inside a try and `b` outside one; `a` and `b` both call the site's `f`. Whether
    the climb reaches `c` through `a` or `b` first follows set order: that the way up met a handler
    (so the entry points hold for this class only) must not."""
    from errdex.analyze.callgraph import CallGraph

    graph = CallGraph(public={"p.c"})
    graph.callers_of = {"p.f": list(order), "p.a": ["p.c"], "p.b": ["p.c"]}   # lists: a fixed order each
    graph.guarded = {("p.a", "p.c"): (((("KeyError",), True),),)}
    for error in (None, (frozenset({"ValueError"}), True), (frozenset({"KeyError"}), True)):
        assert graph.climb("p.f", error=error) == (["p.c"], True)


def test_an_override_is_reached_only_through_instances_of_its_class(tmp_path):
    """Review 17 P5: `self.setup()` in a base class's `__post_init__` reaches every subclass's
    override, but a caller that constructs one subclass runs only that subclass's `setup`; a
    method of a sibling class calling `self.setup()` is no way up either."""
    recs = _index(tmp_path, {
        "pipe/__init__.py": "",
        "pipe/base.py": """
            from dataclasses import dataclass


            @dataclass
            class Pipeline:
                name: str

                def __post_init__(self):
                    self.setup()

                def setup(self):
                    pass
            """,
        "pipe/kinds.py": """
            from pipe.base import Pipeline


            class Video(Pipeline):
                def setup(self):
                    if not self.name:
                        raise ValueError("video pipeline needs a name")

                def reload(self):
                    self.setup()


            class Image(Pipeline):
                def setup(self):
                    pass

                def again(self):
                    self.setup()


            class LongVideo(Video):
                pass


            def make_video(name):
                return Video(name)


            def make_long(name):
                return LongVideo(name)


            def make_image(name):
                return Image(name)
            """,
    })
    ex = recs["video pipeline needs a name"]["errdex"]
    assert ex["callers"] == ["pipe.base.Pipeline.__post_init__", "pipe.kinds.Video.reload"]
    entries = ex["entryPoints"]
    assert "pipe.kinds.make_video" in entries and "pipe.kinds.make_long" in entries
    assert "pipe.kinds.make_image" not in entries
    assert "pipe.kinds.Image.again" not in entries


OPTIONAL = {
    "plan/__init__.py": "",
    "plan/core.py": """
        def make_plan(batch, full=None, *, strict=False):
            if full is not None:
                assert len(full) == batch, "full must cover the batch"
            if strict:
                raise ValueError("strict planning is not supported")
            return batch
        """,
    "plan/users.py": """
        from plan.core import make_plan


        def prepare(batch):
            return make_plan(batch)


        def prepare_none(batch):
            return make_plan(batch, None)


        def prepare_full(batch, table):
            return make_plan(batch, full=table)


        def prepare_any(*args, **kwargs):
            return make_plan(*args, **kwargs)


        def prepare_strict(batch):
            return make_plan(batch, strict=True)


        def prepare_spread(batch, table, cache):
            if cache:
                extra = {"strict": False}
            else:
                extra = {}
            return make_plan(batch, **extra)


        def prepare_spread_full(batch, table):
            extra = {"full": table}
            return make_plan(batch, **extra)
        """,
}


def test_callers_that_never_pass_a_needed_argument_do_not_reach_the_site(tmp_path):
    """Review 18 (cache_locs.py:626): the assert under `if full is not None:` was said reached from
    callers that never pass `full`; they are left out of its callers and entry points, and named."""
    recs = _index(tmp_path, OPTIONAL)
    r = recs["full must cover the batch"]
    assert r["errdex"]["optionalArgs"] == {"full": {"default": "None", "test": "full is not None", "position": 1}}
    # review 28 #10: a `**extra` spread of a local dict display passes its keys only
    assert r["errdex"]["callers"] == ["plan.users.prepare_any", "plan.users.prepare_full",
                                      "plan.users.prepare_spread_full"]
    assert r["errdex"]["unreachedFrom"] == ["plan.users.prepare", "plan.users.prepare_none",
                                            "plan.users.prepare_spread", "plan.users.prepare_strict"]
    assert "plan.users.prepare" not in r["errdex"]["entryPoints"]
    assert "plan.users.prepare_full" in r["errdex"]["entryPoints"]
    strict = recs["strict planning is not supported"]
    assert strict["errdex"]["optionalArgs"]["strict"]["test"] == "strict"
    assert strict["errdex"]["callers"] == ["plan.users.prepare_any", "plan.users.prepare_spread",
                                           "plan.users.prepare_strict"]


def test_a_caller_starting_to_pass_the_argument_is_reindexed_whole(tmp_path):
    """The callers read for their arguments are kept with the dataset: a re-index that changes
    one of them does not keep the old answer in place."""
    from errdex.store import Store
    from .sources import reindexed_and_fresh

    def edit(src):
        users = src / "plan" / "users.py"
        users.write_text(users.read_text().replace("return make_plan(batch)\n",
                                                   "return make_plan(batch, full=[batch])\n"))

    again, db, fresh = reindexed_and_fresh(tmp_path, OPTIONAL, "o/plan", edit)
    assert not again.in_place

    def callers(path):
        with Store.open(path, readonly=True) as store:
            return {r["errorMessage"]: r["errdex"]["callers"] for r in store.iter_records()}

    assert callers(db) == callers(fresh)
    assert "plan.users.prepare" in callers(db)["full must cover the batch"]


def test_a_damaged_record_of_the_callers_read_takes_the_full_path(tmp_path):
    """An `examined` state part that does not decode tells nothing: the re-index redoes the dataset
    instead of failing or keeping answers it cannot check."""
    import sqlite3

    from errdex.pipeline import index_source
    from .sources import write_sources

    src = write_sources(tmp_path / "src", OPTIONAL)
    db = tmp_path / "a.db"
    index_source(str(src), db, jobs=1, repo="o/plan", version="1")
    with sqlite3.connect(db) as conn:
        assert conn.execute("UPDATE dataset_state SET blob = ? WHERE part = 'examined'", (b"not zlib",)).rowcount == 1
    core = src / "plan" / "core.py"
    core.write_text(core.read_text() + "\n# touched\n")
    again = index_source(str(src), db, jobs=1, repo="o/plan", version="1")
    assert not again.in_place and again.records == 2


DISPATCH = {
    "ops/__init__.py": "",
    "ops/custom.py": """
        class CustomOp:
            def forward(self, x):
                return self.forward_npu(x)

            def forward_npu(self, x):
                return self.forward_native(x)

            def forward_native(self, x):
                return x


        class Rotary(CustomOp):
            def forward_npu(self, x):
                return x + 1

            def forward_native(self, x):
                if x is None:
                    raise ValueError("rotary needs x")
                return x


        class Scaled(CustomOp):
            def forward_npu(self, x):
                # a comment that says super().forward_npu(x) calls nothing
                return super().forward_npu(x) * 2

            def forward_native(self, x):
                if x is None:
                    raise ValueError("scaled needs x")
                return x


        class Named(CustomOp):
            def forward_npu(self, x):
                return CustomOp.forward_npu(self, x)

            def forward_native(self, x):
                if x is None:
                    raise ValueError("named needs x")
                return x


        class Plain(CustomOp):
            def __init__(self, n):
                super().__init__()
                if n < 0:
                    raise ValueError("n below zero")

            def forward_native(self, x):
                if x is None:
                    raise ValueError("plain needs x")
                return x


        class Base:
            def __init__(self, size):
                if size <= 0:
                    raise ValueError("size must be positive")


        class Child(Base):
            def __init__(self, size, name):
                super(Child, self).__init__(size)
                self.name = name
        """,
}


def test_a_base_method_a_subclass_overrides_is_no_caller_of_its_overrides(tmp_path):
    """Review 24 #1/#2: `CustomOp.forward_npu` calls `self.forward_native()`, but `Rotary` overrides
    `forward_npu` itself, so the base one never runs on a `Rotary`: no caller of its `forward_native`.
    An override that calls `super().forward_npu(...)` runs the base one on its instance: it stays."""
    recs = _index(tmp_path, DISPATCH)
    assert "ops.custom.CustomOp.forward_npu" not in recs["rotary needs x"]["errdex"]["callers"]
    assert recs["scaled needs x"]["errdex"]["callers"] == ["ops.custom.CustomOp.forward_npu"]
    assert recs["plain needs x"]["errdex"]["callers"] == ["ops.custom.CustomOp.forward_npu"]
    assert recs["named needs x"]["errdex"]["callers"] == ["ops.custom.CustomOp.forward_npu"]


def test_super_calls_make_the_parent_method_called_by_the_override(tmp_path):
    """`super().__init__(size)` in `Child.__init__` runs `Base.__init__` on a `Child`: its caller,
    and constructing a `Child` is a way to the base's check."""
    recs = _index(tmp_path, DISPATCH)
    assert recs["size must be positive"]["errdex"]["callers"] == ["ops.custom.Child.__init__"]
    assert "ops.custom.Child.__init__" in recs["size must be positive"]["errdex"]["entryPoints"]


def test_a_subclass_overriding_the_method_does_not_climb_to_the_base_method(tmp_path):
    """Review 26: `Nvml.has_capability` calls `super().has_capability()`, which runs
    `cls.get_capability()`: on an Nvml, that is Nvml's own override, never the base's
    `raise NotImplementedError`; a subclass that does not override it still gets there."""
    recs = _index(tmp_path, {
        "plat/__init__.py": "",
        "plat/base.py": """
            class Platform:
                @classmethod
                def has_capability(cls, want):
                    return cls.get_capability() >= want

                @classmethod
                def get_capability(cls):
                    return 0


            class CudaBase(Platform):
                @classmethod
                def get_capability(cls):
                    raise NotImplementedError("no capability query here")


            class Nvml(CudaBase):
                @classmethod
                def get_capability(cls):
                    return 90

                @classmethod
                def has_capability(cls, want):
                    return super().has_capability(want)


            class Plain(CudaBase):
                @classmethod
                def has_capability(cls, want):
                    return super().has_capability(want)
            """,
    })
    ex = recs["no capability query here"]["errdex"]
    assert "plat.base.Nvml.has_capability" not in ex["entryPoints"]
    assert "plat.base.Plain.has_capability" in ex["entryPoints"]
