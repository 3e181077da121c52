//! `stratego-host`: runs Stratego bots against each other.
//!
//! Data flows one way: command line ([`cli`], [`config`]) → schedule ([`schedule`]: a
//! pure list of games) → [`executor`] (runs up to `--concurrency` games; a pool of bot
//! sessions per bot) → one [`referee`] per game, talking to each bot through the
//! [`session::BotSession`] seam ([`json_session`] over a [`process`]) → [`events`] →
//! sinks ([`sinks`]: records, live progress, match summary; [`tournament`]; [`sprt`]).
//! The [`supervisor`] owns everything the host does to the operating system (priorities,
//! stall watchdogs, the registry of bot processes and the kill sequence, signals); [`run`]
//! puts the pieces together for `match`, `tournament` and `sprt`; [`ladder`] does the same
//! for `ladder play`, whose games go to a SQLite file.

pub mod bot_spec;
pub mod check;
pub mod cli;
pub mod clock;
pub mod config;
pub mod convert;
pub mod events;
pub mod executor;
pub mod exit;
pub mod json_session;
pub mod ladder;
pub mod manifest;
pub mod merge;
pub mod os;
pub mod output_file;
pub mod process;
pub mod protocol_log;
pub use stratego_protocol::reason;
pub mod record;
pub mod referee;
pub mod replay;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod schedule;
pub mod seccomp;
pub mod session;
pub mod setup_book;
pub mod sinks;
pub mod sprt;
pub mod stall_watch;
pub mod stats;
pub mod style;
pub mod supervisor;
pub mod tempo;
pub mod tournament;
pub mod ucc_session;
pub mod viewer;
pub mod watch;
