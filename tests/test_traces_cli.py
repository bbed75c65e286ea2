"""Trace replay through the `xlssd` command, one format at a time: MSR Cambridge CSV,
blkparse text, UMass/SPC, Alibaba Cloud and SYSTOR '17 CSV files written here, replayed on
the tiny preset.

Expected values follow from docs/traces.md and the device parameters. Runs pin a single
tR of 50 us, no command time, 200 ns DRAM accesses and 50 % preconditioning on top of the
preset, so that an idle single-page read costs exactly tR + one page transfer and a
buffered write one DRAM access; sizes (logical capacity, transfer time) are derived from
the preset's resolved config rather than copied from it.
"""

import json
import math

import pytest

from xlssd.config import load_config

PINNED = ("timing.read_us=50", "timing.cmd_ns=0", "timing.dram_ns=200", "precondition.occupancy=0.5")
CFG = load_config(preset="tiny", sets=PINNED)
GEO = CFG["geometry"]
PAGE = GEO["page_size"]
PHYSICAL = math.prod(
    GEO[k] for k in ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die", "blocks_per_plane", "pages_per_block")
)
LOGICAL = math.floor(PHYSICAL * (1 - CFG["ftl"]["overprovisioning"]))
MAPPED = round(0.5 * LOGICAL)  # logical pages 0 .. MAPPED - 1 hold data before the run
XFER_NS = math.ceil(PAGE * 1e9 / (CFG["channel"]["rate_mts"] * 1e6 * CFG["channel"]["width_bits"] / 8))
IDLE_READ_US = (50_000 + XFER_NS) / 1000
DRAM_NS = 200
FIXED_TIMING = tuple(arg for item in PINNED for arg in ("--set", item))

MSR_HEADER = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
T0 = 128166372000000000  # Windows filetime ticks of 100 ns
MS = 10_000  # ticks per millisecond
UNMAPPED_PAGE = (MAPPED + LOGICAL) // 2  # never written: above the preconditioned half


def replay(cli, trace, out, *extra):
    """Runs a trace quietly on the tiny preset; returns (process, report or None)."""
    p = cli("run", "--trace", str(trace), *FIXED_TIMING, "--json", str(out), "--quiet", "--no-wall-clock", *extra)
    report = json.loads(out.read_text()) if out.exists() else None
    return p, report


def assert_rejected(p, report, out, *fragments):
    """A replay that stopped on bad input: exit 2, every fragment in the error, no
    traceback, and no report written."""
    assert p.returncode == 2, p.stderr
    for fragment in fragments:
        assert fragment in p.stderr, (fragment, p.stderr)
    assert "Traceback" not in p.stderr
    assert report is None and not out.exists()


def msr_trace(tmp_path):
    """Header, a comment and a blank line, then three requests 10 ms apart:
    - a one-page read at offset 0 (page 0, preconditioned data),
    - a one-page read at the byte offset of a logical page above the preconditioned half,
      so it is materialised (read as sectors instead of bytes, the offset would lie far
      beyond the device),
    - a 6,000-byte write at byte offset 4,196: sectors 8 to 19 (12 sectors, 6,144 bytes),
      logical pages 1 and 2 of 4 KiB."""
    assert PAGE == 4096, "the write below is laid out for 4 KiB pages"
    path = tmp_path / "msr.csv"
    path.write_text(
        f"{MSR_HEADER}\n"
        "# written by the test\n"
        "\n"
        f"{T0},hm,0,Read,0,{PAGE},1331\n"
        f"{T0 + 10 * MS},hm,1,Read,{UNMAPPED_PAGE * PAGE},{PAGE},90\n"
        f"{T0 + 20 * MS}, hm , 0 , write , 4196 , 6000 , 7\n"
    )
    return path


