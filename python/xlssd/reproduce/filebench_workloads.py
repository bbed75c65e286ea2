"""The Filebench workloads of seed 001's evaluation (Bertozzi et al., ACM TECS 14(1) 2015,
Sec. 5 and Table V): varmail, webserver and videoserver, traced by the paper at flash-page
level under YAFFS2 on a 2 GB MLC device (4,096 blocks of 128 pages of 4 KiB, Linux MTD
emulation, YAFFS2 caches off). The traces are not public and the paper gives none of
Filebench's parameters, only each personality's reads over writes in flash page operations
and its average read and write counts (Table V). The generator below rebuilds each
personality from the public Filebench definitions (workloads/varmail.f, webserver.f and
videoserver.f of the filebench/filebench repository) as page operations on logical pages of
a span of `span_pages` pages. Every parameter was fixed before any simulation result was
seen, and is stated here with its source:

Common to all three
- A page operation is one 4 KiB page (`PAGE`); a whole-file read of N pages is N read
  operations in file order, an append of N pages N write operations.
- Span: `span_pages` pages from `base_page`, by default `DEFAULT_SPAN`, half the device
  (assumed; the paper's YAFFS2 had the whole 2 GB device, the generator is given a share).
  Varmail's and webserver's file sets (about 18 MiB each) are kept at Filebench's size;
  only videoserver's (10 GB videos in Filebench) is scaled, to fill the span.
- The device is preconditioned before the run: the file set already lies on the span,
  contiguously from its start (`footprint` gives how many pages it takes); the trace holds
  only the run's operations.
- Space: a lowest-free-page-first allocator over the span (assumed). Creates and appends
  take free pages, the lowest first, which are the pages freed by earlier deletes when there
  are any: a delete followed by creates overwrites the deleted file's pages, which is how
  data is invalidated (there are no trims). An append first rewrites the file's partial last
  page in place, then takes new pages (not necessarily contiguous). Deletes balance creates,
  so the file set stays bounded; a run that outgrows the span raises ValueError.
- Filebench's threads run the same loop on randomly picked files; their loops are taken one
  after another (varmail, webserver) or their I/Os interleaved at random (videoserver's
  readers) (assumed).
- The read/write ratio is Table V's by construction. Neither Filebench nor the paper fixes
  it: what reaches the flash depends on Linux's page cache (varmail, webserver) and, for
  videoserver, on rate limits that do not set a ratio on their own (the readers' bwlimit of
  1 MB per event at eventrate 96 a second; the writer's 10 s delay between whole videos).
  Varmail and webserver: a whole-file read reaches the flash only while the flash reads so
  far are fewer than Table V's ratio times the flash writes so far, otherwise the page cache
  serves it (it emits nothing); the rule does not look at the file's size, so the files read
  are not biased towards small ones. Videoserver: the readers run while the reads so far are
  fewer than Table V's ratio times the writes so far plus half the writer's next piece,
  otherwise the writer runs (the two bandwidth limits in Table V's proportion). The ratio
  over any prefix then differs from Table V's by at most one operation's worth: under 1% for
  varmail and webserver at 20,000 pages, at most 2.3% for videoserver (half a 64-page write
  piece against about 1,700 writes). The share of whole-file reads that reach the flash
  comes out near 35% for varmail and 10% for webserver.

Varmail (varmail.f)
- Entries `VARMAIL_FILES` = 1,000 (nfiles); `VARMAIL_PREALLOC` = 80% (800) exist at the start
  (prealloc=80) and stay 800, as each loop deletes one and creates one.
- File sizes: gamma-distributed, mean `MEAN_FILE` = 16 KiB (meanfilesize), gamma parameter
  `SIZE_GAMMA` = 1.5 (the later varmail.f spells the distribution out as cvar-gamma with mean
  16384 and gamma 1.5), taken as the shape.
- Appends: appendfilerand with iosize = meanappendsize = 16 KiB, i.e. uniform over 0 to
  16,384 bytes (`APPEND_MAX`); a zero-length append does nothing.
- Loop (the flowops of varmail.f): delete a random file; create a new one; append to it;
  fsync; read a random file whole; append to it; fsync; read another random file whole.
  Reads are whole files (iosize 1 MiB exceeds every file).
- Metadata (assumed, standing in for YAFFS2's object headers, which the paper's traces
  include): one page per entry, `VARMAIL_FILES` pages at the start of the span; createfile,
  deletefile and an fsync after a non-empty append each write the entry's page. Data pages
  follow the metadata pages.

Webserver (webserver.f)
- `WEBSERVER_FILES` = 1,000 read-only files (nfiles, prealloc=100, readonly), sizes as
  varmail's (meanfilesize 16 KiB, gamma 1.5).
- One log file (logfiles: 1 entry, meanfilesize), whose initial size is drawn the same way;
  appends as varmail's (appendfilerand, iosize 16 KiB).
- Loop: 10 whole-file reads of random files, then one append to the log.
- The log wraps around within a log region of `LOG_PAGES` = 16,384 pages (64 MiB, assumed:
  a rotated log) after the files, or the rest of the span if smaller (at least
  `MIN_LOG_PAGES`).

Videoserver (videoserver.f)
- `ACTIVE_VIDEOS` = 32 active videos (numactivevids, prealloc) and 194 passive entries
  (numpassivevids) of which `PASSIVE_VIDEOS` = 97 exist (prealloc=50): 129 videos, all of one
  size (filesize; 10 GB in Filebench, scaled here): the videos fill `VIDEO_FILL` = 90% of the
  span (assumed; the rest is the file system's free space), each floor(0.9 x span / 129)
  pages. Active videos first, then passive ones.
- Readers: `READERS` = 48 threads (nthreads), each streaming one active video (picked at
  random) from a random position, `READ_PAGES` = 64 pages (readiosize 256 KiB) a read,
  wrapping to the start at the end of the file as Filebench's sequential read does; the next
  read is by a thread picked at random.
- Writer (vidwriter): deletes a random passive video, creates a new one and writes it whole;
  its data reaches the flash in pieces of `WRITE_PAGES` = 64 pages interleaved with the
  readers' reads (assumed; Filebench's writeiosize is 1 MiB).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xlssd.reproduce import mqsim_trace

PAGE = 4096
SECTOR = 512
SPP = PAGE // SECTOR
PERSONALITIES = ("varmail", "webserver", "videoserver")

#: Table V: reads over writes, in flash page operations.
TABLE_V = {"varmail": 0.325, "webserver": 1.535, "videoserver": 10.779}
#: Table V: average read and write counts (flash page operations) of a run.
TABLE_V_COUNTS = {
    "varmail": {"reads": 48_536, "writes": 149_081},
    "webserver": {"reads": 100_708, "writes": 65_581},
    "videoserver": {"reads": 457_138, "writes": 42_410},
}

#: The paper's device: 4,096 blocks of 128 pages.
DEVICE_PAGES = 4096 * 128
#: Pages given to a generator unless told otherwise: half the device (assumed).
DEFAULT_SPAN = DEVICE_PAGES // 2

MEAN_FILE = 16 * 1024
SIZE_GAMMA = 1.5
APPEND_MAX = 16 * 1024

VARMAIL_FILES = 1000
VARMAIL_PREALLOC = 0.8

WEBSERVER_FILES = 1000
WEBSERVER_READS = 10
LOG_PAGES = 16_384
#: Two of the largest appends, so that a wrap never overwrites the page being appended to.
MIN_LOG_PAGES = 2 * (APPEND_MAX // PAGE + 1)

ACTIVE_VIDEOS = 32
PASSIVE_VIDEOS = 97
VIDEO_FILL = 0.9
READERS = 48
READ_PAGES = 64
WRITE_PAGES = 64


def _pages_of(nbytes: int) -> int:
    return -(-nbytes // PAGE)


def _file_sizes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Filebench's fileset sizes in bytes: gamma, mean MEAN_FILE, shape SIZE_GAMMA."""
    return np.rint(rng.gamma(SIZE_GAMMA, MEAN_FILE / SIZE_GAMMA, size=n)).astype(np.int64)


