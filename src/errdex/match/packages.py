"""Printed paths against the indexed packages: which repo directory a frame's path names.

A traceback printed by another package that copied a file of the indexed one
(`vllm/.../pynccl_wrapper.py` next to `sglang/srt/.../pynccl_wrapper.py`)
names its own package in the path; a module the indexed package renamed
since names the indexed package and one of its directories.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from errdex.match.patterns import RecordRef


class PackageRoots:
    """Each repo's package directory: the directories all its indexed files share.

    A printed path names the package it lies in (`site-packages/sglang/...`); a file of
    the same name under another package (`site-packages/vllm/...`) is that package's copy.
    """

    def __init__(self, root_of: dict[str, str], dirs: set[str]) -> None:
        self.root_of = root_of      # indexed file -> its repo's package directory name
        self.dirs = dirs            # every indexed directory, "pkg/sub/..."
        self.names = set(root_of.values())

    def names_package(self, candidate: str, parts: list[str]) -> bool:
        root = self.root_of.get(candidate)
        return root is None or root in parts

    def holds(self, dir_parts: list[str]) -> bool:
        for at in range(len(dir_parts) - 1, -1, -1):
            if dir_parts[at] in self.names:
                below = dir_parts[at:at + 2]
                return len(below) == 2 and "/".join(below) in self.dirs
        return False


def package_roots(records: Sequence[RecordRef]) -> PackageRoots:
    """The package directory of each repo: the last directory all its files share."""
    paths_by_repo: dict[str, set[str]] = defaultdict(set)
    for rec in records:
        paths_by_repo[rec.repo].add(rec.file_path)
    root_of: dict[str, str] = {}
    dirs: set[str] = set()
    for paths in paths_by_repo.values():
        split = [p.split("/")[:-1] for p in paths]
        shared = split[0]
        for dirs_of in split[1:]:
            shared = shared[:_common_prefix(shared, dirs_of)]
        if not shared:
            continue
        start = len(shared) - 1
        for path, dirs_of in zip(paths, split):
            root_of[path] = shared[-1]
            for end in range(start + 1, len(dirs_of) + 1):
                dirs.add("/".join(dirs_of[start:end]))
    return PackageRoots(root_of, dirs)


def _common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n
