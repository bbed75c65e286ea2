//! The threshold-voltage model tabulated for the read path. One exact evaluation convolves
//! several distributions on a fine grid (milliseconds); a read needs an RBER in
//! nanoseconds. So each (program mode, step level, disturbers) seen in a run gets a table over
//! P/E and retention, filled on first use, and reads interpolate it bilinearly in
//! log(RBER) against log(1 + PE) and log(1 + hours). Interpolating a table that never
//! falls along either axis gives a surface that never falls either, so the monotonicity of
//! the exact model carries over.
//!
//! Filled tables are also kept for the life of the process, keyed by the model's
//! parameters: a sweep's worker runs many points on the same device, and filling takes
//! most of a short run's time. A table is a pure function of its key, so sharing it
//! changes no result.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use rustc_hash::FxHashMap;

use super::vth::{Disturbers, VthConfig};
use super::{PageHistory, ProgramMode, RberModel, MAX_RBER};

/// Grid of the tables: wear from fresh to past the end of life, retention from none to
/// about ten years.
const PE_POINTS: [f64; 9] = [0.0, 30.0, 100.0, 300.0, 1_000.0, 3_000.0, 10_000.0, 30_000.0, 100_000.0];
const HOUR_POINTS: [f64; 8] = [0.0, 1.0, 10.0, 100.0, 1_000.0, 3_000.0, 10_000.0, 100_000.0];
/// The domain the tables cover: beyond it a read would take the value at its edge, so a
/// configuration starting there (`aging`) is refused.
pub const MAX_PE: f64 = PE_POINTS[PE_POINTS.len() - 1];
pub const MAX_HOURS: f64 = HOUR_POINTS[HOUR_POINTS.len() - 1];
/// Exact evaluations that fill one table.
pub const TABLE_POINTS: usize = PE_POINTS.len() * HOUR_POINTS.len();
/// Below this the page is error-free for every purpose, and the logarithm stays finite.
const FLOOR: f64 = 1e-30;

type Table = Arc<Vec<f64>>;
type Store = FxHashMap<String, FxHashMap<TableId, Table>>;
/// A table's program mode, step level and disturbers' key.
type TableId = (ProgramMode, u8, u32);

/// Tables filled in this process: model parameters (as JSON) -> (mode, step level,
/// disturbers) -> table.
fn store() -> MutexGuard<'static, Store> {
    static FILLED: OnceLock<Mutex<Store>> = OnceLock::new();
    // A poisoned lock only means a thread panicked while holding it; tables go in whole,
    // after filling, so the store is still sound.
    FILLED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner())
}

pub struct VthTable {
    cfg: VthConfig,
    /// `cfg` as JSON: the key of this model's tables in the process-wide store.
    key: String,
    tables: RefCell<FxHashMap<TableId, Table>>,
}

impl VthTable {
    pub fn new(cfg: VthConfig) -> VthTable {
        let key = serde_json::to_string(&cfg).expect("the model's parameters serialise");
        VthTable { cfg, key, tables: RefCell::new(FxHashMap::default()) }
    }

    /// The table of `(mode, level, disturbers)`: from the process-wide store, or filled
    /// now; `None` when the run must stop before it is full.
    fn table(&self, mode: ProgramMode, level: u8, disturbers: &Disturbers) -> Option<Table> {
        let id = (mode, level, disturbers.key());
        if let Some(t) = store().get(&self.key).and_then(|m| m.get(&id)).cloned() {
            return Some(t);
        }
        // Filled without holding the lock, so that other threads' reads go on.
        let t = Arc::new(self.fill(mode, level, disturbers)?);
        store().entry(self.key.clone()).or_default().insert(id, t.clone());
        Some(t)
    }

    /// Filling takes a fraction of a second (bounded by `VthConfig::check_work`), and the
    /// read path that asks cannot return an error: a stop asked for meanwhile ends the
    /// filling, and the event loop sees it at its next question (`interrupt`).
    fn fill(&self, mode: ProgramMode, level: u8, disturbers: &Disturbers) -> Option<Vec<f64>> {
        let mut table = Vec::with_capacity(TABLE_POINTS);
        for &pe in &PE_POINTS {
            for &h in &HOUR_POINTS {
                if crate::interrupt::stopping() {
                    return None;
                }
                table.push(self.cfg.rber_at(mode, level, disturbers, pe, h).max(FLOOR).ln());
            }
        }
        Some(table)
    }
}

