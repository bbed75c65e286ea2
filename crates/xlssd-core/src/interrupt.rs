//! Stopping a run from outside, whatever it is doing.
//!
//! The program that embeds the core (the Python binding) installs a check on the thread
//! that runs a simulation, for the length of the call ([`install`]). The check says whether
//! the run must stop (Ctrl-C, SIGTERM) and may do what it needs to find out: the binding runs
//! Python's signal handlers. The core asks in three kinds of place:
//!
//! - long loops (the event loop, the device's set-up) call [`poll`] every few thousand
//!   steps; it runs the check only when [`INTERVAL`] of wall time has passed since the last
//!   time, so a check costing a microsecond costs the loop nothing measurable;
//! - blocking waits (the next chunk of a trace, a pipe with nothing to read yet) wait at
//!   most [`INTERVAL`] at a time and ask between waits;
//! - work that cannot return an error (a model's table filled from the read path) asks
//!   [`stopping`] and gives up early. A stop once seen is latched, so the next [`poll`] of
//!   the loop around it fails with [`Error::Interrupted`].
//!
//! A thread without a check is never stopped, and asking costs it a few loads.

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The longest a stop waits to be seen: the wall time between two runs of the check.
pub const INTERVAL: Duration = Duration::from_millis(50);

/// Returns true when the run must stop.
pub type Check = Box<dyn FnMut() -> bool>;

thread_local! {
    static CHECK: RefCell<Option<Check>> = const { RefCell::new(None) };
    static INSTALLED: Cell<bool> = const { Cell::new(false) };
    static LAST: Cell<Option<Instant>> = const { Cell::new(None) };
    static STOPPED: Cell<bool> = const { Cell::new(false) };
}

/// Keeps a check installed on this thread; dropping it puts back the one it replaced.
pub struct Installed {
    previous: Option<Check>,
    previous_stopped: bool,
}

/// Installs `check` on this thread until the returned guard is dropped.
#[must_use = "the check is removed when the guard is dropped"]
pub fn install(check: Check) -> Installed {
    let previous = CHECK.with(|c| c.borrow_mut().replace(check));
    let previous_stopped = STOPPED.replace(false);
    INSTALLED.set(true);
    LAST.set(Some(Instant::now()));
    Installed { previous, previous_stopped }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let previous = self.previous.take();
        INSTALLED.set(previous.is_some());
        CHECK.with(|c| *c.borrow_mut() = previous);
        STOPPED.set(self.previous_stopped);
        LAST.set(Some(Instant::now()));
    }
}

/// Whether the run must stop: runs the check when [`INTERVAL`] has passed since it last ran.
///
/// Never inlined: in the Python extension, a shared library, reaching a thread-local costs a
/// call that the compiler may hoist to the start of whatever function this is inlined in,
/// making a hot function (a trace's line reader) pay it on every call.
#[inline(never)]
pub fn stopping() -> bool {
    if STOPPED.get() {
        return true;
    }
    if !INSTALLED.get() {
        return false;
    }
    let now = Instant::now();
    if LAST.get().is_some_and(|last| now.duration_since(last) < INTERVAL) {
        return false;
    }
    LAST.set(Some(now));
    // Taken out while it runs: a check that (through Python) reaches the core again finds
    // none instead of a cell already borrowed.
    let Some(mut check) = CHECK.with(|c| c.borrow_mut().take()) else { return false };
    let stop = check();
    CHECK.with(|c| *c.borrow_mut() = Some(check));
    STOPPED.set(stop);
    stop
}

/// [`Error::Interrupted`] when the run must stop (see [`stopping`]).
pub fn poll() -> Result<()> {
    if stopping() {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

/// The error a read that gave up because the run must stop returns; [`from_io`] turns it
/// back into [`Error::Interrupted`]. (Not `ErrorKind::Interrupted`: readers retry those.)
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
struct Stopped;

pub fn io_error() -> std::io::Error {
    std::io::Error::other(Stopped)
}

/// [`Error::Interrupted`] for a read that stopped because the run must (see [`io_error`]).
pub fn from_io(e: &std::io::Error) -> Option<Error> {
    e.get_ref().is_some_and(|inner| inner.is::<Stopped>()).then_some(Error::Interrupted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn without_a_check_nothing_stops() {
        assert!(!stopping());
        assert!(poll().is_ok());
    }

    #[test]
    fn the_check_runs_at_most_once_an_interval_and_a_stop_is_latched() {
        let calls = Rc::new(Cell::new(0u32));
        let counted = calls.clone();
        let guard = install(Box::new(move || {
            counted.set(counted.get() + 1);
            counted.get() >= 2
        }));
        for _ in 0..1000 {
            assert!(!stopping());
        }
        assert_eq!(calls.get(), 0, "asked again within the interval");
        std::thread::sleep(INTERVAL);
        assert!(!stopping());
        std::thread::sleep(INTERVAL);
        assert!(matches!(poll(), Err(Error::Interrupted)));
        assert!(stopping(), "a stop stays");
        assert_eq!(calls.get(), 2);
        drop(guard);
        assert!(!stopping(), "removing the check clears the stop");
    }

    #[test]
    fn a_stopped_read_comes_back_as_interrupted() {
        assert!(matches!(from_io(&io_error()), Some(Error::Interrupted)));
        assert!(from_io(&std::io::Error::other("disk on fire")).is_none());
    }
}
