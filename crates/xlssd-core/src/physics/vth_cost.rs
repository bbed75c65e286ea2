//! What an evaluation of the threshold-voltage model costs, from the widths of its
//! distributions, without building them.
//!
//! The model convolves distributions on a grid of `physics.vth.grid_step_v`: the cells of a
//! distribution grow as the step shrinks and as its spreads widen (noise with wear, the
//! retention shift with age), and a convolution costs the product of two lengths. A step
//! within its documented range, or a spread far outside its calibration, could otherwise
//! make one evaluation take gigabytes and hours. [`VthConfig::check_work`] bounds the worst
//! table a run fills before the run starts. [`VthConfig::cost`] follows
//! [`VthConfig::rber`] step by step, with the same span functions the kernels are built
//! from.

use super::vth::{laplace_half_width, shift_span, uniform_span, Disturbers, VthConfig};
use super::vth_table::{MAX_HOURS, MAX_PE, TABLE_POINTS};
use super::ProgramMode;
use crate::config::ranges::show_f64;
use crate::error::{Error, Result};

/// The most cells one distribution may have (8 MiB of probabilities).
pub const MAX_CELLS: f64 = (1u64 << 20) as f64;
/// The most multiply-adds filling one table may take by this estimate, which counts every
/// point at the cost of the table's far corner: some 40 s at the 2.5e9 a second measured
/// here, a few seconds in fact. The default model's worst table is 4.8e9 (0.3 s).
pub const MAX_TABLE_MADDS: f64 = 1e11;
/// Neighbours a page can have along each axis (`Geometry::coupled_pages`).
const MOST_NEIGHBOURS: u8 = 2;

/// Cells of the longest distribution, and multiply-adds, of one evaluation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub cells: f64,
    pub madds: f64,
}

impl Cost {
    /// A distribution of `len` cells was built, one cell at a time.
    fn built(&mut self, len: f64) -> f64 {
        self.cells = self.cells.max(len);
        self.madds += len;
        len
    }

    /// The length of `a` convolved with `b`.
    fn convolve(&mut self, a: f64, b: f64) -> f64 {
        self.madds += a * b;
        self.built(a + b - 1.0)
    }
}

fn len((lo, hi): (f64, f64)) -> f64 {
    hi - lo + 1.0
}

impl VthConfig {
    /// The cost of `rber(mode, disturbers, pe, hours)`.
    pub fn cost(&self, mode: ProgramMode, disturbers: &Disturbers, pe: f64, hours: f64) -> Cost {
        let h = self.grid_step_v;
        let mut c = Cost::default();
        // disturbance(): per neighbour mode, a mixture of shift kernels from 0 up, convolved
        // in once per neighbour.
        let (gy, gz) = self.coupling();
        let mut disturbance = 1.0;
        for (gamma, counts) in [(gy, &disturbers.y), (gz, &disturbers.z)] {
            for m in ProgramMode::ALL {
                let (mut lo, mut hi) = (0.0f64, 0.0f64);
                for swing in self.program_swings(m) {
                    let mu = gamma * swing;
                    let (a, b) = shift_span(mu, self.disturb_sigma_frac * mu, 2.0, h);
                    c.built(b - a + 1.0);
                    (lo, hi) = (lo.min(a), hi.max(b));
                    c.built(hi - lo + 1.0);
                }
                let one = hi - lo + 1.0;
                for _ in 0..counts[m.index()] {
                    disturbance = c.convolve(disturbance, one);
                }
            }
        }
        let laplace = c.built(2.0 * laplace_half_width(self.lambda(pe), h) + 1.0);
        let noise = c.convolve(disturbance, laplace);
        let erased = c.built(len(shift_span(self.erased_mean_v, self.erased_sigma_v, 8.0, h)));
        let mut previous = c.convolve(erased, noise);
        let (dvpp, _) = self.window(mode);
        let sigma = self.injection_sigma(dvpp);
        let injection = (sigma > 0.0).then(|| c.built(len(shift_span(0.0, sigma, 8.0, h))));
        let loss = self.retention_fraction(pe, hours);
        for v in self.verify_levels(mode) {
            let shift = -loss * (v + 0.5 * dvpp - self.erased_mean_v);
            let retention = c.built(len(shift_span(shift, self.retention_sigma_frac * shift.abs(), 8.0, h)));
            let mut state = c.built(len(uniform_span(v, v + dvpp, h)));
            if let Some(k) = injection {
                state = c.convolve(state, k);
            }
            state = c.convolve(state, noise);
            state = c.convolve(state, retention);
            // crossing_error(): running sums of both states, and a pass over the references.
            c.madds += 3.0 * (state + previous);
            previous = state;
        }
        c
    }

