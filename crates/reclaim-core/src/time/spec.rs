//! The flash device a timed run lays its segments on (`--device PRESET[:key=value,…]`): its
//! geometry, its operation times and how cleaning and reads are put on its clock. Two presets
//! name their sources, and every value can be overridden (`mqsim:channels=4,tprog=900us`).
//!
//! Vocabulary: `FEMU`'s and `MQSim`'s (`tR`, `tPROG`, `tBERS`, channel, die, plane, superblock).

use std::fmt;
use std::str::FromStr;

use crate::error::{num, Error, Result};
use crate::spec::{check_range, string_serde, Args, Family, Info, Param};

/// How a run's segments map onto the flash (`unit=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A segment is one block on every plane of every die (FEMU's "line"); its pages are striped
    /// over the channels first, then the dies of a channel, then the planes of a die.
    Superblock,
    /// A segment is one block of one plane; each plane is a region with its own free blocks,
    /// write frontier and cleaning, user writes dealt to the planes in turn (`MQSim`'s page-level
    /// FTL; the `planes` placement).
    Plane,
}

/// How page transfers take their channel (`bus=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bus {
    /// Transfers take no time.
    Off,
    /// Each transfer takes the first stretch its channel is free for it from the time its page
    /// is ready (a read's at its tR's end, a program's as its die is about to be free), one at a
    /// time: as an event-driven device (`MQSim`) arbitrates a channel.
    On,
    /// Each channel one busy-until time, pushed on by each transfer in the order the engine
    /// decides them (`FEMU`'s `ch->next_ch_avail_time`): faster, but a read whose page is ready
    /// late holds the transfers decided after it, though the channel is idle until then.
    Fifo,
}

/// When cleaning runs on the device's clock (`clean=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clean {
    /// Only when a write needs a segment: the cleaning the trigger runs (`--gc`) is issued at
    /// the write's arrival, ahead of the write's own program on every die it touches.
    Foreground,
    /// Also ahead of need: while fewer than `high` segments are free, one victim is cleaned
    /// whenever every die is idle before the next request arrives (FEMU's background GC);
    /// the trigger still runs in the foreground when the free pool runs out.
    Background,
    /// Cleaning runs as the trigger asks but takes no device time: the ideal device without
    /// garbage collection that ttFlash (Yan et al., FAST '17) compares against.
    Free,
}

/// What a read of a page that holds no data costs (`unwritten=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unwritten {
    /// Nothing: the mapping table answers it (FEMU's `ssd_read` skips unmapped pages).
    Skip,
    /// A flash read on the die the page's number maps to, as if it were written (`MQSim`'s
    /// `online_create_entry_for_reads` maps it and reads it).
    Read,
}

/// A flash device (`--device`), every time in nanoseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceSpec {
    /// The preset the values start from.
    pub preset: &'static str,
    /// The overrides, `key=value` in the parameters' order (the spec's canonical text).
    pub overrides: Vec<(String, String)>,
    /// Channels, ≥ 1.
    pub channels: u32,
    /// Dies per channel, ≥ 1 (`MQSim`'s chips per channel × dies per chip).
    pub dies: u32,
    /// Planes per die, ≥ 1.
    pub planes: u32,
    /// Pages per block, ≥ 1.
    pub pages_per_block: u32,
    /// Bytes per page.
    pub page_size: u32,
    /// Page read time tR [ns].
    pub tr: u64,
    /// Page program time tPROG [ns].
    pub tprog: u64,
    /// Block erase time tBERS [ns].
    pub tbers: u64,
    /// Channel transfer rate [MT/s].
    pub mts: f64,
    /// Channel width [bits].
    pub width: u32,
    /// Whether page transfers take their channel, and how the channel orders them.
    pub bus: Bus,
    /// How segments map onto the flash.
    pub unit: Unit,
    /// When cleaning runs.
    pub clean: Clean,
    /// Background cleaning's mark [free segments]; 0: the trigger's free segments plus two.
    pub high: u32,
    /// DRAM write buffer [pages]; 0: none (a write completes when its program does).
    pub buffer: u32,
    /// Whether a host read suspends the programs and erases its die is busy with (program/erase
    /// suspension, `MQSim`'s `CMD_Suspension_Support`).
    pub suspend: bool,
    /// The time a suspension costs [ns] (`MQSim`'s `Suspend_Program_Time`, 100 µs).
    pub tsus: u64,
    /// What a read of an unwritten page costs.
    pub unwritten: Unwritten,
}

