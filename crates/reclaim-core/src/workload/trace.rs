//! Trace replay: the page writes of a converted trace, in order, pass after pass.
//!
//! With access-count thresholds (`trace_classes`), each page's class is computed once from the
//! whole trace, as Li et al. §6.2 group pages by how often the trace writes them: with thresholds
//! t₁ > t₂ > …, class 0 holds the pages written at least t₁ times, class 1 those written at least
//! t₂ times and fewer than t₁, …, the last written class those written at least once, and one
//! more class the pages the trace never writes.
//!
//! A trace with times keeps the time of each write's request on a clock of its own
//! ([`TraceClock`], read as [`Clocks::trace_time`](crate::clocks::Clocks::trace_time)). A looped
//! trace's clock runs on: pass k's requests are at their times plus k periods, a period being the
//! trace's span plus its mean gap between requests (so that the first request of a pass follows
//! the last of the one before as requests follow each other).
//!
//! A trace's read requests (kept by conversion from layout 3 on) are replayed by a
//! [`ReadSchedule`]: in trace order among the page writes, pass after pass, on the same clock.

use std::sync::Arc;

use super::WorkloadSpec;
use super::{ClassShare, Write, NO_CLASS};
use crate::spec::{Entry, Family, Info, Param};
use crate::trace::convert::{Reads, Trace};

/// Replays a trace's page ids cyclically.
#[derive(Clone, Debug)]
pub struct Replay {
    pages: Arc<Vec<u32>>,
    pos: usize,
    /// Class per logical page; empty without thresholds.
    class: Vec<u16>,
    /// Pages and writes per class.
    shares: Vec<ClassShare>,
}

/// Where a trace's clock goes backwards: how many requests are earlier than one before them, the
/// first of them (its index among the requests) and the largest step back [s].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepsBack {
    /// Requests earlier than the latest before them.
    pub count: u64,
    /// Index of the first such request.
    pub first: u64,
    /// Largest step back [s].
    pub largest: f64,
}

impl StepsBack {
    /// The steps back of request times `seconds`.
    pub fn of(seconds: &[f64]) -> Self {
        let mut out = StepsBack::default();
        let mut latest = f64::NEG_INFINITY;
        for (i, &s) in seconds.iter().enumerate() {
            if s < latest {
                if out.count == 0 {
                    out.first = i as u64;
                }
                out.count += 1;
                out.largest = out.largest.max(latest - s);
            } else {
                latest = s;
            }
        }
        out
    }
}

/// The time of each write of a trace: its request's, pass after pass, ticked once per page write
/// in replay order.
#[derive(Clone, Debug)]
pub struct TraceClock {
    /// Page writes of each request (none empty).
    requests: Arc<Vec<u32>>,
    /// Time of each request [µs since the first].
    times: Arc<Vec<u64>>,
    /// Time added per pass [µs]: the span plus the mean gap.
    period: u64,
    /// The current request, its page writes still to issue, and the time added in this pass.
    at: usize,
    left: u32,
    offset: u64,
}

impl TraceClock {
    /// The clock of requests of `requests` page writes at `seconds` since the trace's first;
    /// `None` without times, or when the two do not describe the same `writes` page writes.
    pub fn new(requests: &[u32], seconds: &[f64], writes: u64) -> Option<Self> {
        let total: u64 = requests.iter().map(|&n| u64::from(n)).sum();
        if seconds.is_empty() || seconds.len() != requests.len() || total != writes {
            return None;
        }
        let (requests, times): (Vec<u32>, Vec<u64>) = requests
            .iter()
            .zip(seconds)
            .filter(|(&n, _)| n > 0)
            .map(|(&n, &s)| (n, (s.max(0.0) * 1e6).round() as u64))
            .unzip();
        // A clock that goes backwards (requests logged out of order, a clock reset) would give a
        // time-based scheme a negative age: each time is held at the latest before it, and the
        // run warns ([`StepsBack`]).
        let times: Vec<u64> = times
            .iter()
            .scan(0u64, |latest, &t| {
                *latest = (*latest).max(t);
                Some(*latest)
            })
            .collect();
        let (&first, &last) = (times.first()?, times.last()?);
        let span = last.saturating_sub(first);
        let gap = if times.len() > 1 {
            (span / (times.len() as u64 - 1)).max(1)
        } else {
            1
        };
        Some(TraceClock {
            left: requests[0],
            requests: Arc::new(requests),
            times: Arc::new(times),
            period: span + gap,
            at: 0,
            offset: 0,
        })
    }

