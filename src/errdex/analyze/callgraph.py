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
"""

from __future__ import annotations

from dataclasses import dataclass, field

from errdex.extract.handlers import chain_stops
from errdex.extract.link import Codebase
from errdex.models import FileFacts
from errdex.records import is_test_path

MAX_CALLERS = 20
MAX_ENTRY_POINTS = 10
ENTRY_DEPTH = 4


@dataclass(slots=True)
class CallGraph:
    """Reverse edges (callee -> callers) and what counts as public."""

    callers_of: dict[str, set[str]] = field(default_factory=dict)
    public: set[str] = field(default_factory=set)
    test_functions: set[str] = field(default_factory=set)
    # (callee, caller) -> handler chains around every call of that edge (`FunctionFacts.guarded`)
    guarded: dict[tuple[str, str], tuple] = field(default_factory=dict)

    def callers(self, qualname: str) -> list[str]:
        """Direct callers, sorted, capped at MAX_CALLERS."""
        return sorted(self.callers_of.get(qualname, ()))[:MAX_CALLERS]

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
              error: tuple[frozenset[str], bool] | None = None) -> tuple[list[str], bool]:
        """`entry_points`, and whether the way up met a guarded edge: when it met none, the
        answer is the same for every class (a re-index may reuse it for a new one)."""
        out: list[str] = []
        seen = {qualname}
        frontier = [qualname]
        guarded = self.guarded
        met = False
        for level in range(depth + 1):
            for q in sorted(frontier):
                if q in self.public and (include_tests or q not in self.test_functions):
                    out.append(q)
                    if len(out) >= MAX_ENTRY_POINTS:
                        return out, met
            if level == depth:
                break
            nxt = []
            for q in frontier:
                for c in self.callers_of.get(q, ()):
                    # every edge of the level is looked at, seen caller or not: which of two edges
                    # reaches a caller first follows set order, and `met` must not
                    chains = guarded.get((q, c)) if guarded else None
                    if chains is not None:
                        met = True
                        if error is not None and all(chain_stops(chain, *error) for chain in chains):
                            continue   # not seen: another way up may still reach it
                    if c not in seen:
                        seen.add(c)
                        nxt.append(c)
            frontier = nxt
            if not frontier:
                break
        return out, met


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
    for fn in functions.values():
        caller = fn.qualname
        chains_of = fn.guarded
        own = fn.cls
        for call in fn.calls:
            target = known.get(call, False)
            if target is False:
                target = known[call] = resolver.callee(call)
            if own is not None and call.startswith(own) and call[len(own):len(own) + 1] == ".":
                # `self.m()`: on an instance of a subclass, its override runs
                more = resolver.overrides(own, call[len(own) + 1:])
                if more:
                    target = more if target is None else (
                        *(target if target.__class__ is tuple else (target,)), *more)
            if target is None:
                continue
            for one in target if target.__class__ is tuple else (target,):   # a class: `__init__`, `__post_init__`
                if one == caller:
                    continue
                callers_of.setdefault(one, set()).add(caller)
                if chains_of and call in chains_of:
                    guarded[(one, caller)] = guarded.get((one, caller), ()) + chains_of[call]
                else:
                    open_edges.add((one, caller))
        for passed in fn.passes:
            one = resolver.passed(passed)
            if one is not None and one != caller:
                callers_of.setdefault(one, set()).add(caller)
                open_edges.add((one, caller))
    graph.guarded = {edge: chains for edge, chains in guarded.items() if edge not in open_edges}
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

    def method(self, cls: str, name: str) -> str | None:
        """`name` as defined on `cls` or its nearest ancestor in the dataset."""
        for owner in (cls, *self._ancestors(cls)):
            q = f"{owner}.{name}"
            if q in self.functions:
                return q
        return None

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
