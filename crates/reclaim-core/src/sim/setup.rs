//! Setting a run up: the geometry, workload and placement of a configuration, the memory check
//! and the allocations of [`Simulator::new`].

use std::sync::Arc;

use rand::SeedableRng;

use super::admission::{Admission, Way};
use super::log::LogTrigger;
use super::plan::TraceFacts;
use super::plan::{Phase, AHEAD, NOT_DRAWN};
use super::trim::TrimSchedule;
use super::{Cleaning, Device, Engine, Ownership, Plan, Simulator, Source, UserWrites};
use crate::cache::Cache;
use crate::clocks::Clocks;
use crate::config::{
    FreqSource, GcSpec, MethodSpec, PlacementSpec, RegionSpare, SimConfig, SortKey, StreamMode,
    WorkloadSpec,
};
use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::ledger::Ledgers;
use crate::limits;
use crate::metrics::Metrics;
use crate::placement::{self, Known, Placement};
use crate::policy::{Policy, PolicySpec};
use crate::rng::SimRng;
use crate::spec::Need;
use crate::store::{Store, NONE};
use crate::trace::convert::{self, ConvertOptions, Trims};
use crate::trace::Format;
use crate::workload::trace::{StepsBack, TraceClock};
use crate::workload::{ClassShare, Workload, Write};

/// A configuration's geometry, its workload (and the warm-up's, for a trace) and what the run
/// plan needs to know of the trace.
struct Setup {
    geometry: Geometry,
    workload: Workload,
    warm_workload: Option<Workload>,
    trace: Option<TraceFacts>,
    /// The trace's discards (none with `trim = false`).
    trims: Trims,
    /// `method = log`: its trigger over the trace's write requests.
    log: Option<LogTrigger>,
    /// The trace's clock, where a scheme reads it.
    clock: Option<TraceClock>,
    /// Whether the trace has request times.
    timestamps: bool,
    /// A timed run's trace reads.
    read_schedule: Option<crate::workload::trace::ReadSchedule>,
    rng: SimRng,
}

impl Setup {
    fn new(config: &SimConfig) -> Result<Self> {
        config.validate_run()?;
        let mut trace = run_trace(config)?;
        let geometry = config.geometry_with(trace.as_ref().map(|t| t.meta.address_pages))?;
        let mut rng = SimRng::seed_from_u64(config.seed);
        let mut facts = trace.as_ref().map(|t| {
            let (written_once, working_set) = t.written_once();
            TraceFacts {
                writes: t.pages.len() as u64,
                working_set,
                address_pages: t.meta.address_pages,
                written_once,
                steps_back: StepsBack::default(),
            }
        });
        if facts.is_some_and(|f| f.writes == 0) {
            return Err(Error::param(
                "workload",
                config.workload.to_string(),
                "a trace with at least one page write",
            ));
        }
        let trims = match &mut trace {
            Some(t) if config.trim => std::mem::take(&mut t.trims),
            _ => Trims::default(),
        };
        if !trims.is_empty() && config.cache.is_some() {
            return Err(Error::param(
                "trim",
                true,
                format!("`false` with a write cache (`cache`): the trace discards {} ranges of pages, and the cache holds pages a discard would have to take back", trims.len()),
            ));
        }
        let log = match (config.method(), &trace) {
            (Some(MethodSpec::Log(rule)), Some(t)) => Some(LogTrigger::new(rule, &t.request_pages)),
            _ => None,
        };
        // A timed run replays the trace's reads among its writes.
        let read_schedule = match (&config.device, &trace) {
            (Some(_), Some(t)) => crate::workload::trace::ReadSchedule::new(t),
            _ => None,
        };
        let (pages, requests, times) = match trace {
            Some(t) => (Some(Arc::new(t.pages)), t.request_pages, t.times),
            None => (None, Vec::new(), Vec::new()),
        };
        let thresholds = config.trace_classes.as_deref();
        let workload = Workload::new(
            &config.workload,
            geometry.logical_pages,
            &mut rng,
            pages.clone(),
            thresholds,
        )?;
        // The trace's clock is kept only when a scheme reads it (`Need::Times`). A trace
        // without times has its requests 1 µs apart; a workload without requests, its writes.
        let needs_times = config.placement().info().needs(Need::Times)
            || config.policy.needs(Need::Times)
            || (config.device.is_some() && pages.is_some());
        let timestamps = !times.is_empty();
        if let (Some(f), true) = (facts.as_mut(), needs_times) {
            f.steps_back = StepsBack::of(&times);
        }
        let clock = match (&pages, needs_times) {
            (Some(p), true) if times.is_empty() => {
                let times: Vec<f64> = (0..requests.len()).map(|i| i as f64 * 1e-6).collect();
                TraceClock::new(&requests, &times, p.len() as u64)
            }
            (Some(p), true) => TraceClock::new(&requests, &times, p.len() as u64),
            _ => None,
        }
        .or_else(|| needs_times.then(TraceClock::per_write));
        // Warm-up writes follow the run's workload, except for a trace, whose warm-up is uniform
        // over the whole logical space (DESIGN "Workloads"; Li et al. §6.1, Stockmeyer §2.1).
        let warm_workload = match pages {
            Some(_) => Some(Workload::new(
                &WorkloadSpec::Uniform,
                geometry.logical_pages,
                &mut rng,
                None,
                None,
            )?),
            None => None,
        };
        Ok(Setup {
            geometry,
            workload,
            warm_workload,
            timestamps,
            read_schedule,
            trace: facts,
            trims,
            log,
            clock,
            rng,
        })
    }
}

