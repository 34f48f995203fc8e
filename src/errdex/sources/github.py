"""Find the GitHub `owner/name` a codebase lives at, from a git remote or package metadata.

Permalinks (`githubUrl`) need it; when nothing names a GitHub repository we
return None rather than guess.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # only annotations: a folder or git index need not import the email package
    from email.message import Message

_OWNER = r"(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))"
_NAME = r"(?P<name>[A-Za-z0-9._-]+?)"

#: Remote URLs: https/http/git/ssh URLs and scp-like `git@github.com:o/n.git`.
_REMOTE = re.compile(
    r"^(?:(?:https?|git|ssh|git\+ssh|git\+https)://(?:[^@/]+@)?(?:www\.)?github\.com(?::\d+)?/"
    r"|(?:[^@/:]+@)?github\.com:/?)"
    + _OWNER + "/" + _NAME + r"(?:\.git)?/?$",
    re.IGNORECASE,
)

#: Web URLs in metadata: anything after owner/name (issues, tree/main/docs) is ignored.
_WEB = re.compile(
    r"^(?:https?://|git\+https://)?(?:www\.)?github\.com/" + _OWNER + "/" + _NAME
    + r"(?:\.git)?(?:[/#?].*)?$",
    re.IGNORECASE,
)

#: First path segments on github.com that are pages, not owners.
_NOT_OWNERS = frozenset({
    "sponsors", "orgs", "users", "apps", "marketplace", "settings", "features",
    "topics", "collections", "login", "about", "pricing", "site", "security",
})

#: Project-URL labels (normalised) that name the code itself, best first.
_SOURCE_LABELS = ("source", "sourcecode", "repository", "code", "github", "homepage", "home")


def _owner_name(match: re.Match[str] | None) -> str | None:
    if match is None:
        return None
    owner, name = match.group("owner"), match.group("name")
    if owner.lower() in _NOT_OWNERS or name in (".", ".."):
        return None
    return f"{owner}/{name}"


def github_repo_from_remote(url: str) -> str | None:
    """`owner/name` from a git remote URL pointing at github.com, else None."""
    return _owner_name(_REMOTE.match(url.strip()))


def github_repo_from_url(url: str) -> str | None:
    """`owner/name` from a github.com web URL, ignoring sub-pages like `/issues`."""
    return _owner_name(_WEB.match(url.strip()))


def _normalise_label(label: str) -> str:
    return re.sub(r"[^a-z0-9]", "", label.lower())


def _label_rank(label: str) -> int:
    normal = _normalise_label(label)
    return _SOURCE_LABELS.index(normal) if normal in _SOURCE_LABELS else len(_SOURCE_LABELS)


def _metadata_urls(metadata: Message) -> list[tuple[str, str]]:
    """(label, url) pairs from `Project-URL`, `Home-page` and `Download-URL`."""
    urls: list[tuple[str, str]] = []
    for entry in metadata.get_all("Project-URL") or []:
        label, _, url = str(entry).partition(",")
        if url:
            urls.append((label.strip(), url.strip()))
    for header, label in (("Home-page", "homepage"), ("Download-URL", "download")):
        value = metadata.get(header)
        if value and str(value).strip().upper() != "UNKNOWN":
            urls.append((label, str(value).strip()))
    return urls


def github_repo_from_metadata(metadata: Message) -> str | None:
    """The GitHub `owner/name` a package's metadata points at, preferring source-like labels."""
    ranked = sorted(_metadata_urls(metadata), key=lambda pair: _label_rank(pair[0]))
    for _, url in ranked:
        found = github_repo_from_url(url)
        if found:
            return found
    return None
