"""Unpack a wheel or sdist (zip or tar) safely into a folder errdex will later trust.

Archives come from the network, so every member is checked before a byte is
written: no absolute paths or `..` escapes, no symlinks, hard links or device
files (those members are skipped and reported), and caps on the member
count, the total size and each member's size (counted while copying, not
taken from headers). Breaking the count or total cap rejects the archive.

We never call `extractall`: each regular member is copied by hand into a
temporary sibling folder, a manifest of skipped members is written last, and
the folder is renamed into place. A killed unpack leaves only a `.tmp-*`
folder, never a half tree under the final name.
"""

from __future__ import annotations

import json
import shutil
import stat
import tarfile
import time
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import BinaryIO

from errdex.errors import SourceError, UnsafeArchiveError

MANIFEST_NAME = ".errdex-unpack.json"
_CHUNK = 1 << 20
_STALE_TEMP_SECONDS = 3600


@dataclass(frozen=True, slots=True)
class UnpackLimits:
    """Safety caps for one archive."""

    max_members: int = 100_000
    max_total_bytes: int = 2 << 30
    max_member_bytes: int = 512 << 20


@dataclass(frozen=True, slots=True)
class UnpackedArchive:
    """A fully unpacked archive and the members that were left out, with reasons."""

    path: Path
    skipped: tuple[tuple[str, str], ...]


def member_path_problem(name: str) -> str | None:
    """Why a member name is unsafe to write, or None when it stays inside the target."""
    if "\0" in name:
        return "unsafe name (NUL byte)"
    if "\\" in name:
        return "unsafe name (backslash)"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "absolute path"
    if ".." in name.split("/"):
        return "path escapes the archive root"
    return None


def _clean_parts(name: str) -> list[str]:
    return [part for part in name.split("/") if part not in ("", ".")]


class _Writer:
    """Writes checked members under `target`, keeping the running totals and skip list."""

    def __init__(self, target: Path, limits: UnpackLimits) -> None:
        self.target = target
        self.real_target = target.resolve()
        self.limits = limits
        self.total = 0
        self.count = 0
        self.skipped: list[tuple[str, str]] = []

    def count_member(self, archive: Path) -> None:
        self.count += 1
        if self.count > self.limits.max_members:
            raise UnsafeArchiveError(
                f"{archive.name} has more than {self.limits.max_members} members; refusing to unpack")

    def destination(self, name: str) -> Path | None:
        problem = member_path_problem(name)
        parts = _clean_parts(name)
        if problem is None and not parts:
            return None
        dest = self.target.joinpath(*parts) if parts else self.target
        if problem is None and self.real_target not in dest.resolve().parents:
            problem = "path escapes the archive root"
        if problem:
            self.skipped.append((name, problem))
            return None
        return dest

    def make_dir(self, name: str) -> None:
        dest = self.destination(name)
        if dest is not None:
            try:
                dest.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                self.skipped.append((name, f"cannot create folder: {exc.strerror or exc}"))

    def write_file(self, name: str, declared_size: int,
                   open_member: Callable[[], BinaryIO | None], archive: Path) -> None:
        if declared_size > self.limits.max_member_bytes:
            self.skipped.append((name, f"member larger than {self.limits.max_member_bytes} bytes"))
            return
        dest = self.destination(name)
        if dest is None:
            return
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            src = open_member()
            if src is None:
                raise OSError("member has no data")
            with src, open(dest, "wb") as out:
                too_big = self._copy(src, out, archive)
        except OSError as exc:
            self.skipped.append((name, f"cannot write: {exc.strerror or exc}"))
            return
        if too_big:
            dest.unlink(missing_ok=True)
            self.skipped.append((name, f"member larger than {self.limits.max_member_bytes} bytes"))

    def _copy(self, src: BinaryIO, out: BinaryIO, archive: Path) -> bool:
        """Copy with caps counted on real bytes; True when the member cap was hit."""
        written = 0
        while chunk := src.read(_CHUNK):
            written += len(chunk)
            self.total += len(chunk)
            if self.total > self.limits.max_total_bytes:
                raise UnsafeArchiveError(
                    f"{archive.name} unpacks to more than {self.limits.max_total_bytes} bytes; refusing to unpack")
            if written > self.limits.max_member_bytes:
                return True
            out.write(chunk)
        return False


