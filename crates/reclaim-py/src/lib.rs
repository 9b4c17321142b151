//! Python bindings of reclaim-core: conversion, error mapping and the GIL, nothing else.

use numpy::PyArray1;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use reclaim_core::config::{PlacementSpec, RegionSpare};
use reclaim_core::trace::convert::{
    check_binary, page_list_trace, write_binary, ConvertOptions, Converter,
};
use reclaim_core::trace::{request_sizes as trace_request_sizes, Format, ReadOptions};
use reclaim_core::{Error, SimConfig, Simulator};
use serde_json::Value;
use std::sync::Mutex;

mod outside;

fn map_err(e: Error) -> PyErr {
    if let Some(raised) = RAISED.lock().expect("not poisoned").take() {
        return raised;
    }
    match e {
        Error::Param { .. } => PyValueError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

/// The exception a Python signal handler raised while the engine read a file (Ctrl-C's
/// `KeyboardInterrupt`, SIGTERM's), kept by [`signal_stop`] until the engine's error reaches
/// [`map_err`], which raises it in place of the error.
static RAISED: Mutex<Option<PyErr>> = Mutex::new(None);

/// The engine's stop request ([`reclaim_core::trace::Stop`]): runs Python's signal handlers (as
/// the interpreter does between bytecodes) and asks the engine to stop when one raises.
fn signal_stop() -> bool {
    Python::with_gil(|py| match py.check_signals() {
        Ok(()) => false,
        Err(e) => {
            *RAISED.lock().expect("not poisoned") = Some(e);
            true
        }
    })
}

fn to_py(py: Python<'_>, v: &Value) -> PyResult<PyObject> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any().unbind()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any().unbind()
            } else {
                n.as_f64()
                    .unwrap_or(f64::NAN)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// Validates a JSON configuration and returns it in canonical form.
#[pyfunction]
fn canonical_config(config_json: &str) -> PyResult<String> {
    SimConfig::from_json(config_json)
        .map(|c| c.to_json())
        .map_err(map_err)
}

/// Every simulation parameter (name, kind, unit, range, default, help) as a list of dicts: the
/// one definition the command line's help and the Python API's type checks are built from.
#[pyfunction]
fn parameters(py: Python<'_>) -> PyResult<PyObject> {
    let v = serde_json::to_value(reclaim_core::config::parameters()).expect("parameters serialize");
    to_py(py, &v)
}

/// Every registered scheme (family, name, aliases, summary, source, parameters, needs, usage) as
/// a list of dicts, as each scheme's file declares it.
#[pyfunction]
fn schemes(py: Python<'_>) -> PyResult<PyObject> {
    let v: Vec<serde_json::Value> = reclaim_core::config::schemes()
        .into_iter()
        .map(|info| {
            let mut v = serde_json::to_value(info).expect("schemes serialize");
            v["usage"] = serde_json::Value::String(info.usage());
            v
        })
        .collect();
    to_py(py, &serde_json::Value::Array(v))
}

/// The engine's facts (name, unit, help, per: `segment` or `page`, bytes per entry) as a list of
/// dicts, as each ledger declares it.
#[pyfunction]
fn facts(py: Python<'_>) -> PyResult<PyObject> {
    let v = serde_json::to_value(reclaim_core::ledger::FACTS).expect("facts serialize");
    to_py(py, &v)
}

/// The resolved geometry of a JSON configuration.
#[pyfunction]
fn geometry(py: Python<'_>, config_json: &str) -> PyResult<PyObject> {
    let c = SimConfig::from_json(config_json).map_err(map_err)?;
    let g = c.geometry().map_err(map_err)?;
    let v = serde_json::to_value(g).expect("geometry serializes");
    to_py(py, &v)
}

/// A `--device` text's values, as the engine parses and checks it.
#[pyfunction]
fn device(py: Python<'_>, spec: &str) -> PyResult<PyObject> {
    let d: reclaim_core::time::DeviceSpec = spec.parse().map_err(map_err)?;
    let v = serde_json::to_value(d.values()).expect("device values serialize");
    to_py(py, &v)
}

/// The geometry and each class's pages and write share for a JSON configuration (what
/// `regions:spare=optimal` is resolved from); under `regions` with explicit shares, also
/// `region_quotas`, the segments each region owns.
#[pyfunction]
fn class_shares(py: Python<'_>, config_json: &str) -> PyResult<PyObject> {
    let c = SimConfig::from_json(config_json).map_err(map_err)?;
    let (g, shares) = reclaim_core::sim::class_shares(&c).map_err(map_err)?;
    let mut v = serde_json::json!({"geometry": g, "classes": shares});
    if matches!(
        c.placement(),
        PlacementSpec::Regions(RegionSpare::Shares(_))
    ) {
        v["region_quotas"] =
            serde_json::json!(reclaim_core::sim::region_quotas(&c).map_err(map_err)?);
    }
    to_py(py, &v)
}

/// A simulation, stepped from Python so that progress can be shown and Ctrl-C honoured.
#[pyclass(module = "reclaim._core", name = "Simulator")]
struct PySimulator {
    inner: Simulator,
}

#[pymethods]
impl PySimulator {
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let config = SimConfig::from_json(config_json).map_err(map_err)?;
        Ok(PySimulator {
            inner: Simulator::new(&config).map_err(map_err)?,
        })
    }

    /// Performs up to `budget` user writes, without the GIL unless a scheme is written in
    /// Python; returns whether writes remain.
    fn step(&mut self, py: Python<'_>, budget: u64) -> PyResult<bool> {
        let inner = &mut self.inner;
        if inner.config().has_outside() {
            return inner.step(budget).map_err(map_err);
        }
        py.allow_threads(|| inner.step(budget)).map_err(map_err)
    }

    /// (user writes done, user writes in all) over fill, warm-up and measured phase.
    fn progress(&self) -> (u64, u64) {
        self.inner.progress()
    }

    /// The warnings known so far (a method's on this trace: before the first write).
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings().to_vec()
    }

    /// The canonical configuration as JSON.
    fn config_json(&self) -> String {
        self.inner.config().to_json()
    }

    /// Keeps the fact named `name` from the first write on; raises ValueError for an unknown
    /// name or after the first write.
    fn keep_fact(&mut self, name: &str) -> PyResult<()> {
        self.inner.keep_fact(name).map_err(map_err)
    }

    /// The array of the fact named `name` as it is now, copied into a numpy array (empty when
    /// the run does not keep it); raises ValueError for an unknown name.
    fn fact(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        use reclaim_core::ledger::FactArray;
        let Some(a) = self.inner.store().facts.array(name) else {
            return Err(map_err(reclaim_core::Error::param(
                "fact",
                name,
                "a fact of reclaim._core.facts()",
            )));
        };
        Ok(match a {
            FactArray::U16(a) => PyArray1::from_slice(py, a).into_any().unbind(),
            FactArray::U32(a) => PyArray1::from_slice(py, a).into_any().unbind(),
            FactArray::U64(a) => PyArray1::from_slice(py, a).into_any().unbind(),
            FactArray::F64(a) => PyArray1::from_slice(py, a).into_any().unbind(),
        })
    }

    /// Checks the store's invariants; raises RuntimeError on the first violation.
    fn check(&self) -> PyResult<()> {
        self.inner.check().map_err(PyRuntimeError::new_err)
    }

    /// The measured phase's metrics as a dict; histograms, erase counts and time series as
    /// numpy arrays (moved, not copied).
    fn result(&self, py: Python<'_>) -> PyResult<PyObject> {
        let r = self.inner.result();
        let mut v = serde_json::to_value(&r).expect("result serializes");
        let m = v.as_object_mut().expect("result is an object");
        m.remove("erase_counts");
        m.remove("victim_valid_histogram");
        m.remove("segment_valid_histogram");
        m.remove("series");
        m.remove("config");
        let d = to_py(py, &v)?;
        let d = d.bind(py).downcast::<PyDict>()?.clone();
        // NaN does not survive JSON; put the floats back as they are.
        for (k, x) in [
            ("wa", r.wa),
            ("wamp", r.wamp),
            ("emptiness_at_clean", r.emptiness_at_clean),
            ("gcu", r.gcu),
            ("work_rd_live", r.work_rd_live),
            ("work_rd_all", r.work_rd_all),
            ("wear_leveling_index", r.wear_leveling_index),
            ("cache_hit_ratio", r.cache_hit_ratio),
            ("seconds", r.seconds),
            ("user_writes_per_second", r.user_writes_per_second),
            ("page_writes_per_second", r.page_writes_per_second),
            ("simulated_spare", r.simulated_spare),
        ] {
            d.set_item(k, x)?;
        }
        d.set_item("erase_counts", PyArray1::from_vec(py, r.erase_counts))?;
        d.set_item(
            "victim_valid_histogram",
            PyArray1::from_vec(py, r.victim_valid_histogram),
        )?;
        d.set_item(
            "segment_valid_histogram",
            PyArray1::from_vec(py, r.segment_valid_histogram),
        )?;
        let s = PyDict::new(py);
        s.set_item("window", r.series.window)?;
        s.set_item("user_writes", PyArray1::from_vec(py, r.series.user_writes))?;
        s.set_item("gc_writes", PyArray1::from_vec(py, r.series.gc_writes))?;
        s.set_item("erases", PyArray1::from_vec(py, r.series.erases))?;
        s.set_item("wa", PyArray1::from_vec(py, r.series.wa))?;
        s.set_item(
            "cache_hit_ratio",
            PyArray1::from_vec(py, r.series.cache_hit_ratio),
        )?;
        s.set_item("collected", PyArray1::from_vec(py, r.series.collected))?;
        s.set_item("emptied", PyArray1::from_vec(py, r.series.emptied))?;
        s.set_item("gcu", PyArray1::from_vec(py, r.series.gcu))?;
        s.set_item(
            "work_rd_live",
            PyArray1::from_vec(py, r.series.work_rd_live),
        )?;
        s.set_item("work_rd_all", PyArray1::from_vec(py, r.series.work_rd_all))?;
        d.set_item("series", s)?;
        d.set_item("config", r.config.to_json())?;
        Ok(d.into_any().unbind())
    }
}

/// Converts a text trace step by step, so that Python can show progress.
#[pyclass(module = "reclaim._core", name = "TraceConverter", unsendable)]
struct PyTraceConverter {
    inner: Option<Converter>,
}

#[pymethods]
impl PyTraceConverter {
    #[new]
    #[pyo3(signature = (path, format, page_size=4096, rename=false, skip_bad_lines=false, device=None, blkparse_action="Q", out=None))]
    #[allow(clippy::too_many_arguments)] // the options of `reclaim trace convert`, by name
    fn new(
        path: &str,
        format: &str,
        page_size: u64,
        rename: bool,
        skip_bad_lines: bool,
        device: Option<String>,
        blkparse_action: &str,
        out: Option<&str>,
    ) -> PyResult<Self> {
        let format: Format = format.parse().map_err(map_err)?;
        let options = ConvertOptions {
            page_size,
            rename,
            read: ReadOptions {
                skip_bad_lines,
                device,
                blkparse_action: blkparse_action.to_string(),
            },
        };
        let path = std::path::Path::new(path);
        // With the output known, the arrays spill to disk as they grow (bounded memory).
        // Its reader polls Python's signal handlers ([`signal_stop`], set at import).
        let converter = match out {
            Some(out) => Converter::spilling(path, format, options, std::path::Path::new(out)),
            None => Converter::new(path, format, options),
        };
        Ok(PyTraceConverter {
            inner: Some(converter.map_err(map_err)?),
        })
    }

    /// Reads up to `max_requests` requests; returns whether more remain.
    fn step(&mut self, max_requests: u64) -> PyResult<bool> {
        let c = self
            .inner
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("the conversion is finished"))?;
        c.step(max_requests).map_err(map_err)
    }

    /// Lines read so far.
    fn lines(&self) -> u64 {
        self.inner.as_ref().map_or(0, Converter::lines)
    }

    /// Finishes the conversion, writes the binary trace to `out`, returns its metadata as JSON.
    fn write(&mut self, out: &str) -> PyResult<String> {
        let c = self
            .inner
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the conversion is finished"))?;
        let meta = c.finish_to(std::path::Path::new(out)).map_err(map_err)?;
        Ok(serde_json::to_string(&meta).expect("metadata serializes"))
    }

    /// Finishes the conversion, writes one binary trace per volume with writes into the folder
    /// `dir`; returns the whole trace's metadata and the list of (volume, file name), as JSON.
    fn write_volumes(&mut self, dir: &str) -> PyResult<(String, String)> {
        let c = self
            .inner
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the conversion is finished"))?;
        let trace = c.finish().map_err(map_err)?;
        let files = reclaim_core::trace::convert::write_volumes(&trace, std::path::Path::new(dir))
            .map_err(map_err)?;
        Ok((
            serde_json::to_string(&trace.meta).expect("metadata serializes"),
            serde_json::to_string(&files).expect("volumes serialize"),
        ))
    }
}

