"""ASGI middleware every response passes through: security headers and the request body cap.

The cap is enforced twice: a declared Content-Length over the limit is
refused before the app runs, and a streamed (chunked) body is counted as it
is read, so a client cannot get past the limit by not declaring a length.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException

#: Largest request body accepted (1 MiB).
MAX_BODY_BYTES = 1024 * 1024

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)


class BodyTooLarge(HTTPException):
    """Raised inside `receive` when a streamed body passes the cap.

    An HTTPException, so the framework's body parsing lets it through as a
    413 instead of turning it into a generic 400.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large_message(limit))


def too_large_message(limit: int) -> str:
    return (f"request body is larger than {limit // 1024} KiB ({limit:,} bytes);"
            " send a shorter excerpt of the error text")


def error_body(status: int, message: str) -> dict:
    """The one JSON error envelope of the API."""
    return {"error": {"status": status, "message": message}}


class SafetyMiddleware:
    """Adds the security headers and refuses bodies over `max_body` with 413."""

    def __init__(self, app, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_with_headers(message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [h for h in SECURITY_HEADERS if h[0] not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        if self._declared_length(scope) > self.max_body:
            await self._refuse(send_with_headers)
            return
        received = 0

        async def counting_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise BodyTooLarge(self.max_body)
            return message

        try:
            await self.app(scope, counting_receive, send_with_headers)
        except BodyTooLarge:
            if not started:
                await self._refuse(send_with_headers)

    @staticmethod
    def _declared_length(scope) -> int:
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return 0
        return 0

    async def _refuse(self, send) -> None:
        body = json.dumps(error_body(413, too_large_message(self.max_body))).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
