//! One file per subcommand that is more than a plan: each takes what [`crate::cli`] validated,
//! does the work through the layers below, and returns what to print and the exit code.

pub mod check;
pub mod convert;
pub mod export;
pub mod ladder;
pub mod merge;
pub mod play;
pub mod replay;

pub use play::Outcome;
