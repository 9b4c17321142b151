//! Configuration: the single source of truth for every parameter, its unit and its valid range.
//!
//! Every composite parameter (policy, frontier, cleaner trigger, workload, warm-up, run length)
//! is written as a *spec string* `name[:key=value,key=value]`, the same on the command line, in
//! Python and in JSON, e.g. `d-choices:d=10`, `hotcold:r=0.8,f=0.2`, `double:copy=oldest`.
//! Parsing and range checks live here and nowhere else; a bad value is an [`Error::Param`] that
//! names the parameter, the value and the valid range.

pub mod grammar;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::placement::{double::Double, single::Single, Declare as _};
use grammar::{check_range, string_serde, Args};

pub use crate::placement::age_sorted::{AgeSortedSpec, DecayRule, SplitRule};
pub use crate::placement::double::CopyOrder;
pub use crate::placement::multi_log::MultiLogSpec;
pub use crate::placement::regions::RegionSpare;
pub use crate::placement::sort_buffer::{Rewrite, SortBufferSpec};
pub use crate::placement::PlacementSpec;
pub use crate::policy::aged_buckets::{AgeRule, BucketCount, BucketOrder, LsaSelection, Threshold};
pub use crate::policy::cost_benefit::BenefitForm;
pub use crate::policy::greedy::Tie;
pub use crate::policy::mdc::{Decline, FreqSource, MdcSpec};
pub use crate::policy::windowed::WindowedSpec;
pub use crate::policy::PolicySpec;
pub use crate::trigger::{Gather, GcSpec, SortKey};
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

/// A number of user writes: a multiple of the logical capacity (`20x`) or a count (`5000000`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// Multiple of `logical_pages`.
    Multiple(f64),
    /// Exact count of user writes.
    Count(u64),
    /// Passes over a trace (`2p`).
    Passes(f64),
}

impl Amount {
    /// The count of writes for a geometry with `logical_pages`.
    pub fn writes(self, logical_pages: u64) -> u64 {
        match self {
            // Passes are resolved against the trace in `SimConfig::measured_writes`.
            Amount::Multiple(k) | Amount::Passes(k) => (k * logical_pages as f64).round() as u64,
            Amount::Count(n) => n,
        }
    }

    fn parse(param: &str, s: &str) -> Result<Self> {
        let s = s.trim();
        let bad = || {
            Error::param(
                param,
                format!("`{s}`"),
                "a multiple of the logical capacity such as `20x`, passes over a trace such as `2p`, or a count such as `5000000` or `5e6`",
            )
        };
        if let Some(k) = s.strip_suffix('p') {
            let k: f64 = k.trim().parse().map_err(|_| bad())?;
            if !(k.is_finite() && k > 0.0) {
                return Err(bad());
            }
            return Ok(Amount::Passes(k));
        }
        if let Some(k) = s.strip_suffix('x') {
            let k: f64 = k.trim().parse().map_err(|_| bad())?;
            if !(k.is_finite() && k >= 0.0) {
                return Err(bad());
            }
            return Ok(Amount::Multiple(k));
        }
        if let Ok(n) = s.parse::<u64>() {
            return Ok(Amount::Count(n));
        }
        let f: f64 = s.parse().map_err(|_| bad())?;
        if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 {
            Ok(Amount::Count(f as u64))
        } else {
            Err(bad())
        }
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Amount::Multiple(k) => write!(f, "{k}x"),
            Amount::Count(n) => write!(f, "{n}"),
            Amount::Passes(k) => write!(f, "{k}p"),
        }
    }
}

impl FromStr for Amount {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Amount::parse("writes", s)
    }
}
string_serde!(Amount);

/// Warm-up before measurement (`--warmup`): `fill+10x`, `fill`, `10x`, `none`, and for a trace
/// workload a trace prefix, `fill+10x+20%`.
///
/// `fill` writes every logical page once in order (Stockmeyer §2.1's sequential placement; it
/// also keeps Li et al.'s inactive pages in blocks of their own). `Kx` then issues K × logical
/// capacity writes *drawn from the run's workload*, so that the measured phase starts near the
/// steady state of that workload (Van Houdt §3.2 discards a warm-up period of the same chain);
/// with a trace workload these writes are uniform over the whole logical space (Li et al. §6.1,
/// Stockmeyer §2.1). `P%` then replays the first P% of the trace's page writes as warm-up and
/// measures the rest (Stockmeyer §2.1–2.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarmupSpec {
    /// Sequential fill first.
    pub fill: bool,
    /// Then this many multiples of the logical capacity of workload writes.
    pub multiple: f64,
    /// Then this share of the trace (0 ≤ share < 1) replayed unmeasured.
    pub trace_share: f64,
}

