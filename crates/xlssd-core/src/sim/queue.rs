use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::Time;

/// Bits of a key's low half that name the slot holding the event; the rest is the
/// insertion sequence, which orders events of equal time.
const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;
const MAX_SEQ: u64 = (1 << (64 - SLOT_BITS)) - 1;

/// Bucket width of the wheel: 2^10 ns, about a microsecond, so that a bucket rarely holds
/// more than a couple of events.
const WIDTH_BITS: u32 = 10;
/// Buckets of the wheel: 8,192 of a microsecond each see 8.4 ms ahead, past a block erase;
/// later events wait in an overflow heap until the wheel reaches them.
const BUCKET_BITS: u32 = 13;
const BUCKETS: usize = 1 << BUCKET_BITS;
const WORDS: usize = BUCKETS / 64;
const SPAN: Time = (BUCKETS as Time) << WIDTH_BITS;
const NIL: u32 = u32::MAX;
/// The longest walk down a bucket's list to place an event; one that belongs further down
/// (between two bursts of events due at one time) waits in a heap set aside instead.
const MAX_WALK: usize = 16;

/// Future events in time order, ties broken by insertion order.
///
/// Every event has a 16-byte key (time in the high half, then insertion sequence and the
/// slot holding the event), and the queue gives out the smallest key first. Events due
/// within [`SPAN`] of the current bucket wait on a timing wheel: one bucket per
/// microsecond, each a list of slots sorted by key, with a two-level bitmap of the buckets
/// that hold any. Taking the next event finds the first such bucket from the current one
/// and takes the head of its list. Scheduling one links it into its bucket, at the tail
/// when its key is the largest there, as it nearly always is (a burst of events due at one
/// time comes in insertion order); one whose place is far down a crowded list waits in a
/// heap set aside. Neither costs more with more events pending, where a binary heap pays a
/// sift of its depth. Events due later wait in an overflow heap and move onto the wheel as
/// it turns. Events scheduled through [`EventQueue::schedule_ordered`] (a source whose
/// times never decrease, such as host arrivals) wait in a FIFO. All are merged by the same
/// keys, so the order is exactly that of a single sorted queue.
pub struct EventQueue<E> {
    /// Per slot: the event waiting there, its key and the next slot of its bucket, side by
    /// side so that taking or linking an event reads one place.
    nodes: Vec<Node<E>>,
    /// The first free slot; free slots are chained through their `next`.
    free_head: u32,
    /// Per bucket: its first (smallest) and last slot.
    heads: Box<[u32; BUCKETS]>,
    tails: Box<[u32; BUCKETS]>,
    /// Buckets holding an event, and words of that map holding a set bit.
    occupied: [u64; WORDS],
    occupied_words: [u64; WORDS.div_ceil(64)],
    on_wheel: usize,
    /// Start of the bucket holding `now`: the wheel holds events due in
    /// `[base, base + SPAN)` (up to the end of time), the overflow heap those due later.
    base: Time,
    overflow: BinaryHeap<Reverse<u128>>,
    /// Events due within the wheel's span whose place in their bucket was too far down its
    /// list; merged with the rest by key.
    aside: BinaryHeap<Reverse<u128>>,
    ordered: VecDeque<(u128, E)>,
    /// The key at the front of `ordered`, [`FREE`] when it is empty: compared on every
    /// take, so kept at hand.
    ordered_front: u128,
    next_seq: u64,
    now: Time,
    popped: u64,
}

/// A slot of the queue. A free slot keeps its last event (events are `Copy`) and the key
/// [`FREE`].
#[derive(Clone, Copy)]
struct Node<E> {
    key: u128,
    next: u32,
    event: E,
}

/// The key of a free slot: no event's, since sequence numbers stop short of all ones.
const FREE: u128 = u128::MAX;

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

fn key_time(key: u128) -> Time {
    (key >> 64) as Time
}

fn key_slot(key: u128) -> u32 {
    (key as u64 & SLOT_MASK) as u32
}

fn bucket_of(time: Time) -> usize {
    (time >> WIDTH_BITS) as usize & (BUCKETS - 1)
}

/// Where the smallest key on the wheel is: the head of a bucket's list.
#[derive(Clone, Copy)]
struct Found {
    bucket: usize,
    slot: u32,
}

