//! Desnoyer's closed form for the write amplification of a log cleaned greedily under a
//! hot/cold split of its pages, as `MiDAS`'s model evaluates it for MCAM's last group
//! ([`crate::placement::midas_model`]): the simulator's `None_FIFO_predict` (`sungkyun123/MiDAS-Simulation`,
//! `model.cpp`), its stepped root search kept point for point and evaluated only near the root.

// The simulator's names (r, f, w, op).
#![allow(clippy::many_single_char_names, clippy::similar_names)]

/// Desnoyer's WAF of a log cleaned greedily under a hot/cold split of its pages: the root
/// w of 1 + r/(e^{r·op/(f·w)} − 1) + (1−r)/(e^{(1−r)·op/((1−f)·w)} − 1) = w, for over-
/// provisioning `op` (physical over valid pages), a share `r` of the writes to a share `f` of
/// the pages; 0 for op ≤ 1. The simulator's `None_FIFO_predict`, which finds the root by
/// steps of 1, 0.1, 0.01 and 0.001 from below (kept: it sets the model's resolution).
///
/// Each step's loop `while g(w) > 0 { w += step }` ends at the first of its points w₀,
/// w₀ + step, … (added up one step at a time, as the simulator's) where g(w) > 0 fails. The
/// left side less w decreases strictly in w (its slope is at most 1/op − 1 < 0, as
/// (x/2 / sinh(x/2))² ≤ 1), so that point is found by evaluating g near where the root lies,
/// interpolated from the last step's two points around it, and walking from there: the same
/// point at the same w, in some 2 evaluations a step instead of about 10 (GCS calls this
/// twice for every size it tries), as long as g's signs at the points are monotone as
/// computed too: so when adjacent points, whose g differ by at least 0.001 · (1 − 1/op),
/// differ by more than 8 times a bound on g's rounding up to the root found
/// (`rounding_bound`). Otherwise (op within about 10⁻⁴ of 1, where the root is in the
/// thousands, or r or f at 0 or 1) every point is evaluated in turn, as the simulator's loop.
pub fn desnoyer_waf(op: f64, r: f64, f: f64) -> f64 {
    desnoyer_near(op, r, f, f64::NEG_INFINITY)
}

/// [`desnoyer_waf`], its first step's evaluations begun near `hint` (a root found for inputs
/// close to these; −∞ for none): the same result for any hint, the points being the loop's.
pub(crate) fn desnoyer_near(op: f64, r: f64, f: f64, hint: f64) -> f64 {
    if op <= 1.0 {
        return 0.0;
    }
    let g = |w: f64| {
        1.0 + r / ((r * op / (f * w)).exp() - 1.0)
            + (1.0 - r) / (((1.0 - r) * op / ((1.0 - f) * w)).exp() - 1.0)
            - w
    };
    let gap = 0.001 * (1.0 - 1.0 / op);
    let monotone = |w: f64| 8.0 * rounding_bound(op, r, f, w + 1.0) < gap;
    let stepped = |interpolate: bool| {
        let mut w = 1.0;
        // Where the root is thought to lie (−∞: walk from the step's first point).
        let mut guess = if interpolate { hint } else { f64::NEG_INFINITY };
        for (step, back) in [(1.0, 2.0), (0.1, 0.2), (0.01, 0.02), (0.001, 0.001)] {
            let (end, root) = first_not_above(&g, w, step, guess);
            w = end - back;
            if interpolate {
                guess = root;
            }
        }
        w
    };
    // A hint whose rounding is already too large says where the root is: no fast attempt.
    if r > 0.0 && r < 1.0 && f > 0.0 && f < 1.0 && (hint < 1.0 || monotone(hint)) {
        let w = stepped(true);
        if monotone(w) {
            return w;
        }
    }
    stepped(false)
}

/// A bound on the rounding of g(w) (Desnoyer's left side less w) as computed, for every
/// w' ≤ `w`: each term r / (eˣ − 1) is off by its size times ε (eˣ/(eˣ − 1) + 8 + x) (the
/// subtraction from 1 loses ε eˣ of a small eˣ − 1; the quotients and products a few ε), the
/// sum a few ε of its terms' sizes; both grow with w.
fn rounding_bound(op: f64, r: f64, f: f64, w: f64) -> f64 {
    let eps = f64::EPSILON;
    let term = |share: f64, part: f64| {
        let x = share * op / (part * w);
        let size = share / x.exp_m1();
        (size, size * eps * (x.exp() / x.exp_m1() + 8.0 + x))
    };
    let ((a, da), (b, db)) = (term(r, f), term(1.0 - r, 1.0 - f));
    da + db + 8.0 * eps * (1.0 + a + b + w)
}

/// Points of a step's loop kept for walking down (beyond, they are added up again).
const KEPT: usize = 64;

/// Steps added up toward a guess at most (beyond, the loop's own evaluations are taken).
const AHEAD: usize = 1 << 24;

/// For a decreasing `g`: the loop `t = 1; while t > 0 { t = g(w); w += step }` from `w0`,
/// evaluated near `guess`: the w the loop ends with, and the root interpolated between the
/// loop's last two points (`guess` again where they do not bracket it). The points are added
/// up from `w0` one step at a time, as the loop adds them, without evaluating g up to the last
/// one below the guess (a root near 1 / (op − 1) is hundreds of steps of 1 from w = 1).
fn first_not_above(g: &impl Fn(f64) -> f64, w0: f64, step: f64, guess: f64) -> (f64, f64) {
    // The last `KEPT` points added, point k at k % KEPT.
    let mut kept = [0.0; KEPT];
    kept[0] = w0;
    let (mut i, mut w) = (0, w0);
    while i < AHEAD && w + step < guess {
        w += step;
        i += 1;
        kept[i % KEPT] = w;
    }
    let top = i;
    let point = |k: usize| {
        if top - k < KEPT {
            kept[k % KEPT]
        } else {
            (0..k).fold(w0, |w, _| w + step)
        }
    };
    let mut t = g(w);
    if t > 0.0 {
        // Up, one step at a time, as the loop.
        let (mut prev, mut prev_t) = (w, t);
        loop {
            w += step;
            t = g(w);
            // Not `t <= 0.0`: a NaN ends the loop, as the simulator's `while (t > 0)`.
            if t > 0.0 {
                (prev, prev_t) = (w, t);
            } else {
                return (w + step, root_between(prev, prev_t, w, t, guess));
            }
        }
    }
    // Down while the point below is not above 0 either.
    while i > 0 {
        let lower = point(i - 1);
        let below = g(lower);
        if below > 0.0 {
            return (w + step, root_between(lower, below, w, t, guess));
        }
        i -= 1;
        (w, t) = (lower, below);
    }
    (w + step, guess)
}

/// The root of the line through (a, ga > 0) and (b, gb ≤ 0); `fallback` where that is not
/// a number.
fn root_between(a: f64, ga: f64, b: f64, gb: f64, fallback: f64) -> f64 {
    let x = a + (b - a) * ga / (ga - gb);
    if x.is_finite() {
        x
    } else {
        fallback
    }
}