impl Default for WarmupSpec {
    fn default() -> Self {
        WarmupSpec {
            fill: true,
            multiple: 10.0,
            trace_share: 0.0,
        }
    }
}

impl FromStr for WarmupSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let text = s.trim();
        let bad = || {
            Error::param(
                "warmup",
                format!("`{text}`"),
                "`fill+Kx`, `fill`, `Kx`, `none`, optionally `+P%` of a trace (K ≥ 0, 0 ≤ P < 100)",
            )
        };
        let mut w = WarmupSpec {
            fill: false,
            multiple: 0.0,
            trace_share: 0.0,
        };
        if text == "none" {
            return Ok(w);
        }
        for part in text.split('+').map(str::trim) {
            if part == "fill" {
                w.fill = true;
            } else if let Some(k) = part.strip_suffix('x') {
                w.multiple = k.parse().map_err(|_| bad())?;
                if !(w.multiple.is_finite() && w.multiple >= 0.0) {
                    return Err(bad());
                }
            } else if let Some(p) = part.strip_suffix('%') {
                let p: f64 = p.parse().map_err(|_| bad())?;
                if !(0.0..100.0).contains(&p) {
                    return Err(bad());
                }
                w.trace_share = p / 100.0;
            } else {
                return Err(bad());
            }
        }
        Ok(w)
    }
}

impl fmt::Display for WarmupSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.multiple;
        match (self.fill, m > 0.0) {
            (false, false) => write!(f, "none")?,
            (true, false) => write!(f, "fill")?,
            (true, true) => write!(f, "fill+{m}x")?,
            (false, true) => write!(f, "{m}x")?,
        }
        if self.trace_share > 0.0 {
            write!(f, "+{}%", self.trace_share * 100.0)?;
        }
        Ok(())
    }
}
string_serde!(WarmupSpec);

/// The kind of value a parameter takes, in JSON and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A whole number.
    Integer,
    /// A real number (finite).
    Number,
    /// A spec string `name[:key=value,…]`.
    Spec,
    /// `true` or `false`.
    Flag,
    /// A list of whole numbers.
    Counts,
}

/// One parameter of a simulation, defined once (DESIGN: "every parameter has one name, one unit
/// and one valid range"): the command line's option help, the Python API's type checks and the
/// engine's error messages all come from here.
#[derive(Clone, Debug, Serialize)]
pub struct Parameter {
    /// The name, as in the configuration, in JSON and (with `-` for `_`) on the command line.
    pub name: &'static str,
    /// What kind of value it takes.
    pub kind: Kind,
    /// The unit, empty for none.
    pub unit: &'static str,
    /// The valid values, as an error message states them after "expected".
    pub range: &'static str,
    /// The default, as text.
    pub default: String,
    /// What it means, with the source that defines it.
    pub help: &'static str,
}

