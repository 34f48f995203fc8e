"""`errdex index PATH --rev A..B`: index every commit of a git range into one database.

Git plumbing reads the commits without checking anything out: `git log`
lists the range oldest first, `git ls-tree -r` each commit's files, and one
long-running `git cat-file --batch` hands over the blobs. The files live in
one scratch folder that is updated commit to commit (only blobs that changed
are written), so the pipeline's per-file cache, keyed by content, path and
module, re-reads nothing that did not change. The boundary commit A is
indexed too, as the baseline the first commit of the range is compared with.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from errdex.errors import SourceError
from errdex.models import SourceTree
from errdex.sources.github import github_repo_from_remote
from errdex.sources.gitrepo import _git_env, find_work_tree, run_git
from errdex.sources.listing import SKIP_DIR_REASONS, is_excluded
from errdex.store import Store
from errdex.store.versions import CommitInfo, put_commits

ProgressFn = Callable[[str, int, int], None]


@dataclass(slots=True)
class RangeReport:
    """What indexing a range did."""

    repo: str
    commits: list[str]                 # shas indexed, oldest first (the baseline first when A was given)
    records: int = 0                   # records of the last commit
    files_written: int = 0             # blobs materialised (changed files only)
    extracted: int = 0                 # files parsed (the rest came from the per-file cache)
    seconds: float = 0.0
    datasets: list[str] = field(default_factory=list)


def range_commits(toplevel: Path, rev: str) -> list[CommitInfo]:
    """Commits of `A..B` (A included as the baseline), or of a single rev's ancestry, oldest first."""
    base = rev.split("..", 1)[0] if ".." in rev else None
    proc = run_git(["log", "--reverse", "--topo-order", "--format=%H%x00%ct%x00%an%x00%P%x00%s", rev, "--"], toplevel)
    if proc.returncode != 0:
        raise SourceError(f"git cannot read range {rev!r}: {proc.stderr.decode(errors='replace').strip()}")
    found = [_commit(line) for line in proc.stdout.decode("utf-8", "replace").splitlines() if line]
    if base:
        head = run_git(["log", "-1", "--format=%H%x00%ct%x00%an%x00%P%x00%s", base, "--"], toplevel)
        if head.returncode != 0:
            raise SourceError(f"unknown revision {base!r}")
        found.insert(0, _commit(head.stdout.decode("utf-8", "replace").strip()))
    return found


def _commit(line: str) -> CommitInfo:
    sha, at, author, parents, subject = line.split("\0", 4)
    return CommitInfo(sha, int(at), author, subject, tuple(parents.split()))


def tree_blobs(toplevel: Path, sha: str, prefix: str, exclude: Sequence[str]) -> dict[str, str]:
    """`.py` files of a commit under `prefix`, relative to it -> blob sha (regular files only)."""
    args = ["ls-tree", "-r", "-z", "--full-tree", sha]
    proc = run_git(args + ([prefix] if prefix else []), toplevel)
    if proc.returncode != 0:
        raise SourceError(f"git ls-tree failed for {sha}: {proc.stderr.decode(errors='replace').strip()}")
    out: dict[str, str] = {}
    for entry in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind != "blob" or mode not in ("100644", "100755") or not path.endswith(".py"):
            continue
        rel = path[len(prefix):]
        parts = rel.split("/")
        if any(p in SKIP_DIR_REASONS for p in parts[:-1]) or is_excluded(rel, exclude):
            continue
        out[rel] = blob
    return out


class BlobReader:
    """One `git cat-file --batch` process: blob sha in, bytes out."""

    def __init__(self, toplevel: Path) -> None:
        self._proc = subprocess.Popen(["git", "cat-file", "--batch"], cwd=toplevel, env=_git_env(),
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read(self, blob: str) -> bytes:
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(blob.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) != 3:
            raise SourceError(f"git cat-file cannot read blob {blob}")
        data = self._proc.stdout.read(int(header[2]))
        self._proc.stdout.read(1)  # the newline after the content
        return data

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)


def sync_folder(folder: Path, on_disk: dict[str, str], wanted: dict[str, str], blobs: BlobReader) -> int:
    """Make `folder` hold exactly `wanted`; write only changed blobs. Returns files written."""
    for rel in set(on_disk) - set(wanted):
        (folder / rel).unlink(missing_ok=True)
        del on_disk[rel]
    written = 0
    for rel, blob in wanted.items():
        if on_disk.get(rel) == blob:
            continue
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blobs.read(blob))
        on_disk[rel] = blob
        written += 1
    return written


def index_git_range(path: str | Path, rev: str, db_path: str | Path, *, jobs: int | None = None,
                    repo: str | None = None, exclude: Sequence[str] = (),
                    progress: ProgressFn | None = None,
                    message: Callable[[str], None] | None = None) -> RangeReport:
    """Index every commit of `rev` (git range syntax) of the checkout at `path`, oldest first."""
    from errdex.pipeline import index_tree

    started = time.perf_counter()
    folder = Path(path).resolve()
    toplevel = find_work_tree(folder, message)
    if toplevel is None:
        raise SourceError(f"{folder} is not inside a git work tree; --rev needs one")
    rel = folder.relative_to(toplevel).as_posix()
    prefix = "" if rel == "." else rel + "/"
    origin = run_git(["config", "--get", "remote.origin.url"], toplevel).stdout.decode().strip()
    github = github_repo_from_remote(origin) if origin else None
    repo_name = repo or github or toplevel.name
    todo = range_commits(toplevel, rev)
    if not todo:
        raise SourceError(f"range {rev!r} holds no commits")
    report = RangeReport(repo_name, [c.sha for c in todo])
    with Store.open(db_path) as store:
        put_commits(store, repo_name, todo)
    scratch = Path(tempfile.mkdtemp(prefix="errdex-rev-"))
    blobs = BlobReader(toplevel)
    on_disk: dict[str, str] = {}
    try:
        for done, commit in enumerate(todo):
            if message:
                message(f"{commit.sha[:12]} {commit.subject}")
            wanted = tree_blobs(toplevel, commit.sha, prefix, exclude)
            if not wanted:
                continue
            report.files_written += sync_folder(scratch, on_disk, wanted, blobs)
            tree = SourceTree(root=scratch, files=tuple(sorted(wanted)), repo=repo_name, version=commit.sha,
                              kind="git", sha=commit.sha, github_repo=github, permalink_ref=commit.sha,
                              url_prefix=prefix)
            result = index_tree(tree, db_path, jobs=jobs)
            report.extracted += result.extracted
            report.records = result.records
            report.datasets.append(result.dataset.name)
            if progress:
                progress("commits", done + 1, len(todo))
    finally:
        blobs.close()
        shutil.rmtree(scratch, ignore_errors=True)
    report.seconds = time.perf_counter() - started
    return report