class _Allocator:
    """Free pages of [start, end), handed out lowest first. Pages below `top` were in use
    once; the freed ones among them are kept in a heap, so reuse comes before new space."""

    def __init__(self, top: int, end: int, what: str):
        self.top, self.end, self.what = top, end, what
        self.freed: list[int] = []

    def take(self, n: int) -> list[int]:
        out = [heapq.heappop(self.freed) for _ in range(min(n, len(self.freed)))]
        rest = n - len(out)
        if self.top + rest > self.end:
            raise ValueError(f"{self.what}: span_pages={self.end} is too small, the file set outgrew it")
        out.extend(range(self.top, self.top + rest))
        self.top += rest
        return out

    def give(self, pages) -> None:
        for p in pages:
            heapq.heappush(self.freed, int(p))


@dataclass
class _File:
    size: int = 0
    pages: list[int] = field(default_factory=list)


def _append(f: _File, nbytes: int, alloc: _Allocator) -> list[int]:
    """The pages an append writes: the partial last page again (in place), then new ones."""
    touched = [f.pages[-1]] if f.size % PAGE else []
    fresh = alloc.take(_pages_of(f.size + nbytes) - len(f.pages))
    f.pages.extend(fresh)
    f.size += nbytes
    return touched + fresh


def _lay_out(sizes: np.ndarray, start: int) -> tuple[list[_File], int]:
    """Files one after another from `start`: the files and the first page after them."""
    files, at = [], start
    for s in sizes:
        n = _pages_of(int(s))
        files.append(_File(int(s), list(range(at, at + n))))
        at += n
    return files, at


