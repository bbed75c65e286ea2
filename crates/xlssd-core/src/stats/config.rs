//! Configuration of the energy model: the supply voltage and the current each activity draws.

use serde::{Deserialize, Serialize};

use crate::config::ranges::non_negative;
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EnergyConfig {
    pub voltage_v: f64,
    pub read_ma: f64,
    pub program_ma: f64,
    pub erase_ma: f64,
    /// Current drawn while a channel transfers data or commands.
    pub transfer_ma: f64,
    /// Current drawn by DRAM while it serves a buffer access.
    pub dram_ma: f64,
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig { voltage_v: 3.3, read_ma: 25.0, program_ma: 25.0, erase_ma: 25.0, transfer_ma: 25.0, dram_ma: 125.0 }
    }
}

impl EnergyConfig {
    pub fn validate(&self) -> Result<()> {
        for (k, v) in [
            ("energy.voltage_v", self.voltage_v),
            ("energy.read_ma", self.read_ma),
            ("energy.program_ma", self.program_ma),
            ("energy.erase_ma", self.erase_ma),
            ("energy.transfer_ma", self.transfer_ma),
            ("energy.dram_ma", self.dram_ma),
        ] {
            non_negative(k, v)?;
        }
        Ok(())
    }
}
