"""A plain folder: which files are listed, which are skipped and why, and its version."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from .source_helpers import write

from errdex.errors import SourceError
from errdex.sources import resolve_source


def skipped_reasons(tree) -> dict[str, str]:
    return dict(tree.skipped)


def test_lists_py_files_sorted_and_records_skipped_folders(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    for rel in ["pkg/b.py", "pkg/a.py", "top.py", "pkg/sub/c.py", "README.md",
                "__pycache__/x.py", "venv/lib/y.py", ".venv/z.py", "node_modules/n.py",
                ".tox/t.py", "lib/site-packages/s.py"]:
        write(root, rel)
    tree = resolve_source(str(root))
    assert tree.kind == "folder"
    assert tree.root == root.resolve()
    assert tree.repo == "proj"
    assert tree.files == ("pkg/a.py", "pkg/b.py", "pkg/sub/c.py", "top.py")
    reasons = skipped_reasons(tree)
    for folder in ["__pycache__/", "venv/", ".venv/", "node_modules/", ".tox/", "lib/site-packages/"]:
        assert folder in reasons, folder


def test_fake_git_folder_is_skipped_and_reported(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write(root, "a.py")
    write(root, ".git/hooks/h.py")  # not a real repository: git refuses it
    messages: list[str] = []
    tree = resolve_source(str(root), progress=messages.append)
    assert tree.kind == "folder"
    assert tree.files == ("a.py",)
    assert skipped_reasons(tree)[".git/"] == "version-control folder"
    assert any("plain folder" in m for m in messages)


def test_symlinks_inside_kept_outside_skipped(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    outside = tmp_path / "outside"
    write(outside, "secret.py")
    write(root, "real.py")
    os.symlink(root / "real.py", root / "alias.py")
    os.symlink(outside / "secret.py", root / "leak.py")
    os.symlink(outside, root / "linkdir")
    os.symlink(root / "gone.py", root / "broken.py")
    (root / "inner").mkdir()
    os.symlink(root / "inner", root / "innerlink")
    tree = resolve_source(str(root))
    assert tree.files == ("alias.py", "real.py")
    reasons = skipped_reasons(tree)
    assert reasons["leak.py"] == "symlink pointing outside the root"
    assert reasons["linkdir/"] == "symlink pointing outside the root"
    assert reasons["broken.py"] == "broken symlink"
    assert reasons["innerlink/"].startswith("symlink to a folder inside the root")


@pytest.mark.parametrize(("pattern", "gone"), [
    ("tests/*", {"tests/test_a.py", "tests/deep/test_b.py"}),
    ("tests", {"tests/test_a.py", "tests/deep/test_b.py"}),
    ("*/vendor/*", {"pkg/vendor/v.py"}),
    ("*.py", {"pkg/core.py", "pkg/vendor/v.py", "tests/test_a.py", "tests/deep/test_b.py", "setup.py"}),
    ("pkg/core.py", {"pkg/core.py"}),
])
def test_exclude_globs_match_path_or_folder_prefix(tmp_path: Path, pattern: str, gone: set[str]) -> None:
    every = {"pkg/core.py", "pkg/vendor/v.py", "tests/test_a.py", "tests/deep/test_b.py", "setup.py"}
    root = tmp_path / "proj"
    for rel in every:
        write(root, rel)
    if gone == every:
        with pytest.raises(SourceError, match="no Python files"):
            resolve_source(str(root), exclude=[pattern])
        return
    tree = resolve_source(str(root), exclude=[pattern])
    assert set(tree.files) == every - gone
    assert {p for p, r in tree.skipped if r == "excluded"} == gone


def test_version_is_a_content_hash_stable_across_copies(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write(root, "a.py", "a = 1\n")
    write(root, "pkg/b.py", "b = 2\n")
    first = resolve_source(str(root))
    assert re.fullmatch(r"folder-[0-9a-f]{12}", first.version)
    copy = tmp_path / "elsewhere" / "proj"
    shutil.copytree(root, copy)
    assert resolve_source(str(copy)).version == first.version
    write(root, "pkg/b.py", "b = 3\n")
    assert resolve_source(str(root)).version != first.version


def test_repo_and_version_overrides(tmp_path: Path) -> None:
    write(tmp_path / "proj", "a.py")
    tree = resolve_source(str(tmp_path / "proj"), repo="acme/proj", version="1.2.3")
    assert (tree.repo, tree.version, tree.name) == ("acme/proj", "1.2.3", "acme/proj@1.2.3")


def test_folder_without_python_files_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "proj", "notes.txt")
    with pytest.raises(SourceError, match="no Python files found"):
        resolve_source(str(tmp_path / "proj"))


def test_errdex_home_inside_the_folder_is_never_indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    write(root, "a.py")
    write(root, "data/errdex/cache/trees/six/six.py")
    monkeypatch.setenv("ERRDEX_HOME", str(root / "data" / "errdex"))
    tree = resolve_source(str(root))
    assert tree.files == ("a.py",)
    assert ("data/errdex/", "errdex data folder") in tree.skipped
