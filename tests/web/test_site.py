"""The static export: pages, one JSON file per record, relative links, the search index, the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from errdex.errors import ErrdexError
from errdex.web import export_site

# The command itself (registration in `errdex` is wired by the CLI owner).
EXPORT_SITE = [sys.executable, "-m", "errdex", "export", "--format", "site"]
HREF = re.compile(r'(?:href|src|action)="([^"]*)"')


@pytest.fixture(scope="module")
def site(web_db, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "out"
    report = export_site(web_db, out)
    assert report.datasets == ["acme/widgets@1.0", "evil@0.1"]
    return out


def test_one_page_and_one_json_file_per_record(site, client):
    for name in ("acme/widgets@1.0", "evil@0.1"):
        count = next(d["recordCount"] for d in client.get("/api/datasets").json()["datasets"] if d["name"] == name)
        assert count > 0
    records = list((site / "api" / "errors").glob("*.json"))
    pages = list((site / "errors").glob("*.html"))
    assert {p.stem for p in records} == {p.stem for p in pages}
    some = json.loads(records[0].read_text())
    assert set(some) == {"record", "datasetVersion"}
    served = client.get(f"/api/errors/{some['record']['id']}").json()
    assert served == some


def test_every_link_is_relative_and_resolves(site):
    for page in site.rglob("*.html"):
        for target in HREF.findall(page.read_text()):
            if target.startswith(("https://", "http://", "data:")):
                continue
            assert not target.startswith("/"), (page, target)
            path = target.split("?")[0].split("#")[0]
            if path:
                assert (page.parent / path).resolve().exists(), (page, target)


def test_dataset_pages_are_split_and_search_index_covers_all(site):
    assert (site / "datasets" / "acme~widgets@1.0.html").exists()
    assert (site / "datasets" / "acme~widgets@1.0-2.html").exists()
    rows = json.loads((site / "static" / "search-index.json").read_text())
    assert len(rows) == len(list((site / "errors").glob("*.html")))
    assert any("Packed decode" in row["m"] for row in rows)
    assert (site / "static" / "search-index.js").read_text().startswith("window.ERRDEX_INDEX = [")


def test_refuses_to_overwrite_a_foreign_folder(web_db, tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(ErrdexError, match="not an errdex site"):
        export_site(web_db, tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_cli_export_site_rewrites_its_own_export(web_db, tmp_path):
    out = tmp_path / "cli-site"
    for _ in range(2):
        proc = subprocess.run([*EXPORT_SITE, str(out), "--db", str(web_db),
                               "--dataset", "acme/widgets@1.0"], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "ERRDEX_HOME": str(tmp_path / "home")})
        assert proc.returncode == 0, proc.stderr
    assert "exported" in proc.stderr and (out / "index.html").exists()
    assert not (out / "datasets" / "evil@0.1.html").exists()
