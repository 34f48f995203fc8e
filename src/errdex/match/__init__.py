"""The match stage: error text (line, traceback, log) to indexed records with bound values.

Public API: `explain()` for pasted text or an exception object, `scan()` for
whole log files, `Match`/`ScanReport` results, `PatternEngine` and
`MatchContext` for callers that manage their own records.
"""

from errdex.match.api import MatchContext, explain, load_context
from errdex.match.engine import PatternEngine
from errdex.match.events import ErrorEvent, Frame, parse_events
from errdex.match.resolve import Match
from errdex.match.scan import ScanReport, scan

__all__ = [
    "ErrorEvent", "Frame", "Match", "MatchContext", "PatternEngine", "ScanReport",
    "explain", "load_context", "parse_events", "scan",
]
