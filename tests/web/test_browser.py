"""Chromium (Debian's, through Playwright) driving the real server: search -> error page -> paste.

Needs /usr/bin/chromium (`apt-get install -y chromium`); screenshots of the
three main pages land in tests/web/artifacts/ (git-ignored).
"""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
]


@pytest.fixture(scope="module")
def page():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        tab = browser.new_page()
        errors: list[str] = []
        tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        tab.console_errors = errors
        yield tab
        browser.close()


def test_search_then_error_page_then_paste(server, page, packed):
    page.goto(server + "/")
    page.fill("#home-search", "packed decode")
    page.press("#home-search", "Enter")
    page.wait_for_url("**/search?q=packed+decode")
    page.screenshot(path=str(ARTIFACTS / "search.png"), full_page=True)
    page.click("a.record-link >> nth=0")
    page.wait_for_url(f"**/errors/{packed['id']}")
    assert page.inner_text("h1") == "acme/widgets · error · ValueError"
    marked = page.inner_text(".source .hll")
    assert "raise ValueError" in marked and str(packed["lineNumber"]) in marked
    page.screenshot(path=str(ARTIFACTS / "error.png"), full_page=True)

    page.click("text=Explain an error")
    page.fill("#paste", "ValueError: Packed decode kernel only supports NK=1 (got K=384, BK=256).")
    page.click("form.paste button")
    page.wait_for_selector("ol.matches")
    bound = page.locator("ol.matches li >> nth=0").locator("mark.bound").all_inner_texts()
    assert bound == ["384", "256"]
    page.screenshot(path=str(ARTIFACTS / "explain.png"), full_page=True)
    page.click("a.match-link >> nth=0")
    assert page.locator("mark.bound").first.inner_text() == "384"
    assert page.console_errors == []  # no CSP violations or script errors
    for name in ("search", "error", "explain"):
        assert (ARTIFACTS / f"{name}.png").stat().st_size > 1000


def test_static_export_searches_from_file_url(web_db, tmp_path, page):
    from errdex.web import export_site

    export_site(web_db, tmp_path / "site")
    page.goto((tmp_path / "site" / "search.html").as_uri() + "?q=packed")
    page.wait_for_selector("#search-results li")
    page.click("#search-results a >> nth=0")
    assert "Packed decode kernel" in page.inner_text("pre.message")
    page.click("a.json-link")
    assert '"datasetVersion"' in page.content()


def test_diff_form_picks_datasets_and_shows_the_result(versioned_server, page):
    page.goto(versioned_server + "/")
    page.click("a.compare-link")
    page.wait_for_url("**/diff")
    # Pick them the wrong way round first, then the right way, as a user correcting a choice would.
    page.select_option("#diff-a", "acme/gadgets@2.0")
    page.select_option("#diff-b", "acme/gadgets@1.0")
    page.select_option("#diff-a", "acme/gadgets@1.0")
    page.select_option("#diff-b", "acme/gadgets@2.0")
    page.click("form.compare button")
    page.wait_for_selector("#diff-result")
    assert "a=acme%2Fgadgets%401.0&b=acme%2Fgadgets%402.0" in page.url
    assert page.inner_text(".n-added") == "1 added"
    assert page.inner_text(".n-removed") == "1 removed"
    assert "too many items" in page.inner_text("#added")
    assert "cannot pick from an empty list" in page.inner_text("#removed")
    assert "negative size {n}" in page.inner_text("#changed")
    assert page.locator("script:has-text('added')").count() == 0  # the message's markup stayed text
    page.screenshot(path=str(ARTIFACTS / "diff.png"), full_page=True)
    page.click("#changed a.record-link >> nth=0")
    page.wait_for_selector("#history")
    assert "1.0" in page.inner_text("#history table") and "2.0" in page.inner_text("#history table")
    assert page.console_errors == []
