"""Names, versions and metadata of Python distribution files (wheels and sdists).

Pure parsing, no I/O beyond reading one metadata file: shared by the PyPI
downloader, the index client and the installed-distribution source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message
from email.parser import BytesHeaderParser
from pathlib import Path

SDIST_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")
_SAFE_PATH_CHARS = re.compile(r"[^A-Za-z0-9._+-]")


@dataclass(frozen=True, slots=True)
class DistFile:
    """What a distribution file's name says about it."""

    path: Path
    name: str         # normalised project name
    version: str
    is_wheel: bool


def normalise_name(name: str) -> str:
    """PEP 503 normal form: `Foo_Bar.baz` -> `foo-bar-baz`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def safe_path_part(text: str) -> str:
    """`text` with anything but `[A-Za-z0-9._+-]` replaced, for use in cache folder names."""
    return _SAFE_PATH_CHARS.sub("_", text) or "_"


def parse_dist_filename(path: Path) -> DistFile | None:
    """Name and version from `name-ver-...whl` or `name-ver.tar.gz`; None for other files."""
    filename = path.name
    if filename.endswith(".whl"):
        parts = filename[:-4].split("-")
        if len(parts) in (5, 6):
            return DistFile(path, normalise_name(parts[0]), parts[1], True)
        return None
    for suffix in SDIST_SUFFIXES:
        if filename.endswith(suffix):
            name, sep, version = filename[: -len(suffix)].rpartition("-")
            if sep and name and version:
                return DistFile(path, normalise_name(name), version, False)
    return None


def find_dist_files(folder: Path, name: str, version: str | None = None) -> list[DistFile]:
    """Distribution files of `name` (and `version`) in `folder`, wheels first, newest first."""
    if not folder.is_dir():
        return []
    wanted = normalise_name(name)
    found = []
    for path in folder.iterdir():
        dist = parse_dist_filename(path) if path.is_file() else None
        if dist and dist.name == wanted and (version is None or dist.version == version):
            found.append(dist)
    return sorted(found, key=lambda d: (not d.is_wheel, -d.path.stat().st_mtime))


def read_metadata_file(path: Path) -> Message | None:
    """The headers of a METADATA / PKG-INFO file, or None when it cannot be read."""
    try:
        return BytesHeaderParser().parsebytes(path.read_bytes())
    except OSError:
        return None


def find_tree_metadata(root: Path) -> Message | None:
    """Metadata of an unpacked wheel (`*.dist-info/METADATA`) or sdist (`PKG-INFO`)."""
    candidates = sorted(root.glob("*.dist-info/METADATA")) + [root / "PKG-INFO"]
    for candidate in candidates:
        if candidate.is_file():
            return read_metadata_file(candidate)
    return None
