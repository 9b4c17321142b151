//! Every parameter of a simulation, defined once, with the ranges of its composite parameters
//! generated from the schemes' registries.

use serde::Serialize;

use super::{
    Amount, FrontierSpec, GcSpec, MethodSpec, PlacementSpec, PolicySpec, SimConfig, SizeSpec,
    StreamMode, WarmupSpec, WorkloadSpec,
};
use crate::error::Error;
use crate::spec::Info;

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
    /// The valid values, as an error message states them after "expected"; for a scheme's spec,
    /// the usage lines of its family's registry.
    pub range: String,
    /// The default, as text.
    pub default: String,
    /// What it means, with the source that defines it.
    pub help: &'static str,
}

impl Parameter {
    /// The error for a value of the wrong type or out of range. A spec string that does not parse
    /// gets its parser's error, which names the argument at fault (`policy.d`).
    pub(super) fn error(&self, v: &serde_json::Value) -> Error {
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
                "method" => t.parse::<MethodSpec>().err(),
                "writes" => Amount::parse("writes", t).err(),
                "precision" => t.parse::<crate::interval::Precision>().err(),
                "device" => t.parse::<crate::time::DeviceSpec>().err(),
                "arrivals" => t.parse::<crate::time::ArrivalSpec>().err(),
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
        Error::param(self.name, shown, &self.range)
    }
}

/// Text cut to 80 characters for an error message.
pub(super) fn abbreviated(text: &str) -> String {
    let mut shown: String = text.chars().take(80).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}

/// Every parameter of [`SimConfig`], in its field order.
pub fn parameters() -> Vec<Parameter> {
    let d = SimConfig::default();
    let p = |name, kind, unit, range: &str, default: String, help| Parameter {
        name,
        kind,
        unit,
        range: range.to_string(),
        default,
        help,
    };
    let policies = usage_lines(crate::policy::POLICIES.iter().copied());
    let placements = usage_lines(crate::placement::PLACEMENTS.iter().copied());
    let triggers = usage_lines(crate::trigger::TRIGGERS.iter().map(|e| &e.info));
    let workloads = usage_lines(crate::workload::WORKLOADS.iter().map(|e| &e.info));
    let sizes = usage_lines(crate::workload::sizes::SIZES.iter().map(|e| &e.info));
    let methods = usage_lines(crate::method::METHODS.iter().map(|e| &e.info));
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
          &policies,
          d.policy.to_string(), "Victim policy: which sealed segment is cleaned next."),
        p("frontier", Kind::Spec, "", "single | double:copy=random|oldest",
          d.frontier.to_string(),
          "Van Houdt's write frontiers (§2.3); an alias of placement for these two."),
        p("placement", Kind::Spec, "",
          &placements,
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
          &triggers,
          d.gc.to_string(), "When the cleaner runs and how many victims it takes."),
        p("workload", Kind::Spec, "",
          &workloads,
          d.workload.to_string(), "The user writes: a generator or a trace."),
        p("sizes", Kind::Spec, "slots",
          &format!("{sizes}, sizes in [1, pages_per_segment]"),
          "unset: one slot per page".into(),
          "Page sizes (Lomet & Luo §4.4): a page takes this many slots of a segment's pages_per_segment; fill and write counts are then in slots."),
        p("method", Kind::Spec, "",
          &methods,
          "precondition, with a trace workload".into(),
          "How a trace is replayed: device sizing, what reaches the steady state, what is measured (docs/traces.md)."),
        p("trim", Kind::Flag, "", "true or false", "true".into(),
          "A trace's discards (TRIM) invalidate their pages; false replays the writes alone."),
        p("volume", Kind::Spec, "",
          "the name of one of the trace's volumes, or all",
          "the trace's one volume".into(),
          "Which volume of a trace of several to replay (`all`: every volume on one device, each in its own pages)."),
        p("warmup", Kind::Spec, "",
          "fill+Kx | fill | Kx | none, then optionally +P% of a trace (K ≥ 0, 0 ≤ P < 100)",
          format!("{}; none with method=precondition", WarmupSpec::default()),
          "Unmeasured writes before the measured phase: sequential fill, K × logical capacity, a trace prefix."),
        p("writes", Kind::Spec, "user writes",
          "Kx (a multiple of the logical capacity), Np (passes over a trace) or a count such as 5000000 or 5e6, at least 1",
          "20x; with a trace, 1p".into(), "Measured user writes."),
        p("seed", Kind::Integer, "", "a whole number in [0, 2⁶⁴)", d.seed.to_string(),
          "Seed of the run's random generator."),
        p("window", Kind::Integer, "user writes", "a whole number ≥ 1",
          "the logical capacity (a trace: one pass)".into(), "Time-series window."),
        p("precision", Kind::Spec, "",
          "METRIC:rel=X or METRIC:abs=X, METRIC one of wa, wamp, gcu, emptiness_at_clean, X a half-width > 0 (rel below 1)",
          "none: the measured phase runs its writes".into(),
          "Ends the measured phase once the metric's 95% interval by batch means over the windows (20 to 39 batches) is this narrow; `writes` is then the cap."),
        p("device", Kind::Spec, "",
          &usage_lines(crate::time::spec::PRESETS.iter()),
          "none: no time".into(),
          "A flash device: segments laid on its dies, every flash operation on their timelines, latency and throughput measured (docs/device.md)."),
        p("arrivals", Kind::Spec, "",
          &usage_lines(crate::time::arrivals::ARRIVALS.iter().map(|e| &e.info)),
          "closed:iodepth=1".into(),
          "How a timed run's requests arrive: the trace's clock, Poisson, or a closed loop (fio's iodepth)."),
        p("reads", Kind::Number, "", "a number in [0, 1]", "0".into(),
          "Share of a timed run's requests that are single-page reads, drawn by the workload's law."),
    ]
}

/// The usage lines of a registry, as a parameter's range: `fifo | greedy[:tie=…] | …`.
fn usage_lines<'i>(infos: impl IntoIterator<Item = &'i Info>) -> String {
    infos
        .into_iter()
        .map(Info::usage)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Every registered scheme of every family (policies, placements, triggers, workloads, size
/// distributions), in registration order: what `reclaim schemes` lists.
pub fn schemes() -> Vec<&'static Info> {
    let mut all: Vec<&'static Info> = Vec::new();
    all.extend(crate::policy::POLICIES.iter().copied());
    all.extend(crate::placement::PLACEMENTS.iter().copied());
    all.extend(crate::trigger::TRIGGERS.iter().map(|e| &e.info));
    all.extend(crate::workload::WORKLOADS.iter().map(|e| &e.info));
    all.extend(crate::workload::sizes::SIZES.iter().map(|e| &e.info));
    all.extend(crate::method::METHODS.iter().map(|e| &e.info));
    all.extend(crate::time::spec::PRESETS.iter());
    all.extend(crate::time::arrivals::ARRIVALS.iter().map(|e| &e.info));
    all
}
