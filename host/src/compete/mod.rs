//! Competitions and what they show: what tells match, tournament and SPRT apart
//! ([`competition`]), the tournament table, the SPRT, the match report, the sinks that turn
//! played games into them, the live board of `--watch`, the live page of `--serve`, the replay board and the HTML pages.

pub mod competition;
pub mod live_board;
pub mod live_page;
pub mod replay;
pub mod report;
pub mod sinks;
pub mod sprt;
pub mod style;
pub mod tournament;
pub mod viewer;
