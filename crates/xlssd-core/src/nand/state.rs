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
    /// Per page, packed in one word so that a read touches one cache line of page state:
    /// the low 32 bits hold the retention clock (hours, as f32 bits) when the page was
    /// programmed, the next 8 its programming algorithm (0 = the device default). A plain
    /// integer vector is allocated zeroed, so untouched pages cost no memory.
    pages: Vec<u64>,
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
            pages: vec![0u64; pages as usize],
        }
    }

    pub fn on_program(&mut self, ppn: u32, clock_h: f64, algorithm: Ispp) {
        self.pages[ppn as usize] = (clock_h as f32).to_bits() as u64 | (code(algorithm) as u64) << 32;
    }

    pub fn on_erase(&mut self, block: u32, wear_increment: f32) {
        self.wear[block as usize] += wear_increment;
        self.reads[block as usize] = 0.0;
    }

    /// Hours the page's data has aged by the retention clock `clock_h`.
    pub fn age_h(&self, ppn: u32, clock_h: f64) -> f64 {
        let programmed = f32::from_bits(self.pages[ppn as usize] as u32);
        (clock_h - programmed as f64).max(0.0)
    }

    pub fn algorithm(&self, ppn: u32, default: Ispp) -> Ispp {
        match (self.pages[ppn as usize] >> 32) as u8 {
            1 => Ispp::Sv,
            2 => Ispp::Dv,
            3 => Ispp::Rv,
            _ => default,
        }
    }
}
