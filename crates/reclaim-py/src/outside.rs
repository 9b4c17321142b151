//! Schemes written in Python: the engine's resolver of `MODULE:CLASS[:…]` specs and the calls
//! into the instances (`reclaim.VictimPolicy`, `reclaim.Placement`, `python/reclaim/outside.py`
//! holds their Python side). Conversion only: the candidates, the checks of what a scheme
//! returns and the batching are the engine's (`reclaim_core::outside`).
//!
//! A victim policy's view shows the arrays the engine keeps for it (`reclaim_core::policy::
//! outside::Mirror`) to NumPy without a copy, read-only, each array keeping that memory alive
//! (a `Kept` holds it), so that an array a scheme keeps past its call is never dangling: it
//! shows the values of later calls as the run goes, and the last ones after it. The view object
//! itself is open only during a call (its attributes raise after), as is its generator.

use std::sync::Arc;

use numpy::ndarray::ArrayView1;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rand::Rng;
use reclaim_core::ledger::FactArray;
use reclaim_core::outside::{Factory, OutsideSpec, Shape};
use reclaim_core::placement::outside::OutsidePlacement;
use reclaim_core::policy::outside::{OutsidePolicy, PolicyView};
use reclaim_core::spec::{Family, Need};
use reclaim_core::{Error, Result, SimRng};

use crate::RAISED;

/// The resolver installed in the engine: `reclaim.outside.resolve(family, text)` gives the
/// canonical spec and the factory, or raises with what is wrong.
pub(crate) fn resolve(family: Family, text: &str) -> Result<OutsideSpec> {
    Python::with_gil(|py| {
        let made = py
            .import("reclaim.outside")
            .and_then(|m| m.call_method1("resolve", (family.param(), text)));
        let made = made.map_err(|e| Error::param(family.param(), text, e.value(py)))?;
        let (canonical, factory): (String, PyObject) = made
            .extract()
            .map_err(|e| Error::param(family.param(), text, e.value(py)))?;
        let f = factory.bind(py);
        let facts: Vec<String> = f
            .getattr("facts")
            .and_then(|x| x.extract())
            .unwrap_or_default();
        // The need that keeps each fact it declares (reclaim.outside checked the names).
        let needs = (reclaim_core::ledger::FACTS.iter())
            .filter(|fact| facts.iter().any(|f| f == fact.name))
            .map(|fact| fact.need)
            .collect();
        let shape = Shape {
            user_streams: f
                .getattr("user_streams")
                .and_then(|x| x.extract())
                .unwrap_or(1),
            gc_streams: f
                .getattr("gc_streams")
                .and_then(|x| x.extract())
                .unwrap_or(1),
            batch: f.getattr("batch").and_then(|x| x.extract()).unwrap_or(1),
        };
        Ok(OutsideSpec {
            factory: Arc::new(PyFactory {
                factory,
                text: canonical.clone(),
                needs,
                shape,
            }),
            text: canonical,
        })
    })
}

/// A Python exception raised in `hook` of scheme `text`: a note naming them added to it, the
/// exception kept to be raised in place of the engine's error ([`crate::map_err`]), and its
/// traceback as the engine's message.
fn raised(py: Python<'_>, e: &PyErr, text: &str, hook: &str) -> String {
    let note = format!("raised in `{hook}` of the scheme `{text}`");
    let _ = e.value(py).call_method1("add_note", (note,));
    let shown = py
        .import("traceback")
        .and_then(|t| t.call_method1("format_exception", (e.value(py),)))
        .and_then(|lines| lines.extract::<Vec<String>>())
        .map_or_else(|_| e.to_string(), |lines| lines.concat());
    *RAISED.lock().expect("not poisoned") = Some(e.clone_ref(py));
    shown
}

/// The factory of a Python scheme: its class with its parsed parameters (Python side).
struct PyFactory {
    factory: PyObject,
    text: String,
    needs: Vec<Need>,
    shape: Shape,
}

impl PyFactory {
    /// A new instance, or the engine's error with what the constructor raised.
    fn make<'py>(&self, py: Python<'py>, args: &Bound<'py, PyTuple>) -> Result<PyObject> {
        (self.factory.bind(py).call_method1("make", args))
            .map(Bound::unbind)
            .map_err(|e| Error::Outside {
                scheme: self.text.clone(),
                message: raised(py, &e, &self.text, "__init__"),
            })
    }
}

