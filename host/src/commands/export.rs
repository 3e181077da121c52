//! `stratego-host export`: game records as one self-contained HTML page (the page is
//! [`crate::display::files::viewer`]'s), or with `--pgn` their results as PGN
//! ([`crate::commands::export_pgn`]).

use stratego_protocol::record::GameRecord;

use crate::commands::CommandOutput;
use crate::display::files::viewer::export_html;
use crate::run::plan::{ConfigError, usage};

/// `export` options, as the command line gave them ([`crate::cli::records`]).
#[derive(Debug)]
pub struct ExportOptions {
    /// Records files (games.jsonl) or runs' --out directories: one for a page, any number
    /// for `--pgn`.
    pub records: Vec<std::path::PathBuf>,
    /// Only this game (its id); default: every game of the file, with a game selector.
    pub game: Vec<String>,
    /// The HTML file to write: one self-contained page (no network).
    pub html: Option<std::path::PathBuf>,
    /// The PGN file to write instead (results only, for Ordo and BayesElo).
    pub pgn: Option<std::path::PathBuf>,
    /// The page's title (default: the records file's name).
    pub title: Option<String>,
    /// Replace OUT.html even if it is not a page this host wrote (never a records file, a
    /// manifest or a database).
    pub force: bool,
    /// Skip the lines of the records file that are not game records (a corrupted line),
    /// saying how many, instead of refusing the file.
    pub skip_bad_lines: bool,
}

/// `stratego-host export`: writes the page and says so on stderr.
///
/// # Errors
/// Exit 2 for a bad file, an unknown game id or an output it may not replace; 1 when the
/// page cannot be written.
pub fn run(args: ExportOptions) -> Result<CommandOutput, ConfigError> {
    if let Some(pgn) = &args.pgn {
        if !args.game.is_empty() || args.title.is_some() {
            return Err(usage("--pgn: exports every game of RECORDS; --game and --title are for --html"));
        }
        return crate::commands::export_pgn::run(&args.records, pgn, args.force, args.skip_bad_lines);
    }
    let Some(html) = &args.html else { return Err(usage("give --html OUT.html or --pgn OUT.pgn")) };
    let [records] = args.records.as_slice() else {
        return Err(usage("--html: one RECORDS file or directory (several are for --pgn)"));
    };
    crate::run::output_file::may_write_page(html, Some(args.force), "--html").map_err(usage)?;
    let path = if records.is_dir() { crate::record::records_path(records).map_err(usage)? } else { records.clone() };
    let read = if args.skip_bad_lines {
        crate::record::read_records_skipping(&path).map(|(records, bad)| {
            crate::record::report_skipped(&path, &bad);
            records
        })
    } else {
        crate::record::read_records_file(&path).map_err(|e| crate::record::with_skip_hint(e, &path))
    };
    let records = read.map_err(usage)?;
    let chosen: Vec<GameRecord> = if args.game.is_empty() {
        records
    } else {
        let mut out = Vec::new();
        for id in &args.game {
            match records.iter().find(|r| &r.game_id == id) {
                Some(r) => out.push(r.clone()),
                None => {
                    let ids: Vec<&str> = records.iter().map(|r| r.game_id.as_str()).take(20).collect();
                    return Err(usage(format!(
                        "--game {id:?}: no such game in {} (games: {})",
                        path.display(),
                        ids.join(", ")
                    )));
                }
            }
        }
        out
    };
    let title = args.title.clone().unwrap_or_else(|| path.display().to_string());
    let html_path = html;
    let html = export_html(&chosen, &title).map_err(usage)?;
    std::fs::write(html_path, html)
        .map_err(|e| ConfigError { message: format!("{}: {e}", html_path.display()), code: crate::exit::FAILURE })?;
    eprintln!("stratego-host: wrote {} ({})", html_path.display(), stratego_stats::plural(chosen.len() as u64, "game"));
    Ok(CommandOutput { stdout: String::new(), code: crate::exit::OK })
}
