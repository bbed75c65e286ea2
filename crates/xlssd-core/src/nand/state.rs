//! Per-block and per-page device state that the physics models read: effective wear, reads
//! since erase, and when and how each page was programmed.
//!
//! Per-page arrays are allocated zeroed (committed by the operating system only where a run
//! touches them) and only when a physics model is on, so the fixed-latency core pays nothing.

use crate::physics::Ispp;

pub struct DeviceState {
    /// Effective P/E cycles per block (a cycle can count less than one, seed 000 Eq. 10).
    pub wear: Vec<f32>,
    /// Reads since the last erase per block, weighted by page type and read mode (seed 003).
    pub reads: Vec<f32>,
    /// Retention clock, in hours, when each page was programmed.
    program_h: Vec<f32>,
    /// Programming algorithm of each page; 0 means the device default.
    mode: Vec<u8>,
}

fn code(a: Ispp) -> u8 {
    match a {
        Ispp::Sv => 1,
        Ispp::Dv => 2,
        Ispp::Rv => 3,
    }
}

impl DeviceState {
    pub fn new(blocks: u32, pages: u32) -> DeviceState {
        DeviceState {
            wear: vec![0.0; blocks as usize],
            reads: vec![0.0; blocks as usize],
            program_h: vec![0.0; pages as usize],
            mode: vec![0; pages as usize],
        }
    }

    pub fn on_program(&mut self, ppn: u32, clock_h: f64, algorithm: Ispp) {
        self.program_h[ppn as usize] = clock_h as f32;
        self.mode[ppn as usize] = code(algorithm);
    }

    pub fn on_erase(&mut self, block: u32, wear_increment: f32) {
        self.wear[block as usize] += wear_increment;
        self.reads[block as usize] = 0.0;
    }

    /// Hours the page's data has aged by the retention clock `clock_h`.
    pub fn age_h(&self, ppn: u32, clock_h: f64) -> f64 {
        (clock_h - self.program_h[ppn as usize] as f64).max(0.0)
    }

    pub fn algorithm(&self, ppn: u32, default: Ispp) -> Ispp {
        match self.mode[ppn as usize] {
            1 => Ispp::Sv,
            2 => Ispp::Dv,
            3 => Ispp::Rv,
            _ => default,
        }
    }
}
