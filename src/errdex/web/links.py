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


def diff_file_name(a: str, b: str) -> str:
    """A file name for the diff from dataset `a` to dataset `b`."""
    return dataset_file_name(a)[:-5] + "..." + dataset_file_name(b)


@dataclass(frozen=True, slots=True)
class Links:
    """URLs for the served app."""

    def home(self) -> str:
        return "/"

    def static(self, name: str) -> str:
        return f"/static/{name}"

    def error(self, record_id: str, dataset: str | None = None) -> str:
        """The error page; `dataset` pins the version shown (a site's id is shared across versions)."""
        query = f"?{urlencode({'dataset': dataset})}" if dataset else ""
        return f"/errors/{quote(record_id, safe='')}{query}"

    def error_json(self, record_id: str) -> str:
        return f"/api/errors/{quote(record_id, safe='')}"

    def history_json(self, record_id: str) -> str | None:
        return f"/api/errors/{quote(record_id, safe='')}/history"

    def diff(self, a: str | None = None, b: str | None = None) -> str:
        params = {k: v for k, v in (("a", a), ("b", b)) if v}
        return "/diff" + (f"?{urlencode(params)}" if params else "")

    def diff_json(self, a: str, b: str) -> str | None:
        return f"/api/diff?{urlencode({'a': a, 'b': b})}"

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

    def error(self, record_id: str, dataset: str | None = None) -> str:
        """One page per site id: the export shows the most recent dataset holding it."""
        return f"{self._root()}errors/{quote(record_id, safe='')}.html"

    def error_json(self, record_id: str) -> str:
        return f"{self._root()}api/errors/{quote(record_id, safe='')}.json"

    def history_json(self, record_id: str) -> str | None:
        return None

    def diff(self, a: str | None = None, b: str | None = None) -> str:
        """The export has the diff of each repo's two most recent datasets only."""
        return f"{self._root()}diff/{diff_file_name(a or '', b or '')}"

    def diff_json(self, a: str, b: str) -> str | None:
        return None

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
