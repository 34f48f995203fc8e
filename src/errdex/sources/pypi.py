"""`pypi:NAME[==VERSION]` as a source: download once, unpack safely, list the code.

Layout under `cache_dir()`:
  downloads/<name>/<version or 'latest'>/<file>       what pip (or the index) gave us
  trees/<name>-<version>-<sha256 of file, 12 hex>/     the unpacked archive

A wheel is asked of pip first (`--only-binary=:all:`: nothing is built or
run). Without one, the sdist is fetched from the index directly (see
`simple_index`), because pip would run its setup code. A pinned version
already in the download folder is reused without calling pip; `latest`
always asks pip, and falls back to the newest cached file when offline.

`permalink_ref` is `v<version>`: a guess that the project tags releases that
way (see `GUESSED_PERMALINK_KINDS`). A wheel's layout need not match the
repository's (`python/sglang/...`): `permalink.locate_in_github` asks GitHub
once where the files sit and which tag exists, and keeps the guess offline.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from errdex.config import cache_dir
from errdex.errors import SourceError
from errdex.models import SourceTree
from errdex.sources.archive import MANIFEST_NAME, UnpackLimits, unpack_archive
from errdex.sources.distfiles import (
    DistFile, find_dist_files, find_tree_metadata, normalise_name, parse_dist_filename, safe_path_part,
)
from errdex.sources.github import github_repo_from_metadata
from errdex.sources.listing import apply_excludes, require_files, walk_python_files
from errdex.sources.simple_index import fetch_sdist

PIP_TIMEOUT_SECONDS = 1800
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+!_-]*$")
_SAVED_LINE = re.compile(r"^(?:Saved|File was already downloaded)\s+(.+?)\s*$", re.MULTILINE)

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class PackageSpec:
    """A parsed `NAME[==VERSION]`."""

    name: str
    version: str | None

    def __str__(self) -> str:
        return f"{self.name}=={self.version}" if self.version else self.name


def parse_package_spec(text: str) -> PackageSpec:
    """`NAME` or `NAME==VERSION`; anything else (ranges, options, URLs) is refused."""
    name, sep, version = text.strip().partition("==")
    name, version = name.strip(), version.strip()
    if not _NAME.match(name) or (sep and not _VERSION.match(version)):
        raise SourceError(f"bad package spec {text!r}: expected NAME or NAME==VERSION (e.g. pypi:six==1.16.0)")
    return PackageSpec(name, version or None)


def _pip_error_line(stderr: str) -> str:
    """pip's failure in one line: the 'No matching distribution' line when there is one."""
    errors = [line.removeprefix("ERROR:").strip() for line in stderr.splitlines() if line.startswith("ERROR:")]
    best = next((e for e in errors if e.startswith("No matching distribution")), None)
    line = best or (errors[0] if errors else (stderr.strip().splitlines() or ["pip failed"])[-1])
    return line if len(line) <= 300 else line[:297] + "..."


def pip_download_wheel(spec: PackageSpec, dest: Path) -> tuple[Path | None, str]:
    """Ask pip for a wheel only; returns (file, "") or (None, pip's error in one line)."""
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-build-isolation",
           "--only-binary=:all:", "--no-cache-dir", "--progress-bar", "off",
           "--disable-pip-version-check", "--no-input", "--dest", str(dest), str(spec)]
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_SECONDS, env=env, check=False)
    except subprocess.TimeoutExpired:
        return None, f"pip took longer than {PIP_TIMEOUT_SECONDS}s"
    if proc.returncode != 0:
        return None, _pip_error_line(proc.stderr)
    saved = _SAVED_LINE.findall(proc.stdout)
    path = Path(saved[-1]) if saved else None
    if path is None or not path.is_file():
        found = find_dist_files(dest, spec.name, spec.version)
        path = found[0].path if found else None
    return (path, "") if path else (None, "pip reported success but saved no file")


def download(spec: PackageSpec, downloads: Path, progress: Progress) -> Path:
    """The distribution file for `spec`: cached when pinned and present, else downloaded."""
    folder = downloads / safe_path_part(normalise_name(spec.name)) / safe_path_part(spec.version or "latest")
    cached = find_dist_files(folder, spec.name, spec.version) if spec.version else []
    if cached:
        progress(f"using cached {cached[0].path.name}")
        return cached[0].path
    progress(f"downloading {spec}")
    wheel, pip_error = pip_download_wheel(spec, folder)
    if wheel:
        return wheel
    progress(f"no wheel for {spec} ({pip_error}); looking for a source distribution")
    try:
        return fetch_sdist(spec.name, spec.version, folder)
    except SourceError as index_error:
        offline = find_dist_files(folder, spec.name) if spec.version is None else []
        if offline:
            progress(f"download failed; using cached {offline[0].path.name}")
            return offline[0].path
        raise SourceError(f"cannot download {spec}: {pip_error} ({index_error})") from index_error


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def archive_root(unpacked: Path, dist: DistFile) -> Path:
    """A wheel's root is the unpack folder; an sdist's is its single top folder, if it has one."""
    if dist.is_wheel:
        return unpacked
    tops = [p for p in unpacked.iterdir() if p.name != MANIFEST_NAME]
    return tops[0] if len(tops) == 1 and tops[0].is_dir() else unpacked


def tree_from_archive(archive: Path, *, trees: Path, repo: str | None, version: str | None,
                      exclude: Sequence[str], progress: Progress,
                      limits: UnpackLimits | None = None) -> SourceTree:
    """Unpack a wheel/sdist under `trees` (once) and describe it as a `pypi` SourceTree."""
    dist = parse_dist_filename(archive)
    if dist is None:
        raise SourceError(f"{archive.name} is not a wheel or sdist file name")
    target = trees / safe_path_part(f"{dist.name}-{dist.version}-{file_sha256(archive)[:12]}")
    if not (target / MANIFEST_NAME).is_file():
        progress(f"unpacking {archive.name}")
    unpacked = unpack_archive(archive, target, limits)
    root = archive_root(unpacked.path, dist)
    metadata = find_tree_metadata(root)
    package_version = str(metadata.get("Version") or dist.version) if metadata else dist.version
    github = github_repo_from_metadata(metadata) if metadata else None
    name = str(metadata.get("Name") or dist.name) if metadata else dist.name
    listing = apply_excludes(walk_python_files(root, metadata_dirs=True), exclude)
    return SourceTree(
        root=root,
        files=require_files(listing, f"{archive.name}"),
        repo=repo or github or name,
        version=version or package_version,
        kind="pypi",
        github_repo=github,
        permalink_ref=f"v{package_version}",
        skipped=tuple(unpacked.skipped) + tuple(listing.skipped),
    )


def resolve_pypi(text: str, *, repo: str | None = None, version: str | None = None,
                 exclude: Sequence[str] = (), home: Path | None = None,
                 progress: Progress | None = None) -> SourceTree:
    """`NAME[==VERSION]` from the package index, as an unpacked tree in the cache."""
    spec = parse_package_spec(text)
    say = progress or (lambda _msg: None)
    cache = cache_dir(home)
    archive = download(spec, cache / "downloads", say)
    tree = tree_from_archive(archive, trees=cache / "trees", repo=repo, version=version,
                             exclude=exclude, progress=say)
    if tree.github_repo:
        from errdex.sources.permalink import locate_in_github

        tree = locate_in_github(tree, tree.root)
    return tree