/// Index of the grid cell holding `x` and the position within it, clamped to the grid.
fn locate(points: &[f64], x: f64) -> (usize, f64) {
    let u = (1.0 + x.max(0.0)).ln();
    let last = points.len() - 1;
    if u >= (1.0 + points[last]).ln() {
        return (last - 1, 1.0);
    }
    let i = points.iter().rposition(|&p| (1.0 + p).ln() <= u).unwrap_or(0).min(last - 1);
    let (u0, u1) = ((1.0 + points[i]).ln(), (1.0 + points[i + 1]).ln());
    (i, (u - u0) / (u1 - u0))
}

impl RberModel for VthTable {
    fn rber(&self, page: &PageHistory) -> f64 {
        let key = (page.mode, page.step_level, page.disturbers.key());
        let mut tables = self.tables.borrow_mut();
        let table = match tables.get(&key) {
            Some(t) => t,
            None => match self.table(page.mode, page.step_level, &page.disturbers) {
                Some(t) => tables.entry(key).or_insert(t),
                // Stopping: the run ends before this value is used.
                None => return 0.0,
            },
        };
        let (i, fx) = locate(&PE_POINTS, page.pe);
        let (j, fy) = locate(&HOUR_POINTS, page.retention_h);
        let n = HOUR_POINTS.len();
        let at = |a: usize, b: usize| table[a * n + b];
        let low = at(i, j) * (1.0 - fy) + at(i, j + 1) * fy;
        let high = at(i + 1, j) * (1.0 - fy) + at(i + 1, j + 1) * fy;
        let r = (low * (1.0 - fx) + high * fx).exp();
        if r <= FLOOR * 1.0001 {
            0.0
        } else {
            r.min(MAX_RBER)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(mode: ProgramMode, pe: f64, hours: f64) -> PageHistory {
        PageHistory {
            pe,
            retention_h: hours,
            mode,
            disturbers: Disturbers::pair(ProgramMode::Precise),
            ..PageHistory::fresh(super::super::Ispp::Sv)
        }
    }

    #[test]
    fn table_agrees_with_the_exact_model_on_its_grid_and_near_it_between() {
        let table = VthTable::new(VthConfig::default());
        let exact = VthConfig::default();
        let d = Disturbers::pair(ProgramMode::Precise);
        for (pe, h) in [(10_000.0, 1_000.0), (3_000.0, 10.0), (100_000.0, 0.0)] {
            let r = table.rber(&page(ProgramMode::ApproxVmax, pe, h));
            let e = exact.rber(ProgramMode::ApproxVmax, &d, pe, h);
            assert!((r / e - 1.0).abs() < 1e-9, "{pe} {h}: {r:e} vs {e:e}");
        }
        // Between grid points, within a factor of two of the exact model.
        let r = table.rber(&page(ProgramMode::Precise, 6_000.0, 400.0));
        let e = exact.rber(ProgramMode::Precise, &d, 6_000.0, 400.0);
        assert!(r / e > 0.5 && r / e < 2.0, "{r:e} vs {e:e}");
    }

    #[test]
    fn tables_are_shared_by_models_with_the_same_parameters_only() {
        let d = Disturbers::pair(ProgramMode::ApproxVmax);
        let cfg = VthConfig { disturb_sigma_frac: 0.21, ..VthConfig::default() };
        let a = VthTable::new(cfg.clone()).table(ProgramMode::Precise, 0, &d).unwrap();
        let b = VthTable::new(cfg.clone()).table(ProgramMode::Precise, 0, &d).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "the second model reuses the first one's table");
        let other = VthTable::new(VthConfig { disturb_sigma_frac: 0.22, ..cfg }).table(ProgramMode::Precise, 0, &d).unwrap();
        assert!(!Arc::ptr_eq(&a, &other));
        assert_ne!(*a, *other, "other parameters, other RBERs");
    }

    #[test]
    fn table_never_falls_between_its_points() {
        let table = VthTable::new(VthConfig::default());
        let mut last = 0.0;
        for i in 0..200 {
            let pe = 50.0 * i as f64;
            let r = table.rber(&page(ProgramMode::Precise, pe, 1_000.0));
            assert!(r >= last);
            last = r;
        }
        let mut last = 0.0;
        for i in 0..200 {
            let h = 10.0 * i as f64;
            let r = table.rber(&page(ProgramMode::ApproxVmax, 10_000.0, h));
            assert!(r >= last);
            last = r;
        }
    }
}
