//! The run's named clocks (DESIGN "Clocks"): every age in the engine is measured on one of them.

/// Clock readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clocks {
    /// User writes that reached the store, warm-up included (Lomet & Luo's "update count",
    /// §4.2): the clock of segment stamps and cost-benefit's age.
    pub user_writes: u64,
    /// Segments sealed from user (destage) streams: Stockmeyer §2.3's destage sequence counter.
    /// A segment sealed from a GC stream takes the largest number of its contributors instead.
    pub destage: u64,
    /// Cleaning cycles run (one per trigger firing, whatever the number of victims).
    pub gc_invocations: u64,
    /// The trace time of the request being written [µs since the trace's first request; a
    /// looped trace's passes continue it, `workload::trace`]: a write's time as the trace gives
    /// it, for the schemes that estimate lifespans in trace time (DESIGN: "a write is a record
    /// (page; class, size, time …)"). Kept only when a scheme reads it (`Need::Times`), else 0.
    pub trace_time: u64,
}
