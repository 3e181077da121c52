//! Competitions and what they show: what tells match, tournament and SPRT apart
//! ([`competition`]), the tournament table, the SPRT, the match report, the sinks that turn
//! played games into them, the live board of `--watch`, the live page of `--serve`, the replay board and the HTML pages.

pub(crate) mod competition;
pub(crate) mod report;
pub(crate) mod report_sink;
pub(crate) mod sinks;
pub(crate) mod sprt;
pub(crate) mod tournament;
