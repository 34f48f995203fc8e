"""Where a wheel's files sit in its GitHub repository, asked of a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from errdex.models import SourceTree
from errdex.pipeline import index_tree
from errdex.sources import permalink
from errdex.sources.permalink import ANSWER_FILE, locate_in_github
from errdex.store import Store


class _Raw:
    """A stand-in for raw.githubusercontent.com: HEAD answers 200 for `present` paths, else 404."""

    def __init__(self, present: set[str]) -> None:
        self.present = present
        self.asked: list[str] = []
        raw = self

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self) -> None:  # noqa: N802 (http.server's name)
                raw.asked.append(self.path)
                self.send_response(200 if self.path in raw.present else 404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def raw(monkeypatch: pytest.MonkeyPatch):
    server = _Raw(set())
    monkeypatch.setenv(permalink.RAW_ENV, server.url)
    monkeypatch.delenv(permalink.OFFLINE_ENV, raising=False)
    yield server
    server.close()


def _tree(root: Path, version: str = "1.0") -> SourceTree:
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text("def f(n):\n    if n > 3:\n        raise ValueError(f'n={n} too big')\n")
    return SourceTree(root=root, files=("pkg/__init__.py", "pkg/core.py"), repo="acme/pkg", version=version,
                      kind="pypi", github_repo="acme/pkg", permalink_ref=f"v{version}")


def test_the_repository_folder_is_found_and_remembered(tmp_path: Path, raw: _Raw) -> None:
    raw.present = {"/acme/pkg/v1.0/python/pkg/__init__.py"}
    tree = locate_in_github(_tree(tmp_path), tmp_path)
    assert (tree.url_prefix, tree.permalink_ref) == ("python/", "v1.0")
    assert raw.asked == ["/acme/pkg/v1.0/pkg/__init__.py", "/acme/pkg/v1.0/python/pkg/__init__.py"]
    # the answer is kept with the tree: a second index of the same archive asks nothing
    asked = len(raw.asked)
    again = locate_in_github(_tree(tmp_path), tmp_path)
    assert again == tree and len(raw.asked) == asked


def test_a_bare_version_tag_is_tried_after_the_v_tag(tmp_path: Path, raw: _Raw) -> None:
    raw.present = {"/acme/pkg/1.0/src/pkg/__init__.py"}
    answers = tmp_path / "cache" / "permalinks" / "pkg-1.0"   # made when there is an answer to keep
    tree = locate_in_github(_tree(tmp_path / "src"), answers)
    assert (tree.url_prefix, tree.permalink_ref) == ("src/", "1.0")
    assert (answers / ANSWER_FILE).is_file()


def test_nothing_found_keeps_the_guess(tmp_path: Path, raw: _Raw) -> None:
    original = _tree(tmp_path)
    assert locate_in_github(original, tmp_path) == original
    assert len(raw.asked) == 6 and not (tmp_path / ANSWER_FILE).exists()


def test_offline_asks_once_and_keeps_the_guess(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = _Raw(set())
    url = server.url
    server.close()   # nothing listens there any more: a refused connection
    monkeypatch.setenv(permalink.RAW_ENV, url)
    monkeypatch.delenv(permalink.OFFLINE_ENV, raising=False)
    original = _tree(tmp_path)
    assert locate_in_github(original, tmp_path) == original
    monkeypatch.setenv(permalink.OFFLINE_ENV, "1")
    asked: list[str] = []
    assert locate_in_github(original, tmp_path, probe=lambda u: asked.append(u) or True) == original
    assert asked == []


def test_a_planted_answer_can_only_name_a_candidate(tmp_path: Path, raw: _Raw) -> None:
    (tmp_path / ANSWER_FILE).write_text('{"prefix": "../../elsewhere/", "ref": "main"}')
    raw.present = {"/acme/pkg/v1.0/pkg/__init__.py"}
    tree = locate_in_github(_tree(tmp_path), tmp_path)
    assert (tree.url_prefix, tree.permalink_ref) == ("", "v1.0")


def test_records_link_into_the_repository_folder(tmp_path: Path, raw: _Raw) -> None:
    raw.present = {"/acme/pkg/v1.0/python/pkg/__init__.py"}
    tree = locate_in_github(_tree(tmp_path / "src"), tmp_path / "src")
    index_tree(tree, tmp_path / "e.db", jobs=1)
    with Store.open(tmp_path / "e.db", readonly=True) as store:
        (record,) = [r for r in store.iter_records(limit=10) if r["errorClass"] == "ValueError"]
    assert record["filePath"] == "pkg/core.py"
    assert record["githubUrl"] == "https://github.com/acme/pkg/blob/v1.0/python/pkg/core.py#L1-L3"
