//! The frontier trigger: the cleaner runs when a stream needs a segment and none is free, and
//! cleans one victim, whose valid pages go through a buffer into the GC frontier. Van Houdt's
//! single and double write frontier exactly (§2.3).

use super::GcSpec;
use crate::spec::{Entry, Family, Info};

/// `frontier`.
pub const ENTRY: Entry<GcSpec> = Entry {
    info: Info {
        family: Family::Trigger,
        name: "frontier",
        aliases: &[],
        summary: "Clean one victim when a stream needs a segment and none is free; no free segment is kept.",
        source: "Van Houdt §2.3",
        params: &[],
        needs: &[],
    },
    parse: |_| Ok(GcSpec::Frontier),
};