class _Trace:
    """The first `cap` page operations, with running read and write counts."""

    def __init__(self, cap: int):
        self.lpn = np.empty(cap, dtype=np.int64)
        self.is_read = np.zeros(cap, dtype=bool)
        self.n = self.reads = self.writes = 0

    @property
    def full(self) -> bool:
        return self.n >= len(self.lpn)

    def emit(self, pages, read: bool) -> None:
        pages = np.asarray(pages, dtype=np.int64)[: len(self.lpn) - self.n]
        k = len(pages)
        self.lpn[self.n:self.n + k] = pages
        self.is_read[self.n:self.n + k] = read
        self.n += k
        if read:
            self.reads += k
        else:
            self.writes += k

    def read_if_missed(self, f: _File, target: float) -> None:
        """A whole-file read that reaches the flash while reads lag `target` x writes (else the
        page cache serves it)."""
        if f.pages and self.reads < target * self.writes:
            self.emit(f.pages, True)


def _pick(rng: np.random.Generator, items: list):
    return items[int(rng.integers(len(items)))]


def _take_out(rng: np.random.Generator, items: list):
    """Removes and returns a random element (swapping the last one into its place)."""
    i = int(rng.integers(len(items)))
    items[i], items[-1] = items[-1], items[i]
    return items.pop()


# Varmail

@dataclass
class _Varmail:
    files: dict[int, _File]
    live: list[int]
    absent: list[int]
    alloc: _Allocator


def _varmail_setup(rng: np.random.Generator, span: int) -> _Varmail:
    entries = rng.permutation(VARMAIL_FILES)
    n_live = round(VARMAIL_PREALLOC * VARMAIL_FILES)
    live = sorted(int(e) for e in entries[:n_live])
    laid, top = _lay_out(_file_sizes(rng, n_live), VARMAIL_FILES)
    if top > span:
        raise ValueError(f"varmail: span_pages={span} is too small for its file set ({top} pages)")
    return _Varmail(dict(zip(live, laid)), live, sorted(int(e) for e in entries[n_live:]),
                    _Allocator(top, span, "varmail"))


