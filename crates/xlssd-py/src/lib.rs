//! Python bindings of the xlssd core: a few functions taking and returning JSON text, so
//! that the Python package owns the user's experience and the core owns the speed.
//!
//! Every entry point catches panics (`guarded`, `catching`), so a bug in the core reaches
//! Python as an `XlssdError` saying so, never as an abort or a PanicException.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use pyo3::types::PyBytes;
use xlssd_core::config::{show_f64, WorkloadConfig};
use xlssd_core::{interrupt, Config, Error, Payload, Progress, RunOptions, Workload};

create_exception!(_core, XlssdError, PyException, "Base class of xlssd's errors.");
create_exception!(_core, ConfigError, XlssdError, "A config key is unknown, mistyped or out of range.");
create_exception!(_core, TraceError, XlssdError, "A trace file is malformed or cannot be read.");
create_exception!(_core, WorkloadError, XlssdError, "A request addresses space the device does not have.");
create_exception!(_core, SimulationError, XlssdError, "The simulation stopped: stalled, interrupted, or an internal error.");

fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Config { .. } => ConfigError::new_err(msg),
        Error::Trace { .. } | Error::Io { .. } => TraceError::new_err(msg),
        Error::Address { .. } => WorkloadError::new_err(msg),
        Error::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err(msg),
        Error::Invariant { .. } | Error::Stalled(_) => SimulationError::new_err(msg),
    }
}

/// Runs `f`, turning the core's errors and panics into Python exceptions.
fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    catching(|| f().map_err(to_py))
}

/// Runs `f`, turning a panic into a `SimulationError` saying so.
fn catching<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(SimulationError::new_err(format!("internal error in the simulator core: {what}")))
        }
    }
}

fn parse_json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| Error::Config { key: what.into(), message: e.to_string() })
}

/// Validates a config (JSON text over the defaults) and returns it fully resolved.
#[pyfunction]
fn resolve_config(config_json: &str) -> PyResult<String> {
    guarded(|| {
        let cfg = xlssd_core::config_from_json(config_json)?;
        Ok(serde_json::to_string(&cfg.to_json_value()).expect("serialises"))
    })
}

/// Parses a fio-like workload spec over a base workload section (JSON), returning JSON.
/// Every registered scheme: name, hooks it overrides, its technique table and keys, and a
/// one-line description, as JSON.
#[pyfunction]
fn schemes() -> PyResult<String> {
    guarded(|| Ok(xlssd_core::techniques::describe().to_string()))
}

#[pyfunction]
fn parse_workload_spec(spec: &str, base_json: &str) -> PyResult<String> {
    guarded(|| {
        let base: WorkloadConfig = parse_json(base_json, "workload")?;
        let w = WorkloadConfig::from_spec(spec, &base)?;
        Ok(serde_json::to_string(&w).expect("serialises"))
    })
}

/// A TOML document as JSON text (tables' keys in document order); a `ConfigError` with the
/// parser's message when it is not TOML.
#[pyfunction]
fn toml_to_json(text: &str) -> PyResult<String> {
    catching(|| xlssd_core::config::toml_to_json(text).map_err(ConfigError::new_err))
}

/// An integer argument of a calculator (`default` if not given) in `lo..=hi`, or an error
/// naming the flag and the range. Taking any Python object keeps a negative or huge integer
/// (or a non-integer) from becoming an `OverflowError` or a `TypeError` that names nothing.
fn int_arg(value: Option<&Bound<'_, PyAny>>, default: i64, flag: &str, lo: i64, hi: i64, expected: &str) -> PyResult<i64> {
    let Some(value) = value else { return Ok(default) };
    let out_of_range = || {
        let shown = value.str().map(|s| s.to_string()).unwrap_or_else(|_| "?".into());
        ConfigError::new_err(format!("{flag}: value {shown} is out of range: expected {expected}"))
    };
    let is_int = value.is_instance_of::<pyo3::types::PyInt>() && !value.is_instance_of::<pyo3::types::PyBool>();
    match value.extract::<i64>() {
        Ok(v) if is_int && (lo..=hi).contains(&v) => Ok(v),
        _ => Err(out_of_range()),
    }
}

