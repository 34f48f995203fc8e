"""Prose that follows what errdex proved about the site, not only its category (review 14, P8): a
line nothing reaches gets no tips and nothing to catch; a deprecation is no unsupported configuration."""

from __future__ import annotations

import textwrap
from pathlib import Path

from errdex.pipeline import index_source
from errdex.store import Store

from .sources import index_sources, records_by_message

CODE = '''
import os
import warnings


def should_skip(batch) -> bool:
    if not batch.enabled:
        return False
    raise NotImplementedError("skipping is not supported yet")

    params = batch.params
    assert params is not None, "params is not initialized"
    return params.threshold > 0


def old_entry():
    warnings.warn("`old_entry` is deprecated; use `new_entry` instead.", FutureWarning, stacklevel=2)


def check_ep(server_args):
    assert server_args.max_ep_size > 0, "--max-ep-size must be a positive integer."


def pool_size(cache_params, mamba_size):
    GB = 1 << 30
    H, d = cache_params.shape
    size = mamba_size * 2
    est = H * d * size
    if est > GB:
        raise ValueError(f"pool of {est} bytes is larger than {GB}")


def patch_of(size):
    patch = size[0]
    assert patch in [224, 336, 384], "patch size should be in [224, 336, 384]"
    return patch


def fetch_status(client):
    try:
        resp = client.get("/health")
    except OSError:
        resp = None
    if resp is None or resp.status != 200:
        raise RuntimeError("health check failed")


def serve(client):
    return fetch_status(client)


class Buffer:
    def get_all(self):
        raise NotImplementedError("subclasses fill the buffer")


def start(logger):
    pick_dtype(logger)
    return read_mode()


def read_mode():
    mode = os.environ.get("ACME_MODE", "fast")
    if mode not in ("fast", "safe"):
        raise ValueError(f"unknown ACME_MODE {mode}")
    return mode


def pick_dtype(logger):
    name = os.environ.get("ACME_SSM_DTYPE")
    if name not in ("float32", "bfloat16"):
        logger.warning(f"Ignoring ACME_SSM_DTYPE={name}: using float32 for the state cache")
'''


def _records(tmp_path: Path) -> dict[str, dict]:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "skip.py").write_text(textwrap.dedent(CODE))
    index_source(str(tmp_path / "src"), tmp_path / "e.db", jobs=1, repo="o/skip", version="1")
    with Store.open(tmp_path / "e.db", readonly=True) as store:
        return {r["errorMessage"]: r for r in store.iter_records(limit=100)}


def test_an_unreachable_line_and_a_deprecation_are_told_as_such(tmp_path):
    recs = _records(tmp_path)
    dead = recs["params is not initialized"]
    assert dead["errdex"]["condition"] == "False" and dead["errdex"]["conditionExact"] is True
    assert dead["preventionTips"] == []
    assert dead["tryCatchPattern"] is None
    assert dead["commonSituations"].startswith("None in this version: no path into")
    deprecated = recs["`old_entry` is deprecated; use `new_entry` instead."]
    assert deprecated["tryCatchPattern"] is None   # switch away from it: catching a deprecation helps nobody


def test_a_type_guard_imports_the_types_it_names_from_the_sites_module(tmp_path, monkeypatch):
    """Review 14 P11: `TypeGuard[Spec]` with `Spec` unbound could not run; what the site's module
    names (defined or imported there), it can be imported from. Builtins need no import."""
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "m.py").write_text(textwrap.dedent('''
        from collections import OrderedDict


        class Spec:
            pass


        def take(x, y, z):
            if not isinstance(x, Spec):
                raise TypeError("x must be a Spec")
            if not isinstance(y, (OrderedDict, tuple)):
                raise TypeError("y must be ordered")
            if not isinstance(z, int):
                raise TypeError("z must be an int")
        '''))
    index_source(str(tmp_path / "src"), tmp_path / "t.db", jobs=1, repo="o/tg", version="1")
    with Store.open(tmp_path / "t.db", readonly=True) as store:
        guards = {r["errorMessage"]: r["typeGuard"] for r in store.iter_records(limit=100)}
    assert guards["x must be a Spec"].splitlines()[0] == "from pkg.m import Spec"
    assert guards["y must be ordered"].splitlines()[0] == "from pkg.m import OrderedDict"
    assert guards["z must be an int"].splitlines()[0] == "from typing import TypeGuard"
    monkeypatch.syspath_prepend(str(tmp_path / "src"))   # the package this test wrote, as a user's path holds it
    for text in guards.values():
        namespace: dict = {}
        exec(compile(text, "<guard>", "exec"), namespace)   # runs: every name it reads is bound


def test_a_setting_behind_a_check_is_named_and_is_no_bug(tmp_path):
    """Review 15 P8/P10: an assert on a command-line option is a setting to change, not a state the
    code assumes cannot occur; a logged warning is a condition the code goes on past."""
    recs = _records(tmp_path)
    ep = recs["--max-ep-size must be a positive integer."]
    assert ep["commonSituations"] == ("Settings of the run involved: the command-line option `--max-ep-size` "
                                      "(the message names it). A setting or combination of options that"
                                      " `check_ep` does not handle.")
    assert ep["backgroundTag"] == "unsupported-configuration"   # an assert on an argument's option
    dtype = recs["Ignoring ACME_SSM_DTYPE={name}: using float32 for the state cache"]
    assert dtype["commonSituations"] == (
        "Settings of the run involved: the environment variable `ACME_SSM_DTYPE` (read before it). "
        "A condition `pick_dtype` warns about but continues past.")