/// The trace a configuration replays, if any: its volume, renamed densely where the method
/// sizes the device from the working set; a trace that only reads is an error.
fn run_trace(config: &SimConfig) -> Result<Option<convert::Trace>> {
    let mut trace = match &config.workload {
        WorkloadSpec::Trace { path } => {
            let path = std::path::Path::new(path);
            Some(convert::load(
                path,
                Some(Format::Pages),
                ConvertOptions::default(),
            )?)
        }
        _ => None,
    };
    if let Some(t) = trace.take() {
        trace = Some(one_volume(t, config.volume.as_deref())?);
    }
    if let (Some(t), Some(m)) = (trace.as_mut(), config.method()) {
        if m.sizes_from_working_set() {
            t.rename_densely();
        }
    }
    // A trace that only reads has nothing to size a device from: say so before the geometry
    // blames the spare for its zero pages.
    if trace.as_ref().is_some_and(|t| t.pages.is_empty()) {
        return Err(Error::param(
            "workload",
            config.workload.to_string(),
            "a trace with at least one page write (this one only reads)",
        ));
    }
    Ok(trace)
}

/// The volume of `trace` a run replays: `volume` by name, `all` of them on one device (each in
/// its own pages), or the trace's one volume when `volume` is unset.
fn one_volume(trace: convert::Trace, volume: Option<&str>) -> Result<convert::Trace> {
    let names = trace.volume_names();
    let listed = || {
        let shown: Vec<String> = names.iter().take(20).map(|n| format!("`{n}`")).collect();
        let more = if names.len() > 20 { ", …" } else { "" };
        format!("{}{more}", shown.join(", "))
    };
    match volume {
        Some("all") => Ok(trace),
        None if names.len() <= 1 => Ok(trace),
        None => Err(Error::param(
            "volume",
            "none",
            format!(
                "one of the trace's {} volumes ({}), or `all` for every volume on one device; `reclaim simulate --volume each` runs each as its own device",
                names.len(),
                listed()
            ),
        )),
        Some(name) => {
            let Some(i) = names.iter().position(|n| *n == name) else {
                return Err(Error::param(
                    "volume",
                    format!("`{name}`"),
                    format!("one of the trace's {} volumes ({}), or `all`", names.len(), listed()),
                ));
            };
            Ok(trace.volume(i).expect("a listed volume"))
        }
    }
}

/// The geometry and the pages and write share of each class of a configuration's workload (what
/// the Python API needs to resolve `regions:spare=optimal`).
pub fn class_shares(config: &SimConfig) -> Result<(Geometry, Vec<ClassShare>)> {
    let setup = Setup::new(config)?;
    let shares = setup.workload.class_shares(setup.geometry.logical_pages);
    Ok((setup.geometry, shares))
}