/// Writes a list of page ids as a converted trace (each id one single-page write request).
#[pyfunction]
fn write_page_trace(
    path: &str,
    pages: numpy::PyReadonlyArray1<'_, u32>,
    source: &str,
) -> PyResult<String> {
    let pages: Vec<u32> = pages.as_array().to_vec();
    let trace = page_list_trace(pages, source);
    write_binary(&trace, std::path::Path::new(path)).map_err(map_err)?;
    Ok(serde_json::to_string(&trace.meta).expect("metadata serializes"))
}

/// The stand-in for Stockmeyer's "snake" trace: the track of each write, drawn from the LRU
/// stack-distance model (`reclaim_core::trace::stand_in`).
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the model's parameters, each named as in the Rust struct
fn stand_in_pages<'py>(
    py: Python<'py>,
    tracks: u32,
    writes: u64,
    p_repeat: f64,
    p_near: f64,
    near: u32,
    alpha: f64,
    beta: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let model = reclaim_core::trace::stand_in::StackModel {
        tracks,
        writes,
        p_repeat,
        p_near,
        near,
        alpha,
        beta,
    };
    let pages = py
        .allow_threads(|| reclaim_core::trace::stand_in::generate(&model, seed))
        .map_err(map_err)?;
    Ok(PyArray1::from_vec(py, pages))
}