const PARAMS: &[Param] = &[
    Param { key: "channels", values: "N", unit: "", range: "a whole number in [1, 1024]", default: Some("preset"), help: "Flash channels." },
    Param { key: "dies", values: "N", unit: "per channel", range: "a whole number in [1, 1024]", default: Some("preset"), help: "Dies per channel (each its own timeline)." },
    Param { key: "planes", values: "N", unit: "per die", range: "a whole number in [1, 64]", default: Some("preset"), help: "Planes per die." },
    Param { key: "pages_per_block", values: "N", unit: "pages", range: "a whole number in [1, 65536]", default: Some("preset"), help: "Pages per block; a segment is a superblock of channels × dies × planes blocks." },
    Param { key: "page_size", values: "BYTES", unit: "bytes", range: "a size in [512B, 1MiB], e.g. 4KiB", default: Some("preset"), help: "Bytes per page." },
    Param { key: "tr", values: "TIME", unit: "time", range: "a time with its unit in (0, 1s], e.g. 40us", default: Some("preset"), help: "Page read time tR." },
    Param { key: "tprog", values: "TIME", unit: "time", range: "a time with its unit in (0, 1s], e.g. 200us", default: Some("preset"), help: "Page program time tPROG." },
    Param { key: "tbers", values: "TIME", unit: "time", range: "a time with its unit in (0, 10s], e.g. 2ms", default: Some("preset"), help: "Block erase time tBERS." },
    Param { key: "mts", values: "R", unit: "MT/s", range: "a number in (0, 100000]", default: Some("preset"), help: "Channel transfer rate." },
    Param { key: "width", values: "BITS", unit: "bits", range: "a whole number in [1, 1024]", default: Some("preset"), help: "Channel width." },
    Param { key: "bus", values: "on|off|fifo", unit: "", range: "`on`, `off` or `fifo`", default: Some("preset"), help: "Page transfers take their channel (page_size × 8 / width / mts µs each), one at a time: on, at the first free stretch from the page's readiness (MQSim's arbitration); fifo, in the order decided (FEMU's busy-until, faster); off, no transfer time." },
    Param { key: "unit", values: "superblock|plane", unit: "", range: "`superblock` or `plane`", default: Some("superblock"), help: "superblock: a segment is one block on every plane of every die (FEMU's line), pages striped over channels, then dies, then planes; plane: a segment is one plane's block, each plane its own free pool and cleaning (MQSim's), writes dealt in turn." },
    Param { key: "clean", values: "foreground|background|free", unit: "", range: "`foreground`, `background` or `free`", default: Some("foreground"), help: "Background: also clean while fewer than `high` segments are free and every die is idle; free: cleaning takes no device time (the no-GC ideal)." },
    Param { key: "high", values: "N", unit: "free segments", range: "a whole number ≥ 1", default: Some("the trigger's free segments + 2"), help: "Background cleaning's mark: clean ahead while fewer segments than this are free (beyond the reserve)." },
    Param { key: "buffer", values: "N", unit: "pages", range: "a whole number ≥ 0", default: Some("0"), help: "DRAM write buffer: a write completes when buffered; a full buffer stalls it." },
    Param { key: "suspend", values: "on|off", unit: "", range: "`on` or `off`", default: Some("off"), help: "A host read suspends the programs and erases its die is busy with, which end later by the read and the suspension (MQSim's CMD_Suspension_Support)." },
    Param { key: "tsus", values: "TIME", unit: "time", range: "a time with its unit in (0, 1s], e.g. 100us", default: Some("100us"), help: "What a suspension costs (MQSim's Suspend_Program_Time)." },
    Param { key: "unwritten", values: "skip|read", unit: "", range: "`skip` or `read`", default: Some("preset: skip (femu), read (mqsim)"), help: "A read of a page without data: free (FEMU's ssd_read skips it) or one flash read on the die its number maps to (MQSim creates its mapping and reads it)." },
];

/// The presets, each declaring its source.
pub const PRESETS: &[Info] = &[
    Info {
        family: Family::Device,
        name: "femu",
        aliases: &[],
        summary: "FEMU's black-box SSD: 8 channels × 8 dies, 1 plane, 256 pages of 4 KiB per block; tR 40 µs, tPROG 200 µs, tBERS 2 ms; no transfer time.",
        source: "FEMU (Li et al., FAST '18), hw/femu/bbssd/ftl.h NAND_*_LATENCY, ftl.c ssd_init_params, bb.c (ch_xfer_lat = 0)",
        params: PARAMS,
        needs: &[],
    },
    Info {
        family: Family::Device,
        name: "mqsim",
        aliases: &[],
        summary: "MQSim's default SSD: 8 channels × 4 chips × 2 dies, 2 planes, 256 pages of 8 KiB per block; tR 75 µs, tPROG 750 µs, tBERS 3.8 ms; 8-bit channel at 333 MT/s.",
        source: "MQSim (Tavakkol et al., FAST '18), ssdconfig.xml of CMU-SAFARI/MQSim",
        params: PARAMS,
        needs: &[],
    },
];

