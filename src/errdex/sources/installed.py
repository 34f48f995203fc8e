"""`installed:DIST` as a source: the `.py` files an installed distribution put on disk.

The distribution is looked up in the interpreter running errdex. Files come
from its RECORD, relative to the folder it was installed into
(site-packages), so `filePath` reads `requests/api.py`. An editable install
records little there, so when `direct_url.json` names a local editable
folder we index that folder instead (as a git checkout or plain folder).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from importlib import metadata as importlib_metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from errdex.errors import SourceError
from errdex.models import SourceTree
from errdex.sources.github import github_repo_from_metadata
from errdex.sources.listing import apply_excludes, filter_candidates, require_files

LocalResolver = Callable[..., SourceTree]


def editable_folder(dist: importlib_metadata.Distribution) -> Path | None:
    """The local folder of an editable install, from `direct_url.json` (PEP 610)."""
    try:
        data = json.loads(dist.read_text("direct_url.json") or "null")
    except ValueError:
        return None
    if not isinstance(data, dict) or not (data.get("dir_info") or {}).get("editable"):
        return None
    url = urlparse(str(data.get("url", "")))
    if url.scheme != "file":
        return None
    folder = Path(unquote(url.path))
    return folder if folder.is_dir() else None


def find_distribution(name: str) -> importlib_metadata.Distribution:
    try:
        return importlib_metadata.distribution(name)
    except importlib_metadata.PackageNotFoundError:
        raise SourceError(f"{name!r} is not installed in the environment running errdex "
                          f"({sys.executable}); install it there or use pypi:{name}") from None


def resolve_installed(name: str, *, local: LocalResolver, repo: str | None = None,
                      version: str | None = None, exclude: Sequence[str] = (),
                      progress: Callable[[str], None] | None = None) -> SourceTree:
    """An installed distribution's files; `local` resolves an editable install's folder."""
    dist = find_distribution(name.strip())
    dist_name = str(dist.metadata.get("Name") or name)
    github = github_repo_from_metadata(dist.metadata)
    folder = editable_folder(dist)
    if folder is not None:
        if progress:
            progress(f"{dist_name} is an editable install of {folder}; indexing that folder")
        tree = local(folder, repo=repo, version=version, exclude=exclude, progress=progress)
        if tree.github_repo is None and github:
            tree = replace(tree, github_repo=github, repo=repo or github)
        return tree
    if dist.files is None:
        raise SourceError(f"{dist_name} has no RECORD of installed files; try pypi:{dist_name}=={dist.version}")
    root = Path(dist.locate_file("")).resolve()
    listing = apply_excludes(filter_candidates(root, (f.as_posix() for f in dist.files)), exclude)
    tree = SourceTree(
        root=root,
        files=require_files(listing, f"installed distribution {dist_name}"),
        repo=repo or github or dist_name,
        version=version or dist.version,
        kind="installed",
        github_repo=github,
        permalink_ref=f"v{dist.version}",
        skipped=tuple(listing.skipped),
    )
    if github:   # where the files sit in the repository: asked once, remembered in errdex's cache
        from errdex.config import errdex_home
        from errdex.sources.distfiles import safe_path_part
        from errdex.sources.permalink import locate_in_github

        answers = errdex_home() / "cache" / "permalinks" / safe_path_part(f"{dist_name}-{dist.version}")
        tree = locate_in_github(tree, answers)   # the folder is made only when an answer is kept
    return tree
