//! The discrete-event engine: a clock in nanoseconds and a queue of pending events.

mod queue;
pub mod seed;

pub use queue::EventQueue;
pub use seed::stream_seed;

/// Simulated time in nanoseconds.
pub type Time = u64;

pub const NS_PER_US: f64 = 1_000.0;

/// Converts microseconds (as configured) to whole nanoseconds, rounding to nearest.
pub fn us_to_ns(us: f64) -> Time {
    (us * NS_PER_US).round() as Time
}
