//! Configuration: the single source of truth for every parameter, its unit and its valid range.
//!
//! Every composite parameter (policy, frontier, cleaner trigger, workload, warm-up, run length)
//! is written as a *spec string* `name[:key=value,key=value]`, the same on the command line, in
//! Python and in JSON, e.g. `d-choices:d=10`, `hotcold:r=0.8,f=0.2`, `double:copy=oldest`.
//! Parsing and range checks live here and nowhere else; a bad value is an [`Error::Param`] that
//! names the parameter, the value and the valid range.

mod geometry;
mod length;
mod parameters;

pub use length::{Amount, WarmupSpec};
use parameters::abbreviated;
pub use parameters::{parameters, schemes, Kind, Parameter};

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::placement::{double::Double, single::Single, Declare as _};
use crate::spec::{string_serde, Args};

pub use crate::method::{Measure, MethodSpec, Precondition};
pub use crate::placement::age_sorted::{AgeSortedSpec, DecayRule, SplitRule};
pub use crate::placement::double::CopyOrder;
pub use crate::placement::multi_log::MultiLogSpec;
pub use crate::placement::regions::RegionSpare;
pub use crate::placement::sort_buffer::{Rewrite, SortBufferSpec};
pub use crate::placement::PlacementSpec;
pub use crate::policy::cost_benefit::BenefitForm;
pub use crate::policy::greedy::Tie;
pub use crate::policy::index::aged_buckets::{
    AgeRule, BucketCount, BucketOrder, LsaSelection, Threshold,
};
pub use crate::policy::mdc::{Decline, FreqSource, MdcSpec};
pub use crate::policy::windowed::WindowedSpec;
pub use crate::policy::PolicySpec;
pub use crate::trigger::{Gather, GcSpec, SortKey, Until};
pub use crate::workload::sizes::SizeSpec;
pub use crate::workload::WorkloadSpec;

/// Largest number of physical pages: slots are addressed by `u32`, `u32::MAX` marks "none".
pub const MAX_PHYSICAL_PAGES: u64 = u32::MAX as u64 - 1;

/// What a rewrite of a page still waiting in an open stream does (`--streams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StreamMode {
    /// `hole`: a page gets its slot as it is written; rewriting it while its segment is open
    /// leaves an invalid slot, so a segment may be sealed with holes (Menon & Stockmeyer, the
    /// simulator of Stockmeyer's Note 2; every paper's engine but Stockmeyer's own).
    #[default]
    Hole,
    /// `cache`: pages wait in their stream until a segment's worth has gathered, and only then
    /// take a free segment and their slots; a rewrite of a waiting page removes it and routes it
    /// afresh, so every sealed segment is full ("the streams act as a cache", Stockmeyer §2.3).
    Cache,
}

impl FromStr for StreamMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "hole" => Ok(StreamMode::Hole),
            "cache" => Ok(StreamMode::Cache),
            other => Err(Error::param("streams", other, "`hole` or `cache`")),
        }
    }
}

impl fmt::Display for StreamMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StreamMode::Hole => "hole",
            StreamMode::Cache => "cache",
        })
    }
}
string_serde!(StreamMode);

/// Placement of user and GC writes (`--frontier`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FrontierSpec {
    /// `single`: user and GC writes share one frontier.
    #[default]
    Single,
    /// `double:copy=random|oldest`: an external frontier for user writes and an internal one for
    /// GC writes (Van Houdt §2.3).
    Double {
        /// Order of the partial copy into the internal frontier.
        copy: CopyOrder,
    },
}

impl FrontierSpec {
    /// Number of open frontiers.
    pub fn count(self) -> u32 {
        match self {
            FrontierSpec::Single => 1,
            FrontierSpec::Double { .. } => 2,
        }
    }
}

