"""The human summary of a report, as `xlssd run` prints it."""

from __future__ import annotations

from xlssd.report import Report


def _fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:,.0f} {unit}" if n == int(n) else f"{n:,.2f} {unit}"
        n /= 1024
    return f"{n:,.2f} TiB"


def _fmt_count(x: float) -> str:
    return f"{x:,.0f}"


def _fmt_us(x: float) -> str:
    return f"{x:,.1f}" if x >= 100 else f"{x:,.2f}"


def summary(r: Report) -> str:
    cfg = r["config"]
    g = cfg["geometry"]
    raw = r["ftl.physical_pages"] * g["page_size"]
    lines = [
        f"xlssd {r['version']}: {g['channels']} channels x {g['chips_per_channel']} chips x {g['dies_per_chip']} dies x "
        f"{g['planes_per_die']} planes, {g['cell'].upper()}, {_fmt_bytes(raw)} raw",
        "",
        f"{'':7}{'count':>10}{'IOPS':>12}{'MB/s':>10}{'mean':>10}{'p50':>10}{'p99':>10}{'p99.99':>10}{'max':>10}  (latency in us)",
    ]
    for op in ("read", "write", "all"):
        o = r[f"host.{op}"]
        lat = o["latency_us"]
        lines.append(
            f"{op:7}{_fmt_count(o['count']):>10}{_fmt_count(o['iops']):>12}{o['bandwidth_mbps']:>10.1f}"
            f"{_fmt_us(lat['mean']):>10}{_fmt_us(lat['p50']):>10}{_fmt_us(lat['p99']):>10}"
            f"{_fmt_us(lat['p99_99']):>10}{_fmt_us(lat['max']):>10}"
        )
    f = r["ftl"]
    lines += [
        "",
        f"FTL     WAF {f['waf']:.3f}   host pages written {_fmt_count(f['host_pages_written'])}   "
        f"flash pages programmed {_fmt_count(f['flash_pages_programmed'])}",
        f"GC      {_fmt_count(f['gc']['invocations'])} invocations, {_fmt_count(f['gc']['pages_moved'])} pages moved, "
        f"{_fmt_count(f['gc']['blocks_erased'])} blocks erased",
    ]
    if f["mapping"]["cached"]:
        m = f["mapping"]
        lines.append(
            f"Mapping {_fmt_count(m['hits'])} hits, {_fmt_count(m['misses'])} misses, "
            f"{_fmt_count(m['flash_reads'])} translation reads, {_fmt_count(m['flash_writes'])} writes"
        )
    ec = r["nand.erase_count"]
    dies = r["nand.busy.dies_total"]
    lines += [
        f"Wear    erase count min {ec['min']} mean {ec['mean']:.2f} max {ec['max']} (stddev {ec['stddev']:.2f})",
        f"Dies    {dies['utilization'] * 100:.1f}% busy (host read {dies['host_read_ns'] / 1e6:,.1f} ms, "
        f"host write {dies['host_write_ns'] / 1e6:,.1f} ms, GC {dies['gc_ns'] / 1e6:,.1f} ms, "
        f"erase {dies['erase_ns'] / 1e6:,.1f} ms, mapping {dies['mapping_ns'] / 1e6:,.1f} ms)",
        f"Energy  {r['energy.total_j']:.4f} J",
        f"Run     {r['sim.simulated_ns'] / 1e9:,.4f} s simulated, {r['sim.wall_s']:.3f} s wall, "
        f"{_fmt_count(r['sim.events'])} events, {_fmt_count(r['sim.requests_per_s'])} requests/s",
    ]
    if r["sim.skipped_lines"]:
        lines.append(f"Trace   {_fmt_count(r['sim.skipped_lines'])} malformed lines skipped")
    return "\n".join(lines)
