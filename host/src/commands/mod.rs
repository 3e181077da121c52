//! One file per subcommand that is more than a plan: each takes what [`crate::cli`] validated,
//! does the work through the layers below, and returns what to print and the exit code.

pub mod check;
pub mod convert;
pub mod export;
pub mod ladder;
pub mod merge;
pub mod harness;
pub mod token;
pub mod replay;

/// What a subcommand prints on stdout, and its exit code: every subcommand returns
/// `Result<Outcome, ConfigError>`, and `main.rs` turns it into output and an exit code.
#[derive(Debug)]
pub struct Outcome {
    /// The report (a table, or JSON with `--json`); may be empty.
    pub stdout: String,
    /// The process's exit code.
    pub code: i32,
}