    /// The cost of the worst table a run can fill: every mode, two neighbours along each
    /// axis in that mode, at the far corner of the table's grid, for each of its points.
    pub fn worst_table_cost(&self) -> Cost {
        let mut worst = Cost::default();
        for mode in ProgramMode::ALL {
            for neighbours in ProgramMode::ALL {
                let mut d = Disturbers::NONE;
                d.y[neighbours.index()] = MOST_NEIGHBOURS;
                d.z[neighbours.index()] = MOST_NEIGHBOURS;
                let c = self.cost(mode, &d, MAX_PE, MAX_HOURS);
                worst.cells = worst.cells.max(c.cells);
                worst.madds = worst.madds.max(c.madds * TABLE_POINTS as f64);
            }
        }
        worst
    }

    /// Refuses parameters whose tables would take more than [`MAX_CELLS`] cells or
    /// [`MAX_TABLE_MADDS`] multiply-adds, naming `physics.vth.grid_step_v` and the step the
    /// parameters allow.
    pub fn check_work(&self) -> Result<()> {
        let c = self.worst_table_cost();
        if c.cells <= MAX_CELLS && c.madds <= MAX_TABLE_MADDS {
            return Ok(());
        }
        let h = self.grid_step_v;
        // Cells shrink with the step, multiply-adds with its square.
        let step = (h * c.cells / MAX_CELLS).max(h * (c.madds / MAX_TABLE_MADDS).sqrt());
        let fix = if step <= 0.05 {
            format!("a step of at least {} V", show_f64(significant(step)))
        } else {
            "narrower distributions (physics.vth: erased_sigma_v, lambda_v, retention_loss, retention_sigma_frac, \
             disturb_sigma_frac, injection_sigma_v) for any step up to 0.05 V"
                .to_string()
        };
        Err(Error::Config {
            key: "physics.vth.grid_step_v".into(),
            message: format!(
                "value {}: the model's distributions would reach {:.3e} cells and a table of it {:.3e} multiply-adds \
                 (at {MAX_PE} P/E and {MAX_HOURS} h, two neighbours along each axis), beyond the limits of {} cells and \
                 {MAX_TABLE_MADDS:e} multiply-adds; expected {fix}",
                show_f64(h),
                c.cells,
                c.madds,
                MAX_CELLS as u64,
            ),
        })
    }
}

/// `x` rounded up to two significant digits, so that the step a message suggests passes.
fn significant(x: f64) -> f64 {
    let scale = 10f64.powi(x.log10().floor() as i32 - 1);
    (x / scale).ceil() * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_model_is_well_within_the_limits() {
        let c = VthConfig::default().worst_table_cost();
        assert!(c.cells < MAX_CELLS / 10.0 && c.madds < MAX_TABLE_MADDS / 10.0, "{c:?}");
        assert!(VthConfig::default().check_work().is_ok());
    }

    #[test]
    fn the_cost_counts_the_cells_the_model_builds() {
        // The widest distribution of an evaluation is a programmed state after noise and
        // retention; the estimate of its cells must not fall short of it.
        let cfg = VthConfig::default();
        let c = cfg.cost(ProgramMode::Precise, &Disturbers::pair(ProgramMode::Precise), 10_000.0, 1_000.0);
        let lambda = cfg.lambda(10_000.0);
        assert!(c.cells >= 80.0 * lambda / cfg.grid_step_v, "{c:?}");
        // Half the step: twice the cells, about four times the work.
        let fine = VthConfig { grid_step_v: cfg.grid_step_v / 2.0, ..cfg.clone() };
        let f = fine.cost(ProgramMode::Precise, &Disturbers::pair(ProgramMode::Precise), 10_000.0, 1_000.0);
        assert!((f.cells / c.cells - 2.0).abs() < 0.05, "{f:?} {c:?}");
        assert!((3.5..4.5).contains(&(f.madds / c.madds)), "{f:?} {c:?}");
    }

    #[test]
    fn a_fine_step_or_a_wide_spread_is_refused_naming_the_step() {
        let fine = VthConfig { grid_step_v: 1e-5, ..VthConfig::default() };
        let e = fine.check_work().unwrap_err();
        let text = e.to_string();
        assert!(text.contains("physics.vth.grid_step_v") && text.contains("a step of at least"), "{text}");
        // The step it suggests passes.
        let at = text.split("a step of at least ").nth(1).unwrap().split(' ').next().unwrap();
        let suggested = VthConfig { grid_step_v: at.parse().unwrap(), ..VthConfig::default() };
        assert!(suggested.check_work().is_ok(), "{at}");
        let wide = VthConfig { lambda_v: 1e6, ..VthConfig::default() };
        let text = wide.check_work().unwrap_err().to_string();
        assert!(text.contains("narrower distributions"), "{text}");
    }
}