impl Factory for PyFactory {
    fn policy(&self) -> Result<Box<dyn OutsidePolicy>> {
        Python::with_gil(|py| {
            let obj = self.make(py, &PyTuple::empty(py))?;
            let view = Py::new(py, View::default()).map_err(|e| Error::Outside {
                scheme: self.text.clone(),
                message: e.to_string(),
            })?;
            // The bound method, looked up once: a victim choice is a call and little else.
            let select = obj.bind(py).getattr("select").map_err(|e| Error::Outside {
                scheme: self.text.clone(),
                message: e.to_string(),
            })?;
            Ok(Box::new(PyPolicy {
                select: select.unbind(),
                view,
                text: self.text.clone(),
            }) as Box<dyn OutsidePolicy>)
        })
    }

    fn placement(
        &self,
        segments: u32,
        pps: u32,
        logical: u64,
    ) -> Result<Box<dyn OutsidePlacement>> {
        Python::with_gil(|py| {
            let args = (segments, pps, logical)
                .into_pyobject(py)
                .map_err(|e| Error::Outside {
                    scheme: self.text.clone(),
                    message: e.to_string(),
                })?;
            let obj = self.make(py, &args)?;
            let b = obj.bind(py);
            let gc = b
                .getattr("_classifies_gc")
                .and_then(|x| x.extract())
                .unwrap_or(false);
            let hooks = b
                .getattr("_hooks")
                .and_then(|x| x.extract())
                .unwrap_or(false);
            let view = Py::new(py, View::default()).map_err(|e| Error::Outside {
                scheme: self.text.clone(),
                message: e.to_string(),
            })?;
            Ok(Box::new(PyPlacement {
                obj,
                view,
                text: self.text.clone(),
                gc,
                hooks,
            }) as Box<dyn OutsidePlacement>)
        })
    }

    fn shape(&self) -> Shape {
        self.shape
    }

    fn needs(&self, need: Need) -> bool {
        self.needs.contains(&need)
    }
}

/// What keeps a view's arrays' memory alive: the base object of each NumPy array made from it.
#[pyclass(module = "reclaim._core", name = "Kept", frozen)]
pub(crate) struct Kept {
    _owner: Arc<dyn std::any::Any + Send + Sync>,
}

/// One of the engine's arrays as the view shows it: where it is and how long.
#[derive(Clone, Copy)]
enum Raw {
    U16(*const u16, usize),
    U32(*const u32, usize),
    U64(*const u64, usize),
    F64(*const f64, usize),
}

impl Raw {
    fn of(a: FactArray<'_>) -> Self {
        match a {
            FactArray::U16(x) => Raw::U16(x.as_ptr(), x.len()),
            FactArray::U32(x) => Raw::U32(x.as_ptr(), x.len()),
            FactArray::U64(x) => Raw::U64(x.as_ptr(), x.len()),
            FactArray::F64(x) => Raw::F64(x.as_ptr(), x.len()),
        }
    }
}

/// What a Python scheme sees at a call (`reclaim.View`): the run's clocks and generator, and
/// for a victim policy its candidates' valid counts and the facts it declared, as NumPy
/// arrays. Open only during the call.
#[pyclass(module = "reclaim._core", name = "View", unsendable)]
#[derive(Default)]
pub(crate) struct View {
    open: bool,
    now: u64,
    destage: u64,
    trace_time: u64,
    candidates: usize,
    segments: u32,
    pages_per_segment: u32,
    /// The arrays of the current call, by name, where they are, and what keeps them.
    raw: Vec<(&'static str, Raw)>,
    owner: Option<Py<Kept>>,
    /// The NumPy arrays made so far, by name (made once; the memory does not move in a run).
    made: Vec<(&'static str, Py<PyAny>)>,
    rng: Option<*mut SimRng>,
}

impl View {
    fn check_open(&self) -> PyResult<()> {
        if self.open {
            Ok(())
        } else {
            Err(PyRuntimeError::new_err(
                "the view is open only during the call it was given to: read what you need then, and copy the arrays you keep (numpy.array(view.valid))",
            ))
        }
    }

    fn array(slf: &Bound<'_, Self>, name: &str) -> PyResult<PyObject> {
        let py = slf.py();
        let this = slf.borrow();
        this.check_open()?;
        if let Some((_, a)) = this.made.iter().find(|(n, _)| *n == name) {
            return Ok(a.clone_ref(py));
        }
        let Some(&(key, raw)) = this.raw.iter().find(|(n, _)| *n == name) else {
            let kept: Vec<&str> = this.raw.iter().map(|(n, _)| *n).collect();
            return Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "the view has no fact `{name}` in this run (it has {}; declare the facts a scheme reads in its `facts`)",
                kept.join(", ")
            )));
        };
        let container = this
            .owner
            .as_ref()
            .expect("set with raw")
            .clone_ref(py)
            .into_bound(py)
            .into_any();
        drop(this);
        // SAFETY: the arrays live, at the same address, as long as `Kept` (the container, which
        // each array holds) holds their owner; the engine writes them only between calls.
        let a = unsafe {
            match raw {
                Raw::U16(p, n) => {
                    PyArray1::borrow_from_array(&ArrayView1::from_shape_ptr(n, p), container)
                        .into_any()
                }
                Raw::U32(p, n) => {
                    PyArray1::borrow_from_array(&ArrayView1::from_shape_ptr(n, p), container)
                        .into_any()
                }
                Raw::U64(p, n) => {
                    PyArray1::borrow_from_array(&ArrayView1::from_shape_ptr(n, p), container)
                        .into_any()
                }
                Raw::F64(p, n) => {
                    PyArray1::borrow_from_array(&ArrayView1::from_shape_ptr(n, p), container)
                        .into_any()
                }
            }
        };
        a.call_method1("setflags", (false,))?;
        let a = a.unbind();
        slf.borrow_mut().made.push((key, a.clone_ref(py)));
        Ok(a)
    }

    /// Closes the view after a call.
    fn close(slf: &Bound<'_, Self>) {
        let mut this = slf.borrow_mut();
        this.open = false;
        this.rng = None;
    }
}