/// A device's values as the closed forms read them (`reclaim.models.device`): every time in
/// nanoseconds, each choice by its name.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DeviceValues {
    /// Channels.
    pub channels: u32,
    /// Dies per channel.
    pub dies: u32,
    /// Planes per die.
    pub planes: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Bytes per page.
    pub page_size: u32,
    /// tR, tPROG, tBERS and one suspension [ns].
    pub tr_ns: u64,
    /// See `tr_ns`.
    pub tprog_ns: u64,
    /// See `tr_ns`.
    pub tbers_ns: u64,
    /// See `tr_ns`.
    pub tsus_ns: u64,
    /// Channel rate [MT/s] and width [bits].
    pub mts: f64,
    /// See `mts`.
    pub width: u32,
    /// One page's transfer [ns]; 0 with the bus off.
    pub transfer_ns: u64,
    /// `on`, `fifo` or `off`.
    pub bus: &'static str,
    /// `superblock` or `plane`.
    pub unit: &'static str,
    /// `foreground`, `background` or `free`.
    pub clean: &'static str,
    /// `skip` or `read`.
    pub unwritten: &'static str,
    /// Whether reads suspend programs and erases.
    pub suspend: bool,
    /// Background cleaning's mark (0: the trigger's free segments + 2) and the write buffer.
    pub high: u32,
    /// See `high`.
    pub buffer: u32,
    /// Pages of a segment.
    pub segment_pages: u64,
}

impl DeviceSpec {
    /// Its values, for the closed forms.
    pub fn values(&self) -> DeviceValues {
        DeviceValues {
            channels: self.channels,
            dies: self.dies,
            planes: self.planes,
            pages_per_block: self.pages_per_block,
            page_size: self.page_size,
            tr_ns: self.tr,
            tprog_ns: self.tprog,
            tbers_ns: self.tbers,
            tsus_ns: self.tsus,
            mts: self.mts,
            width: self.width,
            transfer_ns: self.transfer_ns(),
            bus: match self.bus {
                Bus::On => "on",
                Bus::Off => "off",
                Bus::Fifo => "fifo",
            },
            unit: match self.unit {
                Unit::Superblock => "superblock",
                Unit::Plane => "plane",
            },
            clean: match self.clean {
                Clean::Foreground => "foreground",
                Clean::Background => "background",
                Clean::Free => "free",
            },
            unwritten: match self.unwritten {
                Unwritten::Skip => "skip",
                Unwritten::Read => "read",
            },
            suspend: self.suspend,
            high: self.high,
            buffer: self.buffer,
            segment_pages: self.segment_pages(),
        }
    }

    /// The named preset with no overrides.
    fn preset(name: &str) -> Option<Self> {
        let base = DeviceSpec {
            preset: "femu",
            overrides: Vec::new(),
            channels: 8,
            dies: 8,
            planes: 1,
            pages_per_block: 256,
            page_size: 4096,
            tr: 40_000,
            tprog: 200_000,
            tbers: 2_000_000,
            mts: 333.0,
            width: 8,
            bus: Bus::Off,
            unit: Unit::Superblock,
            clean: Clean::Foreground,
            high: 0,
            buffer: 0,
            suspend: false,
            tsus: 100_000,
            unwritten: Unwritten::Skip,
        };
        match name {
            "femu" => Some(base),
            "mqsim" => Some(DeviceSpec {
                preset: "mqsim",
                channels: 8,
                dies: 8,
                planes: 2,
                pages_per_block: 256,
                page_size: 8192,
                tr: 75_000,
                tprog: 750_000,
                tbers: 3_800_000,
                mts: 333.0,
                width: 8,
                bus: Bus::On,
                // MQSim maps a read of a page never written to a new physical page and reads
                // it (`Address_Mapping_Unit_Page_Level::online_create_entry_for_reads`).
                unwritten: Unwritten::Read,
                ..base
            }),
            _ => None,
        }
    }

    /// Dies in all.
    pub fn total_dies(&self) -> u32 {
        self.channels * self.dies
    }

