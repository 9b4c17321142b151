//! How well a run knows its answer: a confidence interval of a measured metric by batch means,
//! and the rule that ends the measured phase once the interval is narrow enough (`precision`).
//!
//! The measured phase's time series (windows of `window` user writes, [`Series`]) is cut into
//! batches of `s` consecutive windows, `s` a power of two chosen so that there are from 20 to
//! 39 batches: the batch size doubles as the run grows (Law & Kelton, *Simulation Modeling and
//! Analysis*, 3rd ed., §9.5.3, nonoverlapping batch means with a fixed number of batches).
//! Each metric is a ratio of sums, R = ΣY / ΣX over the windows (`wa` = (U + G) / U, `wamp` =
//! G / U, `gcu` = G / (b · collected), `emptiness_at_clean` = 1 − `gcu`), so the interval is the
//! ratio estimator's: with batch sums (Yᵢ, Xᵢ), residuals dᵢ = Yᵢ − R·Xᵢ, the standard error is
//! √(Σdᵢ² / (n − 1) / n) / X̄ (the delta method; Law & Kelton §9.5 for ratios of means), and the
//! 95% half-width t₀.₉₇₅,ₙ₋₁ times it. Where every batch has the same X (the user writes of
//! `wa` and `wamp`), this is the classical batch-means interval of the batches' ratios.
//!
//! The stopping rule (`--precision wa:rel=0.0003`): after each window that completes a batch,
//! the measured phase ends when the half-width is at most the target (relative to |R|, or
//! absolute) and the batch residuals' lag-1 autocorrelation is below 1.96/√n, the bound an
//! independent sequence stays under 97.5% of the time (a batch size too small for the run's
//! memory shows as positive correlation; the rule then waits for larger batches). `writes` is
//! then the cap: a run that does not reach the target by then ends there, its interval marked
//! as not reached. Checks are made only where the windows fill whole batches, so the metric
//! reported at a stop is exactly the batches' estimate.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::metrics::Series;
use crate::spec::string_serde;

/// The fewest batches an interval is computed from; batches double in size beyond twice this.
pub const MIN_BATCHES: usize = 20;

/// A measured metric an interval can be computed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// (U + G) / U.
    Wa,
    /// G / U.
    Wamp,
    /// G / (b · collected), Stockmeyer §2.2.
    Gcu,
    /// 1 − `gcu`, Lomet & Luo's E.
    EmptinessAtClean,
}

impl Metric {
    const ALL: [(Metric, &'static str); 4] = [
        (Metric::Wa, "wa"),
        (Metric::Wamp, "wamp"),
        (Metric::Gcu, "gcu"),
        (Metric::EmptinessAtClean, "emptiness_at_clean"),
    ];

    /// Its name, as the result's field.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map_or("wa", |(_, n)| n)
    }

    /// Window `i`'s numerator and denominator.
    fn terms(self, s: &Series, pps: u32, i: usize) -> (f64, f64) {
        let u = s.user_writes[i] as f64;
        let g = s.gc_writes[i] as f64;
        match self {
            Metric::Wa => (u + g, u),
            Metric::Wamp => (g, u),
            Metric::Gcu | Metric::EmptinessAtClean => (g, f64::from(pps) * s.collected[i] as f64),
        }
    }
}

/// The target of `precision`: a metric's 95% half-width, relative or absolute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Precision {
    /// The metric whose interval decides.
    pub metric: Metric,
    /// The half-width to reach.
    pub half_width: f64,
    /// Whether `half_width` is relative to the estimate (`rel=`) or in the metric's unit (`abs=`).
    pub relative: bool,
}

impl Precision {
    /// Whether `interval` meets the target.
    pub fn met(&self, interval: &Interval) -> bool {
        let width = if self.relative {
            interval.half_width / interval.value.abs()
        } else {
            interval.half_width
        };
        width <= self.half_width && interval.lag1 < 1.96 / f64::from(interval.batches).sqrt()
    }
}

