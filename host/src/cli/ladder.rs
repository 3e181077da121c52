//! `ladder` flags (clap), validated once into a [`LadderPlan`]: the run flags of `ladder play`
//! as for `match`, and the checks that need no database.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::cli::RunFlags;
use crate::commands::ladder::{Keep, LadderAction, LadderPlan, TableFormat};
use crate::run::plan::{ConfigError, FileDefaults, usage};

/// `ladder` options.
#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The ladder's SQLite file (created by `add` when missing; the other commands need it).
    #[arg(long, value_name = "FILE")]
    pub db: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: LadderCommand,
}

/// `ladder` subcommands.
#[derive(Subcommand, Debug)]
pub enum LadderCommand {
    /// Add a bot under a new NAME. COMMAND is a command line quoted as one string, a JSON
    /// spec or @FILE, as for `match`. Adding a name again with the same spec does nothing
    /// (or records its program's new version, or brings a retired bot back); with another
    /// command it is an error: names are never reused.
    Add {
        /// The bot's name on the ladder.
        name: String,
        /// How to start it.
        command: String,
    },
    /// Retire a bot: it plays no more and leaves the table; its games still count for the
    /// ratings of the others.
    Retire {
        /// The bot's name.
        name: String,
    },
    /// Play games between the active bots: colour-swapped pairs, the bots with the fewest
    /// games first, each against its least-played opponent. Every finished game is saved at
    /// once; prints the table at the end.
    Play(Box<LadderPlayArgs>),
    /// The ratings: Bradley–Terry refitted from every game, with 95 % error bars; active
    /// bots only.
    Table(TableArgs),
    /// The pairs the next `play -n GAMES --seed N` would play (two games a pair, colours
    /// swapped), without playing them: a line per pair, `RED<TAB>BLUE` of the first game (a
    /// play without --seed breaks ties between bots equally due by a draw of its own).
    Pairings {
        /// Games: an even number.
        #[arg(short = 'n', long, default_value_t = 2)]
        games: u32,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the stored records (oldest first) to a new records file: FILE.jsonl.zst keeps
    /// them compact as stored, FILE.jsonl is plain JSON Lines; both are read by `replay`,
    /// `export`, `merge`.
    Records {
        /// The new file (an existing file is refused).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Only this bot's games.
        #[arg(long, value_name = "NAME")]
        bot: Option<String>,
    },
    /// Drop the records of old games (every result stays, so the table and the ratings do
    /// not change), optionally archiving them first, then VACUUM the file to give the
    /// space back.
    #[command(group(clap::ArgGroup::new("keep").args(["keep_records_days", "keep_last"]).required(true)))]
    Prune {
        /// Keep the records of the games finished in the last N days.
        #[arg(long, value_name = "N")]
        keep_records_days: Option<u64>,
        /// Keep the records of the latest N games.
        #[arg(long, value_name = "N")]
        keep_last: Option<u64>,
        /// First write the records dropped to FILE.jsonl.zst (compact; a new file: an
        /// existing one is refused).
        #[arg(long, value_name = "FILE")]
        archive: Option<PathBuf>,
        /// Skip the VACUUM (it rewrites the file and waits for other processes to let go
        /// of it; without it the file keeps its size and new games reuse the space).
        #[arg(long)]
        no_vacuum: bool,
    },
    /// A bot's games, oldest first.
    History {
        /// The bot's name (active or retired).
        name: String,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `ladder play` options.
#[derive(Args, Debug)]
pub struct LadderPlayArgs {
    /// Games to play: an even number (colour-swapped pairs).
    #[arg(short = 'n', long, default_value_t = 2)]
    pub games: u32,
    /// Flags shared with `match` (`--json` prints the table as JSON; `--out DIR` also
    /// appends the records to DIR/games.jsonl; `--shard` is refused).
    #[command(flatten)]
    pub run: RunFlags,
}

/// `ladder table` options.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("format").args(["markdown", "json", "html"]).multiple(false)))]
pub struct TableArgs {
    /// A Markdown table (a CI job summary).
    #[arg(long)]
    pub markdown: bool,
    /// JSON.
    #[arg(long)]
    pub json: bool,
    /// A small self-contained HTML page on stdout; with OUT.html, that page is written
    /// to OUT.html with the latest games listed below the table, each linking a viewer
    /// page written to games/ beside it.
    #[arg(long, value_name = "OUT.html", num_args = 0..=1)]
    pub html: Option<Option<PathBuf>>,
    /// With --html OUT.html: replace OUT.html (and pages in games/ beside it) even if they
    /// are not pages this host wrote (never a records file, a manifest or a database).
    #[arg(long, requires = "html")]
    pub force: bool,
}

impl LadderArgs {
    /// The tracing level the flags ask for.
    pub fn log_level(&self) -> &'static str {
        match &self.command {
            LadderCommand::Play(p) => p.run.log_level(),
            _ => "warn",
        }
    }

    /// Validates the flags into a plan.
    ///
    /// # Errors
    /// The first problem, with exit code 2 (usage): a ladder file that is missing (only `add`
    /// creates one), or a flag of `ladder play` that `match` would refuse, or that a ladder
    /// cannot take.
    pub fn into_plan(self) -> Result<LadderPlan, ConfigError> {
        // Only `add` creates a ladder: any other command on a missing file is a typo, and an
        // empty ladder left behind would hide it.
        if !matches!(self.command, LadderCommand::Add { .. }) && !self.db.exists() {
            return Err(ConfigError {
                message: format!(
                    "--db {}: no such ladder file (`ladder --db FILE add NAME COMMAND` creates one)",
                    self.db.display()
                ),
                code: crate::exit::USAGE,
            });
        }
        let action = match self.command {
            LadderCommand::Add { name, command } => LadderAction::Add { name, command },
            LadderCommand::Retire { name } => LadderAction::Retire { name },
            LadderCommand::Play(play) => play.into_action()?,
            LadderCommand::Table(t) => LadderAction::Table(t.format()),
            LadderCommand::History { name, json } => LadderAction::History { name, json },
            LadderCommand::Pairings { games, json } => {
                check_games(games)?;
                LadderAction::Pairings { games, json }
            }
            LadderCommand::Records { out, bot } => LadderAction::Records { out, bot },
            LadderCommand::Prune { keep_records_days, keep_last, archive, no_vacuum } => {
                if let Some(a) = archive.as_ref().filter(|a| a.extension().is_none_or(|e| e != "zst")) {
                    return Err(usage(format!(
                        "--archive {}: an archive is a compact records file: name it FILE.jsonl.zst",
                        a.display()
                    )));
                }
                let keep = match (keep_records_days, keep_last) {
                    (Some(days), _) => Keep::Days(days),
                    (None, Some(n)) => Keep::Last(n),
                    (None, None) => unreachable!("clap requires one of them"),
                };
                LadderAction::Prune { keep, archive, no_vacuum }
            }
        };
        Ok(LadderPlan { db: self.db, action })
    }
}

impl LadderPlayArgs {
    fn into_action(self) -> Result<LadderAction, ConfigError> {
        let run = self.run.validate(&FileDefaults::default())?;
        if run.shard.is_some() {
            return Err(usage("--shard: a ladder picks its pairings as it goes and cannot be sharded"));
        }
        if run.watch {
            return Err(usage("--watch: not for ladder play (watch a match, tournament or sprt)"));
        }
        check_games(self.games)?;
        Ok(LadderAction::Play { run: Box::new(run), games: self.games })
    }
}

fn check_games(games: u32) -> Result<(), ConfigError> {
    if games == 0 || games % 2 == 1 {
        return Err(usage("--games: must be a positive even number (games are played in colour-swapped pairs)"));
    }
    Ok(())
}

impl TableArgs {
    /// The one format the flags choose (clap lets at most one through).
    fn format(self) -> TableFormat {
        if self.json {
            TableFormat::Json
        } else if self.markdown {
            TableFormat::Markdown
        } else if let Some(Some(out)) = self.html {
            TableFormat::HtmlFile { out, force: self.force }
        } else if self.html.is_some() {
            TableFormat::Html
        } else {
            TableFormat::Text
        }
    }
}