    /// Planes in all.
    pub fn total_planes(&self) -> u32 {
        self.channels * self.dies * self.planes
    }

    /// Pages of a segment: one block on every plane of every die (a superblock), or one
    /// plane's block.
    pub fn segment_pages(&self) -> u64 {
        match self.unit {
            Unit::Superblock => u64::from(self.total_planes()) * u64::from(self.pages_per_block),
            Unit::Plane => u64::from(self.pages_per_block),
        }
    }

    /// One page's transfer over its channel [ns]: `page_size` × 8 / `width` transfers at `mts`
    /// million transfers a second (`MQSim`'s `NVDDR2` channel: 8192 B at 333 MT/s × 8 bit, 24.6 µs).
    pub fn transfer_ns(&self) -> u64 {
        if self.bus == Bus::Off {
            return 0;
        }
        let transfers = f64::from(self.page_size) * 8.0 / f64::from(self.width);
        (transfers / self.mts * 1e3).round() as u64
    }

    fn set(&mut self, args: &Args<'_>, key: &str, v: &str) -> Result<()> {
        let name = args.key(key);
        let whole = |lo: u32, hi: u32| -> Result<u32> {
            let range = format!("a whole number in [{lo}, {hi}]");
            let n: u32 = v
                .parse()
                .map_err(|_| Error::param(&name, format!("`{v}`"), &range))?;
            if (lo..=hi).contains(&n) {
                Ok(n)
            } else {
                Err(Error::param(&name, n, &range))
            }
        };
        match key {
            "channels" => self.channels = whole(1, 1024)?,
            "dies" => self.dies = whole(1, 1024)?,
            "planes" => self.planes = whole(1, 64)?,
            "pages_per_block" => self.pages_per_block = whole(1, 65_536)?,
            "width" => self.width = whole(1, 1024)?,
            "buffer" => self.buffer = whole(0, u32::MAX)?,
            "suspend" => {
                self.suspend = args.choice(key, &[("on", true), ("off", false)], self.suspend)?;
            }
            "tsus" => self.tsus = parse_time(&name, v, 1e9)?,
            "high" => self.high = whole(1, u32::MAX)?,
            "page_size" => self.page_size = parse_size(&name, v)?,
            "tr" => self.tr = parse_time(&name, v, 1e9)?,
            "tprog" => self.tprog = parse_time(&name, v, 1e9)?,
            "tbers" => self.tbers = parse_time(&name, v, 1e10)?,
            "mts" => {
                let x: f64 = v.parse().map_err(|_| {
                    Error::param(&name, format!("`{v}`"), "a number in (0, 100000]")
                })?;
                check_range(&name, x, 0.0, 1e5, true, false)?;
                self.mts = x;
            }
            "bus" => {
                self.bus = args.choice(
                    key,
                    &[("on", Bus::On), ("off", Bus::Off), ("fifo", Bus::Fifo)],
                    self.bus,
                )?;
            }
            "unit" => {
                self.unit = args.choice(
                    key,
                    &[("superblock", Unit::Superblock), ("plane", Unit::Plane)],
                    self.unit,
                )?;
            }
            "clean" => {
                self.clean = args.choice(
                    key,
                    &[
                        ("foreground", Clean::Foreground),
                        ("background", Clean::Background),
                        ("free", Clean::Free),
                    ],
                    self.clean,
                )?;
            }
            "unwritten" => {
                self.unwritten = args.choice(
                    key,
                    &[("skip", Unwritten::Skip), ("read", Unwritten::Read)],
                    self.unwritten,
                )?;
            }
            _ => unreachable!("keys are checked against the preset's parameters"),
        }
        Ok(())
    }
}

/// A time with its unit (`40us`, `40µs`, `3.8ms`, `750000ns`, `1s`) in nanoseconds, in
/// (0, `max_ns`].
pub fn parse_time(name: &str, v: &str, max_ns: f64) -> Result<u64> {
    let range = format!(
        "a time with its unit (ns, us, ms or s) in (0, {}], e.g. 40us",
        human_ns(max_ns)
    );
    let t = v.trim();
    let split = t
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
        })
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => return Err(Error::param(name, format!("`{v}` (no unit)"), range)),
        _ => return Err(Error::param(name, format!("`{v}`"), range)),
    };
    let x: f64 = number
        .parse()
        .map_err(|_| Error::param(name, format!("`{v}`"), &range))?;
    let ns = x * scale;
    if !(ns.is_finite() && ns > 0.0 && ns <= max_ns) || ns.round() < 1.0 {
        return Err(Error::param(name, format!("`{v}`"), range));
    }
    Ok(ns.round() as u64)
}

