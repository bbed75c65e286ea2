"""The video-distribution workload of seed 002's evaluation (ASCache, DAC 2019, Sec. 4):
"many clients concurrently request different video streams" from an SSD cache over a hard
disk, the videos being Xiph.org's derf test media. The paper gives none of the generator's
parameters; these are chosen here from what it says, fixed before any of its results was
run, and stated:

- Videos: `VIDEOS` CIF videos (352 x 288 pixels, 4:2:0 YUV as in the derf media: 152,064
  bytes a frame) of `FRAMES` frames (10 s at 30 fps), laid out one after another on the
  disk, each frame starting on a 16 KiB boundary (the cache's page). The derf collection
  holds about 30 CIF sequences of about 300 frames; 32 of them take 1.5 GB of the paper's
  20 GiB disk.
- Clients: `CLIENTS` clients, each streaming one video from its first frame to its last at
  `FPS` frames a second (a read of one frame's sectors per frame time), then choosing the
  next. A client's first request comes at a uniformly drawn time within the first second
  (`START_S`), so that clients are out of step. The paper's disk averages "about 3 ms" a
  read, so it is not kept busy queueing: 16 clients keep a 15K rpm disk at about half its
  time if one frame read in six misses.
- Popularity: a client picks a video by a Zipf law of exponent `SKEW` over videos ranked at
  random (video-on-demand popularity is commonly described as Zipf-like with an exponent
  near 1); popular videos are streamed by several clients, which is what gives the cache
  its hits.

The number of videos and clients is shown across a range by the reproduction.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xlssd.reproduce import mqsim_trace

SECTOR = 512
CACHE_PAGE = 16384
FRAME_BYTES = 352 * 288 * 3 // 2
VIDEOS = 32
FRAMES = 300
FPS = 30.0
CLIENTS = 16
SKEW = 1.0
START_S = 1.0


@dataclass(frozen=True)
class Layout:
    """Where frames lie: each on a page boundary, videos one after another."""

    frame_bytes: int = FRAME_BYTES
    frames: int = FRAMES
    page: int = CACHE_PAGE

    @property
    def frame_sectors(self) -> int:
        return -(-self.frame_bytes // SECTOR)

    @property
    def frame_stride_sectors(self) -> int:
        pages = -(-self.frame_bytes // self.page)
        return pages * self.page // SECTOR

    def lba(self, video: int, frame: int) -> int:
        return (video * self.frames + frame) * self.frame_stride_sectors

    def disk_bytes(self, videos: int) -> int:
        return videos * self.frames * self.frame_stride_sectors * SECTOR


def streams(requests: int, seed: int = 2019, videos: int = VIDEOS, clients: int = CLIENTS, fps: float = FPS,
            skew: float = SKEW, layout: Layout = Layout()) -> dict[str, np.ndarray]:
    """The first `requests` frame reads of `clients` clients, by arrival time: arrays
    `time_ns`, `client`, `video`, `frame`, `lba`, `sectors`. Deterministic for a seed."""
    if requests < 1 or videos < 1 or clients < 1 or fps <= 0:
        raise ValueError(f"streams(): need requests, videos, clients >= 1 and fps > 0 "
                         f"(got {requests}, {videos}, {clients}, {fps})")
    rng = np.random.Generator(np.random.PCG64(seed))
    rank_of = rng.permutation(videos)
    weights = np.arange(1, videos + 1, dtype=np.float64) ** -skew
    cdf = np.cumsum(weights) / weights.sum()
    frame_ns = 1e9 / fps
    # Each client needs at most ceil(requests / clients) + 1 frames: enough videos for them.
    per_client = -(-requests // clients) + 1
    choices = -(-per_client // layout.frames) + 1
    picks = rank_of[np.minimum(np.searchsorted(cdf, rng.random((clients, choices)), side="right"), videos - 1)]
    starts = rng.random(clients) * START_S * 1e9
    rows = []
    for c in range(clients):
        k = np.arange(per_client)
        video = picks[c, k // layout.frames]
        frame = k % layout.frames
        rows.append((np.rint(starts[c] + k * frame_ns).astype(np.int64), np.full(per_client, c), video, frame))
    time_ns, client, video, frame = (np.concatenate(x) for x in zip(*rows))
    order = np.lexsort((client, time_ns))[:requests]
    time_ns, client, video, frame = time_ns[order], client[order], video[order], frame[order]
    lba = (video.astype(np.int64) * layout.frames + frame) * layout.frame_stride_sectors
    return {"time_ns": time_ns - time_ns[0], "client": client, "video": video, "frame": frame, "lba": lba,
            "sectors": np.full(len(lba), layout.frame_sectors, dtype=np.int64)}


def write_trace(path: Path, requests: int, seed: int = 2019, **kw) -> Path:
    """`streams(...)` as an MQSim trace of reads."""
    s = streams(requests, seed, **kw)
    return mqsim_trace.write(path, s["time_ns"], s["lba"], s["sectors"], np.ones(len(s["lba"]), dtype=bool))


#: Uploads (a variant, added after the read-only workload's results were seen): this many
#: clients each upload new videos while UPLOAD_CLIENTS others stream, UPLOAD_FPS frames a
#: second each (an upload over a client's link is not real time), each into its own disk
#: space after the library. Sized so that the disk stays out of saturation under every
#: write policy: a 16 KiB page written to the disk takes about 2 ms (the full run's
#: service times), so write-through's one uploader adds 3 x 10 pages x 2 ms = 6% of the
#: disk's time to the 31% that 8 streaming clients keep it busy; 4 uploaders writing in
#: real time beside 16 clients saturated it under every policy (measured, not kept).
UPLOADERS = 1
UPLOAD_FPS = 3.0
UPLOAD_CLIENTS = 8


def with_uploads(requests: int, seed: int = 2019, uploaders: int = UPLOADERS, upload_fps: float = UPLOAD_FPS,
                 videos: int = VIDEOS, clients: int = UPLOAD_CLIENTS, fps: float = FPS, skew: float = SKEW,
                 layout: Layout = Layout()) -> dict[str, np.ndarray]:
    """`streams(...)` with `uploaders` clients writing new videos over the same span:
    arrays `time_ns`, `lba`, `sectors`, `is_read`, by arrival time. Deterministic for a seed."""
    if uploaders < 0 or upload_fps <= 0:
        raise ValueError(f"with_uploads(): need uploaders >= 0 and upload_fps > 0 (got {uploaders}, {upload_fps})")
    s = streams(requests, seed, videos, clients, fps, skew, layout)
    span = int(s["time_ns"][-1])
    frame_ns = 1e9 / upload_fps
    per = int(span // frame_ns) + 1
    rng = np.random.Generator(np.random.PCG64(seed + 1))
    starts = rng.random(uploaders) * START_S * 1e9
    own_videos = -(-per // layout.frames)
    times, lbas = [s["time_ns"]], [s["lba"]]
    for u in range(uploaders):
        k = np.arange(per)
        t = np.rint(starts[u] + k * frame_ns).astype(np.int64)
        video = videos + u * own_videos + k // layout.frames
        keep = t <= span
        times.append(t[keep])
        lbas.append(((video * layout.frames + k % layout.frames) * layout.frame_stride_sectors)[keep])
    is_read = np.concatenate([np.ones(len(s["lba"]), dtype=bool)] + [np.zeros(len(t), dtype=bool) for t in times[1:]])
    time_ns, lba = np.concatenate(times), np.concatenate(lbas).astype(np.int64)
    order = np.argsort(time_ns, kind="stable")
    return {"time_ns": time_ns[order], "lba": lba[order], "sectors": np.full(len(lba), layout.frame_sectors, dtype=np.int64),
            "is_read": is_read[order]}


def write_trace_with_uploads(path: Path, requests: int, seed: int = 2019, **kw) -> Path:
    """`with_uploads(...)` as an MQSim trace of reads and writes."""
    s = with_uploads(requests, seed, **kw)
    return mqsim_trace.write(path, s["time_ns"], s["lba"], s["sectors"], s["is_read"])