    /// The clock of a workload without times: every write a request of one page, one µs after
    /// the one before (the first at 0).
    pub fn per_write() -> Self {
        TraceClock::new(&[1], &[0.0], 1).expect("one request of one page")
    }

    /// The page writes of the request the next page write begins, if it begins one.
    #[inline]
    pub fn starts(&self) -> Option<u32> {
        let n = self.requests[self.at];
        (self.left == n).then_some(n)
    }

    /// The time of the next page write [µs], the clock moved past it.
    #[inline]
    pub fn tick(&mut self) -> u64 {
        let t = self.times[self.at] + self.offset;
        self.left -= 1;
        if self.left == 0 {
            self.at += 1;
            if self.at == self.requests.len() {
                self.at = 0;
                self.offset += self.period;
            }
            self.left = self.requests[self.at];
        }
        t
    }
}

/// One read request of a trace, as [`ReadSchedule::due`] gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadRequest {
    /// Its time [µs since the trace's first request], pass offsets added as [`TraceClock`]
    /// adds them, never earlier than the read before it; `None` when the trace has no times.
    pub time_us: Option<u64>,
    /// Pages it reads (those without id included), ≥ 1.
    pub pages: u32,
    /// Its runs in the schedule's reads ([`ReadSchedule::pages`]).
    runs: (usize, u32),
}

/// A trace's read requests in replay order: before each page write, the reads the trace issued
/// before it, pass after pass (as [`Replay`] loops over the writes). It holds a copy of the
/// reads (about 24 bytes a request); the trace may be dropped once it is made.
///
/// ```
/// # use reclaim_core::trace::convert::{page_list_trace, Reads};
/// # use reclaim_core::workload::trace::ReadSchedule;
/// // Two page writes; a read of page 1 after the first, one of page 7 (never written) after both.
/// let mut trace = page_list_trace(vec![0, 1], "example");
/// trace.reads.push(1, None, None, [Some(1)]);
/// trace.reads.push(2, None, None, [None]);
/// let mut s = ReadSchedule::new(&trace).unwrap();
/// assert!(s.due(0).is_none()); // nothing before the first write
/// let r = s.due(1).unwrap();
/// assert_eq!(s.pages(&r).collect::<Vec<_>>(), [Some(1)]);
/// assert!(s.due(1).is_none());
/// // After the second write: the last read of pass 0; pass 1 has none before its first write.
/// let r = s.due(2).unwrap();
/// assert_eq!(s.pages(&r).collect::<Vec<_>>(), [None]);
/// assert!(s.due(2).is_none());
/// assert!(s.due(3).is_some()); // pass 1's read after its first write
/// ```
#[derive(Clone, Debug)]
pub struct ReadSchedule {
    reads: Reads,
    /// Page writes of one pass (≥ 1).
    writes: u64,
    /// Time added per pass [µs] (that of the writes' [`TraceClock`] when the writes have times).
    period: u64,
    /// The next read, its first run, its pass, and the latest time given.
    next: usize,
    run: usize,
    pass: u64,
    latest: u64,
}

impl ReadSchedule {
    /// The schedule of `trace`'s reads; `None` when it keeps none (a trace converted before
    /// layout 3, a format without reads) or has no page write to replay them among.
    pub fn new(trace: &Trace) -> Option<Self> {
        let writes = trace.pages.len() as u64;
        if trace.reads.is_empty() || writes == 0 {
            return None;
        }
        let reads = trace.reads.clone();
        // Reads with times among writes without: the reads' own span and mean gap.
        let period = TraceClock::new(&trace.request_pages, &trace.times, writes).map_or_else(
            || {
                let us: Vec<u64> = reads.times.iter().map(|&s| micros(s)).collect();
                let span = us.iter().max().unwrap_or(&0) - us.iter().min().unwrap_or(&0);
                span + (span / (us.len().max(2) as u64 - 1)).max(1)
            },
            |clock| clock.period,
        );
        Some(ReadSchedule {
            reads,
            writes,
            period,
            next: 0,
            run: 0,
            pass: 0,
            latest: 0,
        })
    }

    /// Read requests of one pass.
    pub fn len(&self) -> usize {
        self.reads.len()
    }

    /// Whether a pass has none (never: [`ReadSchedule::new`] makes no empty schedule).
    pub fn is_empty(&self) -> bool {
        self.reads.is_empty()
    }