impl Parameter {
    /// The error for a value of the wrong type or out of range. A spec string that does not parse
    /// gets its parser's error, which names the argument at fault (`policy.d`).
    fn error(&self, v: &serde_json::Value) -> Error {
        let text = match v {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        if let (Kind::Spec, Some(t)) = (self.kind, &text) {
            let parsed = match self.name {
                "policy" => t.parse::<PolicySpec>().err(),
                "frontier" => t.parse::<FrontierSpec>().err(),
                "placement" => t.parse::<PlacementSpec>().err(),
                "streams" => t.parse::<StreamMode>().err(),
                "gc" => t.parse::<GcSpec>().err(),
                "workload" => t.parse::<WorkloadSpec>().err(),
                "sizes" => t.parse::<SizeSpec>().err(),
                "warmup" => t.parse::<WarmupSpec>().err(),
                "writes" => Amount::parse("writes", t).err(),
                _ => None,
            };
            if let Some(e) = parsed {
                return e;
            }
        }
        let shown = match v {
            serde_json::Value::String(s) => format!("`{}`", abbreviated(s)),
            other => abbreviated(&other.to_string()),
        };
        Error::param(self.name, shown, self.range)
    }
}

/// Text cut to 80 characters for an error message.
fn abbreviated(text: &str) -> String {
    let mut shown: String = text.chars().take(80).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}

/// Every parameter of [`SimConfig`], in its field order.
pub fn parameters() -> Vec<Parameter> {
    let d = SimConfig::default();
    let p = |name, kind, unit, range, default: String, help| Parameter {
        name,
        kind,
        unit,
        range,
        default,
        help,
    };
    vec![
        p("segments", Kind::Integer, "segments",
          "a whole number ≥ 4, with segments × pages_per_segment < 2³²",
          "1024; with a trace workload, sized from the trace".into(),
          "Physical segments N (erase blocks)."),
        p("pages_per_segment", Kind::Integer, "pages", "a whole number in [1, 65536]",
          d.pages_per_segment.to_string(), "Pages per segment b."),
        p("spare", Kind::Number, "", "a number in (0, 1)", "0.1".into(),
          "Spare factor S = 1 − logical / physical pages (Van Houdt's S_f)."),
        p("fill", Kind::Number, "", "a number in (0, 1)", "from spare".into(),
          "Fill factor ρ = logical / physical pages, instead of spare."),
        p("logical_pages", Kind::Integer, "pages",
          "a whole number in [1, physical pages less those kept open or free)",
          "from spare".into(), "Logical pages, instead of spare or fill."),
        p("policy", Kind::Spec, "",
          "fifo | greedy[:tie=random|oldest|fifo] | random | d-choices:d=D | gra:d=D | windowed:w=W[,tie=…] | cost-benefit | age-threshold[:nat=X|at=N|nat=heuristic,buckets=B|exact,sort=fifo|tree,age=all|tw] | fitness[:at=N|nat=X,buckets=…,sort=…,age=…]",
          d.policy.to_string(), "Victim policy: which sealed segment is cleaned next."),
        p("frontier", Kind::Spec, "", "single | double:copy=random|oldest",
          d.frontier.to_string(),
          "Van Houdt's write frontiers (§2.3); an alias of placement for these two."),
        p("placement", Kind::Spec, "",
          "single | double:copy=random|oldest | oracle | regions:spare=B1/B2/…|optimal | age-sorted[:dtg_exp=4,fsc_exp=4,dtg_sort=4,fsc_sort=4,dtg_decay=10,fsc_decay=10,decay_rule=exp2|reciprocal,split=median|mean]",
          "from frontier (single)".into(),
          "Where user and relocated pages go: streams, classes, regions (Li et al. §4)."),
        p("streams", Kind::Spec, "", "hole | cache", d.streams.to_string(),
          "A rewrite of a page in an open stream leaves a hole, or (cache) takes the page out so that every sealed segment is full (Stockmeyer §2.3)."),
        p("free_empty", Kind::Flag, "", "true or false", d.free_empty.to_string(),
          "A sealed segment that empties by itself is freed at once, collected at utilization 0 (Stockmeyer §2.2)."),
        p("cache", Kind::Integer, "pages", "a whole number of pages in [1, 2³⁰]",
          "no cache".into(), "LRU write cache in front of the store (Stockmeyer's CacheTrkCount)."),
        p("trace_classes", Kind::Counts, "accesses",
          "1 to 16 access counts ≥ 1, strictly decreasing, such as 50,10",
          "one class".into(),
          "Access-count thresholds splitting a trace's pages into classes (Li et al. §6.2)."),
        p("gc", Kind::Spec, "",
          "frontier | one-free | batch:low=L,victims=V[,gather=each|all,sort=none|stamp|dseq|written] | max-empty:k=K",
          d.gc.to_string(), "When the cleaner runs and how many victims it takes."),
        p("workload", Kind::Spec, "",
          "uniform | hotcold:r=R,f=F | shifting:r=R,f=F[,period=P] | locality:fa=A,r=R1/R2,f=F1/F2 | zipf:theta=T | trace:PATH",
          d.workload.to_string(), "The user writes: a generator or a trace."),
        p("sizes", Kind::Spec, "slots",
          "fixed:size=S | uniform:min=A,max=B | choice:sizes=S1/S2/…[,weights=W1/W2/…], sizes in [1, pages_per_segment]",
          "unset: one slot per page".into(),
          "Page sizes (Lomet & Luo §4.4): a page takes this many slots of a segment's pages_per_segment; fill and write counts are then in slots."),
        p("warmup", Kind::Spec, "",
          "fill+Kx | fill | Kx | none, then optionally +P% of a trace (K ≥ 0, 0 ≤ P < 100)",
          d.warmup.to_string(),
          "Unmeasured writes before the measured phase: sequential fill, K × logical capacity, a trace prefix."),
        p("writes", Kind::Spec, "user writes",
          "Kx (a multiple of the logical capacity), Np (passes over a trace) or a count such as 5000000 or 5e6, at least 1",
          "20x; with a trace, 1p".into(), "Measured user writes."),
        p("seed", Kind::Integer, "", "a whole number in [0, 2⁶⁴)", d.seed.to_string(),
          "Seed of the run's random generator."),
        p("window", Kind::Integer, "user writes", "a whole number ≥ 1",
          "the logical capacity (a trace: one pass)".into(), "Time-series window."),
    ]
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
    /// Warm-up before measurement.
    pub warmup: WarmupSpec,
    /// Measured user writes. Default `20x`; with a trace workload, one pass (`1p`).
    pub writes: Option<Amount>,
    /// Seed of the run's random generator.
    pub seed: u64,
    /// Time-series window [user writes], ≥ 1; default: the logical capacity.
    pub window: Option<u64>,
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
            warmup: WarmupSpec::default(),
            writes: None,
            seed: 1,
            window: None,
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

    /// The geometry, with the logical capacity resolved from `spare`, `fill` or `logical_pages`.
    pub fn geometry(&self) -> Result<Geometry> {
        self.geometry_with(None)
    }

    /// The geometry when a trace with `trace_pages` pages of address space is replayed: without
    /// `segments`, the logical space is the trace's and the physical one follows from the spare
    /// factor.
    #[allow(clippy::too_many_lines)] // one derivation, read top to bottom: each step needs the last
    pub fn geometry_with(&self, trace_pages: Option<u64>) -> Result<Geometry> {
        if self.pages_per_segment == 0 || self.pages_per_segment > 65_536 {
            return Err(Error::param(
                "pages_per_segment",
                self.pages_per_segment,
                "a whole number in [1, 65536]",
            ));
        }
        if let Some(sizes) = &self.sizes {
            if u32::from(sizes.max()) > self.pages_per_segment {
                return Err(Error::param(
                    "sizes",
                    format!("`{sizes}` (largest {} slots)", sizes.max()),
                    format!(
                        "sizes of at most pages_per_segment = {} slots",
                        self.pages_per_segment
                    ),
                ));
            }
        }
        let given = [
            self.spare.is_some(),
            self.fill.is_some(),
            self.logical_pages.is_some(),
        ];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(Error::param(
                "spare",
                format!(
                    "spare={:?}, fill={:?}, logical_pages={:?}",
                    self.spare, self.fill, self.logical_pages
                ),
                "only one of `spare`, `fill` and `logical_pages`",
            ));
        }
        let fill = match (self.spare, self.fill) {
            (_, Some(f)) => {
                check_range("fill", f, 0.0, 1.0, true, true)?;
                f
            }
            (Some(s), None) => {
                check_range("spare", s, 0.0, 1.0, true, true)?;
                1.0 - s
            }
            (None, None) => 0.9,
        };
        let pps = u64::from(self.pages_per_segment);
        let reserved = self.kept_segments();
        let segments = match (self.segments, trace_pages) {
            (Some(n), _) => n,
            (None, Some(pages)) => {
                let need = self.logical_pages.unwrap_or(pages).max(pages);
                let mean = self.sizes.as_ref().map_or(1.0, SizeSpec::mean);
                let room = pps
                    - self
                        .sizes
                        .as_ref()
                        .map_or(0, |z| u64::from(z.max()) - 1)
                        .min(pps - 1);
                let mut n = ((need as f64 * mean / fill / pps as f64).ceil() as u64).max(4);
                // Small traces: room for the open frontiers and the free segments the trigger keeps.
                while ((fill * (n * pps) as f64 / mean).round() as u64).max(need) as f64 * mean
                    > (n.saturating_sub(reserved) * room) as f64
                {
                    n += 1;
                }
                u32::try_from(n).map_err(|_| {
                    Error::param(
                        "segments",
                        n,
                        "at most 2³² − 1 segments (use larger segments)",
                    )
                })?
            }
            (None, None) => 1024,
        };
        if segments < 4 {
            return Err(Error::param("segments", segments, "a whole number ≥ 4"));
        }
        // A trigger that keeps most of the device free leaves no room for data; name it, not the
        // spare factor that would otherwise be blamed below.
        let regions = match self.placement() {
            PlacementSpec::Regions(_) => u64::from(self.classes()),
            _ => 1,
        };
        let kept_free = regions * u64::from(self.gc.min_free());
        if 2 * kept_free > u64::from(segments) {
            return Err(Error::param(
                "gc",
                format!("`{}`", self.gc),
                format!(
                    "a trigger that keeps at most half of the {segments} segments free (this one keeps {kept_free})"
                ),
            ));
        }
        let physical = u64::from(segments) * pps;
        if physical > MAX_PHYSICAL_PAGES {
            return Err(Error::param(
                "segments",
                segments,
                format!("segments × pages_per_segment ≤ {MAX_PHYSICAL_PAGES} (got {physical})"),
            ));
        }
        // With sizes, the fill factor is of slots: pages × mean size over the physical slots.
        let mean = self.sizes.as_ref().map_or(1.0, SizeSpec::mean);
        let logical = match (self.logical_pages, trace_pages, self.segments) {
            (Some(n), _, _) => n,
            (None, Some(pages), None) => {
                ((fill * physical as f64 / mean).round() as u64).max(pages)
            }
            _ => (fill * physical as f64 / mean).round() as u64,
        };
        // Every open frontier and every segment the trigger keeps free holds no data; at least one
        // more segment's worth of room must remain, or no victim could ever yield space. A page
        // that does not fit in what is left of a segment goes to the next one, so with sizes up
        // to m slots a segment may hold m − 1 slots of nothing.
        let waste = self.sizes.as_ref().map_or(0, |z| u64::from(z.max()) - 1);
        let usable = ((u64::from(segments).saturating_sub(reserved)) * pps.saturating_sub(waste))
            as f64
            / mean;
        let usable = usable.floor() as u64;
        if logical == 0 || logical > usable {
            let what = if self.logical_pages.is_some() {
                "logical_pages"
            } else if self.fill.is_some() {
                "fill"
            } else {
                "spare"
            };
            return Err(Error::param(
                what,
                match (self.logical_pages, self.fill.or(self.spare)) {
                    (Some(_), _) => logical.to_string(),
                    (None, Some(v)) => format!("{v} ({logical} logical pages)"),
                    (None, None) => format!("0.1, the default ({logical} logical pages)"),
                },
                if waste == 0 {
                    format!(
                        "at least 1 and at most {usable} logical pages: {segments} segments less {reserved} kept open or free, × {} pages",
                        self.pages_per_segment
                    )
                } else {
                    format!(
                        "at least 1 and at most {usable} logical pages: {segments} segments less {reserved} kept open or free, × {} slots less {waste} a page may leave unused, over a mean size of {mean} slots",
                        self.pages_per_segment
                    )
                },
            ));
        }
        if let Some(pages) = trace_pages {
            if pages > logical {
                return Err(Error::param(
                    "segments",
                    segments,
                    format!("room for the trace's {pages} pages of address space (only {logical} logical pages); omit `segments` to size the device from the trace"),
                ));
            }
        }
        Ok(Geometry {
            segments,
            pages_per_segment: self.pages_per_segment,
            logical_pages: logical,
        })
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
                "a workload that knows each page's update rate for `freq=exact`: `uniform`, `hotcold`, `shifting`, `locality` or `zipf`",
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
                "a workload whose pages have classes: `hotcold`, `locality`, or a trace with `trace_classes`",
            ));
        }
        // A trace's written classes are known only once it is read: its shares are checked then.
        if let (PlacementSpec::Regions(RegionSpare::Shares(b)), false) = (
            &placement,
            matches!(self.workload, WorkloadSpec::Trace { .. }),
        ) {
            let written = self.classes()
                - u32::from(!matches!(
                    self.workload,
                    WorkloadSpec::HotCold { .. } | WorkloadSpec::Shifting { .. }
                ));
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
        if matches!(placement, PlacementSpec::Regions(_))
            && matches!(
                self.policy,
                PolicySpec::Random(()) | PolicySpec::DChoices(_)
            )
        {
            return Err(Error::param(
                "policy",
                &self.policy,
                "with `regions`, a policy that keeps its own index of candidates: `fifo`, `greedy`, `gra`, `windowed`, `cost-benefit`, `age-threshold` or `fitness`",
            ));
        }
        Ok(())
    }

    /// Checks every parameter and every relation between parameters.
    pub fn validate(&self) -> Result<()> {
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
        let trace = matches!(self.workload, WorkloadSpec::Trace { .. });
        if self.warmup.trace_share > 0.0 && !trace {
            return Err(Error::param(
                "warmup",
                self.warmup,
                "a trace prefix (`+P%`) only with a trace workload",
            ));
        }
        if let (Some(Amount::Passes(k)), false) = (self.writes, trace) {
            return Err(Error::param(
                "writes",
                format!("{k}p"),
                "passes (`Np`) only with a trace workload; `20x` or a count otherwise",
            ));
        }
        if let Some(0) = self.window {
            return Err(Error::param(
                "window",
                0,
                "a whole number of user writes ≥ 1",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip() {
        for s in [
            "fifo",
            "greedy:tie=random",
            "d-choices:d=10",
            "gra:d=1",
            "windowed:w=500,tie=oldest",
            "cost-benefit",
            "random",
            "age-threshold",
            "age-threshold:nat=0.1,buckets=10,sort=fifo,age=tw",
            "fitness:at=12,buckets=exact,sort=tree",
            "fitness:nat=heuristic",
            "cost-benefit:form=lomet",
            "mdc",
            "mdc:freq=exact",
            "mdc:decline=pages",
            "mdc:freq=exact,decline=paper",
            "multi-log",
        ] {
            let p: PolicySpec = s.parse().unwrap();
            assert_eq!(p.to_string().parse::<PolicySpec>().unwrap(), p);
        }
        for s in [
            "single",
            "double:copy=oldest",
            "oracle",
            "regions:spare=0.4/0.6",
            "age-sorted",
            "age-sorted:dtg_exp=2,fsc_exp=3,dtg_sort=1,fsc_sort=0,dtg_decay=5,decay_rule=reciprocal,split=mean",
            "sort-buffer",
            "sort-buffer:segments=4,sort=none,rewrite=absorb",
            "multi-log",
            "multi-log:logs=4,freq=exact",
        ] {
            let p: PlacementSpec = s.parse().unwrap();
            assert_eq!(p.to_string().parse::<PlacementSpec>().unwrap(), p, "{s}");
        }
        // The defaults of Stockmeyer §2.3: exponents 4, full sorting, decays 10.
        let PlacementSpec::AgeSorted(a) = "age-sorted".parse().unwrap() else {
            unreachable!()
        };
        assert_eq!((a.dtg_exp, a.fsc_exp, a.dtg_sort, a.fsc_sort), (4, 4, 4, 4));
        assert!((a.dtg_decay - 10.0).abs() < 1e-12 && (a.fsc_decay - 10.0).abs() < 1e-12);
        // A decay whose weight would exceed 1 is refused by name.
        let e = "age-sorted:dtg_decay=0.5,decay_rule=reciprocal"
            .parse::<PlacementSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("≥ 1 with `decay_rule=reciprocal`"), "{e}");
        let w: WorkloadSpec = "shifting:r=0.8,f=0.2,period=2.5".parse().unwrap();
        assert_eq!(w.to_string().parse::<WorkloadSpec>().unwrap(), w);
        let w: WorkloadSpec = "locality:fa=0.1,r=0.8/0.2,f=0.2/0.8".parse().unwrap();
        assert_eq!(
            w,
            WorkloadSpec::Locality {
                fa: 0.1,
                r: vec![0.8, 0.2],
                f: vec![0.2, 0.8]
            }
        );
        assert_eq!(
            "fill+10x".parse::<WarmupSpec>().unwrap(),
            WarmupSpec {
                fill: true,
                multiple: 10.0,
                trace_share: 0.0
            }
        );
        let w: WarmupSpec = "fill+10x+20%".parse().unwrap();
        assert!((w.trace_share - 0.2).abs() < 1e-12);
        assert_eq!(w.to_string().parse::<WarmupSpec>().unwrap(), w);
        assert_eq!("5e6".parse::<Amount>().unwrap(), Amount::Count(5_000_000));
        assert_eq!("20x".parse::<Amount>().unwrap(), Amount::Multiple(20.0));
    }

    #[test]
    fn errors_name_parameter_value_and_range() {
        let e = "d-choices:d=x"
            .parse::<PolicySpec>()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("policy.d") && e.contains("`x`") && e.contains("≥ 1"),
            "{e}"
        );
        let e = "hotcold:r=1.5,f=0.2"
            .parse::<WorkloadSpec>()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("workload.r") && e.contains("1.5") && e.contains("(0, 1)"),
            "{e}"
        );
        let c = SimConfig {
            spare: Some(1.2),
            ..SimConfig::default()
        };
        let e = c.validate().unwrap_err().to_string();
        assert!(
            e.contains("`spare`") && e.contains("1.2") && e.contains("(0, 1)"),
            "{e}"
        );
        let c = SimConfig {
            policy: PolicySpec::DChoices(5000),
            ..SimConfig::default()
        };
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("[1, segments = 1024]"));
    }

    /// Each bad field of a JSON configuration is named with its value and its range from
    /// `parameters()`, never with the JSON parser's line and column.
    #[test]
    fn json_errors_name_the_field() {
        let err = |j: &str| SimConfig::from_json(j).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"segments": -5}"#),
            "invalid value for `segments`: -5 (expected a whole number ≥ 4, with segments × pages_per_segment < 2³²)"
        );
        assert_eq!(
            err(r#"{"spare": "0.1"}"#),
            "invalid value for `spare`: `0.1` (expected a number in (0, 1))"
        );
        assert!(err(r#"{"spares": 0.1}"#).starts_with(
            "invalid value for `config`: unknown parameter `spares` (expected one of segments, "
        ));
        assert_eq!(
            err(r#"{"streams": "pool"}"#),
            "invalid value for `streams`: pool (expected `hole` or `cache`)"
        );
        assert!(err(r#"{"policy": "d-choices:d=-1"}"#)
            .starts_with("invalid value for `policy.d`: `-1`"));
        assert!(err(r#"{"free_empty": 1}"#)
            .starts_with("invalid value for `free_empty`: 1 (expected true or false)"));
        assert!(err("[1]").starts_with("invalid value for `config`: [1] (expected a JSON object"));
        for p in parameters() {
            assert!(
                !p.range.is_empty() && !p.help.is_empty() && !p.default.is_empty(),
                "{}",
                p.name
            );
        }
        // Every field of the configuration is a parameter, and every parameter a field.
        let fields: Vec<String> = match serde_json::to_value(SimConfig::default()).unwrap() {
            serde_json::Value::Object(m) => m.keys().cloned().collect(),
            _ => unreachable!(),
        };
        let mut names: Vec<String> = parameters().iter().map(|p| p.name.to_string()).collect();
        names.sort();
        let mut sorted = fields.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }

    #[test]
    fn a_repeated_argument_is_an_error() {
        let e = "hotcold:r=0.8,r=0.7,f=0.2"
            .parse::<WorkloadSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("`r` given twice"), "{e}");
    }

    #[test]
    fn logical_capacity_follows_spare() {
        // Van Houdt §2.1: bU logical pages with U = (1 − S_f)·N.
        let c = SimConfig {
            segments: Some(10_000),
            pages_per_segment: 32,
            spare: Some(0.07),
            ..SimConfig::default()
        };
        assert_eq!(c.geometry().unwrap().logical_pages, 9_300 * 32);
    }

    #[test]
    fn json_rejects_unknown_fields() {
        let e = SimConfig::from_json(r#"{"segmnts": 10}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("segmnts"), "{e}");
        let c =
            SimConfig::from_json(r#"{"segments": 64, "policy": "d-choices:d=4", "writes": 1000}"#)
                .unwrap();
        assert_eq!(c.policy, PolicySpec::DChoices(4));
        assert_eq!(c.writes, Some(Amount::Count(1000)));
    }
}