/// The BCH code of the calculators: `--k` data bytes over GF(2^m) (`--m`, 0 = automatic).
fn bch(k_bytes: Option<&Bound<'_, PyAny>>, m: Option<&Bound<'_, PyAny>>) -> PyResult<xlssd_core::ecc::bch::BchConfig> {
    use xlssd_core::ecc::bch::{BchConfig, MAX_K_BYTES};
    let max_k = MAX_K_BYTES as i64;
    let k_bytes = int_arg(k_bytes, 4096, "--k", 1, max_k, &format!("a message length of 1 to {max_k} bytes"))? as u32;
    let m = int_arg(m, 0, "--m", 0, 32, "0 (automatic) or 3 to 32")? as u32;
    if (1..3).contains(&m) {
        return Err(ConfigError::new_err(format!("--m: value {m} is out of range: expected 0 (automatic) or 3 to 32")));
    }
    let code = BchConfig { k_bytes, m, ..Default::default() };
    if code.max_t().is_none() {
        return Err(ConfigError::new_err(format!(
            "--m: GF(2^{m}) codewords hold at most {} bits, too few for the {} data bits of --k {k_bytes} and their parity; \
             expected a larger m, or 0 to choose it",
            (1u64 << m) - 1,
            code.data_bits()
        )));
    }
    Ok(code)
}

fn rber_arg(rber: f64) -> PyResult<f64> {
    if !(rber.is_finite() && rber > 0.0 && rber < 0.5) {
        return Err(ConfigError::new_err(format!("--rber: value {} is out of range: expected 0 < RBER < 0.5", show_f64(rber))));
    }
    Ok(rber)
}

/// The largest t the calculators model for a code of `k_bytes` over GF(2^m) (see
/// `BchConfig::max_t`).
#[pyfunction]
#[pyo3(signature = (k_bytes=None, m=None))]
fn ecc_max_t(k_bytes: Option<Bound<'_, PyAny>>, m: Option<Bound<'_, PyAny>>) -> PyResult<u32> {
    catching(|| {
        let code = bch(k_bytes.as_ref(), m.as_ref())?;
        Ok(code.max_t().unwrap_or(0))
    })
}

/// The smallest BCH correction capability t meeting `uber` at `rber` (None beyond what the
/// code can correct, at most 4,096), with its field exponent, parity bits and decode
/// latency: (t, m, parity_bits, decode_ns).
#[pyfunction]
#[pyo3(signature = (rber, uber, k_bytes=None, m=None))]
fn ecc_required_t(
    rber: f64,
    uber: f64,
    k_bytes: Option<Bound<'_, PyAny>>,
    m: Option<Bound<'_, PyAny>>,
) -> PyResult<Option<(u32, u32, u64, u64)>> {
    catching(|| {
        let code = bch(k_bytes.as_ref(), m.as_ref())?;
        let rber = rber_arg(rber)?;
        if !(uber.is_finite() && uber > 0.0 && uber < 1.0) {
            return Err(ConfigError::new_err(format!("--uber: value {} is out of range: expected 0 < UBER < 1", show_f64(uber))));
        }
        let max_t = code.max_t().unwrap_or(0);
        let found = code.required_t(rber, uber).filter(|&t| t <= max_t);
        Ok(found.map(|t| (t, code.field_m(t), code.parity_bits(t), code.decode_ns(t, 0))))
    })
}