/// The file-structured stand-in for Stockmeyer's "snake" trace: the track of each write
/// (`reclaim_core::trace::stand_in_files`).
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the model's parameters, each named as in the Rust struct
fn stand_in_files_pages<'py>(
    py: Python<'py>,
    tracks: u32,
    writes: u64,
    size_min: f64,
    size_tail: f64,
    size_max: u32,
    frozen: f64,
    skew: f64,
    p_stack: f64,
    depth: u32,
    p_whole: f64,
    run: f64,
    p_repeat: f64,
    drift: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let model = reclaim_core::trace::stand_in_files::FileModel {
        tracks,
        writes,
        size_min,
        size_tail,
        size_max,
        frozen,
        skew,
        p_stack,
        depth,
        p_whole,
        run,
        p_repeat,
        drift,
    };
    let pages = py
        .allow_threads(|| reclaim_core::trace::stand_in_files::generate(&model, seed))
        .map_err(map_err)?;
    Ok(PyArray1::from_vec(py, pages))
}

/// Checks the bytes of a converted trace; returns its header as JSON and the byte offsets of
/// its page ids, request sizes, times, request volumes and trims.
#[pyfunction]
fn check_trace(path: &str, data: &[u8]) -> PyResult<(String, usize, usize, usize, usize, usize)> {
    let l = check_binary(std::path::Path::new(path), data).map_err(map_err)?;
    Ok((
        serde_json::to_string(&l.meta).expect("metadata serializes"),
        l.pages_at,
        l.requests_at,
        l.times_at,
        l.volumes_at,
        l.trims_at,
    ))
}