def blkparse_trace(tmp_path):
    """Queued events at 0, 10 ms and 20 ms with the other actions of their life cycle, a
    merge, a flush without data, a discard, and blkparse's closing summary."""
    path = tmp_path / "sda.txt"
    path.write_text(
        "  8,0    0        1     0.000000000  4162  Q   R 0 + 8 [fio]\n"
        "  8,0    0        2     0.000000500  4162  G   R 0 + 8 [fio]\n"
        "  8,0    0        3     0.000001000  4162  I   R 0 + 8 [fio]\n"
        "  8,0    0        4     0.000002000  4162  D   R 0 + 8 [fio]\n"
        "  8,0    0        5     0.000070000     0  C   R 0 + 8 [0]\n"
        "  8,0    1        6     0.005000000  4162  Q FWS [kworker/1:1H]\n"
        "  8,0    1        7     0.006000000  4162  Q   D 4096 + 8 [fstrim]\n"
        "  8,0    1        8     0.010000000  4162  Q  WS 16 + 16 [fio]\n"
        "  8,0    1        9     0.010000400  4162  M  WS 32 + 8 [fio]\n"
        "  8,0    1       10     0.010001000  4162  D  WS 16 + 16 [fio]\n"
        "  8,0    0       11     0.020000000  4162  Q  RA 8 + 8 [fio]\n"
        "  8,0    0       12     0.020000100  4162  D  RA 8 + 8 [fio]\n"
        "CPU0 (8,0):\n"
        " Reads Queued:           2,        8KiB\t Writes Queued:           1,        8KiB\n"
        " Read Dispatches:        2,        8KiB\t Write Dispatches:        1,        8KiB\n"
        "Total (8,0):\n"
        " Reads Queued:           2,        8KiB\t Writes Queued:           1,        8KiB\n"
        "Throughput (R/W): 0KiB/s / 0KiB/s\n"
        "Events (8,0): 12 entries\n"
        "Skips: 0 forward (0 -   0.0%)\n"
    )
    return path


# --------------------------------------------------------------------------------------
# MSR Cambridge CSV


def test_msr_trace_converts_ticks_and_byte_offsets(cli, tmp_path):
    p, r = replay(cli, msr_trace(tmp_path), tmp_path / "r.json")
    assert p.returncode == 0, p.stderr
    host, ftl = r["host"], r["ftl"]
    assert (host["read"]["count"], host["write"]["count"], host["all"]["count"]) == (2, 1, 3)
    assert r["sim"]["requests"] == 3
    assert host["read"]["bytes"] == 2 * PAGE
    assert host["write"]["bytes"] == 12 * 512, "an unaligned write covers every sector it touches"
    assert ftl["host_pages_read"] == 2
    assert ftl["host_pages_written"] == 2
    assert ftl["materialized_pages"] == 1, "only the second read finds no data"
    assert ftl["logical_pages"] == LOGICAL
    # Arrivals 10 ms apart (100,000 ticks): each read finds the device idle.
    assert host["read"]["latency_us"]["max"] == pytest.approx(IDLE_READ_US, abs=1e-3)
    assert host["read"]["latency_us"]["mean"] == pytest.approx(IDLE_READ_US, abs=1e-3)
    assert host["write"]["latency_us"]["max"] == pytest.approx(DRAM_NS / 1000, abs=1e-3)
    # From the first arrival (rebased to 0) to the write's completion at 20 ms + 200 ns.
    assert host["span_ns"] == 20_000_000 + DRAM_NS
    assert r["sim"]["skipped_lines"] == 0
    assert r["workload"]["format"] == "msr", "the report names the detected format"


def test_msr_time_scale_and_closed_loop_change_only_the_timing(cli, tmp_path):
    trace = msr_trace(tmp_path)
    _, open_loop = replay(cli, trace, tmp_path / "open.json")
    p, faster = replay(cli, trace, tmp_path / "fast.json", "--set", "host.time_scale=0.5")
    assert p.returncode == 0, p.stderr
    assert faster["host"]["span_ns"] == 10_000_000 + DRAM_NS
    p, closed = replay(cli, trace, tmp_path / "closed.json", "--set", 'host.replay="closed"')
    assert p.returncode == 0, p.stderr
    # Closed loop ignores the timestamps: all three requests are submitted at once.
    assert closed["host"]["span_ns"] < 1_000_000
    for r in (faster, closed):
        for key in ("read", "write"):
            assert r["host"][key]["count"] == open_loop["host"][key]["count"]
            assert r["host"][key]["bytes"] == open_loop["host"][key]["bytes"]
        assert r["ftl"]["host_pages_written"] == open_loop["ftl"]["host_pages_written"]


