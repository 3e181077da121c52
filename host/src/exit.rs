//! Exit codes of `stratego-host`, in one place.

/// The run finished (whatever the game results).
pub const OK: i32 = 0;
/// An internal error of the host (a bug, or an output file that cannot be written).
pub const FAILURE: i32 = 1;
/// Bad command line or configuration (bot spec, ruleset file, time control…).
pub const USAGE: i32 = 2;
/// A bot could not be started at all (no such program, not executable).
pub const BOT_NOT_STARTABLE: i32 = 3;
/// `check`: the bot failed at least one check.
pub const CHECK_FAILED: i32 = 4;
/// Interrupted by SIGINT or SIGTERM; every bot process was killed.
pub const INTERRUPTED: i32 = 130;
/// `sprt`: H1 accepted, the new bot is better (the same code as [`OK`], so that a CI step
/// passes exactly when the change is an improvement).
pub const SPRT_H1: i32 = OK;
/// `sprt`: H0 accepted, the new bot is not better.
pub const SPRT_H0: i32 = 10;
/// `sprt`: the game limit was reached before the test decided.
pub const SPRT_INCONCLUSIVE: i32 = 11;