/// A text trace's write-request lengths in slots of `slot_bytes`: ([(slots, requests)], skipped
/// lines by reason as JSON).
#[pyfunction]
#[pyo3(signature = (path, format, slot_bytes, skip_bad_lines=false, device=None))]
fn request_sizes(
    py: Python<'_>,
    path: &str,
    format: &str,
    slot_bytes: u64,
    skip_bad_lines: bool,
    device: Option<String>,
) -> PyResult<(Vec<(u64, u64)>, String)> {
    let format: Format = format.parse().map_err(map_err)?;
    let options = ReadOptions {
        skip_bad_lines,
        device,
        ..ReadOptions::default()
    };
    let (sizes, report) = py
        .allow_threads(|| {
            trace_request_sizes(
                std::path::Path::new(path),
                format,
                options,
                slot_bytes,
                None,
            )
        })
        .map_err(map_err)?;
    Ok((
        sizes,
        serde_json::to_string(&report.skipped).expect("counts serialize"),
    ))
}

/// The compiled engine behind `reclaim`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Every trace the engine reads, a run's included, stops on Ctrl-C and SIGTERM.
    reclaim_core::trace::set_default_stop(signal_stop);
    // Specs `MODULE:CLASS[:…]` name schemes written in Python.
    reclaim_core::outside::install(outside::resolve);
    m.add_class::<outside::View>()?;
    m.add_class::<outside::Generator>()?;
    m.add_class::<PySimulator>()?;
    m.add_class::<PyTraceConverter>()?;
    m.add_function(wrap_pyfunction!(write_page_trace, m)?)?;
    m.add_function(wrap_pyfunction!(check_trace, m)?)?;
    m.add_function(wrap_pyfunction!(request_sizes, m)?)?;
    m.add_function(wrap_pyfunction!(stand_in_pages, m)?)?;
    m.add_function(wrap_pyfunction!(stand_in_files_pages, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_config, m)?)?;
    m.add_function(wrap_pyfunction!(geometry, m)?)?;
    m.add_function(wrap_pyfunction!(device, m)?)?;
    m.add_function(wrap_pyfunction!(parameters, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(facts, m)?)?;
    m.add_function(wrap_pyfunction!(class_shares, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // A digest of the engine's sources (build.rs): results of different builds never mix.
    m.add("ENGINE_ID", env!("RECLAIM_ENGINE_ID"))?;
    Ok(())
}
