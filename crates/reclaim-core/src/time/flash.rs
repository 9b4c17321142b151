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

/// The timelines.
pub struct Flash {
    unit: Unit,
    channels: u32,
    dies_per_channel: u32,
    tr: u64,
    tprog: u64,
    tbers: u64,
    xfer: u64,
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
    /// Each channel's busy-until time [ns].
    chan: Vec<u64>,
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
            busy: vec![0; dies],
            reads_until: vec![0; dies],
            suspend: spec.suspend.then_some(spec.tsus),
            chan: vec![0; spec.channels as usize],
            work: vec![0; dies],
            gc_work: vec![0; dies],
        }
    }

    /// Dies.
    pub fn dies(&self) -> usize {
        self.busy.len()
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
        let end = done.max(self.chan[c]) + self.xfer;
        self.chan[c] = end;
        end
    }

    /// A page program on `die` issued at `t`: its data crosses the channel, then the die
    /// programs it; done at the program's end [ns].
    #[inline]
    pub fn program(&mut self, t: u64, die: usize, gc: bool) -> u64 {
        let mut at = t;
        if self.xfer != 0 {
            let c = usize::from(self.channel_of[die]);
            at = t.max(self.chan[c]) + self.xfer;
            self.chan[c] = at;
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

    #[test]
    fn pages_stripe_over_channels_then_dies() {
        let f = flash("femu:channels=2,dies=3");
        let dies: Vec<usize> = (0..7).map(|o| f.die_of(o)).collect();
        // Offsets 0,1 on channel 0 and 1 (die 0 of each), 2,3 on die 1 of each, ...
        assert_eq!(dies, vec![0, 3, 1, 4, 2, 5, 0]);
    }

    #[test]
    fn operations_queue_on_their_die_and_channel() {
        let mut f = flash("femu:channels=1,dies=2");
        // Two reads on die 0 at t = 0: the second waits for the first (40 µs each).
        assert_eq!(f.read(0, 0, false), 40_000);
        assert_eq!(f.read(0, 0, false), 80_000);
        // Die 1 is free.
        assert_eq!(f.read(10, 1, false), 40_010);
        // An erase waits on every die, then a program behind it.
        assert_eq!(f.erase(0, 0, true), 2_080_000);
        assert_eq!(f.program(0, 1, false), 2_040_010 + 200_000);
        assert_eq!(f.gc_work, vec![2_000_000, 2_000_000]);
        // With suspension, a host read goes ahead of the erase on die 0 (busy until 2.08 ms):
        // done at 100 µs + 40 µs; the erase and what follows end 140 µs later.
        let mut s = flash("femu:channels=1,dies=2,suspend=on");
        s.erase(0, 0, true);
        assert_eq!(s.read(0, 0, false), 140_000);
        assert_eq!(s.read(0, 0, false), 280_000);
        assert_eq!(s.program(0, 0, false), 2_280_000 + 200_000);
        // With the bus on, a read's page crosses the channel after tR, one page at a time.
        let mut b = flash("mqsim:channels=1,dies=2");
        let x = 24_601;
        assert_eq!(b.read(0, 0, false), 75_000 + x);
        assert_eq!(b.read(0, 1, false), 75_000 + 2 * x);
    }
}
