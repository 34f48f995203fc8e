"""A plain folder as a source: its `.py` files, versioned by a hash of their content.

The version `folder-<12 hex>` is the sha256 over each listed file's relative
path and bytes (after excludes), so the same code gets the same version
wherever it is copied, and any edit gives a new one. Timestamps play no part.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from errdex.config import errdex_home
from errdex.models import SourceTree
from errdex.sources.listing import apply_excludes, require_files, walk_python_files


def folder_version(root: Path, files: Sequence[str]) -> str:
    """`folder-<12 hex>`: a content hash of the listed files, stable across copies."""
    digest = hashlib.sha256()
    for rel in files:
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256((root / rel).read_bytes()).digest())
    return f"folder-{digest.hexdigest()[:12]}"


def resolve_folder(folder: Path, *, repo: str | None = None, version: str | None = None,
                   exclude: Sequence[str] = ()) -> SourceTree:
    """A folder that is not a git checkout (or whose git state is unusable)."""
    root = folder.resolve()
    listing = apply_excludes(walk_python_files(root, own_data=errdex_home()), exclude)
    files = require_files(listing, str(root))
    return SourceTree(
        root=root,
        files=files,
        repo=repo or root.name,
        version=version or folder_version(root, files),
        kind="folder",
        skipped=tuple(listing.skipped),
    )