def test_msr_offsets_beyond_the_device_stop_unless_wrapped(cli, tmp_path):
    trace = tmp_path / "far.csv"
    far = 2 * LOGICAL * PAGE  # twice the logical capacity, in bytes
    trace.write_text(f"{MSR_HEADER}\n{T0},hm,0,Read,0,4096,1\n{T0 + MS},hm,0,Write,{far},4096,1\n")
    out = tmp_path / "r.json"
    p, r = replay(cli, trace, out)
    assert_rejected(p, r, out, "request 1", "beyond the logical capacity")
    p, r = replay(cli, trace, out, "--address-mode", "wrap")
    assert p.returncode == 0, p.stderr
    assert (r["host"]["read"]["count"], r["host"]["write"]["count"]) == (1, 1)


# --------------------------------------------------------------------------------------
# blkparse


def test_blkparse_replays_only_queued_events_with_data(cli, tmp_path):
    p, r = replay(cli, blkparse_trace(tmp_path), tmp_path / "r.json")
    assert p.returncode == 0, p.stderr
    host, ftl = r["host"], r["ftl"]
    # Q R 0+8 and Q RA 8+8 are reads, Q WS 16+16 a write; the flush without data, the
    # discard, the other actions and the summary are not requests.
    assert (host["read"]["count"], host["write"]["count"]) == (2, 1)
    assert host["read"]["bytes"] == 2 * 8 * 512
    assert host["write"]["bytes"] == 16 * 512
    assert ftl["host_pages_read"] == 2  # pages 0 and 1
    assert ftl["host_pages_written"] == 2  # sectors 16-31: pages 2 and 3
    assert r["sim"]["skipped_lines"] == 0, "lines a format does not replay are not malformed"
    # Seconds with nine decimals: arrivals at 0, 10 ms and 20 ms; both reads find the
    # device idle, and the last one ends the span.
    assert host["read"]["latency_us"]["max"] == pytest.approx(IDLE_READ_US, abs=1e-3)
    assert host["read"]["latency_us"]["mean"] == pytest.approx(IDLE_READ_US, abs=1e-3)
    assert host["span_ns"] == 20_000_000 + 50_000 + XFER_NS
    assert r["workload"]["format"] == "blkparse"


# --------------------------------------------------------------------------------------
# Format detection


def test_detected_and_explicit_formats_give_the_same_run(cli, tmp_path):
    for trace, fmt in ((msr_trace(tmp_path), "msr"), (blkparse_trace(tmp_path), "blkparse")):
        _, detected = replay(cli, trace, tmp_path / f"{fmt}-detected.json")
        p, explicit = replay(cli, trace, tmp_path / f"{fmt}-explicit.json", "--format", fmt)
        assert p.returncode == 0, p.stderr
        assert detected["workload"]["format"] == explicit["workload"]["format"] == fmt
        for section in ("host", "ftl", "nand"):
            assert explicit[section] == detected[section], f"{fmt}: {section} differs"


def test_explicit_format_is_honoured_even_when_wrong(cli, tmp_path):
    msr, blk = msr_trace(tmp_path), blkparse_trace(tmp_path)
    # MSR lines are not blkparse events (no `maj,min` first field): nothing to replay,
    # which is an error rather than an empty report.
    p, r = replay(cli, msr, tmp_path / "a.json", "--format", "blkparse")
    assert p.returncode == 2, p.stderr
    assert f"{msr}: no requests to replay" in p.stderr
    assert r is None
    # Read as MQSim, the MSR header (line 1) is malformed.
    out = tmp_path / "b.json"
    p, r = replay(cli, msr, out, "--format", "mqsim")
    assert p.returncode == 2
    assert f"{msr}:1:" in p.stderr and "Timestamp" in p.stderr
    assert r is None
    # Read as MSR, the first blkparse event has two comma-separated fields.
    p, r = replay(cli, blk, out, "--format", "msr")
    assert p.returncode == 2
    assert f"{blk}:1:" in p.stderr and "only 2 fields" in p.stderr
    assert r is None


def test_undetectable_trace_asks_for_a_format(cli, tmp_path):
    trace = tmp_path / "notes.txt"
    trace.write_text("# comment\nsome notes\nabout nothing\n")
    out = tmp_path / "r.json"
    p, r = replay(cli, trace, out)
    assert_rejected(p, r, out, str(trace), "--format")


