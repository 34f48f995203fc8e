"""Hostile archives: escapes, links, devices and size/count caps never write outside the target."""

from __future__ import annotations

import os
import stat
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from .source_helpers import add_tar_file

from errdex.errors import SourceError, UnsafeArchiveError
from errdex.sources.archive import MANIFEST_NAME, UnpackLimits, unpack_archive


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink()}


def hostile_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("pkg/good.py", "ok = 1\n")
        zf.writestr("../evil.py", "escaped\n")
        zf.writestr("pkg/../../evil2.py", "escaped\n")
        zf.writestr("/abs_evil.py", "absolute\n")
        link = zipfile.ZipInfo("pkg/link.py")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("pkg\\win.py", "backslash\n")
    return path


def hostile_tar(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        add_tar_file(tf, "top/pkg/good.py", b"ok = 1\n")
        add_tar_file(tf, "../evil.py", b"escaped\n")
        add_tar_file(tf, "/abs_evil.py", b"absolute\n")
        for name, kind, target in [("top/sym.py", tarfile.SYMTYPE, "/etc/passwd"),
                                   ("top/hard.py", tarfile.LNKTYPE, "top/pkg/good.py"),
                                   ("top/dev", tarfile.CHRTYPE, ""), ("top/fifo", tarfile.FIFOTYPE, "")]:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, target
            tf.addfile(info)
    return path


@pytest.mark.parametrize("builder", [hostile_zip, hostile_tar])
def test_unsafe_members_are_skipped_with_reasons(tmp_path: Path, builder) -> None:
    suffix = ".zip" if builder is hostile_zip else ".tar.gz"
    archive = builder(tmp_path / f"hostile{suffix}")
    target = tmp_path / "deep" / "out" / "tree"
    result = unpack_archive(archive, target)
    reasons = dict(result.skipped)
    good = "pkg/good.py" if builder is hostile_zip else "top/pkg/good.py"
    assert files_under(target) == {good, MANIFEST_NAME}
    assert reasons["../evil.py"] == "path escapes the archive root"
    assert reasons["/abs_evil.py"] == "absolute path"
    if builder is hostile_zip:
        assert reasons["pkg/../../evil2.py"] == "path escapes the archive root"
        assert reasons["pkg/link.py"] == "symlink"
        assert reasons["pkg\\win.py"].startswith("unsafe name")
    else:
        assert reasons["top/sym.py"] == "symlink"
        assert reasons["top/hard.py"] == "hard link"
        assert reasons["top/dev"] == reasons["top/fifo"] == "device or special file"
    outside = {p.name for p in tmp_path.rglob("*evil*")}
    assert outside == set(), "nothing may be written outside the target"
    assert not any(p.is_symlink() for p in target.rglob("*"))


def many_members_zip(path: Path, count: int) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for i in range(count):
            zf.writestr(f"m{i}.py", "")
    return path


def test_too_many_members_rejects_archive_and_leaves_nothing(tmp_path: Path) -> None:
    archive = many_members_zip(tmp_path / "many.zip", 20)
    target = tmp_path / "trees" / "many"
    with pytest.raises(UnsafeArchiveError, match="more than 10 members"):
        unpack_archive(archive, target, UnpackLimits(max_members=10))
    assert not target.exists()
    assert list((tmp_path / "trees").iterdir()) == []


def test_too_many_tar_members_is_counted_while_streaming(tmp_path: Path) -> None:
    archive = tmp_path / "many.tar"
    with tarfile.open(archive, "w") as tf:
        for i in range(20):
            add_tar_file(tf, f"m{i}.py", b"")
    target = tmp_path / "trees" / "many"
    with pytest.raises(UnsafeArchiveError, match="members"):
        unpack_archive(archive, target, UnpackLimits(max_members=10))
    assert not target.exists() and list((tmp_path / "trees").iterdir()) == []


@pytest.mark.parametrize("suffix", [".zip", ".tar.gz"])
def test_too_large_total_rejects_archive(tmp_path: Path, suffix: str) -> None:
    archive = tmp_path / f"big{suffix}"
    blob = b"0" * 40_000
    if suffix == ".zip":
        with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for i in range(5):
                zf.writestr(f"big{i}.py", blob)
    else:
        with tarfile.open(archive, "w:gz") as tf:
            for i in range(5):
                add_tar_file(tf, f"big{i}.py", blob)
    assert archive.stat().st_size < 10_000  # compresses well: the cap must count real bytes
    target = tmp_path / "trees" / "big"
    with pytest.raises(UnsafeArchiveError, match="more than 100000 bytes"):
        unpack_archive(archive, target, UnpackLimits(max_total_bytes=100_000))
    assert not target.exists() and list((tmp_path / "trees").iterdir()) == []


def test_oversized_member_is_skipped(tmp_path: Path) -> None:
    archive = tmp_path / "one.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("small.py", "x = 1\n")
        zf.writestr("huge.py", "#" * 5000)
    result = unpack_archive(archive, tmp_path / "t", UnpackLimits(max_member_bytes=1000))
    assert files_under(result.path) == {"small.py", MANIFEST_NAME}
    assert dict(result.skipped)["huge.py"].startswith("member larger than 1000 bytes")


def test_unfinished_tree_is_not_trusted_and_finished_one_is_reused(tmp_path: Path) -> None:
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("pkg/mod.py", "x = 1\n")
    target = tmp_path / "trees" / "a"
    (target / "pkg").mkdir(parents=True)
    (target / "pkg" / "half.py").write_text("left by a killed unpack")
    stale = tmp_path / "trees" / ".tmp-a-deadbeef"
    stale.mkdir()
    old = time.time() - 7200
    os.utime(stale, (old, old))
    first = unpack_archive(archive, target)
    assert files_under(target) == {"pkg/mod.py", MANIFEST_NAME}
    assert not stale.exists()
    (target / "pkg" / "mod.py").write_text("marker: reused, not unpacked again")
    second = unpack_archive(archive, target)
    assert second == first
    assert (target / "pkg" / "mod.py").read_text().startswith("marker")


def test_corrupt_archive_is_a_clear_error(tmp_path: Path) -> None:
    archive = tmp_path / "bad.tar.gz"
    archive.write_bytes(b"\x1f\x8b" + b"not really gzip")
    with pytest.raises(SourceError, match="bad.tar.gz"):
        unpack_archive(archive, tmp_path / "t")
    assert not (tmp_path / "t").exists()
