"""A git checkout as a source: files git would track, pinned to HEAD, with a dirty flag.

Git runs as a subprocess with an argument list and a timeout, with `GIT_*`
variables removed so a caller's hook environment cannot redirect it. Only
read commands are used (`--no-optional-locks` keeps `status` from writing the
index).

`dirty` looks at tracked files under the given folder only: edits elsewhere in
the repository do not change the indexed code, so they do not mark it dirty.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from errdex.errors import SourceError
from errdex.models import SourceTree
from errdex.sources.github import github_repo_from_remote
from errdex.sources.listing import apply_excludes, filter_candidates, require_files

GIT_TIMEOUT_SECONDS = 60


@dataclass(frozen=True, slots=True)
class GitState:
    """What git says about a folder inside a work tree."""

    toplevel: Path
    sha: str
    dirty: bool
    origin: str | None
    url_prefix: str


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["LC_ALL"] = "C"
    return env


def run_git(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """`git <args>` in `cwd`; raises SourceError when git hangs or cannot start."""
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", *args], cwd=cwd, capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS, env=_git_env(), check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise SourceError(f"git {' '.join(args)} took longer than {GIT_TIMEOUT_SECONDS}s in {cwd}") from exc
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from exc


def _out(proc: subprocess.CompletedProcess[bytes]) -> str:
    return proc.stdout.decode("utf-8", "surrogateescape").strip()


def _first_line(data: bytes) -> str:
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else "no message"


def find_work_tree(folder: Path, progress: Callable[[str], None] | None = None) -> Path | None:
    """The repository toplevel when `folder` is tracked-able code inside a git work tree."""
    if shutil.which("git") is None:
        if (folder / ".git").exists() and progress:
            progress("git is not installed; indexing as a plain folder")
        return None
    proc = run_git(["rev-parse", "--show-toplevel"], folder)
    if proc.returncode != 0:
        if (folder / ".git").exists() and progress:
            progress(f"git cannot read {folder} ({_first_line(proc.stderr)}); indexing as a plain folder")
        return None
    toplevel = Path(_out(proc)).resolve()
    if toplevel != folder.resolve() and run_git(["check-ignore", "-q", "."], folder).returncode == 0:
        return None  # an ignored folder inside some repository: not that repository's code
    return toplevel


def read_git_state(folder: Path, toplevel: Path) -> GitState | None:
    """HEAD sha, dirty flag, origin URL and subfolder prefix; None when HEAD has no commit."""
    head = run_git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], folder)
    if head.returncode != 0:
        return None
    status = run_git(["status", "--porcelain", "--untracked-files=no", "--", "."], folder)
    if status.returncode != 0:
        raise SourceError(f"git status failed in {folder}: {_first_line(status.stderr)}")
    origin = run_git(["config", "--get", "remote.origin.url"], folder)
    rel = folder.resolve().relative_to(toplevel).as_posix()
    return GitState(
        toplevel=toplevel,
        sha=_out(head),
        dirty=bool(_out(status)),
        origin=_out(origin) if origin.returncode == 0 and _out(origin) else None,
        url_prefix="" if rel == "." else rel + "/",
    )


def git_files(folder: Path) -> list[str]:
    """Tracked and untracked-but-not-ignored paths under `folder`, relative to it."""
    proc = run_git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], folder)
    if proc.returncode != 0:
        raise SourceError(f"git ls-files failed in {folder}: {_first_line(proc.stderr)}")
    raw = proc.stdout.decode("utf-8", "surrogateescape")
    return [path for path in raw.split("\0") if path]


def resolve_git(folder: Path, state: GitState, *, repo: str | None = None,
                version: str | None = None, exclude: Sequence[str] = ()) -> SourceTree:
    """A checkout pinned to HEAD; `<sha>-dirty` when tracked files under it were edited."""
    root = folder.resolve()
    listing = apply_excludes(filter_candidates(root, git_files(root)), exclude)
    files = require_files(listing, str(root))
    github = github_repo_from_remote(state.origin) if state.origin else None
    return SourceTree(
        root=root,
        files=files,
        repo=repo or github or state.toplevel.name,
        version=version or (f"{state.sha}-dirty" if state.dirty else state.sha),
        kind="git",
        sha=state.sha,
        dirty=state.dirty,
        github_repo=github,
        permalink_ref=state.sha,
        url_prefix=state.url_prefix,
        skipped=tuple(listing.skipped),
    )
