"""Indexed text that looks like HTML or template syntax renders inert, served and exported."""

from __future__ import annotations

from html.parser import HTMLParser

from errdex.web import export_site


class _ActiveContent(HTMLParser):
    """Collects what a browser would run: inline scripts, img tags, on* attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "script" and not names.get("src"):
            self.found.append("inline <script>")
        if tag in ("img", "iframe", "object", "embed"):
            self.found.append(f"<{tag}>")
        self.found += [f"{tag}[{k}]" for k in names if k.startswith("on")]
        self.found += [f"{tag}[{k}]" for k, v in attrs if (v or "").strip().lower().startswith("javascript:")]


def active_content(html: str) -> list[str]:
    parser = _ActiveContent()
    parser.feed(html)
    return parser.found


def _evil_records(client) -> list[dict]:
    hits = client.get("/api/search", params={"q": "alert", "dataset": "evil@0.1"}).json()["results"]
    assert len(hits) >= 2
    return [h["record"] for h in hits]


def test_hostile_messages_and_source_are_escaped_on_every_page(client):
    records = _evil_records(client)
    assert any("{{ 7*7 }}" in r["errorMessage"] for r in records)
    pages = [client.get(f"/errors/{r['id']}").text for r in records]
    pages.append(client.get("/search", params={"q": "alert"}).text)
    pages.append(client.get("/datasets/evil@0.1").text)
    pages.append(client.post("/explain", data={"text": "ValueError: <script>alert('xss')</script>"}).text)
    for html in pages:
        assert active_content(html) == []
    error_page = pages[0] + pages[1]
    assert "&lt;script&gt;alert(" in error_page
    assert "{{ 7*7 }}" in error_page and ">49<" not in error_page
    assert "{% if 1 %}x{% endif %}" in error_page
    assert "onerror=alert(2)&gt;" in error_page
    assert "&#34;quotes&#34;" in error_page or "&quot;quotes&quot;" in error_page


def test_hostile_bound_values_are_escaped(client):
    record = next(r for r in _evil_records(client) if r["errorClass"] == "RuntimeError")
    html = client.get(f"/errors/{record['id']}", params={"bind.x!r": "'<script>alert(3)</script>'"}).text
    assert active_content(html) == []
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in html


def test_hostile_text_is_inert_in_the_static_export(web_db, tmp_path):
    out = tmp_path / "site"
    export_site(web_db, out, "evil@0.1")
    for page in out.rglob("*.html"):
        html = page.read_text()
        assert active_content(html) == [], page
    script = (out / "static" / "search-index.js").read_text()
    assert "</script" not in script.lower() and "<\\/script>" in script
