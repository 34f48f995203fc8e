"""Owners remembered across processes: trusted only while the RECORD and sys.path folders are unchanged."""

from __future__ import annotations

import os

import pytest

from errdex.hook import owners
from errdex.hook.owner_cache import UNKNOWN, OwnerCache, owner_of


def _clear_process_caches() -> None:
    owners.dist_owner.cache_clear()
    owners._top_level_map.cache_clear()
    owners._path_roots.cache_clear()


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A site-packages folder on sys.path holding `fakepkg` 1.0 with a real RECORD."""
    folder = tmp_path / "site"
    (folder / "fakepkg").mkdir(parents=True)
    (folder / "fakepkg" / "__init__.py").write_text("raise ValueError('never imported')\n")
    _dist_info(folder, "1.0")
    monkeypatch.syspath_prepend(str(folder))
    import importlib

    importlib.invalidate_caches()
    _clear_process_caches()
    yield folder
    _clear_process_caches()


def _dist_info(folder, version: str) -> None:
    info = folder / f"fakepkg-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fakepkg\nVersion: {version}\n")
    (info / "top_level.txt").write_text("fakepkg\n")
    (info / "RECORD").write_text(f"fakepkg/__init__.py,,\nfakepkg-{version}.dist-info/METADATA,,\n")


def _bump_mtime(path) -> None:
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def test_owner_answered_from_the_file_until_record_changes(site, tmp_path):
    cache_file = tmp_path / "home" / "hook-owners.json"
    cache_file.parent.mkdir()
    target = str(site / "fakepkg" / "__init__.py")
    cache = OwnerCache.load(cache_file)
    owner = owner_of(target, cache)
    assert (owner.name, owner.version, owner.rel_path) == ("fakepkg", "1.0", "fakepkg/__init__.py")
    cache.save()
    again = OwnerCache.load(cache_file)
    assert again.lookup(str(site.resolve() / "fakepkg" / "__init__.py")) == owner
    _bump_mtime(site / "fakepkg-1.0.dist-info" / "RECORD")        # reinstalled
    assert OwnerCache.load(cache_file).lookup(str(site.resolve() / "fakepkg" / "__init__.py")) is UNKNOWN


def test_upgrade_is_seen(site, tmp_path):
    cache_file = tmp_path / "hook-owners.json"
    target = str(site / "fakepkg" / "__init__.py")
    cache = OwnerCache.load(cache_file)
    assert owner_of(target, cache).version == "1.0"
    cache.save()
    import shutil

    shutil.rmtree(site / "fakepkg-1.0.dist-info")
    _dist_info(site, "2.0")
    _clear_process_caches()                                       # as in a new process
    assert owner_of(target, OwnerCache.load(cache_file)).version == "2.0"


def test_no_owner_holds_until_a_path_folder_changes(site, tmp_path):
    cache_file = tmp_path / "hook-owners.json"
    script = tmp_path / "script.py"
    script.write_text("x = 1\n")
    cache = OwnerCache.load(cache_file)
    assert owner_of(str(script), cache) is None
    cache.save()
    assert OwnerCache.load(cache_file).lookup(str(script.resolve())) is None
    (site / "newly_installed").mkdir()                            # something was installed
    _bump_mtime(site)
    assert OwnerCache.load(cache_file).lookup(str(script.resolve())) is UNKNOWN


def test_unusable_cache_files_are_empty_not_errors(tmp_path):
    for content in ("", "{broken", "[1, 2]", '{"format": 99, "files": {"a": 1}}',
                    '{"format": 1, "files": {"/x.py": {"owner": [1]}}}'):
        path = tmp_path / "hook-owners.json"
        path.write_text(content)
        assert OwnerCache.load(path).lookup("/x.py") is UNKNOWN, content


def test_save_never_creates_the_home(site, tmp_path):
    cache_file = tmp_path / "missing-home" / "hook-owners.json"
    cache = OwnerCache.load(cache_file)
    owner_of(str(site / "fakepkg" / "__init__.py"), cache)
    assert cache.dirty
    cache.save()
    assert not cache_file.parent.exists()

