//! The seams: the floor the engine is built against and the techniques plug into. Each
//! axis a scheme may change is a trait whose default methods are the baseline behaviour
//! ([`hooks`]); [`Baseline`] is a scheme that overrides nothing, and [`Joined`] routes each
//! hook to the one part of a scheme that claims it, falling back to the baseline.
//!
//! This layer sits below the configuration, the engine and the techniques: it imports only
//! the device layers (`ftl`, `nand`, `physics`, `host`'s request type, `sim`), so that the
//! engine depends on the seams, never on a technique (`tests/tidy.rs` holds both rules).

mod baseline;
pub mod hooks;
mod joined;

pub use baseline::Baseline;
pub use hooks::*;
pub use joined::Joined;
