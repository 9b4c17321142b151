//! The device's geometry as a configuration gives it: pages per segment, segments, and the logical
//! capacity resolved from `spare`, `fill` or `logical_pages` (or from a trace's address space).

use super::{MethodSpec, PlacementSpec, SimConfig, SizeSpec, MAX_PHYSICAL_PAGES};
use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::spec::check_range;

impl SimConfig {
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
            let named = [
                self.spare.map(|v| format!("spare={v}")),
                self.fill.map(|v| format!("fill={v}")),
                self.logical_pages.map(|v| format!("logical_pages={v}")),
            ];
            return Err(Error::param(
                "spare",
                named.into_iter().flatten().collect::<Vec<_>>().join(", "),
                "only one of `spare`, `fill` and `logical_pages`",
            ));
        }
        let log = match self.method() {
            Some(MethodSpec::Log(l)) => Some(l),
            _ => None,
        };
        if let (Some(l), true) = (log, self.spare.is_some() || self.fill.is_some()) {
            let (key, v) = match (self.spare, self.fill) {
                (Some(s), _) => ("spare", s),
                (None, f) => ("fill", f.unwrap_or_default()),
            };
            return Err(Error::param(
                key,
                v,
                format!("none with `method={l}`: a log has no fixed capacity and no spare factor (its bound is `room`)"),
            ));
        }
        let fill = match (self.spare, self.fill) {
            _ if log.is_some() => log.map_or(0.9, |l| l.fill()),
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
        let only_trace = trace_pages.is_some() && self.writes_only_trace();
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
                let exact = need as f64 * mean / fill / pps as f64;
                // A device that holds only the trace's pages is sized to the whole number of
                // segments nearest the asked spare (its logical space is those pages, so any
                // segment more is spare); one whose warm-up fills its logical space keeps the
                // trace's pages and rounds up, the extra logical pages being the warm-up's. A log
                // has no spare: its segments are a bound, rounded up as they always were.
                let mut n = if only_trace && log.is_none() {
                    exact.round()
                } else {
                    exact.ceil()
                } as u64;
                n = n.max(4);
                let data = |n: u64| {
                    if only_trace {
                        need
                    } else {
                        ((fill * (n * pps) as f64 / mean).round() as u64).max(need)
                    }
                };
                // Small traces: room for the open frontiers and the free segments the trigger
                // keeps. The spare then differs from the asked one: the result says so
                // (`sim::plan`'s warnings).
                while data(n) as f64 * mean > (n.saturating_sub(reserved) * room) as f64 {
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
            // Sized from a trace's address space, the cause is the trace's largest page id.
            let why = match trace_pages {
                Some(pages) if self.segments.is_none() => format!(
                    "; the trace's address space is {pages} pages (its largest page id + 1): `method=precondition` (the default) sizes the device from the pages written, or convert it with `--rename`"
                ),
                _ => String::new(),
            };
            return Err(Error::param(
                "segments",
                segments,
                format!(
                    "segments × pages_per_segment ≤ {MAX_PHYSICAL_PAGES} (got {physical}){why}"
                ),
            ));
        }
        // With sizes, the fill factor is of slots: pages × mean size over the physical slots.
        let mean = self.sizes.as_ref().map_or(1.0, SizeSpec::mean);
        let logical = match (self.logical_pages, trace_pages, self.segments) {
            (Some(n), _, _) => n,
            // A log holds the working set and floats above it (`method::log`); a device that
            // only the trace writes holds the trace's pages and no more (pages it never wrote
            // would be spare in all but name).
            (None, Some(pages), None) if log.is_some() => pages,
            (None, Some(pages), _) if only_trace => pages,
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
}
