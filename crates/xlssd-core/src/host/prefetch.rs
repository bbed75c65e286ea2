//! Reading a trace on a second thread: parsing overlaps simulation, and requests arrive in
//! file order, so results do not change.
//!
//! Neither side waits without end: the simulation waits for a chunk an interval at a time,
//! asking between waits whether the run must stop ([`interrupt`]), and the reader, waiting on
//! a pipe with nothing to read, stops once the simulation has let go of it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::thread;

use super::{Request, RequestSource};
use crate::error::{Error, Result};
use crate::interrupt;

/// Requests handed over per message.
const CHUNK: usize = 4096;
/// Chunks parsed ahead of the simulation.
const AHEAD: usize = 4;
/// Requests ahead of the one taken whose memory is fetched.
const FETCH_AHEAD: usize = 16;

struct Chunk {
    requests: Vec<Request>,
    skipped: u64,
    /// The source ended (`Ok`) or failed after these requests.
    end: Option<Result<()>>,
}

/// A request source read ahead on its own thread.
pub struct Prefetch {
    rx: Receiver<Chunk>,
    current: std::vec::IntoIter<Request>,
    end: Option<Result<()>>,
    name: String,
    skipped: u64,
    queue_depth: Option<u32>,
    /// Set when this reader is dropped: the reading thread then stops at its next wait.
    dropped: Arc<AtomicBool>,
}

impl Prefetch {
    pub fn new(mut source: Box<dyn RequestSource + Send>) -> Prefetch {
        let name = source.name().to_string();
        let queue_depth = source.preferred_queue_depth();
        let (tx, rx) = sync_channel::<Chunk>(AHEAD);
        let dropped = Arc::new(AtomicBool::new(false));
        let gone = dropped.clone();
        thread::spawn(move || {
            let _check = interrupt::install(Box::new(move || gone.load(Ordering::Relaxed)));
            read_ahead(&mut *source, tx)
        });
        Prefetch { rx, current: Vec::new().into_iter(), end: None, name, skipped: 0, queue_depth, dropped }
    }

    /// Waits for the first chunk, so that a trace failing within it (empty, no requests, an
    /// overlong or malformed line near the start) is refused before the simulator sets up
    /// a device it would not run.
    pub fn started(mut self) -> Result<Prefetch> {
        self.receive()?;
        match &self.end {
            Some(Err(e)) => Err(e.clone()),
            _ => Ok(self),
        }
    }

    fn receive(&mut self) -> Result<()> {
        loop {
            match self.rx.recv_timeout(interrupt::INTERVAL) {
                Ok(chunk) => {
                    self.current = chunk.requests.into_iter();
                    self.skipped = chunk.skipped;
                    self.end = chunk.end;
                    return Ok(());
                }
                Err(RecvTimeoutError::Timeout) => interrupt::poll()?,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Error::Io { path: self.name.clone(), message: "the trace reader stopped unexpectedly".into() })
                }
            }
        }
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
    }
}

/// The reading thread: parses chunks of requests and sends them until the source ends or
/// fails, or the simulation stops taking them.
fn read_ahead(source: &mut (dyn RequestSource + Send), tx: std::sync::mpsc::SyncSender<Chunk>) {
    loop {
        let mut requests = Vec::with_capacity(CHUNK);
        let mut end = None;
        while requests.len() < CHUNK {
            match source.next_request() {
                Ok(Some(r)) => requests.push(r),
                Ok(None) => {
                    end = Some(Ok(()));
                    break;
                }
                Err(e) => {
                    end = Some(Err(e));
                    break;
                }
            }
        }
        let finished = end.is_some();
        // A closed channel means the simulation stopped early: nothing left to do.
        if tx.send(Chunk { requests, skipped: source.skipped_lines(), end }).is_err() || finished {
            break;
        }
    }
}

impl RequestSource for Prefetch {
    fn next_request(&mut self) -> Result<Option<Request>> {
        loop {
            if let Some(r) = self.current.next() {
                // The chunk was written on the reading thread's core: its lines are fetched a
                // few requests ahead, so that taking a request does not wait for its line to
                // cross from that core's cache.
                if let Some(ahead) = self.current.as_slice().get(FETCH_AHEAD) {
                    crate::sim::prefetch(ahead);
                }
                return Ok(Some(r));
            }
            if let Some(end) = &self.end {
                return end.clone().map(|()| None);
            }
            self.receive()?;
        }
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    fn preferred_queue_depth(&self) -> Option<u32> {
        self.queue_depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;

    struct Counting {
        n: u64,
        fail_at: Option<u64>,
    }

    impl RequestSource for Counting {
        fn next_request(&mut self) -> Result<Option<Request>> {
            if Some(self.n) == self.fail_at {
                return Err(Error::Trace { file: "t".into(), line: self.n + 1, text: "x".into(), message: "bad".into() });
            }
            if self.n == 10_000 {
                return Ok(None);
            }
            self.n += 1;
            Ok(Some(Request {
                arrival_ns: self.n,
                lba: self.n,
                sectors: 8,
                op: Op::Read,
                approx: false,
                context: 0,
                handle: None,
                tolerance: 0.0,
            }))
        }
        fn name(&self) -> &str {
            "counting"
        }
    }

    #[test]
    fn requests_arrive_in_order_then_the_end() {
        let mut p = Prefetch::new(Box::new(Counting { n: 0, fail_at: None }));
        for i in 1..=10_000 {
            assert_eq!(p.next_request().unwrap().unwrap().lba, i);
        }
        assert_eq!(p.next_request().unwrap(), None);
        assert_eq!(p.next_request().unwrap(), None);
    }

    #[test]
    fn an_error_in_the_first_chunk_is_reported_at_the_start() {
        assert!(matches!(
            Prefetch::new(Box::new(Counting { n: 0, fail_at: Some(5) })).started(),
            Err(Error::Trace { line: 6, .. })
        ));
        let mut p = Prefetch::new(Box::new(Counting { n: 0, fail_at: Some(5_000) })).started().unwrap();
        assert_eq!(p.next_request().unwrap().unwrap().lba, 1);
    }

    #[test]
    fn an_error_comes_after_the_requests_before_it() {
        let mut p = Prefetch::new(Box::new(Counting { n: 0, fail_at: Some(5_000) }));
        for _ in 0..5_000 {
            assert!(p.next_request().unwrap().is_some());
        }
        assert!(matches!(p.next_request(), Err(Error::Trace { line: 5001, .. })));
    }
}