/// The segment quota of each region (one per class, in class order) under a configuration's
/// placement; a single quota of every segment for the schemes without regions.
pub fn region_quotas(config: &SimConfig) -> Result<Vec<u32>> {
    let setup = Setup::new(config)?;
    let g = setup.geometry;
    let classes = setup.workload.class_shares(g.logical_pages);
    let (placement, _) = Placement::new(
        &config.placement(),
        (g.segments, g.pages_per_segment),
        &classes,
        config.gc.min_free(),
        (setup.workload.trace_pages(), setup.workload.rate_rank()),
    )?;
    Ok(placement.regions.iter().map(|r| r.quota).collect())
}

/// The admission of a run's pages: how they get their slots (see [`Way`]), with room for the
/// pages that wait, whose page-map names start past the physical pages (stream t's i-th waiting
/// page is physical pages + t·b + i; the buffer's i-th, physical pages + i).
fn admission(
    placement: &Placement,
    buffer: Option<crate::placement::sort_buffer::SortBuffer>,
    geometry: &Geometry,
    config: &SimConfig,
) -> Result<Admission> {
    let pps = geometry.pages_per_segment;
    let base = geometry.physical_pages();
    let mode = config.streams;
    let mut waiting = Vec::new();
    if mode == StreamMode::Cache {
        let streams = placement.streams.len() as u64;
        if base + streams * u64::from(pps) >= u64::from(NONE) {
            return Err(Error::param(
                "streams",
                mode,
                format!("`hole` on this geometry: {base} physical pages and {streams} streams of {pps} waiting pages do not fit in 32-bit page-map entries"),
            ));
        }
        waiting = vec![Vec::with_capacity(pps as usize); placement.streams.len()];
    }
    if let Some(buffer) = &buffer {
        if base + buffer.capacity as u64 >= u64::from(NONE) {
            return Err(Error::param(
                "placement",
                "`sort-buffer`",
                format!("a buffer that fits in 32-bit page-map entries beside the {base} physical pages ({} pages asked)", buffer.capacity),
            ));
        }
    }
    // Cache streams go with neither the sort buffer nor sizes (`SimConfig::validate`).
    let way = if !waiting.is_empty() {
        Way::CacheStreams
    } else if buffer.is_some() {
        Way::SortBuffer
    } else {
        Way::Direct {
            sized: config.sizes.is_some(),
        }
    };
    Ok(Admission {
        way,
        waiting,
        buffer,
        base: base as u32,
    })
}

/// What a run needs beyond the page map and the valid counts, derived once from its
/// configuration: the memory check counts it, and the allocations follow it.
#[allow(clippy::struct_excessive_bools)] // each a separate need, read once at setup
struct Needs {
    /// The facts kept ([`crate::ledger`]): those some scheme of the run declares.
    facts: Vec<Need>,
    /// A Zipf workload's rank per page and rate per rank (4 + 2 bytes; `freq=exact`).
    zipf_ranks: bool,
    /// Each page's size (2 bytes; `--sizes`).
    sizes: bool,
    /// What the placement keeps per page (a level, a log, a last write …).
    placement_bytes: u64,
    /// The set of sealed segments (else the store keeps only their number).
    sealed_set: bool,
    /// The victim policy's own per-page state (16 bytes; `cost-hotness`), told of user writes.
    policy_pages: bool,
}

impl Needs {
    fn of(config: &SimConfig, placement: &Placement, spec: &PlacementSpec, buffered: bool) -> Self {
        let sort = match config.gc {
            GcSpec::Batch { sort, .. } => sort,
            _ => SortKey::None,
        };
        let exact = config.freq() == FreqSource::Exact;
        // A fact is kept when the policy or the placement declares it, or the run's cleaner
        // (its batch sort key), admission (the sort buffer) or frequency source reads it.
        let declared = |need: Need| {
            config.policy.needs(need)
                || placement.scheme.info().needs(need)
                || match need {
                    Need::DestageNumbers => sort == SortKey::Dseq,
                    Need::Up2 => buffered,
                    Need::PageWritten => sort == SortKey::Written,
                    Need::PageRate => exact,
                    _ => false,
                }
        };
        Needs {
            facts: crate::ledger::FACTS
                .iter()
                .map(|f| f.need)
                .filter(|&n| declared(n))
                .collect(),
            zipf_ranks: exact && matches!(config.workload, WorkloadSpec::Zipf { .. }),
            sizes: config.sizes.is_some(),
            placement_bytes: spec.page_bytes(),
            sealed_set: config.policy.reads_sealed_set(),
            policy_pages: config.policy.needs(Need::PageState),
        }
    }

