//! The versions of logical pages whose host writes wait for a physical page. When pages are
//! bound at issue, two writes of one logical page can wait at once (the buffer flushed it,
//! the host rewrote it, it was flushed again), in different dies' queues, and the older may
//! reach its die second; it must not then point the page at stale data.

use rustc_hash::FxHashMap;

#[derive(Default)]
pub(in crate::engine) struct WriteVersions {
    /// The next version handed out (compared only for equality, so it may wrap).
    next: u32,
    /// Per logical page with writes waiting: its latest version and how many wait.
    waiting: FxHashMap<u32, (u32, u32)>,
    /// Host writes waiting, over all logical pages.
    pending: u64,
}

impl WriteVersions {
    /// A host write of `lpn` is queued: its version.
    pub(in crate::engine) fn queued(&mut self, lpn: u32) -> u32 {
        let v = self.next;
        self.next = self.next.wrapping_add(1);
        let e = self.waiting.entry(lpn).or_insert((v, 0));
        *e = (v, e.1 + 1);
        self.pending += 1;
        v
    }

    /// Whether the write of `lpn` at version `v` is the latest one queued.
    pub(in crate::engine) fn is_latest(&self, lpn: u32, v: u32) -> bool {
        self.waiting.get(&lpn).is_some_and(|&(latest, _)| latest == v)
    }

    /// A write of `lpn` that held no version got its page: it is newer than any write of
    /// `lpn` still waiting, which is no longer the latest.
    #[inline]
    pub(in crate::engine) fn overtake(&mut self, lpn: u32) {
        if self.waiting.is_empty() {
            return;
        }
        if let Some(e) = self.waiting.get_mut(&lpn) {
            e.0 = self.next;
            self.next = self.next.wrapping_add(1);
        }
    }

    /// A write of `lpn` got its page or was dropped: it waits no more.
    pub(in crate::engine) fn settled(&mut self, lpn: u32) {
        if let Some(e) = self.waiting.get_mut(&lpn) {
            e.1 -= 1;
            self.pending -= 1;
            if e.1 == 0 {
                self.waiting.remove(&lpn);
            }
        }
    }

    /// Host writes waiting, over all logical pages.
    pub(in crate::engine) fn pending(&self) -> u64 {
        self.pending
    }

    /// Logical pages with host writes waiting.
    pub(in crate::engine) fn waiting_pages(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_latest_of_two_waiting_writes_is_latest_and_the_entry_goes_with_the_last() {
        let mut v = WriteVersions::default();
        let a = v.queued(7);
        let b = v.queued(7);
        assert!(!v.is_latest(7, a));
        assert!(v.is_latest(7, b));
        v.settled(7);
        assert_eq!(v.pending(), 1, "one write of page 7 still waits");
        assert!(v.is_latest(7, b));
        v.settled(7);
        assert_eq!(v.pending(), 0);
        v.settled(7);
        assert_eq!(v.pending(), 0, "settling a page with nothing waiting changes nothing");
        assert!(!v.is_latest(7, b), "nothing waits, so nothing is the latest waiting");
    }
}
