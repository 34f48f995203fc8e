"""A real OpenAI-compatible chat-completions server on 127.0.0.1 with scripted answers.

`FakeLLM(script)` runs uvicorn + starlette in a thread. For each request the
script (request number, record ids asked about, request body) returns a
`Reply`: status, JSON body or raw text, headers, delay. Every request is
logged so tests can see what was asked, and how often.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

_ID = re.compile(r'"id": "([0-9a-f]{16})"')


@dataclass
class Reply:
    status: int = 200
    content: str | None = None       # the assistant message text (wrapped in a completion)
    raw: str | None = None           # a raw HTTP body instead
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


def completion(content: str, tokens_in: int = 100, tokens_out: int = 50) -> dict:
    return {"id": "cmpl-1", "object": "chat.completion", "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out}}


def answer(*entries: dict) -> str:
    return json.dumps({"records": list(entries)})


Script = Callable[[int, list[str], dict], Reply]


class FakeLLM:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.log: list[tuple[float, list[str]]] = []   # (time, ids) per request
        self._lock = threading.Lock()
        app = Starlette(routes=[Route("/v1/chat/completions", self._handle, methods=["POST"])])
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off",
                                                     timeout_keep_alive=30))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]},
                                        daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def asked(self) -> list[str]:
        return [rid for _, ids in self.log for rid in ids]

    async def _handle(self, request: Request) -> Response:
        body = await request.json()
        ids = _ID.findall(body["messages"][-1]["content"])
        with self._lock:
            number = len(self.log)
            self.log.append((time.monotonic(), ids))
        reply = self.script(number, ids, body)
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.raw is not None:
            return Response(reply.raw, status_code=reply.status, headers=reply.headers)
        payload = completion(reply.content or "") if reply.status == 200 else {"error": "scripted"}
        return JSONResponse(payload, status_code=reply.status, headers=reply.headers)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