/// Where the next event comes from.
#[derive(Clone, Copy)]
enum Source {
    Wheel(Found),
    Overflow,
    Aside,
    Ordered,
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            nodes: Vec::with_capacity(1024),
            free_head: NIL,
            heads: Box::new([NIL; BUCKETS]),
            tails: Box::new([NIL; BUCKETS]),
            occupied: [0; WORDS],
            occupied_words: [0; WORDS.div_ceil(64)],
            on_wheel: 0,
            base: 0,
            overflow: BinaryHeap::new(),
            aside: BinaryHeap::new(),
            ordered: VecDeque::new(),
            ordered_front: FREE,
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
        self.on_wheel + self.overflow.len() + self.aside.len() + self.ordered.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key of an event at `time` (not before now), taking the next sequence number.
    fn key(&mut self, time: Time, slot: u32) -> u128 {
        debug_assert!(time >= self.now, "event scheduled in the past: {time} < {}", self.now);
        let seq = self.next_seq;
        assert!(seq < MAX_SEQ, "more than {MAX_SEQ} events scheduled in one run");
        self.next_seq += 1;
        let time = time.max(self.now);
        ((time as u128) << 64) | ((seq << SLOT_BITS) | slot as u64) as u128
    }

    /// Schedules `event` at absolute time `time`, which must not be in the past.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: E) {
        let slot = match self.free_head {
            NIL => {
                let s = self.nodes.len() as u32;
                assert!((s as u64) <= SLOT_MASK, "more than {SLOT_MASK} events pending at once");
                self.nodes.push(Node { key: FREE, next: NIL, event });
                s
            }
            s => {
                self.free_head = self.nodes[s as usize].next;
                s
            }
        };
        let key = self.key(time, slot);
        self.nodes[slot as usize] = Node { key, next: NIL, event };
        if key_time(key) < self.base.saturating_add(SPAN) {
            self.link(slot, key_time(key));
        } else {
            self.overflow.push(Reverse(key));
        }
    }

    /// Schedules `event` `delay` ns from now.
    #[inline(always)]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Schedules `event` at `time`, no earlier than the previous event scheduled this way
    /// that is still pending. Such events bypass the wheel.
    pub fn schedule_ordered(&mut self, time: Time, event: E) {
        let key = self.key(time, 0);
        assert!(
            self.ordered.back().is_none_or(|&(k, _)| key_time(k) <= key_time(key)),
            "ordered event scheduled before its predecessor"
        );
        if self.ordered.is_empty() {
            self.ordered_front = key;
        }
        self.ordered.push_back((key, event));
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        let (key, _) = self.next_key();
        (key != FREE).then(|| key_time(key))
    }

    /// The smallest key pending, and where it waits; [`FREE`] (larger than any event's key)
    /// when nothing is.
    #[inline]
    fn next_key(&self) -> (u128, Source) {
        self.next_key_with(self.wheel_min())
    }

    /// [`Self::next_key`], given the wheel's smallest key (`wheel`, from [`Self::wheel_min`]).
    #[inline]
    fn next_key_with(&self, wheel: Option<Found>) -> (u128, Source) {
        // The wheel's events come before the overflow's, all of which are due later.
        let (mut key, mut source) = match wheel {
            Some(f) => (self.nodes[f.slot as usize].key, Source::Wheel(f)),
            None => (self.overflow.peek().map_or(FREE, |&Reverse(k)| k), Source::Overflow),
        };
        if let Some(&Reverse(a)) = self.aside.peek() {
            if a < key {
                (key, source) = (a, Source::Aside);
            }
        }
        if self.ordered_front < key {
            (key, source) = (self.ordered_front, Source::Ordered);
        }
        (key, source)
    }

    /// Takes the next event and advances the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        // Nearly always the head of the wheel's first bucket comes first: one comparison
        // against the smaller of the other two sources' fronts decides it.
        let side = self.aside.peek().map_or(FREE, |&Reverse(k)| k).min(self.ordered_front);
        let wheel = self.wheel_min();
        let (key, event) = match wheel {
            Some(f) if self.nodes[f.slot as usize].key < side => {
                let key = self.nodes[f.slot as usize].key;
                self.unlink(f);
                (key, self.take_slot(f.slot))
            }
            _ => self.pop_elsewhere(wheel)?,
        };
        self.now = key_time(key);
        self.popped += 1;
        self.turn_to(self.now);
        Some((self.now, event))
    }

    /// [`Self::pop`] when the next event is not the head of the wheel: it comes from the
    /// FIFO, the heap set aside or (with the wheel empty) the overflow heap. `wheel` is the
    /// wheel's smallest key, as `pop` found it.
    fn pop_elsewhere(&mut self, wheel: Option<Found>) -> Option<(u128, E)> {
        let (key, source) = self.next_key_with(wheel);
        if key == FREE {
            return None;
        }
        let event = match source {
            Source::Ordered => {
                let (_, event) = self.ordered.pop_front().expect("the ordered queue's front");
                self.ordered_front = self.ordered.front().map_or(FREE, |&(k, _)| k);
                event
            }
            Source::Wheel(f) => {
                self.unlink(f);
                self.take_slot(f.slot)
            }
            Source::Overflow => {
                self.overflow.pop();
                self.take_slot(key_slot(key))
            }
            Source::Aside => {
                self.aside.pop();
                self.take_slot(key_slot(key))
            }
        };
        Some((key, event))
    }

    fn take_slot(&mut self, slot: u32) -> E {
        let node = &mut self.nodes[slot as usize];
        assert!(node.key != FREE, "a key names a free slot");
        node.key = FREE;
        node.next = self.free_head;
        self.free_head = slot;
        node.event
    }

    /// Puts `slot`, due at `time` within the wheel's span, into its bucket, in key order.
    #[inline(always)]
    fn link(&mut self, slot: u32, time: Time) {
        debug_assert!(time >= self.base && time < self.base.saturating_add(SPAN));
        let b = bucket_of(time);
        let key = self.nodes[slot as usize].key;
        self.nodes[slot as usize].next = NIL;
        let tail = self.tails[b];
        if tail == NIL {
            self.heads[b] = slot;
            self.tails[b] = slot;
            self.occupied[b / 64] |= 1 << (b % 64);
            self.occupied_words[b / 4096] |= 1 << ((b / 64) % 64);
        } else if self.nodes[tail as usize].key < key {
            self.nodes[tail as usize].next = slot;
            self.tails[b] = slot;
        } else if !self.insert_before_tail(b, slot, key) {
            self.aside.push(Reverse(key));
            return;
        }
        self.on_wheel += 1;
    }

    /// Links `slot` into bucket `b` where its key belongs, before the tail's; false when
    /// that place is more than [`MAX_WALK`] slots down the list.
    #[cold]
    fn insert_before_tail(&mut self, b: usize, slot: u32, key: u128) -> bool {
        let head = self.heads[b];
        if key < self.nodes[head as usize].key {
            self.nodes[slot as usize].next = head;
            self.heads[b] = slot;
            return true;
        }
        let mut at = head;
        for _ in 0..MAX_WALK {
            let next = self.nodes[at as usize].next;
            if self.nodes[next as usize].key > key {
                self.nodes[slot as usize].next = next;
                self.nodes[at as usize].next = slot;
                return true;
            }
            at = next;
        }
        false
    }

    /// Takes the head of bucket `f.bucket` off its list.
    fn unlink(&mut self, f: Found) {
        debug_assert_eq!(self.heads[f.bucket], f.slot);
        let after = self.nodes[f.slot as usize].next;
        self.heads[f.bucket] = after;
        if after == NIL {
            self.tails[f.bucket] = NIL;
            let w = f.bucket / 64;
            self.occupied[w] &= !(1 << (f.bucket % 64));
            if self.occupied[w] == 0 {
                self.occupied_words[w / 64] &= !(1 << (w % 64));
            }
        }
        self.on_wheel -= 1;
    }

    /// The first bucket holding an event, from the current one on, round the wheel.
    fn first_bucket(&self) -> Option<usize> {
        if self.on_wheel == 0 {
            return None;
        }
        let cur = bucket_of(self.base);
        let w = cur / 64;
        let here = self.occupied[w] & (!0u64 << (cur % 64));
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        // The words after this one, then from the start: word `w` itself comes last, when
        // only its buckets before `cur` (the end of the span) can hold events.
        let word = self.first_word(w + 1).or_else(|| self.first_word(0)).expect("the wheel holds an event");
        Some(word * 64 + self.occupied[word].trailing_zeros() as usize)
    }

    /// The first word of the bucket map at or after `from` with a bucket in use.
    fn first_word(&self, from: usize) -> Option<usize> {
        let mut i = from / 64;
        let mut mask = !0u64 << (from % 64);
        while i < self.occupied_words.len() {
            let bits = self.occupied_words[i] & mask;
            if bits != 0 {
                return Some(i * 64 + bits.trailing_zeros() as usize);
            }
            i += 1;
            mask = !0;
        }
        None
    }

    /// The smallest key on the wheel: the head of its first occupied bucket, whose events
    /// all come before any other bucket's.
    #[inline]
    fn wheel_min(&self) -> Option<Found> {
        let bucket = self.first_bucket()?;
        Some(Found { bucket, slot: self.heads[bucket] })
    }

    /// Moves the wheel to the bucket of `now`, taking on the overflow's events that are
    /// now within its span.
    #[inline]
    fn turn_to(&mut self, now: Time) {
        // Set whether or not it moved: whether the clock crossed a bucket's edge is a coin
        // toss the processor would guess wrong half the time, while the overflow is nearly
        // always empty.
        let base = now & !((1 << WIDTH_BITS) - 1);
        debug_assert!(base >= self.base);
        self.base = base;
        if !self.overflow.is_empty() {
            self.take_overflow();
        }
    }

    /// Moves the overflow's events now within the wheel's span onto the wheel.
    #[cold]
    fn take_overflow(&mut self) {
        while let Some(&Reverse(k)) = self.overflow.peek() {
            if key_time(k) >= self.base.saturating_add(SPAN) {
                break;
            }
            self.overflow.pop();
            self.link(key_slot(k), key_time(k));
        }
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
    fn events_at_the_edge_of_the_wheel_and_beyond_come_out_in_order() {
        // Around the wheel's span (8,192 buckets of 1,024 ns), past it (the overflow), and
        // scheduled again once the wheel has turned so that their buckets wrap round.
        let span = (1u64 << 13) << 10;
        let mut q = EventQueue::new();
        let times = [span + 1, span - 1, 3 * span, span, 0, 1023, 1024, 2 * span - 1];
        for (i, &t) in times.iter().enumerate() {
            q.schedule(t, i);
        }
        assert_eq!(q.pop(), Some((0, 4)));
        assert_eq!(q.pop(), Some((1023, 5)));
        assert_eq!(q.pop(), Some((1024, 6)));
        assert_eq!(q.pop(), Some((span - 1, 1)));
        // The wheel now starts a bucket before `span`: these land in buckets before its own.
        q.schedule(span - 1 + 5_000, 10);
        q.schedule(span + 3_000_000, 11);
        q.schedule(span, 12);
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            rest,
            vec![
                (span, 3),
                (span, 12),
                (span + 1, 0),
                (span + 4_999, 10),
                (span + 3_000_000, 11),
                (2 * span - 1, 7),
                (3 * span, 2)
            ]
        );
        assert_eq!(q.len(), 0);
    }

    #[test]
    fn events_crowding_one_bucket_in_any_order_come_out_in_order() {
        // Hundreds of events within one microsecond, scheduled in a scrambled order, and
        // bursts at one time: each bucket's list must stay sorted by time, then insertion.
        let mut q = EventQueue::new();
        let mut reference = Vec::new();
        let mut state = 0x0123_4567_89ab_cdefu64;
        for seq in 0..600u64 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let t = 2_048 + if seq % 3 == 0 { 500 } else { state % 1_024 };
            q.schedule(t, seq);
            reference.push((t, seq));
        }
        reference.sort();
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, reference);
    }

    #[test]
    fn events_near_the_end_of_time_come_out_in_order() {
        // Runs stop at 2^62 ns, but the queue itself takes any time: the wheel's span must
        // not wrap round past the largest.
        let end = Time::MAX;
        let mut q = EventQueue::new();
        q.schedule(end - 10, "a");
        q.schedule(end, "c");
        q.schedule(5, "first");
        assert_eq!(q.pop(), Some((5, "first")));
        assert_eq!(q.pop(), Some((end - 10, "a")));
        q.schedule(end - 3, "b");
        q.schedule(end, "d");
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(rest, vec!["b", "c", "d"]);
        assert_eq!(q.now(), end);
    }

    #[test]
    fn ordered_events_merge_with_the_timed_ones_by_time_then_insertion_order() {
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
