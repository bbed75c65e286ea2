"""Bad inputs the core refuses: times and rates whose nanoseconds overflow or vanish, NaN
and infinities in configs, traces that are endless, empty, binary or arrive beyond the
simulated-time limit, control bytes quoted from an input, workload specs with odd numbers,
and the ECC and physics calculators (see badinput.py for what each case asserts)."""

from __future__ import annotations

import os

import pytest

from badinput import NO_ESC, Bad, params, run_case

RUN = ("run", "--preset", "tiny", "--quiet")
SMALL = ("--workload", "n=20")
HEADER = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
LONG = "1" * (64 * 1024 + 10)
BLK = "  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]\n"
# Bytes no trace holds: NUL, a lone UTF-8 continuation byte, control bytes, line breaks.
GARBAGE = bytes((i * 37 + 11) % 256 for i in range(3000))


def run(*sets: str, workload: tuple[str, ...] = SMALL) -> tuple[str, ...]:
    out: list[str] = [*RUN, *workload]
    for s in sets:
        out += ["--set", s]
    return tuple(out)


def trace(name: str, *extra: str) -> tuple[str, ...]:
    return (*RUN, "--trace", name, *extra)


def fifo(name: str):
    return lambda d: os.mkfifo(d / name)


CASES = [
    # Times and rates: nanoseconds that do not fit, or round to nothing.
    Bad("read-us-overflows", run("timing.read_us=2e16"), r"`timing\.read_us`: value 2e16 is out of range.*one year"),
    Bad("read-us-rounds-to-0-ns", run("timing.read_us=1e-12"), r"`timing\.read_us`: value 1e-12 rounds to 0 ns"),
    Bad("program-us-per-type-overflows", run("timing.program_us=[300,1e17]"), r"`timing\.program_us`: value 1e17"),
    Bad("erase-us-rounds-to-0-ns", run("timing.erase_us=1e-4"), r"`timing\.erase_us`: value 0\.0001 rounds to 0 ns"),
    Bad("erase-suspend-us-overflows", run("timing.erase_suspend=true", "timing.erase_suspend_us=1e15"),
        r"`timing\.erase_suspend_us`.*microseconds"),
    Bad("channel-rate-vanishing", run("channel.rate_mts=1e-300"), r"`channel\.rate_mts`: value 1e-300.*longer than a year"),
    Bad("channel-rate-overflowing", run("channel.rate_mts=1e305"), r"`channel\.rate_mts`: value 1e305.*no time at all"),
    Bad("host-rate-vanishing", run("host.interface_gbps=1e-300"), r"`host\.interface_gbps`: value 1e-300.*largest request"),
    Bad("host-rate-overflowing", run("host.interface_gbps=1e300"), r"`host\.interface_gbps`: value 1e300.*no time at all"),
    Bad("interarrival-beyond-a-year", run(workload=("--workload", "iodepth=0,interarrival_us=1e20,n=20")),
        r"`workload\.interarrival_us`: value 1e20 is out of range"),
    Bad("interarrivals-span-beyond-the-limit", run(workload=("--workload", "iodepth=0,interarrival_us=3e13,n=1000000")),
        r"`workload\.interarrival_us`.*simulated-time limit"),
    Bad("interarrivals-scaled-beyond-the-limit",
        run("host.time_scale=1e15", workload=("--workload", "iodepth=0,interarrival_us=1000,n=100")),
        r"`workload\.interarrival_us`.*host\.time_scale = 1e15.*simulated-time limit"),
    Bad("ldpc-soft-levels-unbounded", run("ecc.ldpc.soft_levels=1000000000"), r"`ecc\.ldpc\.soft_levels`.*at most 64"),
    Bad("ldpc-soft-levels-take-years", run("ecc.ldpc.soft_us=1e13"), r"`ecc\.ldpc\.soft_us`: value 1e13.*6 soft levels take at most a year"),
    Bad("bch-clock-too-slow", run("ecc.bch.clock_mhz=1e-12"), r"`ecc\.bch\.clock_mhz`.*less than a year"),
    # NaN and infinities: say what is wrong and what was expected.
    Bad("nan-read-us", run("timing.read_us=nan"), r"`timing\.read_us`: value NaN is not a finite number: expected a finite number > 0"),
    Bad("nan-in-per-type-list", run("timing.read_us=[40,nan]"), r"`timing\.read_us`: value NaN is not a finite number"),
    Bad("minus-inf-erase-us", run("timing.erase_us=-inf"), r"`timing\.erase_us`: value -inf is not a finite number"),
    Bad("inf-overprovisioning", run("ftl.overprovisioning=inf"),
        r"`ftl\.overprovisioning`: value inf is not a finite number: expected a fraction in \(0, 1\)"),
    Bad("nan-gc-threshold", run("gc.threshold=nan"), r"`gc\.threshold`: value NaN is not a finite number: expected a fraction"),
    Bad("nan-time-scale", run("host.time_scale=nan"), r"`host\.time_scale`: value NaN is not a finite number"),
    Bad("nan-grid-step", run("physics.vth.grid_step_v=nan"), r"`physics\.vth\.grid_step_v`: value NaN is not a finite number"),
    Bad("nan-target-uber", run("ecc.target_uber=nan"), r"`ecc\.target_uber`: value NaN is not a finite number: expected a probability"),
    Bad("nan-in-config-file", ("run", "--config", "c.toml", "--quiet", *SMALL),
        r"`ftl\.overprovisioning`: value NaN is not a finite number: expected a fraction in \(0, 1\)",
        files={"c.toml": 'base = "tiny"\n[ftl]\noverprovisioning = nan\n'}),
    # Traces that never end, have no requests, or are not traces.
    Bad("dev-zero-detected", trace("/dev/zero"), r"/dev/zero:1: line is longer than 65536 bytes", timeout=30),
    Bad("dev-zero-as-mqsim", trace("/dev/zero", "--format", "mqsim", "--skip-bad-lines"),
        r"/dev/zero:1: line is longer than 65536 bytes", timeout=30),
    Bad("overlong-mqsim-line", trace("t.trace"), r"t\.trace:2: line is longer than 65536 bytes",
        files={"t.trace": f"1 0 0 8 0\n{LONG}\n2 0 8 8 1\n"}),
    Bad("overlong-msr-line", trace("t.csv", "--format", "msr"), r"t\.csv:2: line is longer than 65536 bytes",
        files={"t.csv": f"{HEADER}{LONG}\n"}),
    Bad("overlong-blkparse-line", trace("t.blk", "--format", "blkparse", "--skip-bad-lines"),
        r"t\.blk:2: line is longer than 65536 bytes", files={"t.blk": f"{BLK}{LONG}"}),
    Bad("empty-trace", trace("t.trace", "--format", "mqsim"), r"t\.trace: no requests to replay: the trace is empty",
        files={"t.trace": ""}),
    Bad("empty-trace-detected", trace("t.trace"), r"t\.trace: has no trace lines to detect the format from",
        files={"t.trace": ""}),
    Bad("header-only-msr", trace("t.csv"), r"t\.csv: no requests to replay: none of its 1 line", files={"t.csv": HEADER}),
    Bad("comments-only-trace", trace("t.trace", "--format", "mqsim"), r"t\.trace: no requests to replay: none of its 3 line",
        files={"t.trace": "# a trace\n\n# with nothing in it\n"}),
    Bad("blkparse-without-queue-events", trace("t.blk"), r"t\.blk: no requests to replay",
        files={"t.blk": BLK.replace(" Q ", " C ") * 3}),
    Bad("every-line-skipped", trace("t.trace", "--format", "mqsim", "--skip-bad-lines"),
        r"t\.trace: no requests to replay: 2 of its 2 line\(s\) were malformed",
        files={"t.trace": "x y\n1 0 0 0 0\n"}),
    Bad("binary-garbage-detected", trace("g.bin"), r"g\.bin: cannot detect the trace format", files={"g.bin": GARBAGE}),
    Bad("binary-garbage-as-mqsim", trace("g.bin", "--format", "mqsim"), NO_ESC + r".*g\.bin:1: line is not valid UTF-8",
        files={"g.bin": GARBAGE}),
    Bad("fifo-without-writer", trace("f", "--format", "mqsim"), r"f: no requests to replay: the trace is empty",
        prepare=fifo("f"), timeout=30),
    Bad("fifo-without-writer-detected", trace("f"), r"f: has no trace lines", prepare=fifo("f"), timeout=30),
    Bad("directory-as-trace", trace("d"), r"d: cannot read trace from a directory", prepare=lambda d: (d / "d").mkdir()),
    Bad("arrival-near-2-pow-63", trace("t.trace"), r"t\.trace:2: arrives 9223372036854775000 ns after the first request",
        files={"t.trace": "0 0 0 8 0\n9223372036854775000 0 8 8 1\n"}),
    Bad("arrival-scaled-beyond-the-limit", (*trace("t.trace"), "--set", "host.time_scale=1e7"),
        r"t\.trace:3: .*host\.time_scale = 10000000: beyond the simulated-time limit",
        files={"t.trace": "5 0 0 8 0\n1000 0 8 8 1\n1000000000005 0 16 8 1\n"}),
    # Control bytes quoted from an input are escaped.
    Bad("escape-sequence-in-mqsim-line", trace("t.trace"), NO_ESC + r".*t\.trace:2: type `\\x1b\[2J` is neither",
        files={"t.trace": "1 0 0 8 0\n2 0 8 8 \x1b[2J\n"}),
    Bad("bell-in-msr-line", trace("t.csv"), NO_ESC + r".*t\.csv:2: Type `\\x07Read` is neither",
        files={"t.csv": f"{HEADER}1,h,0,\x07Read,0,512,1\n"}),
    # Program contexts and placement handles: trace columns and synthetic workload keys.
    Bad("mqsim-context-not-a-number", trace("t.trace"),
        r"t\.trace:2: context `ctx` is not a non-negative integer: `2 0 8 8 0 0 ctx`",
        files={"t.trace": "1 0 0 8 0 0 17 3\n2 0 8 8 0 0 ctx\n"}),
    Bad("mqsim-context-beyond-32-bits", trace("t.trace"), r"t\.trace:1: context `4294967296` is too large \(at most 4294967295\)",
        files={"t.trace": "1 0 0 8 0 0 4294967296\n"}),
    Bad("mqsim-handle-65535", trace("t.trace"),
        r"t\.trace:2: handle `65535` is not a placement handle: expected 0 to 65534, or - for none",
        files={"t.trace": "1 0 0 8 0 0 17 -\n2 0 8 8 0 0 17 65535\n"}),
    Bad("msr-context-not-a-number", trace("t.csv"), r"t\.csv:2: Context `app` is not a non-negative integer",
        files={"t.csv": f"{HEADER}1,h,0,Write,0,512,1,app,0\n"}),
    Bad("msr-handle-negative", trace("t.csv"), r"t\.csv:3: Handle `-1` is not a placement handle",
        files={"t.csv": f"{HEADER}1,h,0,Write,0,512,1,5,\n2,h,0,Write,0,512,1,5,-1\n"}),
    Bad("more-contexts-than-slots", run(workload=("--workload", "n=20,contexts=100000")),
        r"`workload\.contexts`: 100000 program contexts but only \d+ slots of 4096 bytes"),
    Bad("contexts-beyond-the-limit", run(workload=("--workload", "n=20,contexts=2000000")),
        r"`workload\.contexts`: value 2000000 is out of range: expected 0 \(none\) to 1048576"),
    Bad("handles-beyond-16-bits", run(workload=("--workload", "n=20,handles=65536")),
        r"`workload\.handles`: value 65536 is out of range: expected 0 \(none\) to 65535 placement handles"),
    Bad("context-skew-zero", run("workload.context_skew=0"),
        r"`workload\.context_skew`: value 0 is out of range: expected a finite number > 0"),
    Bad("escape-sequence-in-workload-spec", run(workload=("--workload", "rw=\x1b]0;title\x07")),
        NO_ESC + r".*`workload\.rw`: `\\x1b\]0;title\\x07` is not one of"),
    Bad("overlong-lba-ranges-file",
        run('scheme.name="approxftl"', "ftl.overprovisioning=0.3", 'scheme.approxftl.lba_ranges_file="r.txt"'),
        r"r\.txt:2: line is longer than 65536 bytes", files={"r.txt": f"0 8\n{LONG}\n"}),
    # Silent accepts: empty ranges and odd numbers.
    Bad("reversed-lba-range", run('scheme.name="approxftl"', "scheme.approxftl.lba_ranges=[[100,10]]"),
        r"`scheme\.approxftl\.lba_ranges\[0\]`: value \[100, 10\].*start < end"),
    Bad("empty-lba-range", run('scheme.name="approxftl"', "scheme.approxftl.lba_ranges=[[0,8],[5,5]]"),
        r"`scheme\.approxftl\.lba_ranges\[1\]`"),
    Bad("doubled-underscore-in-n", run(workload=("--workload", "n=1__0")), r"`workload\.n`: `1__0` is not a positive integer"),
    Bad("ungrouped-underscore-in-n", run(workload=("--workload", "n=1_0")), r"`workload\.n`: `1_0` is not"),
    Bad("underscore-in-size", run(workload=("--workload", "bs=4_0k")), r"`workload\.bs`: `4_0k` is not a size"),
    Bad("plus-sign-in-float", run(workload=("--workload", "rwmixread=+50")), r"`workload\.rwmixread`: `\+50` is not"),
    Bad("underscore-in-float", run(workload=("--workload", "span=0_5")), r"`workload\.span`: `0_5` is not"),
    Bad("infinity-in-spec", run(workload=("--workload", "zipf=infinity")), r"`workload\.zipf`: `infinity` is not"),
    Bad("arabic-digit-in-spec", run(workload=("--workload", "iodepth=\u0663")), r"`workload\.iodepth`: `\u0663` is not"),
    # Calculators.
    Bad("ecc-uber-t-beyond-the-code", ("ecc", "uber", "--rber", "1e-3", "--t", "100000000"),
        r"--t: value 100000000 is out of range: expected 0 to 4096"),
    Bad("ecc-uber-negative-t", ("ecc", "uber", "--rber", "1e-3", "--t", "-1"), r"--t: value -1 is out of range"),
    Bad("ecc-uber-huge-t", ("ecc", "uber", "--rber", "1e-3", "--t", "99999999999999999999999"),
        r"--t: value 99999999999999999999999 is out of range"),
    Bad("ecc-uber-t-beyond-small-codeword", ("ecc", "uber", "--rber", "1e-3", "--t", "8", "--k", "1"),
        r"--t: value 8 is out of range: expected 0 to 7"),
    Bad("ecc-required-t-negative-k", ("ecc", "required-t", "--rber", "1e-3", "--uber", "1e-13", "--k", "-5"),
        r"--k: value -5 is out of range"),
    Bad("ecc-uber-zero-k", ("ecc", "uber", "--rber", "1e-3", "--t", "1", "--k", "0"), r"--k: value 0 is out of range"),
    Bad("ecc-required-t-field-too-small", ("ecc", "required-t", "--rber", "1e-3", "--uber", "1e-13", "--m", "3"),
        r"--m: GF\(2\^3\) codewords hold at most 7 bits"),
    Bad("physics-negative-page-type", ("physics", "rber", "--model", "vth", "--page-type", "-1"),
        r"--page-type: value -1 is out of range: expected 0 to 2"),
    Bad("bch-t-beyond-the-codeword", run('ecc.scheme="bch"', "ecc.bch.k_bytes=8", "ecc.bch_t=100"),
        r"`ecc\.bch_t`: value 100 is out of range: expected 0 \(adaptive\) or at most 63"),
    # Seed 001's decoder and access modes.
    Bad("bch-t-beyond-the-decoder", run('ecc.scheme="bch"', "ecc.bch_t=94"),
        r"`ecc\.bch_t`: value 94 is out of range: expected 0 \(adaptive\) or at most ecc\.bch\.t_max \(93\)"),
    Bad("bch-t-max-zero", run('ecc.scheme="bch"', "ecc.bch.t_max=0"), r"`ecc\.bch\.t_max`: value 0 is out of range: expected 1 to 4096"),
    Bad("bch-power-saving-above-one", run("ecc.bch.decode_power_saving=1.5"),
        r"`ecc\.bch\.decode_power_saving`: value 1\.5 is out of range: expected a fraction in \[0, 1\]"),
    Bad("access-modes-shares", run('scheme.name="access-modes"', 'ecc.scheme="bch"', 'physics.model="power-law"',
                                   "scheme.access_modes.reduced.share=0.5"),
        r"`scheme\.access_modes\.standard\.share`.*add up to 1 \(they add up to 1\.5\)"),
    Bad("access-modes-unknown-service-key", run('scheme.name="access-modes"', "scheme.access_modes.reduced.ubr=1e-11"),
        r"`scheme\.access_modes.*unknown field `ubr`"),
    # The access modes keep a free block per service for cleaning: tiny needs more spare
    # room than its 7% for them, which is refused first.
    Bad("access-modes-need-bch", run('scheme.name="access-modes"', 'physics.model="power-law"',
                                     "ftl.overprovisioning=0.1"),
        r"`ecc\.scheme`.*scheme `access-modes` sizes each page's BCH code"),
    Bad("fixed-t-beyond-the-decoder", run('scheme.name="fixed-t"', 'ecc.scheme="bch"', 'physics.model="power-law"',
                                          "ftl.overprovisioning=0.1", "scheme.access_modes.fixed_t=120"),
        r"`scheme\.access_modes\.fixed_t`: value 120 is above ecc\.bch\.t_max \(93\)"),
]


@pytest.mark.parametrize("case", params(CASES))
def test_bad_input(case: Bad, tmp_path):
    folder = tmp_path / "case"
    folder.mkdir()
    run_case(case, folder)