impl FromStr for FrontierSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let spec = Args::parse("frontier", s)?;
        // The two placements `frontier` names, as they declare themselves.
        match spec.name {
            "single" => {
                spec.check(&Single::INFO)?;
                Ok(FrontierSpec::Single)
            }
            "double" => {
                spec.check(&Double::INFO)?;
                Ok(FrontierSpec::Double {
                    copy: Double::parse(&spec)?,
                })
            }
            _ => Err(spec.bad("`single`, `double:copy=random` or `double:copy=oldest`")),
        }
    }
}

impl fmt::Display for FrontierSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrontierSpec::Single => write!(f, "single"),
            FrontierSpec::Double {
                copy: CopyOrder::Random,
            } => write!(f, "double:copy=random"),
            FrontierSpec::Double {
                copy: CopyOrder::Oldest,
            } => write!(f, "double:copy=oldest"),
        }
    }
}
string_serde!(FrontierSpec);

impl From<FrontierSpec> for PlacementSpec {
    fn from(f: FrontierSpec) -> Self {
        match f {
            FrontierSpec::Single => PlacementSpec::Single(()),
            FrontierSpec::Double { copy } => PlacementSpec::Double(copy),
        }
    }
}

/// A complete simulation configuration. Unset geometry fields take their defaults; exactly one
/// of `spare`, `fill` and `logical_pages` may be given (none: `spare = 0.1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Physical segments N, 4 ≤ N, N × `pages_per_segment` < 2³². Default 1024; with a trace
    /// workload, enough for the trace's address space at the given spare factor.
    pub segments: Option<u32>,
    /// Pages per segment b, 1 ≤ b ≤ 65,536.
    pub pages_per_segment: u32,
    /// Spare factor S = 1 − logical / physical pages, 0 < S < 1.
    pub spare: Option<f64>,
    /// Fill factor ρ = logical / physical pages, 0 < ρ < 1.
    pub fill: Option<f64>,
    /// Logical pages, 1 ≤ `logical_pages` < physical pages.
    pub logical_pages: Option<u64>,
    /// Victim policy.
    pub policy: PolicySpec,
    /// Placement of user and GC writes (`single` or `double:…`); an alias kept for `placement`.
    pub frontier: FrontierSpec,
    /// Placement scheme; when unset, `frontier` decides.
    pub placement: Option<PlacementSpec>,
    /// What a rewrite of a page still in an open stream does: `hole` (default) or `cache`.
    pub streams: StreamMode,
    /// A sealed segment whose last valid page is invalidated goes to the free pool at once,
    /// counted as collected at utilization 0 (Stockmeyer §2.2); otherwise (the default) it stays
    /// a candidate until the policy selects it.
    pub free_empty: bool,
    /// LRU write cache in front of the store [pages], ≥ 1 (Stockmeyer's `CacheTrkCount`); unset:
    /// no cache.
    pub cache: Option<u64>,
    /// Access-count thresholds, decreasing, that split a trace's pages into classes (Li et al.
    /// §6.2: `[10]` gives two classes, `[50, 10]` three); pages the trace never writes form one
    /// more, inactive, class. Only with a trace workload.
    pub trace_classes: Option<Vec<u64>>,
    /// Cleaner trigger and stop levels.
    pub gc: GcSpec,
    /// Workload.
    pub workload: WorkloadSpec,
    /// Page sizes in slots (Lomet & Luo §4.4); unset: every page one slot. With sizes, the
    /// fill factor and the write counters are in slots.
    pub sizes: Option<SizeSpec>,
    /// How a trace is replayed (`li`, `stockmeyer`, `precondition`); only with a trace workload,
    /// whose default is `precondition`.
    pub method: Option<MethodSpec>,
    /// Whether a trace's discards (TRIM) invalidate their pages (default); `false` replays its
    /// writes alone.
    pub trim: bool,
    /// Which volume of a trace of several to replay: its name (as `reclaim trace stats` lists
    /// them), or `all` for every volume on one device, each in its own range of pages. Unset: the
    /// trace's one volume (a trace of several is then an error that lists them).
    pub volume: Option<String>,
    /// Warm-up before measurement; unset: `fill+10x`, or none with `method=precondition`.
    pub warmup: Option<WarmupSpec>,
    /// Measured user writes. Default `20x`; with a trace workload, one pass (`1p`).
    pub writes: Option<Amount>,
    /// Seed of the run's random generator.
    pub seed: u64,
    /// Time-series window [user writes], ≥ 1; default: the logical capacity.
    pub window: Option<u64>,
    /// Ends the measured phase once the 95% interval of a metric, by batch means over the
    /// windows, is this narrow (`wa:rel=0.0003`, [`crate::interval`]); `writes` is then the
    /// cap. Unset: the measured phase runs its `writes`. Only with a generated workload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<crate::interval::Precision>,
    /// The flash device a timed run lays its segments on (`time::spec`); unset: no time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<crate::time::DeviceSpec>,
    /// How a timed run's requests arrive; unset: `closed:iodepth=1`. Only with `device`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<crate::time::ArrivalSpec>,
    /// Share of a timed run's requests that are single-page reads of a synthetic workload, in
    /// [0, 1], their pages drawn by the workload's own law (1: reads only, the measured amount
    /// then counting reads). Only with `device`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reads: Option<f64>,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            segments: None,
            pages_per_segment: 64,
            spare: None,
            fill: None,
            logical_pages: None,
            policy: PolicySpec::default(),
            frontier: FrontierSpec::default(),
            placement: None,
            streams: StreamMode::Hole,
            free_empty: false,
            cache: None,
            trace_classes: None,
            gc: GcSpec::default(),
            workload: WorkloadSpec::default(),
            sizes: None,
            method: None,
            trim: true,
            volume: None,
            warmup: None,
            writes: None,
            seed: 1,
            window: None,
            precision: None,
            device: None,
            arrivals: None,
            reads: None,
        }
    }
}

