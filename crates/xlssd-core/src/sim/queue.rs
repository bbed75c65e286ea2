use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::Time;

/// A pending event: ordered by time, then by the order it was scheduled in, so that runs are
/// deterministic whatever the heap does with equal keys.
struct Entry<E> {
    /// Time in the high 64 bits, insertion sequence in the low: one comparison orders both.
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: the earliest (time, seq) must compare greatest.
        other.key.cmp(&self.key)
    }
}

/// Future events in time order, ties broken by insertion order.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0, now: 0, popped: 0 }
    }

    /// The time of the event most recently taken off the queue.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events taken off the queue so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at absolute time `time`, which must not be in the past.
    pub fn schedule(&mut self, time: Time, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time} < {}", self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        let time = time.max(self.now);
        self.heap.push(Entry { key: ((time as u128) << 64) | seq as u128, event });
    }

    /// Schedules `event` `delay` ns from now.
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time())
    }

    /// Takes the next event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.now = e.time();
        self.popped += 1;
        Some((self.now, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_in_time_order_ties_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(30, "c");
        q.schedule(10, "a1");
        q.schedule(20, "b");
        q.schedule(10, "a2");
        q.schedule(10, "a3");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(10, "a1"), (10, "a2"), (10, "a3"), (20, "b"), (30, "c")]);
        assert_eq!(q.now(), 30);
        assert_eq!(q.processed(), 5);
    }

    #[test]
    fn interleaved_pushes_and_pops_follow_time_then_insertion_order() {
        // Against a plain reference: every pending (time, seq) in a sorted list. Delays mix
        // zero (ties with now), small and very large ones, so entries cross many buckets.
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64)> = Vec::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut seq = 0;
        for _ in 0..20_000 {
            let r = next();
            if r % 3 != 0 || reference.is_empty() {
                let delay = match r % 5 {
                    0 => 0,
                    1 => r % 7,
                    2 => r % 5_000,
                    3 => r % 10_000_000,
                    _ => r % (1 << 40),
                };
                let t = q.now() + delay;
                q.schedule(t, seq);
                reference.push((t, seq));
                seq += 1;
            } else {
                reference.sort();
                let (t, s) = reference.remove(0);
                assert_eq!(q.pop(), Some((t, s)));
                assert_eq!(q.len(), reference.len());
            }
        }
        reference.sort();
        for (t, s) in reference {
            assert_eq!(q.pop(), Some((t, s)));
        }
        assert!(q.is_empty() && q.pop().is_none());
    }

    #[test]
    fn schedule_in_is_relative_to_now() {
        let mut q = EventQueue::new();
        q.schedule(100, 1);
        q.pop();
        q.schedule_in(5, 2);
        assert_eq!(q.pop(), Some((105, 2)));
    }
}
