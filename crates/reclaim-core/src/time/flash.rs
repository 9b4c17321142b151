//! The flash's clock: each die a timeline, each channel another (FEMU's per-unit timelines,
//! `hw/femu/bbssd/ftl.c` `ssd_advance_status`). An operation starts at the later of its issue
//! time and the time its die is busy until, and pushes that time on; a read's page then crosses
//! its channel, a program's page crosses it first (when `bus=on`). Relocation and erases take
//! the same timelines as the host's operations, so host requests wait behind them.

use super::spec::{DeviceSpec, Unit};

/// A flash operation the engine decided, in the order it decided them: the cleaner's reads of
/// a victim's valid pages, its erase, the relocated pages' programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A valid page at `off` of segment `seg` read for relocation.
    Read {
        /// Segment.
        seg: u32,
        /// Page offset in the segment.
        off: u32,
        /// The segment's region (its plane, with `unit=plane`).
        region: u16,
    },
    /// `n` relocated pages programmed from `off` of segment `seg`.
    Program {
        /// Segment.
        seg: u32,
        /// First page offset.
        off: u32,
        /// Pages.
        n: u32,
        /// The segment's region.
        region: u16,
    },
    /// Segment `seg` erased.
    Erase {
        /// Segment.
        seg: u32,
        /// The segment's region.
        region: u16,
    },
}

/// A channel's transfers booked ahead: disjoint stretches of time [ns], start → end. A transfer
/// takes the first free stretch long enough from the time its page is ready: a read's page
/// crosses when its tR ends, which may be long after a program issued later has crossed (as an
/// event-driven device such as `MQSim` lets it). One busy-until time per channel, as `FEMU` keeps,
/// would hold that program behind the read's transfer while both their dies sit idle.
///
/// Every transfer takes the same time `x`, so a free stretch shorter than `x` can never be used:
/// such stretches are booked with their neighbours, and every gap left is at least `x` long. A
/// transfer then fits right after the stretch it would overlap, and booking is a binary search
/// over the few stretches ahead.
#[derive(Clone, Debug, Default)]
struct Channel {
    /// (start, end) from `head` on: sorted, disjoint, gaps between them at least one transfer
    /// long; those before `head` have ended (a vector compacted now and then, so that a
    /// booking searches one contiguous slice).
    booked: Vec<(u64, u64)>,
    head: usize,
    /// `bus=fifo`: the time the channel is busy until.
    until: u64,
}

impl Channel {
    /// Books `x` ns from the earliest time ≥ `ready` the channel is free for that long; returns
    /// the start. Stretches that ended by `now` (the issue time) are forgotten.
    #[inline]
    fn book(&mut self, ready: u64, x: u64, now: u64) -> u64 {
        while self.head < self.booked.len() && self.booked[self.head].1 <= now {
            self.head += 1;
        }
        if self.head > 64 && self.head * 2 > self.booked.len() {
            self.booked.drain(..self.head);
            self.head = 0;
        }
        // Most transfers book at the end: after every stretch, or in the gap shorter than `x`
        // the last one leaves (merged with it).
        if self.head == self.booked.len() {
            self.booked.push((ready, ready + x));
            return ready;
        }
        let last = self.booked.last_mut().expect("a stretch ahead");
        if ready >= last.0 {
            let start = ready.max(last.1);
            if start < last.1 + x {
                last.1 = start + x;
            } else {
                self.booked.push((start, start + x));
            }
            return start;
        }
        self.book_within(ready, x)
    }

    /// [`Self::book`] before the last stretch.
    fn book_within(&mut self, ready: u64, x: u64) -> u64 {
        let head = self.head;
        let booked = &mut self.booked;
        // The first stretch that starts after `ready`, and the one before it; searched from
        // the end, where a transfer is most often ready.
        let next = after(booked, head, ready);
        // The stretch the transfer goes after is the one before `next`, or `next` itself.
        let (start, k) = match ((next > head).then(|| booked[next - 1]), booked.get(next)) {
            // Busy at `ready`: the gap after it (at least `x`, or the open end).
            (Some((_, end)), _) if end > ready => (end, next),
            // The next stretch begins too soon: the gap after it.
            (_, Some(&(from, end))) if from < ready + x => (end, next + 1),
            _ => (ready, next),
        };
        // Merged with a neighbour it leaves a gap shorter than `x` to.
        let pred = k > head && booked[k - 1].1 + x > start;
        let succ = k < booked.len() && booked[k].0 < start + 2 * x;
        match (pred, succ) {
            (true, true) => {
                booked[k - 1].1 = booked[k].1.max(start + x);
                booked.remove(k);
            }
            (true, false) => booked[k - 1].1 = booked[k - 1].1.max(start + x),
            (false, true) => booked[k].0 = start,
            (false, false) => booked.insert(k, (start, start + x)),
        }
        start
    }
}

