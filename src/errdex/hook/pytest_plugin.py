"""pytest plugin: `pytest --errdex` adds the errdex explanation to failing tests' reports.

Loaded in every pytest run of anyone who installs errdex (entry point
`pytest11`), so importing it costs nothing: errdex's machinery is imported
only when `--errdex` is given and a test fails. Failures are explained when
their exception was raised inside an indexed folder or an installed
distribution (indexed on first sight); pytest's own outcomes are skipped.
"""

from __future__ import annotations

import pytest

SECTION = "errdex explanation"
#: The test runner's own frames sit above every test; they explain nothing.
RUNNER_DISTS = ("pytest", "pluggy")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("errdex")
    group.addoption("--errdex", action="store_true", default=False,
                    help="explain failures raised inside installed packages (errdex)")
    group.addoption("--errdex-db", default=None, metavar="FILE",
                    help="errdex index to read and fill (default: $ERRDEX_HOME/errdex.db)")
    group.addoption("--errdex-no-index", action="store_true", default=False,
                    help="only use what is indexed already; never index a package on first sight")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    config = item.config
    if not config.getoption("errdex") or not report.failed or call.excinfo is None:
        return report
    exc = call.excinfo.value
    if type(exc).__module__.split(".")[0] in ("_pytest", "pytest"):
        return report
    text = explanation_text(exc, config.getoption("errdex_db"), not config.getoption("errdex_no_index"))
    if text:
        report.sections.append((SECTION, text))
    return report


def explanation_text(exc: BaseException, db: str | None, index_missing: bool) -> str:
    """The explanation as plain text, with any indexing progress first; "" when nothing matched."""
    import io
    from pathlib import Path

    from errdex.hook.install import disabled

    if disabled():
        return ""
    progress = io.StringIO()
    try:
        from errdex.hook.explainer import explain_exception
        from errdex.hook.lazy_index import default_db
        from errdex.hook.panel import plain_text

        found = explain_exception(exc, Path(db) if db else default_db(), progress, index_missing,
                                  ignore=RUNNER_DISTS)
    except Exception as failure:  # noqa: BLE001 - a broken index must not break the test run
        return progress.getvalue() + f"errdex: could not explain this error ({type(failure).__name__}: {failure})"
    if not found:
        return ""
    return progress.getvalue() + plain_text(found)
