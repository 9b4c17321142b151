//! A kinetic tournament: the maximum of items whose keys move with time, kept by a binary
//! tournament whose every match holds until its certificate's failure time.
//!
//! J. Basch, L. J. Guibas, J. Hershberger, "Data Structures for Mobile Data", SODA '97, §4
//! (kinetic priority queues: the kinetic tournament). Each internal node holds the winner of its
//! two children's winners and a certificate, the time before which that match cannot turn; a
//! node also keeps the earliest failure time in its subtree, so that advancing to time t visits
//! only the nodes whose certificates failed by t, and their ancestors. Items are leaves in
//! their number's order (a full tree of the next power of two of them), so that the matches of
//! the lower levels are between neighbours, whose entries share cache lines.
//!
//! The tree keeps each node's winner with its key (a `K`: a line's coefficients), so that a
//! match reads its two children's node, one cache line, and no item's own entry; it does not
//! interpret the keys: a match is played by the caller's `play(a, b)`, given two present items
//! with their keys, which returns whether `a` wins at the time of the change or the advance,
//! and the first time [µs] at which the outcome may differ (`u64::MAX` for never). A certificate
//! may fail early (the match is played again and holds); it must never fail late.
//! Costs: a change of one item plays at most one match per level, ⌈log₂ n⌉, and stops at the
//! first level where the winner is the same item as before (only a sooner failure time goes
//! on up, without a match); an advance plays one match per failed certificate and per ancestor
//! of one; the winner is read in O(1). Memory: two nodes per item slot (the slots rounded up to a
//! power of two), each a failure time, an item and a key (32 bytes with a 16-byte key), siblings
//! in a cache line of their own.

use crate::store::NONE;

/// A node: its subtree's earliest certificate failure [µs] (its own match's included; `u64::MAX`
/// at a leaf), its winner ([`NONE`] when its subtree holds no item) and the winner's key.
#[derive(Clone, Copy, Debug)]
struct Node<K> {
    fail: u64,
    win: u32,
    key: K,
}

/// Two sibling nodes, 2y and 2y + 1, in one cache line of their own: a match reads one line.
/// (A `Vec` of nodes is aligned only to 8 bytes, and a large one starts 16 bytes into a page, so
/// that every pair would straddle two lines.)
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Pair<K>([Node<K>; 2]);

/// The nodes, numbered from 1, in [`Pair`]s: node x is half `x & 1` of pair `x >> 1`.
#[derive(Clone, Debug)]
struct Nodes<K>(Vec<Pair<K>>);

impl<K> std::ops::Index<usize> for Nodes<K> {
    type Output = Node<K>;
    #[inline]
    fn index(&self, x: usize) -> &Node<K> {
        &self.0[x >> 1].0[x & 1]
    }
}

impl<K> std::ops::IndexMut<usize> for Nodes<K> {
    #[inline]
    fn index_mut(&mut self, x: usize) -> &mut Node<K> {
        &mut self.0[x >> 1].0[x & 1]
    }
}

/// [`KineticTournament::prefetch`] brings in the levels of more than 2^`BIG_LEVEL` nodes (1 MiB
/// of pairs and more): smaller ones stay in the cache between uses, where a prefetch only costs
/// its instructions. Measured (the `simulate` example, cost-hotness under uniform writes, M page
/// writes/s): at 1,000,000 segments the lowest 3 levels 15.5, 14.6, 15.9 (seeds 1–3), 5 levels
/// 16.8, 18.5, 16.3, these 6 levels 16.5, 18.6, 17.5; at 100,000 segments 2 levels 20.8 and 20.4,
/// these 3 levels 22.5 and 22.7, 5 levels 22.7 and 21.8.
const BIG_LEVEL: u32 = 14;

/// A kinetic tournament over items `0..n`, each present or not, with keys `K`.
#[derive(Clone, Debug)]
pub struct KineticTournament<K> {
    /// Node 1 is the root, node x's children are 2x and 2x + 1, item i's leaf is `leaves + i`.
    nodes: Nodes<K>,
    leaves: usize,
    items: usize,
    /// The levels [`Self::prefetch`] brings in: those of more than 2^[`BIG_LEVEL`] nodes, which
    /// the cache holds only in part, and at least the lowest three.
    deep: u32,
}

