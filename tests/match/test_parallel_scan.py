"""scan(jobs=N): byte ranges in forked processes give the single-process report, tracebacks across the cuts included."""

import os
import random

import pytest

from errdex.match import scan
from errdex.match import parallel

from .conftest import make_record, scan_ctx as ctx  # noqa: F401  (fixture)

CHUNK = 512



def _traceback(prefix: str, frames: int) -> list[str]:
    lines = [f"{prefix}Traceback (most recent call last):"]
    for k in range(frames):
        lines.append(f'{prefix}  File "/srv/venv/site-packages/sglang/srt/layer{k}.py", line {k + 1}, in forward')
        lines.append(f"{prefix}    return self.inner(x)")
    lines.append(f'{prefix}  File "/srv/venv/site-packages/sglang/kernels/fused.py", line 358, in packed_decode')
    lines.append(f"{prefix}    raise ValueError(")
    lines.append(f"{prefix}ValueError: Packed decode kernel only supports NK=1 (got K={frames}, BK=8).")
    return lines


def _log(seed: int) -> list[str]:
    """Plain lines with errors, unknown errors and tracebacks (some longer than a chunk) everywhere."""
    rng = random.Random(seed)
    lines: list[str] = []
    while len(lines) < 4000:
        roll = rng.random()
        if roll < 0.03:
            lines.extend(_traceback(f"[rank{rng.randint(0, 3)}]: ", rng.choice([0, 1, 3, 12])))
        elif roll < 0.05:
            lines.append(f"ERROR sched: RuntimeError: Request r{rng.randint(0, 9)} exceeded the token budget of 4096")
        elif roll < 0.06:
            lines.append(f"ERROR KeyError: 'missing_key_{rng.randint(0, 3)}'")
        else:
            lines.append(f"INFO step {len(lines)} took 0.{rng.randint(0, 999):03d}s")
    return lines


def _comparable(report) -> dict:
    d = report.to_dict()
    d["stats"] = {k: v for k, v in d["stats"].items()
                  if k not in ("seconds", "mbPerSecond", "engineSeconds", "processes", "cpuSeconds", "workerCpuSeconds")}
    return d