impl FromStr for Precision {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let text = s.trim();
        let bad = |why: &str| {
            Error::param(
                "precision",
                format!("`{text}`"),
                format!("METRIC:rel=X or METRIC:abs=X, METRIC one of wa, wamp, gcu, emptiness_at_clean, X a half-width > 0{why}"),
            )
        };
        let (name, arg) = text.split_once(':').ok_or_else(|| bad(""))?;
        let metric = Metric::ALL
            .iter()
            .find(|(_, n)| *n == name.trim())
            .map(|(m, _)| *m)
            .ok_or_else(|| bad(""))?;
        let (key, value) = arg.split_once('=').ok_or_else(|| bad(""))?;
        let relative = match key.trim() {
            "rel" => true,
            "abs" => false,
            _ => return Err(bad("")),
        };
        let half_width: f64 = value.trim().parse().map_err(|_| bad(""))?;
        if !(half_width.is_finite() && half_width > 0.0) {
            return Err(bad(""));
        }
        if relative && half_width >= 1.0 {
            return Err(bad(" (rel below 1)"));
        }
        Ok(Precision {
            metric,
            half_width,
            relative,
        })
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.relative { "rel" } else { "abs" };
        write!(f, "{}:{key}={}", self.metric.name(), self.half_width)
    }
}
string_serde!(Precision);

/// A metric's 95% confidence interval by batch means over the measured phase's windows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// The metric (`wa`, `wamp`, `gcu`, `emptiness_at_clean`).
    pub metric: &'static str,
    /// Its estimate over the batches' windows.
    pub value: f64,
    /// Half-width of the 95% interval, in the metric's unit.
    pub half_width: f64,
    /// Batches.
    pub batches: u32,
    /// Windows per batch.
    pub windows_per_batch: u32,
    /// Lag-1 autocorrelation of the batch residuals.
    pub lag1: f64,
    /// With `precision`: whether the target was met (the phase ended early, or at its last
    /// batch); `None` without a target.
    pub reached: Option<bool>,
}

/// Windows per batch for `windows` complete windows: the largest power of two leaving at least
/// [`MIN_BATCHES`] batches (`None` for fewer windows than that).
pub fn batch_size(windows: usize) -> Option<usize> {
    if windows < MIN_BATCHES {
        return None;
    }
    let mut s = 1;
    while windows / (2 * s) >= MIN_BATCHES {
        s *= 2;
    }
    Some(s)
}

/// The interval of `metric` over the first whole batches of the series' complete windows (the
/// last window, when partial, is left out: `window` is its nominal length), or `None` with
/// fewer than [`MIN_BATCHES`] windows or no denominator.
pub fn interval(series: &Series, pps: u32, metric: Metric) -> Option<Interval> {
    let complete = series
        .user_writes
        .iter()
        .take_while(|&&u| u == series.window)
        .count();
    let s = batch_size(complete)?;
    let n = complete / s;
    let sums: Vec<(f64, f64)> = (0..n)
        .map(|b| {
            (b * s..(b + 1) * s).fold((0.0, 0.0), |(y, x), i| {
                let (dy, dx) = metric.terms(series, pps, i);
                (y + dy, x + dx)
            })
        })
        .collect();
    let (sy, sx) = sums
        .iter()
        .fold((0.0, 0.0), |(y, x), (dy, dx)| (y + dy, x + dx));
    if sx <= 0.0 {
        return None;
    }
    let r = sy / sx;
    let d: Vec<f64> = sums.iter().map(|(y, x)| y - r * x).collect();
    let ss: f64 = d.iter().map(|v| v * v).sum();
    let nf = n as f64;
    let se = (ss / (nf - 1.0) / nf).sqrt() / (sx / nf);
    let lag1 = if ss > 0.0 {
        d.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / ss
    } else {
        0.0
    };
    let value = if metric == Metric::EmptinessAtClean {
        1.0 - r
    } else {
        r
    };
    Some(Interval {
        metric: metric.name(),
        value,
        half_width: student_t975(n - 1) * se,
        batches: n as u32,
        windows_per_batch: s as u32,
        lag1,
        reached: None,
    })
}

/// Whether `windows` complete windows end a batch at which the stopping rule is checked: at
/// least [`MIN_BATCHES`] of them, a whole number of batches of the current size.
pub fn at_batch_end(windows: usize) -> bool {
    batch_size(windows).is_some_and(|s| windows.is_multiple_of(s))
}