/// The node above nodes `l` and `r`: their winners' match (its failure time with theirs).
#[inline]
fn meet<K: Copy>(
    l: &Node<K>,
    r: &Node<K>,
    play: &mut impl FnMut((u32, K), (u32, K)) -> (bool, u64),
) -> Node<K> {
    let (first, fail) = if l.win == NONE {
        (false, u64::MAX)
    } else if r.win == NONE {
        (true, u64::MAX)
    } else {
        play((l.win, l.key), (r.win, r.key))
    };
    let w = if first { l } else { r };
    Node {
        fail: fail.min(l.fail).min(r.fail),
        win: w.win,
        key: w.key,
    }
}

impl<K: Copy + Default> KineticTournament<K> {
    /// A tournament of `n` item slots, none present.
    pub fn new(n: u32) -> Self {
        let leaves = (n.max(1) as usize).next_power_of_two();
        KineticTournament {
            nodes: Nodes(vec![Pair([Self::empty(); 2]); leaves]),
            leaves,
            items: n as usize,
            deep: (leaves.trailing_zeros().saturating_sub(BIG_LEVEL)).max(3),
        }
    }

    fn empty() -> Node<K> {
        Node {
            fail: u64::MAX,
            win: NONE,
            key: K::default(),
        }
    }

    /// The winner of every present item ([`NONE`] for none) at the time of the last change or
    /// advance.
    #[inline]
    pub fn winner(&self) -> u32 {
        self.nodes[1].win
    }

    /// The earliest time at which some certificate may fail (`u64::MAX` for none).
    #[inline]
    pub fn next_failure(&self) -> u64 {
        self.nodes[1].fail
    }

    /// Whether `item` is present.
    #[inline]
    pub fn contains(&self, item: u32) -> bool {
        self.nodes[self.leaves + item as usize].win != NONE
    }

    /// Brings in the nodes of `item`'s lowest matches, a line each, as many levels as `deep`:
    /// a change to it plays them.
    #[inline]
    pub fn prefetch(&self, item: u32) {
        let leaf = self.leaves + item as usize;
        for k in 0..self.deep {
            crate::store::prefetch(&self.nodes[leaf >> k]);
        }
    }

    /// Item `item` becomes present with key `key`, or absent (`None`), or its key changed: its
    /// matches are played again up the tree with `play`, now, until a node's winner is the same
    /// other item as before (above it nothing changed, but a sooner failure time, which goes on
    /// up).
    #[inline]
    pub fn set(
        &mut self,
        item: u32,
        key: Option<K>,
        mut play: impl FnMut((u32, K), (u32, K)) -> (bool, u64),
    ) {
        let mut x = self.leaves + item as usize;
        self.nodes[x] = match key {
            Some(key) => Node {
                fail: u64::MAX,
                win: item,
                key,
            },
            None => Self::empty(),
        };
        while x > 1 {
            let node = meet(&self.nodes[x & !1], &self.nodes[x | 1], &mut play);
            x >>= 1;
            let old = std::mem::replace(&mut self.nodes[x], node);
            if old.win == node.win && node.win != item {
                // A later failure leaves the ancestors' earlier ones: they fail early and are
                // played again then.
                let fail = node.fail;
                while x > 1 && fail < old.fail {
                    x >>= 1;
                    if self.nodes[x].fail <= fail {
                        break;
                    }
                    self.nodes[x].fail = fail;
                }
                return;
            }
        }
    }

    /// The tournament at time `t`, at or after every change's and advance's: every match whose
    /// certificate failed by `t` played again with `play` (at `t`), with its ancestors.
    #[inline]
    pub fn advance(&mut self, t: u64, mut play: impl FnMut((u32, K), (u32, K)) -> (bool, u64)) {
        if self.nodes[1].fail <= t {
            self.replay(1, t, &mut play);
        }
    }

    #[cold]
    #[inline(never)]
    fn replay(
        &mut self,
        x: usize,
        t: u64,
        play: &mut impl FnMut((u32, K), (u32, K)) -> (bool, u64),
    ) {
        let (l, r) = (2 * x, 2 * x + 1);
        if l < self.leaves {
            if self.nodes[l].fail <= t {
                self.replay(l, t, play);
            }
            if self.nodes[r].fail <= t {
                self.replay(r, t, play);
            }
        }
        self.nodes[x] = meet(&self.nodes[l], &self.nodes[r], play);
    }

