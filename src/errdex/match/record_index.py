"""The index of a catalog's records that frame and assert look-ups read: records by file,
by path suffix, by assert test (as printed and as a writer retells it) and by function;
built on first use, since a log scan without tracebacks needs none of it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from errdex.match.packages import PackageRoots, package_roots
from errdex.match.pasted import squash, unselfed
from errdex.match.patterns import RecordRef

#: Path parts that name no directory: empty, the current one, a writer's elision (`...`, `…`).
_NOT_DIRECTORIES = frozenset({"", ".", "...", "…"})


class RecordIndex:
    """Records by file, by path suffix and by assert expression."""

    def __init__(self, records: Sequence[RecordRef]) -> None:
        self.records = records
        self._maps: tuple | None = None
        self._told: dict[str, list[RecordRef]] | None = None

    def _build(self) -> tuple:
        """The lookup tables, on first use: scanning a log without tracebacks needs none."""
        if self._maps is None:
            by_file: dict[str, list[RecordRef]] = defaultdict(list)
            by_basename: dict[str, set[str]] = defaultdict(set)
            by_assert: dict[str, list[RecordRef]] = defaultdict(list)
            by_id: dict[str, RecordRef] = {}
            by_assert_test: dict[str, list[RecordRef]] = defaultdict(list)
            by_function: dict[str, list[RecordRef]] = defaultdict(list)
            for rec in self.records:
                by_id[rec.id] = rec
                by_file[rec.file_path].append(rec)
                by_function[rec.function_name].append(rec)
                by_basename[rec.file_path.rsplit("/", 1)[-1]].add(rec.file_path)
                if rec.assert_test:
                    by_assert_test[squash(rec.assert_test)].append(rec)
                    if not rec.error_message:
                        by_assert[squash(rec.assert_test)].append(rec)
            self._maps = (by_file, by_basename, by_assert, by_id, package_roots(self.records), by_assert_test,
                          by_function)
        return self._maps

    @property
    def by_file(self) -> dict[str, list[RecordRef]]:
        return self._build()[0]

    @property
    def by_basename(self) -> dict[str, set[str]]:
        return self._build()[1]

    @property
    def by_assert(self) -> dict[str, list[RecordRef]]:
        return self._build()[2]

    @property
    def by_id(self) -> dict[str, RecordRef]:
        return self._build()[3]

    @property
    def roots(self) -> PackageRoots:
        return self._build()[4]

    @property
    def by_assert_test(self) -> dict[str, list[RecordRef]]:
        """Every assert by its test, with a message or without."""
        return self._build()[5]

    @property
    def by_told_test(self) -> dict[str, list[RecordRef]]:
        """Asserts without a message by their test as a writer retells it (`pasted.unselfed`)."""
        if self._told is None:
            self._told = defaultdict(list)
            for key, recs in self.by_assert.items():
                self._told[unselfed(key)].extend(recs)
        return self._told

    @property
    def by_function(self) -> dict[str, list[RecordRef]]:
        """Records by the name of the function raising them (the last part of its qualified name)."""
        return self._build()[6]

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
