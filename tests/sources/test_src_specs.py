"""Bad SOURCE specs fail with a SourceError that says what to do; GitHub URLs parse as expected."""

from __future__ import annotations

from email.message import Message
from pathlib import Path

import pytest
from .source_helpers import write

from errdex.config import cache_dir, errdex_home
from errdex.errors import ErrdexError, SourceError
from errdex.sources import resolve_source
from errdex.sources.github import github_repo_from_metadata, github_repo_from_remote, github_repo_from_url


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such folder"):
        resolve_source(str(tmp_path / "nope"))


def test_file_instead_of_folder(tmp_path: Path) -> None:
    path = write(tmp_path, "one.py")
    with pytest.raises(SourceError, match="is a file"):
        resolve_source(str(path))


@pytest.mark.parametrize("spec", ["svn:trunk", "git+https://github.com/a/b", "npm:left-pad"])
def test_unknown_prefix(spec: str) -> None:
    with pytest.raises(SourceError, match="unknown SOURCE prefix"):
        resolve_source(spec)


def test_empty_spec() -> None:
    with pytest.raises(SourceError, match="empty SOURCE"):
        resolve_source("  ")


def test_source_error_is_an_errdex_error_with_exit_code_2() -> None:
    assert issubclass(SourceError, ErrdexError)
    assert (ErrdexError.exit_code, SourceError.exit_code) == (1, 2)


def test_home_and_cache_follow_errdex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDEX_HOME", str(tmp_path / "h"))
    assert errdex_home() == tmp_path / "h"
    assert cache_dir() == tmp_path / "h" / "cache" and cache_dir().is_dir()
    monkeypatch.delenv("ERRDEX_HOME")
    assert errdex_home().name == "errdex"


@pytest.mark.parametrize(("url", "expected"), [
    ("https://github.com/sgl-project/sglang.git", "sgl-project/sglang"),
    ("git@github.com:sgl-project/sglang.git", "sgl-project/sglang"),
    ("ssh://git@github.com:22/o/n", "o/n"),
    ("https://gitlab.com/o/n.git", None),
    ("https://github.com/o/n/tree/main", None),  # a remote is exactly owner/name
])
def test_remote_urls(url: str, expected: str | None) -> None:
    assert github_repo_from_remote(url) == expected


@pytest.mark.parametrize(("url", "expected"), [
    ("https://github.com/sgl-project/sglang/issues", "sgl-project/sglang"),
    ("https://github.com/pallets/click/", "pallets/click"),
    ("https://www.github.com/o/n.git#readme", "o/n"),
    ("https://github.com/sponsors/someone", None),
    ("https://someone.github.io/project", None),
    ("https://github.com/onlyowner", None),
])
def test_web_urls(url: str, expected: str | None) -> None:
    assert github_repo_from_url(url) == expected


def test_metadata_prefers_source_labels() -> None:
    meta = Message()
    meta["Home-page"] = "https://github.com/mirror/wrong"
    meta["Project-URL"] = "Bug Tracker, https://github.com/other/tracker/issues"
    meta["Project-URL"] = "Source Code, https://github.com/right/one"
    assert github_repo_from_metadata(meta) == "right/one"
    empty = Message()
    empty["Home-page"] = "UNKNOWN"
    assert github_repo_from_metadata(empty) is None


def test_public_api_names_exist_and_are_documented() -> None:
    import errdex.sources as sources

    for name in sources.__all__:
        obj = getattr(sources, name)
        assert isinstance(obj, frozenset) or (obj.__doc__ or "").strip(), name
    assert sources.resolve_source.__doc__ and sources.__doc__
