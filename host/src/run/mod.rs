//! A validated plan turned into played games.
//!
//! Module structure:
//! - [`plan`]: the plan's types (what `cli` validated), `ConfigError`.
//! - [`schedule`]: the games of an event, a pure function of it.
//! - [`executor`]: runs up to `-j` games at once, keeps bot sessions, sends happenings to sinks;
//!   `executor/source.rs`: what it plays (the game source, the growing bot table).
//! - [`referee`]: one game over two [`crate::session::BotSession`]s; `judge` decides "too late" (asking [`crate::game::clock::in_time`]).
//! - [`placement`]: which CPU a game's bots share.
//! - [`happenings`]: what a run emits ([`happenings::Happening`]) and who takes it ([`happenings::Sink`],
//!   [`happenings::DigestSink`]).
//! - [`manifest`]: a run directory's manifest (the plan, its hash, bots' executable hashes), the directory lock; its records are read through [`crate::record`].
//! - [`overload`]: whether the machine was overloaded for a bot.
//! - [`output_file`]: outputs never replace what the host did not write.
//!
//! Imports `session` and below; prints nothing (notices); blocks on files, spawns the
//! executor's slot threads.

pub mod adjudicate;
pub(crate) mod executor;
pub(crate) mod happenings;
pub mod manifest;
pub(crate) mod output_file;
pub(crate) mod overload;
pub(crate) mod placement;
pub mod plan;
pub(crate) mod referee;
pub mod schedule;