/// The 0.975 quantile of Student's t with `nu` ≥ 1 degrees of freedom: the table's values for
/// ν ≤ 10, else the Cornish–Fisher expansion in 1/ν about the normal quantile (Abramowitz &
/// Stegun 26.7.5), within 10⁻⁵ of the exact value for ν ≥ 11 (3·10⁻⁷ at ν = 19, the fewest
/// the stopping rule uses).
pub fn student_t975(nu: usize) -> f64 {
    const SMALL: [f64; 10] = [
        12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    ];
    if nu == 0 {
        return f64::NAN;
    }
    if nu <= SMALL.len() {
        return SMALL[nu - 1];
    }
    let z: f64 = 1.959_963_984_540_054;
    let v = nu as f64;
    let (z3, z5, z7, z9) = (z.powi(3), z.powi(5), z.powi(7), z.powi(9));
    z + (z3 + z) / (4.0 * v)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v.powi(3))
        + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / (92_160.0 * v.powi(4))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(u: &[u64], g: &[u64], window: u64) -> Series {
        Series {
            window,
            user_writes: u.to_vec(),
            gc_writes: g.to_vec(),
            collected: vec![1; u.len()],
            ..Series::default()
        }
    }

    #[test]
    fn t_quantiles_match_the_table() {
        // Student's t, 0.975 quantile (Abramowitz & Stegun Table 26.10).
        for (nu, t) in [
            (5, 2.5706),
            (10, 2.2281),
            (11, 2.2010),
            (19, 2.0930),
            (30, 2.0423),
            (39, 2.0227),
            (120, 1.9799),
        ] {
            assert!(
                (student_t975(nu) - t).abs() < 1e-4,
                "nu {nu}: {}",
                student_t975(nu)
            );
        }
    }

    #[test]
    fn batches_double_between_20_and_39() {
        assert_eq!(batch_size(19), None);
        assert_eq!(batch_size(20), Some(1));
        assert_eq!(batch_size(39), Some(1));
        assert_eq!(batch_size(40), Some(2));
        assert_eq!(batch_size(300), Some(8)); // 37 batches of 8
        assert!(at_batch_end(20) && at_batch_end(21) && !at_batch_end(41) && at_batch_end(42));
    }

    #[test]
    fn equal_windows_give_the_classical_interval() {
        // WA of windows 2, 3, 2, 3, …: 20 batches of 1, mean 2.5, sample sd √(20/19)·0.5,
        // half-width t₀.₉₇₅,₁₉ · sd / √20.
        let u = vec![100; 20];
        let g: Vec<u64> = (0..20)
            .map(|i| if i % 2 == 0 { 100 } else { 200 })
            .collect();
        let iv = interval(&series(&u, &g, 100), 64, Metric::Wa).unwrap();
        let sd = (20.0_f64 / 19.0).sqrt() * 0.5;
        assert!((iv.value - 2.5).abs() < 1e-12);
        assert!((iv.half_width - student_t975(19) * sd / 20.0_f64.sqrt()).abs() < 1e-12);
        // Alternating residuals: lag-1 autocorrelation −19/20.
        assert!((iv.lag1 + 0.95).abs() < 1e-12);
    }

    #[test]
    fn a_partial_last_window_is_left_out() {
        let mut u = vec![100; 20];
        u.push(7);
        let g = vec![50; 21];
        let iv = interval(&series(&u, &g, 100), 64, Metric::Wamp).unwrap();
        assert_eq!((iv.batches, iv.windows_per_batch), (20, 1));
        assert!((iv.value - 0.5).abs() < 1e-12 && iv.half_width.abs() < 1e-12);
    }

    #[test]
    fn precision_parses_and_prints_back() {
        for text in [
            "wa:rel=0.0003",
            "emptiness_at_clean:abs=0.0001",
            "wamp:rel=0.01",
            "gcu:abs=0.5",
        ] {
            let p: Precision = text.parse().unwrap();
            assert_eq!(p.to_string(), text);
        }
        for bad in [
            "wa",
            "wa:rel=0",
            "wa:rel=1.5",
            "waf:rel=0.1",
            "wa:tol=0.1",
            "wa:abs=-1",
            "wa:rel=nan",
        ] {
            let e = bad.parse::<Precision>().unwrap_err().to_string();
            assert!(
                e.contains("precision") && e.contains("METRIC:rel=X"),
                "{bad}: {e}"
            );
        }
    }
}