/// Seed 001's BCH hardware (the default `ecc.bch`) at correction capability `t`, behind a
/// flash transfer of `xfer_ns`: (encode_ns, decode_ns after the transfer, decoder active
/// ns, decoder power in mW), worst case; `solver_multipliers` as `ecc.bch.solver_multipliers`
/// (None: its default).
#[pyfunction]
#[pyo3(signature = (t, xfer_ns, solver_multipliers=None))]
fn ecc_bch_timing(
    t: Bound<'_, PyAny>,
    xfer_ns: u64,
    solver_multipliers: Option<Bound<'_, PyAny>>,
) -> PyResult<(u64, u64, u64, f64)> {
    catching(|| {
        let mut code = xlssd_core::ecc::bch::BchConfig::default();
        if let Some(k) = solver_multipliers.as_ref() {
            code.solver_multipliers =
                int_arg(Some(k), 0, "solver_multipliers", 1, u32::MAX as i64, "a positive whole number")? as u32;
        }
        let t = int_arg(Some(&t), 0, "t", 0, code.t_max as i64, &format!("0 to {}, the decoder's largest t", code.t_max))? as u32;
        Ok((code.encode_ns(t), code.decode_ns(t, xfer_ns), code.decode_active_ns(t), code.decode_power_mw(t)))
    })
}

/// Parity bits of a t-correcting BCH code over `k_bytes` of data (default 4,096): m t, m
/// the smallest field exponent whose codewords hold the data and the parity.
#[pyfunction]
#[pyo3(signature = (t, k_bytes=None))]
fn ecc_parity_bits(t: Bound<'_, PyAny>, k_bytes: Option<Bound<'_, PyAny>>) -> PyResult<u64> {
    catching(|| {
        let code = bch(k_bytes.as_ref(), None)?;
        let max_t = code.max_t().unwrap_or(0);
        let t = int_arg(Some(&t), 0, "t", 0, max_t as i64, &format!("0 to {max_t}, the most the code can correct"))?;
        Ok(code.parity_bits(t as u32))
    })
}

/// UBER of a t-correcting BCH code at `rber` (seed 001, Eq. 2). `t` must be one the code
/// can have: at most 4,096 and below the codeword's data bits.
#[pyfunction]
#[pyo3(signature = (rber, t, k_bytes=None))]
fn ecc_uber(rber: f64, t: Bound<'_, PyAny>, k_bytes: Option<Bound<'_, PyAny>>) -> PyResult<f64> {
    catching(|| {
        let code = bch(k_bytes.as_ref(), None)?;
        let max_t = code.max_t().unwrap_or(0);
        let t = int_arg(
            Some(&t),
            0,
            "--t",
            0,
            max_t as i64,
            &format!("0 to {max_t}, the most a code of {} data bytes can correct in this model", code.k_bytes),
        )?;
        Ok(code.uber(rber_arg(rber)?, t as u32))
    })
}

