//! The `midas` placement's declaration: its parameters (`MiDAS-Simulation`'s defaults, read from
//! `ssd_config.cpp`, `model.cpp` and `hf.cpp`), their parsing and ranges, and how its engine
//! groups are built (see `midas.rs` for the scheme).

#![allow(
    clippy::many_single_char_names,
    clippy::if_not_else,
    clippy::cast_possible_wrap
)]

use std::fmt;

use super::midas::Midas;
use super::{Build, Built, Declare};
use crate::error::{Error, Result};
use crate::policy::PolicySpec;
use crate::spec::{check_range, Args, Family, Info, Need, Param};

/// The parameters of `MiDAS`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MidasSpec {
    /// The model (UID, MCAM, GCS) sets the groups at each epoch; off: `MiDA`'s naive chain.
    pub model: bool,
    /// Groups at most, the hot group included, 3 ≤ G ≤ 10 (GCS's configurations have 10).
    pub groups: u8,
    /// Groups of the naive chain (`NAIVE_N`), 1 ≤ N ≤ 8.
    pub naive: u8,
    /// Share of the logical pages sampled by UID, 0 < s ≤ 1.
    pub sample: f64,
    /// Epoch [multiples of the logical space of user writes, counted as the simulator counts
    /// it: E × the logical pages × 2³⁰/10⁹], 0 < E ≤ 64.
    pub epoch: f64,
    /// UID's interval unit [segments], 0 < u ≤ 1.
    pub unit: f64,
    /// The hot group and its hot filter.
    pub hot: bool,
    /// When a model's configuration is taken.
    pub apply: Apply,
}

/// When `MiDAS` takes a model's configuration (`apply=window|epoch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apply {
    /// At the first user write after the next progress line: the simulator's model thread
    /// finishes during `simul_info`'s 5 s sleep (`ssdsimul.cpp` 424).
    Window,
    /// At the first user write after the model has run.
    Epoch,
}

const GROUPS: &str = "a whole number in [3, 10]";
const NAIVE: &str = "a whole number in [1, 8]";

