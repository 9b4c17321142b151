//! Page sizes: how many slots each logical page takes (Lomet & Luo §4.4, "pages can be of
//! variable size").
//!
//! A page keeps its size for the run. Sizes are given out by the distribution's quantiles, the
//! count of each size rounded by largest remainder from pages × its probability, then shuffled
//! over the pages with a generator of their own seeded from the run's seed: the total is the
//! mean size times the pages up to one slot per distinct size, so the fill factor the geometry
//! computes from the mean is the one the run has, and no other draw of the run moves.

use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::config::SizeSpec;
use crate::SimRng;

/// The size of each of `pages` pages [slots] for `spec`, shuffled with `seed`.
pub fn page_sizes(spec: &SizeSpec, pages: u64, seed: u64) -> Vec<u16> {
    let dist = spec.distribution();
    let exact: Vec<f64> = dist.iter().map(|&(_, p)| p * pages as f64).collect();
    let mut counts: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
    let mut left = pages - counts.iter().sum::<u64>().min(pages);
    let mut order: Vec<usize> = (0..dist.len()).collect();
    order.sort_by(|&i, &j| {
        (exact[j] - exact[j].floor())
            .total_cmp(&(exact[i] - exact[i].floor()))
            .then(i.cmp(&j))
    });
    for &i in order.iter().cycle().take(dist.len().max(1) * 2) {
        if left == 0 {
            break;
        }
        counts[i] += 1;
        left -= 1;
    }
    let mut sizes = Vec::with_capacity(pages as usize);
    for (&(s, _), &n) in dist.iter().zip(&counts) {
        sizes.extend(std::iter::repeat_n(s, n as usize));
    }
    sizes.truncate(pages as usize);
    let mut rng = SimRng::seed_from_u64(seed ^ 0x5A5E_5123_0DD5_1AE5);
    sizes.shuffle(&mut rng);
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_distribution_and_the_seed_only_shuffles() {
        // 1,000 pages of sizes 1/2/8 at weights 1/2/1: 250, 500 and 250 of them, 4,250 slots.
        let spec: SizeSpec = "choice:sizes=1/2/8,weights=1/2/1".parse().unwrap();
        let a = page_sizes(&spec, 1000, 1);
        let count = |v: &[u16], s: u16| v.iter().filter(|&&x| x == s).count();
        assert_eq!([count(&a, 1), count(&a, 2), count(&a, 8)], [250, 500, 250]);
        assert_eq!(a.iter().map(|&s| u64::from(s)).sum::<u64>(), 3250);
        let b = page_sizes(&spec, 1000, 2);
        assert_ne!(a, b);
        assert_eq!(count(&b, 8), 250);
        // Uniform 1–3 over 10 pages: 3.33 each, the remainder to the first by equal fractions.
        let u = page_sizes(&"uniform:min=1,max=3".parse().unwrap(), 10, 1);
        assert_eq!(u.len(), 10);
        assert_eq!(
            u.iter().map(|&s| u32::from(s)).sum::<u32>(),
            4 + 2 * 3 + 3 * 3
        );
        assert_eq!(
            page_sizes(&"fixed:size=5".parse().unwrap(), 7, 3),
            vec![5; 7]
        );
    }
}