impl SimConfig {
    /// Parses a JSON object (any subset of the fields) and validates it.
    ///
    /// Each field is read on its own first, so that a bad one is named with its value and its
    /// valid range from [`parameters`], never with the JSON parser's position.
    pub fn from_json(text: &str) -> Result<Self> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Error::param(
                "config",
                abbreviated(text),
                format!("a JSON object of parameters ({e})"),
            )
        })?;
        let serde_json::Value::Object(fields) = &value else {
            return Err(Error::param(
                "config",
                abbreviated(text),
                "a JSON object of parameters",
            ));
        };
        let known = parameters();
        for (name, v) in fields {
            let Some(p) = known.iter().find(|p| p.name == name) else {
                let names: Vec<&str> = known.iter().map(|p| p.name).collect();
                return Err(Error::param(
                    "config",
                    format!("unknown parameter `{name}`"),
                    format!("one of {}", names.join(", ")),
                ));
            };
            let one =
                serde_json::Value::Object(std::iter::once((name.clone(), v.clone())).collect());
            if serde_json::from_value::<SimConfig>(one).is_err() {
                return Err(p.error(v));
            }
        }
        let c: SimConfig = serde_json::from_value(value).map_err(|e| {
            Error::param(
                "config",
                abbreviated(text),
                format!("known parameters ({e})"),
            )
        })?;
        c.validate()?;
        Ok(c)
    }

    /// The configuration as JSON, every parameter in its canonical form.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("configuration serializes")
    }

    /// The configuration a run simulates: with a device, a segment is one of its superblocks
    /// (`pages_per_segment` follows from the geometry; [`Self::segment_warning`] says so), or
    /// with `unit=plane` one plane's block, `segments` then counting blocks per plane (as it
    /// counts superblocks) and the placement `planes:n=` the device's planes.
    #[must_use]
    pub fn on_device(&self) -> SimConfig {
        let mut c = self.clone();
        if let Some(d) = &self.device {
            c.pages_per_segment = d.segment_pages() as u32;
            if d.unit == crate::time::spec::Unit::Plane {
                let planes = d.total_planes();
                if self.segments.is_some() || !self.is_trace() {
                    let per_plane = self.segments.unwrap_or(1024);
                    c.segments = Some(per_plane.saturating_mul(planes));
                }
                if self.placement() == PlacementSpec::Single(()) {
                    c.placement = Some(PlacementSpec::Planes(planes));
                    c.frontier = FrontierSpec::Single;
                }
            }
        }
        c
    }

    /// The line a run prints when its device's superblock overrides a `pages_per_segment`
    /// given (one other than the default 64).
    pub fn segment_warning(&self) -> Option<String> {
        let d = self.device.as_ref()?;
        let pages = d.segment_pages();
        (self.pages_per_segment != SimConfig::default().pages_per_segment
            && u64::from(self.pages_per_segment) != pages)
            .then(|| {
                let segment = match d.unit {
                    crate::time::spec::Unit::Superblock => format!(
                        "superblock ({} channels × {} dies × {} planes × {} pages per block)",
                        d.channels, d.dies, d.planes, d.pages_per_block
                    ),
                    crate::time::spec::Unit::Plane => "block (unit=plane)".to_string(),
                };
                format!(
                    "the device's {segment} sets pages_per_segment to {pages}; the {} given is not used (set the device's pages_per_block)",
                    self.pages_per_segment
                )
            })
    }

    /// Checks the timed run's parameters: `arrivals` and `reads` only with a device, and what
    /// the device's clock does not model.
    fn validate_time(&self) -> Result<()> {
        if let Some(r) = self.reads {
            crate::spec::check_range("reads", r, 0.0, 1.0, false, false)?;
        }
        let Some(d) = &self.device else {
            for (name, given) in [
                ("arrivals", self.arrivals.map(|a| format!("`{a}`"))),
                ("reads", self.reads.map(crate::error::num)),
            ] {
                if let Some(v) = given {
                    return Err(Error::param(
                        name,
                        v,
                        "a `device` to time the run on (`--device femu`, `--device mqsim`)",
                    ));
                }
            }
            return Ok(());
        };
        let placement = self.placement();
        if d.unit == crate::time::spec::Unit::Plane
            && !matches!(
                placement,
                PlacementSpec::Single(()) | PlacementSpec::Planes(_)
            )
        {
            return Err(Error::param(
                "placement",
                format!("`{placement}` with `unit=plane`"),
                "`single` (each plane its own frontier and cleaning: the `planes` placement), or `unit=superblock` for another placement",
            ));
        }
        let pages = d.segment_pages();
        if pages > 65_536 {
            return Err(Error::param(
                "device",
                format!("`{d}` (a superblock of {pages} pages)"),
                "channels × dies × planes × pages_per_block ≤ 65536 (fewer pages per block, or fewer dies)",
            ));
        }
        let unsupported = [
            ("sizes", self.sizes.is_some()),
            ("cache", self.cache.is_some()),
            ("method", matches!(self.method(), Some(MethodSpec::Log(_)))),
        ];
        if let Some((name, _)) = unsupported.iter().find(|(_, on)| *on) {
            return Err(Error::param(
                name,
                "given with a `device`",
                format!("no `{name}` in a timed run (the device model times one page per slot, no write cache, no `log` method; docs/device.md)"),
            ));
        }
        if self.reads.is_some_and(|r| r > 0.0) && self.is_trace() {
            return Err(Error::param(
                "reads",
                crate::error::num(self.reads.unwrap_or(0.0)),
                "no `reads` with a trace workload: a trace's own reads are replayed",
            ));
        }
        Ok(())
    }

    /// Whether the workload replays a trace.
    pub fn is_trace(&self) -> bool {
        matches!(self.workload, WorkloadSpec::Trace { .. })
    }

    /// The trace-driven method in force: `method`, or `precondition` for a trace; `None` for a
    /// generated workload.
    pub fn method(&self) -> Option<MethodSpec> {
        self.is_trace().then(|| self.method.unwrap_or_default())
    }

    /// Whether every page the run writes is the trace's: no warm-up writes synthetic data over
    /// the logical space (`precondition` and `log` by default, or `warmup=none` / a trace share).
    pub fn writes_only_trace(&self) -> bool {
        let w = self.warmup();
        self.is_trace() && !w.fill && w.multiple == 0.0
    }

    /// The warm-up in force: `warmup`, or else `fill+10x` (none with `precondition`, whose trace
    /// preconditions the device itself).
    pub fn warmup(&self) -> WarmupSpec {
        match (self.warmup, self.method()) {
            (Some(w), _) => w,
            (None, Some(MethodSpec::Precondition(_) | MethodSpec::Log(_))) => WarmupSpec::NONE,
            (None, _) => WarmupSpec::default(),
        }
    }

    /// Whether the policy or the placement is written outside the engine (in Python), which the
    /// run then calls.
    pub fn has_outside(&self) -> bool {
        matches!(self.policy, PolicySpec::Outside(_))
            || matches!(self.placement, Some(PlacementSpec::Outside(_)))
    }

    /// The placement in force: `placement`, or else the `frontier` alias.
    pub fn placement(&self) -> PlacementSpec {
        self.placement
            .clone()
            .unwrap_or_else(|| self.frontier.into())
    }

    /// Classes of the workload's pages (hot/cold: 2; locality: its classes and the inactive
    /// pages; a trace with `trace_classes`: one per threshold, one more, and the unwritten pages;
    /// otherwise 1).
    pub fn classes(&self) -> u32 {
        match (&self.workload, &self.trace_classes) {
            (WorkloadSpec::HotCold { .. } | WorkloadSpec::Shifting { .. }, _) => 2,
            (WorkloadSpec::Locality { r, .. }, _) => r.len() as u32 + 1,
            (WorkloadSpec::Zones { s, .. }, _) => s.len() as u32,
            (WorkloadSpec::Trace { .. }, Some(t)) => t.len() as u32 + 2,
            _ => 1,
        }
    }

    /// Segments that hold no data at the fullest: one open segment per stream, the free segments
    /// the trigger keeps (per region), a reserve of one per GC stream beyond the first (so that
    /// relocating one victim never runs short, DESIGN "Placement schemes"), and one more, without
    /// which no victim could ever yield space.
    pub fn kept_segments(&self) -> u64 {
        let placement = self.placement();
        let classes = self.classes();
        let streams = u64::from(placement.streams(classes));
        let (reserve, regions) = placement.reserve(classes);
        streams + reserve + regions * u64::from(self.gc.min_free()) + 1
    }

    /// Measured user writes for a geometry and, with a trace workload, the trace's page writes.
    pub fn measured_writes(&self, logical_pages: u64, trace_writes: Option<u64>) -> Result<u64> {
        match (self.writes, trace_writes) {
            (None, Some(n)) => Ok(n),
            (None, None) => Ok(Amount::Multiple(20.0).writes(logical_pages)),
            (Some(Amount::Passes(k)), Some(n)) => Ok((k * n as f64).round() as u64),
            (Some(Amount::Passes(k)), None) => Err(Error::param(
                "writes",
                format!("{k}p"),
                "passes (`Np`) only with a trace workload; `20x` or a count otherwise",
            )),
            (Some(a), _) => Ok(a.writes(logical_pages)),
        }
    }

    /// Sizes go with the placements whose streams give pages their slots as they arrive, one
    /// after another.
    fn validate_sizes(&self) -> Result<()> {
        if self.sizes.is_none() {
            return Ok(());
        }
        // Sizes that fit a segment are checked with the geometry.
        let placement = self.placement();
        if !placement.admits_sizes() {
            return Err(Error::param(
                "placement",
                format!("`{placement}` with sizes"),
                format!(
                    "{} when pages have sizes",
                    crate::placement::admitting_sizes()
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if self.streams == StreamMode::Cache {
            return Err(Error::param(
                "streams",
                "`cache` with sizes",
                "`hole` when pages have sizes",
            ));
        }
        Ok(())
    }

    /// Where the run's update frequencies come from (the policy's, else estimates).
    pub fn freq(&self) -> FreqSource {
        self.placement()
            .freq()
            .or(self.policy.freq())
            .unwrap_or_default()
    }

    /// MDC's u_p2 and exact rates: where they are kept, and which workloads know rates.
    fn validate_frequencies(&self, placement: &PlacementSpec, buffered: bool) -> Result<()> {
        if matches!(self.policy, PolicySpec::MultiLog(()))
            && !matches!(placement, PlacementSpec::MultiLog(_))
        {
            return Err(Error::param(
                "policy",
                &self.policy,
                format!("the `multi-log` placement with the `multi-log` policy (placement is `{placement}`): the policy cleans the logs the placement keeps"),
            ));
        }
        let oracle = matches!(placement, PlacementSpec::Oracle(()));
        if !buffered && self.policy.freq() == Some(FreqSource::Estimate)
            || !(buffered || oracle) && self.policy.freq().is_some()
        {
            return Err(Error::param(
                "placement",
                placement,
                format!("`sort-buffer[:…]` with `{}` (the sort buffer is where user writes get their u_p2, Lomet & Luo §5.2.2), or `oracle` with `freq=exact`", self.policy),
            ));
        }
        if !buffered
            && self.policy.freq().is_none()
            && matches!(
                self.gc,
                GcSpec::Batch {
                    sort: SortKey::Up2,
                    ..
                }
            )
        {
            return Err(Error::param(
                "gc.sort",
                "`up2`",
                format!("a sort by u_p2 with the `sort-buffer` placement or an `mdc` policy, which keep it (placement is `{placement}`, policy `{}`)", self.policy),
            ));
        }
        if self.freq() == FreqSource::Exact && matches!(self.workload, WorkloadSpec::Trace { .. }) {
            return Err(Error::param(
                "policy",
                &self.policy,
                "a workload that knows each page's update rate for `freq=exact`: `uniform`, `hotcold`, `shifting`, `locality`, `zipf` or `zones`",
            ));
        }
        Ok(())
    }

    fn validate_placement(&self) -> Result<()> {
        if self.placement.is_some() && self.frontier != FrontierSpec::Single {
            return Err(Error::param(
                "frontier",
                self.frontier,
                format!("`single` (the default) when `placement` is given (`{}`); `frontier` is an alias of `placement`", self.placement()),
            ));
        }
        let placement = self.placement();
        if placement.needs_classes() && self.classes() < 2 {
            return Err(Error::param(
                "placement",
                &placement,
                "a workload whose pages have classes: `hotcold`, `locality`, `zones`, or a trace with `trace_classes`",
            ));
        }
        // A trace's written classes are known only once it is read: its shares are checked then.
        if let (PlacementSpec::Regions(RegionSpare::Shares(b)), false) = (
            &placement,
            matches!(self.workload, WorkloadSpec::Trace { .. }),
        ) {
            let written = match &self.workload {
                // A zone of write share 0 is a class never written.
                WorkloadSpec::Zones { f, .. } => f.iter().filter(|&&x| x > 0.0).count() as u32,
                _ => {
                    self.classes()
                        - u32::from(!matches!(
                            self.workload,
                            WorkloadSpec::HotCold { .. } | WorkloadSpec::Shifting { .. }
                        ))
                }
            };
            if b.len() != written as usize {
                return Err(Error::param(
                    "placement.spare",
                    format!("{} shares", b.len()),
                    format!(
                        "one share per written class ({written} for `{}`)",
                        self.workload
                    ),
                ));
            }
        }
        if self.streams == StreamMode::Cache && matches!(placement, PlacementSpec::Double(_)) {
            return Err(Error::param(
                "streams",
                self.streams,
                format!("`hole` with `{placement}`: Van Houdt's double frontier moves pages by the free slots of its open segments (§2.3), which `cache` streams do not hold"),
            ));
        }
        let buffered = matches!(placement, PlacementSpec::SortBuffer(_));
        if buffered && self.streams == StreamMode::Cache {
            return Err(Error::param(
                "streams",
                self.streams,
                format!("`hole` with `{placement}`: its user stream is the sort buffer itself"),
            ));
        }
        self.validate_frequencies(&placement, buffered)?;
        // Placements of several regions, each cleaned on its own: a victim policy must keep an
        // index per region, and per-page state must not follow pages from region to region.
        let several = match &placement {
            PlacementSpec::Regions(_) => Some("regions"),
            PlacementSpec::Planes(_) => Some("planes"),
            PlacementSpec::Midas(_) => Some("midas"),
            _ => None,
        };
        if let (Some(name), PolicySpec::Random(()) | PolicySpec::DChoices(_)) =
            (several, &self.policy)
        {
            return Err(Error::param(
                "policy",
                &self.policy,
                format!("with `{name}`, a policy that keeps its own index of candidates: `fifo`, `greedy`, `gra`, `windowed`, `cost-benefit`, `age-threshold` or `fitness`"),
            ));
        }
        if let (Some(name), PolicySpec::CostHotness(())) = (several, &self.policy) {
            return Err(Error::param(
                "policy",
                &self.policy,
                format!("a placement of one region with `cost-hotness`, whose pages' write counts and times follow them from region to region: not `{name}`"),
            ));
        }
        Ok(())
    }

    /// Checks the trace-driven method against the parameters it decides.
    fn validate_method(&self) -> Result<()> {
        if let (Some(v), false) = (&self.volume, self.is_trace()) {
            return Err(Error::param(
                "volume",
                format!("`{v}`"),
                "a volume only with a trace workload",
            ));
        }
        if self.warmup().trace_share > 0.0 && !self.is_trace() {
            return Err(Error::param(
                "warmup",
                self.warmup(),
                "a trace prefix (`+P%`) only with a trace workload",
            ));
        }
        if let (Some(method), false) = (self.method, self.is_trace()) {
            return Err(Error::param(
                "method",
                method,
                format!(
                    "a method only with a trace workload (the workload is `{}`)",
                    self.workload
                ),
            ));
        }
        let placement = self.placement();
        if matches!(placement, PlacementSpec::Fk(()))
            && !matches!(self.method(), Some(MethodSpec::Log(_)))
        {
            return Err(Error::param(
                "placement",
                format!("`{placement}`"),
                "`method=log` with a trace workload: the future-knowledge oracle knows the future of a trace replayed once in order from its first write",
            ));
        }
        let Some(method) = self.method() else {
            return Ok(());
        };
        if let MethodSpec::Log(log) = method {
            log.check(self)?;
        }
        if let MethodSpec::Precondition(p) = method {
            if let Some(w) = self.warmup.filter(|w| *w != WarmupSpec::NONE) {
                let given = if self.method.is_some() {
                    ""
                } else {
                    ", the default for a trace"
                };
                return Err(Error::param(
                    "warmup",
                    w,
                    format!("no warm-up with `method={method}`{given}: the trace itself preconditions the device; a synthetic warm-up goes with `method=li` or `method=stockmeyer`"),
                ));
            }
            let one_pass = match self.writes {
                None => true,
                Some(Amount::Passes(k)) => (k - 1.0).abs() < 1e-12,
                Some(_) => false,
            };
            if p.measure == Measure::Settled && !one_pass {
                return Err(Error::param(
                    "writes",
                    self.writes.map_or(String::new(), |w| w.to_string()),
                    format!("one pass (`1p`, the default) with `{method}`, which reports the pass that settled; `measure=after` measures `writes` after it"),
                ));
            }
        }
        Ok(())
    }

    /// Checks every parameter and every relation between parameters, with a device on the
    /// geometry it runs ([`Self::on_device`]: a segment is its superblock or block).
    pub fn validate(&self) -> Result<()> {
        self.validate_time()?;
        if self.device.is_some() {
            self.on_device().validate_run()
        } else {
            self.validate_run()
        }
    }

    /// [`Self::validate`] of a configuration as it runs ([`Self::on_device`] applied).
    pub fn validate_run(&self) -> Result<()> {
        let n = if let (WorkloadSpec::Trace { .. }, None) = (&self.workload, self.segments) {
            // The geometry follows from the trace; it is checked when the trace is loaded.
            self.geometry_with(Some(1))?;
            u32::MAX
        } else {
            self.geometry()?.segments
        };
        match self.policy {
            PolicySpec::DChoices(d) | PolicySpec::Gra(d) if d == 0 || d > n => {
                return Err(Error::param(
                    "policy.d",
                    d,
                    format!("a whole number in [1, segments = {n}]"),
                ));
            }
            PolicySpec::Windowed(WindowedSpec { w, .. }) if w == 0 || w > n => {
                return Err(Error::param(
                    "policy.w",
                    w,
                    format!("a whole number in [1, segments = {n}]"),
                ));
            }
            _ => {}
        }
        if let GcSpec::MaxEmpty { k } = self.gc {
            if n != u32::MAX && k > n / 2 {
                return Err(Error::param(
                    "gc.k",
                    k,
                    format!("a whole number in [1, segments / 2 = {}]", n / 2),
                ));
            }
        }
        self.validate_placement()?;
        self.validate_sizes()?;
        if let Some(c) = self.cache {
            if c == 0 || c > 1 << 30 {
                return Err(Error::param(
                    "cache",
                    c,
                    "a whole number of pages in [1, 2³⁰]",
                ));
            }
        }
        if let Some(t) = &self.trace_classes {
            if !matches!(self.workload, WorkloadSpec::Trace { .. }) {
                return Err(Error::param(
                    "trace_classes",
                    format!("{t:?}"),
                    "access-count thresholds only with a trace workload",
                ));
            }
            if t.is_empty() || t.contains(&0) || t.windows(2).any(|w| w[0] <= w[1]) || t.len() > 16
            {
                return Err(Error::param(
                    "trace_classes",
                    format!("{t:?}"),
                    "1 to 16 access counts ≥ 1, strictly decreasing, such as [50, 10]",
                ));
            }
        }
        if let GcSpec::Batch { low, victims, .. } = self.gc {
            if n != u32::MAX && low > n / 2 {
                return Err(Error::param(
                    "gc.low",
                    low,
                    format!("a whole number in [1, segments / 2 = {}]", n / 2),
                ));
            }
            if victims > n {
                return Err(Error::param(
                    "gc.victims",
                    victims,
                    format!("a whole number in [1, segments = {n}]"),
                ));
            }
        }
        self.workload.validate()?;
        self.validate_method()?;
        let trace = self.is_trace();
        if let (Some(Amount::Passes(k)), false) = (self.writes, trace) {
            return Err(Error::param(
                "writes",
                format!("{k}p"),
                "passes (`Np`) only with a trace workload; `20x` or a count otherwise",
            ));
        }
        self.validate_measure(trace)
    }

    /// The time series' window and the stopping rule.
    fn validate_measure(&self, trace: bool) -> Result<()> {
        if let Some(0) = self.window {
            return Err(Error::param(
                "window",
                0,
                "a whole number of user writes ≥ 1",
            ));
        }
        if let (Some(p), true) = (self.precision, trace) {
            return Err(Error::param(
                "precision",
                format!("`{p}`"),
                "unset with a trace workload: a trace's writes are not a stationary process whose batches estimate one value",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