/// RBER of a page under a physics model: `model` is "power-law", "exp-linear" or "vth";
/// for "vth", `mode` is the page's program mode and `y_neighbour`, `z_neighbour` the modes
/// of the neighbours programmed after it ("none" for none); read disturbance (seed 003) adds to it for `reads` reads of `page_type` in `read_mode`.
/// Returns (rber, rber without read disturbance, reads the block survives before the
/// hard-decode limit of 1e-3 under this read pattern).
#[pyfunction]
#[pyo3(signature = (model, pe=0.0, retention_h=0.0, reads=0.0, algorithm="sv", page_type=None, read_mode=None, mode="precise", y_neighbour="precise", z_neighbour="precise"))]
#[allow(clippy::too_many_arguments)]
fn physics_rber(
    model: &str,
    pe: f64,
    retention_h: f64,
    reads: f64,
    algorithm: &str,
    page_type: Option<Bound<'_, PyAny>>,
    read_mode: Option<Bound<'_, PyAny>>,
    mode: &str,
    y_neighbour: &str,
    z_neighbour: &str,
) -> PyResult<(f64, f64, f64)> {
    catching(|| {
        use xlssd_core::physics::vth::VthConfig;
        use xlssd_core::physics::{exp_linear::ExpLinearConfig, power_law::PowerLawConfig, read_disturb::ReadDisturbConfig};
        use xlssd_core::physics::{PageHistory, RberModel};
        for (name, v) in [("--pe", pe), ("--retention", retention_h), ("--reads", reads)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ConfigError::new_err(format!(
                    "{name}: value {} is out of range: expected a number >= 0",
                    show_f64(v)
                )));
            }
        }
        if model == "vth" {
            // The range the simulator tabulates the model over; far beyond it the model's
            // distributions outgrow any memory.
            use xlssd_core::physics::vth_table::{MAX_HOURS, MAX_PE};
            for (name, v, most, unit) in [("--pe", pe, MAX_PE, "cycles"), ("--retention", retention_h, MAX_HOURS, "hours")] {
                if v > most {
                    return Err(ConfigError::new_err(format!(
                        "{name}: value {} is out of range: expected 0 to {most} {unit} for --model vth (the range its tables cover)",
                        show_f64(v)
                    )));
                }
            }
        }
        let alg = algorithm_arg(algorithm)?;
        let rd = ReadDisturbConfig::default();
        let index = |v: Option<Bound<'_, PyAny>>, default: i64, flag: &str, n: usize| {
            int_arg(v.as_ref(), default, flag, 0, n as i64 - 1, &format!("0 to {}", n - 1)).map(|i| i as usize)
        };
        let page_type = index(page_type, 2, "--page-type", rd.beta.len())?;
        let read_mode = index(read_mode, 0, "--read-mode", rd.alpha.len())?;
        let (mode, disturbers) = mode_and_disturbers(mode, y_neighbour, z_neighbour)?;
        let page = PageHistory { pe, retention_h, weighted_reads: 0.0, mode, disturbers, ..PageHistory::fresh(alg) };
        let base = match model {
            "power-law" => PowerLawConfig::default().rber(&page),
            "exp-linear" => ExpLinearConfig::default().rber(&page),
            "vth" => VthConfig::default().rber(mode, &disturbers, pe, retention_h),
            other => {
                return Err(ConfigError::new_err(format!("--model: unknown `{other}`; expected power-law, exp-linear or vth")))
            }
        };
        let weighted = reads * rd.weight(page_type, read_mode);
        let total = (base + rd.rber(weighted)).min(xlssd_core::physics::MAX_RBER);
        let hard_limit = xlssd_core::ecc::ldpc::LdpcConfig::default().hard_limit;
        Ok((total, base, rd.max_reads(page_type, read_mode, base, hard_limit)))
    })
}

/// A programming algorithm by name (`sv`, `dv` or `rv`).
fn algorithm_arg(name: &str) -> PyResult<xlssd_core::physics::Ispp> {
    use xlssd_core::physics::Ispp;
    match name {
        "sv" => Ok(Ispp::Sv),
        "dv" => Ok(Ispp::Dv),
        "rv" => Ok(Ispp::Rv),
        other => Err(ConfigError::new_err(format!("--algorithm: unknown `{other}`; expected sv, dv or rv"))),
    }
}

/// Average page program time, us, of `algorithm` at `pe` cycles under the pulse model
/// (`physics::ispp::program_us`), the pulse train shortened by `speedup_at_100k` at
/// 100,000 cycles (the default of `physics.program_speedup_at_100k`).
#[pyfunction]
#[pyo3(signature = (algorithm, pe=1.0, speedup_at_100k=None))]
fn ispp_program_us(algorithm: &str, pe: f64, speedup_at_100k: Option<f64>) -> PyResult<f64> {
    catching(|| {
        let alg = algorithm_arg(algorithm)?;
        if !(pe.is_finite() && pe >= 0.0) {
            return Err(ConfigError::new_err(format!("--pe: value {} is out of range: expected a number >= 0", show_f64(pe))));
        }
        let speedup = speedup_at_100k.unwrap_or(xlssd_core::physics::config::PhysicsConfig::default().program_speedup_at_100k);
        if !(speedup.is_finite() && (0.0..1.0).contains(&speedup)) {
            return Err(ConfigError::new_err(format!(
                "speedup_at_100k: value {} is out of range: expected a fraction in [0, 1)",
                show_f64(speedup)
            )));
        }
        Ok(xlssd_core::physics::ispp::program_us(alg, pe, speedup))
    })
}

