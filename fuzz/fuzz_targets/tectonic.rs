//! The tectonic reader on any bytes, bad lines failing and skipped.
#![no_main]

#[path = "../../crates/reclaim-core/tests/support/trace_fuzz.rs"]
mod trace_fuzz;

use reclaim_core::trace::Format;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    trace_fuzz::text(Format::Tectonic, data, false);
    trace_fuzz::text(Format::Tectonic, data, true);
});
