"""Git checkouts: sha, dirty flag, GitHub remotes, subfolders and ignored files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from .source_helpers import git, make_repo, write

from errdex.sources import resolve_source

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def f():\n    raise ValueError('x')\n",
         "python/lib/mod.py": "y = 2\n", "README.md": "hi\n"}


@pytest.mark.parametrize("origin", [
    "https://github.com/acme/widget.git",
    "https://github.com/acme/widget",
    "git@github.com:acme/widget.git",
    "git@github.com:acme/widget",
    "ssh://git@github.com/acme/widget.git",
    "https://token@github.com/acme/widget.git",
])
def test_github_origin_forms_give_owner_and_name(tmp_path: Path, origin: str) -> None:
    repo = make_repo(tmp_path / "checkout", FILES, origin=origin)
    tree = resolve_source(str(repo))
    assert tree.kind == "git"
    assert (tree.repo, tree.github_repo) == ("acme/widget", "acme/widget")


def test_clean_checkout_is_pinned_to_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "checkout", FILES, origin="https://gitlab.com/acme/widget.git")
    head = git(repo, "rev-parse", "HEAD")
    tree = resolve_source(str(repo))
    assert re.fullmatch(r"[0-9a-f]{40}", head)
    assert (tree.sha, tree.version, tree.permalink_ref, tree.dirty) == (head, head, head, False)
    assert (tree.repo, tree.github_repo, tree.url_prefix) == ("checkout", None, "")
    assert tree.files == ("pkg/__init__.py", "pkg/core.py", "python/lib/mod.py")


def test_edited_tracked_file_marks_dirty_untracked_does_not(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "checkout", FILES)
    head = git(repo, "rev-parse", "HEAD")
    write(repo, "pkg/new.py")
    tree = resolve_source(str(repo))
    assert not tree.dirty and tree.version == head
    assert "pkg/new.py" in tree.files
    write(repo, "pkg/core.py", "changed = True\n")
    tree = resolve_source(str(repo))
    assert tree.dirty and tree.version == f"{head}-dirty" and tree.sha == head


def test_ignored_files_and_venvs_are_left_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "checkout", {**FILES, ".gitignore": "build/\ngenerated_*.py\n"})
    write(repo, "build/lib/pkg/core.py")
    write(repo, "pkg/generated_table.py")
    write(repo, ".venv/lib/site.py")
    write(repo, "venv/tracked.py")
    git(repo, "add", "-f", "venv/tracked.py")
    tree = resolve_source(str(repo))
    assert not any(f.startswith(("build/", ".venv/")) for f in tree.files)
    assert "pkg/generated_table.py" not in tree.files
    assert dict(tree.skipped)["venv/tracked.py"] == "virtual environment"


def test_subfolder_gets_url_prefix_and_relative_paths(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "checkout", FILES, origin="git@github.com:acme/widget.git")
    tree = resolve_source(str(repo / "python"))
    assert tree.url_prefix == "python/"
    assert tree.files == ("lib/mod.py",)
    assert tree.root == (repo / "python").resolve()
    assert tree.github_repo == "acme/widget"
    write(repo, "pkg/core.py", "edited outside the subfolder\n")
    assert not resolve_source(str(repo / "python")).dirty


def test_overrides_win_over_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "checkout", FILES, origin="https://github.com/acme/widget")
    tree = resolve_source(str(repo), repo="me/fork", version="v9")
    assert (tree.repo, tree.version, tree.github_repo) == ("me/fork", "v9", "acme/widget")


def test_repository_without_commits_falls_back_to_folder(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "a.py")
    messages: list[str] = []
    tree = resolve_source(str(root), progress=messages.append)
    assert tree.kind == "folder" and tree.files == ("a.py",)
    assert any("no commit" in m for m in messages)


def test_ignored_folder_inside_a_repo_is_a_plain_folder(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "checkout", {**FILES, ".gitignore": "cache/\n"})
    write(repo, "cache/tree/mod.py")
    tree = resolve_source(str(repo / "cache" / "tree"))
    assert tree.kind == "folder" and tree.files == ("mod.py",)
