"""A site raised through a helper happens when the call is reached and the helper's own check
holds for the call's arguments."""

import json

from errdex.pipeline import index_source
from errdex.store import Store

from .conftest import write_sample

FILES = {
    "pkg/__init__.py": "",
    "pkg/checks.py": '''
        LIMIT = 9

        def fail_if(strict, message, log_every=10):
            if strict:
                raise ValueError(message)

        def fail_over(n, message, *, limit=4):
            if n > limit:
                raise ValueError(message)

        def fail_global(message):
            if LIMIT > 3:
                raise RuntimeError(message)

        def fail(message):
            raise KeyError(message)
    ''',
    "pkg/use.py": '''
        from pkg.checks import fail, fail_global, fail_if, fail_over

        def too_big(x, mode):
            if mode == "a":
                fail_if(x > 3, f"too big {x}")

        def flagged(x, flags):
            fail_if(strict=flags.strict, message=f"flagged {x}")

        def double(x):
            fail_over(x * 2, f"double {x}", limit=10)

        def default_limit(x):
            fail_over(x, f"default limit {x}")

        def global_limit(x):
            fail_global(f"global {x}")

        def always(x):
            fail(f"always {x}")

        def spread(x, flags):
            fail_if(*flags.args, f"spread {x}")

        def in_a_row(x, mode):
            if mode == "a":
                fail_if(x > 3, f"first {x}")
            fail_if(x < 0, f"then {x}")
    ''',
}


def test_a_helper_call_takes_in_the_helper_check(tmp_path):
    src = write_sample(tmp_path / "src", FILES)
    db = tmp_path / "x.db"
    index_source(str(src), db, jobs=1, repo="acme/pkg", version="1")
    with Store.open(db, readonly=True) as store:
        got = {r["errorMessage"]: (r["errdex"]["condition"], r["errdex"]["conditionExact"])
               for r in store.iter_records() if r["filePath"] == "pkg/use.py"}
    assert got["too big {x}"] == ("mode == 'a' and x > 3", True)
    assert got["flagged {x}"] == ("flags.strict", True)
    assert got["double {x}"] == ("x * 2 > 10", True)
    assert got["always {x}"] == ("True", True)
    # what cannot be written at the call: a parameter left to its default, a name of the helper's
    # own module, arguments spread from a sequence; the path alone, said to be not exact
    for message in ("default limit {x}", "global {x}", "spread {x}"):
        assert got[message] == ("True", False), message
    with Store.open(db, readonly=True) as store:
        rec = next(r for r in store.iter_records() if r["errorMessage"] == "default limit {x}")
    assert "own check holds: n > limit" in rec["errdex"]["conditionReason"]
    # The second of two checks raises only when the first passed, which is not followed into the helper.
    assert got["first {x}"] == ("mode == 'a' and x > 3", True)
    assert got["then {x}"] == ("x < 0", False)
    assert json.dumps(rec)   # the record stays plain JSON
