//! `MiDAS`'s hot filter and hot group (`hf.cpp` of `sungkyun123/MiDAS-Simulation`; Oh et al.,
//! FAST '24 §4.5), the `midas` placement's own: a 2-bit counter per page, raised when a page is
//! rewritten within the hot group's age window, and the window itself, set from the ages of the
//! hot group's victims. See `midas.rs` for how the placement routes by it.

#![allow(
    clippy::many_single_char_names,
    clippy::if_not_else,
    clippy::cast_possible_wrap
)]

/// The hot filter's counter at and above which a page is hot (`hot_val`, `max_val`).
const HOT: u8 = 3;

/// The hot filter (`hf.cpp`).
#[derive(Clone, Debug)]
pub(super) struct HotFilter {
    /// Per page: its counter.
    pub(super) count: Vec<u8>,
    /// Counting (`make_flag`) and routing (`use_flag`), on after the fill.
    pub(super) on: bool,
    /// Age window [user writes] (`tw`), and what is left of it (`left_tw`).
    pub(super) tw: i64,
    pub(super) left_tw: i64,
    /// Updates skipped at the start (`cold_tw`).
    pub(super) cold_tw: u64,
    /// The hot group's victims since the window began: valid share, age, count.
    pub(super) vr_sum: f64,
    pub(super) vr_num: f64,
    pub(super) age_sum: f64,
    pub(super) age_num: f64,
    /// User writes routed hot, and all (since the window began).
    pub(super) hot_writes: f64,
    pub(super) writes: f64,
    /// The model's queue: (traffic, victims' valid ratio, sealed segments), last 10.
    pub(super) queue: Vec<(f64, f64, f64)>,
}

impl HotFilter {
    pub(super) fn new(pages: u64) -> Self {
        HotFilter {
            count: vec![0; pages as usize],
            on: false,
            tw: pages as i64,
            left_tw: pages as i64,
            cold_tw: pages,
            vr_sum: 0.0,
            vr_num: 0.0,
            age_sum: 0.0,
            age_num: 0.0,
            hot_writes: 0.0,
            writes: 0.0,
            queue: Vec::new(),
        }
    }

    /// `hf_convert_generate_to_run`: the window ends; its traffic and victims go to the
    /// model's queue (when the model measures), and the next window is the mean age of the
    /// hot group's victims, averaged with the last (at most 1.5 times it).
    pub(super) fn convert(&mut self, modeling: bool, hot_sealed: f64) {
        self.left_tw = self.left_tw.max(0);
        let traffic = self.hot_writes / self.writes;
        if self.hot_writes != 0.0 && modeling {
            if self.queue.len() >= 10 {
                self.queue.remove(0);
            }
            self.queue
                .push((traffic, self.vr_sum / self.vr_num, hot_sealed));
        }
        let prev = self.tw as f64;
        let mut age = self.age_sum / self.age_num;
        if prev != 0.0 {
            age = if age >= prev * 2.0 {
                prev * 1.5
            } else {
                f64::midpoint(age, prev)
            };
        }
        self.tw = age as i64;
        self.left_tw = self.tw - 1;
        self.age_sum = 0.0;
        self.age_num = 0.0;
        self.hot_writes = 0.0;
        self.writes = 0.0;
        self.vr_sum = 0.0;
        self.vr_num = 0.0;
    }

    /// `hf_generate`: `page` leaves a copy in logical group `old` (rewritten by the user when
    /// `user`, of age `age` [user writes], `None` in an open segment; else relocated).
    pub(super) fn update(
        &mut self,
        page: u32,
        old: usize,
        age: Option<u64>,
        user: bool,
        m: (bool, f64),
    ) {
        if !self.on {
            return;
        }
        if self.cold_tw > 0 {
            self.cold_tw -= 1;
            return;
        }
        if self.left_tw <= 0 && self.age_num > 0.0 {
            self.convert(m.0, m.1);
        }
        let c = &mut self.count[page as usize];
        if user {
            self.left_tw -= 1;
            if old == 0 {
                if *c < HOT {
                    *c += 1;
                }
            } else if old == 1 {
                let age = age.unwrap_or(0);
                if age as f64 <= self.tw as f64 {
                    if *c < HOT {
                        *c += 1;
                    }
                } else {
                    *c = c.saturating_sub(1);
                }
            }
        } else if *c > 0 {
            *c -= 1;
            if old == 0 {
                *c = c.saturating_sub(1);
            }
        }
    }

    /// `hf_check`: the logical group of a user write of `page`.
    pub(super) fn route(&mut self, page: u32) -> usize {
        if !self.on {
            return 1;
        }
        self.writes += 1.0;
        if self.count[page as usize] >= HOT {
            self.hot_writes += 1.0;
            0
        } else {
            1
        }
    }
}
