//! What a run may ask of the machine: its length in writes and its memory, both checked before
//! anything is allocated or simulated, so that a run that cannot finish or cannot fit is refused
//! with the figures instead of running for ever or being killed by the kernel.

use crate::error::{Error, Result};
use crate::geometry::Geometry;

/// Largest number of user writes of one run (warm-up and measured phase together) for segments of
/// `pages_per_segment` pages.
///
/// Every counter and every metric derived from them is exact as long as user plus GC writes stay
/// below 2⁵³ (the integers an `f64` holds exactly). One user write relocates at most a victim's
/// `pages_per_segment − 1` valid pages per segment it frees, so user writes × `pages_per_segment`
/// bounds user plus GC writes. For b = 64 the limit is 1.4 × 10¹⁴ writes, about a month of
/// simulation at 50M page writes/s.
pub fn max_user_writes(pages_per_segment: u32) -> u64 {
    (1u64 << 53) / u64::from(pages_per_segment.max(1))
}

/// Checks the run's length: warm-up and measured writes, as real numbers because a multiple of
/// the logical capacity may be far beyond any integer.
pub fn check_writes(g: &Geometry, warmup: f64, measured: f64) -> Result<()> {
    let limit = max_user_writes(g.pages_per_segment);
    if !(warmup.is_finite() && warmup <= limit as f64) {
        return Err(Error::param(
            "warmup",
            format!("{warmup:.3e} writes"),
            format!(
                "at most {limit} writes (2⁵³ / pages_per_segment, so that every count stays exact)"
            ),
        ));
    }
    if measured < 1.0 {
        return Err(Error::param(
            "writes",
            "0 measured writes",
            "at least one measured write (`20x`, `1p` or a count ≥ 1)",
        ));
    }
    if !(measured.is_finite() && measured + warmup <= limit as f64) {
        return Err(Error::param(
            "writes",
            format!("{measured:.4e} measured writes after {warmup:.4e} warm-up writes"),
            format!("at most {limit} writes in all (2⁵³ / pages_per_segment, so that every count stays exact)"),
        ));
    }
    Ok(())
}

/// Bytes of memory a run allocates, estimated from its geometry: the page map (4 bytes per
/// logical page), the reverse map (4 per physical page), the per-segment arrays of the store,
/// the policy and the metrics (at most 96 bytes per segment), the optional per-page arrays
/// (`extra_per_page` bytes per logical page) and the write cache (48 bytes per cached page: its
/// node and its hash entry). The 1 TiB geometry (4,194,304 × 64 pages) comes to 2.44 × 10⁹ bytes;
/// measured peak: 2.30 GiB = 2.47 × 10⁹ bytes with the interpreter.
pub fn estimated_bytes(g: &Geometry, extra_per_page: u64, cache_pages: u64) -> u64 {
    let logical = g.logical_pages;
    let physical = g.physical_pages();
    4 * logical
        + 4 * physical
        + 96 * u64::from(g.segments)
        + extra_per_page * logical
        + 48 * cache_pages
}

/// Bytes this process can still allocate, where the system says: the smallest of the kernel's
/// available memory (`MemAvailable`), the control group's limit less its usage, and the
/// address-space limit (`ulimit -v`) less the address space in use. `None` where none is known
/// (not Linux).
pub fn available_bytes() -> Option<(u64, &'static str)> {
    let mut best: Option<(u64, &'static str)> = None;
    let mut consider = |bytes: Option<u64>, what: &'static str| {
        if let Some(b) = bytes {
            if best.is_none_or(|(x, _)| b < x) {
                best = Some((b, what));
            }
        }
    };
    consider(
        meminfo_kib("/proc/meminfo", "MemAvailable:").map(|k| k * 1024),
        "available memory (MemAvailable)",
    );
    let cgroup_max = read_u64("/sys/fs/cgroup/memory.max");
    let cgroup_used = read_u64("/sys/fs/cgroup/memory.current").unwrap_or(0);
    consider(
        cgroup_max.map(|m| m.saturating_sub(cgroup_used)),
        "the control group's memory limit (memory.max) less its usage",
    );
    if let Some(limit) = address_space_limit() {
        let used = meminfo_kib("/proc/self/status", "VmSize:").map_or(0, |k| k * 1024);
        consider(
            Some(limit.saturating_sub(used)),
            "the address-space limit (ulimit -v) less the address space in use",
        );
    }
    best
}

/// Refuses a run whose estimated memory exceeds what the machine can give.
pub fn check_memory(g: &Geometry, extra_per_page: u64, cache_pages: u64) -> Result<()> {
    let need = estimated_bytes(g, extra_per_page, cache_pages);
    if let Some((have, what)) = available_bytes() {
        if need > have {
            return Err(Error::param(
                "segments",
                format!(
                    "{} ({} segments × {} pages, {} logical pages)",
                    g.segments, g.segments, g.pages_per_segment, g.logical_pages
                ),
                format!(
                    "a device that fits in memory: it needs about {} and this machine has {} ({what})",
                    gib(need),
                    gib(have)
                ),
            ));
        }
    }
    Ok(())
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / f64::from(1u32 << 30))
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// A `Key:   N kB` line of a `/proc` file, in KiB.
fn meminfo_kib(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

/// The soft address-space limit of this process in bytes, `None` when unlimited.
fn address_space_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_limit_is_two_to_the_53_over_b() {
        assert_eq!(max_user_writes(64), 140_737_488_355_328);
        assert_eq!(max_user_writes(1), 1 << 53);
    }

    #[test]
    fn estimate_of_the_1_tib_geometry() {
        // 4,194,304 segments of 64 pages at spare 0.1 (the README's memory figure).
        let g = Geometry {
            segments: 4_194_304,
            pages_per_segment: 64,
            logical_pages: 241_591_910,
        };
        let b = estimated_bytes(&g, 0, 0);
        assert_eq!(b, 4 * 241_591_910 + 4 * 268_435_456 + 96 * 4_194_304);
        assert!((2.40e9..2.50e9).contains(&(b as f64)));
    }

    #[test]
    fn runs_that_cannot_stay_exact_are_refused() {
        let g = Geometry {
            segments: 64,
            pages_per_segment: 64,
            logical_pages: 3686,
        };
        assert!(check_writes(&g, 0.0, 0.0).is_err());
        assert!(check_writes(&g, 0.0, 1.0).is_ok());
        assert!(check_writes(&g, f64::INFINITY, 1.0).is_err());
        assert!(check_writes(&g, 1e300, 1.0).is_err());
        assert!(check_writes(&g, 0.0, u64::MAX as f64).is_err());
        assert!(check_writes(&g, 0.0, 1e300).is_err());
        let limit = max_user_writes(64) as f64;
        assert!(check_writes(&g, limit - 10.0, 10.0).is_ok());
        assert!(check_writes(&g, limit - 10.0, 11.0).is_err());
    }
}
