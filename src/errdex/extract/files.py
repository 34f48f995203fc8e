"""One file in, one FileFacts out: read, decode, parse, walk, with failures contained.

This is the function the indexing workers run. A file that cannot be read,
decoded or parsed becomes a Diagnostic with a reason; it never stops the run.
The file is parsed, never imported or executed.
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from pathlib import Path

from errdex.extract.visitor import ModuleWalker, SiteAnalyzer
from errdex.models import EXTRACTOR_VERSION, Diagnostic, FileFacts

MAX_FILE_BYTES = 8 * 1024 * 1024
_PY2_HINTS = ("Missing parentheses in call to 'print'", "Missing parentheses in call to 'exec'",
              "multiple exception types must be parenthesized")


def cache_key(rel_path: str, module: str, data: bytes, analysis: bool = True) -> str:
    """Per-file cache key: content plus everything else the facts depend on."""
    return key_of(rel_path, module, hashlib.sha256(data).hexdigest(), analysis)


def key_of(rel_path: str, module: str, sha256: str, analysis: bool = True) -> str:
    """`cache_key` from the content's sha256 (hex), as `FileFacts.sha256` holds it: a worker keys
    what it parsed without hashing the bytes twice."""
    return hashlib.sha256(f"{EXTRACTOR_VERSION}\0{rel_path}\0{module}\0{int(analysis)}\0{sha256}".encode()).hexdigest()


def extract_file(root: str, rel_path: str, module: str, *, analyze: SiteAnalyzer | None = None,
                 helper_lines: frozenset[int] = frozenset(), max_bytes: int = MAX_FILE_BYTES,
                 calls: bool = True) -> FileFacts:
    """Extract every error site of one file; never raises for a bad file.

    `calls=False` skips each function's call list (`FunctionFacts.calls`), which only analysis reads.
    `helper_lines`: `analyze` runs for the helper calls on these lines only, not for the file's sites.
    """
    return extract_file_lines(root, rel_path, module, analyze=analyze, helper_lines=helper_lines,
                              max_bytes=max_bytes, calls=calls)[0]


def extract_file_lines(root: str, rel_path: str, module: str, *, analyze: SiteAnalyzer | None = None,
                       helper_lines: frozenset[int] = frozenset(), max_bytes: int = MAX_FILE_BYTES,
                       calls: bool = True) -> tuple[FileFacts, list[str]]:
    """`extract_file` plus the decoded lines (empty when the file was not parsed), for per-site work in the worker."""
    facts = FileFacts(rel_path, module, "", 0)
    try:
        data = Path(root, rel_path).read_bytes()
    except OSError as exc:
        facts.diagnostic = Diagnostic(rel_path, "io", f"cannot read: {exc.strerror or exc}")
        return facts, []
    facts.sha256 = hashlib.sha256(data).hexdigest()
    problem = _check_bytes(data, max_bytes)
    if problem is not None:
        facts.diagnostic = Diagnostic(rel_path, *problem)
        return facts, []
    try:
        text = decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        facts.diagnostic = Diagnostic(rel_path, "decode", f"cannot decode: {exc}")
        return facts, []
    lines = text.split("\n")
    facts.line_count = len(lines)
    try:
        tree = _parse(data, text, rel_path)
    except SyntaxError as exc:
        reason = "python2" if any(h in str(exc.msg) for h in _PY2_HINTS) else "syntax"
        facts.diagnostic = Diagnostic(rel_path, reason, f"line {exc.lineno}: {exc.msg}")
        return facts, []
    except (RecursionError, MemoryError):
        facts.diagnostic = Diagnostic(rel_path, "recursion", "too deeply nested to parse")
        return facts, []
    except ValueError as exc:
        facts.diagnostic = Diagnostic(rel_path, "binary", f"cannot parse: {exc}")
        return facts, []
    is_package = rel_path.endswith("__init__.py")
    try:
        ModuleWalker(tree, text, lines, facts, is_package, analyze, helper_lines, calls).run()
    except RecursionError:
        facts.sites.clear()
        facts.diagnostic = Diagnostic(rel_path, "recursion", "too deeply nested to walk")
        return facts, []
    return facts, lines


def _parse(data: bytes, text: str, rel_path: str) -> ast.Module:
    """The file's syntax tree, parsed from its bytes where that gives the same tree as its text.

    The parser reads the bytes as `decode_source` did (BOM, coding cookie, UTF-8)
    and offsets are UTF-8 columns either way; from bytes it is ~4% faster (the
    floor parses bytes too). A lone CR ends a line in `decode_source` only, so
    such files are parsed from the text.
    """
    if b"\r" in data:
        return ast.parse(text, filename=rel_path)
    return ast.parse(data, filename=rel_path)


def _check_bytes(data: bytes, max_bytes: int) -> tuple[str, str] | None:
    if len(data) > max_bytes:
        return "oversized", f"{len(data):,} bytes is over the {max_bytes:,}-byte limit"
    if b"\0" in data[:8192] or b"\0" in data:
        return "binary", "holds NUL bytes: not Python source"
    return None


def decode_source(data: bytes) -> str:
    """Decode as Python does: BOM, PEP 263 coding cookie, else UTF-8; newlines normalised."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