const MODES: &str = "precise, approx-vmax or approx-dvpp";

/// A page's program mode and the disturbers of its later neighbours along Y and Z, by name
/// ("none" for no later neighbour).
fn mode_and_disturbers(
    mode: &str,
    y_neighbour: &str,
    z_neighbour: &str,
) -> PyResult<(xlssd_core::physics::ProgramMode, xlssd_core::physics::vth::Disturbers)> {
    use xlssd_core::physics::{vth::Disturbers, ProgramMode};
    let mode =
        ProgramMode::parse(mode).ok_or_else(|| ConfigError::new_err(format!("--mode: unknown `{mode}`; expected {MODES}")))?;
    let mut disturbers = Disturbers::NONE;
    for (flag, name, counts) in
        [("--y-neighbour", y_neighbour, &mut disturbers.y), ("--z-neighbour", z_neighbour, &mut disturbers.z)]
    {
        if name != "none" {
            let m = ProgramMode::parse(name)
                .ok_or_else(|| ConfigError::new_err(format!("{flag}: unknown `{name}`; expected none, {MODES}")))?;
            counts[m.index()] += 1;
        }
    }
    Ok((mode, disturbers))
}

/// Under the threshold-voltage model's defaults: the largest ISPP step level at which a
/// page in `mode` whose later neighbours are `y_neighbour` and `z_neighbour` keeps the RBER
/// of a page in `mode` under sequential programming (two later precise neighbours), at the
/// model's calibration conditions. Returns (level, step as a multiple of the mode's,
/// program-time saving against the mode's own step).
#[pyfunction]
#[pyo3(signature = (y_neighbour, z_neighbour, mode="precise"))]
fn vth_step_level(y_neighbour: &str, z_neighbour: &str, mode: &str) -> PyResult<(u8, f64, f64)> {
    catching(|| {
        use xlssd_core::physics::vth::{step_factor, VthConfig};
        let (mode, disturbers) = mode_and_disturbers(mode, y_neighbour, z_neighbour)?;
        let vth = VthConfig::default();
        let level = vth.relaxed_step_level(mode, &disturbers);
        Ok((level, step_factor(level), vth.step_saving(mode, level)))
    })
}

/// The first Python exception raised while a run was going (by a signal handler, or by the
/// progress callback), to be raised as itself once the core has stopped.
#[derive(Clone, Default)]
struct Raised(Arc<Mutex<Option<PyErr>>>);

impl Raised {
    fn keep(&self, e: PyErr) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(e);
    }

    fn take(&self) -> Option<PyErr> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Whether the run must stop: runs Python's signal handlers (Ctrl-C raises
    /// KeyboardInterrupt; the command line's SIGTERM handler raises its own), keeping
    /// what they raise. The core calls this every interval of a run, whatever the progress
    /// display does (`xlssd_core::interrupt`).
    fn signalled(&self) -> bool {
        Python::attach(|py| match py.check_signals() {
            Ok(()) => false,
            Err(e) => {
                self.keep(e);
                true
            }
        })
    }
}

struct PyProgress {
    callback: Py<PyAny>,
    raised: Raised,
}

impl PyProgress {
    /// Whether the run goes on after the callback's answer: an exception stops it (and is
    /// raised as itself), and so does `False`.
    fn goes_on(&self, answer: PyResult<Bound<'_, PyAny>>) -> bool {
        match answer {
            Ok(v) => !v.is(&pyo3::types::PyBool::new(v.py(), false)),
            Err(e) => {
                self.raised.keep(e);
                false
            }
        }
    }
}

impl Progress for PyProgress {
    fn update(&mut self, requests_done: u64, simulated_ns: u64) -> bool {
        Python::attach(|py| self.goes_on(self.callback.bind(py).call1((requests_done, simulated_ns))))
    }