    /// Whether the run keeps the fact of `need`.
    fn keeps(&self, need: Need) -> bool {
        self.facts.contains(&need)
    }

    /// Bytes per logical page beyond the page map, for the memory check.
    fn bytes_per_page(&self) -> u64 {
        self.placement_bytes
            + Ledgers::bytes_per_page(|n| self.keeps(n))
            + 6 * u64::from(self.zipf_ranks)
            + 2 * u64::from(self.sizes)
            + 16 * u64::from(self.policy_pages)
    }

    /// The store, with the facts the run reads.
    fn store(&self, geometry: &Geometry, config: &SimConfig) -> Store {
        let mut store = Store::new(geometry);
        if !self.sealed_set {
            store.count_sealed_only();
        }
        store.facts = Ledgers::new(geometry, |n| self.keeps(n));
        if let Some(MethodSpec::Log(log)) = config.method() {
            store.victim_valid_bound = log.most_valid(geometry.pages_per_segment);
        }
        if let Some(sizes) = &config.sizes {
            store.keep_sizes(crate::workload::sizes::page_sizes(
                sizes,
                geometry.logical_pages,
                config.seed,
            ));
        }
        store
    }

    /// What a user write tells beyond the store: whether anything hears of it (a ledger, a
    /// stream's u_p2, the policy), and whether the policy does.
    fn user_writes(&self, facts: &Ledgers) -> UserWrites {
        UserWrites {
            on: facts.hear_user_writes() || self.keeps(Need::Up2) || self.policy_pages,
            policy: self.policy_pages,
        }
    }
}

