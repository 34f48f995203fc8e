"""Builders of real inputs for source tests: git repositories, archives and a local package index."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

GIT_IDENTITY = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` for test setup; returns stdout."""
    proc = subprocess.run(["git", *GIT_IDENTITY, *args], cwd=repo, capture_output=True, text=True,
                          check=True, timeout=30)
    return proc.stdout.strip()


def write(root: Path, rel: str, text: str = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_repo(root: Path, files: dict[str, str], origin: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for rel, text in files.items():
        write(root, rel, text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    if origin:
        git(root, "remote", "add", "origin", origin)
    return root


def build_wheel(folder: Path, name: str, version: str, modules: dict[str, str],
                project_urls: tuple[str, ...] = ()) -> Path:
    """A minimal but valid wheel, written deterministically."""
    dist_info = f"{name}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    meta += "".join(f"Project-URL: {url}\n" for url in project_urls)
    members = dict(modules)
    members[f"{dist_info}/METADATA"] = meta
    members[f"{dist_info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    members[f"{dist_info}/RECORD"] = "".join(f"{m},,\n" for m in members) + f"{dist_info}/RECORD,,\n"
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for member, text in members.items():
            zf.writestr(zipfile.ZipInfo(member, date_time=(2020, 1, 1, 0, 0, 0)), text)
    return path


def add_tar_file(tf: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tf.addfile(info, io.BytesIO(data))


def build_sdist(folder: Path, name: str, version: str, files: dict[str, str]) -> Path:
    path = folder / f"{name}-{version}.tar.gz"
    top = f"{name}-{version}"
    with tarfile.open(path, "w:gz") as tf:
        add_tar_file(tf, f"{top}/PKG-INFO", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode())
        for rel, text in files.items():
            add_tar_file(tf, f"{top}/{rel}", text.encode())
    return path


class LocalIndex:
    """A PEP 691 JSON package index on 127.0.0.1 serving files from one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.requests: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/simple/"

    def _page(self, project: str) -> bytes | None:
        from errdex.sources.distfiles import parse_dist_filename

        files = []
        for path in sorted(self.folder.iterdir()):
            dist = parse_dist_filename(path)
            if dist and dist.name == project:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                files.append({"filename": path.name, "url": f"/files/{path.name}", "hashes": {"sha256": digest}})
        if not files:
            return None
        return json.dumps({"meta": {"api-version": "1.0"}, "name": project, "files": files}).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                index.requests.append(self.path)
                parts = [p for p in self.path.split("/") if p]
                body, ctype = None, "application/vnd.pypi.simple.v1+json"
                if len(parts) == 2 and parts[0] == "simple":
                    body = index._page(parts[1])
                elif len(parts) == 2 and parts[0] == "files" and (index.folder / parts[1]).is_file():
                    body, ctype = (index.folder / parts[1]).read_bytes(), "application/octet-stream"
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args: object) -> None:
                pass

        return Handler