/// The index in `b[h..]` of the first stretch that starts after `t` (`b.len()` if none),
/// searched back from the end.
#[inline]
fn after(b: &[(u64, u64)], h: usize, t: u64) -> usize {
    let mut i = b.len();
    while i > h && b[i - 1].0 > t {
        i -= 1;
    }
    i
}

/// The timelines.
pub struct Flash {
    unit: Unit,
    channels: u32,
    dies_per_channel: u32,
    tr: u64,
    tprog: u64,
    tbers: u64,
    xfer: u64,
    /// `bus=fifo`: one busy-until time per channel.
    fifo: bool,
    /// The die of each page offset of a segment (superblocks) or of each plane (`unit=plane`):
    /// [`Self::die_of`] looked up, not divided, once per flash operation.
    dies_of: Vec<u16>,
    /// Each die's channel.
    channel_of: Vec<u16>,
    /// Each die's busy-until time [ns].
    busy: Vec<u64>,
    /// Each die's time its host reads occupy it until [ns] (with suspension, reads go ahead of
    /// the programs and erases `busy` counts).
    reads_until: Vec<u64>,
    /// With suspension, what one costs [ns].
    suspend: Option<u64>,
    /// Each channel's transfers booked ahead.
    chan: Vec<Channel>,
    /// Each die's flash time so far [ns], and the cleaner's part of it.
    pub(crate) work: Vec<u64>,
    pub(crate) gc_work: Vec<u64>,
}

impl Flash {
    /// Idle timelines for `spec`.
    pub fn new(spec: &DeviceSpec) -> Self {
        let dies = spec.total_dies() as usize;
        let places = match spec.unit {
            Unit::Superblock => spec.segment_pages() as u32,
            Unit::Plane => spec.total_planes(),
        };
        let die_of = |off: u32| {
            let c = off % spec.channels;
            let d = (off / spec.channels) % spec.dies;
            (c * spec.dies + d) as u16
        };
        Flash {
            dies_of: (0..places).map(die_of).collect(),
            channel_of: (0..dies as u32).map(|d| (d / spec.dies) as u16).collect(),
            unit: spec.unit,
            channels: spec.channels,
            dies_per_channel: spec.dies,
            tr: spec.tr,
            tprog: spec.tprog,
            tbers: spec.tbers,
            xfer: spec.transfer_ns(),
            fifo: spec.bus == super::spec::Bus::Fifo,
            busy: vec![0; dies],
            reads_until: vec![0; dies],
            suspend: spec.suspend.then_some(spec.tsus),
            chan: vec![Channel::default(); spec.channels as usize],
            work: vec![0; dies],
            gc_work: vec![0; dies],
        }
    }

    /// Dies.
    pub fn dies(&self) -> usize {
        self.busy.len()
    }

    /// A transfer on channel `c` of a page ready at `ready`, issued at `t`: its start.
    #[inline]
    fn book(&mut self, c: usize, ready: u64, t: u64) -> u64 {
        let ch = &mut self.chan[c];
        if self.fifo {
            let start = ready.max(ch.until);
            ch.until = start + self.xfer;
            start
        } else {
            ch.book(ready, self.xfer, t)
        }
    }

    /// The die that holds page offset `off` of a superblock: channels first, then the dies of
    /// a channel, then planes and pages (FEMU's `ssd_advance_write_pointer` order).
    #[inline]
    pub fn die_of(&self, off: u32) -> usize {
        let c = off % self.channels;
        let d = (off / self.channels) % self.dies_per_channel;
        (c * self.dies_per_channel + d) as usize
    }

