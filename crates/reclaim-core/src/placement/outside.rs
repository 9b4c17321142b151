//! A placement written outside the engine (in Python: `reclaim.Placement`), named in a spec by
//! where it lives, `MODULE:CLASS[:key=value,…]` ([`crate::outside`]).
//!
//! It declares its streams ([`Shape`]): `user_streams` that user writes go to by their class,
//! then `gc_streams` that relocated pages go to by theirs, in one region with a reserve of one
//! free segment per GC stream beyond the first (as every placement of several GC streams).
//! A user write's class is asked in batches where the run loop draws writes ahead
//! ([`OutsideScheme::classify_ahead`]): up to `batch` writes at once, classified before any of
//! them is written, so that what the batch's writes change (a cleaning between two of them) is
//! seen by the next batch, not by the rest of this one; elsewhere (the fill, a warm-up, a run
//! through a write cache) one write at a time. A victim's relocated pages are asked at once.
//! Its optional hooks are told of each seal (stream and segment) and each victim collected.

use std::fmt;

use super::{Build, Built, Relocation, RelocationRun, Scheme, Victim};
use crate::error::{Error, Result};
use crate::outside::{OutsideSpec, Shape};
use crate::rng::SimRng;
use crate::spec::{Family, Info};
use crate::workload::Write;

/// What every placement written outside the engine declares of itself here (its own parameters
/// and streams are declared in its host).
pub const INFO: Info = Info {
    family: Family::Placement,
    name: "MODULE:CLASS",
    aliases: &[],
    summary: "A placement written in Python (a subclass of reclaim.Placement), named by module and class.",
    source: "docs/python-schemes.md",
    params: &[],
    needs: &[],
};

/// A placement's instance in its host. Each call returns the host's message (a traceback) when
/// it raised.
pub trait OutsidePlacement: Send + Sync {
    /// The classes of the user writes of `pages` (in write order), the first of which is the
    /// run's user write number `now` (0-based), into `out`, one per page; `rng` the run's
    /// generator.
    ///
    /// # Errors
    /// What the host raised.
    fn classify_user(
        &mut self,
        pages: &[u32],
        now: u64,
        rng: &mut SimRng,
        out: &mut Vec<i64>,
    ) -> std::result::Result<(), String>;
    /// Whether it classifies relocated pages ([`Self::classify_gc`]); else they all go to the
    /// first GC stream.
    fn classifies_gc(&self) -> bool;
    /// The classes of the relocated `pages` of victim segment `victim`, `now` user writes into the
    /// run, into `out`, one per page.
    ///
    /// # Errors
    /// What the host raised.
    fn classify_gc(
        &mut self,
        victim: u32,
        pages: &[u32],
        now: u64,
        rng: &mut SimRng,
        out: &mut Vec<i64>,
    ) -> std::result::Result<(), String>;
    /// Whether it is told of seals and victims ([`Self::sealed`], [`Self::collected`]).
    fn hooks(&self) -> bool;
    /// Stream `stream` sealed segment `seg`, `now` user writes into the run.
    ///
    /// # Errors
    /// What the host raised.
    fn sealed(&mut self, stream: usize, seg: u32, now: u64) -> std::result::Result<(), String>;
    /// Segment `seg` was chosen as a victim, `now` user writes into the run.
    ///
    /// # Errors
    /// What the host raised.
    fn collected(&mut self, seg: u32, now: u64) -> std::result::Result<(), String>;
}

/// A placement written outside the engine, with the classes it gave to writes drawn ahead.
pub struct OutsideScheme {
    spec: OutsideSpec,
    shape: Shape,
    instance: Option<Box<dyn OutsidePlacement>>,
    gc: bool,
    hooks: bool,
    /// User writes classified so far (the next one's number).
    now: u64,
    /// Pages of the writes drawn ahead and their classes; `at` the next to be written.
    ahead: Vec<u32>,
    classes: Vec<i64>,
    at: usize,
    /// Pages and classes of one call.
    pages: Vec<u32>,
    failure: Option<Error>,
}

impl Clone for OutsideScheme {
    /// The same scheme, not yet made (a copy is never run beside its original).
    fn clone(&self) -> Self {
        OutsideScheme {
            spec: self.spec.clone(),
            shape: self.shape,
            instance: None,
            gc: false,
            hooks: false,
            now: self.now,
            ahead: Vec::new(),
            classes: Vec::new(),
            at: 0,
            pages: Vec::new(),
            failure: None,
        }
    }
}

impl fmt::Debug for OutsideScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OutsideScheme({}, {:?})", self.spec.text, self.shape)
    }
}

/// The streams of a shape: user streams, then GC streams.
pub fn streams(shape: Shape) -> u32 {
    u32::from(shape.user_streams) + u32::from(shape.gc_streams)
}

/// The placement of `spec` on the device of `b`: its instance made now, so that a constructor
/// that raises stops the run before it starts.
///
/// # Errors
/// What the host raised while making it.
pub fn build(spec: &OutsideSpec, b: &Build<'_>) -> Result<Built<OutsideScheme>> {
    let shape = spec.factory.shape();
    let logical = b.classes.iter().map(|c| c.pages).sum();
    let instance = spec.factory.placement(b.segments, b.pps, logical)?;
    let user = (0..streams(shape))
        .map(|s| s < u32::from(shape.user_streams))
        .collect();
    let scheme = OutsideScheme {
        spec: spec.clone(),
        shape,
        gc: instance.classifies_gc(),
        hooks: instance.hooks(),
        instance: Some(instance),
        now: 0,
        ahead: Vec::new(),
        classes: Vec::new(),
        at: 0,
        pages: Vec::new(),
        failure: None,
    };
    Ok(Built::whole(scheme, user, u32::from(shape.gc_streams), b))
}

