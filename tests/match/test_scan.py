"""scan(): streamed logs, line numbers, grouping, a traceback across a chunk boundary."""


from errdex.match import scan

from .conftest import make_record, scan_ctx as ctx  # noqa: F401  (fixture)



def _traceback(prefix: str) -> list[str]:
    return [
        f"{prefix}Traceback (most recent call last):",
        f'{prefix}  File "/srv/venv/site-packages/sglang/kernels/fused.py", line 358, in packed_decode',
        f"{prefix}    raise ValueError(",
        f"{prefix}ValueError: Packed decode kernel only supports NK=1 (got K=5, BK=8).",
    ]


def test_log_bigger_than_chunk_with_traceback_across_boundary(ctx, tmp_path):
    lines, expected = [], {}
    for i in range(3000):
        if i in (500, 1700, 2900):
            lines.append(f"2024-01-01 00:00:{i % 60:02d} ERROR sched: RuntimeError: Request r{i} exceeded the token budget of 4096")
            expected[len(lines)] = "sglang/sched.py"
        elif i in (1000, 2000):
            lines.extend(_traceback(f"[rank{i // 1000}]: "))
            expected[len(lines)] = "sglang/kernels/fused.py"
        elif i == 2500:
            lines.append("2024-01-01 00:00:00 ERROR KeyError: 'missing_key_17'")
            lines.append("2024-01-01 00:00:01 ERROR KeyError: 'missing_key_99'")
        else:
            lines.append(f"2024-01-01 00:00:00 INFO step {i} took 0.{i:03d}s \x1b[32mok\x1b[0m")
    log = tmp_path / "run.log"
    log.write_text("\r\n".join(lines) + "\r\n")
    seen = []
    report = scan(log, context=ctx, chunk_size=4096, progress=lambda done, total: seen.append(done))
    got = {m.log_line: m.file_path for m in report.occurrences}
    assert got == expected
    assert len(seen) > 10 and seen[-1] == log.stat().st_size
    d = report.to_dict()
    groups = {g["filePath"]: g for g in d["groups"]}
    assert groups["sglang/sched.py"]["count"] == 3
    assert groups["sglang/sched.py"]["firstLine"] == min(k for k, v in expected.items() if v == "sglang/sched.py")
    assert groups["sglang/kernels/fused.py"]["confidence"] == "high"
    (unknown,) = d["unknown"]
    assert unknown["count"] == 2 and unknown["firstLine"] == lines.index("2024-01-01 00:00:00 ERROR KeyError: 'missing_key_17'") + 1
    assert d["stats"]["lines"] == len(lines)


def test_chunk_size_does_not_change_the_answer(ctx, tmp_path):
    lines = []
    for i in range(400):
        lines.extend(_traceback("") if i % 37 == 0 else [f"line {i}"])
    log = tmp_path / "small.log"
    log.write_text("\n".join(lines))
    answers = {size: [(m.log_line, m.id) for m in scan(log, context=ctx, chunk_size=size).occurrences]
               for size in (64, 1000, 1 << 20)}
    assert answers[64] == answers[1000] == answers[1 << 20]
    assert len(answers[64]) == len([i for i in range(400) if i % 37 == 0])


def test_a_traceback_s_message_does_not_swallow_later_error_lines_of_the_same_level(ctx, tmp_path):
    """`<time> ERROR ` prefixes every error line of such a log: the traceback's message may continue on
    the next line only, not on the next ERROR line hundreds of lines down (it hid real errors)."""
    lines = _traceback("2026-11-29 20:00:00 ERROR ")
    expected = {len(lines): "sglang/kernels/fused.py"}
    for i in range(1, 400):
        if i % 50 == 0:
            lines.append(f"2026-11-29 20:05:{i % 60:02d},{i:03d} ERROR worker: RuntimeError: "
                         f"Request r{i} exceeded the token budget of 4096")
            expected[len(lines)] = "sglang/sched.py"
        else:
            lines.append(f"2026-11-29 20:05:{i % 60:02d},{i:03d} INFO scheduler: step {i}")
    log = tmp_path / "errors.log"
    log.write_text("\n".join(lines) + "\n")
    answers = {}
    for size in (256, 4096, 1 << 20):   # where a read block ends changes nothing
        report = scan(log, context=ctx, chunk_size=size)
        answers[size] = {m.log_line: m.file_path for m in report.occurrences}
        (tb,) = [m for m in report.occurrences if m.file_path == "sglang/kernels/fused.py"]
        assert tb.bindings == {"K": "5", "BK": "8"}
    assert answers[256] == answers[4096] == answers[1 << 20] == expected


def test_a_chain_split_by_a_block_boundary_reads_as_a_chain(ctx, tmp_path):
    """The chain marker after a traceback's last line may sit in the next read block: which
    exception is primary must not depend on where the block ended."""
    chained = [*_traceback(""), "", "During handling of the above exception, another exception occurred:", "",
               *_traceback("")]
    lines = []
    for i in range(120):
        lines.extend(chained if i % 9 == 0 else [f"2026-01-01 INFO step {i}"])
    log = tmp_path / "chained.log"
    log.write_text("\n".join(lines) + "\n")
    answers = {size: [(m.log_line, m.id, m.primary, m.score) for m in scan(log, context=ctx, chunk_size=size).occurrences]
               for size in (97, 256, 1000, 1 << 20)}
    assert answers[97] == answers[256] == answers[1000] == answers[1 << 20]
    assert [primary for _, _, primary, _ in answers[97]] == [False, True] * len(range(0, 120, 9))


def test_scan_reads_a_stream(ctx):
    import io

    stream = io.BytesIO("\n".join(_traceback("(pid=9) ")).encode())
    (m,) = scan(stream, context=ctx).occurrences
    assert m.log_line == 4 and m.via == "frame"
