//! Competitions: what tells match, tournament and SPRT apart, what their games fill and how
//! each ends.
//!
//! Module structure:
//! - [`competition`]: the [`competition::Competition`] of each kind (games, report, exit code).
//! - [`report_sink`]: [`report_sink::ReportSink`], what a competition's games fill, and its page.
//! - [`report`]: a match's summary (text, JSON, HTML).
//! - [`tournament`]: the tournament table and ratings (text, JSON, HTML).
//! - [`sprt`]: the SPRT sink and its open-ended pairs.
//! - [`sinks`]: the run's other sinks (records file, startup guard, match summary, overload).
//!
//! Imports `display`, `run` and below; prints nothing (its text goes to the commands);
//! blocks only in the records sink's writer thread, which it spawns.

pub(crate) mod competition;
pub(crate) mod report;
pub(crate) mod report_sink;
pub(crate) mod sinks;
pub(crate) mod sprt;
pub(crate) mod tournament;
