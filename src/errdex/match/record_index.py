"""The index of a catalog's records that frame and assert look-ups read: records by file,
by path suffix, by assert test (as printed and as a writer retells it), by function and by id.

The tables hold record positions, not records: a context loaded from its snapshot
gets them ready made (`index_tables`, packed one by one) and decodes only the
records a look-up returns, where building them read all ~28k records of a big
catalog (~0.3 s of every process that met a traceback or checked a condition).
"""

from __future__ import annotations

import marshal
from collections import defaultdict
from collections.abc import Mapping, Sequence

from errdex.match.packages import PackageRoots, package_roots
from errdex.match.pasted import squash, unselfed
from errdex.match.patterns import RecordRef

#: Path parts that name no directory: empty, the current one, a writer's elision (`...`, `…`).
_NOT_DIRECTORIES = frozenset({"", ".", "...", "…"})

#: Tables of record positions, by name: what `index_tables` derives and a snapshot keeps.
TABLES = ("by_file", "by_function", "by_assert", "by_assert_test", "by_id", "roots")


def index_tables(records: Sequence[RecordRef]) -> dict[str, bytes]:
    """Every table of positions, each marshalled on its own (a look-up unpacks only its own)."""
    by_file: dict[str, list[int]] = defaultdict(list)
    by_function: dict[str, list[int]] = defaultdict(list)
    by_assert: dict[str, list[int]] = defaultdict(list)
    by_assert_test: dict[str, list[int]] = defaultdict(list)
    by_id: dict[str, int] = {}
    for at, rec in enumerate(records):
        by_id[rec.id] = at
        by_file[rec.file_path].append(at)
        by_function[rec.function_name].append(at)
        if rec.assert_test:
            by_assert_test[squash(rec.assert_test)].append(at)
            if not rec.error_message:
                by_assert[squash(rec.assert_test)].append(at)
    roots = package_roots(records)
    tables = {"by_file": by_file, "by_function": by_function, "by_assert": by_assert,
              "by_assert_test": by_assert_test, "by_id": by_id, "roots": (roots.root_of, roots.dirs)}
    return {name: marshal.dumps(dict(table) if isinstance(table, dict) else table)
            for name, table in tables.items()}


class RecordLists(Mapping):
    """key -> the records at a table's positions, decoded on first look-up of the key."""

    def __init__(self, positions: dict[str, list[int]], records: Sequence[RecordRef]) -> None:
        self.positions, self._records = positions, records
        self._lists: dict[str, list[RecordRef]] = {}

    def __getitem__(self, key: str) -> list[RecordRef]:
        found = self._lists.get(key)
        if found is None:
            records = self._records
            found = self._lists[key] = [records[at] for at in self.positions[key]]
        return found

    def __iter__(self):
        return iter(self.positions)

    def __len__(self) -> int:
        return len(self.positions)


class RecordsById(Mapping):
    """record id -> the last record with that id, decoded when asked for."""

    def __init__(self, positions: dict[str, int], records: Sequence[RecordRef]) -> None:
        self.positions, self._records = positions, records

    def __getitem__(self, key: str) -> RecordRef:
        return self._records[self.positions[key]]

    def __iter__(self):
        return iter(self.positions)

    def __len__(self) -> int:
        return len(self.positions)


class AssertCounts:
    """squashed assert test -> how many records assert it (the length of its positions);
    the table is unpacked on the first question, not when the context is made (~5 ms)."""

    def __init__(self, index: RecordIndex) -> None:
        self._index = index

    def get(self, test: str, default: int | None = None) -> int | None:
        positions = self._index._table("by_assert_test").get(test)
        return default if positions is None else len(positions)


def _by_basename(by_file: dict[str, list[int]]) -> dict[str, set[str]]:
    """Indexed files by their name (`utils.py`), from the files' table."""
    out: dict[str, set[str]] = defaultdict(set)
    for path in by_file:
        out[path.rsplit("/", 1)[-1]].add(path)
    return out