    /// The next read request if it comes before the page write that follows
    /// `page_writes_issued` page writes (counted from the replay's start, over all passes);
    /// `None` when the next read comes after that write. Call it until `None` before each write
    /// (and after the last): each read is given once, in trace order.
    pub fn due(&mut self, page_writes_issued: u64) -> Option<ReadRequest> {
        let k = self.next;
        let at = self.pass * self.writes + self.reads.at[k];
        if at > page_writes_issued {
            return None;
        }
        let runs = self.reads.runs_of(k);
        let first_run = self.run;
        let pages = (first_run..first_run + runs)
            .map(|r| self.reads.pages[r])
            .sum();
        let time_us = self.reads.times.get(k).map(|&s| {
            self.latest = self.latest.max(micros(s) + self.pass * self.period);
            self.latest
        });
        self.run += runs;
        self.next += 1;
        if self.next == self.reads.len() {
            (self.next, self.run, self.pass) = (0, 0, self.pass + 1);
        }
        Some(ReadRequest {
            time_us,
            pages,
            runs: (first_run, runs as u32),
        })
    }

    /// Passes over the reads [`ReadSchedule::due`] would give for `page_writes_issued`, as
    /// calling it until `None` would, without visiting each: whole passes are stepped over (an
    /// unmeasured prefix of many passes costs one search). Never goes back.
    pub fn skip(&mut self, page_writes_issued: u64) {
        let pass = page_writes_issued / self.writes;
        let within = page_writes_issued % self.writes;
        // Every read of the passes before is due (a read is at most `writes` into its pass); of
        // this pass, those at most `within` page writes in.
        let mut k = self.reads.at.partition_point(|&a| a <= within);
        let mut pass_to = pass;
        if k == self.reads.len() {
            (k, pass_to) = (0, pass + 1);
        }
        if (pass_to, k) <= (self.pass, self.next) {
            return;
        }
        // The time the last read passed over would have given, held as `due` holds it.
        let last = if k > 0 {
            Some((k - 1, pass_to))
        } else {
            pass_to.checked_sub(1).map(|p| (self.reads.len() - 1, p))
        };
        if let (Some((j, p)), false) = (last, self.reads.times.is_empty()) {
            let held = |times: &[f64]| times.iter().map(|&s| micros(s)).max().unwrap_or(0);
            self.latest = self
                .latest
                .max(held(&self.reads.times[..=j]) + p * self.period);
            if p > 0 {
                // The pass before, whole.
                self.latest = self
                    .latest
                    .max(held(&self.reads.times) + (p - 1) * self.period);
            }
        }
        self.run = if self.reads.runs.is_empty() {
            k
        } else {
            self.reads.runs[..k].iter().map(|&n| n as usize).sum()
        };
        (self.next, self.pass) = (k, pass_to);
    }

    /// The pages `request` reads, in order: each page's id, `None` for a page without id in
    /// the trace ([`Reads::UNWRITTEN`]: past its volume's range, or never written when renamed).
    pub fn pages(&self, request: &ReadRequest) -> impl Iterator<Item = Option<u32>> + '_ {
        let (first, runs) = request.runs;
        (first..first + runs as usize).flat_map(|r| {
            let (f, n) = (self.reads.first[r], self.reads.pages[r]);
            (0..n).map(move |i| (f != Reads::UNWRITTEN).then(|| f + i))
        })
    }
}

/// Seconds as whole µs, negative ones as 0.
fn micros(seconds: f64) -> u64 {
    (seconds.max(0.0) * 1e6).round() as u64
}

impl Replay {
    /// The page writes of one pass, in order.
    pub fn pages(&self) -> &[u32] {
        &self.pages
    }

    /// Replays `pages` from the start over `logical_pages` pages, classed by `thresholds`.
    pub fn new(pages: Arc<Vec<u32>>, logical_pages: u64, thresholds: Option<&[u64]>) -> Self {
        let mut class = Vec::new();
        let mut shares = vec![ClassShare {
            pages: logical_pages,
            write_share: 1.0,
        }];
        if let Some(t) = thresholds {
            let mut counts = vec![0u64; logical_pages as usize];
            for &p in pages.iter() {
                counts[p as usize] += 1;
            }
            let unwritten = t.len() + 1;
            let mut writes = vec![0u64; t.len() + 2];
            let mut sizes = vec![0u64; t.len() + 2];
            class = counts
                .iter()
                .map(|&n| {
                    let c = if n == 0 {
                        unwritten
                    } else {
                        t.iter().position(|&x| n >= x).unwrap_or(t.len())
                    };
                    writes[c] += n;
                    sizes[c] += 1;
                    c as u16
                })
                .collect();
            let total = pages.len() as f64;
            shares = sizes
                .iter()
                .zip(&writes)
                .map(|(&s, &w)| ClassShare {
                    pages: s,
                    write_share: w as f64 / total,
                })
                .collect();
        }
        Replay {
            pages,
            pos: 0,
            class,
            shares,
        }
    }

