"""`xlssd reproduce approxftl`: the quick run, and the workloads it generates."""

import json
import math

import pytest
from experiments_helpers import parquet_rows

from xlssd.reproduce import approxftl, approxftl_workloads as wl

FIGURES = {"fig5-write-rt", "fig7-read-rt", "fig8-write-cdf-img", "fig8-read-cdf-img", "fig9-energy",
           "fig10-lifetime", "fig11-waf", "fig6-block-types", "fig12-quality"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from conftest import run_cli

    out = tmp_path_factory.mktemp("approxftl") / "quick"
    return out, run_cli("reproduce", "approxftl", "--quick", "--out", str(out), "--jobs", "2")


def test_quick_run_has_every_claim_with_finite_values(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    table = json.loads((out / "comparison.json").read_text())
    assert [c["quantity"] for c in table] == [c.label for c in approxftl.EXPERIMENT.claims]
    assert all(math.isfinite(c["ours"]) for c in table), table
    # Every row is measured on these runs, output quality included, but for Sec. III-B's
    # two speed-ups, which the threshold-voltage model computes; the headline counts the
    # simulated rows on their own.
    computed = [c for c in table if c["kind"] == "computed"]
    assert [c["ref"] for c in computed] == ["Sec. III-B", "Sec. III-B"]
    assert {c["kind"] for c in table} == {"simulated", "computed"}
    simulated = [c for c in table if c["kind"] == "simulated"]
    within = sum(c["within_tolerance"] for c in simulated)
    computed_within = sum(c["within_tolerance"] for c in computed)
    headline = next(ln for ln in p.stdout.splitlines() if ln.startswith("simulated: "))
    assert headline == (f"simulated: {within} of {len(simulated)} within tolerance of the paper; "
                        f"computed: {computed_within} of 2 within tolerance")
    meta = json.loads((out / "experiment.json").read_text())
    assert meta["tally"] == {"simulated": {"within": within, "rows": len(simulated)},
                             "computed": {"within": computed_within, "rows": 2}}
    # A precise page no later program disturbs may take a coarser step than one whose later
    # neighbours are approximate, which may take a coarser one than sequential programming.
    chb, phase2 = (c["ours"] for c in computed)
    assert 0 < chb < phase2 < 100
    for line in ("write response time, ApproxFTL vs Baseline", "lifetime, ApproxFTL vs Baseline",
                 "energy, ApproxFTL vs Vth_b", "output quality"):
        assert line in p.stdout


def test_quick_run_writes_and_reads_faster_than_the_baseline(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    c = {c["quantity"]: c["ours"] for c in json.loads((out / "comparison.json").read_text())}
    assert c["write response time, ApproxFTL vs Baseline"] < -10
    assert c["read response time, ApproxFTL vs Baseline"] < 0
    # smm has the fewest approximate pages, vid among the most: the gain follows.
    assert c["write response time, ApproxFTL vs Baseline, vid"] < c["write response time, ApproxFTL vs Baseline, smm"]


def test_quick_run_writes_results_and_figures(quick, shared_traces):
    out, p = quick
    assert p.returncode == 0, p.stderr
    for name in ("comparison.txt", "comparison.md", "comparison.csv", "comparison.json", "experiment.json"):
        assert (out / name).is_file(), name
    assert {f.stem for f in (out / "figures").glob("*.png")} == FIGURES
    every = parquet_rows(out)
    assert all(r["status"] == "ok" for r in every)
    apps = {a.name for a in wl.APPS}
    setups = {(s["precondition.occupancy"], s["precondition.steady_state"]) for s in approxftl.SETUPS.values()}
    rows = [r for r in every if (r["config.precondition.occupancy"], r["config.precondition.steady_state"]) in setups
            and "@" not in r["workload_name"] and r["config.physics.vth.approx_dvpp_factor"] == 1.5
            and r["config.physics.retention_scale"] == 1.0]
    buffered = [r for r in rows if r["config.cache.capacity_bytes"] > 0]
    assert {r["workload_name"] for r in buffered} == apps
    assert all(r["config.cache.capacity_bytes"] == 128 * 2**20 for r in buffered)
    assert {r["workload_name"] for r in rows} == apps | {"tpcc", "wsrch"}
    rows = [r for r in rows if r["config.cache.capacity_bytes"] == 0]
    # Four schemes and ApproxFTL with a GC pool of its own on nine workloads, on the aged
    # device (Figs. 5-10) and the filled one (Fig. 11); the seven applications again with the
    # DRAM buffer on (Fig. 9).
    assert len(rows) == 5 * 9 * 2 and len(buffered) == 5 * 7
    pools = {r["scheme"]: r.get("config.scheme.approxftl.gc_pool") for r in rows if "approxftl" in r["scheme"]}
    assert pools == {"approxftl": "ordinary", approxftl.SEPARATE_GC: "separate"}
    assert {(r["config.precondition.occupancy"], r["config.precondition.steady_state"]) for r in rows} == setups
    ftl = [r for r in rows if r["scheme"] == "approxftl" and r["workload_name"] in apps]
    assert all(r["approx.pages.approx"] > 0 for r in ftl)


def test_write_amplification_is_also_measured_across_its_assumptions(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    every = parquet_rows(out)
    apps = sorted(a.name for a in wl.APPS)
    # The other shares of small requests on the filled device, and the other fills with the
    # applications as generated: ApproxFTL and the baseline only.
    share_rows = [r for r in every if "@small" in r["workload_name"]]
    shares = [s for s in approxftl.SMALL_SHARES if s != wl.SMALL]
    assert sorted((r["workload_name"], r["scheme"]) for r in share_rows) == sorted(
        (approxftl.small_name(a, s), sch) for a in apps for s in shares for sch in ("baseline", "approxftl"))
    assert all(r["config.precondition.occupancy"] == 0.8 and not r["config.precondition.steady_state"]
               for r in share_rows)
    fills = [f for f in approxftl.FILLS if f != 0.8]
    fill_rows = [r for r in every if r["config.precondition.occupancy"] in fills]
    assert sorted((r["workload_name"], r["scheme"], r["config.precondition.occupancy"]) for r in fill_rows) == sorted(
        (a, sch, f) for a in apps for sch in ("baseline", "approxftl") for f in fills)
    # Each assumption is a row of the comparison, and the verdict says under how many the
    # paper's number holds.
    table = json.loads((out / "comparison.json").read_text())
    waf = [c for c in table if c["quantity"].startswith("write amplification, ApproxFTL vs Baseline")]
    # The headline row under the workloads as first stated (with copies in the pools' own
    # blocks and in a pool of their own), the later share beside it.
    assert len(waf) == 3 + len(shares) + len(fills)
    first = [r for r in every if r["workload_name"].endswith("@first-stated")]
    assert sorted((r["workload_name"], r["scheme"]) for r in first) == sorted(
        (approxftl.first_stated_name(a), sch) for a in apps for sch in ("baseline", "approxftl", approxftl.SEPARATE_GC))
    assert all(r["config.precondition.occupancy"] == 0.8 for r in first)
    held = sum(c["within_tolerance"] for c in waf)
    assert f"within tolerance under {held} of {len(waf)} assumptions" in p.stdout


def test_quick_run_has_the_physics_and_the_read_path_on(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    rows = [r for r in parquet_rows(out) if r["workload_name"] in {a.name for a in wl.APPS}]
    assert all(r["config.physics.model"] == "vth" and r["config.ecc.scheme"] == "ldpc" for r in rows)
    for r in rows:
        decoded, raw = r["reliability.decode.hard"], r["reliability.decode.raw"]
        # Every scheme decodes its precise pages; only the approximate schemes have pages
        # read raw, and every app reads some of its approximate data.
        assert decoded > 0, (r["scheme"], r["workload_name"])
        if r["scheme"] == "baseline":
            assert raw == 0, r["workload_name"]
        else:
            assert raw > 0, (r["scheme"], r["workload_name"])
    base = [r for r in rows if r["scheme"] == "baseline"]
    assert all(r["approx.pages.approx"] == 0 for r in base if "approx.pages.approx" in r and r["approx.pages.approx"] is not None)


def test_quality_comes_from_the_pages_the_scheme_placed(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    pages = approxftl.data_pages()
    apps = {a.name for a in wl.APPS}
    later = {approxftl.read_later_name(a) for a in apps}
    # (Refresh rewrites the data set precise where the retention clock runs fast: its own test.)
    rows = [r for r in parquet_rows(out) if r["workload_name"] in apps | later
            and r["config.physics.retention_scale"] == 1.0]
    assert rows and all(r["payload.final_read.enabled"] for r in rows)
    for r in rows:
        where = (r["scheme"], r["workload_name"])
        # Every page of the data set was written by the run's own writes and read back
        # from flash, where the scheme put it.
        assert r["payload.final_read.pages"] == pages, where
        assert r["payload.final_read.host_written"] == pages, where
        assert r["payload.final_read.from_flash"] == pages, where
        # The approximate schemes program the data set approximately and return it raw; the
        # baseline programs it precisely, decodes it, and the applications lose nothing.
        approximate = pages if r["scheme"] != "baseline" else 0
        assert r["payload.final_read.approximate"] == approximate, where
        assert r["payload.final_read.raw"] == approximate, where
        if r["scheme"] == "baseline":
            assert r["quality.mean"] == 1.0 and r["quality.bits_flipped"] == 0, where
    # Worn to 10K cycles and read 1,000 h later, pages programmed with V_max lowered carry
    # errors of the order seed 000 states (7.2e-4), and the applications see them.
    worn = [r for r in rows if r["workload_name"] in later and r["scheme"] in ("vth_b", "approxftl")]
    assert len(worn) == 2 * 7
    for r in worn:
        assert r["config.aging.initial_pe"] == approxftl.WORN_PE
        assert r["payload.final_read.after_h"] == approxftl.READ_AFTER_H
        assert 1e-4 < r["payload.final_read.rber_mean"] < 1e-2, r["payload.final_read.rber_mean"]
        assert r["quality.bits_flipped"] > 0
    # Delta_b's 1.5x step leaves its pages near the precise ones' error rate; at the 6.6x step
    # calibrated to the RBER the paper states for it, they are as bad as Vth_b's.
    delta_b = {r["config.physics.vth.approx_dvpp_factor"]: r["payload.final_read.rber_mean"]
               for r in rows if r["workload_name"] == approxftl.read_later_name("vid") and r["scheme"] == "delta_b"}
    assert set(delta_b) == {1.5, approxftl.DELTA_B_STATED_STEP}
    assert delta_b[1.5] < 1e-5 < 1e-4 < delta_b[approxftl.DELTA_B_STATED_STEP] < 1e-2, delta_b


def test_energy_counts_the_dram_buffer_when_it_is_on(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    rows = [r for r in parquet_rows(out) if r["workload_name"] in {a.name for a in wl.APPS}
            and r["config.precondition.occupancy"] == 0.5 and r["config.aging.initial_pe"] == 0
            and r["config.physics.vth.approx_dvpp_factor"] == 1.5 and r["config.physics.retention_scale"] == 1.0]
    on = [r for r in rows if r["config.cache.capacity_bytes"] > 0]
    off = [r for r in rows if r["config.cache.capacity_bytes"] == 0]
    assert len(on) == len(off) == 5 * 7  # four schemes and ApproxFTL with a GC pool of its own
    dram = 2.56e-6 * 0.125 * 3.3  # one page access: 2.56 us at 125 mA and 3.3 V
    for r in on:
        # Every host page written goes into DRAM, every page written back comes out of it,
        # and reads served by the controller read it.
        accesses = r["ftl.host_pages_written"] + r["ftl.buffer.flushed_pages"] + r["ftl.buffer.read_hits"] \
            + r["ftl.buffer.inflight_read_hits"] + r["ftl.unmapped_zero_reads"]
        assert r["ftl.buffer.flushed_pages"] > 0.99 * r["ftl.host_pages_written"]
        assert r["energy.dram_j"] == pytest.approx(accesses * dram, rel=1e-6), r["workload_name"]
    for r in off:
        # Without the buffer only reads of pages still being programmed touch DRAM.
        assert r["energy.dram_j"] < 0.01 * r["energy.total_j"]


def _writes(path):
    out = []
    for line in path.read_text().splitlines():
        t, _dev, lba, size, op, flag = (int(x) for x in line.split())
        if op == 0:
            out.append((lba, size, flag))
    return out


@pytest.mark.parametrize("app", [a for a in wl.APPS if a.name in ("smm", "vid", "lu")], ids=lambda a: a.name)
def test_generated_traces_follow_their_description(app, tmp_path):
    path = wl.write_trace(app, tmp_path / "a.trace", 20_000, scale=1 / 8)
    again = wl.write_trace(app, tmp_path / "b.trace", 20_000, scale=1 / 8)
    assert path.read_text() == again.read_text()
    lines = path.read_text().splitlines()
    reads = sum(ln.split()[4] == "1" for ln in lines)
    assert reads / len(lines) == pytest.approx(app.read, abs=0.02)
    writes = _writes(path)
    small = [w for w in writes if w[1] == wl.PAGE // wl.SECTOR]
    large = [w for w in writes if w[1] > wl.PAGE // wl.SECTOR]
    for part, share in ((small, app.approx_hot), (large, app.approx_cold)):
        assert sum(f for _l, _s, f in part) / len(part) == pytest.approx(share, abs=0.03)
    # Small requests stay in the hot region, large ones after it, all inside the footprint.
    hot_end = int(app.hot_gib / 8 * 2**30) // wl.SECTOR
    assert all(lba + size <= hot_end for lba, size, _ in small)
    assert all(lba >= hot_end and lba + size <= wl.footprint_sectors(app) for lba, size, _ in large)
    # A logical address keeps its precision.
    flag_of = {}
    for lba, _size, flag in writes:
        assert flag_of.setdefault(lba, flag) == flag


def test_an_application_writes_its_data_set_first_into_its_approximate_cold_part(tmp_path):
    app = next(a for a in wl.APPS if a.name == "smm")
    lines = wl.write_trace(app, tmp_path / "a.trace", 1_000, scale=1 / 8, data_pages=53).read_text().splitlines()
    first = [[int(x) for x in ln.split()] for ln in lines[:4]]
    spp = wl.PAGE // wl.SECTOR
    start = wl.data_lba(app, 1 / 8)
    assert start == int(app.hot_gib / 8 * 2**30) // wl.SECTOR
    # 53 pages in requests of 16, 16, 16 and 5 pages, at time 0, written and approximate.
    assert [(t, lba, size, op, flag) for t, _d, lba, size, op, flag in first] == [
        (0, start + i * 16 * spp, n * spp, 0, 1) for i, n in enumerate((16, 16, 16, 5))]
    assert int(lines[4].split()[0]) > 0
    with pytest.raises(ValueError, match="do not fit"):
        wl.write_trace(app, tmp_path / "b.trace", 10, scale=1 / 8, data_pages=10**6)


def test_tagging_a_real_trace_marks_half_of_its_space(tmp_path):
    src = tmp_path / "t.trace"
    src.write_text("0 0 0 16 0\n10 0 2048 16 0\n20 0 4100 8 1\n30 0 6200 8 0 1\n")
    flags = [int(ln.split()[5]) for ln in wl.tag_trace(src, tmp_path / "u.trace").read_text().splitlines()]
    assert flags == [0, 1, 0, 1]


def test_output_quality_is_held_to_the_one_stated_tolerance():
    quality = [c for c in approxftl.EXPERIMENT.claims if c.metric == "quality"]
    assert quality
    for c in quality:
        assert c.within(0.981) and c.within(1.0)
        # 0.02 and nothing wider: a 3% loss is not negligible.
        assert not c.within(0.97), c.label


def test_first_stated_workloads_are_the_assumptions_fixed_before_any_result(tmp_path):
    # Per-application shares of small requests, 300 us arrivals and a 0.25 GiB hot region.
    assert wl.FIRST_STATED_SMALL == {"fft": 0.6, "smm": 0.6, "lu": 0.6, "sor": 0.6, "img": 0.5, "vid": 0.4, "mc": 0.6}
    app = wl.first_stated(next(a for a in wl.APPS if a.name == "vid"))
    assert (app.small, app.hot_gib, app.cold_gib) == (0.4, 0.25, 16.0)
    found = approxftl.first_stated_workloads(tmp_path, True, None)
    assert set(found) == {approxftl.first_stated_name(a.name) for a in wl.APPS}
    lines = open(found[approxftl.first_stated_name("vid")]["trace"]).read().split("\n")
    times = [int(ln.split()[0]) for ln in lines if ln.strip()]
    gaps = [b - a for a, b in zip(times, times[1:]) if b > a]
    mean_us = sum(gaps) / len(gaps) / 1000.0
    # --quick's arrivals are QUICK_SCALE times sparser: 300 us / (1/8) = 2.4 ms.
    assert abs(mean_us / (wl.FIRST_STATED_INTERARRIVAL_US / approxftl.QUICK_SCALE) - 1.0) < 0.05, mean_us


def _aged_row(scheme, app, **cols):
    row = {"scheme": scheme, "workload_name": app, **{f"config.{k}": v for k, v in approxftl.AGED.items()}}
    row.update(cols)
    return row


def test_fig8_rows_read_the_img_write_distributions():
    # Baseline's slowest write 1,000 us; at 269 us, a quarter of ApproxFTL's CDF lies
    # between its 0.5 point (200 us) and its 0.75 point (300 us): 0.5 + 0.25 * 0.69.
    base = [[100.0, 0.0], [500.0, 0.5], [1000.0, 1.0]]
    own = [[50.0, 0.0], [200.0, 0.5], [300.0, 0.75], [600.0, 1.0]]
    rows = [_aged_row("baseline", "img", **{"host.write.latency_us.cdf": json.dumps(base)}),
            _aged_row("approxftl", "img", **{"host.write.latency_us.cdf": own}),
            # Another set-up's img runs are not read.
            {"scheme": "approxftl", "workload_name": "img", "config.precondition.occupancy": 0.8,
             "host.write.latency_us.cdf": [[1.0, 0.0], [2.0, 1.0]]}]
    assert approxftl._fig8_share("approxftl")(rows) == pytest.approx(100 * (0.5 + 0.25 * 69 / 100))
    # The baseline at 269 us: 0.5 * (269 - 100) / 400 of the way to its 0.5 point.
    assert approxftl._fig8_share("baseline")(rows) == pytest.approx(100 * 0.5 * 169 / 400)
    assert approxftl._fig8_slowest(rows) == pytest.approx(60.0)
    assert approxftl._fig8_slowest(rows[:1]) is None


def test_fig6_rows_compare_an_applications_share_with_the_largest_other():
    def openings(chb, precise, phase2, all_approx, phase1=100):
        return {"approx.active_blocks.chb": chb, "approx.active_blocks.precise": precise,
                "approx.active_blocks.approx_phase2": phase2, "approx.active_blocks.all_approx": all_approx,
                "approx.active_blocks.approx_phase1": phase1}
    rows = [_aged_row("approxftl", app, **openings(30 if app == "lu" else 10, 50 if app == "smm" else 20, 40, 30))
            for app in approxftl.APPS]
    # lu: 30 of 120 openings (the first phase left out) against 10 of 100 at most elsewhere.
    assert approxftl._largest_share("lu", "chb")(rows) == pytest.approx((30 / 120) / (10 / 100))
    assert approxftl._largest_share("smm", "precise")(rows) == pytest.approx((50 / 130) / (20 / 100))
    # Without every application there is nothing to compare.
    assert approxftl._largest_share("lu", "chb")(rows[:3]) is None


def test_refresh_is_exercised_where_data_ages_past_six_months(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    rows = [r for r in parquet_rows(out) if r["config.physics.retention_scale"] == approxftl.RETENTION_SCALE]
    assert sorted({r["scheme"] for r in rows}) == ["approxftl", "baseline"]
    assert {r["workload_name"] for r in rows} == {a.name for a in wl.APPS}
    ftl = [r for r in rows if r["scheme"] == "approxftl"]
    # Approximate data past the six-month age is rewritten precise, block by block, in most
    # applications (smm, a tenth of its data approximate, may keep its few approximate
    # pages in blocks still open, which refresh leaves); the runs at the retention clock's
    # own pace refresh nothing (a run lasts seconds).
    refreshed = [r for r in ftl if r["approx.refreshed_pages"] > 0 and r["approx.refreshed_blocks"] > 0]
    assert len(refreshed) >= 5, [(r["workload_name"], r["approx.refreshed_pages"]) for r in ftl]
    assert all(r["approx.refreshed_pages"] >= r["approx.refreshed_blocks"] for r in ftl)
    plain = [r for r in parquet_rows(out) if r["scheme"] == "approxftl" and r["config.physics.retention_scale"] == 1.0]
    assert plain and all(r["approx.refreshed_pages"] == 0 for r in plain)
