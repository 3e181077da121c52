//! `stratego-host arena`: an always-on arena on one SQLite file (issue #45).
//!
//! The file is a ladder file ([`crate::commands::ladder::store`]: the same schema, bots,
//! games, records and tallies), so `ladder table`, `ladder history` and `ladder records`
//! read an arena too. `arena add` / `arena retire` / `arena token` administer it; `arena
//! run` plays until SIGINT/SIGTERM: whoever is idle and present (a local entrant, or a
//! remote one while connected) is paired by the ladder's uncertainty-reducing choice
//! ([`pool`]), each game is saved in its own transaction as it finishes, and the table is
//! the ladder's Bradley–Terry fit.
//!
//! Beside the file, `FILE.running` lists the games running now (started, not yet saved):
//! the next `arena run` reads it, says which of them are void (running when the arena
//! stopped: not counted), and starts it anew.
//!
//! Module structure: `mod.rs` (the plan and the admin commands), [`page`] (the data of
//! the live page's pages per bot), [`pool`] (who can play and
//! the next pairing; pure), [`run`] (`arena run`: its competition, game source and report
//! sink, through [`crate::commands::harness::run_competition`]).

pub mod page;
pub mod pool;
pub mod run;

use std::path::PathBuf;

use crate::commands::CommandOutput;
use crate::commands::ladder::store::Ladder;
use crate::run::plan::{ConfigError, RunConfig, usage};

/// A validated `arena` command: the arena's file and what to do with it.
#[derive(Debug)]
pub struct ArenaPlan {
    /// The arena's SQLite file (it exists, unless the action is `add` or `token`).
    pub file: PathBuf,
    /// What to do.
    pub action: ArenaAction,
}

/// What an `arena` command does.
#[derive(Debug)]
pub enum ArenaAction {
    /// `arena add FILE NAME COMMAND`.
    Add {
        /// The entrant's name.
        name: String,
        /// How to start it (a command line, a JSON spec or @FILE).
        command: String,
    },
    /// `arena retire FILE NAME`.
    Retire {
        /// The entrant's name.
        name: String,
    },
    /// `arena token FILE NAME`: a remote entrant and its token.
    Token {
        /// The entrant's name.
        name: String,
        /// Write the token there (mode 0600) instead of printing it.
        out: Option<PathBuf>,
    },
    /// `arena run FILE`.
    Run {
        /// The validated run flags (`recover` on; local entrants sandboxed unless
        /// `--no-sandbox`).
        run: Box<RunConfig>,
    },
}

fn failure(message: impl Into<String>) -> ConfigError {
    ConfigError { message: message.into(), code: crate::exit::FAILURE }
}

/// Runs an `arena` command: what to print on stdout and the exit code.
///
/// # Errors
/// The first problem, with its exit code: 2 (usage), 3 (a bot cannot be started), 1 (the
/// database).
pub fn run(plan: ArenaPlan) -> Result<CommandOutput, ConfigError> {
    let mut arena = Ladder::open(&plan.file).map_err(|e| failure(format!("{}: {e}", plan.file.display())))?;
    let ok = |stdout: String| Ok(CommandOutput { stdout, code: crate::exit::OK });
    match plan.action {
        ArenaAction::Add { name, command } => {
            let message = arena.add(&name, &command)?;
            eprintln!("stratego-host: arena: {message}");
            ok(String::new())
        }
        ArenaAction::Retire { name } => {
            let message = arena.retire(&name)?;
            eprintln!("stratego-host: arena: {message}");
            ok(String::new())
        }
        ArenaAction::Token { name, out } => token(&mut arena, &name, out.as_deref()),
        ArenaAction::Run { run } => run::run_arena(arena, &plan.file, *run),
    }
}

/// `arena token`: a new token (through `stratego-host token`'s code) and a remote entrant
/// NAME that takes it. A name already taken is refused before any token is made or written.
fn token(arena: &mut Ladder, name: &str, out: Option<&std::path::Path>) -> Result<CommandOutput, ConfigError> {
    if arena.bots().map_err(failure)?.iter().any(|b| b.name == name) {
        return Err(usage(format!(
            "arena: {name} is taken (a name is never reused): make the new token's entrant under a new name, e.g. {name}-v2, and retire the old one"
        )));
    }
    let made = crate::commands::token::token(out)?;
    let sha = made
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("token_sha256 = \"").and_then(|r| r.strip_suffix('"')))
        .ok_or_else(|| failure("arena: the token's hash is missing"))?
        .to_owned();
    let spec = serde_json::json!({ "name": name, "remote": true, "token_sha256": sha }).to_string();
    let message = arena.add(name, &spec)?;
    eprintln!("stratego-host: arena: {message} (a remote entrant: it plays while connected to `arena run --listen`)");
    Ok(made)
}
