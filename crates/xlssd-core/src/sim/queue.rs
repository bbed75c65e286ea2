use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::Time;

/// Bits of a key's low half that name the slot holding the event; the rest is the
/// insertion sequence, which orders events of equal time.
const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;
const MAX_SEQ: u64 = (1 << (64 - SLOT_BITS)) - 1;

/// Future events in time order, ties broken by insertion order.
///
/// The heap holds only 16-byte keys (time in the high half, then sequence and slot); the
/// events wait in slots beside it, so a sift moves keys, not events. Events scheduled
/// through [`EventQueue::schedule_ordered`] (a source whose times never decrease, such as
/// host arrivals) wait in a FIFO instead and never enter the heap; they are merged with it
/// by the same keys, so the order is exactly that of a single queue.
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<u128>>,
    slots: Vec<Option<E>>,
    free_slots: Vec<u32>,
    ordered: VecDeque<(u128, E)>,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

fn key_time(key: u128) -> Time {
    (key >> 64) as Time
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            slots: Vec::with_capacity(1024),
            free_slots: Vec::new(),
            ordered: VecDeque::new(),
            next_seq: 0,
            now: 0,
            popped: 0,
        }
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
        self.heap.len() + self.ordered.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.ordered.is_empty()
    }

    /// The key of an event at `time` (not before now), taking the next sequence number.
    fn key(&mut self, time: Time, slot: u32) -> u128 {
        debug_assert!(time >= self.now, "event scheduled in the past: {time} < {}", self.now);
        let seq = self.next_seq;
        assert!(seq <= MAX_SEQ, "more than {MAX_SEQ} events scheduled in one run");
        self.next_seq += 1;
        let time = time.max(self.now);
        ((time as u128) << 64) | ((seq << SLOT_BITS) | slot as u64) as u128
    }

    /// Schedules `event` at absolute time `time`, which must not be in the past.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: E) {
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(event);
                s
            }
            None => {
                let s = self.slots.len() as u32;
                assert!((s as u64) <= SLOT_MASK, "more than {SLOT_MASK} events pending at once");
                self.slots.push(Some(event));
                s
            }
        };
        let key = self.key(time, slot);
        self.push(key);
    }

    /// Schedules `event` `delay` ns from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Schedules `event` at `time`, no earlier than the previous event scheduled this way
    /// that is still pending. Such events bypass the heap.
    pub fn schedule_ordered(&mut self, time: Time, event: E) {
        let key = self.key(time, 0);
        assert!(
            self.ordered.back().is_none_or(|&(k, _)| key_time(k) <= key_time(key)),
            "ordered event scheduled before its predecessor"
        );
        self.ordered.push_back((key, event));
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        match (self.heap.peek().map(|r| r.0), self.ordered.front()) {
            (Some(h), Some(&(o, _))) => Some(key_time(h.min(o))),
            (Some(h), None) => Some(key_time(h)),
            (None, Some(&(o, _))) => Some(key_time(o)),
            (None, None) => None,
        }
    }

    /// Takes the next event and advances the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let from_ordered = match (self.heap.peek(), self.ordered.front()) {
            (Some(&Reverse(h)), Some(&(o, _))) => o < h,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        let (key, event) = if from_ordered {
            self.ordered.pop_front()?
        } else {
            let key = self.pop_min()?;
            let slot = (key as u64 & SLOT_MASK) as u32;
            let event = self.slots[slot as usize].take().expect("a heap key names an occupied slot");
            self.free_slots.push(slot);
            (key, event)
        };
        self.now = key_time(key);
        self.popped += 1;
        Some((self.now, event))
    }

    #[inline]
    fn push(&mut self, key: u128) {
        self.heap.push(Reverse(key));
    }

    #[inline]
    fn pop_min(&mut self) -> Option<u128> {
        self.heap.pop().map(|Reverse(k)| k)
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
        let mut last_ordered = 0;
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
                // Some events go through the ordered lane, whenever their time allows it.
                if r % 7 == 0 && t >= last_ordered {
                    q.schedule_ordered(t, seq);
                    last_ordered = t;
                } else {
                    q.schedule(t, seq);
                }
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
    fn ordered_events_merge_with_the_heap_by_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule_ordered(10, "o1");
        q.schedule(10, "h1");
        q.schedule(5, "h0");
        q.schedule_ordered(10, "o2");
        q.schedule_ordered(20, "o3");
        q.schedule(20, "h2");
        assert_eq!(q.len(), 6);
        assert_eq!(q.peek_time(), Some(5));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec!["h0", "o1", "h1", "o2", "o3", "h2"]);
    }

    #[test]
    #[should_panic(expected = "ordered event scheduled before its predecessor")]
    fn an_ordered_event_earlier_than_its_predecessor_is_refused() {
        let mut q = EventQueue::new();
        q.schedule_ordered(10, 1);
        q.schedule_ordered(9, 2);
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
