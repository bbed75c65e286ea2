"""Replaying the two shipped traces on MQSim's default device: the mean response time must
be of the same order of magnitude as MQSim's (figures from the reference beside the
project), and the work done (translation-page reads) must agree closely."""

import re

import pytest

import xlssd

from conftest import SHARED


def mqsim_reference() -> dict[str, dict[str, float]]:
    """MQSim's mean response and mapping reads per trace, read from the reference file."""
    text = (SHARED / "reference" / "mqsim-default.md").read_text()
    out = {}
    for name in ("tpcc-small", "wsrch-small"):
        row = next(line for line in text.splitlines() if line.startswith(f"| {name} |") and " us" in line)
        cells = [c.strip() for c in row.strip("|").split("|")]
        mean_us = float(re.match(r"([\d,]+) us", cells[1]).group(1).replace(",", ""))
        misses = float(cells[-1].replace(",", ""))
        out[name] = {"mean_us": mean_us, "cmt_read_misses": misses}
    return out


@pytest.mark.parametrize("name", ["tpcc-small", "wsrch-small"])
def test_mean_response_same_order_of_magnitude_as_mqsim(name, shared_traces):
    ref = mqsim_reference()[name]
    r = xlssd.simulate("mqsim-default", xlssd.Trace(str(shared_traces / f"{name}.trace")))
    assert r["ftl.mapping.cached"] is True
    ratio = r["host.all.latency_us.mean"] / ref["mean_us"]
    assert 0.1 < ratio < 10, f"xlssd {r['host.all.latency_us.mean']} us vs MQSim {ref['mean_us']} us"
    # Every read that misses the mapping table costs one translation-page read in both.
    assert r["ftl.mapping.flash_reads"] > 0
    assert r["ftl.mapping.misses"] >= ref["cmt_read_misses"] * 0.9


def test_whole_table_in_dram_is_faster(shared_traces):
    trace = xlssd.Trace(str(shared_traces / "wsrch-small.trace"))
    cached = xlssd.simulate("mqsim-default", trace)
    ideal = xlssd.simulate({**xlssd.config.load_preset("mqsim-default"), "mapping": {"cached_table_bytes": 0}}, trace)
    assert ideal["ftl.mapping.flash_reads"] == 0
    assert ideal["host.read.latency_us.mean"] < cached["host.read.latency_us.mean"]