    /// The die that holds page offset `off` of a segment of region `region`: with superblocks
    /// its offset's ([`Self::die_of`]), with `unit=plane` its plane's, planes numbered as a
    /// superblock's pages (channel first).
    #[inline]
    pub fn die_in(&self, off: u32, region: u16) -> usize {
        let place = match self.unit {
            Unit::Superblock => off as usize,
            Unit::Plane => usize::from(region),
        };
        usize::from(self.dies_of[place])
    }

    /// The latest time any die is busy until [ns].
    pub fn all_idle_at(&self) -> u64 {
        self.busy.iter().copied().max().unwrap_or(0)
    }

    #[inline]
    fn account(&mut self, die: usize, t: u64, gc: bool) {
        self.work[die] += t;
        if gc {
            self.gc_work[die] += t;
        }
    }

    /// A page read on `die` issued at `t`: done when its data has crossed the channel [ns].
    #[inline]
    pub fn read(&mut self, t: u64, die: usize, gc: bool) -> u64 {
        let done = match self.suspend {
            // A host read on a die busy with programs or erases (beyond its reads) suspends
            // them: it runs after the reads ahead of it and the suspension, and the suspended
            // work ends later by both.
            Some(tsus) if !gc && self.busy[die] > t.max(self.reads_until[die]) => {
                let done = t.max(self.reads_until[die]) + tsus + self.tr;
                self.busy[die] += tsus + self.tr;
                self.reads_until[die] = done;
                done
            }
            _ => {
                let done = t.max(self.busy[die]) + self.tr;
                self.busy[die] = done;
                self.reads_until[die] = done;
                done
            }
        };
        self.account(die, self.tr, gc);
        if self.xfer == 0 {
            return done;
        }
        let c = usize::from(self.channel_of[die]);
        let end = self.book(c, done, t) + self.xfer;
        if !self.fifo {
            // The die holds the page in its register until it has crossed: busy until then,
            // counted busy for the transfer.
            self.busy[die] += end - done;
            self.reads_until[die] = self.reads_until[die].max(end);
            self.account(die, self.xfer, gc);
        }
        end
    }

    /// A page program on `die` issued at `t`: its data crosses the channel, then the die
    /// programs it; done at the program's end [ns]. With `bus=on` the data crosses when the die
    /// is free to take it (`MQSim` sends a program to an idle chip, which takes the data in,
    /// then programs), so the die is held from then on and counted busy for the transfer; with
    /// `bus=fifo` it crosses at its issue, whatever the die is doing (`FEMU`'s order).
    #[inline]
    pub fn program(&mut self, t: u64, die: usize, gc: bool) -> u64 {
        let mut at = t;
        if self.xfer != 0 {
            let c = usize::from(self.channel_of[die]);
            let ready = if self.fifo { t } else { t.max(self.busy[die]) };
            at = self.book(c, ready, t) + self.xfer;
            if !self.fifo {
                self.account(die, self.xfer, gc);
            }
        }
        let start = at.max(self.busy[die]);
        let done = start + self.tprog;
        self.busy[die] = done;
        self.account(die, self.tprog, gc);
        done
    }

    /// A segment's erase issued at `t` [ns]: a superblock's is one block erase on every die
    /// (its planes' blocks erased together, a multi-plane erase), a plane's block one on its
    /// die.
    pub fn erase(&mut self, t: u64, region: u16, gc: bool) -> u64 {
        let dies = match self.unit {
            Unit::Superblock => 0..self.busy.len(),
            Unit::Plane => {
                let d = self.die_of(u32::from(region));
                d..d + 1
            }
        };
        let mut last = t;
        for die in dies {
            let done = t.max(self.busy[die]) + self.tbers;
            self.busy[die] = done;
            self.account(die, self.tbers, gc);
            last = last.max(done);
        }
        last
    }

    /// Carries out the cleaner's operations `ops`, all issued at `t`.
    pub fn clean(&mut self, t: u64, ops: &[Op]) {
        for &op in ops {
            match op {
                Op::Read { off, region, .. } => {
                    self.read(t, self.die_in(off, region), true);
                }
                Op::Program { off, n, region, .. } => {
                    for o in off..off + n {
                        self.program(t, self.die_in(o, region), true);
                    }
                }
                Op::Erase { region, .. } => {
                    self.erase(t, region, true);
                }
            }
        }
    }

