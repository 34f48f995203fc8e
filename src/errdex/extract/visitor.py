"""The per-file walker: finds every error site in one parsed module.

It walks statement lists only (raise, assert and the calls that warn or
raise through helpers are all statements or statement-level calls), never
every expression node: on a large codebase a full `ast.walk` costs as much as
parsing. Alongside sites it records what the cross-file link step needs:
classes, imports, helper definitions, helper calls and module constants.
"""

from __future__ import annotations

import ast
import re
from typing import Callable

from errdex.extract.checked_calls import checked_calls
from errdex.extract.constructors import constructor_of, in_parameters
from errdex.extract.earlier_calls import earlier_calls
from errdex.extract.handlers import Handler, caught_names, stops
from errdex.extract.initargs import init_arguments
from errdex.extract.lazy_exports import lazy_exports
from errdex.extract.logcalls import LOG_LEVELS, LOGGER_METHODS, is_logger
from errdex.extract.messages import MESSAGE_PARAM, STRING_LIKE, MessageBuilder, literal, whole
from errdex.extract.module_names import function_bound, import_statements, imports_read, own_definition
from errdex.extract.responses import STATUS_KWARGS, response_helper, status_value
from errdex.extract.scope import (
    BUILTIN_NAMES, class_named, collect_imports, dotted_source, looks_like_class, own_nodes, resolve_dotted,
)
from errdex.extract.unparse import simple_unparse
from errdex.models import (
    ClassFacts,
    ErrorSite,
    FactoryDef,
    FileFacts,
    FunctionFacts,
    HelperCall,
    HelperDef,
    Placeholder,
    Template,
)

_MESSAGE_KWARGS = ("message", "msg", "detail", "reason", "description", "error", "text", "err_msg", "error_message")
_CODE_KWARGS = ("error_code", "code", "errno", "err_code")
_WARN_FUNCS = frozenset({"warnings.warn", "warnings.warn_explicit"})
_ABORT_FUNCS = frozenset({"flask.abort", "werkzeug.exceptions.abort", "abort"})
#: Literal characters a log message needs to be a site: a log is full of `key=value` text, and
#: `{error_msg} rid={self.rid}` would flag every request line of a server's log.
_LOG_MIN_LITERAL = 12
# Calls that never raise through a codebase helper; skipped to keep the candidate list small.
_NOT_HELPERS = frozenset({"print", "len", "isinstance", "super", "setattr", "getattr", "format"})
#: Reporting and collecting methods: a message passed to them is not raised by a helper.
_LOG_METHODS = LOGGER_METHODS | {"append", "write", "extend", "add"}
# Calls are found on the *reversed* source: a pattern that starts with a literal
# `(` is scanned far faster than one starting with a look-behind, and a
# possessive name run cannot backtrack. Runs that are not dotted names are
# dropped by `_DOTTED`, which makes the result that of
# `(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*\(` on the forward text.
_CALL_REVERSED = re.compile(r"\(\s*([\w.]++)")
#: `super().name(`, or `super(Cls, self).name(` (taken as the enclosing class's parent).
_SUPER_CALL = re.compile(r"\bsuper\(\s*(?:[\w.]+\s*,\s*\w+\s*)?\)\s*\.\s*([A-Za-z_]\w*)\s*\(")
#: At most this many resolved calls on the way are kept per site: the first ones.
MAX_EARLIER_CALLS = 40
#: A string literal within one line (prefixes and f-strings included): its text is no code.
_ONE_LINE_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_LOCAL_DEF = re.compile(r"^[ \t]+(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)", re.M)
_DOTTED = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*")
# A dotted name given whole as an argument (`to_thread(f, x)`, `submit(self.work)`, `target=self.loop`):
# a function passed as a value, which the callee may run. `_resolve_call` keeps only names bound
# to the module's imports or definitions, or on `self`/`cls`. The pattern starts at one of three
# characters and never backtracks into a name (a third of the walker's time went to a pattern that
# tried every word character as the start of `word =`); a keyword's `=` is checked by `_after_word`.
_PASSED = re.compile(r"([(,=])\s*+((?:[A-Za-z_]\w*+\.)*+[A-Za-z_]\w*+)\s*+(?=[,)])")
#: Positional arguments of a call read as possible helper messages (`raise_error_or_warn(obj, strict,
#: counter_name, message)` passes its message fourth).
_HELPER_ARGS = 8

#: Called for each site with (scope node, path from scope to site statement, site, file's source lines).
SiteAnalyzer = Callable[[ast.AST, list, ErrorSite, list[str]], None]


class _Scope:
    __slots__ = ("node", "qualname", "kind", "cls", "locals", "caught", "params", "calls", "tries", "bases",
                 "messages")

    def __init__(self, node: ast.AST, qualname: str, kind: str, cls: str | None, params: list[str]):
        self.node = node
        self.qualname = qualname
        self.kind = kind          # "module" | "class" | "function"
        self.cls = cls            # enclosing class qualname (module-relative) for methods
        self.locals: dict[str, Template | ast.Call] = {}
        self.caught: set[str] = set()
        self.params = params
        self.tries: list[tuple[int, int, tuple[Handler, ...]]] = []   # try bodies' lines and handlers (calls only)
        self.calls: dict[str, str] = {}   # reversed names of the functions defined inside it -> qualnames
        self.bases: list[str] = []        # a class's bases as resolved dotted names
        self.messages = False             # a validator returning its error message (`_returns_messages`)


