"""The Filebench personalities of seed 001's evaluation (varmail, webserver, videoserver)."""

import numpy as np
import pytest

from xlssd.reproduce import filebench_workloads as fb


def runs(lpn: np.ndarray) -> np.ndarray:
    """Lengths of the runs of consecutive page numbers."""
    breaks = np.flatnonzero(np.diff(lpn) != 1)
    return np.diff(np.concatenate(([0], breaks + 1, [len(lpn)])))


def test_table_v_ratios_agree_with_its_counts():
    for p in fb.PERSONALITIES:
        c = fb.TABLE_V_COUNTS[p]
        assert c["reads"] / c["writes"] == pytest.approx(fb.TABLE_V[p], rel=5e-3)  # Table V rounds


@pytest.mark.parametrize("seed", [2015, 7])
@pytest.mark.parametrize("personality", fb.PERSONALITIES)
def test_read_write_ratio_is_table_vs(personality, seed):
    a = fb.generate(personality, 30_000, seed=seed)
    assert fb.ratio(a) == pytest.approx(fb.TABLE_V[personality], rel=0.03)


def test_the_ratio_holds_on_every_prefix_from_20000_pages():
    # The generator decides each operation from the past only, so a prefix is a shorter run.
    for p in fb.PERSONALITIES:
        a = fb.generate(p, 40_000, seed=3)
        reads = np.cumsum(a["is_read"])[19_999:]
        writes = np.arange(20_000, 40_001) - reads
        assert np.all(np.abs(reads / writes / fb.TABLE_V[p] - 1) < 0.03), p
        short = fb.generate(p, 25_000, seed=3)
        assert np.array_equal(short["lpn"], a["lpn"][:25_000])


@pytest.mark.parametrize("personality", fb.PERSONALITIES)
def test_deterministic_for_a_seed(personality):
    a, b = fb.generate(personality, 5_000, seed=11), fb.generate(personality, 5_000, seed=11)
    c = fb.generate(personality, 5_000, seed=12)
    assert np.array_equal(a["lpn"], b["lpn"]) and np.array_equal(a["is_read"], b["is_read"])
    assert not np.array_equal(a["lpn"], c["lpn"])


@pytest.mark.parametrize("personality", fb.PERSONALITIES)
def test_exact_length_types_and_pages_within_the_span(personality):
    base, span = 123_456, 60_000
    a = fb.generate(personality, 20_001, seed=5, span_pages=span, base_page=base)
    assert len(a["lpn"]) == len(a["is_read"]) == 20_001
    assert a["lpn"].dtype == np.int64 and a["is_read"].dtype == bool
    assert a["lpn"].min() >= base and a["lpn"].max() < base + span
    # The base only shifts the pages.
    b = fb.generate(personality, 20_001, seed=5, span_pages=span)
    assert np.array_equal(a["lpn"] - base, b["lpn"]) and np.array_equal(a["is_read"], b["is_read"])


def test_videoserver_reads_are_long_sequential_runs():
    a = fb.generate("videoserver", 30_000)
    assert np.median(runs(a["lpn"][a["is_read"]])) > 8
    # The writer writes whole videos in 64-page pieces, of consecutive pages while the freed
    # video's pages are reused in order.
    assert np.median(runs(a["lpn"][~a["is_read"]])) >= fb.WRITE_PAGES


def test_varmail_writes_reuse_the_pages_deletes_free():
    a = fb.generate("varmail", 30_000)
    written = a["lpn"][~a["is_read"]]
    data = written[written >= fb.VARMAIL_FILES]  # beyond the metadata pages
    pages, counts = np.unique(data, return_counts=True)
    assert counts.max() >= 2
    # Thousands of data pages are written, yet hardly any beyond the initial file set: creates
    # and appends take the pages deleted files freed.
    beyond = np.count_nonzero(pages >= fb.footprint("varmail"))
    assert len(data) > 5_000 and beyond < 0.05 * len(data)


def test_webserver_reads_files_and_writes_only_its_log_which_wraps():
    span = fb.footprint("webserver") + 200
    a = fb.generate("webserver", 30_000, span_pages=span)
    read, written = a["lpn"][a["is_read"]], a["lpn"][~a["is_read"]]
    assert not np.intersect1d(read, written).size
    # About 11,800 log page writes go round a log region of a few hundred pages.
    assert len(written) > 10 * len(np.unique(written)) and len(np.unique(written)) < 300


def test_footprint_is_the_preconditioned_prefix():
    for p in fb.PERSONALITIES:
        used = fb.footprint(p)
        assert 0 < used <= fb.DEFAULT_SPAN
        a = fb.generate(p, 20_000)
        # Reads only touch the file set that was there before the run or written during it.
        first_reads = a["lpn"][a["is_read"]][:100]
        assert first_reads.max() < used


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown Filebench personality 'fileserver'"):
        fb.generate("fileserver", 100)
    with pytest.raises(ValueError, match="pages must be at least 1"):
        fb.generate("varmail", 0)
    for p in fb.PERSONALITIES:
        with pytest.raises(ValueError, match="span_pages=100 is too small"):
            fb.generate(p, 100, span_pages=100)
    with pytest.raises(ValueError, match="base_page"):
        fb.generate("webserver", 100, base_page=-1)


def test_write_trace_writes_one_4k_request_a_line(tmp_path):
    path = fb.write_trace(tmp_path / "sub" / "w.trace", "webserver", 2_000, seed=9, base_page=64)
    rows = np.array([[int(x) for x in line.split()] for line in path.read_text().splitlines()])
    assert rows.shape == (2_000, 5)
    a = fb.generate("webserver", 2_000, seed=9, base_page=64)
    assert np.array_equal(rows[:, 0], np.arange(2_000) * 1000)
    assert np.all(rows[:, 1] == 0) and np.all(rows[:, 3] == 8)
    assert np.all(rows[:, 2] % 8 == 0) and np.array_equal(rows[:, 2] // 8, a["lpn"])
    assert np.array_equal(rows[:, 4], a["is_read"].astype(int))
