//! `arena` flags (clap), validated once into an [`ArenaPlan`]: the admin commands on the
//! arena's file (`add`, `retire`, `token`) and `arena run`'s flags (those of `match`, local
//! entrants sandboxed unless `--no-sandbox`).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::cli::RunFlags;
use crate::commands::arena::{ArenaAction, ArenaPlan};
use crate::run::plan::{ConfigError, FileDefaults, usage};

/// `arena` options.
#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ArenaCommand,
}

/// `arena` subcommands.
#[derive(Subcommand, Debug)]
pub enum ArenaCommand {
    /// Add a local entrant under a new NAME (creates FILE when missing). COMMAND is a
    /// command line (one quoted string, or its words), a JSON spec or @FILE, as for
    /// `match`. A name is never given to another command: add a new version under a new
    /// name (`alpha-v2`); the old one keeps its rating line.
    Add {
        /// The arena's SQLite file.
        file: PathBuf,
        /// The entrant's name.
        name: String,
        /// How to start it.
        #[arg(required = true, num_args = 1.., allow_hyphen_values = true, trailing_var_arg = true)]
        command: Vec<String>,
    },
    /// Retire an entrant: it is paired no more; its games still count for the others.
    Retire {
        /// The arena's SQLite file.
        file: PathBuf,
        /// The entrant's name.
        name: String,
    },
    /// Make a remote entrant NAME: a new token, printed once (or written to --out FILE,
    /// mode 0600), its SHA-256 kept in the file. The entrant runs `stratego-host connect
    /// ws://HOST:PORT --token-file F -- ./bot` against `arena run --listen`.
    Token {
        /// The arena's SQLite file.
        file: PathBuf,
        /// The entrant's name.
        name: String,
        /// Write the token to FILE (created with mode 0600; an existing file is never
        /// replaced) instead of printing it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Run the arena until SIGINT/SIGTERM: pair idle entrants, play at the time control of
    /// the flags with -j games at once, save each game as it finishes, rate by
    /// Bradley–Terry. Prints the table at the end.
    Run(Box<ArenaRunArgs>),
}

/// `arena run` options.
#[derive(Args, Debug)]
pub struct ArenaRunArgs {
    /// The arena's SQLite file (made by `arena add` or `arena token`).
    pub file: PathBuf,
    /// Run local entrants without the sandbox (by default each runs in one: bubblewrap,
    /// no network, as `--sandbox`).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Flags shared with `match` (`--tc`, `-j`, `--listen`, `--serve`, …; `--shard`,
    /// `--watch` and `--sandbox` are refused).
    #[command(flatten)]
    pub run: RunFlags,
}

impl ArenaArgs {
    /// The tracing level the flags ask for.
    pub fn log_level(&self) -> &'static str {
        match &self.command {
            ArenaCommand::Run(r) => r.run.log_level(),
            _ => "warn",
        }
    }

    /// Validates the flags into a plan.
    ///
    /// # Errors
    /// The first problem, with exit code 2: an arena file that is missing (only `add` and
    /// `token` create one), or a flag `match` would refuse or an arena cannot take.
    pub fn into_plan(self) -> Result<ArenaPlan, ConfigError> {
        let (file, action) = match self.command {
            ArenaCommand::Add { file, name, command } => {
                // One word is a command line, a JSON spec or @FILE; several are its words.
                let command = if command.len() == 1 { command[0].clone() } else { shell_words::join(&command) };
                (file, ArenaAction::Add { name, command })
            }
            ArenaCommand::Retire { file, name } => (file, ArenaAction::Retire { name }),
            ArenaCommand::Token { file, name, out } => (file, ArenaAction::Token { name, out }),
            ArenaCommand::Run(args) => {
                let ArenaRunArgs { file, no_sandbox, mut run } = *args;
                if run.sandbox {
                    return Err(usage(
                        "--sandbox: an arena's local entrants are sandboxed already (--no-sandbox: not)",
                    ));
                }
                run.sandbox = !no_sandbox;
                let mut run = run.validate(&FileDefaults::default())?;
                if run.shard.is_some() {
                    return Err(usage("--shard: an arena pairs its entrants as it goes and cannot be sharded"));
                }
                if run.watch {
                    return Err(usage("--watch: not for an arena (watch its games with --serve ADDR)"));
                }
                // A bot that fails to start loses that game; the arena plays on.
                run.recover = true;
                (file, ArenaAction::Run { run: Box::new(run) })
            }
        };
        if !matches!(action, ArenaAction::Add { .. } | ArenaAction::Token { .. }) && !file.exists() {
            return Err(usage(format!(
                "{}: no such arena file (`arena add FILE NAME COMMAND` or `arena token FILE NAME` creates one)",
                file.display()
            )));
        }
        Ok(ArenaPlan { file, action })
    }
}
