//! `stratego-host replay`: shows a recorded game on the terminal (the board and its
//! drawing are [`crate::display::terminal::replay`]).

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::commands::CommandOutput;
use crate::display::terminal::replay::{Replay, Viewer, colour_wanted, load_with, tui};
use crate::exit;
use crate::run::plan::ConfigError;

/// `replay` options, as the command line gave them ([`crate::cli::records`]).
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The records: a games.jsonl file, or a directory holding one (an `--out` directory).
    pub records: PathBuf,
    /// The game to show, by its game_id [default: the first game of the file].
    pub game: Option<String>,
    /// The ply to show (0: the setups). On a terminal the viewer starts there [default: 0];
    /// otherwise only the board at this ply is printed [default: every ply and the final
    /// board].
    pub ply: Option<u32>,
    /// Whose eyes: red or blue (exactly what that side's bot was told: the opponent's ranks
    /// only once revealed) or spectator (everything).
    pub view: Viewer,
    /// Skip the lines of the records file that are not game records (a corrupted line),
    /// saying how many, instead of refusing the file.
    pub skip_bad_lines: bool,
}

/// Runs `stratego-host replay`: on a terminal the interactive viewer, else the game as text
/// (on stdout). A bad file, game or ply is a usage error (exit 2).
///
/// # Errors
/// The message (after `replay: `) and exit code 2.
pub fn run(args: ReplayOptions) -> Result<CommandOutput, ConfigError> {
    run_inner(&args)
        .map(|stdout| CommandOutput { stdout, code: exit::OK })
        // The message may quote the file's game ids and names.
        .map_err(|e| ConfigError { message: format!("replay: {}", crate::text::clean_lines(&e)), code: exit::USAGE })
}

fn run_inner(args: &ReplayOptions) -> Result<String, String> {
    let replay = Replay::new(load_with(&args.records, args.game.as_deref(), args.skip_bad_lines)?.0)?;
    if let Some(n) = args.ply
        && n > replay.plies()
    {
        return Err(format!("--ply {n}: game {} has {} plies", replay.record().game_id, replay.plies()));
    }
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let color = colour_wanted(true, std::env::var_os("NO_COLOR"));
        return tui::run(&replay, args.ply.unwrap_or(0), args.view, color)
            .map(|()| String::new())
            .map_err(|e| format!("terminal: {e}"));
    }
    let color = colour_wanted(std::io::stdout().is_terminal(), std::env::var_os("NO_COLOR"));
    Ok(replay.text(args.ply, args.view, color))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_game_is_a_usage_error_naming_the_games() {
        let dir = std::env::temp_dir().join(format!("stratego-replay-cmd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let record = crate::record::tests_support::record(None);
        std::fs::write(dir.join("games.jsonl"), serde_json::to_string(&record).unwrap() + "\n").unwrap();
        let err = run(ReplayOptions {
            records: dir.clone(),
            game: Some("nope".into()),
            ply: None,
            view: Viewer::Red,
            skip_bad_lines: false,
        })
        .unwrap_err();
        assert_eq!(err.code, exit::USAGE);
        assert!(
            err.message.starts_with("replay: --game nope") && err.message.contains(&record.game_id),
            "{}",
            err.message
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