# --------------------------------------------------------------------------------------
# Malformed lines


MSR_BAD = [
    # (line text, what the message names)
    (f"{T0 + 30 * MS},hm,0,Trim,0,4096,1", "Trim"),
    (f"{T0 + 31 * MS},hm,0,Read,0,4096", "only 6 fields"),
    (f"{T0 + 32 * MS},hm,0,Read,-8,4096,1", "Offset"),
    (f"{T0 + 33 * MS},hm,0,Write,0,0,1", "Size is 0"),
]


@pytest.mark.parametrize("bad,message", MSR_BAD)
def test_malformed_msr_line_names_file_and_line(cli, tmp_path, bad, message):
    trace = msr_trace(tmp_path)
    # Lines 1-6 are good (header, comment, blank, three requests); the bad one is line 7.
    trace.write_text(trace.read_text() + bad + "\n" + f"{T0 + 40 * MS},hm,0,Read,4096,4096,1\n")
    out = tmp_path / "r.json"
    p, r = replay(cli, trace, out)
    assert_rejected(p, r, out, f"{trace}:7:", message)


def test_skip_bad_lines_counts_malformed_msr_lines(cli, tmp_path):
    trace = msr_trace(tmp_path)
    bad = "\n".join(line for line, _ in MSR_BAD)
    trace.write_text(trace.read_text() + bad + "\n" + f"{T0 + 40 * MS},hm,0,Read,4096,4096,1\n")
    p, r = replay(cli, trace, tmp_path / "r.json", "--skip-bad-lines")
    assert p.returncode == 0, p.stderr
    assert r["sim"]["skipped_lines"] == len(MSR_BAD)
    assert (r["host"]["read"]["count"], r["host"]["write"]["count"]) == (3, 1)


BLK_BAD = [
    ("  8,0    0       20     0.030000000  4162  Q   R 64 + x [fio]", "count `x`"),
    ("  8,0    0       21     0.0x1  4162  Q   R 64 + 8 [fio]", "time `0.0x1`"),
    ("  8,0    0       22     0.032000000  4162  Q   S 64 + 8 [fio]", "neither a read"),
    ("  8,0    0       23     0.033000000  4162  Q   R 64 - 8 [fio]", "sector + count"),
    ("  8,0    0       24     0.034000000", "missing pid"),
]


@pytest.mark.parametrize("bad,message", BLK_BAD)
def test_malformed_blkparse_event_names_file_and_line(cli, tmp_path, bad, message):
    trace = tmp_path / "sda.txt"
    good = blkparse_trace(tmp_path).read_text().splitlines()
    # The bad event goes right after the 12 event lines, as line 13.
    lines = good[:12] + [bad] + good[12:]
    trace.write_text("\n".join(lines) + "\n")
    out = tmp_path / "r.json"
    p, r = replay(cli, trace, out)
    assert_rejected(p, r, out, f"{trace}:13:", message)


def test_skip_bad_lines_counts_malformed_blkparse_events(cli, tmp_path):
    trace = tmp_path / "sda.txt"
    good = blkparse_trace(tmp_path).read_text().splitlines()
    # Malformed events among good ones; a malformed line with another action is not
    # checked, so it is not counted.
    extra = [bad for bad, _ in BLK_BAD] + ["  8,0    0       30     zz  4162  C   R garbage"]
    trace.write_text("\n".join(good[:12] + extra + good[12:]) + "\n")
    p, r = replay(cli, trace, tmp_path / "r.json", "--skip-bad-lines")
    assert p.returncode == 0, p.stderr
    assert r["sim"]["skipped_lines"] == len(BLK_BAD)
    assert (r["host"]["read"]["count"], r["host"]["write"]["count"]) == (2, 1)


# --------------------------------------------------------------------------------------
# UMass / SPC CSV


def spc_trace(tmp_path):
    """A one-page read of page 0 at 1 s, a one-page read of a never-written page 10 ms
    later (ASU 1), and a 3,584-byte write (7 sectors) at sector 8 after another 10 ms."""
    assert PAGE == 4096, "the requests below are laid out for 4 KiB pages"
    path = tmp_path / "financial.spc"
    path.write_text(
        f"0,0,{PAGE},r,1.000000\n"
        f"1,{UNMAPPED_PAGE * 8},{PAGE},R,1.010000\n"
        "0, 8 ,3584,w,1.020000,extra\n"
    )
    return path


