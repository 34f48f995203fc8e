"""Functions that build an HTTP error response from a message parameter.

A web server's errors often never raise: `return self.create_error_response(
f"Invalid prompt type: {t}", status_code=404)` answers the request with a JSON
error body the user sees (`{"message": ..., "type": "BadRequestError", "code":
400}`). The function that builds the body is a helper like `def fail(msg):
raise ValueError(msg)`, and each call with a literal or f-string message is a
site of its own (errorType `http`).

A function is such a helper when one of its calls builds a response object
(a CapWords class) from a message-like parameter and an error status: a
status keyword (`status_code=`, `code=`...) that is a constant of 400-599 or
a parameter whose default is. The message may reach that call through one
local (`error = ErrorResponse(message=message)`, then `ORJSONResponse(
content=error.model_dump(), status_code=status_code)`).
"""

from __future__ import annotations

import ast
import http
from dataclasses import dataclass

from errdex.extract.messages import MESSAGE_PARAM
from errdex.extract.scope import looks_like_class, own_nodes

#: Keywords of a response call that carry its HTTP status.
STATUS_KWARGS = ("status_code", "status", "code", "http_status")
#: Keywords that carry the error's kind (`"type": "BadRequestError"` in the body).
_TYPE_KWARGS = ("type", "err_type", "error_type")
#: Keywords read last for the message: what the body reads around it (`param=`, `content=`).
_NOT_MESSAGE = frozenset((*STATUS_KWARGS, *_TYPE_KWARGS))


@dataclass(slots=True)
class ResponseHelper:
    """What a call of the helper answers with, and which parameters change it."""

    param: str                  # the message parameter
    line: int                   # the response call that carries the status
    written: str                # that call's class as written ("ORJSONResponse")
    status: int | None          # the status when the call does not pass one
    status_param: str | None    # the parameter a call may pass another status in
    kind: str | None            # the error kind when the call does not pass one ("BadRequestError")
    kind_param: str | None      # the parameter a call may pass another kind in


def status_value(node: ast.expr | None) -> int | None:
    """An HTTP status written as a constant (`404`, `HTTPStatus.NOT_FOUND`, `status.HTTP_404_NOT_FOUND`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value if 100 <= node.value <= 599 else None
    if isinstance(node, ast.Attribute):
        name = node.attr
        if name.startswith("HTTP_") and name[5:8].isdigit():
            return int(name[5:8])
        member = getattr(http.HTTPStatus, name, None)
        return int(member) if isinstance(member, http.HTTPStatus) else None
    return None


def response_helper(fn: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str]) -> ResponseHelper | None:
    """The function as a response helper, or None (see the module's docstring)."""
    defaults = _defaults(fn.args)
    messages = [p for p in params if MESSAGE_PARAM.search(p) and "type" not in p and p not in STATUS_KWARGS]
    if not messages:
        return None
    carriers: dict[str, str] = {}   # local name -> the message parameter it was built from
    calls: list[ast.Call] = []
    for node in own_nodes(fn.body):
        if isinstance(node, ast.Call) and looks_like_class(node.func):
            calls.append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            param = _carried(node.value, messages, {})
            if param is not None:
                carriers[node.targets[0].id] = param
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        status, status_param = _status(call, defaults)
        if status is None or status < 400:
            continue
        param = _carried(call, messages, carriers)
        if param is None or param == status_param:
            continue
        kind, kind_param = _kind(calls, defaults)
        return ResponseHelper(param, call.lineno, ast.unparse(call.func), status, status_param, kind, kind_param)
    return None


def _defaults(args: ast.arguments) -> dict[str, ast.expr]:
    positional = [*args.posonlyargs, *args.args]
    out = {a.arg: d for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)}
    out.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return out


def _status(call: ast.Call, defaults: dict[str, ast.expr]) -> tuple[int | None, str | None]:
    """The call's status keyword: a constant, or a parameter with a constant default."""
    for k in call.keywords:
        if k.arg in STATUS_KWARGS:
            if isinstance(k.value, ast.Name) and k.value.id in defaults:
                return status_value(defaults[k.value.id]), k.value.id
            return status_value(k.value), None
    return None, None


def _carried(call: ast.Call, messages: list[str], carriers: dict[str, str]) -> str | None:
    """The message parameter (or a local built from one) the call's arguments read, as a whole
    value or inside a literal dict/list/tuple (`{"error": {"message": msg}}`)."""
    values = [*call.args, *(k.value for k in call.keywords if k.arg not in _NOT_MESSAGE)]
    values.reverse()
    while values:
        value = values.pop()
        if isinstance(value, ast.Name):
            if value.id in messages:
                return value.id
            if value.id in carriers:
                return carriers[value.id]
        elif isinstance(value, ast.Dict):
            values.extend(v for v in value.values if v is not None)
        elif isinstance(value, (ast.List, ast.Tuple)):
            values.extend(value.elts)
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and isinstance(value.func.value, ast.Name) and value.func.value.id in carriers:
            return carriers[value.func.value.id]   # `error.model_dump()`
    return None


def _kind(calls: list[ast.Call], defaults: dict[str, ast.expr]) -> tuple[str | None, str | None]:
    """The error kind a `type=` keyword of the response calls gives: a string, or a parameter
    with a string default."""
    for call in calls:
        for k in call.keywords:
            if k.arg not in _TYPE_KWARGS:
                continue
            value = k.value
            if isinstance(value, ast.Name) and value.id in defaults:
                default = defaults[value.id]
                text = default.value if isinstance(default, ast.Constant) and isinstance(default.value, str) else None
                return text, value.id
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value, None
    return None, None
