"""An async client for any OpenAI-compatible `/v1/chat/completions` endpoint.

Bounded concurrency (one semaphore shared by every request), retries with
exponential backoff with jitter on 429, 5xx, timeouts and dropped
connections, honouring `Retry-After`. Servers that refuse `response_format`
(a 400 naming it) are asked again without it, once for the whole run.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from errdex.errors import ErrdexError

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 60.0


class EndpointError(ErrdexError):
    """The endpoint kept failing after every retry, or refused the request outright."""

    exit_code = 3


@dataclass(frozen=True, slots=True)
class ClientConfig:
    """Where to send requests and how hard to try."""

    endpoint: str                  # base URL ("http://127.0.0.1:8000/v1") or the full completions URL
    model: str
    api_key: str | None = None
    concurrency: int = 4
    timeout: float = 120.0         # seconds per request
    retries: int = 5               # further attempts after the first
    backoff: float = 0.5           # first delay; doubles per attempt, jittered
    max_backoff: float = 30.0
    temperature: float = 0.0
    max_tokens: int | None = None

    @property
    def url(self) -> str:
        base = self.endpoint.rstrip("/")
        return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


@dataclass(frozen=True, slots=True)
class Completion:
    """One successful answer: the text and what it cost."""

    text: str
    tokens_in: int
    tokens_out: int
    attempts: int
    seconds: float


class ChatClient:
    """Send chat requests with bounded concurrency; use as `async with`."""

    def __init__(self, config: ClientConfig, *, schema: dict | None = None) -> None:
        self.config = config
        self._schema = schema
        self._semaphore = asyncio.Semaphore(max(1, config.concurrency))
        self._http: httpx.AsyncClient | None = None
        self.requests = 0          # HTTP requests sent, retries included

    async def __aenter__(self) -> ChatClient:
        headers = {"Authorization": f"Bearer {self.config.api_key}"} if self.config.api_key else {}
        limits = httpx.Limits(max_connections=self.config.concurrency,
                              max_keepalive_connections=self.config.concurrency)
        self._http = httpx.AsyncClient(headers=headers, limits=limits,
                                       timeout=httpx.Timeout(self.config.timeout, connect=10.0))
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._http is not None:
            await self._http.aclose()

    async def complete(self, messages: list[dict[str, str]]) -> Completion:
        """The model's answer to `messages`; raises EndpointError when retries run out."""
        async with self._semaphore:
            return await self._with_retries(messages)

    async def _with_retries(self, messages: list[dict[str, str]]) -> Completion:
        started = time.monotonic()
        last_error = "no attempt"
        for attempt in range(self.config.retries + 1):
            try:
                response = await self._post(messages)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                last_error, wait = f"{type(exc).__name__}: {exc}".rstrip(": "), None
            else:
                if response.status_code == 200:
                    return _completion(response, attempt + 1, time.monotonic() - started)
                if response.status_code == 400 and self._schema is not None \
                        and "response_format" in response.text:
                    self._schema = None   # this server takes no schema: ask plainly from now on
                    continue
                last_error = f"HTTP {response.status_code}: {response.text[:200]}"
                if response.status_code not in _RETRY_STATUS:
                    raise EndpointError(f"{self.config.url} refused the request: {last_error}")
                wait = retry_after(response.headers.get("retry-after"))
            if attempt < self.config.retries:
                await asyncio.sleep(self._delay(attempt, wait))
        raise EndpointError(f"{self.config.url} failed after {self.config.retries + 1} attempts:"
                            f" {last_error}")

    async def _post(self, messages: list[dict[str, str]]) -> httpx.Response:
        assert self._http is not None, "use ChatClient as an async context manager"
        body: dict[str, Any] = {"model": self.config.model, "messages": messages,
                                "temperature": self.config.temperature}
        if self.config.max_tokens:
            body["max_tokens"] = self.config.max_tokens
        if self._schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "errdex_enrichment", "schema": self._schema}}
        self.requests += 1
        return await self._http.post(self.config.url, json=body)

    def _delay(self, attempt: int, retry_after_s: float | None) -> float:
        """Retry-After when the server gives one, else capped exponential backoff, jittered in its upper half."""
        if retry_after_s is not None:
            return min(retry_after_s, _MAX_RETRY_AFTER)
        ceiling = min(self.config.max_backoff, self.config.backoff * (2 ** attempt))
        return random.uniform(ceiling / 2, ceiling)


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _completion(response: httpx.Response, attempts: int, seconds: float) -> Completion:
    """A 200 without a message yields empty text, which the caller treats as malformed."""
    try:
        data = response.json()
    except ValueError:
        data = {}
    data = data if isinstance(data, dict) else {}
    try:
        text = data["choices"][0]["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        text = ""
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Completion(str(text), int(usage.get("prompt_tokens") or 0),
                      int(usage.get("completion_tokens") or 0), attempts, seconds)
