//! The one-free trigger: after a frontier is opened, if no free segment is left, clean one victim.
//! Li et al. §2.1: "GC is triggered only when the SSD no longer contains any clean physical block
//! after the write frontier is allocated, and GC stops when at least one clean block is
//! reclaimed".

use super::GcSpec;
use crate::spec::{Entry, Family, Info};

/// `one-free`.
pub const ENTRY: Entry<GcSpec> = Entry {
    info: Info {
        family: Family::Trigger,
        name: "one-free",
        aliases: &[],
        summary: "After a frontier is opened, clean one victim if no free segment is left.",
        source: "Li et al. §2.1",
        params: &[],
        needs: &[],
    },
    parse: |_| Ok(GcSpec::OneFree),
};