class ModuleWalker:
    """Walks one module's statements and fills a FileFacts."""

    def __init__(self, tree: ast.Module, source: str, lines: list[str], facts: FileFacts,
                 is_package: bool, analyze: SiteAnalyzer | None = None,
                 helper_lines: frozenset[int] = frozenset(), calls: bool = True) -> None:
        """`calls=False` records no `FunctionFacts`: only the call graph (analysis) reads them.

        `helper_lines` (known only after linking): analyze the helper calls on these lines
        alone; the file's own sites were analyzed when it was first walked.
        """
        self.tree = tree
        self.lines = lines
        self.source = source
        self.facts = facts
        self.module = facts.module
        self.is_package = is_package
        self.analyze = analyze
        self.helper_lines = helper_lines  # helper calls to analyze (known only after linking)
        self.analyze_sites = analyze is not None and not helper_lines
        self.imports = facts.imports
        self.local_defs: set[str] = set()
        self.import_lines: dict[str, str] = {}   # name -> the absolute import binding it (`module_names`)
        self.constants: dict[str, Template] = {}
        self.builder = MessageBuilder(self.source_of, self._lookup)
        self.scopes: list[_Scope] = []
        self._call_cache: dict[tuple[str, str | None], str | None] = {}
        self._factories: dict[str, list[FactoryDef]] = {}   # function -> the exceptions it returns
        self.path: list[ast.AST] = []
        self.want_calls = calls
        if analyze is None:  # the path from scope to statement is only the analyzer's input
            self._walk = self._walk_plain
            self._walk_child = self._walk_child_plain

    # -- entry ---------------------------------------------------------------

    def run(self) -> FileFacts:
        try:
            self._prescan_module(self.tree.body)
            for name, target in lazy_exports(self.tree.body, self.module, self.is_package).items():
                self.imports.setdefault(name, target)   # `from pkg import f` of a PEP 562 table's entry
            self.scopes.append(_Scope(self.tree, "<module>", "module", None, []))
            self._walk(self.tree.body)
            # A function is a factory when the exception it returns is one: it may return others elsewhere.
            self.facts.factories = [defs[0] for defs in self._factories.values() if len(defs) == 1]
        finally:
            # The builder holds bound methods of this walker: without this cycle broken the whole
            # syntax tree would wait for the cyclic GC instead of going with the last reference.
            # The plain walk methods bound in __init__ are such a cycle too.
            del self.builder
            self.__dict__.pop("_walk", None)
            self.__dict__.pop("_walk_child", None)
        return self.facts

    def _prescan_module(self, body: list[ast.stmt]) -> None:
        """Top-level names, imports and string constants, needed before any site is resolved."""
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                collect_imports(stmt, self.module, self.is_package, self.imports)
                import_statements(stmt, self.module, self.is_package, self.import_lines)
            elif isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                self.local_defs.add(stmt.name)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                self.local_defs.add(name)
                if name == "__all__" and isinstance(stmt.value, (ast.List, ast.Tuple)):
                    self.facts.exports = [e.value for e in stmt.value.elts
                                          if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                    continue
                t = self.builder.build(stmt.value)
                if t is not None and t.form in ("literal", "concat", "format", "percent") and t.segments:
                    t = Template(list(t.segments), "constant")
                    self.constants[name] = t
                    if all(isinstance(s, str) for s in t.segments):
                        self.facts.string_constants[name] = t.text()
            elif isinstance(stmt, ast.If):
                # try/except ImportError blocks and TYPE_CHECKING guards hold imports too.
                self._prescan_module(stmt.body)
                self._prescan_module(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                self._prescan_module(stmt.body)
                for h in stmt.handlers:
                    self._prescan_module(h.body)
                    self._optional_imports(h.body)

    def _optional_imports(self, handler: list[ast.stmt]) -> None:
        """`try: from kit import q` / `except ImportError: q = None`: what the module's name holds is
        the import or the fallback, so code outside it reads the name from this module (review 25:
        a guard `q is not None` after `from kit import q` cannot see the package missing)."""
        for stmt in handler:
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    for node in ast.walk(target):
                        if isinstance(node, ast.Name) and node.id in self.import_lines:
                            own = own_definition(self.module, node.id)
                            if own is not None:
                                self.import_lines[node.id] = own

    # -- names ---------------------------------------------------------------

    def source_of(self, node: ast.AST, as_written: bool = False) -> str:
        """Source text of an expression, falling back to ast.unparse when positions are off.

        `as_written`: the node is no part of an f-string, so its positions are exact
        (Python 3.11 misplaces only expressions inside f-strings): the text is taken as
        written, whitespace runs made one space, as a traceback quotes it. Only a comment
        or a backslash continuation in it sends it to the unparser.
        """
        try:
            l0, c0, l1, c1 = node.lineno, node.col_offset, node.end_lineno, node.end_col_offset
            if l0 == l1:
                seg = self.lines[l0 - 1].encode()[c0:c1].decode()
            else:
                first = self.lines[l0 - 1].encode()[c0:].decode()
                last = self.lines[l1 - 1].encode()[:c1].decode()
                seg = "\n".join([first, *self.lines[l0:l1 - 1], last])
        except (AttributeError, IndexError, UnicodeDecodeError, TypeError):
            seg = ""
        if seg and (_plausible(node, seg) or (as_written and "#" not in seg and "\\" not in seg)):
            return " ".join(seg.split()) if "\n" in seg else seg
        text = simple_unparse(node)
        if text is None:
            text = ast.unparse(node)
        if seg and _same_tokens(seg, text):
            return " ".join(seg.split()) if "\n" in seg else seg
        return text

    def _calls_in(self, node: ast.AST) -> tuple[list[str], list[str], list[str], str]:
        """Names this function calls, the functions it passes as values (`FunctionFacts.passes`),
        resolved through imports and `self`, the methods it calls on `super()` (`FunctionFacts.supers`),
        and the function's code they were read from.

        A regex over the function's source lines (excluding the `def` line),
        not an AST walk: a full walk of every expression costs as much as
        parsing the file. Only distinct names are resolved, each once per class.
        """
        segment = _code_text(node, self.lines)
        scope = self.scopes[-1]
        cls = scope.cls
        out: set[str] = set()
        # Functions defined inside this one, called by their bare names (`list(mapped())`).
        local = {name[::-1]: f"{self.module}.{scope.qualname}.{name}" for name in _LOCAL_DEF.findall(segment)} \
            if "def " in segment else {}
        reversed_names = set(_CALL_REVERSED.findall(segment[::-1]))
        if "import " in segment:   # names it imports itself (`from .kernels import run` inside it)
            imported = self._local_imports(node)
            for reversed_name in reversed_names:
                name = reversed_name[::-1]
                if name.partition(".")[0] in imported and reversed_name not in local and _DOTTED.fullmatch(name):
                    local[reversed_name] = resolve_dotted(name, self.module, imported, set())
        scope.calls = local
        texts = "'" in segment or '"' in segment or "#" in segment
        for reversed_name in reversed_names:
            resolved = self._callee(reversed_name, local, cls)
            if resolved is not None and not (texts and _only_in_text(reversed_name[::-1], segment)):
                out.add(resolved)
        supers = _super_calls(segment, texts) if cls is not None and "super(" in segment else []
        return sorted(out), self._passed_in(segment, local, out), supers, segment

    def _callee(self, reversed_name: str, local: dict[str, str], cls: str | None) -> str | None:
        """A called name (written backwards, as `_CALL_REVERSED` finds it) resolved: a function
        defined inside the caller (`local`), else through imports and `self` (cached per class)."""
        found = local.get(reversed_name)
        if found is not None:
            return found
        key = (reversed_name, cls)
        resolved = self._call_cache.get(key, False)
        if resolved is False:
            name = reversed_name[::-1]
            resolved = self._call_cache[key] = self._resolve_call(name) if _DOTTED.fullmatch(name) else None
        return resolved

    def _passed_in(self, segment: str, local: dict[str, str], called: set[str]) -> list[str]:
        """Functions named whole as an argument: bound to the module's imports or definitions, on
        `self`/`cls`, or defined inside this function (a called name is a call already)."""
        cache = self._call_cache
        cls = self.scopes[-1].cls
        out: set[str] = set()
        texts = "'" in segment or '"' in segment or "#" in segment
        found = {}
        for m in _PASSED.finditer(segment):
            if (m[1] != "=" or _after_word(segment, m.start())) and m[2] not in found:
                found[m[2]] = m.start()
        for name, at in found.items():
            reversed_name = name[::-1]
            resolved = local.get(reversed_name)
            if resolved is None:
                key = (reversed_name, cls)
                resolved = cache.get(key, False)
                if resolved is False:
                    resolved = cache[key] = self._resolve_call(name)
            if resolved is not None and resolved not in called \
                    and not (texts and _only_in_text(name, segment, call=False)) \
                    and not _stored_by_constructor(segment, at):
                out.add(resolved)
        return sorted(out)

    def _local_imports(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
        """Local name -> dotted target of the imports in a function's own blocks (nested
        definitions aside): a statement walk, run only when its text holds `import `."""
        imported: dict[str, str] = {}
        stack: list[ast.AST] = list(node.body)
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                collect_imports(stmt, self.module, self.is_package, imported)
            elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    stack.extend(getattr(stmt, field, ()) or ())
        return imported

    def _guarded_calls(self, node: ast.AST, scope: _Scope, calls: set[str]) -> dict[str, tuple]:
        """`FunctionFacts.guarded`: the callees this function calls only inside `try` bodies whose
        handlers stop some error, with the handler chains around each place it is called.

        Lines are grouped by the tries around them (innermost first) and each group is read
        with `_calls_in`'s regex; a callee also called on a line outside every such try, or
        under handlers that stop nothing, is left out: its errors reach the callers."""
        tries = scope.tries
        groups: dict[tuple[Handler, ...], list[str]] = {}
        for number in range(node.lineno + 1, node.end_lineno + 1):
            around = sorted((t for t in tries if t[0] <= number <= t[1]), key=lambda t: -t[0])
            chain = tuple(h for t in around for h in t[2])
            groups.setdefault(chain if any(stopping for _, stopping in chain) else (), []).append(
                self.lines[number - 1])
        if len(groups) == 1 and () in groups:
            return {}
        cache, cls = self._call_cache, scope.cls
        places: dict[str, list[tuple[Handler, ...]]] = {}
        for chain, lines in groups.items():
            for reversed_name in set(_CALL_REVERSED.findall("\n".join(lines)[::-1])):
                resolved = scope.calls.get(reversed_name) or cache.get((reversed_name, cls), None)
                if resolved in calls:
                    places.setdefault(resolved, []).append(chain)
        return {name: tuple(chains) for name, chains in sorted(places.items()) if () not in chains}

    def _resolve_call(self, name: str) -> str | None:
        head = name.partition(".")[0]
        if head in ("self", "cls"):
            if name == "cls":   # `cls(...)` in a classmethod constructs its class (review 18: `from_config`)
                cls = self.scopes[-1].cls
                return f"{self.module}.{cls}" if cls is not None else None
            return self._resolve(name) if "." in name else None
        if head in self.imports or head in self.local_defs:
            return resolve_dotted(name, self.module, self.imports, self.local_defs)
        return None

    def _lookup(self, name: str) -> Template | None:
        scope = self.scopes[-1] if self.scopes else None
        if scope is not None and scope.kind == "function":
            found = scope.locals.get(name)
            if isinstance(found, Template):
                return Template(list(found.segments), "variable")
            if name in scope.params:
                return None
        return self.constants.get(name)

    def _resolve(self, written: str) -> str:
        scope = self.scopes[-1]
        head, _, rest = written.partition(".")
        if head in ("self", "cls") and scope.cls is not None and rest:
            return f"{self.module}.{scope.cls}.{rest}"
        return resolve_dotted(written, self.module, self.imports, self.local_defs)

    # -- walking ---------------------------------------------------------------

    def _walk(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.path.append(stmt)
            handler = _HANDLERS.get(type(stmt))
            if handler is not None:
                handler(self, stmt)
            self.path.pop()

    def _walk_plain(self, body: list[ast.stmt]) -> None:
        """`_walk` without keeping `path`, when no analyzer will ask for it."""
        handlers = _HANDLERS
        for stmt in body:
            handler = handlers.get(stmt.__class__)
            if handler is not None:
                handler(self, stmt)

    def _walk_child(self, node: ast.AST, body: list[ast.stmt]) -> None:
        self.path.append(node)
        self._walk(body)
        self.path.pop()

    def _walk_child_plain(self, node: ast.AST, body: list[ast.stmt]) -> None:
        self._walk(body)

    # Compound statements: blocks in the order body, orelse, finalbody, handlers, cases
    # (local templates depend on the order assignments are seen).

    def _branches(self, stmt: ast.If | ast.For | ast.AsyncFor | ast.While) -> None:
        self._walk(stmt.body)
        if stmt.orelse:
            self._walk(stmt.orelse)

    def _with(self, stmt: ast.With | ast.AsyncWith) -> None:
        self._walk(stmt.body)

    def _try(self, stmt: ast.Try | ast.TryStar) -> None:
        scope = self.scopes[-1]
        if self.want_calls and scope.kind == "function" and stmt.body and stmt.handlers:
            scope.tries.append((stmt.body[0].lineno, stmt.body[-1].end_lineno,
                                tuple((caught_names(h), stops(h)) for h in stmt.handlers)))
        self._walk(stmt.body)
        if stmt.orelse:
            self._walk(stmt.orelse)
        if stmt.finalbody:
            self._walk(stmt.finalbody)
        for h in stmt.handlers:
            scope = self.scopes[-1]
            added = h.name is not None and h.name not in scope.caught
            if added:
                scope.caught.add(h.name)
            self._walk_child(h, h.body)
            if added:
                scope.caught.discard(h.name)

    def _match(self, stmt: ast.Match) -> None:
        for case in stmt.cases:
            self._walk_child(case, case.body)

    def _function(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer = self.scopes[-1]
        qual = stmt.name if outer.kind == "module" else f"{outer.qualname}.{stmt.name}"
        args = stmt.args
        params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        cls = outer.qualname if outer.kind == "class" else None
        scope = _Scope(stmt, qual, "function", cls, params)
        scope.messages = _returns_messages(stmt)
        self.scopes.append(scope)
        function = None
        if self.want_calls:   # only the call graph (analysis) reads functions
            calls, passes, supers, segment = self._calls_in(stmt)
            function = FunctionFacts(
                f"{self.module}.{qual}", stmt.lineno, calls,
                not any(part.startswith("_") for part in qual.split(".")),
                f"{self.module}.{cls}" if cls else None,
                _binding(stmt, cls is not None, self.lines, any(b.endswith(_AUTOGRAD) for b in outer.bases)),
                passes=passes, supers=supers, params=_signature(args))
            function.checks = checked_calls(stmt.body, lambda name: self._callee(name[::-1], scope.calls, cls)
                                            if _DOTTED.fullmatch(name) else None, segment)
            self.facts.functions.append(function)
        saved = self.path
        self.path = []
        self._walk(stmt.body)
        self.path = saved
        self.scopes.pop()
        self._note_response_helper(stmt, scope)
        if scope.tries and function is not None:
            function.guarded = self._guarded_calls(stmt, scope, set(function.calls))

    def _note_response_helper(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        """A function answering an HTTP error with its message parameter (`extract.responses`) is a
        helper whose calls are sites; its own response call is none (its message is all parameter)."""
        params = scope.params[1:] if scope.cls is not None and scope.params[:1] in (["self"], ["cls"]) else scope.params
        if not params or not any("status" in line or "code" in line
                                 for line in self.lines[stmt.lineno:stmt.end_lineno or stmt.lineno]):
            return   # no status keyword in its text (most functions): no walk of its nodes
        found = response_helper(stmt, params)
        if found is None:
            return
        site = ErrorSite(self.facts.file_path, found.line, scope.qualname, "http", found.kind or found.written, None,
                         Template([Placeholder(found.param, found.param)], "variable"), http_status=found.status,
                         end_line=found.line)
        site.condition, site.responds = "True", True
        qual = f"{self.module}.{scope.qualname}"
        self.facts.helpers.append(HelperDef(qual, found.param, params.index(found.param), site, list(params),
                                            found.status_param, found.kind_param))

    def _class(self, stmt: ast.ClassDef) -> None:
        outer = self.scopes[-1]
        qual = stmt.name if outer.kind == "module" else f"{outer.qualname}.{stmt.name}"
        bases = []
        for b in stmt.bases:
            d = dotted_source(b)
            if d is not None:
                bases.append(self._resolve(d))
        code = None
        methods: set[str] = set()
        for s in stmt.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.add(s.name)
            elif (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                    and s.targets[0].id in _CODE_KWARGS and isinstance(s.value, ast.Constant)
                    and isinstance(s.value.value, (str, int)) and not isinstance(s.value.value, bool)):
                code = str(s.value.value)
            elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                    and isinstance(s.value, (ast.Name, ast.Attribute)):
                # `forward = OtherBackend.forward`, `__call__ = run`: a method by another name (review 22 #8)
                written = dotted_source(s.value)
                if written is not None:
                    target = f"{self.module}.{qual}.{written}" if written in methods else self._resolve(written)
                    if "." in target:
                        self.facts.class_aliases[f"{qual}.{s.targets[0].id}"] = target
        self.facts.classes.append(ClassFacts(f"{self.module}.{qual}", bases, code, *init_arguments(stmt)))
        self._note_constructor(stmt, qual)
        scope = _Scope(stmt, qual, "class", None, [])
        scope.bases = bases
        self.scopes.append(scope)
        saved = self.path
        self.path = []
        self._walk(stmt.body)
        self.path = saved
        self.scopes.pop()

    def _note_constructor(self, stmt: ast.ClassDef, qual: str) -> None:
        """A class whose constructor or `__str__` shapes its message (`extract.constructors`): a
        factory named by the class, which `raise Cls(...)` sites anywhere are linked to."""
        found = constructor_of(stmt)
        if found is None:
            return
        self.scopes.append(_Scope(found.init, f"{qual}.__init__", "function", qual, ["self", *found.params]))
        try:
            node = found.shown if found.shown is not None else found.message
            if isinstance(node, ast.Name):   # `super().__init__(why)`: a parameter as it is
                template = Template([Placeholder(node.id, node.id)], "variable")
            else:
                template = self.builder.build(node) if node is not None else None
        finally:
            self.scopes.pop()
        template = in_parameters(template, found, found.shown is not None) if template is not None else None
        if template is None:
            return
        cls = f"{self.module}.{qual}"
        site = ErrorSite(self.facts.file_path, stmt.lineno, qual, "exception", stmt.name, cls, template,
                         end_line=stmt.end_lineno or stmt.lineno)
        self._factories.setdefault(cls, []).append(FactoryDef(cls, found.params, site))

    def _assign(self, stmt: ast.Assign) -> None:
        scope = self.scopes[-1]
        if scope.kind != "function":
            return
        targets = stmt.targets
        if len(targets) != 1 or targets[0].__class__ is not ast.Name:
            if self.want_calls and scope.cls is not None:
                for target in targets:
                    self._setter(scope, target, stmt.value)
            return
        name = targets[0].id
        value = stmt.value
        kind = value.__class__
        if kind is ast.Call and looks_like_class(value.func):
            scope.locals[name] = value
            return
        # Only these node types can build a template: skip the builder for the rest.
        t = self.builder.build(value) if kind in STRING_LIKE else None
        if t is not None:
            scope.locals[name] = t
        elif scope.locals:
            scope.locals.pop(name, None)

    def _setter(self, scope: _Scope, target: ast.expr, value: ast.expr | None) -> None:
        """Note `self.attr = value` in a method (`FileFacts.setters`); a None or False value unsets it."""
        if (target.__class__ is ast.Attribute and target.value.__class__ is ast.Name and scope.params
                and target.value.id == scope.params[0]
                and not (value.__class__ is ast.Constant and value.value in (None, False))
                and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                            for d in scope.node.decorator_list)):   # their first parameter is no instance
            methods = self.facts.setters.setdefault(f"{self.module}.{scope.cls}", {}).setdefault(target.attr, [])
            method = scope.qualname.rpartition(".")[2]
            if method not in methods:
                methods.append(method)

    def _ann_assign(self, stmt: ast.AnnAssign) -> None:
        scope = self.scopes[-1]
        if scope.kind != "function":
            return
        if self.want_calls and scope.cls is not None and stmt.value is not None:
            self._setter(scope, stmt.target, stmt.value)
        if isinstance(stmt.target, ast.Name) and stmt.value is not None:
            t = self.builder.build(stmt.value)
            if t is not None:
                scope.locals[stmt.target.id] = t

    def _aug_assign(self, stmt: ast.AugAssign) -> None:
        scope = self.scopes[-1]
        if scope.kind != "function":
            return
        if isinstance(stmt.target, ast.Name) and isinstance(stmt.op, ast.Add):
            prev = scope.locals.get(stmt.target.id)
            if isinstance(prev, Template):
                add = self.builder.build_or_dynamic(stmt.value)
                scope.locals[stmt.target.id] = Template([*prev.segments, *add.segments], prev.form)

    # -- sites ---------------------------------------------------------------

    def _raise(self, stmt: ast.Raise) -> None:
        exc = stmt.exc
        if exc is None:
            return  # bare raise: re-raises, not a new site
        scope = self.scopes[-1]
        if isinstance(exc, ast.Name):
            if exc.id in scope.caught:
                return  # `except E as e: raise e` re-raises
            bound = scope.locals.get(exc.id) if scope.kind == "function" else None
            if isinstance(bound, ast.Call):
                exc = bound
            elif exc.id in scope.params or (exc.id[:1].islower() and exc.id not in BUILTIN_NAMES
                                             and exc.id not in self.local_defs and exc.id not in self.imports):
                return  # an exception object passed in or built elsewhere: nothing to template
        if isinstance(exc, ast.Call):
            self._raise_call(stmt, exc)
            return
        written = dotted_source(exc) or self.source_of(exc)
        self._add_site(stmt, "exception", written, literal(""))

    def _raise_call(self, stmt: ast.stmt, call: ast.Call) -> None:
        written = dotted_source(call.func) or self.source_of(call.func)
        status = _http_status(call, written)
        msg_node = _message_arg(call, skip_first=status is not None and _kw(call, STATUS_KWARGS) is None)
        template = self.builder.build_or_dynamic(msg_node) if msg_node is not None else literal("")
        site = self._add_site(stmt, "http" if status is not None else "exception", written, template,
                              http_status=status, error_code=_kwarg_code(call))
        if site is None:
            return
        site.factory = not looks_like_class(call.func)   # `raise self._error(...)`: the class is what it returns
        # a class of the codebase may print other than its first argument (`extract.constructors`)
        codebase_class = status is None and (call.args or call.keywords) and site.class_ref \
            and not site.class_ref.startswith("builtins.")
        if site.factory or codebase_class:
            self.facts.factory_calls.append(HelperCall(site.class_ref or written, site, self._call_args(call)))

    def _call_args(self, call: ast.Call) -> dict[str, Template]:
        """Each argument as a template: its text when string-like, else its source as one placeholder."""
        args: dict[str, Template] = {}
        for i, a in enumerate(call.args[:_HELPER_ARGS]):
            args[str(i)] = self._arg_template(a)
        for k in call.keywords:
            if k.arg is not None:
                args[k.arg] = self._arg_template(k.value)
        return args

    def _arg_template(self, node: ast.expr) -> Template:
        found = self.builder.build(node)
        return found if found is not None else whole(self.source_of(node))

    def _note_factory(self, stmt: ast.Return, call: ast.Call) -> None:
        """`return SomeError(f"... {param} ...")` in a function: what `raise f(...)` raises (linked later)."""
        scope = self.scopes[-1]
        written = dotted_source(call.func) or self.source_of(call.func)
        status = _http_status(call, written)
        msg_node = _message_arg(call, skip_first=status is not None and _kw(call, STATUS_KWARGS) is None)
        template = self.builder.build_or_dynamic(msg_node) if msg_node is not None else literal("")
        site = ErrorSite(self.facts.file_path, stmt.lineno, scope.qualname, "http" if status is not None else "exception",
                         written, self._resolve(written), template, http_status=status,
                         error_code=_kwarg_code(call), end_line=stmt.end_lineno or stmt.lineno)
        params = scope.params[1:] if scope.cls is not None and scope.params[:1] in (["self"], ["cls"]) else scope.params
        qual = f"{self.module}.{scope.qualname}"
        self._factories.setdefault(qual, []).append(FactoryDef(qual, list(params), site))

    def _assert(self, stmt: ast.Assert) -> None:
        if stmt.msg is None:
            template = literal("")
        elif stmt.msg.__class__ is ast.Tuple:   # shown as the tuple's repr
            template = self.builder.tuple_message(stmt.msg)
        else:
            template = self.builder.build_or_dynamic(stmt.msg)
        site = self._add_site(stmt, "assertion", "AssertionError", template)
        if site is not None:
            site.assert_test = self.source_of(stmt.test, as_written=True)

    def _expr_call(self, stmt: ast.Expr | ast.Return) -> None:
        call = stmt.value
        if stmt.__class__ is ast.Return and call is not None and self.scopes[-1].messages:
            self._returned(stmt, call)
        if not isinstance(call, ast.Call):
            return
        if stmt.__class__ is ast.Return and looks_like_class(call.func) and self.scopes[-1].kind == "function":
            self._note_factory(stmt, call)
        written = dotted_source(call.func)
        if written is None:
            return
        resolved = self._resolve(written)
        if resolved in _WARN_FUNCS:
            self._warn(stmt, call)
        elif (level := _log_level(written)) is not None:
            self._log(stmt, call, written, level)
        elif resolved in _ABORT_FUNCS or written.endswith(".abort") or written == "abort":
            status = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
            if isinstance(status, int) and not isinstance(status, bool):
                msg = call.args[1] if len(call.args) > 1 else _kw(call, ("description", "detail", "message"))
                template = self.builder.build_or_dynamic(msg) if msg is not None else literal("")
                self._add_site(stmt, "http", written, template, http_status=status)
        else:
            self._candidate_helper_call(stmt, call, written, resolved)

    def _returned(self, stmt: ast.Return, value: ast.expr) -> None:
        """`return f"Input length ({n} tokens) exceeds ..."` in a validator that returns its error
        message (`_returns_messages`): its caller fails the request with that text, which users
        report as they do a raised one (errorType `returned`, no class)."""
        if value.__class__ is ast.Constant and value.value is None:
            return
        template = self.builder.build(value)
        if template is None or template.form == "dynamic" \
                or sum(len(s.strip()) for s in template.segments if isinstance(s, str)) < _LOG_MIN_LITERAL:
            return
        site = self._add_site(stmt, "returned", "str", template)
        if site is not None:
            site.error_class = site.class_ref = None

    def _warn(self, stmt: ast.stmt, call: ast.Call) -> None:
        msg = call.args[0] if call.args else _kw(call, ("message",))
        cat = call.args[1] if len(call.args) > 1 else _kw(call, ("category",))
        written = (dotted_source(cat) or self.source_of(cat)) if cat is not None else "UserWarning"
        template = self.builder.build_or_dynamic(msg) if msg is not None else literal("")
        self._add_site(stmt, "warning", written, template, severity="warning")

    def _log(self, stmt: ast.stmt, call: ast.Call, written: str, severity: str) -> None:
        """`logger.error(msg, *args)`: what a log shows as an error is a site too (errorType "log",
        the call as written for its class). `%`-style arguments fill the message as `msg % args`
        does; a message with no literal text of its own (`logger.exception(e)`) is left out: it
        says nothing a text could be matched by, nor one with under `_LOG_MIN_LITERAL` literal characters."""
        if not call.args or isinstance(call.args[0], ast.Starred):
            return
        msg = call.args[0]
        rest = call.args[1:]
        if rest and not any(isinstance(a, ast.Starred) for a in rest) and isinstance(msg, ast.Constant) \
                and isinstance(msg.value, str) and "%" in msg.value:
            msg = ast.copy_location(ast.BinOp(msg, ast.Mod(), ast.Tuple(list(rest), ast.Load())), msg)
        template = self.builder.build(msg)
        if template is None or sum(len(s.strip()) for s in template.segments if isinstance(s, str)) < _LOG_MIN_LITERAL:
            return
        site = self._add_site(stmt, "log", written, template, severity=severity)
        if site is not None:
            site.class_ref = None   # a logger's method, not a class

    def _candidate_helper_call(self, stmt: ast.stmt, call: ast.Call, written: str, resolved: str) -> None:
        last = written.rsplit(".", 1)[-1]
        if written in _NOT_HELPERS or last in _LOG_METHODS or written.startswith(("log", "logger", "self.log")):
            return
        args: dict[str, Template] = {}
        for i, a in enumerate(call.args[:_HELPER_ARGS]):
            t = self.builder.build(a)
            if t is not None:
                args[str(i)] = t
        for k in call.keywords:
            if k.arg is not None:
                t = self.builder.build(k.value)
                if t is not None:
                    args[k.arg] = t
        if not args:
            return
        site = ErrorSite(self.facts.file_path, stmt.lineno, self._function_name(), "exception", None, None,
                         Template([], "helper"), end_line=stmt.end_lineno or stmt.lineno)
        sources: dict[str, str] = {}
        if self.analyze is not None and stmt.lineno in self.helper_lines:
            self._analyze(site)
            sources = self._arg_sources(call)
        statuses = {}
        for key, value in (*((str(i), a) for i, a in enumerate(call.args[:_HELPER_ARGS])),
                           *((k.arg, k.value) for k in call.keywords)):
            if value.__class__ in (ast.Attribute, ast.Constant) and (status := status_value(value)) is not None:
                statuses[key] = status
        self.facts.helper_calls.append(HelperCall(resolved, site, args, sources, statuses))

    def _arg_sources(self, call: ast.Call) -> dict[str, str]:
        """Every argument's source text (a spread `*xs` or `**kw` as such), by position or keyword."""
        out: dict[str, str] = {}
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred):   # the positions after it are not known
                out[str(i)] = "*" + self.source_of(a.value)
                break
            out[str(i)] = self.source_of(a)
        for k in call.keywords:
            out[k.arg if k.arg is not None else "**"] = self.source_of(k.value)
        return out

    def _add_site(self, stmt: ast.stmt, error_type: str, written: str, template: Template, *,
                  severity: str = "error", http_status: int | None = None,
                  error_code: str | None = None) -> ErrorSite | None:
        site = ErrorSite(self.facts.file_path, stmt.lineno, self._function_name(), error_type, written,
                         self._resolve(written), template, severity=severity, http_status=http_status,
                         error_code=error_code, end_line=stmt.end_lineno or stmt.lineno)
        if self.analyze_sites:
            self._analyze(site)
        self.facts.sites.append(site)
        self._note_helper(site, template)
        return site

    def _note_helper(self, site: ErrorSite, template: Template) -> None:
        """A function that passes one of its parameters into the message is a helper.

        The parameter must be the whole message, or be named like a message
        (`msg`, `reason`, `what`...): `def f(x): raise ValueError(f"bad {x}")`
        validates x, it is not a helper for callers' messages.
        """
        scope = self.scopes[-1]
        if scope.kind != "function" or not scope.params:
            return
        params = scope.params[1:] if scope.cls is not None and scope.params[0] in ("self", "cls") else scope.params
        holes = [s for s in template.segments if not isinstance(s, str)]
        if len(holes) != 1 or holes[0].expr not in params:
            return
        param = holes[0].expr
        if len(template.segments) == 1 or MESSAGE_PARAM.search(param):
            qual = f"{self.module}.{scope.qualname}"
            self.facts.helpers.append(HelperDef(qual, param, params.index(param), site, list(params)))

    def _analyze(self, site: ErrorSite) -> None:
        scope = self.scopes[-1]
        try:
            self.analyze(scope.node, list(self.path), site, self.lines)
            if scope.kind != "class":
                site.earlier_calls = self._resolved_calls(earlier_calls(scope.node, self.path, self._text_calls),
                                                          scope)
                site.imports = self._imports_read(site, scope)
        except RecursionError:
            site.condition_reason = "analysis recursion limit"
        except Exception as exc:  # an analyzer bug must not lose the site
            site.condition_reason = f"analysis failed: {type(exc).__name__}"
        if site.checks_args and any(s.kind == "function" for s in self.scopes[:-1]):
            site.checks_args = False   # review 18: a nested function's other names may be its outer one's locals

    def _imports_read(self, site: ErrorSite, scope: _Scope) -> dict[str, str]:
        """The module-level names the site's condition, feeding lines and placeholders read, each
        with the import that gives it to code outside the function (not the analysis' result:
        the module's imports may change while the function does not)."""
        if site.condition is None:
            return {}
        texts = [site.condition, *site.feeding, *site.loops,
                 *(s.expr for s in site.message.segments if isinstance(s, Placeholder) and s.expr)]
        if scope.kind == "module":   # its own names are its feeding lines': only imports are missing
            return imports_read(texts, self.import_lines, set(), self.module, frozenset())
        return imports_read(texts, self.import_lines, self.local_defs, self.module, function_bound(scope.node))

    def _text_calls(self, node: ast.AST) -> list[tuple[str, int]]:
        """(name as written, line) of the calls in a node's source text, left to right, read with
        `_calls_in`'s regex; the first and last lines cut at the node's columns where they are ASCII
        (offsets count bytes), so `if x: return f()` gives no call for its test."""
        first, last = node.lineno, node.end_lineno or node.lineno
        texts = self.lines[first - 1:last]
        if not texts:
            return []
        if texts[-1].isascii() and node.end_col_offset is not None:
            texts[-1] = texts[-1][:node.end_col_offset]
        if texts[0].isascii():
            texts[0] = texts[0][node.col_offset:]
        out = []
        for number, text in enumerate(texts, first):
            if "(" in text:
                if "'" in text or '"' in text:   # `"call setup() first"` names no call
                    text = _ONE_LINE_STRING.sub("''", text)
                if "#" in text:
                    text = text.partition("#")[0]
                if "lambda" in text:   # `key=lambda x: f(x)` makes no call: read from the tree
                    return _tree_calls(node)
                out.extend((name[::-1], number) for name in reversed(_CALL_REVERSED.findall(text[::-1])))
        return out

    def _resolved_calls(self, calls: list[tuple[str, int]], scope: _Scope) -> list[tuple[str, int, str]]:
        """`earlier_calls`' callees resolved as the call graph's are; those naming nothing of the
        codebase's namespace (builtins, attributes of values) left out."""
        out = []
        for name, line in calls:
            resolved = self._callee(name[::-1], scope.calls, scope.cls)
            if resolved is not None and not resolved.startswith("builtins."):
                out.append((resolved, line, name))
                if len(out) >= MAX_EARLIER_CALLS:
                    break
        return out

    def _function_name(self) -> str:
        for scope in reversed(self.scopes):
            if scope.kind == "function":
                return scope.qualname
        return "<module>"


#: A validator's name (`validate_input_length`, `_validate_request`, `check_dflash_request`).
_VALIDATOR_NAME = re.compile(r"_*(?:validate|verify|check)(?:_|$)")
#: `Optional[str]`, `str | None`, `Union[str, None]` (or the same written as a string).
_OPTIONAL_STR = re.compile(r"(?:typing\.)?Optional\[str\]|str \| None|None \| str|(?:typing\.)?Union\[str, None\]")


def _returns_messages(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A validator that returns its error message, or None when all is well: named so (`validate_*`,
    `_validate_*`, `check_*`) and annotated `-> Optional[str]` (set 2, set 3: `validate_input_length`'s
    `Input length (...) exceeds the maximum allowed length` is aborted with, never raised)."""
    returns = fn.returns
    if returns is None or not _VALIDATOR_NAME.match(fn.name):
        return False
    text = returns.value if isinstance(returns, ast.Constant) and isinstance(returns.value, str) else ast.unparse(returns)
    return _OPTIONAL_STR.fullmatch(text.strip()) is not None


#: Classes whose constructor is given a function to run soon (on a thread or process of its own).
_RUNNERS = frozenset({"Thread", "Process", "Timer"})
_RECEIVER = re.compile(r"((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*$")


def _stored_by_constructor(segment: str, at: int) -> bool:
    """Whether the value passed at `at` goes to a class's constructor (`VisionAttention(...,
    applier=apply_rope)`, a dispatch table `TypeBasedDispatcher([(Req, self.handle)])`): the object
    keeps the function and calls it later, from one of its own methods, so constructing it calls
    nothing (reviews 28 #9, 29 #24). A thread or process runs it."""
    depth = 0
    for k in range(at, max(-1, at - 2000), -1):
        ch = segment[k]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                m = _RECEIVER.search(segment, max(0, k - 200), k)
                if m is None:
                    continue   # a tuple's bracket (`[(Req, self.handle), ...]`, review 29 #24): the call holds it
                last = m.group(1).rpartition(".")[2]
                return class_named(last) and last not in _RUNNERS and not last.isupper()
            depth -= 1
    return False


def _code_text(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> str:
    """The function's lines after its `def` line, its docstring left out (review 22 #5: the
    docstring "Eager reference for aggregate_stream (materializes ...)" read as a call of
    `aggregate_stream`, a caller that is none)."""
    start = node.lineno
    first = node.body[0] if node.body else None
    if first.__class__ is ast.Expr and first.value.__class__ is ast.Constant and isinstance(first.value.value, str):
        head = lines[start:first.lineno - 1]
        return "\n".join([*head, *lines[first.end_lineno:node.end_lineno]])
    return "\n".join(lines[start:node.end_lineno])


def _super_calls(segment: str, texts: bool) -> list[str]:
    """The methods a method's text calls through `super().name(...)`, not inside a string or a
    comment (`texts`: the text holds a quote or a `#`)."""
    return sorted({m.group(1) for m in _SUPER_CALL.finditer(segment)
                   if not (texts and _only_in_text(m.group(0)[:-1].rstrip(), segment))})


def _only_in_text(name: str, segment: str, call: bool = True) -> bool:
    """Whether every `name(` of the segment (every `name`, with `call=False`: a function passed as
    a value) sits in a comment or a plain string (`"call setup() first"`, `# (see run_eval)`): no
    call. Read only for the few called names that resolve, on their lines alone: a pass over every
    function's whole text cost the catalog run a sixth of its time."""
    at = segment.find(name)
    while at >= 0:
        end = at + len(name)
        before = segment[at - 1] if at else "\n"
        rest = segment[end:end + 8].lstrip(" \t")
        after = segment[end:end + 1]
        if not (before.isalnum() or before in "_.") and (rest.startswith("(") if call else not (after.isalnum()
                                                                                               or after == "_")):
            left = segment.rfind("\n", 0, at) + 1
            right = segment.find("\n", end)
            line = segment[left:right if right >= 0 else len(segment)]
            code = _PLAIN_STRING.sub(lambda m: " " * len(m.group(0)), line) if "'" in line or '"' in line else line
            cut = code.find("#")
            if code[at - left:end - left] == name and (cut < 0 or cut > at - left):
                return False
        at = segment.find(name, at + 1)
    return True


#: A plain (not f-) string literal within one line; its text names no call.
_PLAIN_STRING = re.compile(r"(?<![\w'\"])(?:[rRbBuU]{1,2})?(\"\"\"[^\n]*?\"\"\"|'\'\'[^\n]*?'\'\'|"
                           r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")")


def _tree_calls(node: ast.AST) -> list[tuple[str, int]]:
    """`ModuleWalker._text_calls` from the syntax tree, lambdas' bodies left out (they run later,
    if at all), in source order."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.__class__ is ast.Lambda:
            continue
        if n.__class__ is ast.Call:
            name = dotted_source(n.func)
            if name is not None:
                out.append((n.lineno, n.col_offset, name))
        stack.extend(ast.iter_child_nodes(n))
    out.sort()
    return [(name, line) for line, _, name in out]


def _after_word(text: str, at: int) -> bool:
    """Whether `text[at]` (an `=`) follows a word character, spaces aside: a keyword argument's
    `=`, not `==`, `<=` or `!=`."""
    at -= 1
    while at >= 0 and text[at].isspace():
        at -= 1
    return at >= 0 and (text[at].isalnum() or text[at] == "_")


def _plausible(node: ast.AST, seg: str) -> bool:
    """Cheap check that a position-cut segment is the node's text (f-string positions can be off)."""
    if isinstance(node, ast.Name):
        return seg == node.id
    if isinstance(node, ast.Attribute):
        return seg.endswith(node.attr) and seg[:1].isidentifier()
    if isinstance(node, (ast.Call, ast.Subscript)):
        return seg.endswith(")" if isinstance(node, ast.Call) else "]") and seg[:1].isidentifier() \
            and seg.count("(") == seg.count(")") and seg.count("[") == seg.count("]")
    return False


def _same_tokens(seg: str, text: str) -> bool:
    a = "".join(seg.split()).replace('"', "'")
    b = "".join(text.split()).replace('"', "'")
    return a == b or a.rstrip(",") == b


def _kw(call: ast.Call, names: tuple[str, ...]) -> ast.expr | None:
    for k in call.keywords:
        if k.arg in names:
            return k.value
    return None


def _log_level(written: str) -> str | None:
    """The severity of a logging call (`logger.error` -> "error"), or None for any other call."""
    receiver, _, method = written.rpartition(".")
    level = LOG_LEVELS.get(method)
    return level if level is not None and receiver and is_logger(receiver) else None


def _message_arg(call: ast.Call, skip_first: bool = False) -> ast.expr | None:
    """The message argument: the first positional (after an HTTP status), else a message keyword."""
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return None
        if i == 0 and skip_first:
            continue
        return a
    return _kw(call, _MESSAGE_KWARGS)


def _http_status(call: ast.Call, written: str) -> int | None:
    node = _kw(call, STATUS_KWARGS)
    if node is None and "http" in written.lower() and call.args:
        node = call.args[0]
    if node is None and "http" not in written.lower():
        return None
    return status_value(node)


def _kwarg_code(call: ast.Call) -> str | None:
    node = _kw(call, ("error_code", "code", "err_code", "errno"))
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)) and not isinstance(node.value, bool):
        return str(node.value)
    return None


_HANDLERS: dict[type, Callable] = {
    ast.Raise: ModuleWalker._raise,
    ast.Assert: ModuleWalker._assert,
    ast.Expr: ModuleWalker._expr_call,
    ast.Return: ModuleWalker._expr_call,
    ast.Assign: ModuleWalker._assign,
    ast.AugAssign: ModuleWalker._aug_assign,
    ast.AnnAssign: ModuleWalker._ann_assign,
    ast.FunctionDef: ModuleWalker._function,
    ast.AsyncFunctionDef: ModuleWalker._function,
    ast.ClassDef: ModuleWalker._class,
    ast.If: ModuleWalker._branches,
    ast.For: ModuleWalker._branches,
    ast.AsyncFor: ModuleWalker._branches,
    ast.While: ModuleWalker._branches,
    ast.With: ModuleWalker._with,
    ast.AsyncWith: ModuleWalker._with,
    ast.Try: ModuleWalker._try,
    ast.TryStar: ModuleWalker._try,
    ast.Match: ModuleWalker._match,
}


#: A `torch.autograd.Function` subclass: its `forward` runs through `Cls.apply(...)`.
_AUTOGRAD = ("autograd.Function", "autograd.function.Function")


def _signature(args: ast.arguments) -> tuple[str, ...]:
    """`FunctionFacts.params`: positional parameters in order, then "*" and the keyword-only ones."""
    out = [a.arg for a in (*args.posonlyargs, *args.args)]
    if args.vararg is not None:
        out.append("*" + args.vararg.arg)
    if args.kwonlyargs:
        if args.vararg is None:
            out.append("*")
        out.extend(a.arg for a in args.kwonlyargs)
    return tuple(out)


def _binding(stmt: ast.FunctionDef | ast.AsyncFunctionDef, method: bool, lines: list[str],
             autograd: bool = False) -> str:
    """How code calls the function, as words (`FunctionFacts.binding`): "static" or "class" for a
    method decorated `@staticmethod` or `@classmethod`; "async" for a coroutine function,
    "generator" for one that yields (its body runs only as the result is iterated) and "context"
    for a `@contextmanager` (it runs as a `with` block enters and leaves)."""
    words = []
    decorators = [deco.id if isinstance(deco, ast.Name) else deco.attr if isinstance(deco, ast.Attribute) else ""
                  for deco in stmt.decorator_list]
    if method:
        for name in decorators:
            if name in ("staticmethod", "classmethod"):
                words.append(name[:-6])
                break
    if autograd and stmt.name in ("forward", "backward"):
        words.append("autograd")   # `Cls.apply(...)` runs forward; the output's `.backward()` runs backward
    if isinstance(stmt, ast.AsyncFunctionDef):
        words.append("async")
    if "contextmanager" in decorators or "asynccontextmanager" in decorators:
        words.append("context")   # `with f(...):` runs its body up to the `yield`
    elif "yield" in "\n".join(lines[stmt.lineno - 1:stmt.end_lineno]) and _yields(stmt):
        words.append("generator")
    return " ".join(words)


def _yields(stmt: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A `yield` in the function's own body (not in a nested function, lambda or class)."""
    return any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in own_nodes(stmt.body))