    /// Forgets the flash time counted so far (the measured phase starts).
    pub fn reset_work(&mut self) {
        self.work.iter_mut().for_each(|w| *w = 0);
        self.gc_work.iter_mut().for_each(|w| *w = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flash(spec: &str) -> Flash {
        Flash::new(&spec.parse::<DeviceSpec>().unwrap())
    }

    proptest::proptest! {
        /// A channel books each transfer at the earliest time from its page's readiness at
        /// which it overlaps no transfer booked before (checked against every booking kept in
        /// full), whatever the order the transfers come in.
        #[test]
        fn a_channel_books_the_earliest_free_stretch(readies in proptest::collection::vec(0u64..2_000, 1..200)) {
            let x = 25;
            let mut channel = Channel::default();
            let mut all: Vec<(u64, u64)> = Vec::new();
            for ready in readies {
                // Every booking ends by 200 × 25 past the latest readiness: the search ends.
                let earliest = (ready..ready + 10_000)
                    .find(|&t| all.iter().all(|&(from, end)| t + x <= from || t >= end))
                    .unwrap();
                let got = channel.book(ready, x, 0);
                proptest::prop_assert_eq!(got, earliest);
                all.push((got, got + x));
            }
        }
    }

    #[test]
    fn pages_stripe_over_channels_then_dies() {
        let f = flash("femu:channels=2,dies=3");
        let dies: Vec<usize> = (0..7).map(|o| f.die_of(o)).collect();
        // Offsets 0,1 on channel 0 and 1 (die 0 of each), 2,3 on die 1 of each, ...
        assert_eq!(dies, vec![0, 3, 1, 4, 2, 5, 0]);
    }

    #[test]
    fn operations_queue_on_their_die_and_channel() {
        let mut one = flash("femu:channels=1,dies=2");
        // Two reads on die 0 at t = 0: the second waits for the first (40 µs each).
        assert_eq!(one.read(0, 0, false), 40_000);
        assert_eq!(one.read(0, 0, false), 80_000);
        // Die 1 is free.
        assert_eq!(one.read(10, 1, false), 40_010);
        // An erase waits on every die, then a program behind it.
        assert_eq!(one.erase(0, 0, true), 2_080_000);
        assert_eq!(one.program(0, 1, false), 2_040_010 + 200_000);
        assert_eq!(one.gc_work, vec![2_000_000, 2_000_000]);
        // With suspension, a host read goes ahead of the erase on die 0 (busy until 2.08 ms):
        // done at 100 µs + 40 µs; the erase and what follows end 140 µs later.
        let mut sus = flash("femu:channels=1,dies=2,suspend=on");
        sus.erase(0, 0, true);
        assert_eq!(sus.read(0, 0, false), 140_000);
        assert_eq!(sus.read(0, 0, false), 280_000);
        assert_eq!(sus.program(0, 0, false), 2_280_000 + 200_000);
        // A program issued after a read whose page is not ready yet crosses the channel first.
        let mut late = flash("mqsim:channels=1,dies=2,planes=1,unit=plane");
        let x = 24_601;
        late.erase(0, 0, true); // plane 0's die, die 0, busy until 3.8 ms
        assert_eq!(late.read(0, 0, false), 3_800_000 + 75_000 + x);
        assert_eq!(late.program(0, 1, false), x + 750_000);
        // bus=fifo (FEMU's): the program's transfer waits behind the read's, booked first.
        let mut femu = flash("mqsim:channels=1,dies=2,planes=1,unit=plane,bus=fifo");
        femu.erase(0, 0, true);
        assert_eq!(femu.read(0, 0, false), 3_875_000 + x);
        assert_eq!(femu.program(0, 1, false), 3_875_000 + 2 * x + 750_000);
        // With the bus on, a read's page crosses the channel after tR, one page at a time.
        let mut bus = flash("mqsim:channels=1,dies=2");
        let x = 24_601;
        assert_eq!(bus.read(0, 0, false), 75_000 + x);
        assert_eq!(bus.read(0, 1, false), 75_000 + 2 * x);
    }
}