def test_the_values_named_are_those_nearest_the_check(tmp_path):
    """Review 15 P6: of four feeding lines the prose names the three the test reads last, the one
    assigning what it compares among them, and says how many it left out."""
    doc = _records(tmp_path)["pool of {est} bytes is larger than {GB}"]["documentation"]
    assert doc.endswith("Values it depends on: `H, d = cache_params.shape`; `size = mamba_size * 2`; "
                        "`est = H * d * size` (and 1 earlier).")


def test_a_literal_set_check_says_which_values_pass_and_claims_no_branch(tmp_path):
    """Review 15 #12: `assert patch in [...]` has no other branch taking the rest of the values."""
    sols = _records(tmp_path)["patch size should be in [224, 336, 384]"]["solutions"]
    assert sols[0] == "Use a value `patch_of` accepts: `patch in (224, 336, 384)`."
    assert not any("branch" in s for s in sols)


def test_no_entry_point_check_for_a_log_or_an_environment_value(tmp_path):
    """Review 15 P5: a warning's call goes on, and a value read from the environment is set, not passed
    by a caller: neither gets "check it at the entry point"."""
    recs = _records(tmp_path)
    for message in ("Ignoring ACME_SSM_DTYPE={name}: using float32 for the state cache", "unknown ACME_MODE {mode}"):
        assert any(e.endswith(".start") for e in recs[message]["errdex"]["entryPoints"])
        assert not any("entry point" in s for s in recs[message]["solutions"])


def test_an_abstract_stub_gets_no_try_except_but_a_conditional_one_does(tmp_path):
    """Review 16 P5: a method raising NotImplementedError whenever it runs is a stub a subclass
    overrides: no caller input takes another way. One raised for some inputs has an alternative."""
    recs = _records(tmp_path)
    assert recs["subclasses fill the buffer"]["tryCatchPattern"] is None
    assert "result = alternative(...)" in recs["skipping is not supported yet"]["tryCatchPattern"]


def test_no_entry_point_check_for_a_value_the_function_makes(tmp_path):
    """Review 16 P6: `resp` comes from a call inside the function (bound in a `try`): a caller
    at the entry point has nothing to check."""
    r = _records(tmp_path)["health check failed"]
    assert r["errdex"]["unfedLocals"] == ["resp"]
    assert any(e.endswith(".serve") for e in r["errdex"]["entryPoints"])
    assert not any("entry point" in s for s in r["solutions"])


KINDS = {
    "acme/__init__.py": "",
    "acme/kinds.py": '''
        import functools
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class DumperConfig:
            enable: bool = False
            block_count: int = -1

            def __post_init__(self):
                if self.enable:
                    assert self.block_count > 0, f"block_count must be > 0 when enable=True, got {self.block_count}"


        @functools.lru_cache(maxsize=1)
        def load_kernels():
            import fast_kernels
            if not callable(fast_kernels.plan):
                raise ValueError("fast_kernels exports must be callable")
            return fast_kernels


        def fetch(repo, local):
            try:
                if not complete(local):
                    raise ValueError(f"{repo} is still incomplete after a forced re-download")
            except Exception as e:
                raise ValueError(f"Could not download {repo}: {e}") from e
    ''',
}


def test_what_the_code_proves_about_a_check_decides_its_kind(tmp_path):
    """Review 27: an assert of a dataclass's `__post_init__` checks the constructor's arguments (no
    "bug or call order upstream"); a check that reads no argument is decided by none; a ValueError
    about a download the code checked is not retried; an error converted into a new one of its own
    class is not said to change class."""
    recs = records_by_message(index_sources(tmp_path, KINDS, "o/kinds"))
    post = recs["block_count must be > 0 when enable=True, got {self.block_count}"]
    assert post["backgroundTag"] == "input-validation"
    assert "bug" not in post["commonSituations"] and "call order" not in " ".join(post["preventionTips"])
    loader = recs["fast_kernels exports must be callable"]
    assert loader["errdex"]["noInputRead"] is True
    assert "none of its arguments decides" in loader["commonSituations"]
    assert "an argument, or state" not in loader["commonSituations"]
    download = recs["{repo} is still incomplete after a forced re-download"]
    assert download["backgroundTag"] == "io-network"
    assert download["handlingStrategy"] == "fix-configuration" and download["tryCatchPattern"] is None
    assert "raises a new `ValueError` in its place, with a message of its own" in download["documentation"]
    assert "as `ValueError`" not in download["documentation"]


CONSTRUCTED = {
    "pool/__init__.py": "",
    "pool/kv.py": '''
        class TokenPool:
            def __init__(self, size, head_dim):
                self.size = size
                self.head_dim = head_dim
                self._create_buffers()

            def _create_buffers(self):
                self.buffers = [0] * self.size


        class ScaledTokenPool(TokenPool):
            BLOCK = 32

            def _create_buffers(self):
                if self.head_dim % self.BLOCK != 0:
                    raise ValueError(f"head_dim {self.head_dim} must be a multiple of {self.BLOCK}")
                self.buffers = [1] * self.size
    ''',
}


def test_a_method_run_only_while_the_object_is_built_gets_no_guard_on_an_object(tmp_path):
    """Review 27 #24: the override is reached from the base's `__init__` only on the subclass, and
    raises while the object is built: no `obj` exists yet to guard a call of `_create_buffers` on."""
    rec = records_by_message(index_sources(tmp_path, CONSTRUCTED, "o/pool"))[
        "head_dim {self.head_dim} must be a multiple of {self.BLOCK}"]
    assert rec["errdex"]["entryPoints"] == ["pool.kv.TokenPool.__init__"]
    assert rec["errdex"]["entryClass"] == "pool.kv.ScaledTokenPool"
    assert rec["exampleFix"] is None
    assert "`ScaledTokenPool(head_dim=...)`" in rec["solutions"][0]
