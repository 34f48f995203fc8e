"""The HTML pages through httpx's ASGI transport: sections, marks, counts, pagination, paste."""

from __future__ import annotations

import re

import pytest

from errdex.web.links import Links
from errdex.web.templating import render_page

SEED_SECTIONS = ("Error message", "What it means", "Source", "Solutions", "Example fix",
                 "When it happens", "Related errors")


def test_every_page_carries_the_csp_header(client, packed):
    for url in ("/", "/datasets/acme/widgets@1.0", f"/errors/{packed['id']}", "/search?q=packed",
                "/explain", "/errors/nope", "/api/datasets", "/static/style.css"):
        response = client.get(url)
        csp = response.headers.get("content-security-policy", "")
        assert "default-src 'none'" in csp and "script-src 'self'" in csp, url
        assert response.headers["x-content-type-options"] == "nosniff"


def test_error_page_has_the_seed_sections(client, packed):
    html = client.get(f"/errors/{packed['id']}").text
    assert "<h1>acme/widgets · error · ValueError</h1>" in html
    headings = re.findall(r"<h2>([^<]+?)\s*(?:<|$)", html, flags=re.M)
    for section in SEED_SECTIONS:
        assert section in [h.strip() for h in headings], section
    assert "Thrown at <code>widgets/core.py:" in html
    assert "Raised when" in html and "K &gt; BK" in html
    assert f'href="/api/errors/{packed["id"]}"' in html
    assert 'href="/datasets/acme/widgets@1.0"' in html
    # packed_decode has no caller in the fixture: the page does not claim that nothing calls it
    assert "No caller resolved in this codebase" in html and "does not mean nothing calls it" in html


def test_error_page_marks_the_raise_line(client, packed):
    html = client.get(f"/errors/{packed['id']}").text
    marked = re.findall(r'<span class="hll">(.*?)\n</span>', html, flags=re.S)
    assert marked, "no highlighted line"
    first = re.sub(r"<[^>]+>", "", marked[0])
    assert first.strip().startswith(f"{packed['lineNumber']}")
    assert "raise ValueError" in first


def test_error_page_shows_values_bound_from_a_paste(client, packed):
    html = client.get(f"/errors/{packed['id']}", params={"bind.K": "384", "bind.BK": "<b>256</b>"}).text
    assert '<mark class="bound" title="K">384</mark>' in html
    assert "&lt;b&gt;256&lt;/b&gt;" in html and "<b>256</b>" not in html


def test_heuristic_fields_are_marked():
    record = {
        "id": "0123456789abcdef", "repo": "r", "errorClass": "E", "errorType": "exception",
        "errorMessage": "m", "filePath": "a.py", "lineNumber": 2, "sourceCode": "x\nraise E('m')\n",
        "sourceCodeStart": 1, "sourceCodeEnd": 2, "githubUrl": None, "documentation": "Guessed meaning.",
        "solutions": ["Proven fix"], "exampleFix": None, "triggerScenarios": None, "commonSituations": None,
        "validationCode": None, "tryCatchPattern": None, "preventionTips": [], "analyzedSha": "abc",
        "analyzedAt": "2026-01-01T00:00:00Z",
        "errdex": {"condition": "x > 1", "conditionExact": False, "conditionReason": "loop",
                   "provenance": {"documentation": "heuristic:template", "solutions": "fact"}},
    }
    html = render_page("error.html", Links(), record=record, dataset="r@1", dataset_version="v", bindings={})
    meaning = html.split('id="meaning"')[1].split("</section>")[0]
    solutions = html.split('id="solutions"')[1].split("</section>")[0]
    condition = html.split('id="condition"')[1].split("</section>")[0]
    assert "basis-heuristic" in meaning
    assert "basis-" not in solutions
    assert "basis-heuristic" in condition and "Approximate: loop" in condition


def test_calls_that_may_raise_first_are_listed_under_the_condition():
    record = {
        "id": "0123456789abcdef", "repo": "r", "errorClass": "E", "errorType": "exception",
        "errorMessage": "m", "filePath": "a.py", "lineNumber": 3, "sourceCode": "k = parse(x)\nif n:\n raise E('m')\n",
        "sourceCodeStart": 1, "sourceCodeEnd": 3, "githubUrl": None, "analyzedSha": "abc",
        "analyzedAt": "2026-01-01T00:00:00Z",
        "errdex": {"condition": "n", "conditionExact": False, "provenance": {},
                   "conditionReason": "`parse(...)` (line 1) raises itself for some inputs",
                   "raisedFirstBy": [{"call": "parse", "line": 1, "function": "pkg.keys.parse"}]},
    }
    html = render_page("error.html", Links(), record=record, dataset="r@1", dataset_version="v", bindings={})
    condition = html.split('id="condition"')[1].split("</section>")[0]
    assert "<code>parse(...)</code> on line 1: <code>pkg.keys.parse</code> raises itself" in condition


def test_dataset_page_counts_filters_and_pages(client):
    total = next(d["recordCount"] for d in client.get("/api/datasets").json()["datasets"]
                 if d["name"] == "acme/widgets@1.0")
    assert 50 < total <= 100
    first = client.get("/datasets/acme/widgets@1.0").text
    assert re.search(r"KeyError</a> <span class=\"n\">60</span>", first)
    assert f"Records 1–50 of {total}" in first and 'rel="next"' in first
    assert first.count('class="record-link"') == 50
    second = client.get("/datasets/acme/widgets@1.0", params={"page": 2}).text
    assert f"Records 51–{total} of {total}" in second and 'rel="prev"' in second
    assert second.count('class="record-link"') == total - 50
    only = client.get("/datasets/acme/widgets@1.0", params={"class": "WidgetError"}).text
    assert "Records 1–2 of 2" in only and "negative size" in only
    assert client.get("/datasets/no/such@1").status_code == 404
    # every errorType is a choice of the type filter, the logged and returned ones too
    options = re.findall(r'<option value="(\w+)"', first.split('name="type"')[1].split("</select>")[0])
    assert options[-2:] == ["log", "returned"]


def test_search_page_filters_by_dataset_and_class(client):
    html = client.get("/search", params={"q": "alert"}).text
    assert "evil@0.1" in html
    assert "0 results" in client.get("/search", params={"q": "alert", "dataset": "acme/widgets@1.0"}).text
    html = client.get("/search", params={"q": "kind size", "class": "WidgetError"}).text
    assert "unknown kind" in html or "negative size" in html


@pytest.mark.parametrize("how", ["post", "get"])
def test_explain_page_highlights_bound_values(client, packed, how):
    text = "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n" \
           "ValueError: Packed decode kernel only supports NK=1 (got K=384, BK=256)."
    if how == "post":
        html = client.post("/explain", data={"text": text}).text
    else:
        html = client.get("/explain", params={"text": text}).text
    assert '<mark class="bound" title="K">384</mark>' in html
    assert '<mark class="bound" title="BK">256</mark>' in html
    assert f'href="/errors/{packed["id"]}?bind.K=384&amp;bind.BK=256"' in html


def test_home_lists_datasets_with_forms(client):
    html = client.get("/").text
    assert 'href="/datasets/acme/widgets@1.0"' in html and 'href="/datasets/evil@0.1"' in html
    assert 'action="/search"' in html and 'action="/explain" method="post"' in html
