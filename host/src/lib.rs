//! `stratego-host`: runs Stratego bots against each other.
//!
//! Data flows one way: command line ([`cli`]) → plan ([`runner::MatchPlan::schedule`]) →
//! executor ([`runner::run_match`]) → one [`referee`] per game over two
//! [`bot_process::BotProcess`]es → records ([`record`]) and reports ([`report`]).

pub mod bot_process;
pub mod bot_spec;
pub mod check;
pub mod cli;
pub mod clock;
pub mod exit;
pub mod os;
pub mod reason;
pub mod record;
pub mod referee;
pub mod report;
pub mod runner;
pub mod stall_watch;
pub mod stats;