#[pymethods]
impl View {
    /// User writes so far (the user-write clock).
    #[getter]
    fn now(&self) -> PyResult<u64> {
        self.check_open()?;
        Ok(self.now)
    }
    /// Segments sealed from user streams so far (the destage clock).
    #[getter]
    fn destage(&self) -> PyResult<u64> {
        self.check_open()?;
        Ok(self.destage)
    }
    /// The trace's clock [µs] (0 without one).
    #[getter]
    fn trace_time(&self) -> PyResult<u64> {
        self.check_open()?;
        Ok(self.trace_time)
    }
    /// Candidates of a victim choice.
    #[getter]
    fn candidates(&self) -> PyResult<usize> {
        self.check_open()?;
        Ok(self.candidates)
    }
    /// Segments of the device.
    #[getter]
    fn segments(&self) -> u32 {
        self.segments
    }
    /// Pages per segment.
    #[getter]
    fn pages_per_segment(&self) -> u32 {
        self.pages_per_segment
    }
    /// Valid pages of each candidate; `NOT_CANDIDATE` for every other segment.
    #[getter]
    fn valid(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        View::array(slf, "valid")
    }
    /// The user-write clock when the youngest data each segment holds was written.
    #[getter]
    fn stamp(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        View::array(slf, "stamp")
    }
    /// The order in which segments were sealed.
    #[getter]
    fn sealed_at(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        View::array(slf, "sealed_at")
    }
    /// Erases of each segment since the start of the run.
    #[getter]
    fn erase_count(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        View::array(slf, "erase_count")
    }
    /// A fact by name (`seal_time`, `destage_number`, `sealed_by`, …), as declared.
    fn fact(slf: &Bound<'_, Self>, name: &str) -> PyResult<PyObject> {
        View::array(slf, name)
    }
    /// The run's generator (xoshiro256++, seeded from the run's seed).
    #[getter]
    fn rng(slf: &Bound<'_, Self>) -> PyResult<Generator> {
        slf.borrow().check_open()?;
        Ok(Generator {
            view: slf.clone().unbind(),
        })
    }
}

/// The run's generator as a scheme's call sees it (`view.rng`), valid during the call only:
/// it reads the generator through its view, which holds it only while the call lasts.
#[pyclass(module = "reclaim._core", name = "Generator", unsendable)]
pub(crate) struct Generator {
    view: Py<View>,
}

impl Generator {
    fn with<T>(&self, py: Python<'_>, f: impl FnOnce(&mut SimRng) -> T) -> PyResult<T> {
        match self.view.bind(py).borrow().rng {
            // SAFETY: set only during a call, while the engine lends the generator to it.
            Some(p) => Ok(f(unsafe { &mut *p })),
            None => Err(PyRuntimeError::new_err(
                "the run's generator is available only during a call",
            )),
        }
    }
}

#[pymethods]
impl Generator {
    /// A float uniform in [0, 1).
    fn random(&self, py: Python<'_>) -> PyResult<f64> {
        self.with(py, |r| r.random::<f64>())
    }
    /// An integer uniform in [0, n).
    fn below(&self, py: Python<'_>, n: u64) -> PyResult<u64> {
        if n == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "invalid value for `n`: 0 (expected an integer of at least 1)",
            ));
        }
        self.with(py, |r| r.random_range(0..n))
    }
}

