"""`installed:` specs: a real installed distribution, a RECORD with escapes, an editable install."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest
from .source_helpers import make_repo, write

from errdex.errors import SourceError
from errdex.sources import resolve_source


def test_click_files_come_from_its_record() -> None:
    dist = metadata.distribution("click")
    tree = resolve_source("installed:click")
    assert tree.kind == "installed"
    assert tree.root == Path(dist.locate_file("")).resolve()
    assert "click/core.py" in tree.files and "click/__init__.py" in tree.files
    assert all((tree.root / f).is_file() for f in tree.files)
    assert tree.version == dist.version
    assert tree.github_repo == "pallets/click" and tree.repo == "pallets/click"


def test_installed_excludes_apply() -> None:
    tree = resolve_source("installed:click", exclude=["click/_*"])
    assert not any(f.startswith("click/_") for f in tree.files)
    assert ("click/_compat.py", "excluded") in tree.skipped


def fake_dist(site: Path, name: str, version: str, record: list[str], extra: dict[str, str] | None = None) -> Path:
    info = site / f"{name}-{version}.dist-info"
    write(info, "METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                            "Project-URL: Homepage, https://github.com/acme/" + name + "\n")
    write(info, "RECORD", "".join(f"{r},,\n" for r in record))
    for filename, text in (extra or {}).items():
        write(info, filename, text)
    return info


def test_record_entries_outside_or_missing_are_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    write(site, "fakedist/__init__.py")
    write(site, "fakedist/api.py")
    fake_dist(site, "fakedist", "3.1", ["fakedist/__init__.py", "fakedist/api.py", "fakedist/gone.py",
                                        "../../bin/fakedist-cli.py", "fakedist/data.json"])
    monkeypatch.syspath_prepend(str(site))
    tree = resolve_source("installed:fakedist")
    assert tree.files == ("fakedist/__init__.py", "fakedist/api.py")
    reasons = dict(tree.skipped)
    assert reasons["fakedist/gone.py"] == "missing on disk"
    assert reasons["../../bin/fakedist-cli.py"] == "path leads outside the root"
    assert (tree.repo, tree.version, tree.permalink_ref) == ("acme/fakedist", "3.1", "v3.1")


def test_editable_install_indexes_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = make_repo(tmp_path / "project", {"src/editme/__init__.py": "", "src/editme/mod.py": "x = 1\n"})
    site = tmp_path / "site"
    direct_url = json.dumps({"url": project.resolve().as_uri(), "dir_info": {"editable": True}})
    fake_dist(site, "editme", "0.1", ["__editable__.editme-0.1.pth"], {"direct_url.json": direct_url})
    monkeypatch.syspath_prepend(str(site))
    messages: list[str] = []
    tree = resolve_source("installed:editme", progress=messages.append)
    assert tree.root == project.resolve()
    assert tree.files == ("src/editme/__init__.py", "src/editme/mod.py")
    assert tree.kind == "git" and tree.sha is not None
    assert tree.github_repo == "acme/editme"  # from metadata, since the checkout has no GitHub remote
    assert any("editable install" in m for m in messages)


def test_not_installed_is_a_clear_error() -> None:
    with pytest.raises(SourceError, match="'surely-not-installed-dist' is not installed"):
        resolve_source("installed:surely-not-installed-dist")