def _varmail_append_sync(rng: np.random.Generator, st: _Varmail, entry: int, trace: _Trace) -> None:
    nbytes = int(rng.integers(APPEND_MAX + 1))
    if nbytes:
        trace.emit(_append(st.files[entry], nbytes, st.alloc), False)
        trace.emit([entry], False)  # fsync writes the changed file's metadata page


def _varmail(rng: np.random.Generator, span: int, trace: _Trace) -> None:
    st = _varmail_setup(rng, span)
    target = TABLE_V["varmail"]
    while not trace.full:
        gone = _take_out(rng, st.live)
        st.alloc.give(st.files.pop(gone).pages)
        trace.emit([gone], False)  # the entry's metadata page records the delete
        # Filebench creates a file at an entry that does not exist, so not the one just freed.
        new = _take_out(rng, st.absent)
        st.absent.append(gone)
        st.files[new] = _File()
        st.live.append(new)
        trace.emit([new], False)
        _varmail_append_sync(rng, st, new, trace)
        opened = _pick(rng, st.live)
        trace.read_if_missed(st.files[opened], target)
        _varmail_append_sync(rng, st, opened, trace)
        trace.read_if_missed(st.files[_pick(rng, st.live)], target)


# Webserver

@dataclass
class _Webserver:
    files: list[_File]
    log_start: int
    log_pages: int
    log_at: int  # byte offset of the log's end within its region


def _webserver_setup(rng: np.random.Generator, span: int) -> _Webserver:
    files, top = _lay_out(_file_sizes(rng, WEBSERVER_FILES), 0)
    log_pages = min(LOG_PAGES, span - top)
    if log_pages < MIN_LOG_PAGES:
        raise ValueError(f"webserver: span_pages={span} is too small for its file set ({top} pages) "
                         f"and a log of at least {MIN_LOG_PAGES} pages")
    log_size = int(_file_sizes(rng, 1)[0]) % (log_pages * PAGE)
    return _Webserver(files, top, log_pages, log_size)


def _log_append(st: _Webserver, nbytes: int) -> np.ndarray:
    """The log pages an append writes, wrapping within the log region."""
    first, last = st.log_at // PAGE, (st.log_at + nbytes - 1) // PAGE
    st.log_at = (st.log_at + nbytes) % (st.log_pages * PAGE)
    return st.log_start + np.arange(first, last + 1) % st.log_pages


def _webserver(rng: np.random.Generator, span: int, trace: _Trace) -> None:
    st = _webserver_setup(rng, span)
    target = TABLE_V["webserver"]
    while not trace.full:
        for _ in range(WEBSERVER_READS):
            trace.read_if_missed(_pick(rng, st.files), target)
        nbytes = int(rng.integers(APPEND_MAX + 1))
        if nbytes:
            trace.emit(_log_append(st, nbytes), False)


# Videoserver

@dataclass
class _Videoserver:
    video_pages: int
    active: list[np.ndarray]
    passive: list[np.ndarray]
    alloc: _Allocator
    streams: list[list[int]]  # per reader: [active video, page offset]
    writing: list[int] | None = None  # pages of the video being written
    left: int = 0  # its pages still to write


def _videoserver_setup(rng: np.random.Generator, span: int) -> _Videoserver:
    videos = ACTIVE_VIDEOS + PASSIVE_VIDEOS
    v = int(VIDEO_FILL * span) // videos
    if v < READ_PAGES:
        raise ValueError(f"videoserver: span_pages={span} is too small for {videos} videos of at least "
                         f"{READ_PAGES} pages (needs {math.ceil(videos * READ_PAGES / VIDEO_FILL)} pages)")
    laid = [np.arange(i * v, (i + 1) * v, dtype=np.int64) for i in range(videos)]
    streams = [[int(rng.integers(ACTIVE_VIDEOS)), int(rng.integers(v))] for _ in range(READERS)]
    return _Videoserver(v, laid[:ACTIVE_VIDEOS], laid[ACTIVE_VIDEOS:], _Allocator(videos * v, span, "videoserver"),
                        streams)