impl Declare for Midas {
    type Params = MidasSpec;
    const INFO: Info = Info {
        family: Family::Placement,
        name: "midas",
        aliases: &["mida"],
        summary: "A victim's valid pages move on to the next group of a chain (FIFO groups, then the last by the run's policy), a hot group fed by a hot filter, group count and sizes set by a model at each epoch; `mida`: the naive chain without the model.",
        source: "Oh et al., FAST '24 §3–4; sungkyun123/MiDAS-Simulation",
        params: &[
            Param {
                key: "model",
                values: "on|off",
                unit: "",
                range: "`on` or `off`",
                default: Some("on"),
                help: "UID, MCAM and GCS set the groups at each epoch; off: MiDA's naive chain (the default of `mida`).",
            },
            Param {
                key: "groups",
                values: "G",
                unit: "groups",
                range: GROUPS,
                default: Some("10"),
                help: "Groups at most, the hot group included (GCS's 10).",
            },
            Param {
                key: "naive",
                values: "N",
                unit: "groups",
                range: NAIVE,
                default: Some("4"),
                help: "Groups of the naive chain behind the FIFO groups (NAIVE_N, 4).",
            },
            Param {
                key: "sample",
                values: "S",
                unit: "fraction of logical pages",
                range: "a number in (0, 1]",
                default: Some("0.01"),
                help: "Share of the logical pages whose update intervals UID records.",
            },
            Param {
                key: "epoch",
                values: "E",
                unit: "logical spaces of user writes",
                range: "a number in (0, 64]",
                default: Some("4"),
                help: "The model's epoch (time window), in multiples of the logical space, counted in GiB as the simulator counts it (tw × dev_gb × 2^30 bytes: 1.0737 logical spaces per unit).",
            },
            Param {
                key: "unit",
                values: "U",
                unit: "segments",
                range: "a number in (0, 1]",
                default: Some("0.25"),
                help: "UID's update-interval unit.",
            },
            Param {
                key: "hot",
                values: "on|off",
                unit: "",
                range: "`on` or `off`",
                default: Some("on"),
                help: "The hot group and its hot filter (2 bits per page).",
            },
            Param {
                key: "apply",
                values: "window|epoch",
                unit: "",
                range: "`window` or `epoch`",
                default: Some("window"),
                help: "When a model's configuration is taken: at the next progress window's end (as the simulator's model thread lands, during its 5 s sleep) or as soon as the epoch ends.",
            },
        ],
        needs: &[Need::PageState],
    };
    fn parse(args: &Args<'_>) -> Result<MidasSpec> {
        let onoff = [("on", true), ("off", false)];
        let model = args.choice("model", &onoff, args.name != "mida")?;
        let groups: u8 = args.num("groups", Some(10), GROUPS)?;
        if !(3..=10).contains(&groups) {
            return Err(Error::param(&args.key("groups"), groups, GROUPS));
        }
        let naive: u8 = args.num("naive", Some(4), NAIVE)?;
        if !(1..=8).contains(&naive) {
            return Err(Error::param(&args.key("naive"), naive, NAIVE));
        }
        let sample: f64 = args.num("sample", Some(0.01), "a number in (0, 1]")?;
        check_range(&args.key("sample"), sample, 0.0, 1.0, true, false)?;
        let epoch: f64 = args.num("epoch", Some(4.0), "a number in (0, 64]")?;
        check_range(&args.key("epoch"), epoch, 0.0, 64.0, true, false)?;
        let unit: f64 = args.num("unit", Some(0.25), "a number in (0, 1]")?;
        check_range(&args.key("unit"), unit, 0.0, 1.0, true, false)?;
        let hot = args.choice("hot", &onoff, true)?;
        let apply = args.choice(
            "apply",
            &[("window", Apply::Window), ("epoch", Apply::Epoch)],
            Apply::Window,
        )?;
        Ok(MidasSpec {
            model,
            groups,
            naive,
            sample,
            epoch,
            unit,
            hot,
            apply,
        })
    }
    fn show(p: &MidasSpec, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on = |b: bool| if b { "on" } else { "off" };
        write!(
            f,
            "midas:model={},groups={},naive={},sample={},epoch={},unit={},hot={}",
            on(p.model),
            p.groups,
            p.naive,
            p.sample,
            p.epoch,
            p.unit,
            on(p.hot)
        )?;
        // Shown only off its default, so that the names of earlier runs stay theirs.
        if p.apply == Apply::Epoch {
            f.write_str(",apply=epoch")?;
        }
        Ok(())
    }
    fn streams(p: &MidasSpec, _classes: u32) -> u32 {
        let fifo = if p.model { u32::from(p.groups) - 1 } else { 1 };
        fifo + u32::from(p.naive)
    }
    // No reserve beyond the trigger's free segments: the simulator's `do_gc` takes a free
    // segment whenever a group's active segment fills, from the pool kept at `FREENUM`.
    fn reserve(_p: &MidasSpec, _classes: u32) -> (u64, u64) {
        (0, 1)
    }
    // Per page: its engine group (1 byte), its segment's generation (4), its hot-filter
    // counter (1), and UID's stamp for a sampled page (8 per 1/sample pages).
    fn page_bytes(p: &MidasSpec) -> u64 {
        5 + u64::from(p.hot)
            + if p.model {
                (8.0 * p.sample).ceil() as u64
            } else {
                0
            }
    }
    fn build(p: &MidasSpec, b: &Build<'_>) -> Result<Built<Self>> {
        let scheme = Midas::new(p, b);
        let (fifo, naive) = (scheme.fifo, scheme.naive_n);
        let fifo_spec: PolicySpec = "fifo".parse()?;
        let mut policies = vec![Some(fifo_spec); fifo];
        policies.extend(std::iter::repeat_n(None, naive));
        let user = (0..fifo + naive)
            .map(|e| e == 0 || e == 1 || e == fifo)
            .collect();
        Ok(Built::groups(scheme, user, policies, b).keeping(0))
    }
}
