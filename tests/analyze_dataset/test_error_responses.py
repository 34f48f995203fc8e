"""An HTTP error answered, not raised (`extract.responses`): the page says the request is answered
with the error and offers nothing to catch, and explain finds it from the client's error line."""

from __future__ import annotations

from errdex.match.api import explain
from .sources import index_sources, records_by_message

FILES = {
    "srv/__init__.py": "",
    "srv/base.py": """
        from fastapi.responses import ORJSONResponse
        from srv.protocol import ErrorResponse


        class Serving:
            def create_error_response(self, message, err_type="BadRequestError", status_code=400):
                error = ErrorResponse(object="error", message=message, type=err_type, code=status_code)
                return ORJSONResponse(content=error.model_dump(), status_code=status_code)
    """,
    "srv/tokenize.py": """
        from srv.base import Serving


        class Tokenize(Serving):
            def handle(self, request):
                if not isinstance(request.tokens, list):
                    return self.create_error_response(f"Invalid tokens type: {type(request.tokens)}.")
                return request.tokens
    """,
}


def test_an_error_response_site_is_answered_not_raised(tmp_path):
    db = index_sources(tmp_path, FILES, "acme/srv")
    rec = records_by_message(db)["Invalid tokens type: {type(request.tokens)}."]
    assert (rec["errorType"], rec["httpStatus"], rec["errorClass"]) == ("http", 400, "BadRequestError")
    assert rec["errdex"]["responds"] is True
    assert rec["errdex"]["condition"] == "not isinstance(request.tokens, list)"
    assert "answers the request with the HTTP error `BadRequestError`" in rec["documentation"]
    assert "raises" not in rec["documentation"]
    assert rec["tryCatchPattern"] is None   # nothing is raised to catch
    assert "answers the request with this error here and raises nothing" in rec["validationCode"]
    line = ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"Invalid tokens type: "
            "<class 'str'>.\", 'type': 'BadRequestError', 'param': None, 'code': 400}")
    top = explain(line, db=db)[0]
    assert (top.file_path, top.line_number, top.confidence) == ("srv/tokenize.py", 8, "high")


RETURNED = {
    "sched/__init__.py": "",
    "sched/utils.py": """
        from typing import Optional


        def validate_input_length(req, max_req_input_len: int) -> Optional[str]:
            if len(req.origin_input_ids) >= max_req_input_len:
                error_msg = (
                    f"Input length ({len(req.origin_input_ids)} tokens) exceeds "
                    f"the maximum allowed length ({max_req_input_len} tokens)."
                )
                return error_msg
            return None


        class Scheduler:
            def handle(self, req):
                error_msg = validate_input_length(req, self.max_len)
                if error_msg:
                    req.abort(error_msg)
                    return
                self.queue.append(req)
    """,
}


def test_a_returned_error_message_is_said_returned_and_found_from_the_log_line(tmp_path):
    """Set 3 #8: `Input length (...) exceeds the maximum allowed length (...)` is returned by a
    validator and aborted with, never raised; users paste it from the server's log."""
    db = index_sources(tmp_path, RETURNED, "acme/sched")
    rec = records_by_message(db)["Input length ({len(req.origin_input_ids)} tokens) exceeds the maximum allowed"
                                 " length ({max_req_input_len} tokens)."]
    assert (rec["errorType"], rec["errorClass"]) == ("returned", None)
    assert rec["documentation"].startswith("`sched.utils.validate_input_length` returns this message as its error"
                                           " (for its caller to fail with) when")
    assert "raises" not in rec["documentation"] and rec["tryCatchPattern"] is None
    assert "returns this message as its error here and raises nothing" in rec["validationCode"]
    top = explain("[2025-03-03 06:49:28 TP5] Input length (160062 tokens) exceeds the maximum allowed length"
                  " (59862 tokens).", db=db)[0]
    assert (top.file_path, top.line_number, top.confidence) == ("sched/utils.py", 11, "high")
    assert top.bindings == {"len(req.origin_input_ids)": "160062", "max_req_input_len": "59862"}