def test_spc_trace_is_detected_and_converts_blocks_bytes_and_seconds(cli, tmp_path):
    trace = spc_trace(tmp_path)
    p, r = replay(cli, trace, tmp_path / "r.json")
    assert p.returncode == 0, p.stderr
    host, ftl = r["host"], r["ftl"]
    assert (host["read"]["count"], host["write"]["count"]) == (2, 1)
    assert host["write"]["bytes"] == 7 * 512
    assert (ftl["host_pages_read"], ftl["host_pages_written"], ftl["materialized_pages"]) == (2, 1, 1)
    assert host["read"]["latency_us"]["max"] == pytest.approx(IDLE_READ_US, abs=1e-3)
    # Seconds from the first arrival: the write arrives 20 ms after the first read.
    assert host["span_ns"] == 20_000_000 + DRAM_NS
    _, explicit = replay(cli, trace, tmp_path / "e.json", "--format", "spc")
    assert explicit["host"] == host and explicit["workload"]["format"] == "spc"


@pytest.mark.parametrize(
    "bad,message",
    [("0,16,4096,t,1.03", "Opcode `t` is neither r nor w"), ("0,16,4096,r", "only 4 fields"), ("0,16,0,w,1.03", "Size is 0"),
     ("0,16,4096,r,1e2", "Timestamp")],
)
def test_malformed_spc_line_names_file_and_line(cli, tmp_path, bad, message):
    trace = spc_trace(tmp_path)
    trace.write_text(trace.read_text() + bad + "\n" + "0,24,4096,r,1.05\n")
    out = tmp_path / "r.json"
    p, r = replay(cli, trace, out, "--format", "spc")
    assert_rejected(p, r, out, f"{trace}:4:", message)


# --------------------------------------------------------------------------------------
# Alibaba Cloud and SYSTOR '17 CSV


ALIBABA_T0 = 1_577_808_000_000_000  # microseconds since the Unix epoch
SYSTOR_HEADER = "Timestamp,Response,IOType,LUN,Offset,Size"


def alibaba_trace(tmp_path):
    """The three requests of `msr_trace` in Alibaba's columns: timestamps in microseconds,
    offsets and lengths in bytes, lower-case w for the write, other volumes interleaved."""
    assert PAGE == 4096, "the write below is laid out for 4 KiB pages"
    path = tmp_path / "io_traces.csv"
    path.write_text(
        f"0,R,0,{PAGE},{ALIBABA_T0}\n"
        f"1,R,{UNMAPPED_PAGE * PAGE},{PAGE},{ALIBABA_T0 + 10_000}\n"
        f"0, w , 4196 , 6000 ,{ALIBABA_T0 + 20_000}\n"
    )
    return path


def systor_trace(tmp_path):
    """The three requests of `msr_trace` in SYSTOR's columns: a header, timestamps in
    seconds with six decimals, an empty response time, several LUNs."""
    assert PAGE == 4096, "the write below is laid out for 4 KiB pages"
    path = tmp_path / "systor.csv"
    path.write_text(
        f"{SYSTOR_HEADER}\n"
        f"1487348895.000000,0.000234,R,3,0,{PAGE}\n"
        f"1487348895.010000,,R,4,{UNMAPPED_PAGE * PAGE},{PAGE}\n"
        "1487348895.020000,0.5,w,3,4196,6000\n"
    )
    return path


CSV_TRACES = {"alibaba": alibaba_trace, "systor": systor_trace}


