//! The subcommands, one file each, named after it: each takes what [`crate::cli`] validated,
//! does the work through the layers below, and returns what to print and the exit code
//! ([`CommandOutput`]); `main.rs` prints it and exits.
//!
//! Module structure:
//! - `r#match` (`match.rs`), [`tournament`], [`sprt`]: the three playing commands, each a
//!   validated plan handed to the [`harness`].
//! - [`harness`]: the one harness of every command that plays games (its `--out` directory
//!   and resume, the sinks, the executor, the end); `ladder play` uses it too.
//! - [`ladder`]: the SQLite ladder (`add`, `play`, `table`, …).
//! - [`arena`]: the always-on arena on a ladder file (`add`, `retire`, `token`, `run`).
//! - [`check`]: the conformance battery.
//! - [`merge`], [`export`] (and [`export_pgn`]), [`replay`], [`convert`]: the commands that
//!   read records.
//! - [`token`], [`connect`]: the two commands of remote bots.
//!
//! May import every layer below; may print (what it prints on stderr; stdout is `main.rs`'s);
//! blocks (each command runs its own runtime).

pub mod arena;
pub mod check;
pub mod connect;
pub mod convert;
pub mod export;
pub mod export_pgn;
pub mod harness;
pub mod knockout;
pub mod ladder;
pub mod r#match;
pub mod merge;
pub mod replay;
pub mod sprt;
pub mod token;
pub mod tournament;

/// What a subcommand prints on stdout, and its exit code (not a game's outcome, which is
/// `stratego_rules::Outcome`): every subcommand returns
/// `Result<CommandOutput, ConfigError>`, and `main.rs` turns it into output and an exit code.
#[derive(Debug)]
pub struct CommandOutput {
    /// The report (a table, or JSON with `--json`); may be empty.
    pub stdout: String,
    /// The process's exit code.
    pub code: i32,
}