    /// Every match played again with `play` (now), item i present with key k where
    /// `key(i)` is `Some(k)`.
    pub fn rebuild(
        &mut self,
        key: impl Fn(u32) -> Option<K>,
        mut play: impl FnMut((u32, K), (u32, K)) -> (bool, u64),
    ) {
        let n = self.leaves;
        for i in 0..n {
            self.nodes[n + i] = match (i < self.items).then(|| key(i as u32)).flatten() {
                Some(key) => Node {
                    fail: u64::MAX,
                    win: i as u32,
                    key,
                },
                None => Self::empty(),
            };
        }
        for x in (1..n).rev() {
            self.nodes[x] = meet(&self.nodes[2 * x], &self.nodes[2 * x + 1], &mut play);
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::rng::SimRng;

    fn signed(t: u64) -> i64 {
        i64::try_from(t).expect("a test's time")
    }

    /// Items moving on integer lines a + b·t, the larger winning (ties to the lower item), with
    /// exact certificates: the first integer time at which the loser's line reaches the
    /// winner's, or later on a tie of the lower item.
    fn play(lines: &[(i64, i64)], t: u64) -> impl FnMut((u32, ()), (u32, ())) -> (bool, u64) + '_ {
        move |(a, ()), (b, ())| {
            let at = |i: u32, t: u64| lines[i as usize].0 + lines[i as usize].1 * signed(t);
            let a_wins = (at(a, t), b) > (at(b, t), a);
            let (w, l) = if a_wins { (a, b) } else { (b, a) };
            let (gap, closing) = (
                at(w, t) - at(l, t),
                lines[l as usize].1 - lines[w as usize].1,
            );
            if closing <= 0 {
                return (a_wins, u64::MAX);
            }
            // The loser is ahead once it passes, or on reaching when it is the lower item.
            let steps = if l < w {
                (gap + closing - 1) / closing
            } else {
                gap / closing + 1
            };
            (a_wins, t + steps.max(1) as u64)
        }
    }

    /// The largest line at `t` by a scan, ties to the lowest item.
    fn scan(lines: &[(i64, i64)], present: &[bool], t: u64) -> u32 {
        (0..lines.len() as u32)
            .filter(|&i| present[i as usize])
            .max_by_key(|&i| {
                (
                    lines[i as usize].0 + lines[i as usize].1 * signed(t),
                    -i64::from(i),
                )
            })
            .unwrap_or(NONE)
    }

    /// Random lines that change, come and go while time advances by 0–20: after every step the
    /// winner is the scan's (the lines cross often: slopes −5…5, starts −1,000…1,000), and a
    /// rebuild gives the same.
    #[test]
    fn the_winner_is_the_scans_as_the_lines_move() {
        for (n, seed) in [(1, 1), (2, 2), (7, 3), (100, 4), (1_000, 5)] {
            let mut rng = SimRng::seed_from_u64(seed);
            let mut k = KineticTournament::<()>::new(n);
            let mut lines = vec![(0i64, 0i64); n as usize];
            let mut present = vec![false; n as usize];
            let mut t = 0u64;
            for _ in 0..20_000 {
                let i = rng.random_range(0..n);
                if rng.random_bool(0.3) {
                    present[i as usize] = false;
                } else {
                    present[i as usize] = true;
                    // Lines that start where they are now at t: a + b·t.
                    let b = rng.random_range(-5..=5);
                    lines[i as usize] = (rng.random_range(-1_000..1_000) - b * signed(t), b);
                }
                k.set(i, present[i as usize].then_some(()), play(&lines, t));
                assert_eq!(k.contains(i), present[i as usize]);
                t += rng.random_range(0..20);
                k.advance(t, play(&lines, t));
                assert_eq!(k.winner(), scan(&lines, &present, t), "n {n} t {t}");
            }
            k.rebuild(|i| present[i as usize].then_some(()), play(&lines, t));
            assert_eq!(k.winner(), scan(&lines, &present, t));
            assert!(k.next_failure() > t);
        }
    }
}
