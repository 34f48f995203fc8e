"""The Jinja2 environment shared by the server and the static export.

Autoescape is on for every template, so record text (messages, source,
prose) is always escaped; the only unescaped HTML is Pygments' own output,
which escapes the code it highlights.
"""

from __future__ import annotations

from functools import lru_cache

from jinja2 import ChainableUndefined, Environment, PackageLoader, select_autoescape

from errdex.web import views
from errdex.web.links import Links


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("errdex.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=ChainableUndefined,  # records of older schemas may lack fields
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        highlighted_source=views.highlighted_source, message_parts=views.message_parts,
        field_basis=views.field_basis, fact_summary=views.fact_summary,
        related_links=views.related_links, names_of=views.names_of,
        example_fix=views.example_fix, short_sha=views.short_sha,
        commit_date=views.commit_date, version_label=views.version_label,
    )
    env.filters["clip"] = views.clip
    return env


def render_page(name: str, links: Links, **context: object) -> str:
    """One page as HTML; `links` decides whether URLs are served or relative files."""
    return environment().get_template(name).render(links=links, **context)
