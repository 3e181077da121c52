//! `stratego-host sprt`: NEW against BASE until the sequential test decides (the
//! competition and its exit codes are [`crate::compete::competition`]'s).
//! Played by the harness every playing command shares ([`crate::commands::harness`]).

use crate::commands::CommandOutput;
use crate::commands::harness;
use crate::run::plan::{ConfigError, EventKind, EventPlan};

/// Plays a validated `sprt` to its end (or interruption) and returns what to print (see
/// [`harness::run_event`]: its `--out` directory is resumable).
///
/// # Errors
/// A configuration problem found only now, with its exit code.
pub fn run(plan: EventPlan) -> Result<CommandOutput, ConfigError> {
    debug_assert!(matches!(plan.kind, EventKind::Sprt { .. }), "a sprt plan");
    harness::run_event(plan)
}
