"""The dataset's call graph: who calls a site's function, and which public functions reach it.

Edges come from `FileFacts.functions` (callee names already resolved through
each file's imports and `self`); here they are resolved across files:
re-exports through `Codebase.resolve`, methods through the class hierarchy,
and a call to a class means its `__init__` and `__post_init__`. A call on `self` also reaches
the overrides in the caller's own subclasses (class hierarchy analysis from the static receiver),
`Fn.apply(...)` an autograd Function's `forward`, and a function passed as a value to a call
(`FunctionFacts.passes`) counts as called by whoever passes it. Calls that resolve to nothing in
the dataset (library code, dynamic attributes) are dropped: an edge is only
recorded when the code names its target. An edge whose calls all sit in `try`
bodies keeps the handlers around them (`FunctionFacts.guarded`): the errors
those handlers stop do not climb it, so a site's entry points depend on its class.

An edge whose calls all say what the receiver is (`self.m()` in a method of Y: an instance of Y;
`X(...)`: an X) is climbed only by an instance that can be one: from an override
`Sub.m` reached by `self.m()` in `Base.f`, the callers of `Base.f` that construct a sibling of
`Sub` are not on its way (`CallGraph.receivers`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from errdex.extract.handlers import chain_stops
from errdex.extract.link import Codebase
from errdex.models import FileFacts
from errdex.records import is_test_path

MAX_CALLERS = 20
MAX_ENTRY_POINTS = 10
ENTRY_DEPTH = 4


def _no_target(name: str) -> None:
    return None


@dataclass(slots=True)
class CallGraph:
    """Reverse edges (callee -> callers) and what counts as public."""

    callers_of: dict[str, set[str]] = field(default_factory=dict)
    public: set[str] = field(default_factory=set)
    test_functions: set[str] = field(default_factory=set)
    # (callee, caller) -> handler chains around every call of that edge (`FunctionFacts.guarded`)
    guarded: dict[tuple[str, str], tuple] = field(default_factory=dict)
    #: (callee, caller) -> what the receiver is in every call of that edge: ("self", Y) for `self.m()`
    #: in a method of class Y, ("new", X) for `X(...)`; edges with any other call are not here
    receivers: dict[tuple[str, str], frozenset] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)                 # method qualname -> its class
    lineage: dict[str, frozenset[str]] = field(default_factory=dict)    # class -> itself and its ancestors
    mixed: dict[tuple[str, str], bool] = field(default_factory=dict)    # `_related` answers for unrelated pairs
    shadowed: dict[tuple[str, str], bool] = field(default_factory=dict)  # `_shadowed` answers
    #: (callee, caller) edges made by `super().m()`: they run the parent's `m` past the caller's own
    supers: set[tuple[str, str]] = field(default_factory=set)
    #: callee name (as `FunctionFacts.calls` holds it) -> the function, or the functions of a class's
    #: construction, it runs in the dataset, or None (`_CalleeResolver.target`)
    target: Callable[[str], str | tuple[str, ...] | None] = _no_target

    def callers(self, qualname: str, skip: frozenset[str] = frozenset()) -> list[str]:
        """Direct callers whose calls can reach this function's class, sorted, capped at MAX_CALLERS
        (`skip`: callers whose calls never pass what the site needs, `analyze.reach`)."""
        need = self.owner.get(qualname)
        found = self.callers_of.get(qualname, ())
        if skip:
            found = [c for c in found if c not in skip]
        if need is not None and self.receivers:
            found = [c for c in found if (after := self._through(qualname, c, need)) is not _NO_WAY
                     and ((qualname, c) in self.supers or not self._shadowed(after, qualname))]
        return sorted(found)[:MAX_CALLERS]

    def _shadowed(self, cls: str | None, qualname: str) -> bool:
        """Whether an instance of `cls`, a subclass of the method's own class, runs another method of
        that name: a class between them overrides it (review 26: `NvmlCudaPlatform.has_device_capability`
        reaches `cls.get_device_capability()`, which NvmlCudaPlatform overrides, never the base's)."""
        own = self.owner.get(qualname)
        if cls is None or own is None or cls == own:
            return False
        key = (cls, qualname)
        found = self.shadowed.get(key)
        if found is None:
            name = qualname[len(own) + 1:]
            between = self.lineage.get(cls, frozenset()) - self.lineage.get(own, frozenset())
            found = self.shadowed[key] = own in self.lineage.get(cls, ()) and any(
                f"{k}.{name}" in self.owner for k in between)
        return found

    def _through(self, callee: str, caller: str, need: str | None):
        """The class the instance must have in `caller` after climbing this edge with one of class
        `need` (None: any), or `_NO_WAY` when no call of the edge can be made on such an instance."""
        tags = self.receivers.get((callee, caller))
        if tags is None:
            return None
        after: set = set()
        for kind, cls in tags:
            if kind == "new":
                if need is None or need in self.lineage.get(cls, (need,)):
                    after.add(None)   # the caller made it: its own instance is another matter
            elif need is None or self._related(cls, need):
                after.add(cls if need is None or need in self.lineage.get(cls, ()) else need)
        if not after:
            return _NO_WAY
        return after.pop() if len(after) == 1 else None

    def _related(self, a: str, b: str) -> bool:
        """Whether one instance can be both an `a` and a `b`: one derives from the other, or a
        class of the dataset derives from both (a mixin). Classes not in the dataset: assumed so."""
        la, lb = self.lineage.get(a), self.lineage.get(b)
        if la is None or lb is None or a in lb or b in la:
            return True
        found = self.mixed.get((a, b))
        if found is None:
            found = self.mixed[(a, b)] = any(a in line and b in line for line in self.lineage.values())
        return found

    def entry_points(self, qualname: str, *, depth: int = ENTRY_DEPTH, include_tests: bool = False,
                     error: tuple[frozenset[str], bool] | None = None) -> list[str]:
        """Public functions that reach `qualname` within `depth` calls, nearest first.

        The function itself counts (depth 0) when it is public. Test functions
        are left out unless the site is itself test code. `error` (`handlers.error_names`
        of the site's class): a caller whose handlers stop that error around every call
        on the way is not climbed, nor what lies above it.
        """
        return self.climb(qualname, depth=depth, include_tests=include_tests, error=error)[0]

    def climb(self, qualname: str, *, depth: int = ENTRY_DEPTH, include_tests: bool = False,
              error: tuple[frozenset[str], bool] | None = None,
              skip: frozenset[str] = frozenset()) -> tuple[list[str], bool]:
        """`entry_points`, and whether the way up met a guarded edge: when it met none, the
        answer is the same for every class (a re-index may reuse it for a new one). `skip`:
        callers of `qualname` itself not climbed (their calls never pass what the site needs)."""
        out: list[str] = []
        listed: set[str] = set()
        start = (qualname, self.owner.get(qualname))
        seen = {start}
        frontier = [start]
        guarded, receivers = self.guarded, self.receivers
        met = False
        for level in range(depth + 1):
            for q, _ in sorted(frontier, key=_by_name):
                if q not in listed and q in self.public and (include_tests or q not in self.test_functions):
                    listed.add(q)
                    out.append(q)
                    if len(out) >= MAX_ENTRY_POINTS:
                        return out, met
            if level == depth:
                break
            nxt = []
            for q, need in frontier:
                for c in self.callers_of.get(q, ()):
                    if skip and level == 0 and c in skip:
                        continue
                    # every edge of the level is looked at, seen caller or not: which of two edges
                    # reaches a caller first follows set order, and `met` must not
                    chains = guarded.get((q, c)) if guarded else None
                    if chains is not None:
                        met = True
                        if error is not None and all(chain_stops(chain, *error) for chain in chains):
                            continue   # not seen: another way up may still reach it
                    after = self._through(q, c, need) if receivers else None
                    if after is _NO_WAY or (after is not None and (q != qualname or (q, c) not in self.supers)
                                            and self._shadowed(after, qualname)):
                        continue   # (`super().m()` runs the site's `m` past the caller's own override)
                    if (c, after) not in seen:
                        seen.add((c, after))
                        nxt.append((c, after))
            frontier = nxt
            if not frontier:
                break
        return out, met


_NO_WAY = object()


def _by_name(state: tuple[str, str | None]) -> tuple[str, str]:
    return state[0], state[1] or ""


def build_call_graph(facts: list[FileFacts], cb: Codebase | None = None) -> CallGraph:
    """Resolve every recorded call against the dataset's functions and classes."""
    cb = cb or Codebase.from_facts(facts)
    functions = {fn.qualname: fn for f in facts for fn in f.functions}
    graph = CallGraph()
    graph.public = _public_functions(facts, functions, cb)
    graph.test_functions = {fn.qualname for f in facts if is_test_path(f.file_path) for fn in f.functions}
    resolver = _CalleeResolver(cb, functions)
    callers_of = graph.callers_of
    known = resolver.cache   # looked up inline: most of the calls name a callee seen before
    guarded: dict[tuple[str, str], tuple] = {}
    open_edges: set[tuple[str, str]] = set()   # edges with a call no handler stops anything around
    receivers: dict[tuple[str, str], set] = {}
    any_receiver: set[tuple[str, str]] = set()   # edges with a call on a receiver of unknown class
    for fn in functions.values():
        caller = fn.qualname
        chains_of = fn.guarded
        own = fn.cls
        method = caller[len(own) + 1:] if own is not None else ""
        for call in fn.calls:
            target = known.get(call, False)
            if target is False:
                target = known[call] = resolver.callee(call)
            on_self = own is not None and call.startswith(own) and call[len(own):len(own) + 1] == "."
            if on_self:
                # `self.m()`: on an instance of a subclass, its override runs
                name = call[len(own) + 1:]
                more = resolver.overrides(own, name)
                if more:   # not on an instance whose class overrides the caller itself (review 24 #1/#2)
                    more = tuple(t for t in more if not resolver.shadows(t[:-len(name) - 1], own, method))
                if more:
                    target = more if target is None else (
                        *(target if target.__class__ is tuple else (target,)), *more)
            if target is None:
                continue
            receiver = resolver.constructs(call, target)
            if receiver is None and on_self and "." not in call[len(own) + 1:] and call not in cb.aliases:
                receiver = ("self", own)   # (a class-body alias runs another class's function on it)
            for one in target if target.__class__ is tuple else (target,):   # a class: `__init__`, `__post_init__`
                if one == caller:
                    continue
                callers_of.setdefault(one, set()).add(caller)
                if chains_of and call in chains_of:
                    guarded[(one, caller)] = guarded.get((one, caller), ()) + chains_of[call]
                else:
                    open_edges.add((one, caller))
                if receiver is None:
                    any_receiver.add((one, caller))
                else:
                    receivers.setdefault((one, caller), set()).add(receiver)
        for name in fn.supers:   # `super().m()`: the parent's `m`, on this method's instance
            one = resolver.method(own, name, inherited_only=True) if own in cb.classes else None
            if one is not None and one != caller:
                callers_of.setdefault(one, set()).add(caller)
                open_edges.add((one, caller))
                receivers.setdefault((one, caller), set()).add(("self", own))
                graph.supers.add((one, caller))
        for passed in fn.passes:
            one = resolver.passed(passed)
            if one is not None and one != caller:
                callers_of.setdefault(one, set()).add(caller)
                open_edges.add((one, caller))
                any_receiver.add((one, caller))
    graph.guarded = {edge: chains for edge, chains in guarded.items() if edge not in open_edges}
    graph.receivers = {edge: frozenset(tags) for edge, tags in receivers.items() if edge not in any_receiver}
    graph.owner = {q: fn.cls for q, fn in functions.items() if fn.cls is not None}
    graph.lineage = {c: frozenset((c, *resolver.ancestors_of(c))) for c in cb.classes}
    graph.target = resolver.target
    return graph


class _CalleeResolver:
    """Callee name -> defining function qualname (cached: the same names recur everywhere)."""

    def __init__(self, cb: Codebase, functions: dict) -> None:
        self.cb = cb
        self.functions = functions
        self.cache: dict[str, str | None] = {}
        self.ancestors: dict[str, list[str]] = {}
        self.descendants: dict[str, list[str]] | None = None   # built on first use
        self.dispatch: dict[tuple[str, str], tuple[str, ...]] = {}

    def target(self, call: str) -> str | tuple[str, ...] | None:
        found = self.cache.get(call, False)
        if found is False:
            found = self.cache[call] = self.callee(call)
        return found

    def callee(self, call: str) -> str | tuple[str, ...] | None:
        """What `call` names among the dataset's functions (uncached: see `target`): for a class,
        what constructing it runs (`constructor`)."""
        if call.startswith("builtins."):
            return None
        head, _, meth = call.rpartition(".")
        aliases = self.cb.aliases
        if call not in aliases and head not in aliases:
            # Neither the name nor its head is re-exported: resolving would leave it as it is (most calls).
            if call in self.functions:
                return call
            if call in self.cb.classes:
                return self.constructor(call)
            if head not in self.cb.classes and head.rpartition(".")[0] not in aliases:
                return None   # nor is the head a class, or reached through a re-exported name
        else:
            ref = _resolve(self.cb, call, self.functions)
            if ref in self.functions:
                return ref
            cls = _resolve(self.cb, call, self.cb.classes)
            if cls in self.cb.classes:
                return self.constructor(cls)
            head, _, meth = ref.rpartition(".")
        if head:
            classes = self.cb.classes
            cls = head if head in classes else _resolve(self.cb, head, classes)
            if cls in classes:
                found = self.method(cls, meth)
                if found is None and meth == "apply":   # `Fn.apply(...)` of a torch autograd Function
                    forward = self.method(cls, "forward")
                    if forward is not None and "autograd" in (self.functions[forward].binding or ""):
                        return forward
                return found
        return None

    def constructs(self, call: str, target) -> tuple[str, str] | None:
        """("new", class) when `call` names a class of the dataset and `target` is what constructing it runs."""
        key = "()" + call
        found = self.cache.get(key, False)
        if found is False:
            classes = self.cb.classes
            cls = call if call in classes else _resolve(self.cb, call, classes)
            runs = target if target.__class__ is tuple else (target,)
            found = ("new", cls) if cls in classes and call not in self.functions and all(
                one.rpartition(".")[2] in _CONSTRUCTORS for one in runs) else None
            self.cache[key] = found
        return found

    def ancestors_of(self, cls: str) -> list[str]:
        return self._ancestors(cls)

    def overrides(self, cls: str, name: str) -> tuple[str, ...]:
        """The methods `name` defined on the dataset's subclasses of `cls` (at any depth)."""
        key = (cls, name)
        found = self.dispatch.get(key)
        if found is None:
            if self.descendants is None:
                self.descendants = {}
                for c in self.cb.classes:
                    for ancestor in self._ancestors(c):
                        self.descendants.setdefault(ancestor, []).append(c)
            functions = self.functions
            found = self.dispatch[key] = tuple(sorted(
                f"{d}.{name}" for d in self.descendants.get(cls, ()) if f"{d}.{name}" in functions))
        return found

    def passed(self, name: str) -> str | None:
        """The function a name passed as a value refers to (`FunctionFacts.passes`); a class passed
        as a value (`isinstance(x, C)`, `register(C)`) constructs nothing, and names none."""
        key = "&" + name
        found = self.cache.get(key, False)
        if found is False:
            found = self.callee(name)
            if found is not None and (found.__class__ is tuple or name in self.cb.classes
                                      or _resolve(self.cb, name, self.cb.classes) in self.cb.classes):
                found = None
            self.cache[key] = found
        return found

    def constructor(self, cls: str) -> str | tuple[str, ...] | None:
        """What `cls(...)` runs of the dataset's code: its `__init__`, and its `__post_init__`,
        which a dataclass's generated `__init__` calls (both: a tuple)."""
        init, post = self.method(cls, "__init__"), self.method(cls, "__post_init__")
        if post is None:
            return init
        return post if init is None else (init, post)

    def method(self, cls: str, name: str, inherited_only: bool = False) -> str | None:
        """`name` as defined on `cls` or its nearest ancestor in the dataset (`inherited_only`:
        on an ancestor, as `super().name` finds it)."""
        aliases = self.cb.aliases
        for owner in self._ancestors(cls) if inherited_only else (cls, *self._ancestors(cls)):
            q = f"{owner}.{name}"
            if q in self.functions:
                return q
            if q in aliases:   # `forward = OtherBackend.forward` in the class body
                ref = _resolve(self.cb, q, self.functions)
                if ref in self.functions:
                    return ref
        return None

    def shadows(self, cls: str, base: str, name: str) -> bool:
        """Whether an instance of `cls` (a subclass of `base`) never runs `base.name` as its own `name`:
        `cls` or a class between them defines `name` again without calling `super().name(...)` or
        `base.name(self, ...)`."""
        caller = f"{base}.{name}"
        for owner in (cls, *self._ancestors(cls)):
            if owner == base or base not in self._ancestors(owner):
                continue   # `base` itself, or a class beside the line from `cls` up to it
            q = f"{owner}.{name}"
            fn = self.functions.get(q)
            if fn is not None and name not in fn.supers and caller not in fn.calls:
                return True
            if fn is None and q in self.cb.aliases and _resolve(self.cb, q, self.functions) != caller:
                return True   # `forward_npu = forward_cuda` in the class body
        return False

    def _ancestors(self, cls: str) -> list[str]:
        found = self.ancestors.get(cls)
        if found is None:
            found = []
            todo, seen = list(self.cb.classes[cls].bases), {cls}
            while todo:
                b = _resolve(self.cb, todo.pop(0), self.cb.classes)
                if b in seen or b not in self.cb.classes:
                    continue
                seen.add(b)
                found.append(b)
                todo.extend(self.cb.classes[b].bases)
            self.ancestors[cls] = found
        return found


def _public_functions(facts: list[FileFacts], functions: dict, cb: Codebase) -> set[str]:
    """No leading underscore in any module or name part, or exported by a package `__init__`.

    A public class's `__init__` is public: `Cls(...)` is how callers reach it.
    A function nested in another is never public: nothing outside can name it.
    """
    # A name with no part starting with "_" is public either way; only the others need `_public_name`.
    public = {q for q, fn in functions.items()
              if (("._" not in q and q[:1] != "_") or (fn.cls is not None and _public_name(q, True)))
              and q.rpartition(".")[0] not in functions}
    by_class: dict[str, list[str]] = {}
    for q, fn in functions.items():
        if fn.cls is not None:
            by_class.setdefault(fn.cls, []).append(q)
    for f in facts:
        if not f.file_path.endswith("__init__.py"):
            continue
        names = f.exports if f.exports is not None else [n for n in f.imports if not n.startswith("_")]
        for name in names:
            ref = _resolve(cb, f"{f.module}.{name}", functions)
            if ref in functions:
                public.add(ref)
                continue
            cls = _resolve(cb, ref, cb.classes)
            for q in by_class.get(cls, ()):
                short = q[len(cls) + 1:]
                if not short.startswith("_") or short in _CONSTRUCTORS:
                    public.add(q)
    return public


#: Methods that constructing the class runs: public when the class is.
_CONSTRUCTORS = ("__init__", "__post_init__")


def _public_name(qualname: str, method: bool) -> bool:
    """No name part starts with an underscore (a method's `__init__` or `__post_init__` aside)."""
    last = qualname.rpartition(".")[2]
    if method and last in _CONSTRUCTORS:
        qualname = qualname[:-len(last) - 1] if len(qualname) > len(last) else ""
    return not qualname.startswith("_") and "._" not in qualname


def _resolve(cb: Codebase, ref: str, table: dict) -> str:
    """`Codebase.resolve`, but an alias cycle (a.b -> a.b.c -> ...) leaves the name as is."""
    try:
        return cb.resolve(ref, table)
    except RecursionError:
        return ref