def _retold(by_assert: dict[str, list[int]]) -> dict[str, list[int]]:
    """The positions of asserts without a message by their test as a writer retells it."""
    told: dict[str, list[int]] = defaultdict(list)
    for test, positions in by_assert.items():
        told[unselfed(test)].extend(positions)
    return told


class RecordIndex:
    """Records by file, by path suffix and by assert expression.

    `tables`: `index_tables(records)` from a snapshot; derived from the
    records on first use when not given (a log scan without tracebacks needs none).
    """

    def __init__(self, records: Sequence[RecordRef], tables: dict[str, bytes] | None = None) -> None:
        self.records = records
        self._packed = tables
        self._tables: dict[str, object] = {}   # table name -> its positions, unpacked
        self._views: dict[str, object] = {}    # property -> what it serves, made from a table

    def _table(self, name: str):
        """One table of positions, unpacked on first use."""
        table = self._tables.get(name)
        if table is None:
            if self._packed is None:
                self._packed = index_tables(self.records)
            table = self._tables[name] = marshal.loads(self._packed[name])
        return table

    def _view(self, name: str, table: str, make):
        """`make(positions)` for the property `name`, made once from the table `table`."""
        view = self._views.get(name)
        if view is None:
            view = self._views[name] = make(self._table(table))
        return view

    def _lists(self, table: str) -> RecordLists:
        return self._view(table, table, lambda positions: RecordLists(positions, self.records))

    @property
    def by_file(self) -> Mapping[str, list[RecordRef]]:
        return self._lists("by_file")

    @property
    def by_basename(self) -> dict[str, set[str]]:
        return self._view("by_basename", "by_file", _by_basename)

    @property
    def by_assert(self) -> Mapping[str, list[RecordRef]]:
        return self._lists("by_assert")

    @property
    def by_id(self) -> Mapping[str, RecordRef]:
        return self._view("by_id", "by_id", lambda positions: RecordsById(positions, self.records))

    @property
    def roots(self) -> PackageRoots:
        return self._view("roots", "roots", lambda table: PackageRoots(*table))

    @property
    def by_assert_test(self) -> Mapping[str, list[RecordRef]]:
        """Every assert by its test, with a message or without."""
        return self._lists("by_assert_test")

    @property
    def by_told_test(self) -> Mapping[str, list[RecordRef]]:
        """Asserts without a message by their test as a writer retells it (`pasted.unselfed`)."""
        return self._view("by_told_test", "by_assert",
                          lambda positions: RecordLists(_retold(positions), self.records))

    @property
    def by_function(self) -> Mapping[str, list[RecordRef]]:
        """Records by the name of the function raising them (the last part of its qualified name)."""
        return self._lists("by_function")

    def assert_counts(self) -> AssertCounts:
        """How many records assert each test, from the table (`statements.assert_counts`
        counted them over every record, decoding each)."""
        return AssertCounts(self)

    def files_for(self, path: str) -> list[str]:
        """Indexed files a printed path refers to: the longest common suffix wins.

        A path that names more directories than it shares with an indexed file, none of
        them the indexed package's own (`.../vllm/distributed/utils.py` against
        `sglang/srt/distributed/utils.py`), is another package's copy of the file. A writer's
        elision (`.../layers/linear.py`) names no directory: the path is what follows it.
        """
        parts = [p for p in path.replace("\\", "/").split("/") if p not in _NOT_DIRECTORIES]
        if not parts:
            return []
        best, best_len = [], 0
        for candidate in self.by_basename.get(parts[-1], ()):
            cparts = candidate.split("/")
            n = _common_suffix(parts, cparts)
            if n < 2 and n < len(cparts) and n < len(parts):
                continue
            if n < len(parts) and not self.roots.names_package(candidate, parts):
                continue
            if n > best_len:
                best, best_len = [candidate], n
            elif n == best_len:
                best.append(candidate)
        return best

    def in_indexed_package(self, path: str) -> bool:
        """Whether a printed path lies in an indexed package although no indexed file is it
        (a module another version renamed or removed): its package directory and the
        directory under it are indexed (`.../sglang/srt/old_name.py`)."""
        parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
        return self.roots.holds(parts[:-1])


def _common_suffix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n
