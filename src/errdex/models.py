"""Typed values passed between the stages: source -> extract -> analyze -> store.

Each stage consumes the previous stage's output and knows nothing of later
stages. Workers return these across process boundaries, so they stay plain
(slots dataclasses of str/int/dict/list) and cheap to pickle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from errdex.seed import SCHEMA_VERSION, SEED_FIELDS  # noqa: F401 - re-exported: stages import them from here

#: Bump when extraction/analysis output changes: cached per-file results keyed
#: by an older version are ignored.
EXTRACTOR_VERSION = "128"


@dataclass(frozen=True, slots=True)
class SourceTree:
    """A codebase on disk at one exact version, ready to be read."""

    root: Path                 # folder the relative paths start from
    files: tuple[str, ...]     # posix paths of .py files relative to root, sorted
    repo: str                  # "owner/name" when known, else the folder/package name
    version: str               # git sha (+"-dirty"), package version, or --version
    kind: str                  # "folder" | "git" | "pypi" | "installed"
    sha: str | None = None     # full commit sha for git checkouts
    dirty: bool = False        # git tree had uncommitted changes
    github_repo: str | None = None   # "owner/name" when the code lives on GitHub
    permalink_ref: str | None = None  # sha or tag that githubUrl is pinned to
    url_prefix: str = ""       # path of root inside the GitHub repo ("python/")
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason) left out by the source

    @property
    def name(self) -> str:
        return f"{self.repo}@{self.version}"


@dataclass(slots=True)
class Diagnostic:
    """A file that could not be read or parsed; the run keeps going."""

    file_path: str
    reason: str      # short machine tag: "syntax", "python2", "decode", "binary", "oversized", "recursion", "io"
    detail: str      # human message


@dataclass(slots=True, frozen=True)
class Placeholder:
    """A runtime value inside a message: `name` is the text inside the braces
    (the expression as written, with `!r` and `:spec`), `expr` the expression alone."""

    name: str
    expr: str


@dataclass(slots=True)
class Template:
    """A message template as segments: `str` is literal text, `Placeholder` a runtime value.

    Kept as segments so the regex pattern never re-parses the template text,
    whose literal parts may hold braces themselves.
    """

    segments: list = field(default_factory=list)   # list[str | Placeholder]
    form: str = "literal"   # literal|fstring|percent|format|concat|variable|constant|helper|none|dynamic|tuple

    def text(self) -> str:
        return self.rendered()[0]

    def placeholders(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for s in self.segments:
            if isinstance(s, Placeholder):
                out.setdefault(s.name, s.expr)
        return out

    def groups(self) -> list[str]:
        """Placeholder name of each capture group of `pattern()`, in order."""
        return [s.name for s in self.segments if isinstance(s, Placeholder)]

    def pattern(self) -> str:
        return "".join(escape_literal(s) if isinstance(s, str) else "(.+?)" for s in self.segments)

    def literal_length(self) -> int:
        return sum(len(s) for s in self.segments if isinstance(s, str))

    def rendered(self) -> tuple[str, str, dict[str, str], list[str], int]:
        """(text, pattern, placeholders, groups, literal length) in one pass over the segments."""
        text, pattern, groups = [], [], []
        holes: dict[str, str] = {}
        literal = 0
        # In f-strings and str.format templates literal braces are written doubled: keep them so.
        doubled = self.form in _BRACE_FORMS and any(not isinstance(s, str) for s in self.segments)
        for s in self.segments:
            if isinstance(s, str):
                text.append(s.replace("{", "{{").replace("}", "}}") if doubled and ("{" in s or "}" in s) else s)
                pattern.append(escape_literal(s))
                literal += len(s)
            else:
                text.append("{" + s.name + "}")
                pattern.append("(.+?)")
                groups.append(s.name)
                holes.setdefault(s.name, s.expr)
        return "".join(text), "".join(pattern), holes, groups, literal


_BRACE_FORMS = frozenset({"fstring", "format", "tuple"})
_ESCAPES = {ord(c): "\\" + c for c in ".^$*+?{}[]\\|()"} | {ord("\n"): r"\n", ord("\t"): r"\t", ord("\r"): r"\r"}


def escape_literal(text: str) -> str:
    """Escape only regex metacharacters (and control characters), as the seed's messagePattern does."""
    return text.translate(_ESCAPES)


