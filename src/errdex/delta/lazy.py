"""The codebase's name tables, filled module by module from the per-file cache as lookups ask.

A re-index of a few files resolves only the names those files use: a class
through its re-exports, a helper, the owner of a method. Loading the facts
of the modules on that path (a few cache lookups) costs far less than the
whole `Codebase` of a large project, and gives the same answers: the tables
hold exactly what `Codebase.from_facts` would put there for those modules.
"""

from __future__ import annotations

from collections import defaultdict

from errdex.delta.state import Manifest
from errdex.extract.link import Codebase
from errdex.extract.wire import cached_facts_or_none
from errdex.models import FileFacts


class MissingFacts(Exception):
    """A file's facts are not in the per-file cache: the re-index needs the full path."""


class FactsLoader:
    """Facts by module from the per-file cache, each module loaded once (all its files, in tree order)."""

    def __init__(self, store, manifest: Manifest, override: dict[str, FileFacts] | None = None) -> None:
        self.store = store
        self.entries = manifest.files
        self.by_module: dict[str, list[str]] = defaultdict(list)
        for rel, entry in manifest.files.items():
            self.by_module[entry.module].append(rel)
        self.override = override or {}
        self.loaded: set[str] = set()
        self.cb = Codebase(_LazyTable(self), _LazyTable(self), _LazyTable(self), _LazyTable(self), _LazyTable(self))
        self.method_of = _LazyTable(self)
        self.bindings = _LazyTable(self)   # qualname -> `FunctionFacts.binding` ("class", "async generator")
        self.setters = _LazyTable(self)   # class qualname -> `FileFacts.setters` entry
        self.params = _LazyTable(self)    # qualname -> `FunctionFacts.params`

    def facts(self, rel: str) -> FileFacts:
        if rel in self.override:
            return self.override[rel]
        key = self.entries[rel].key
        blob = self.store.cached_facts([key]).get(key)
        facts = cached_facts_or_none(blob) if blob is not None else None
        if facts is None:
            raise MissingFacts(rel)
        return facts

    def load_for(self, name: str) -> None:
        """Load every module whose name is a dotted prefix of `name`."""
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            module = ".".join(parts[:i])
            if module in self.loaded:
                continue
            self.loaded.add(module)
            for rel in self.by_module.get(module, ()):
                self._add(self.facts(rel))

    def _add(self, f: FileFacts) -> None:
        """As `Codebase.from_facts` does, plus each method's owning class."""
        classes, aliases, helpers = self.cb.classes.real, self.cb.aliases.real, self.cb.helpers.real
        constants = self.cb.constants.real
        for name, text in f.string_constants.items():
            constants[f"{f.module}.{name}"] = text
        factories = self.cb.factories.real
        for d in f.factories:
            factories.setdefault(d.qualname, d)
        for c in f.classes:
            classes[c.qualname] = c
        for local, target in f.imports.items():
            aliases[f"{f.module}.{local}"] = target
        for local, target in f.class_aliases.items():
            aliases[f"{f.module}.{local}"] = target
        for h in f.helpers:
            helpers.setdefault(h.qualname, h)
        self.setters.real.update(f.setters)
        methods, bindings = self.method_of.real, self.bindings.real
        for fn in f.functions:
            if fn.cls:
                methods[fn.qualname] = fn.cls
            if getattr(fn, "binding", ""):
                bindings[fn.qualname] = fn.binding
            if fn.params:
                self.params.real[fn.qualname] = fn.params


class _LazyTable(dict):
    """A read-only mapping whose lookups first load the modules the name may live in."""

    def __init__(self, loader: FactsLoader) -> None:
        super().__init__()
        self.real: dict = {}
        self.loader = loader

    def _ready(self, name) -> dict:
        if isinstance(name, str):
            self.loader.load_for(name)
        return self.real

    def __contains__(self, name) -> bool:
        return name in self._ready(name)

    def __getitem__(self, name):
        return self._ready(name)[name]

    def get(self, name, default=None):
        return self._ready(name).get(name, default)