def _unpack_zip(archive: Path, writer: _Writer) -> None:
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        if len(infos) > writer.limits.max_members:  # refuse before writing anything
            raise UnsafeArchiveError(
                f"{archive.name} has more than {writer.limits.max_members} members; refusing to unpack")
        for info in infos:
            writer.count_member(archive)
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)
            if info.is_dir():
                writer.make_dir(info.filename)
            elif kind == stat.S_IFLNK:
                writer.skipped.append((info.filename, "symlink"))
            elif kind not in (0, stat.S_IFREG):
                writer.skipped.append((info.filename, "device or special file"))
            elif info.flag_bits & 0x1:
                writer.skipped.append((info.filename, "encrypted member"))
            else:
                writer.write_file(info.filename, info.file_size, partial(zf.open, info), archive)


def _tar_kind_reason(member: tarfile.TarInfo) -> str | None:
    if member.issym():
        return "symlink"
    if member.islnk():
        return "hard link"
    if member.ischr() or member.isblk() or member.isfifo() or member.isdev():
        return "device or special file"
    if not (member.isreg() or member.isdir()):
        return "unsupported member type"
    return None


def _unpack_tar(archive: Path, writer: _Writer) -> None:
    with tarfile.open(archive, mode="r:*") as tf:
        for member in tf:  # streaming: never builds the full member list first
            writer.count_member(archive)
            reason = _tar_kind_reason(member)
            if reason:
                writer.skipped.append((member.name, reason))
            elif member.isdir():
                writer.make_dir(member.name)
            else:
                writer.write_file(member.name, member.size, partial(tf.extractfile, member), archive)


def _unpack_into(archive: Path, target: Path, limits: UnpackLimits) -> list[tuple[str, str]]:
    writer = _Writer(target, limits)
    try:
        if zipfile.is_zipfile(archive):
            _unpack_zip(archive, writer)
        elif tarfile.is_tarfile(archive):
            _unpack_tar(archive, writer)
        else:
            raise SourceError(f"{archive.name} is neither a zip nor a tar archive")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
        raise SourceError(f"{archive.name} is a corrupt archive: {exc}") from exc
    return writer.skipped


def read_manifest(path: Path) -> UnpackedArchive | None:
    """A completed unpack at `path`, or None when there is none."""
    try:
        data = json.loads((path / MANIFEST_NAME).read_text("utf-8"))
        return UnpackedArchive(path, tuple((str(p), str(r)) for p, r in data["skipped"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remove_stale_temps(target: Path) -> None:
    cutoff = time.time() - _STALE_TEMP_SECONDS
    for old in target.parent.glob(f".tmp-{target.name}-*"):
        try:
            if old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass


def unpack_archive(archive: Path, target: Path, limits: UnpackLimits | None = None) -> UnpackedArchive:
    """Unpack `archive` to `target` once; later calls reuse the finished tree."""
    done = read_manifest(target)
    if done is not None:
        return done
    if target.exists():
        shutil.rmtree(target)  # no manifest: not something we finished, so not trusted
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(target)
    temp = target.parent / f".tmp-{target.name}-{uuid.uuid4().hex[:8]}"
    temp.mkdir()
    try:
        skipped = _unpack_into(archive, temp, limits or UnpackLimits())
        (temp / MANIFEST_NAME).write_text(json.dumps({"archive": archive.name, "skipped": skipped}), "utf-8")
        try:
            temp.rename(target)
        except OSError:
            done = read_manifest(target)  # another process finished first
            if done is None:
                raise
            shutil.rmtree(temp, ignore_errors=True)
            return done
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return UnpackedArchive(target, tuple(skipped))