impl OutsideScheme {
    /// User writes it classifies at once where they can be drawn ahead.
    pub fn batch(&self) -> usize {
        self.shape.batch.max(1) as usize
    }

    /// What it raised or returned wrongly, taken once.
    pub fn take_failure(&mut self) -> Option<Error> {
        self.failure.take()
    }

    fn fail(&mut self, message: String) {
        if self.failure.is_none() {
            self.failure = Some(Error::Outside {
                scheme: self.spec.text.clone(),
                message,
            });
        }
        // Nothing more is asked of it.
        self.instance = None;
    }

    /// Checks `classes` against `n` classes; the first out of range fails the run.
    fn check(&mut self, what: &str, count: usize, n: u16) -> bool {
        if self.classes.len() != count {
            let got = self.classes.len();
            self.fail(format!(
                "{what} returned {got} classes for {count} pages (one class per page)"
            ));
            return false;
        }
        if let Some(c) = self.classes.iter().find(|&&c| c < 0 || c >= i64::from(n)) {
            let c = *c;
            self.fail(format!(
                "{what} returned class {c}, out of range: the scheme declares {n} {} (classes 0 to {})",
                if what == "classify_user" { "user streams" } else { "GC streams" },
                n - 1
            ));
            return false;
        }
        true
    }

    /// Classifies the user writes of `pages`, about to be written in this order.
    pub fn classify_ahead(&mut self, pages: &[u32], rng: &mut SimRng) {
        self.ahead.clear();
        self.ahead.extend_from_slice(pages);
        self.at = 0;
        self.classify(pages.len(), rng);
    }

    /// Asks the classes of the `n` writes in `self.ahead`.
    fn classify(&mut self, n: usize, rng: &mut SimRng) {
        let Some(p) = self.instance.as_mut() else {
            self.classes.clear();
            self.classes.resize(n, 0);
            return;
        };
        if let Err(message) = p.classify_user(&self.ahead, self.now, rng, &mut self.classes) {
            self.fail(message);
        } else if !self.check("classify_user", n, self.shape.user_streams) {
            self.classes.clear();
            self.classes.resize(n, 0);
        }
    }
}

impl Scheme for OutsideScheme {
    fn user_stream(&mut self, write: &Write, _age: u64, rng: &mut SimRng) -> usize {
        if self.ahead.get(self.at) != Some(&write.page) {
            // Not drawn ahead (the fill, a warm-up, a write cache): this write alone.
            self.ahead.clear();
            self.ahead.push(write.page);
            self.at = 0;
            self.classify(1, rng);
        }
        let c = self.classes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        self.now += 1;
        c as usize
    }

    fn gc_stream(&mut self, r: Relocation<'_>) -> usize {
        let first = usize::from(self.shape.user_streams);
        if !self.gc {
            return first;
        }
        self.pages.clear();
        self.pages.push(r.page);
        first + self.gc_classes(r.victim.seg, r.rng)[0] as usize
    }

    fn gc_streams(&mut self, run: RelocationRun<'_>, out: &mut Vec<u32>) -> bool {
        let RelocationRun {
            victim, pages, rng, ..
        } = run;
        let first = u32::from(self.shape.user_streams);
        out.clear();
        if !self.gc {
            out.resize(pages.len(), first);
            return true;
        }
        self.pages.clear();
        self.pages.extend(pages.iter().map(|g| g.page));
        let classes = self.gc_classes(victim.seg, rng);
        out.extend(classes.iter().map(|&c| first + c as u32));
        out.resize(pages.len(), first);
        true
    }

    fn sealed(&mut self, stream: usize, seg: u32) {
        if self.hooks {
            if let Some(p) = self.instance.as_mut() {
                if let Err(m) = p.sealed(stream, seg, self.now) {
                    self.fail(m);
                }
            }
        }
    }

    fn collected(&mut self, victim: &Victim) {
        if self.hooks {
            if let Some(p) = self.instance.as_mut() {
                if let Err(m) = p.collected(victim.seg, self.now) {
                    self.fail(m);
                }
            }
        }
    }
}

impl OutsideScheme {
    /// The GC classes of `self.pages`, of victim `victim` (all 0 once it has failed).
    fn gc_classes(&mut self, victim: u32, rng: &mut SimRng) -> Vec<i64> {
        let n = self.pages.len();
        let mut out = Vec::with_capacity(n);
        if let Some(p) = self.instance.as_mut() {
            if let Err(message) = p.classify_gc(victim, &self.pages, self.now, rng, &mut out) {
                self.fail(message);
                out.clear();
            } else {
                std::mem::swap(&mut self.classes, &mut out);
                let ok = self.check("classify_gc", n, self.shape.gc_streams);
                std::mem::swap(&mut self.classes, &mut out);
                if !ok {
                    out.clear();
                }
            }
        }
        out.resize(n, 0);
        out
    }
}
