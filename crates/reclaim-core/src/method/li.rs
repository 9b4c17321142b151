//! Li et al.'s trace-driven evaluation (§6.1): "the volume size is the maximum LBA rounded up",
//! a uniform warm-up of random writes "to make the SSD reach a steady state", then the trace
//! replayed once and measured.
//!
//! On a trace that touches a small part of its address space this measures mostly the uniform
//! warm-up's cold data, which the trace never rewrites: the run warms about it (`docs/traces.md`).

use super::MethodSpec;
use crate::spec::{Entry, Family, Info};

/// `li`.
pub const ENTRY: Entry<MethodSpec> = Entry {
    info: Info {
        family: Family::Method,
        name: "li",
        aliases: &[],
        summary: "Device of the trace's address space, uniform warm-up (`warmup`, default fill+10x), one measured pass.",
        source: "Li et al. §6.1",
        params: &[],
        needs: &[],
    },
    parse: |_| Ok(MethodSpec::Li),
};
