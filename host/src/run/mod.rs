//! Turning a validated plan into played games: the plan's types, the schedule (a pure list of
//! games), the executor (bot sessions, concurrency), the referee of each game, where its bots run
//! (placement), the events it emits, the manifest of a run and the output files it may write.

pub mod adjudicate;
pub(crate) mod events;
pub(crate) mod executor;
pub mod manifest;
pub(crate) mod output_file;
pub(crate) mod overload;
pub(crate) mod placement;
pub mod plan;
pub(crate) mod referee;
pub mod schedule;
