"""The JSON API: records, site history, search, match, datasets, diffs. Read-only: no route writes anything.

Every error leaves as the envelope of `safety.error_body`
(`{"error": {"status", "message"}}`); see `app.install_error_handlers`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from errdex.models import DatasetInfo
from errdex.versions.history import site_history
from errdex.web.database import MAX_ROWS, clamp_limit
from errdex.web.safety import MAX_BODY_BYTES
from errdex.web.state import WebState, encode_json, state_of
from errdex.web.versions import DIFF_TIME_LIMIT_S, DiffInputError, dataset_diff

router = APIRouter(prefix="/api", tags=["api"])


class ErrorDetail(BaseModel):
    status: int
    message: str


class ErrorEnvelope(BaseModel):
    """The shape of every API error."""

    error: ErrorDetail


class MatchRequest(BaseModel):
    text: str = Field(description="Error text: a line, a traceback or a log excerpt.",
                      max_length=MAX_BODY_BYTES)
    dataset: str | None = Field(default=None, description="Dataset to match against (default: all).")


class RecordEnvelope(BaseModel):
    record: dict[str, Any]
    datasetVersion: str


class SearchResponse(BaseModel):
    query: str
    results: list[dict[str, Any]]


class MatchResponse(BaseModel):
    matches: list[dict[str, Any]]


class DatasetsResponse(BaseModel):
    datasets: list[dict[str, Any]]


class ChangedSiteIds(BaseModel):
    id: str
    fields: list[str] = Field(description="Compared fields that differ: template, class, condition, ...")


class DiffResponse(BaseModel):
    """`errdex diff A B --json`: ids of B's added and A's removed sites, changed ids with fields, a count."""

    added: list[str]
    removed: list[str]
    changed: list[ChangedSiteIds]
    unchanged: int


class HistoryResponse(BaseModel):
    """`errdex history ID --json`: the versions holding the site, oldest first, and git provenance."""

    id: str
    repo: str
    firstSeen: str
    lastSeen: str
    versions: list[dict[str, Any]]
    missing: list[str]
    provenance: dict[str, Any] | None


_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorEnvelope} for code in (400, 404, 413, 422, 503)
}
State = Annotated[WebState, Depends(state_of)]


def _json(data: dict) -> JSONResponse:
    """Records are plain JSON already: skip re-validating them against the response model."""
    return JSONResponse(data)


def dataset_json(info: DatasetInfo) -> dict[str, Any]:
    return {
        "name": info.name, "repo": info.repo, "version": info.version, "kind": info.kind,
        "sha": info.sha, "dirty": info.dirty, "analyzedSha": info.analyzed_sha,
        "analyzedAt": info.analyzed_at, "datasetVersion": info.published_at,
        "fileCount": info.file_count, "recordCount": info.record_count,
        "diagnosticCount": info.diagnostic_count,
    }


@router.get("/datasets", response_model=DatasetsResponse, responses=_ERRORS)
def list_datasets(state: State) -> JSONResponse:
    """Every dataset in the index, most recently published first."""
    with state.index.session() as store:
        return _json({"datasets": [dataset_json(info) for info in store.datasets()]})


@router.get("/errors/{record_id}", response_model=RecordEnvelope, responses=_ERRORS)
async def get_error(state: State, record_id: str,
                    dataset: Annotated[str | None, Query(max_length=300)] = None) -> Response:
    """One record (16-hex id or slug) in the seed format with the `errdex` object."""
    key = ("api", dataset or state.dataset, record_id)
    return Response(await state.cache.fetch(key, record_json, state, record_id, dataset),
                    media_type="application/json")


def record_json(state: WebState, record_id: str, dataset: str | None) -> bytes:
    """The record envelope, encoded once for the cache (runs on a worker thread: it reads the db)."""
    with state.index.session() as store:
        found = store.get_record(record_id, dataset or state.dataset)
    if found is None:
        raise HTTPException(404, f"no record {record_id!r}" + (f" in {dataset}" if dataset else ""))
    return encode_json({"record": found["record"], "datasetVersion": found["datasetVersion"]})


@router.get("/errors/{record_id}/history", response_model=HistoryResponse, responses=_ERRORS)
async def get_history(state: State, record_id: str) -> Response:
    """The versions of the repo holding the site (16-hex id or slug), with its template and condition at each."""
    return Response(await state.cache.fetch(("history", record_id), history_json, state, record_id),
                    media_type="application/json")


def history_json(state: WebState, record_id: str) -> bytes:
    with state.index.session() as store:
        found = store.get_record(record_id)
        history = site_history(store, found["record"]["id"]) if found else None
    if history is None:
        raise HTTPException(404, f"no record {record_id!r}")
    return encode_json(history.as_dict())


@router.get("/diff", response_model=DiffResponse, responses=_ERRORS)
async def diff(state: State,
               a: Annotated[str, Query(min_length=1, max_length=300, description="Older dataset, REPO@VERSION.")],
               b: Annotated[str, Query(min_length=1, max_length=300, description="Newer dataset, REPO@VERSION.")],
               ) -> Response:
    """What changed from dataset `a` to dataset `b`; every record of `b` is added, changed or unchanged."""
    return Response(await state.cache.fetch(("api-diff", a, b), diff_json, state, a, b),
                    media_type="application/json")


def diff_json(state: WebState, a: str, b: str) -> bytes:
    with state.index.session(DIFF_TIME_LIMIT_S) as store:
        try:
            view = dataset_diff(store, a, b)
        except DiffInputError as exc:
            raise HTTPException(400, str(exc)) from exc
    return encode_json(view.diff.as_dict())


@router.get("/search", response_model=SearchResponse, responses=_ERRORS)
def search(state: State,
           q: Annotated[str, Query(min_length=1, max_length=1000, description="Words of the message.")],
           dataset: Annotated[str | None, Query(max_length=300)] = None,
           error_class: Annotated[str | None, Query(alias="class", max_length=300)] = None,
           limit: Annotated[int, Query(ge=1, le=MAX_ROWS)] = 20) -> JSONResponse:
    """Full-text search (FTS5, best first): {"record", "datasetVersion", "dataset", "score"} each."""
    with state.index.session() as store:
        hits = store.search(q, dataset or state.dataset, error_class=error_class, limit=clamp_limit(limit))
    return _json({"query": q, "results": hits})


@router.post("/match", response_model=MatchResponse, responses=_ERRORS)
async def match(state: State, body: MatchRequest) -> Response:
    """Records that explain the pasted text, best first, with the values bound from it."""
    key = state.match_key(body.text, body.dataset)
    found = state.cache.get(key) or state.match_now(body.text, body.dataset)
    if found is None:
        found = await state.cache.fetch(key, state.match_json, body.text, body.dataset)
    return Response(found, media_type="application/json")
