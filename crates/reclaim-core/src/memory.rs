//! Allocation of the engine's large arrays on huge pages.
//!
//! At a real device's size the page map and the reverse map take gigabytes, and every page
//! write reads them at random. With 4 KiB pages nearly every such read also misses the TLB, and
//! the page walk that follows misses the caches in turn (twice over in a virtual machine, whose
//! walks are two-dimensional). A 2 MiB page covers 512 times as much, so the TLB reaches the
//! whole of a 100,000-segment store and most of a terabyte one (`docs/design.md`, "Speed").
//!
//! Linux gives an anonymous mapping transparent huge pages where `madvise(MADV_HUGEPAGE)` asks
//! for them (the common `transparent_hugepage=madvise` setting) or everywhere (`always`). The
//! advice must come before the memory is first touched, since a page already faulted in at
//! 4 KiB stays so until the kernel's background collapse gets to it: [`filled`] reserves the
//! array, advises the 2 MiB-aligned part of it, then writes it. Advice is a hint: where the
//! kernel refuses it (another system, huge pages off), the array is the same, only slower.

/// Size of a transparent huge page on x86-64 and most aarch64 kernels [bytes].
pub const HUGE_PAGE: usize = 2 << 20;

/// A vector of `n` copies of `value`, on huge pages where the array spans at least one.
pub fn filled<T: Copy>(n: usize, value: T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise_huge(v.as_ptr().cast::<u8>(), n * std::mem::size_of::<T>());
    v.resize(n, value);
    v
}

/// Asks for huge pages on the whole 2 MiB pages within `len` bytes from `start`.
#[allow(unused_variables)]
fn advise_huge(start: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        let first = (start as usize).next_multiple_of(HUGE_PAGE);
        let end = (start as usize + len) / HUGE_PAGE * HUGE_PAGE;
        if end > first {
            // SAFETY: the range lies within an allocation of ours that nothing has touched yet;
            // MADV_HUGEPAGE changes how its pages are backed, never their contents, and a
            // refusal (EINVAL where huge pages are off) leaves the range as it was.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_holds_the_value_everywhere() {
        // Larger than two huge pages, so the advice is given, and of a length that is no
        // multiple of one, so the unadvised tail is written too.
        let n = (5 * HUGE_PAGE) / 4 + 3;
        let v = filled(n, u32::MAX);
        assert_eq!(v.len(), n);
        assert!(v.iter().all(|&x| x == u32::MAX));
        assert_eq!(filled(0, 7u8), Vec::<u8>::new());
    }
}
