"""The ASGI app: routes, static files, the error envelope, and the safety middleware.

API errors (any path under /api, and /openapi.json) leave as
`{"error": {"status", "message"}}`; page errors as an HTML page with the same
status. Interactive docs are off: they load scripts from a CDN, which the
Content-Security-Policy forbids; the OpenAPI document stays at /openapi.json.
"""

from __future__ import annotations

import gc
import logging
import threading
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from errdex.errors import ErrdexError
from errdex.store import StoreError
from errdex.web import api, pages
from errdex.web.database import QueryTimeout, ReadOnlyIndex
from errdex.web.safety import MAX_BODY_BYTES, SafetyMiddleware, error_body
from errdex.web.state import WebState
from errdex.web.templating import environment, render_page
from errdex.web.views import highlighted_source, pygments_css

STATIC_DIR = Path(__file__).parent / "static"
log = logging.getLogger("errdex.web")


def create_app(db: str | Path, dataset: str | None = None, *,
               max_body: int = MAX_BODY_BYTES, time_limit_s: float | None = None) -> FastAPI:
    """The web app over the index at `db`, opened read-only (fails now if it is not an index)."""
    index = ReadOnlyIndex(db) if time_limit_s is None else ReadOnlyIndex(db, time_limit_s=time_limit_s)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await run_in_threadpool(warm_up)
        # Everything built so far lives as long as the server: keep it out of the
        # collector's scans, which otherwise show up as p99 pauses under load.
        gc.collect()
        gc.freeze()
        # Each worker process loads its own match engine: in the background, so
        # start-up stays quick, but ahead of load rather than inside the first paste.
        threading.Thread(target=app.state.errdex.preload, name="errdex-preload", daemon=True).start()
        yield
        index.close()

    app = FastAPI(title="errdex", version="1", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Read-only error index: records, full-text search, error-text matching.")
    app.state.errdex = WebState(index=index, dataset=dataset)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.add_api_route("/static/pygments.css", _pygments_css, include_in_schema=False)
    app.add_api_route("/healthz", _healthz, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_error_handlers(app)
    app.add_middleware(SafetyMiddleware, max_body=max_body)
    return app


def warm_up() -> None:
    """Compile every template and load the highlighter before the first request.

    Otherwise the first error pages pay for it under load, in parallel
    threads that starve the event loop: a p99 spike on every cold start.
    """
    env = environment()
    for name in env.list_templates(filter_func=lambda n: n.endswith(".html")):
        env.get_template(name)
    highlighted_source({"sourceCode": "def warm(x):\n    raise ValueError(x)\n", "lineNumber": 2})
    pygments_css()


def _healthz() -> PlainTextResponse:
    """Liveness for load balancers and scripts: a fixed small answer that touches nothing."""
    return PlainTextResponse("ok\n")


def _pygments_css() -> PlainTextResponse:
    return PlainTextResponse(pygments_css(), media_type="text/css")


def _wants_json(request: Request) -> bool:
    path = request.url.path
    return path.startswith("/api/") or path == "/api" or path.endswith(".json")


def _problem(request: Request, status: int, message: str) -> JSONResponse | HTMLResponse:
    if _wants_json(request):
        return JSONResponse(error_body(status, message), status_code=status)
    title = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
    return HTMLResponse(render_page("problem.html", pages.LINKS, status=status, title=title,
                                    message=message), status_code=status)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "request"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "invalid request: " + "; ".join(parts)


def install_error_handlers(app: FastAPI) -> None:
    """Every failure, expected or not, becomes the envelope (API) or a problem page."""

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException):
        message = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        response = _problem(request, exc.status_code, message)
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        return _problem(request, 422, _validation_message(exc))

    @app.exception_handler(QueryTimeout)
    async def timeout(request: Request, exc: QueryTimeout):
        return _problem(request, 503, str(exc))

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError):
        return _problem(request, 404, str(exc))

    @app.exception_handler(ErrdexError)
    async def errdex_error(request: Request, exc: ErrdexError):
        return _problem(request, 503, str(exc))

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception):
        log.exception("unhandled error on %s", request.url.path)
        return _problem(request, 500, "internal error; see the server log")