@dataclass(slots=True)
class ErrorSite:
    """One place in the code that can raise, assert or warn."""

    file_path: str
    line: int                       # line of the raise/assert/warn keyword or helper call
    function: str                   # qualified enclosing function, "<module>" at top level
    error_type: str                 # exception | assertion | warning | http
    error_class: str | None         # the class as written ("errors.KernelLimitError")
    class_ref: str | None           # dotted name after import resolution ("pkg.errors.KernelLimitError")
    message: Template
    severity: str = "error"
    http_status: int | None = None
    error_code: str | None = None
    helper: str | None = None       # qualified helper function when raised through one
    factory: bool = False           # raised object comes from a call to a non-class (`self._error(...)`)
    responds: bool = False          # answers an HTTP request with an error body, raises nothing (`extract.responses`)
    assert_test: str | None = None  # source of the assert's condition
    end_line: int = 0               # last line of the statement
    source_start: int = 0           # window: line - 18 .. line + 18, clipped
    source_end: int = 0
    source_code: str = ""
    # Local analysis (filled in the worker, where the AST is at hand).
    condition: str | None = None    # the whole path condition
    guard: str | None = None        # the site's own guard (without earlier raise-only checks)
    condition_exact: bool | None = None
    condition_reason: str | None = None
    feeding: list[str] = field(default_factory=list)
    condition_calls: list[str] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)   # `for x in xs` headers around the site, outermost first
    #: handlers of the trys of its own function around the site (`analyze.caught`), innermost first
    handlers: list = field(default_factory=list)
    #: parameters (or chains on them) the function changes before the site that its guard reads
    changed: list[str] = field(default_factory=list)
    #: locals of the function its guard reads that no feeding line assigns (bound in a `try`,
    #: a `with`, a branch): no caller has them, so no caller-side guard may read them
    unfed: list[str] = field(default_factory=list)
    #: neither its guard nor a feeding line reads a parameter of its function (`self` included):
    #: no caller passes what decides it
    no_input: bool = False
    #: an assert whose test holds wherever it is reached (condition False, yet the line runs)
    holds: bool = False
    #: the condition holds only for values no order holds for (NaN): numbers never meet it
    unordered: bool = False
    #: an assert whose own test reads parameters of its function and no other local (`self` aside):
    #: it checks what its caller passed, an input, not a state the function assumes
    checks_args: bool = False
    #: digest of what the local analysis read (its function's text up to the end of the body statement
    #: holding the site, the function's summaries, the site's place and its placeholders: `analyze.reuse`):
    #: a later version of the file reuses the analysis of a site with the same key
    analysis_key: bytes = b""
    #: parameters whose literal default the path refutes (`analyze.optional_args`): a call must pass them
    optional_args: dict[str, dict] = field(default_factory=dict)
    #: calls on the way to the site (`analyze.earlier_calls`) as (callee resolved through the
    #: file's imports and `self`, line, callee as written): one that raises stops the way
    earlier_calls: list[tuple[str, int, str]] = field(default_factory=list)
    #: module-level names the condition, feeding lines and placeholders read -> the import that
    #: binds each outside the module (`extract.module_names`): a snippet replaying the check needs them
    imports: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class ClassFacts:
    """A class defined in the codebase, with its bases as resolved dotted names."""

    qualname: str                    # "pkg.mod.KernelLimitError"
    bases: list[str]                 # resolved dotted names ("builtins.ValueError", "pkg.errors.Base")
    error_code: str | None = None    # class attribute code/error_code when a literal
    #: how its constructor is declared here (`extract.initargs`: "init", "fields" or "" when
    #: inherited) and the arguments it keeps as attributes of the same name
    init_kind: str = ""
    init_args: tuple[str, ...] = ()


@dataclass(slots=True)
class HelperDef:
    """A function that raises (or warns with, or answers an HTTP error with) one of its parameters
    as the message."""

    qualname: str                # "pkg.mod.fail" or "pkg.mod.Cls.fail"
    param: str                   # parameter that becomes the message
    param_index: int             # positional index (excluding self/cls for methods)
    site: ErrorSite              # the raise inside the helper; its message holds `{param}`
    params: list[str] = field(default_factory=list)   # all its parameters, in order (without self/cls)
    #: an error-response helper's parameters a call may give another status or error kind in
    status_param: str | None = None
    kind_param: str | None = None


@dataclass(slots=True)
class HelperCall:
    """A call whose target may be a helper, with a message-like first argument."""

    callee: str                  # dotted callee as resolved through imports ("pkg.mod.fail", "self.fail")
    site: ErrorSite              # prospective site located at the call (class filled in when linked)
    args: dict[str, Template]    # str(position) or keyword name -> the argument's template
    sources: dict[str, str] = field(default_factory=dict)   # every argument's source, for a call analyzed as a site
    statuses: dict[str, int] = field(default_factory=dict)  # arguments that are HTTP statuses (`HTTPStatus.NOT_FOUND`)


