//! The device's state before the first request: preconditioned data, and the translation
//! pages of the cached mapping table.

use crate::physics::config::PeDistribution;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use rand::Rng;

use super::super::{stream_seed, Progress, Simulator, SEED_AGING, SEED_PRECONDITION};
use crate::error::{Error, Result};
use crate::ftl::precondition::precondition;
use crate::interrupt;
use crate::seams::Observer;

/// Steps of the set-up's cheap loops (a block aged, a translation page stored) between two
/// questions whether to stop, which read the clock.
const POLL_EVERY: usize = 4096;

impl Simulator<'_> {
    fn precondition(&mut self, progress: &mut Option<&mut dyn Progress>) -> Result<()> {
        let layout = self.cfg.precondition_layout();
        if layout.used == 0 {
            return Ok(());
        }
        let geo = self.geo.clone();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(self.cfg.seed, SEED_PRECONDITION));
        precondition(
            &mut self.ftl.blocks,
            &mut self.ftl.map,
            layout.used,
            self.cfg.precondition.steady_state,
            layout.data_blocks,
            |lpn| geo.cwdp_plane(lpn),
            &mut rng,
            &mut |done, total| progress.as_mut().is_none_or(|p| p.setting_up("preconditioning", done, total)),
        )
    }

    /// Brings the device to its state before the run.
    pub(in crate::engine) fn set_up_device(&mut self, mut progress: Option<&mut dyn Progress>) -> Result<()> {
        self.age_blocks()?;
        self.precondition(&mut progress)?;
        self.scheme.preconditioned(&self.ftl.blocks, &self.ftl.map);
        self.record_preconditioned_pages()?;
        if self.ctrl.cmt().is_some() {
            self.store_translation_pages()?;
        }
        Ok(())
    }

    /// Preconditioned data was programmed like any other, in page order, in the configured
    /// mode and with the scheme's algorithm, before the retention clock started; the read
    /// path needs to know how, and which neighbours came later.
    fn record_preconditioned_pages(&mut self) -> Result<()> {
        if self.rel.is_none() {
            return Ok(());
        }
        let mode = self.cfg.physics.program_mode;
        for block in 0..self.geo.blocks {
            if block.is_multiple_of(POLL_EVERY as u32) {
                interrupt::poll()?;
            }
            if self.ftl.blocks.is_closed(block) {
                for page in 0..self.geo.pages_per_block {
                    let ppn = self.geo.ppn(block, page);
                    let alg = self.page_algorithm(ppn);
                    let rel = self.rel.as_mut().expect("reliability is on");
                    rel.state.on_program(ppn, block, 0.0, alg, mode, 0);
                }
            }
        }
        Ok(())
    }

    /// Gives every block the P/E cycles the device has already seen (`[aging]`).
    fn age_blocks(&mut self) -> Result<()> {
        let a = &self.cfg.aging;
        if a.initial_pe == 0.0 {
            return Ok(());
        }
        let (mean, spread) = (a.initial_pe, a.initial_pe_spread);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(stream_seed(self.cfg.seed, SEED_AGING));
        for b in 0..self.geo.blocks as usize {
            if b % POLL_EVERY == 0 {
                interrupt::poll()?;
            }
            let pe = match a.initial_pe_distribution {
                _ if spread == 0.0 => mean,
                PeDistribution::Uniform => rng.gen_range(mean - spread..=mean + spread),
                PeDistribution::Normal => {
                    let z: f64 = rng.sample(rand_distr::StandardNormal);
                    mean + spread * z.clamp(-3.0, 3.0)
                }
            }
            .round()
            .max(0.0);
            self.ftl.blocks.erase_count[b] = pe as u32;
            if let Some(rel) = self.rel.as_mut() {
                rel.state.blocks[b].wear = pe as f32;
            }
        }
        Ok(())
    }

    /// With a cached mapping table the whole table lives in translation pages on flash from
    /// the start, so that every miss reads one, as on a formatted drive.
    fn store_translation_pages(&mut self) -> Result<()> {
        let count = self.ftl.map.logical_len() - self.ftl.logical_pages;
        let stream = self.ftl.streams.mapping;
        for tvpn in 0..count {
            if tvpn % POLL_EVERY as u64 == 0 {
                interrupt::poll()?;
            }
            let tlpn = (self.ftl.logical_pages + tvpn) as u32;
            // The plane later rewrites of this translation page go to.
            let plane = self.alloc_plane(tlpn, stream);
            let ppn = self.ftl.blocks.allocate(plane, stream, false, &mut *self.ftl.wl).ok_or_else(|| Error::Config {
                key: "mapping.cached_table_bytes".into(),
                message: format!("plane {plane} has no room for the {count} translation pages of the mapping table"),
            })?;
            self.ftl.map.set(tlpn, ppn);
            self.set_page_valid(ppn, 0);
            self.ftl.blocks.program_done(ppn).map_err(|message| Error::Invariant { time_ns: 0, message })?;
        }
        Ok(())
    }
}
