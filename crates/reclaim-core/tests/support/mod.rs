pub mod trace_fuzz;