def test_pre_encoded_json_equals_dumping_the_dict(ctx, tmp_path):
    """`to_json()` from fragments encoded in each range's process is `json.dumps(to_dict())`,
    character for character, after the merge shifted the log lines."""
    import json

    log = tmp_path / "run.log"
    odd = ['ERROR RuntimeError: Request "r\\1"\tné→😀 exceeded the token budget of \x7f<>&\'']
    log.write_text("\n".join(_log(4) + odd * 3 + _log(5)) + "\n", encoding="utf-8")
    single = scan(log, context=ctx, chunk_size=CHUNK, jobs=1)
    assert any("😀" in v for m in single.occurrences for v in m.bindings.values())
    split = scan(log, context=ctx, chunk_size=CHUNK, jobs=3, split_threshold=0, encode=True)
    assert split.stats["processes"] == 3
    # Occurrences found by the ranges come encoded (a re-scan from a held traceback is encoded at the end).
    assert sum(m.encoded is not None for m in split.occurrences) > len(split.occurrences) / 2
    assert split.to_json() == json.dumps(split.to_dict())
    assert single.to_json() == json.dumps(single.to_dict())
    assert json.loads(split.to_json())["occurrences"] == json.loads(single.to_json())["occurrences"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ranges_merge_to_the_single_process_report(ctx, tmp_path, seed):
    log = tmp_path / "run.log"
    log.write_text("\n".join(_log(seed)) + "\n")
    single = scan(log, context=ctx, chunk_size=CHUNK, jobs=1)
    assert single.stats["processes"] == 1 and len(single.occurrences) > 100 and single.unknown
    for jobs in (2, 3, 7):
        split = scan(log, context=ctx, chunk_size=CHUNK, jobs=jobs, split_threshold=0)
        assert split.stats["processes"] == jobs
        assert _comparable(split) == _comparable(single)


def test_a_traceback_held_across_every_cut_is_rescanned_whole(ctx, tmp_path, monkeypatch):
    """Cuts land inside tracebacks longer than a chunk: the parent scans on from the held line."""
    lines = []
    for i in range(60):
        lines.extend(_traceback(f"[w{i}]: ", 8))
        lines.append(f"INFO step {i}")
    log = tmp_path / "long.log"
    log.write_text("\n".join(lines))   # no final newline: the last line still counts
    rescans = []
    rescan = parallel._rescan
    monkeypatch.setattr(parallel, "_rescan", lambda *a: rescans.append(a[4]) or rescan(*a))
    single = scan(log, context=ctx, chunk_size=CHUNK, jobs=1)
    split = scan(log, context=ctx, chunk_size=CHUNK, jobs=4, split_threshold=0)
    assert split.stats["processes"] == 4
    assert rescans   # at least one range began inside a held traceback
    assert _comparable(split) == _comparable(single)
    assert [m.log_line for m in split.occurrences] == [
        n for n, line in enumerate(lines, 1) if line.endswith("BK=8).")]
    assert split.stats["lines"] == len(lines)


def test_small_files_and_streams_stay_in_one_process(ctx, tmp_path):
    log = tmp_path / "small.log"
    log.write_text("\n".join(_log(4)) + "\n")
    assert scan(log, context=ctx, chunk_size=CHUNK, jobs=4).stats["processes"] == 1   # under the threshold
    assert len(parallel.plan_ranges(log, log.stat().st_size, CHUNK, 4, None)) == 1
    with open(log, "rb") as f:
        assert scan(f, context=ctx, chunk_size=CHUNK, jobs=4, split_threshold=0).stats["processes"] == 1


def _single_and_split(ctx, log, seed: int):
    """(single-process report, split report) of a log written from `seed`, with the split scan run
    in 3 processes after the caller broke something in it."""
    log.write_text("\n".join(_log(seed)) + "\n")
    return scan(log, context=ctx, chunk_size=CHUNK, jobs=1), lambda: scan(
        log, context=ctx, chunk_size=CHUNK, jobs=3, split_threshold=0)


def _children_run(monkeypatch, in_child) -> None:
    """`parallel.scan_range` runs `in_child()` first in every range but the first (the children's)."""
    parent = parallel.scan_range

    def scan_range(c, path, r, chunk_size, progress=None, total=None, encode=False):
        if r.start:
            in_child()
        return parent(c, path, r, chunk_size, progress, total, encode)

    monkeypatch.setattr(parallel, "scan_range", scan_range)


def test_a_failed_child_range_is_scanned_by_the_parent(ctx, tmp_path, monkeypatch):
    single, split_scan = _single_and_split(ctx, tmp_path / "run.log", 5)

    def disk_gone():
        raise OSError("disk gone")

    _children_run(monkeypatch, disk_gone)
    assert _comparable(split_scan()) == _comparable(single)


def test_a_child_that_dies_without_a_word_has_its_range_scanned_by_the_parent(ctx, tmp_path, monkeypatch):
    single, split_scan = _single_and_split(ctx, tmp_path / "run.log", 7)
    _children_run(monkeypatch, lambda: os._exit(9))   # gone before writing anything (killed, out of memory)
    assert _comparable(split_scan()) == _comparable(single)


def test_children_hand_results_over_without_memfd_too(ctx, tmp_path, monkeypatch):
    """Where the system has no `memfd_create`, a child's result goes through a temporary file."""
    single, split_scan = _single_and_split(ctx, tmp_path / "run.log", 6)
    monkeypatch.delattr(parallel.os, "memfd_create")
    unpacked = []
    monkeypatch.setattr(parallel, "_unpack", lambda data, unpack=parallel._unpack: unpacked.append(len(data)) or unpack(data))
    split = split_scan()
    assert split.stats["processes"] == 3 and len(unpacked) == 2   # both children's results arrived, not rescanned
    assert _comparable(split) == _comparable(single)


def test_a_traceback_longer_than_the_first_window_parses_whole(ctx, tmp_path, monkeypatch):
    """Each traceback is parsed from a small window grown only while the parse reaches its end."""
    import importlib

    scan_module = importlib.import_module("errdex.match.scan")

    lines = ["INFO start"]
    for i in range(3):
        lines.extend(_traceback(f"[w{i}]: ", 40 * (i + 1)))   # up to ~18 KB of frames
        lines.append(f"INFO step {i}")
    log = tmp_path / "long.log"
    log.write_text("\n".join(lines) + "\n")
    assert len("\n".join(lines)) / 3 > scan_module.FIRST_WINDOW_BYTES / 4
    report = scan(log, context=ctx, jobs=1)
    assert report.stats["events"] == 3
    assert [m.log_line for m in report.occurrences] == [
        n for n, line in enumerate(lines, 1) if line.endswith("BK=8).")]
    for size in (64, 256, 1 << 20):   # same answer whatever the first window
        monkeypatch.setattr(scan_module, "FIRST_WINDOW_BYTES", size)
        assert _comparable(scan(log, context=ctx, jobs=1)) == _comparable(report)


def test_packed_results_carry_condition_checks_and_encoded_json(tmp_path):
    """A range's result survives the pipe: plain rows by marshal, condition checks (explain
    matches have them; log scans do not) by pickle, encoded JSON as is."""
    from errdex.match import MatchContext, explain
    from errdex.match.encode import encode_occurrences

    records = [make_record("Invalid rank {rank} for world size {n}", condition="rank >= n", line=5),
               make_record("Request {rid} exceeded the token budget of {n}", error_class="RuntimeError", line=9)]
    c = MatchContext.from_records(records, cache_dir=tmp_path / "engine", backend="python")
    matches = explain("ValueError: Invalid rank 7 for world size 4", context=c)
    matches += explain("RuntimeError: Request r1 exceeded the token budget of 12", context=c)
    encode_occurrences(matches[1:])
    assert matches[0].condition_check is not None and matches[1].condition_check is None
    cp = parallel.Checkpoint(0, False, 1, 0, 0, 0, 0)
    res = parallel.RangeResult(matches, [("k", 3, "KeyError: 'k'")], {0: cp}, cp, 7, held_from=None, cpu_seconds=0.5)
    for given in (res, parallel.RangeResult(matches[1:], [], {0: cp}, cp, 7)):
        back = parallel._unpack(parallel._pack(given))
        assert [m.to_dict() for m in back.occurrences] == [m.to_dict() for m in given.occurrences]
        assert [m.encoded for m in back.occurrences] == [m.encoded for m in given.occurrences]
        assert (back.unknowns, back.lines, back.checkpoints, back.end) == (given.unknowns, 7, {0: cp}, cp)


def test_a_cut_is_the_last_newline_before_it_however_far_back(tmp_path):
    from errdex.match.parallel import _LOOK_BACK, _last_newline

    data = b"x" * 10 + b"\n" + b"y" * (3 * _LOOK_BACK) + b"\n" + b"z" * (_LOOK_BACK + 5)
    path = tmp_path / "log"
    path.write_bytes(data)
    with open(path, "rb") as f:
        for start, end in [(0, len(data)), (0, len(data) - _LOOK_BACK - 5), (0, 11), (0, 10), (11, len(data) - 1),
                           (12, 3 * _LOOK_BACK + 11), (0, len(data) + 100)]:
            assert _last_newline(f, start, end) == data.rfind(b"\n", start, end)
