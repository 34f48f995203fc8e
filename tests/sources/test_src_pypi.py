"""`pypi:` specs against a real local index on 127.0.0.1, the cached sglang wheel, and PyPI itself."""

from __future__ import annotations

import os
import shutil
import zipfile
from email.parser import BytesHeaderParser
from pathlib import Path

import pytest
from .source_helpers import build_sdist, build_wheel

from errdex.errors import SourceError
from errdex.sources import resolve_source
from errdex.sources.github import github_repo_from_metadata

TEST_CACHE = Path.home() / ".cache" / "errdex-tests"
SGLANG_WHEEL = TEST_CACHE / "dl" / "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl"


def test_wheel_download_unpack_and_metadata(tmp_path: Path, local_index) -> None:
    build_wheel(local_index.folder, "tinypkg", "1.0",
                {"tinypkg/__init__.py": "", "tinypkg/core.py": "raise ValueError('boom')\n"},
                project_urls=("Documentation, https://tinypkg.readthedocs.io",
                              "Source, https://github.com/acme/tinypkg/tree/main"))
    messages: list[str] = []
    tree = resolve_source("pypi:tinypkg==1.0", home=tmp_path / "home", progress=messages.append)
    assert tree.kind == "pypi"
    assert tree.files == ("tinypkg/__init__.py", "tinypkg/core.py")
    assert (tree.repo, tree.github_repo, tree.version, tree.permalink_ref) == \
        ("acme/tinypkg", "acme/tinypkg", "1.0", "v1.0")
    assert dict(tree.skipped)["tinypkg-1.0.dist-info/"] == "package metadata"
    cache = tmp_path / "home" / "cache"
    assert (cache / "downloads" / "tinypkg" / "1.0" / "tinypkg-1.0-py3-none-any.whl").is_file()
    assert tree.root.parent == cache / "trees" and tree.root.name.startswith("tinypkg-1.0-")
    assert messages[0] == "downloading tinypkg==1.0" and any(m.startswith("unpacking") for m in messages)

    served = len(local_index.requests)
    messages.clear()
    again = resolve_source("pypi:tinypkg==1.0", home=tmp_path / "home", progress=messages.append)
    assert again == tree
    assert len(local_index.requests) == served, "a pinned cached download must not call pip"
    assert messages == ["using cached tinypkg-1.0-py3-none-any.whl"]


def test_sdist_is_fetched_without_running_setup(tmp_path: Path, local_index) -> None:
    marker = tmp_path / "setup-ran"
    build_sdist(local_index.folder, "onlysrc", "2.0", {
        "setup.py": f"open({str(marker)!r}, 'w').write('ran')\n",
        "src/onlysrc/__init__.py": "def f():\n    raise KeyError('k')\n",
    })
    tree = resolve_source("pypi:onlysrc", home=tmp_path / "home", exclude=["setup.py"])
    assert not marker.exists(), "errdex must never run a package's setup code"
    assert tree.root.name == "onlysrc-2.0"  # the sdist's single top folder
    assert tree.files == ("src/onlysrc/__init__.py",)
    assert (tree.version, tree.repo, tree.github_repo) == ("2.0", "onlysrc", None)
    assert ("setup.py", "excluded") in tree.skipped


def test_missing_package_is_a_one_line_error(tmp_path: Path, local_index) -> None:
    with pytest.raises(SourceError) as info:
        resolve_source("pypi:nosuchpkg==1.0", home=tmp_path / "home")
    message = str(info.value)
    assert "No matching distribution found for nosuchpkg==1.0" in message
    assert "\n" not in message


@pytest.mark.parametrize("spec", ["pypi:six>=1.0", "pypi:--index-url=http://evil", "pypi:", "pypi:six==1 0"])
def test_bad_package_specs_are_refused_before_pip(tmp_path: Path, spec: str) -> None:
    with pytest.raises(SourceError, match="bad package spec"):
        resolve_source(spec, home=tmp_path / "home")
    assert not (tmp_path / "home" / "cache" / "downloads").exists()


def sglang_metadata():
    with zipfile.ZipFile(SGLANG_WHEEL) as zf:
        return BytesHeaderParser().parsebytes(zf.read("sglang-0.5.23.dist-info/METADATA"))


@pytest.mark.skipif(not SGLANG_WHEEL.is_file(), reason="sglang wheel not cached")
def test_sglang_metadata_names_its_github_repo() -> None:
    assert github_repo_from_metadata(sglang_metadata()) == "sgl-project/sglang"


@pytest.mark.skipif(not SGLANG_WHEEL.is_file(), reason="sglang wheel not cached")
def test_sglang_wheel_from_download_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    home = TEST_CACHE / "home"
    monkeypatch.setenv("ERRDEX_HOME", str(home))
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/unreachable/")  # any pip call would fail
    folder = home / "cache" / "downloads" / "sglang" / "0.5.23"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / SGLANG_WHEEL.name).is_file():
        try:
            os.link(SGLANG_WHEEL, folder / SGLANG_WHEEL.name)
        except OSError:
            shutil.copy2(SGLANG_WHEEL, folder / SGLANG_WHEEL.name)
    tree = resolve_source("pypi:sglang==0.5.23")
    assert (tree.kind, tree.repo, tree.github_repo, tree.version) == \
        ("pypi", "sgl-project/sglang", "sgl-project/sglang", "0.5.23")
    assert tree.permalink_ref == "v0.5.23"
    assert all(f.endswith(".py") and not f.startswith("/") for f in tree.files)
    assert any(f.startswith("sglang/") for f in tree.files)
    assert len(tree.files) > 1000


@pytest.mark.network
def test_real_pypi_download_of_six(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDEX_HOME", str(TEST_CACHE / "home"))
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS"):
        monkeypatch.delenv(name, raising=False)
    tree = resolve_source("pypi:six==1.16.0")
    assert tree.files == ("six.py",)
    assert (tree.version, tree.repo, tree.github_repo) == ("1.16.0", "benjaminp/six", "benjaminp/six")
    assert (tree.root / "six.py").read_text().count("def ") > 10
