//! Error-correcting codes as models: given a raw bit error rate they answer latency,
//! retries and success. BCH (seed 001) and the LDPC decoding flow (seed 002).

pub mod bch;
pub mod config;
pub mod ldpc;
