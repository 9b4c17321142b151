//! The column-mapped CSV reader on any bytes, bad lines failing and skipped: semicolons,
//! sectors, milliseconds, a discard token and every optional column, as the proptest properties
//! read it.
#![no_main]

#[path = "../../crates/reclaim-core/tests/support/trace_fuzz.rs"]
mod trace_fuzz;

use reclaim_core::trace::Format;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let format: Format = "csv:volume=0,op=1,offset=2,size=3,time=4,sep=semicolon,size_unit=sector,time_unit=ms,trim=t"
        .parse()
        .expect("a csv spec");
    trace_fuzz::text(format, data, false);
    trace_fuzz::text(format, data, true);
});
