//! Turning a validated plan into played games: the plan's types, the schedule (a pure list of
//! games), the executor (bot sessions, concurrency), the referee of each game, the events it
//! emits, the manifest of a run and the output files it may write.

pub mod events;
pub mod executor;
pub mod manifest;
pub mod output_file;
pub mod plan;
pub mod referee;
pub mod schedule;
