"""Fetch an sdist straight from a package index (PEP 691 JSON simple API), without pip.

Why not `pip download --no-binary :all:`: pip prepares an sdist's metadata
after downloading it, which runs the package's `setup.py` or build backend.
errdex never runs the code it indexes, so for sdists we read the index page
ourselves, pick the file, download it and check its sha256.

The index is `$PIP_INDEX_URL` (the same variable pip honours) or PyPI. With
no version asked for, the sdist uploaded last wins (PEP 700 `upload-time`).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from urllib.parse import urljoin

TYPE_CHECKING = False
if TYPE_CHECKING:
    import httpx

from errdex.errors import SourceError
from errdex.sources.distfiles import normalise_name, parse_dist_filename

DEFAULT_INDEX = "https://pypi.org/simple/"
JSON_ACCEPT = "application/vnd.pypi.simple.v1+json"
TIMEOUT_SECONDS = 60.0


def index_url() -> str:
    """The index pip would use by default: `$PIP_INDEX_URL`, else PyPI."""
    return (os.environ.get("PIP_INDEX_URL") or DEFAULT_INDEX).rstrip("/") + "/"


def _project_files(client: httpx.Client, page: str, name: str) -> list[dict]:
    resp = client.get(page, headers={"Accept": JSON_ACCEPT})
    if resp.status_code == 404:
        raise SourceError(f"no package named {name!r} on {index_url()}")
    resp.raise_for_status()
    try:
        return list(resp.json()["files"])
    except (ValueError, KeyError, TypeError) as exc:
        raise SourceError(f"{page} did not answer with a PEP 691 JSON page") from exc


def _pick_sdist(files: list[dict], name: str, version: str | None) -> dict:
    wanted = normalise_name(name)
    sdists = []
    for entry in files:
        filename = str(entry.get("filename", ""))
        dist = parse_dist_filename(Path(filename)) if "/" not in filename else None
        if dist and not dist.is_wheel and dist.name == wanted and not entry.get("yanked"):
            if version is None or dist.version == version:
                sdists.append(entry)
    if not sdists:
        what = f"{name}=={version}" if version else name
        raise SourceError(f"no source distribution of {what} on {index_url()}")
    return max(sdists, key=lambda e: str(e.get("upload-time", "")))


def _download(client: httpx.Client, url: str, dest: Path, sha256: str | None) -> None:
    temp = dest.with_name(f".part-{uuid.uuid4().hex[:8]}-{dest.name}")
    digest = hashlib.sha256()
    try:
        with client.stream("GET", url) as resp, open(temp, "wb") as out:
            resp.raise_for_status()
            for chunk in resp.iter_bytes():
                digest.update(chunk)
                out.write(chunk)
        if sha256 and digest.hexdigest() != sha256.lower():
            raise SourceError(f"{dest.name}: sha256 does not match the index; download discarded")
        temp.replace(dest)
    finally:
        temp.unlink(missing_ok=True)


def fetch_sdist(name: str, version: str | None, dest_dir: Path) -> Path:
    """Download the sdist of `name` (`==version`) into `dest_dir`; returns the file."""
    import httpx  # here, not at the top: every `errdex index` imports this module, few fetch an sdist

    page = urljoin(index_url(), normalise_name(name) + "/")
    dest_dir.mkdir(parents=True, exist_ok=True)
    try:
        with httpx.Client(timeout=TIMEOUT_SECONDS, follow_redirects=True) as client:
            entry = _pick_sdist(_project_files(client, page, name), name, version)
            dest = dest_dir / str(entry["filename"])
            if not dest.is_file():
                hashes = entry.get("hashes") or {}
                _download(client, urljoin(page, str(entry["url"])), dest, hashes.get("sha256"))
    except httpx.HTTPError as exc:
        raise SourceError(f"cannot fetch {name} from {index_url()}: {exc}") from exc
    return dest