    /// The next write (the trace starts again after its last write).
    #[inline]
    pub fn next_write(&mut self) -> Write {
        let page = self.pages[self.pos];
        self.pos += 1;
        if self.pos == self.pages.len() {
            self.pos = 0;
        }
        Write::new(page, self.class_of(page))
    }

    /// The page's class.
    #[inline]
    pub fn class_of(&self, page: u32) -> u16 {
        if self.class.is_empty() {
            NO_CLASS
        } else {
            self.class[page as usize]
        }
    }

    /// Pages and write share per class.
    pub fn class_shares(&self, _logical_pages: u64) -> Vec<ClassShare> {
        self.shares.clone()
    }
}

/// `trace:PATH` (parsed before the shared grammar: the path may hold `:` and `,`).
pub const ENTRY: Entry<WorkloadSpec> = Entry {
    info: Info {
        family: Family::Workload,
        name: "trace",
        aliases: &[],
        summary: "Replay a converted trace (`reclaim trace convert`) or a page-id list.",
        source: "Li et al. §6.1; Stockmeyer §2.1",
        params: &[Param {
            key: "",
            values: "PATH",
            unit: "",
            range: "the path of a converted trace or a page-id list",
            default: None,
            help: "The trace file; the rest of the spec, which may hold `:` and `,`.",
        }],
        needs: &[],
    },
    parse: |a| Err(a.bad("`trace:PATH` with the path of a converted trace or a page-id list")),
};

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(clock: &mut TraceClock, n: usize) -> Vec<u64> {
        (0..n).map(|_| clock.tick()).collect()
    }

    #[test]
    fn a_clock_that_goes_backwards_is_held_at_its_latest_time() {
        // Requests at 0, 3, 1, 2, 5 s: two steps back (1 and 2 after 3), the first at index 2,
        // the largest 2 s; the clock then reads 0, 3, 3, 3, 5 s, never a negative age.
        let seconds = [0.0, 3.0, 1.0, 2.0, 5.0];
        let back = StepsBack::of(&seconds);
        assert_eq!((back.count, back.first), (2, 2));
        assert!((back.largest - 2.0).abs() < 1e-12);
        let mut clock = TraceClock::new(&[1; 5], &seconds, 5).unwrap();
        assert_eq!(
            ticks(&mut clock, 5),
            [0, 3_000_000, 3_000_000, 3_000_000, 5_000_000]
        );
        assert_eq!(StepsBack::of(&[0.0, 1.0, 1.0]), StepsBack::default());
    }

    #[test]
    fn each_write_takes_its_requests_time_and_passes_continue_the_clock() {
        // Requests of 2, 1 and 3 pages at 0, 0.5 and 1 s: span 1 s, mean gap 0.5 s, period 1.5 s.
        let mut c = TraceClock::new(&[2, 1, 3], &[0.0, 0.5, 1.0], 6).unwrap();
        let pass = [0, 0, 500_000, 1_000_000, 1_000_000, 1_000_000];
        let mut want: Vec<u64> = pass.to_vec();
        want.extend(pass.iter().map(|t| t + 1_500_000));
        assert_eq!(ticks(&mut c, 12), want);
    }

    #[test]
    fn no_clock_without_times_or_with_requests_that_do_not_add_up() {
        assert!(TraceClock::new(&[3], &[], 3).is_none());
        assert!(TraceClock::new(&[2], &[0.0], 3).is_none());
        assert!(TraceClock::new(&[2, 1], &[0.0], 3).is_none());
    }

    /// The reads `due` gives after `issued` page writes: (time [µs], pages by id).
    fn due_after(s: &mut ReadSchedule, issued: u64) -> Vec<(Option<u64>, Vec<Option<u32>>)> {
        let mut out = Vec::new();
        while let Some(r) = s.due(issued) {
            let pages: Vec<Option<u32>> = s.pages(&r).collect();
            assert_eq!(pages.len(), r.pages as usize);
            out.push((r.time_us, pages));
        }
        out
    }

    #[test]
    fn reads_come_in_trace_order_among_the_writes_pass_after_pass() {
        // The trace of `convert::tests::MSR` (ids kept): 4 page writes in requests at 0, 2 and
        // 5 s; reads after 2, 3, 3, 4 and 4 page writes at 1, 3, 4, 6 and 7 s.
        let t = crate::trace::convert::tests::msr(false);
        let mut s = ReadSchedule::new(&t).unwrap();
        assert_eq!(s.len(), 5);
        assert!(due_after(&mut s, 0).is_empty());
        assert!(due_after(&mut s, 1).is_empty());
        assert_eq!(
            due_after(&mut s, 2),
            [(Some(1_000_000), vec![Some(1), Some(2)])]
        );
        assert_eq!(
            due_after(&mut s, 3),
            [
                (Some(3_000_000), vec![Some(5)]),
                (Some(4_000_000), vec![Some(4)])
            ]
        );
        // Pages past their volume's range have no id.
        assert_eq!(
            due_after(&mut s, 4),
            [
                (Some(6_000_000), vec![None, None]),
                (Some(7_000_000), vec![Some(3), Some(4), None])
            ]
        );
        // Pass 1: the writes' clock adds its period, span 5 s + mean gap 2.5 s = 7.5 s, so the
        // first read (after 4 + 2 page writes) is at 1 + 7.5 s.
        assert!(due_after(&mut s, 5).is_empty());
        assert_eq!(
            due_after(&mut s, 6),
            [(Some(8_500_000), vec![Some(1), Some(2)])]
        );
        // Pass 2's reads after 8 + 4 writes, the three passes' reads left all given at once.
        assert_eq!(due_after(&mut s, 12).len(), 4 + 5);
        assert_eq!(due_after(&mut s, 12), []);
    }

    #[test]
    fn skipping_leaves_the_schedule_where_due_would() {
        // Skipping to each count of page writes over three passes (4 writes each) leaves the
        // schedule giving what one that called `due` until `None` gives next.
        // Also with read times that go backwards (held at the latest before).
        for (rename, backwards) in [(false, false), (true, false), (false, true)] {
            let mut t = crate::trace::convert::tests::msr(rename);
            if backwards {
                // A read at 15 s, later than pass 1's first (at 5 + 7.5 s): held over the pass.
                t.reads.times = vec![5.0, 0.5, 4.0, 15.0, 3.0];
            }
            for issued in 0..12 {
                let mut walked = ReadSchedule::new(&t).unwrap();
                while walked.due(issued).is_some() {}
                let mut skipped = ReadSchedule::new(&t).unwrap();
                skipped.skip(issued);
                assert_eq!(
                    due_after(&mut skipped, 20),
                    due_after(&mut walked, 20),
                    "{issued}"
                );
            }
        }
        // Never back: a skip to an earlier count changes nothing.
        let t = crate::trace::convert::tests::msr(false);
        let mut s = ReadSchedule::new(&t).unwrap();
        s.skip(5);
        s.skip(2);
        // Pass 1's first read, after 4 + 2 page writes, at 1 + 7.5 s.
        assert_eq!(s.due(6).unwrap().time_us, Some(8_500_000));
    }

    #[test]
    fn a_read_clock_that_goes_backwards_is_held_and_no_times_give_none() {
        let mut t = crate::trace::convert::tests::msr(false);
        t.reads.times = vec![1.0, 0.5, 4.0, 6.0, 7.0];
        let mut s = ReadSchedule::new(&t).unwrap();
        let times: Vec<Option<u64>> = std::iter::from_fn(|| s.due(4)).map(|r| r.time_us).collect();
        assert_eq!(
            times,
            [1_000_000, 1_000_000, 4_000_000, 6_000_000, 7_000_000].map(Some)
        );
        t.reads.times.clear();
        let mut s = ReadSchedule::new(&t).unwrap();
        assert_eq!(s.due(2).unwrap().time_us, None);
        // A trace without reads kept has no schedule.
        t.reads = Reads::default();
        assert!(ReadSchedule::new(&t).is_none());
    }

    #[test]
    fn requests_of_no_page_are_passed_over() {
        // Requests at 0 and 2 s (the empty one dropped): period 2 s + 2 s.
        let mut c = TraceClock::new(&[1, 0, 1], &[0.0, 0.25, 2.0], 2).unwrap();
        assert_eq!(ticks(&mut c, 4), [0, 2_000_000, 4_000_000, 6_000_000]);
    }
}
