"""Diff page, history section and their JSON: one codebase indexed twice into one real SQLite file.

Version 2.0 rewords one message (ValueError in `make`), removes one site
(IndexError in `pick`) and adds one (OverflowError in `drop`, with markup in
its message); `gadgets/io.py` stays the same.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest

from errdex.store import Store
from errdex.versions import diff_datasets, site_history
from errdex.versions.diff import diff_records
from errdex.web import create_app, export_site
from tests.web.test_api import assert_envelope

A, B = "acme/gadgets@1.0", "acme/gadgets@2.0"
HREF = re.compile(r'href="([^"]*)"')


@pytest.fixture(scope="module")
def vclient(versioned_db, asgi_client):
    return asgi_client(create_app(versioned_db))


@pytest.fixture(scope="module")
def expected(versioned_db):
    with Store.open(versioned_db, readonly=True) as store:
        return diff_datasets(store, A, B)


@pytest.fixture(scope="module")
def site_ids(versioned_db) -> dict[str, str]:
    """Record id by error class, across both versions (each class raises at one site here)."""
    with Store.open(versioned_db, readonly=True) as store:
        return {r["errorClass"]: r["id"] for name in (A, B) for r in store.iter_records(name)}


def section(html: str, name: str) -> str:
    found = re.search(rf'<section id="{name}">(.*?)</section>', html, re.DOTALL)
    assert found, f"no section {name}"
    return found.group(1)


def ids_linked(html: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r'href="/errors/([0-9a-f]{16})', html)}


def test_diff_page_lists_exactly_the_added_removed_and_changed(vclient, expected, site_ids):
    response = vclient.get("/diff", params={"a": A, "b": B})
    assert response.status_code == 200
    html = response.text
    assert ids_linked(section(html, "added")) == {site_ids["OverflowError"]}
    assert ids_linked(section(html, "removed")) == {site_ids["IndexError"]}
    assert ids_linked(section(html, "changed")) == {c.site.id for c in expected.changed}
    assert site_ids["ValueError"] in {c.site.id for c in expected.changed}
    assert site_ids["FileNotFoundError"] not in ids_linked(html)
    counts = re.sub(r"<[^>]+>", "", re.search(r'<p class="diff-counts">(.*?)</p>', html, re.DOTALL).group(1))
    assert f"1 added · 1 removed · {len(expected.changed)} changed · {expected.unchanged} unchanged" in counts
    assert expected.unchanged >= 1
    # Each site links to its page in the dataset that holds it.
    assert f'/errors/{site_ids["OverflowError"]}?dataset={quote(B, safe="")}' in html
    assert f'/errors/{site_ids["IndexError"]}?dataset={quote(A, safe="")}' in html
    changed = section(html, "changed")
    assert "template" in changed and "negative size {n}" in changed and "size must be zero or more, got {n}" in changed
    assert "changed-message" in changed


def test_diff_api_equals_the_library_diff(vclient, expected):
    response = vclient.get("/api/diff", params={"a": A, "b": B})
    assert response.status_code == 200
    assert response.json() == expected.as_dict()
    assert vclient.get("/api/diff", params={"a": A, "b": B}).json() == expected.as_dict()  # cached copy


def _diff_of_every_record(store, a, b):
    """The reference: every record of both datasets decoded and compared."""
    info_a, info_b = store.resolve_dataset(a), store.resolve_dataset(b)
    return diff_records(info_a.name, info_b.name, list(store.iter_records(info_a.name)),
                        list(store.iter_records(info_b.name)))


def _same(one, other):
    def order(d):
        detail = d.as_detail()
        for key in ("added", "removed", "changed"):
            detail[key] = sorted(detail[key], key=lambda x: json.dumps(x, sort_keys=True))
        return detail
    return order(one) == order(other)


def test_diff_reading_only_unshared_records_equals_the_full_diff(versioned_db, web_db):
    with Store.open(versioned_db, readonly=True) as store:
        for a, b in ((A, B), (B, A), (A, A)):
            assert _same(diff_datasets(store, a, b), _diff_of_every_record(store, a, b))
    with Store.open(web_db, readonly=True) as store:  # two repos: nothing shared
        full = _diff_of_every_record(store, "evil@0.1", "acme/widgets@1.0")
        assert _same(diff_datasets(store, "evil@0.1", "acme/widgets@1.0"), full)
        assert full.added and full.removed


def test_linked_pages_exist_in_the_named_dataset(vclient, site_ids):
    removed = vclient.get(f"/errors/{site_ids['IndexError']}", params={"dataset": A})
    assert removed.status_code == 200 and "cannot pick from an empty list" in removed.text
    assert vclient.get(f"/errors/{site_ids['IndexError']}", params={"dataset": B}).status_code == 404


def test_error_page_history_shows_both_versions_templates(vclient, versioned_db, site_ids):
    rid = site_ids["ValueError"]
    html = vclient.get(f"/errors/{rid}").text
    history = section(html, "history")
    assert "negative size {n}" in history and "size must be zero or more, got {n}" in history
    assert re.search(r"First seen in <strong>1\.0</strong>, last seen in <strong>2\.0</strong>", history)
    assert "changed-message" in history and "n &lt; 0" in history
    assert f'/errors/{rid}?dataset={quote(A, safe="")}' in history
    with Store.open(versioned_db, readonly=True) as store:
        expected = site_history(store, rid).as_dict()
    assert vclient.get(f"/api/errors/{rid}/history").json() == expected
    assert [v["template"] for v in expected["versions"]] == ["negative size {n}", "size must be zero or more, got {n}"]


def test_a_dataset_page_links_its_records_in_that_dataset(vclient, site_ids):
    older = vclient.get(f"/datasets/{A}").text
    href = f'/errors/{site_ids["ValueError"]}?dataset={quote(A, safe="")}'
    assert href in older
    page = vclient.get(href.replace("&amp;", "&")).text
    assert "negative size" in section(page, "message")


def test_history_of_a_removed_site_ends_at_its_last_version(vclient, site_ids):
    history = section(vclient.get(f"/errors/{site_ids['IndexError']}").text, "history")
    assert "last seen in <strong>1.0</strong>" in history
    assert "(1 of 2 indexed versions)" in history


def test_one_indexed_version_gives_a_one_line_note(client, packed):
    history = section(client.get(f"/errors/{packed['id']}").text, "history")
    assert "Only one version of acme/widgets is indexed" in history
    assert "<table" not in history


def test_unknown_dataset_is_a_400_page_and_envelope(vclient, site_ids):
    page = vclient.get("/diff", params={"a": "acme/gadgets@9.9", "b": B})
    assert page.status_code == 400 and page.headers["content-type"].startswith("text/html")
    assert "unknown dataset" in page.text and "Traceback" not in page.text
    message = assert_envelope(vclient.get("/api/diff", params={"a": A, "b": "nope@1"}), 400)
    assert "unknown dataset 'nope@1'" in message
    assert_envelope(vclient.get("/api/diff", params={"a": A}), 422)
    assert_envelope(vclient.get("/api/errors/ffffffffffffffff/history"), 404)


def test_markup_in_messages_stays_inert(vclient, site_ids):
    for html in (vclient.get("/diff", params={"a": A, "b": B}).text,
                 vclient.get(f"/errors/{site_ids['OverflowError']}").text):
        assert "<script>alert(" not in html
        assert "&lt;script&gt;alert(" in html


def test_form_defaults_and_links_from_home_and_dataset_pages(vclient):
    form = vclient.get("/diff").text
    assert re.search(rf'id="diff-a".*?<option value="{A}" selected>', form, re.DOTALL)
    assert re.search(rf'id="diff-b".*?<option value="{B}" selected>', form, re.DOTALL)
    assert 'id="diff-result"' not in form
    assert 'href="/diff"' in vclient.get("/").text
    dataset_page = vclient.get(f"/datasets/{B}").text
    compare = re.search(r'<p class="compare">(.*?)</p>', dataset_page, re.DOTALL).group(1)
    assert HREF.findall(compare) == [f"/diff?a={quote(A, safe='')}&amp;b={quote(B, safe='')}"]


def test_static_export_has_the_diff_and_history(versioned_db, tmp_path, expected, site_ids):
    out = tmp_path / "site"
    export_site(versioned_db, out)
    diff_page = out / "diff" / "acme~gadgets@1.0...acme~gadgets@2.0.html"
    html = diff_page.read_text()
    assert ids_linked(html) == set()  # relative links only
    linked = {m.group(1) for m in re.finditer(r'href="\.\./errors/([0-9a-f]{16})\.html"', html)}
    assert linked == {site_ids["OverflowError"], site_ids["IndexError"], *(c.site.id for c in expected.changed)}
    for target in HREF.findall(html):
        if target.startswith("data:"):
            continue
        assert (diff_page.parent / target.split("#")[0]).resolve().exists(), target
    assert "diff/acme~gadgets@1.0...acme~gadgets@2.0.html" in (out / "index.html").read_text()
    assert "../diff/" in (out / "datasets" / "acme~gadgets@1.0.html").read_text()
    history = section((out / "errors" / f"{site_ids['ValueError']}.html").read_text(), "history")
    assert "negative size {n}" in history and "size must be zero or more, got {n}" in history
    removed = (out / "errors" / f"{site_ids['IndexError']}.html").read_text()
    assert "cannot pick from an empty list" in removed
    for page in out.rglob("*.html"):
        for target in HREF.findall(page.read_text()):
            if not target.startswith(("data:", "https://")):
                assert not target.startswith("/") and (page.parent / target.split("#")[0]).resolve().exists()


def test_git_range_history_names_the_commits(tmp_path, asgi_client):
    from errdex.versions import index_git_range
    from tests.versions.conftest import CORE_V1, UTIL_V1, commit, git

    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    base = {"pkg/__init__.py": "", "pkg/core.py": CORE_V1}
    shas = [commit(root, base, "baseline", 0), commit(root, {**base, "pkg/util.py": UTIL_V1}, "add parse_mode", 10)]
    reworded = UTIL_V1.replace("expected fast or slow", "expected one of fast, slow")
    shas.append(commit(root, {**base, "pkg/util.py": reworded}, "reword <mode> error", 20))
    db = tmp_path / "r.db"
    index_git_range(root, f"{shas[0]}..{shas[-1]}", db, jobs=1, repo="o/proj")
    with Store.open(db, readonly=True) as store:
        rid = next(r["id"] for r in store.iter_records(f"o/proj@{shas[-1]}") if "mode" in r["errorMessage"])
    history = section(asgi_client(create_app(db)).get(f"/errors/{rid}").text, "history")
    provenance = re.search(r'<dl class="provenance">(.*?)</dl>', history, re.DOTALL).group(1)
    rows = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", provenance))
    assert shas[1][:10] in rows["Introduced"] and "add parse_mode" in rows["Introduced"]
    assert shas[2][:10] in rows["Message last changed"] and "reword &lt;mode&gt; error" in rows["Message last changed"]
    table = re.search(r"<tbody>(.*?)</tbody>", history, re.DOTALL).group(1)
    assert re.findall(r">([0-9a-f]{10})</a>", table) == [shas[1][:10], shas[2][:10]]  # not in the baseline
