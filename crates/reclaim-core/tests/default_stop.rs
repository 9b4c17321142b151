//! The process-wide default stop (`set_default_stop`): polled by the readers the engine opens
//! itself and while a converted trace is loaded and checked. One test in a binary of its own,
//! since the default is set once for the process.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use reclaim_core::trace::convert::{
    load, page_list_trace, read_binary, write_binary, ConvertOptions,
};
use reclaim_core::trace::{set_default_stop, Format};

/// Polls so far; the stop asks to stop from the `STOP_AT`-th on.
static POLLS: AtomicU64 = AtomicU64::new(0);
static STOP_AT: AtomicU64 = AtomicU64::new(u64::MAX);

fn stop() -> bool {
    POLLS.fetch_add(1, Ordering::SeqCst) + 1 >= STOP_AT.load(Ordering::SeqCst)
}

#[test]
fn the_default_stop_ends_a_load_and_a_text_read() {
    set_default_stop(stop);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("default-stop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // 20M page ids: 80 MB of them, two blocks of 64 MiB.
    let path = dir.join("big.rtr");
    let pages: Vec<u32> = (0..20_000_000u32).map(|i| i % 1000).collect();
    write_binary(&page_list_trace(pages, "big"), &path).unwrap();
    // Unstopped, it loads whole.
    assert_eq!(read_binary(&path).unwrap().pages.len(), 20_000_000);
    // Stopped at the second poll of the read: after the first 64 MiB.
    POLLS.store(0, Ordering::SeqCst);
    STOP_AT.store(2, Ordering::SeqCst);
    let err = read_binary(&path).unwrap_err().to_string();
    assert_eq!(
        err,
        format!("{}: interrupted at byte {}", path.display(), 1 << 26)
    );

    // Read whole, one poll per 64 MiB and one at the end (the file holds the page ids and a
    // request size per page: 160 MB), then stopped at the next poll, as the page ids are
    // checked: at their second block of 64 MiB.
    let head = std::fs::read(&path).unwrap();
    let reads = head.len().div_ceil(1 << 26) as u64 + 1;
    let pages_at = 16 + u64::from_le_bytes(head[8..16].try_into().unwrap()) as usize;
    POLLS.store(0, Ordering::SeqCst);
    STOP_AT.store(reads + 1, Ordering::SeqCst);
    let err = read_binary(&path).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: interrupted at byte {}",
            path.display(),
            pages_at + (1 << 26)
        )
    );

    // A text page list read by the engine's own reader (a run's trace): 10,000 lines, polled
    // at lines 0, 4,096 and 8,192; stopped at the second poll.
    let text = dir.join("pages.txt");
    std::fs::write(&text, "1\n".repeat(10_000)).unwrap();
    POLLS.store(0, Ordering::SeqCst);
    STOP_AT.store(2, Ordering::SeqCst);
    let err = load(&text, Some(Format::Pages), ConvertOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!("{}: interrupted after line 4096", text.display())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