@pytest.mark.parametrize("fmt", CSV_TRACES)
def test_cloud_csv_trace_is_detected_and_converts_bytes_and_times(cli, tmp_path, fmt):
    trace = CSV_TRACES[fmt](tmp_path)
    p, r = replay(cli, trace, tmp_path / "r.json")
    assert p.returncode == 0, p.stderr
    host, ftl = r["host"], r["ftl"]
    assert (host["read"]["count"], host["write"]["count"]) == (2, 1)
    assert host["read"]["bytes"] == 2 * PAGE
    # 6,000 bytes from byte 4,196 (100 bytes into sector 8): sectors 8-19, pages 1 and 2.
    assert host["write"]["bytes"] == 12 * 512
    assert (ftl["host_pages_read"], ftl["host_pages_written"], ftl["materialized_pages"]) == (2, 2, 1)
    assert host["read"]["latency_us"]["max"] == pytest.approx(IDLE_READ_US, abs=1e-3)
    # Rebased to the first request: the write arrives 20 ms after it.
    assert host["span_ns"] == 20_000_000 + DRAM_NS
    assert r["sim"]["skipped_lines"] == 0
    assert r["workload"]["format"] == fmt
    p, explicit = replay(cli, trace, tmp_path / "e.json", "--format", fmt)
    assert p.returncode == 0, p.stderr
    assert explicit["host"] == host and explicit["ftl"] == ftl and explicit["workload"]["format"] == fmt


ALIBABA_BAD = [
    # (line text, what the message names)
    ("0,R,0,4096", "only 4 fields; expected 5"),
    (f"0,T,0,4096,{ALIBABA_T0 + 30_000}", "opcode `T` is neither R nor W"),
    (f"0,R,4k,4096,{ALIBABA_T0 + 31_000}", "offset `4k` is not a non-negative integer"),
    (f"0,W,0,0,{ALIBABA_T0 + 32_000}", "length is 0 bytes"),
    ("0,R,0,4096,-1", "timestamp `-1` is not a non-negative integer"),
    ("0,R,0,4096,1577808000.03", "timestamp `1577808000.03`"),
]

SYSTOR_BAD = [
    ("1487348895.030000,,R,3,0", "only 5 fields; expected 6"),
    ("1487348895.031000,,D,3,0,4096", "IOType `D` is neither R nor W"),
    ("1487348895.032000,,R,3,0x0,4096", "Offset `0x0` is not a non-negative integer"),
    ("1487348895.033000,,W,3,0,0", "Size is 0 bytes"),
    ("-1487348895.034,,R,3,0,4096", "Timestamp: time `-1487348895.034` is not a number of seconds"),
    ("yesterday,,R,3,0,4096", "Timestamp: time `yesterday`"),
]

CSV_BAD = {"alibaba": ALIBABA_BAD, "systor": SYSTOR_BAD}
CSV_GOOD_LAST = {"alibaba": f"5,R,4096,4096,{ALIBABA_T0 + 40_000}", "systor": "1487348895.040000,,R,5,4096,4096"}


@pytest.mark.parametrize("fmt,bad,message", [(fmt, *case) for fmt, cases in CSV_BAD.items() for case in cases])
def test_malformed_cloud_csv_line_names_file_and_line(cli, tmp_path, fmt, bad, message):
    trace = CSV_TRACES[fmt](tmp_path)
    text = trace.read_text()
    line = text.count("\n") + 1
    trace.write_text(f"{text}{bad}\n{CSV_GOOD_LAST[fmt]}\n")
    out = tmp_path / "r.json"
    p, r = replay(cli, trace, out, "--format", fmt)
    assert_rejected(p, r, out, f"{trace}:{line}: {message}")


@pytest.mark.parametrize("fmt", CSV_TRACES)
def test_skip_bad_lines_counts_malformed_cloud_csv_lines(cli, tmp_path, fmt):
    trace = CSV_TRACES[fmt](tmp_path)
    bad = "\n".join(line for line, _ in CSV_BAD[fmt])
    trace.write_text(f"{trace.read_text()}{bad}\n{CSV_GOOD_LAST[fmt]}\n")
    p, r = replay(cli, trace, tmp_path / "r.json", "--skip-bad-lines")
    assert p.returncode == 0, p.stderr
    assert r["workload"]["format"] == fmt, "bad lines after the first do not sway detection"
    assert r["sim"]["skipped_lines"] == len(CSV_BAD[fmt])
    assert (r["host"]["read"]["count"], r["host"]["write"]["count"]) == (3, 1)


@pytest.mark.parametrize("fmt", CSV_TRACES)
def test_empty_cloud_csv_trace_is_refused(cli, tmp_path, fmt):
    trace = tmp_path / "empty.csv"
    trace.write_text("")
    out = tmp_path / "r.json"
    p, r = replay(cli, trace, out, "--format", fmt)
    assert_rejected(p, r, out, f"{trace}: no requests to replay: the trace is empty")
