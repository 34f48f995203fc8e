"""URLs between pages, for the server (absolute paths) and the static export (relative files).

Templates never build a URL themselves: they ask a `Links`, so the same
template renders a served page and a page that works from `file://`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlencode


def dataset_file_name(name: str) -> str:
    """A file name for dataset `repo@version` ("/" is not allowed in one)."""
    return quote(name.replace("/", "~"), safe="@~.-_+") + ".html"


@dataclass(frozen=True, slots=True)
class Links:
    """URLs for the served app."""

    def home(self) -> str:
        return "/"

    def static(self, name: str) -> str:
        return f"/static/{name}"

    def error(self, record_id: str) -> str:
        return f"/errors/{quote(record_id, safe='')}"

    def error_json(self, record_id: str) -> str:
        return f"/api/errors/{quote(record_id, safe='')}"

    def dataset(self, name: str, **query: object) -> str:
        params = {k: v for k, v in query.items() if v not in (None, "")}
        return f"/datasets/{quote(name, safe='@/')}" + (f"?{urlencode(params)}" if params else "")

    def search(self) -> str:
        return "/search"

    def explain(self) -> str:
        return "/explain"

    @property
    def static_site(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class SiteLinks(Links):
    """URLs for the static export, relative to a page `depth` folders below the root."""

    depth: int = 0

    def _root(self) -> str:
        return "../" * self.depth

    def home(self) -> str:
        return self._root() + "index.html"

    def static(self, name: str) -> str:
        return f"{self._root()}static/{name}"

    def error(self, record_id: str) -> str:
        return f"{self._root()}errors/{quote(record_id, safe='')}.html"

    def error_json(self, record_id: str) -> str:
        return f"{self._root()}api/errors/{quote(record_id, safe='')}.json"

    def dataset(self, name: str, **query: object) -> str:
        page = query.get("page")
        suffix = "" if not page or page == 1 else f"-{page}"
        file = dataset_file_name(name)
        return f"{self._root()}datasets/{file[:-5]}{suffix}.html"

    def search(self) -> str:
        return self._root() + "search.html"

    def explain(self) -> str:
        return self._root() + "search.html"

    @property
    def static_site(self) -> bool:
        return True
