"""The HTML pages: home, dataset, error (with its history), diff, search, explain. Server-rendered, usable without JavaScript."""

from __future__ import annotations

import math
from typing import Annotated
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from errdex.web.database import MAX_OFFSET
from errdex.web.links import Links
from errdex.web.state import WebState, state_of
from errdex.web.templating import render_page
from errdex.web.versions import (
    DIFF_TIME_LIMIT_S,
    MAX_LISTED,
    DiffInputError,
    compare_links,
    dataset_diff,
    default_pair,
    history_view,
)
from errdex.web.views import message_parts

router = APIRouter(include_in_schema=False)
State = Annotated[WebState, Depends(state_of)]
LINKS = Links()
#: Records per dataset page.
PAGE_SIZE = 50
#: Prefix of the query parameters that carry values bound from a pasted error.
BIND_PREFIX = "bind."
_MAX_BINDINGS = 20
_MAX_BOUND_CHARS = 2000


def page(name: str, **context: object) -> HTMLResponse:
    return HTMLResponse(render_page(name, LINKS, **context))


@router.get("/", response_class=HTMLResponse)
def home(state: State) -> HTMLResponse:
    with state.index.session() as store:
        datasets = store.datasets()
    compares = [("compare datasets", LINKS.diff())] if len(datasets) > 1 else []
    return page("home.html", datasets=datasets, compares=compares)


@router.get("/datasets/{name:path}", response_class=HTMLResponse)
def dataset_page(state: State, name: str,
                 error_class: Annotated[str | None, Query(alias="class", max_length=300)] = None,
                 error_type: Annotated[str | None, Query(alias="type", max_length=40)] = None,
                 tag: Annotated[str | None, Query(max_length=300)] = None,
                 path: Annotated[str | None, Query(max_length=300)] = None,
                 text: Annotated[str | None, Query(max_length=300)] = None,
                 page_no: Annotated[int, Query(alias="page", ge=1)] = 1) -> HTMLResponse:
    filters = {"error_class": error_class or None, "error_type": error_type or None,
               "background_tag": tag or None, "path_glob": path or None, "text": text or None}
    offset = min((page_no - 1) * PAGE_SIZE, MAX_OFFSET)
    with state.index.session() as store:
        info = store.resolve_dataset(name)
        stats = store.stats(info.name)
        total = store.count_records(info.name, **filters)
        records = list(store.iter_records(info.name, **filters, limit=PAGE_SIZE, offset=offset))
        compare = compare_links(store, info)
    query = {k: v for k, v in {"class": error_class, "type": error_type, "tag": tag,
                               "path": path, "text": text}.items() if v}
    return page("dataset.html", info=info, stats=stats, records=records, total=total,
                filters=filters, query=query, page=page_no, compare=compare,
                pages=max(1, math.ceil(total / PAGE_SIZE)),
                first=offset + 1 if records else 0, last=offset + len(records))


@router.get("/errors/{record_id}", response_class=HTMLResponse)
async def error_page(state: State, request: Request, record_id: str,
                     dataset: Annotated[str | None, Query(max_length=300)] = None) -> HTMLResponse:
    """Cached when no values are bound: the page then depends on the record alone."""
    bindings = bindings_of(request)
    if bindings:
        return HTMLResponse(await run_in_threadpool(_error_html, state, record_id, dataset, bindings))
    key = ("page", dataset or state.dataset, record_id)
    return HTMLResponse(await state.cache.fetch(key, _error_html, state, record_id, dataset, bindings))


def _error_html(state: WebState, record_id: str, dataset: str | None, bindings: dict[str, str]) -> bytes:
    with state.index.session() as store:
        found = store.get_record(record_id, dataset or state.dataset)
        if found is None:
            raise HTTPException(404, f"no record {record_id!r}" + (f" in {dataset}" if dataset else ""))
        record = found["record"]
        history = history_view(store, record["id"], record.get("repo") or "")
    return render_page("error.html", LINKS, record=record, dataset=found["dataset"],
                       dataset_version=found["datasetVersion"], bindings=bindings, history=history).encode()


@router.get("/diff", response_class=HTMLResponse)
async def diff_page(state: State, a: Annotated[str | None, Query(max_length=300)] = None,
                    b: Annotated[str | None, Query(max_length=300)] = None) -> HTMLResponse:
    """The form (both selects default to the two most recent datasets of a repo), and the diff once both are given.

    Cached like error pages: a diff of two large datasets reads every record of both.
    """
    if a and b:
        return HTMLResponse(await state.cache.fetch(("diff", a, b), _diff_html, state, a, b))
    return HTMLResponse(await run_in_threadpool(_diff_html, state, a, b))


def _diff_html(state: WebState, a: str | None, b: str | None) -> bytes:
    with state.index.session(DIFF_TIME_LIMIT_S) as store:
        datasets = store.datasets()
        default_a, default_b = default_pair(store, datasets)
        try:
            view = dataset_diff(store, a, b) if a and b else None
        except DiffInputError as exc:
            raise HTTPException(400, str(exc)) from exc
    if view is not None:
        a, b = view.a.name, view.b.name
    return render_page("diff.html", LINKS, datasets=datasets, view=view, max_listed=MAX_LISTED,
                       a=a or default_a, b=b or default_b).encode()


def bindings_of(request: Request) -> dict[str, str]:
    """Values bound from a pasted error, carried as `bind.<placeholder>=<value>` parameters."""
    out: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        if key.startswith(BIND_PREFIX) and len(out) < _MAX_BINDINGS:
            out[key[len(BIND_PREFIX):]] = value[:_MAX_BOUND_CHARS]
    return out


@router.get("/search", response_class=HTMLResponse)
def search_page(state: State,
                q: Annotated[str, Query(max_length=1000)] = "",
                dataset: Annotated[str | None, Query(max_length=300)] = None,
                error_class: Annotated[str | None, Query(alias="class", max_length=300)] = None,
                ) -> HTMLResponse:
    with state.index.session() as store:
        datasets = store.datasets()
        results = store.search(q, dataset or None, error_class=error_class or None, limit=50) if q.strip() else []
    return page("search.html", query=q, dataset=dataset, error_class=error_class,
                datasets=datasets, results=results)


@router.get("/explain", response_class=HTMLResponse)
async def explain_form(state: State,
                       text: Annotated[str, Query(max_length=100_000)] = "") -> HTMLResponse:
    return await _explain(state, text)


@router.post("/explain", response_class=HTMLResponse)
async def explain_submit(state: State, request: Request) -> HTMLResponse:
    """The paste form posts `application/x-www-form-urlencoded` text."""
    body = (await request.body()).decode("utf-8", errors="replace")
    text = (parse_qs(body, max_num_fields=10).get("text") or [""])[0]
    return await _explain(state, text)


async def _explain(state: WebState, text: str) -> HTMLResponse:
    matches = await run_in_threadpool(state.explain, text) if text.strip() else []
    for m in matches:
        m["parts"] = message_parts(m["errorMessage"], m.get("bindings"), list(m.get("expressions") or {}))
        binds = {f"{BIND_PREFIX}{k}": v for k, v in (m.get("bindings") or {}).items()}
        m["href"] = LINKS.error(m["id"]) + (f"?{urlencode(binds)}" if binds else "")
        # a bare match stands for several sites: link the others it names
        m["others"] = [(rid, LINKS.error(rid)) for rid in m.get("candidateIds") or () if rid != m["id"]]
    return page("explain.html", text=text, matches=matches)
