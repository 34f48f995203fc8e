"""The serve stage: web pages, the JSON API and the static site export, over one read-only index.

Public API: `create_app(db, dataset=None)` returns the ASGI app served by
`errdex serve`; `export_site(db, out, dataset=None)` writes the same pages as
static HTML that work from `file://`.
"""

from errdex.web.app import create_app
from errdex.web.site import SiteReport, export_site

__all__ = ["SiteReport", "create_app", "export_site"]