@dataclass(slots=True)
class FactoryDef:
    """A function that returns an exception built from its parameters (`def _bad(x): return
    ValueError(f"bad {x}")`): `raise _bad(n)` raises what it builds."""

    qualname: str                # "pkg.mod._bad" or "pkg.mod.Cls._bad"
    params: list[str]            # its parameters, without self/cls for methods
    site: ErrorSite              # the exception it returns: class, and a message over the parameters


@dataclass(slots=True)
class FunctionFacts:
    """A function's calls, for the call graph (callers and entry points)."""

    qualname: str                 # "pkg.mod.Cls.meth"
    line: int
    calls: list[str]              # callee names as resolved through imports ("pkg.mod.f", "self.g", "x.y")
    public: bool
    cls: str | None = None        # owning class qualname for methods
    binding: str = ""             # words: "static"/"class" (a staticmethod/classmethod: called on the class),
                                  # "async", "generator" (how a caller runs it); "" for a plain call
    # Callees called only inside `try` bodies: name -> the handler chains around its calls (one per
    # place, innermost try first; `extract.handlers.Handler`). An error the chains all stop never
    # reaches this function's callers through that call.
    guarded: dict[str, tuple[tuple[tuple[tuple[str, ...], bool], ...], ...]] = field(default_factory=dict)
    # Functions it passes as values to a call, which may run them (`asyncio.to_thread(f, x)`,
    # `Thread(target=self.loop)`, `pool.submit(work)`), resolved as `calls` are.
    passes: list[str] = field(default_factory=list)
    # Methods it calls through `super().name(...)` (names, sorted): the parent's method runs on this
    # function's instance, and a parent's method it overrides still runs when it calls that one.
    supers: list[str] = field(default_factory=list)
    # Its parameters in order (keyword-only ones after a "*"), to bind a caller's arguments to them.
    params: tuple[str, ...] = ()
    # Callee name -> each call of it, for callees every call of which follows a check reading what it
    # passes (`extract.checked_calls`): (receiver, argument texts, keyword texts, checks holding there).
    checks: dict[str, list[tuple]] = field(default_factory=dict)


@dataclass(slots=True)
class FileFacts:
    """Everything one worker learned from one file."""

    file_path: str
    module: str                   # dotted module name ("sglang.kernels.ops")
    sha256: str
    line_count: int
    sites: list[ErrorSite] = field(default_factory=list)
    classes: list[ClassFacts] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)
    #: "Class.name" -> dotted target of a class-body alias (`forward = OtherBackend.forward`)
    class_aliases: dict[str, str] = field(default_factory=dict)
    helpers: list[HelperDef] = field(default_factory=list)
    helper_calls: list[HelperCall] = field(default_factory=list)
    functions: list[FunctionFacts] = field(default_factory=list)
    exports: list[str] | None = None   # __all__ when a literal list
    string_constants: dict[str, str] = field(default_factory=dict)
    diagnostic: Diagnostic | None = None
    factories: list[FactoryDef] = field(default_factory=list)
    factory_calls: list[HelperCall] = field(default_factory=list)   # `raise f(...)` sites, args by position/name
    #: class qualname -> attribute -> the methods that assign `self.<attribute>` a value (not None/False),
    #: with analysis only: "`self.pool` is set by `register_pool`" on a page
    setters: dict[str, dict[str, list[str]]] = field(default_factory=dict)


@dataclass(slots=True)
class DatasetMeta:
    """What the store needs to publish one dataset (repo, version)."""

    repo: str
    version: str
    kind: str                       # source kind
    sha: str | None = None
    dirty: bool = False
    analyzed_sha: str | None = None  # written into each record's analyzedSha
    url_base: str | None = None     # "https://github.com/o/r/blob/<ref>/<prefix>" or None
    analyzed_at: str = ""           # ISO-8601 UTC, e.g. "2026-11-29T20:00:00.000Z"
    file_count: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.repo}@{self.version}"


@dataclass(slots=True)
class DatasetInfo:
    """A published dataset as the store reports it."""

    id: int
    repo: str
    version: str
    kind: str
    sha: str | None
    dirty: bool
    analyzed_sha: str | None
    url_base: str | None
    analyzed_at: str
    published_at: str               # ISO-8601 UTC: the record's "datasetVersion"
    file_count: int
    record_count: int
    diagnostic_count: int
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.repo}@{self.version}"