def _video_read(rng: np.random.Generator, st: _Videoserver, trace: _Trace) -> None:
    s = _pick(rng, st.streams)
    video, at = s
    n = min(READ_PAGES, st.video_pages - at)
    trace.emit(st.active[video][at:at + n], True)
    s[1] = (at + n) % st.video_pages


def _video_write(rng: np.random.Generator, st: _Videoserver, trace: _Trace) -> None:
    if st.writing is None:
        st.alloc.give(_take_out(rng, st.passive))
        st.writing, st.left = [], st.video_pages
    piece = st.alloc.take(min(WRITE_PAGES, st.left))
    st.writing.extend(piece)
    st.left -= len(piece)
    trace.emit(piece, False)
    if st.left == 0:
        st.passive.append(np.asarray(st.writing, dtype=np.int64))
        st.writing = None


def _videoserver(rng: np.random.Generator, span: int, trace: _Trace) -> None:
    st = _videoserver_setup(rng, span)
    target = TABLE_V["videoserver"]
    while not trace.full:
        piece = min(WRITE_PAGES, st.left) if st.writing is not None else WRITE_PAGES
        # Centred on the writer's next piece, so that the ratio swings evenly about Table V's.
        if trace.reads < target * (trace.writes + piece / 2):
            _video_read(rng, st, trace)
        else:
            _video_write(rng, st, trace)


_RUN = {"varmail": _varmail, "webserver": _webserver, "videoserver": _videoserver}
_SETUP = {"varmail": _varmail_setup, "webserver": _webserver_setup, "videoserver": _videoserver_setup}


def _check(personality: str, pages: int, span_pages: int, base_page: int) -> None:
    if personality not in _RUN:
        raise ValueError(f"unknown Filebench personality {personality!r}: expected one of {', '.join(PERSONALITIES)}")
    if pages < 1:
        raise ValueError(f"{personality}: pages must be at least 1, not {pages}")
    if span_pages < 1 or base_page < 0:
        raise ValueError(f"{personality}: need span_pages >= 1 and base_page >= 0 (got {span_pages}, {base_page})")


def footprint(personality: str, seed: int = 2015, span_pages: int = DEFAULT_SPAN) -> int:
    """Pages the file set takes at the start of the run: offsets [0, footprint) of the span,
    what preconditioning must have written."""
    _check(personality, 1, span_pages, 0)
    st = _SETUP[personality](np.random.Generator(np.random.PCG64(seed)), span_pages)
    if personality == "webserver":
        return st.log_start + _pages_of(st.log_at)
    return st.alloc.top


def generate(personality: str, pages: int, seed: int = 2015, span_pages: int = DEFAULT_SPAN,
             base_page: int = 0) -> dict[str, np.ndarray]:
    """The first `pages` page operations of a personality's run: arrays `lpn` (int64,
    base_page + an offset within [0, span_pages)) and `is_read` (bool). Deterministic for a
    seed."""
    _check(personality, pages, span_pages, base_page)
    trace = _Trace(pages)
    _RUN[personality](np.random.Generator(np.random.PCG64(seed)), span_pages, trace)
    return {"lpn": trace.lpn + base_page, "is_read": trace.is_read}


def ratio(arrays: dict[str, np.ndarray]) -> float:
    """Reads over writes."""
    reads = int(np.count_nonzero(arrays["is_read"]))
    writes = len(arrays["is_read"]) - reads
    return reads / writes if writes else float("inf")


def write_trace(path: Path, personality: str, pages: int, seed: int = 2015, span_pages: int = DEFAULT_SPAN,
                base_page: int = 0) -> Path:
    """`generate(...)` as an MQSim trace: one 4 KiB request per page operation, 1 us apart
    (the replay is closed-loop at queue depth 1, so the times only order the requests)."""
    a = generate(personality, pages, seed, span_pages, base_page)
    n = len(a["lpn"])
    return mqsim_trace.write(Path(path), np.arange(n, dtype=np.int64) * 1000, a["lpn"] * SPP,
                             np.full(n, SPP, dtype=np.int64), a["is_read"])