/// A byte count with an optional unit (`4096`, `4096B`, `4KiB`, `8KB` as 8,000), in [512 B, 1 MiB].
pub fn parse_size(name: &str, v: &str) -> Result<u32> {
    let range = "a size in bytes in [512, 1048576], e.g. 4KiB or 4096";
    let t = v.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" | "K" => 1 << 10,
        "KB" | "kB" => 1000,
        "MiB" | "M" => 1 << 20,
        _ => return Err(Error::param(name, format!("`{v}`"), range)),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| Error::param(name, format!("`{v}`"), range))?;
    let bytes = n.saturating_mul(scale);
    if (512..=1 << 20).contains(&bytes) {
        Ok(bytes as u32)
    } else {
        Err(Error::param(name, format!("`{v}` ({bytes} bytes)"), range))
    }
}

/// A time in nanoseconds as a message shows it.
pub fn human_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{}s", num(ns / 1e9))
    } else if ns >= 1e6 {
        format!("{}ms", num(ns / 1e6))
    } else if ns >= 1e3 {
        format!("{}us", num(ns / 1e3))
    } else {
        format!("{}ns", num(ns))
    }
}

impl FromStr for DeviceSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let args = Args::parse("device", s)?;
        let Some(info) = PRESETS.iter().find(|i| i.answers(args.name)) else {
            return Err(args.bad(&crate::spec::usages(PRESETS)));
        };
        args.check(info)?;
        let mut spec = DeviceSpec::preset(info.name).expect("a registered preset");
        for p in info.params {
            if let Some(v) = args.get(p.key) {
                spec.set(&args, p.key, v)?;
                spec.overrides.push((p.key.to_string(), v.to_string()));
            }
        }
        let planes = u64::from(spec.total_dies()) * u64::from(spec.planes);
        if planes > 65_536 {
            return Err(Error::param(
                "device",
                format!("`{s}` ({planes} planes)"),
                "channels × dies × planes ≤ 65536",
            ));
        }
        Ok(spec)
    }
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.preset)?;
        for (i, (k, v)) in self.overrides.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

string_serde!(DeviceSpec);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_carry_their_sources_values() {
        // MQSim's ssdconfig.xml: 8 channels, 4 chips × 2 dies, 2 planes, 256 pages of 8192 B,
        // 75 µs / 750 µs / 3.8 ms, 333 MT/s over a one-byte channel.
        let m: DeviceSpec = "mqsim".parse().unwrap();
        assert_eq!(
            (m.channels, m.dies, m.planes, m.pages_per_block),
            (8, 8, 2, 256)
        );
        assert_eq!((m.tr, m.tprog, m.tbers), (75_000, 750_000, 3_800_000));
        assert_eq!(m.transfer_ns(), 24_601);
        assert_eq!(m.segment_pages(), 8 * 8 * 2 * 256);
        // FEMU's ftl.h: 40 µs, 200 µs, 2 ms; bb.c: no transfer time.
        let f: DeviceSpec = "femu".parse().unwrap();
        assert_eq!(
            (f.tr, f.tprog, f.tbers, f.transfer_ns()),
            (40_000, 200_000, 2_000_000, 0)
        );
    }

    #[test]
    fn overrides_parse_with_units_and_print_back() {
        let d: DeviceSpec = "mqsim:channels=4,tprog=900us,page_size=4KiB"
            .parse()
            .unwrap();
        assert_eq!((d.channels, d.tprog, d.page_size), (4, 900_000, 4096));
        // Canonical: the overrides in the parameters' order, whatever the order given.
        assert_eq!(d.to_string(), "mqsim:channels=4,page_size=4KiB,tprog=900us");
        assert_eq!(d.to_string().parse::<DeviceSpec>().unwrap(), d);
    }

    #[test]
    fn bad_values_name_parameter_value_and_range() {
        let e = |s: &str| s.parse::<DeviceSpec>().unwrap_err().to_string();
        assert!(
            e("femu:dies=0").contains("`device.dies`: 0 (expected a whole number in [1, 1024])")
        );
        assert!(e("femu:tr=40").contains("`device.tr`: `40` (no unit)"));
        assert!(e("femu:tr=-4us").contains("`device.tr`: `-4us`"));
        assert!(e("femu:page_size=3").contains("`device.page_size`"));
        assert!(e("ssd").contains("`femu[:"));
        assert!(e("femu:speed=2").contains("unknown argument `speed`"));
    }
}