/// A victim policy's instance, by its `select` method.
struct PyPolicy {
    select: PyObject,
    view: Py<View>,
    text: String,
}

impl OutsidePolicy for PyPolicy {
    fn select(&mut self, v: &PolicyView<'_>, rng: &mut SimRng) -> std::result::Result<i64, String> {
        Python::with_gil(|py| {
            let view = self.view.bind(py);
            {
                let mut w = view.borrow_mut();
                if w.raw.is_empty() {
                    w.segments = v.valid.len() as u32;
                    w.pages_per_segment = v.pages_per_segment;
                    for name in v.names() {
                        if let Some(a) = v.array(name) {
                            w.raw.push((name, Raw::of(a)));
                        }
                    }
                    let kept = Kept { _owner: v.owner() };
                    w.owner = Some(Py::new(py, kept).map_err(|e| e.to_string())?);
                }
                w.open = true;
                w.now = v.clocks.user_writes;
                w.destage = v.clocks.destage;
                w.trace_time = v.clocks.trace_time;
                w.candidates = v.candidates;
                w.rng = Some(std::ptr::from_mut(rng));
            }
            let r = self.select.bind(py).call1((view,));
            View::close(view);
            let seg = r.map_err(|e| raised(py, &e, &self.text, "select"))?;
            seg.extract::<i64>().map_err(|_| {
                let shown = seg.repr().map_or_else(|_| "?".into(), |r| r.to_string());
                format!("select returned {shown}, not a segment number (an int)")
            })
        })
    }
}

/// A placement's instance.
struct PyPlacement {
    obj: PyObject,
    view: Py<View>,
    text: String,
    gc: bool,
    hooks: bool,
}

impl PyPlacement {
    /// Calls `method` with `args` and the view (`now` and the generator set), its result read as
    /// classes into `out`.
    fn classes<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        args: Bound<'py, PyTuple>,
        (now, rng): (u64, &mut SimRng),
        out: &mut Vec<i64>,
    ) -> std::result::Result<(), String> {
        let view = self.view.bind(py);
        {
            let mut w = view.borrow_mut();
            w.open = true;
            w.now = now;
            w.rng = Some(std::ptr::from_mut(rng));
        }
        let r = self.obj.bind(py).call_method1(method, args);
        View::close(view);
        let r = r.map_err(|e| raised(py, &e, &self.text, method))?;
        let a: PyReadonlyArray1<'_, i64> = r
            .extract()
            .map_err(|_| format!("{method} returned something that is not an array of classes"))?;
        out.clear();
        out.extend_from_slice(a.as_slice().map_err(|e| e.to_string())?);
        Ok(())
    }
}

impl OutsidePlacement for PyPlacement {
    fn classify_user(
        &mut self,
        pages: &[u32],
        now: u64,
        rng: &mut SimRng,
        out: &mut Vec<i64>,
    ) -> std::result::Result<(), String> {
        Python::with_gil(|py| {
            let p = PyArray1::from_slice(py, pages);
            let args = (p, self.view.clone_ref(py))
                .into_pyobject(py)
                .map_err(|e| e.to_string())?;
            self.classes(py, "_classify_user", args, (now, rng), out)
        })
    }

    fn classifies_gc(&self) -> bool {
        self.gc
    }

    fn classify_gc(
        &mut self,
        victim: u32,
        pages: &[u32],
        now: u64,
        rng: &mut SimRng,
        out: &mut Vec<i64>,
    ) -> std::result::Result<(), String> {
        Python::with_gil(|py| {
            let p = PyArray1::from_slice(py, pages);
            let args = (victim, p, self.view.clone_ref(py))
                .into_pyobject(py)
                .map_err(|e| e.to_string())?;
            self.classes(py, "_classify_gc", args, (now, rng), out)
        })
    }

    fn hooks(&self) -> bool {
        self.hooks
    }

    fn sealed(&mut self, stream: usize, seg: u32, now: u64) -> std::result::Result<(), String> {
        Python::with_gil(|py| {
            (self
                .obj
                .bind(py)
                .call_method1("on_seal", (stream, seg, now)))
            .map(|_| ())
            .map_err(|e| raised(py, &e, &self.text, "on_seal"))
        })
    }

    fn collected(&mut self, seg: u32, now: u64) -> std::result::Result<(), String> {
        Python::with_gil(|py| {
            (self.obj.bind(py).call_method1("on_collect", (seg, now)))
                .map(|_| ())
                .map_err(|e| raised(py, &e, &self.text, "on_collect"))
        })
    }
}
