"""An exception class whose constructor or `__str__` decides what it prints: its raise sites,
in any module, carry that message with their own arguments in place of the parameters."""

import re

from errdex.models import Placeholder


def _messages(sites) -> dict[int, str]:
    return {s.line: s.message.text() for s in sites if s.file_path == "app/use.py"}


ERRORS = """
    class TransferError(Exception):
        def __init__(self, room: int, reason: str, remote: bool = False):
            super().__init__(reason)
            self.room = room
            self.reason = reason

        def __str__(self):
            '''Shown in logs.'''
            return f"TransferError(room={self.room}): {self.reason!r}"


    class CodedError(ValueError):
        def __init__(self, code, msg):
            super(CodedError, self).__init__(f"[{code}] {msg}")


    class ReasonSecond(RuntimeError):
        def __init__(self, where, why):
            super().__init__(why)


    class FirstIsMessage(Exception):
        def __init__(self, msg, extra=None):
            super().__init__(msg)


    class Opaque(Exception):
        def __init__(self, a, b):
            super().__init__(a)
            self.b = b

        def __str__(self):
            return f"{self.a}/{self.lookup()}"


    class Inherits(TransferError):
        pass
    """


def test_constructor_and_str_shape_the_message_of_every_raise(extract):
    _, sites, _ = extract({
        "app/__init__.py": "",
        "app/errors.py": ERRORS,
        "app/use.py": """
            from app.errors import CodedError, FirstIsMessage, Inherits, Opaque, ReasonSecond, TransferError
            from app import errors


            def go(room, reason, n):
                if n == 1:
                    raise TransferError(room, reason or "unknown reason")
                if n == 2:
                    raise errors.TransferError(room, reason="peer gone")
                if n == 3:
                    raise CodedError(42, f"n={n} is too big")
                if n == 4:
                    raise ReasonSecond("loader", "weights missing")
                if n == 5:
                    raise FirstIsMessage(f"first {n}", extra=1)
                if n == 6:
                    raise Opaque("a", "b")
                raise Inherits(room, "kept as written")
            """,
    })
    got = _messages(sites)
    assert got[8] == 'TransferError(room={room}): {(reason or "unknown reason")!r}'
    assert got[10] == "TransferError(room={room}): {'peer gone'!r}"   # bound by keyword
    assert got[12] == "[42] n={n} is too big"                          # a number argument is printed as is
    assert got[14] == "weights missing"
    assert got[16] == "first {n}"          # the first argument is the message: nothing to rebind
    assert got[18] == "a"                  # a `__str__` reading what the constructor did not store: unknown
    assert got[19] == "{room}"             # only a class's own constructor is read, not an inherited one
    site = next(s for s in sites if s.file_path == "app/use.py" and s.line == 12)
    assert re.fullmatch(site.message.pattern(), "[42] n=7 is too big")
    assert [s.expr for s in site.message.segments if isinstance(s, Placeholder)] == ["n"]
    transfer = next(s for s in sites if s.file_path == "app/use.py" and s.line == 8)
    assert (transfer.error_class, transfer.class_ref) == ("TransferError", "app.errors.TransferError")