    /// Calls the callback's `setup(stage, done, total)` method, when it has one.
    fn setting_up(&mut self, stage: &str, done: u64, total: u64) -> bool {
        Python::attach(|py| {
            let callback = self.callback.bind(py);
            match callback.hasattr("setup") {
                Ok(false) => true,
                Ok(true) => self.goes_on(callback.call_method1("setup", (stage, done, total))),
                Err(e) => self.goes_on(Err(e)),
            }
        })
    }
}

/// Runs a simulation. `workload_json` is a tagged workload (`{"kind": "synthetic", ...}`
/// or `{"kind": "trace", "path": ...}`). Returns the report as JSON text.
#[pyfunction]
#[pyo3(signature = (config_json, workload_json, check=false, progress=None))]
fn run(py: Python<'_>, config_json: &str, workload_json: &str, check: bool, progress: Option<Py<PyAny>>) -> PyResult<String> {
    run_inner(py, config_json, workload_json, check, progress, None)
}

/// Runs one simulation carrying `data` at sector address `lba` (payload mode) and returns
/// the report and the bytes the host would read back; with `final_read_after_h`, the range
/// is read once more that many hours after the run.
#[pyfunction]
#[pyo3(signature = (config_json, workload_json, check, progress, lba, data, final_read_after_h=None))]
#[allow(clippy::too_many_arguments)]
fn run_with_payload(
    py: Python<'_>,
    config_json: &str,
    workload_json: &str,
    check: bool,
    progress: Option<Py<PyAny>>,
    lba: u64,
    data: Vec<u8>,
    final_read_after_h: Option<f64>,
) -> PyResult<(String, Py<PyBytes>)> {
    let mut payload = Payload { final_read_after_h, ..Payload::new(lba, data) };
    let report = run_inner(py, config_json, workload_json, check, progress, Some(&mut payload))?;
    Ok((report, PyBytes::new(py, &payload.returned).unbind()))
}

fn run_inner(
    py: Python<'_>,
    config_json: &str,
    workload_json: &str,
    check: bool,
    progress: Option<Py<PyAny>>,
    payload: Option<&mut Payload>,
) -> PyResult<String> {
    // Parsed only: `simulate` validates it, once.
    let cfg = guarded(|| Config::parse_json(config_json))?;
    let workload: Workload = guarded(|| parse_json(workload_json, "workload"))?;
    let raised = Raised::default();
    let mut progress = progress.map(|callback| PyProgress { callback, raised: raised.clone() });
    let result = py.detach(|| {
        let signals = raised.clone();
        let _stop = interrupt::install(Box::new(move || signals.signalled()));
        guarded(|| {
            let opts = RunOptions {
                check,
                progress: progress.as_mut().map(|p| p as &mut dyn Progress),
                workload_description: serde_json::Value::Null,
                payload,
            };
            let report = xlssd_core::simulate(&cfg, &workload, opts)?;
            Ok(report.to_json())
        })
    });
    match raised.take() {
        Some(e) => Err(e),
        None => result,
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", xlssd_core::VERSION)?;
    m.add("XlssdError", m.py().get_type::<XlssdError>())?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("WorkloadError", m.py().get_type::<WorkloadError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(parse_workload_spec, m)?)?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_with_payload, m)?)?;
    m.add_function(wrap_pyfunction!(ecc_required_t, m)?)?;
    m.add_function(wrap_pyfunction!(ecc_bch_timing, m)?)?;
    m.add_function(wrap_pyfunction!(ecc_uber, m)?)?;
    m.add_function(wrap_pyfunction!(ecc_parity_bits, m)?)?;
    m.add_function(wrap_pyfunction!(ecc_max_t, m)?)?;
    m.add_function(wrap_pyfunction!(physics_rber, m)?)?;
    m.add_function(wrap_pyfunction!(vth_step_level, m)?)?;
    m.add_function(wrap_pyfunction!(ispp_program_us, m)?)?;
    Ok(())
}