/// The placement of a configuration and the admission of its pages, the regions' quotas
/// checked against the classes they hold.
fn placement(
    config: &SimConfig,
    spec: &PlacementSpec,
    geometry: &Geometry,
    (classes, known): (&[ClassShare], Known<'_>),
) -> Result<(Placement, Admission)> {
    let (n, pps) = (geometry.segments, geometry.pages_per_segment);
    let (placement, buffer) = Placement::new(spec, (n, pps), classes, config.gc.min_free(), known)?;
    let admission = admission(&placement, buffer, geometry, config)?;
    for p in placement.policies.iter().flatten() {
        // A group's own policy is kept by the store as the run's policy asks: it may read
        // nothing beyond valid counts and seal order.
        let extra = p.needs_destage_numbers()
            || p.reads_sealed_set()
            || p.freq().is_some()
            || p.needs(Need::Times)
            || p.needs(Need::PageState);
        if extra {
            return Err(Error::param(
                "placement",
                format!("`{spec}` (a group cleaned by `{p}`)"),
                "group policies that read only valid counts and seal order (greedy, fifo)",
            ));
        }
    }
    if let PlacementSpec::Regions(RegionSpare::Shares(b)) = spec {
        let quotas: Vec<u32> = placement.regions.iter().map(|r| r.quota).collect();
        placement::regions::check(&quotas, pps, classes, config.gc.min_free(), b)?;
    }
    Ok((placement, admission))
}

/// The warning that `--policy` chooses no victim, when every group of the placement cleans by
/// a policy of its own and the run names another than the default.
fn unused_policy(placement: &Placement, config: &SimConfig) -> Option<String> {
    let own = placement.groups
        && !placement.policies.is_empty()
        && placement.policies.iter().all(Option::is_some);
    (own && config.policy != SimConfig::default().policy).then(|| {
        let mut used: Vec<String> = (placement.policies.iter().flatten())
            .map(ToString::to_string)
            .collect();
        used.dedup();
        format!(
            "`--policy {}` chooses no victim: every group of `{}` is cleaned by its own policy ({})",
            config.policy,
            config.placement(),
            used.join(", ")
        )
    })
}

/// The victim policy of region `r`: the placement's own for it, or the run's.
fn group_policy<'a>(placement: &'a Placement, r: usize, config: &'a SimConfig) -> &'a PolicySpec {
    match placement.policies.get(r) {
        Some(Some(p)) => p,
        _ => &config.policy,
    }
}

impl Source {
    /// The writes of `workload` (of `warm_workload` in a trace's warm-up, which leaves the
    /// classes of `warm_skips` alone), drawn with a generator of their own from `seed`.
    fn new(
        workload: Workload,
        warm_workload: Option<Workload>,
        warm_skips: Vec<bool>,
        seed: u64,
    ) -> Self {
        Source {
            workload,
            workload_rng: SimRng::seed_from_u64(seed ^ 0x9E37_79B9_7F4A_7C15),
            ahead: [Write::new(0, 0); AHEAD],
            ahead_at: NOT_DRAWN,
            warm_workload,
            warm_skips,
            trims: None,
            clock: None,
        }
    }

    /// The writes with a trace's discards at their places.
    fn with_trims(mut self, trims: Option<TrimSchedule>) -> Self {
        self.trims = trims;
        self
    }
}

impl Simulator {
    /// A simulator for a validated configuration.
    pub fn new(given: &SimConfig) -> Result<Self> {
        let config = &given.on_device();
        let Setup {
            geometry,
            mut workload,
            warm_workload,
            timestamps,
            read_schedule,
            trace,
            trims,
            log,
            clock,
            rng,
        } = Setup::new(config)?;
        let (n, pps) = (geometry.segments, geometry.pages_per_segment);
        let classes = workload.class_shares(geometry.logical_pages);
        let spec = config.placement();
        let (placement, admission) = placement(
            config,
            &spec,
            &geometry,
            (&classes, (workload.trace_pages(), workload.rate_rank())),
        )?;
        let needs = Needs::of(config, &placement, &spec, admission.buffer.is_some());
        limits::check_memory(&geometry, needs.bytes_per_page(), config.cache.unwrap_or(0))?;
        let store = needs.store(&geometry, config);
        let user_writes = needs.user_writes(&store.facts);
        let freq = config.freq();
        // Reads of a timed run follow the workload's own law (a zipf's same permutation).
        let read_law = (config.reads.unwrap_or(0.0) > 0.0).then(|| workload.clone());
        if freq == FreqSource::Exact {
            workload.keep_rates();
        }
        let regions = placement.regions.len();
        let warm_skips = if matches!(spec, PlacementSpec::Regions(_)) {
            classes.iter().map(|c| c.write_share == 0.0).collect()
        } else {
            Vec::new()
        };
        let mut sim = Simulator {
            engine: Engine {
                geometry,
                dev: Device {
                    store,
                    policies: (0..regions)
                        .map(|r| Policy::new(group_policy(&placement, r, config), &geometry))
                        .collect(),
                    ownership: Ownership::new(regions, n),
                    placement,
                    clocks: Clocks::default(),
                    metrics: Metrics::new(n, pps),
                    free_empty: config.free_empty,
                    // Recorded from the measured phase on (`timed`).
                    ops: None,
                },
                user_writes,
                admission,
                freq,
                cache: config.cache.map(|c| Cache::new(c as usize)),
                rng,
                cleaning: Cleaning::new(config.gc, &config.policy, n, pps),
            },
            source: Source::new(workload, warm_workload, warm_skips, config.seed)
                .with_trims(trace.and_then(|t| TrimSchedule::new(trims, t.writes))),
            plan: Plan::of(config, &geometry, trace)?,
            config: config.clone(),
            timed: None,
        };
        sim.engine.cleaning.log = log;
        sim.source.clock = clock;
        sim.timed =
            super::timed::on_device(config, sim.engine.admission.way, read_law, timestamps)?;
        if let Some(t) = sim.timed.as_mut() {
            t.trace_reads = read_schedule;
        }
        sim.plan.warnings.extend(given.segment_warning());
        sim.plan
            .warnings
            .extend(unused_policy(&sim.engine.dev.placement, config));
        if let Phase::Measure(_) = sim.plan.phase {
            sim.engine
                .dev
                .metrics
                .start(&sim.engine.dev.store.erase_count, sim.plan.window);
        }
        Ok(sim)
    }
}
