//! `stratego-host tournament`: round-robin or gauntlet among any number of bots, with a
//! crosstable and ratings (the competition is [`crate::compete::competition`]'s).
//! Played by the harness every playing command shares ([`crate::commands::harness`]).

use crate::commands::CommandOutput;
use crate::commands::harness;
use crate::run::plan::{ConfigError, EventKind, EventPlan};

/// Plays a validated `tournament` to its end (or interruption) and returns what to print (see
/// [`harness::run_event`]: its `--out` directory is resumable).
///
/// # Errors
/// A configuration problem found only now, with its exit code.
pub fn run(plan: EventPlan) -> Result<CommandOutput, ConfigError> {
    if matches!(plan.kind, EventKind::Knockout { .. }) {
        return crate::commands::knockout::run(plan);
    }
    debug_assert!(matches!(plan.kind, EventKind::Tournament { .. }), "a tournament plan");
    harness::run_event(plan)
}
