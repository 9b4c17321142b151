//! The converted-trace reader on any bytes.
#![no_main]

#[path = "../../crates/reclaim-core/tests/support/trace_fuzz.rs"]
mod trace_fuzz;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    trace_fuzz::binary(data);
});
