"""Workloads of the read-disturb reproduction (seed 003, Sec. 3.5 and 4.4).

The seed's traces (ads, mds, tpc-h, websearch, multi, tpc-e, tatp) are block traces of
HDD-based systems, replayed many times; only a web-search trace is public, and an excerpt
of one is in `../shared/traces/wsrch-small.trace`. `Trace` carries what the seed says of
each (read share, how often it was repeated in Ch. 3 and its read amplification factor in
Ch. 4) and `write_stand_in` turns one into an MQSim trace. Every assumption below was
fixed before any result was seen; docs/techniques/redftl.md lists them with their reasons,
and the reproduction shows the results that depend on them across a range.

- Working set: one seventh of the device's raw capacity (Sec. 4.4 sizes the device at
  seven times each trace's working set), written before the run (the device is
  preconditioned over it), so that every read finds data.
- Requests of one 8 KiB page: most requests of the web-search excerpt are one page (60%).
- Reads pick a page by a Zipf law of exponent `SKEW` over the working set, the ranks
  scattered over it at random, so that a block holds a few read-hot pages among many cold
  ones, the skew redFTL is built for (Sec. 3.2.2); in mds, whose pages the seed says were
  read evenly, the ranks are in logical order, so hot pages share blocks. Writes pick a
  page uniformly (the seed
  says nothing of them beyond their share; a hot page that was also rewritten often would
  leave its block before the block could be disturbed).
- Length: the repeat count of Ch. 3 (Table 3) or the read amplification factor of Ch. 4
  (Table 6) times `PASS_REQUESTS` requests, the seed's own way of getting enough reads.
- Arrivals: a Poisson process at the rate that keeps the flash `UTILISATION` busy with the
  host's requests alone (the seed gives no rates; 30% is where the web-search excerpt,
  413 requests/s, replayed by its 100 threads puts this device).

The real excerpt is replayed as Sec. 4.4 replays a trace: by `raf` threads at once, each
with the excerpt's requests and its own random idle gaps (exponential, with the
excerpt's mean gap).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xlssd.reproduce import mqsim_trace

SECTOR = 512
PAGE = 8192
SPP = PAGE // SECTOR

#: Zipf exponent of read popularity (assumed; shown across OTHER_SKEWS).
SKEW = 1.0
OTHER_SKEWS = (0.8, 1.2)
#: Requests of one pass of a trace (assumed; the only pass length known is the web-search
#: excerpt's, 24,783 requests in 60 s).
PASS_REQUESTS = 40_000
#: Share of the dies' time the host's requests take (assumed; shown across OTHER_LOADS).
UTILISATION = 0.3
OTHER_LOADS = (0.1, 0.6)
#: Share of the raw capacity the working set takes (Sec. 4.4: blocks = 7x working set).
WORKING_SET = 1 / 7


@dataclass(frozen=True)
class Trace:
    name: str
    #: Share of requests that are reads (Tables 3 and 6).
    read: float
    #: Times the trace was repeated in Ch. 3 (Table 3); None: not used there.
    repeat: int | None
    #: Read amplification factor in Ch. 4 (Table 6); None: not used there.
    raf: int | None
    #: Read-hot pages side by side in the logical space (so a block's pages are read
    #: alike) instead of scattered, where the seed says so.
    clustered: bool = False
    seed: int = 0


TRACES = (
    Trace("ads", read=0.96, repeat=150, raf=50, seed=301),
    # Sec. 3.5: in mds "many pages were evenly read at a similar pace", so that the
    # separator took many of a block's pages as read-hot: its hot pages are side by side.
    Trace("mds", read=0.98, repeat=200, raf=None, clustered=True, seed=302),
    Trace("tpc-h", read=0.92, repeat=50, raf=200, seed=303),
    Trace("websearch", read=1.00, repeat=100, raf=100, seed=304),
    Trace("multi", read=0.98, repeat=None, raf=50, seed=305),
    Trace("tpc-e", read=0.95, repeat=None, raf=30, seed=306),
    Trace("tatp", read=0.83, repeat=None, raf=3, seed=307),
)
CH3 = tuple(t.name for t in TRACES if t.repeat)
CH4 = tuple(t.name for t in TRACES if t.raf)
BY_NAME = {t.name: t for t in TRACES}


def mean_read_us(read_us: float | list[float]) -> float:
    return sum(read_us) / len(read_us) if isinstance(read_us, list) else float(read_us)


def rate_per_s(read: float, read_us: float, program_us: float, dies: int, utilisation: float) -> float:
    """Requests per second that keep `utilisation` of the dies busy with one-page host
    requests of `read` share."""
    per_request_s = (read * read_us + (1.0 - read) * program_us) * 1e-6
    return utilisation * dies / per_request_s


def write_stand_in(trace: Trace, path: Path, requests: int, working_pages: int, rate: float,
                   skew: float | None = None) -> Path:
    """`requests` one-page requests of `trace` over the first `working_pages` logical pages,
    arriving at `rate` per second (MQSim format). Deterministic: the same arguments give
    the same file."""
    rng = np.random.Generator(np.random.PCG64(trace.seed))
    theta = skew if skew is not None else SKEW
    is_read = rng.random(requests) < trace.read
    # Zipf ranks by inverse transform over the bounded law, then scattered.
    weights = np.arange(1, working_pages + 1, dtype=np.float64) ** -theta
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    rank = np.minimum(np.searchsorted(cdf, rng.random(requests), side="right"), working_pages - 1)
    scatter = np.arange(working_pages) if trace.clustered else rng.permutation(working_pages)
    page = np.where(is_read, scatter[rank], rng.integers(0, working_pages, requests))
    gaps = rng.exponential(1e9 / rate, requests)
    times = np.cumsum(np.rint(gaps).astype(np.int64))
    times -= times[0]
    return mqsim_trace.write(path, times, page * SPP, np.full(requests, SPP, dtype=np.int64), is_read)


def replay_by_threads(src: Path, path: Path, threads: int, seed: int = 300, passes: int = 1) -> Path:
    """`src` (an MQSim trace) replayed by `threads` threads at once, each issuing its
    requests in order `passes` times over with its own exponential gaps of the trace's
    mean gap."""
    raw = np.loadtxt(src, dtype=np.int64, ndmin=2, usecols=(0, 2, 3, 4))
    if raw.shape[0] < 2:
        raise ValueError(f"{src}: fewer than two requests to replay")
    mean_gap = (raw[-1, 0] - raw[0, 0]) / (raw.shape[0] - 1)
    raw = np.tile(raw, (passes, 1))
    n = raw.shape[0]
    rng = np.random.Generator(np.random.PCG64(seed))
    times = np.cumsum(np.rint(rng.exponential(mean_gap, (threads, n))).astype(np.int64), axis=1).ravel()
    order = np.argsort(times, kind="stable")
    tiled = np.tile(raw[:, 1:], (threads, 1))[order]
    times = times[order]
    times -= times[0]
    return mqsim_trace.write(path, times, tiled[:, 0], tiled[:, 1], tiled[:, 2] == 1)
