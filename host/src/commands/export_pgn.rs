//! `stratego-host export --pgn OUT RECORDS…`: the results of recorded games as PGN headers,
//! the file Ordo and BayesElo (the chess rating tools) read: one game a block of tags and
//! its result, no moves (Stratego moves are not chess moves; the records keep them).
//!
//! ```text
//! [Event "Winter Cup"]
//! [Site "stratego-host"]
//! [Date "2026.12.05"]
//! [Round "3"]
//! [White "alpha"]
//! [Black "beta"]
//! [Result "1-0"]
//! [GameId "g000004"]
//! [Termination "flag_captured"]
//!
//! 1-0
//! ```
//!
//! Red is White (Red moves first, as White does), Blue is Black; a draw is `1/2-1/2`.
//! `Event` is the run's `--event` (from its manifest), `?` without one; `Round` is the
//! game's colour-swapped pair, from 1; `Date` is the game's start (UTC).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use stratego_protocol::record::GameRecord;
use stratego_rules::Color;

use crate::commands::CommandOutput;
use crate::run::plan::{ConfigError, usage};

/// The games of `records` (files or `--out` directories, in order; a game id met twice is
/// written once) as PGN into `out`.
///
/// # Errors
/// Exit 2 for a file that cannot be read or an output that may not be replaced (anything
/// but a PGN file, unless `force`); 1 when the file cannot be written.
pub fn run(records: &[PathBuf], out: &Path, force: bool, skip_bad_lines: bool) -> Result<CommandOutput, ConfigError> {
    may_write_pgn(out, force, records).map_err(usage)?;
    let mut games: Vec<(Option<String>, GameRecord)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut repeated = 0u64;
    for input in records {
        let (path, event) = if input.is_dir() {
            let manifest = crate::run::manifest::read(input).map_err(usage)?;
            (crate::record::records_path(input).map_err(usage)?, manifest.and_then(|m| m.event))
        } else {
            (input.clone(), None)
        };
        let read = if skip_bad_lines {
            crate::record::read_records_skipping(&path).map(|(records, bad)| {
                crate::record::report_skipped(&path, &bad);
                records
            })
        } else {
            crate::record::read_records_file(&path).map_err(|e| crate::record::with_skip_hint(e, &path))
        };
        for record in read.map_err(usage)? {
            if seen.insert(record.game_id.clone()) {
                games.push((event.clone(), record));
            } else {
                repeated += 1;
            }
        }
    }
    let mut text = String::new();
    for (event, record) in &games {
        text.push_str(&pgn_game(record, event.as_deref()));
    }
    std::fs::write(out, text)
        .map_err(|e| ConfigError { message: format!("{}: {e}", out.display()), code: crate::exit::FAILURE })?;
    if repeated > 0 {
        crate::notice::warn(format_args!(
            "{} met more than once in the inputs, written once",
            stratego_stats::plural(repeated, "game id")
        ));
    }
    eprintln!("stratego-host: wrote {} ({})", out.display(), stratego_stats::plural(games.len() as u64, "game"));
    Ok(CommandOutput { stdout: String::new(), code: crate::exit::OK })
}

/// One game's PGN: its tags, an empty line, the result and an empty line.
pub fn pgn_game(record: &GameRecord, event: Option<&str>) -> String {
    let result = match record.result.winner {
        Some(Color::Red) => "1-0",
        Some(Color::Blue) => "0-1",
        None => "1/2-1/2",
    };
    let reason = serde_json::to_value(record.result.reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{:?}", record.result.reason));
    let mut s = String::new();
    for (tag, value) in [
        ("Event", event.unwrap_or("?").to_owned()),
        ("Site", "stratego-host".to_owned()),
        ("Date", pgn_date(record.started_unix_ms)),
        ("Round", (record.pair + 1).to_string()),
        ("White", record.bots.red.name.clone()),
        ("Black", record.bots.blue.name.clone()),
        ("Result", result.to_owned()),
        ("GameId", record.game_id.clone()),
        ("Termination", reason),
    ] {
        let _ = writeln!(s, "[{tag} \"{}\"]", escape(&value));
    }
    let _ = write!(s, "\n{result}\n\n");
    s
}

/// A PGN tag value: `\` and `"` escaped, line breaks made spaces.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace(['\n', '\r'], " ")
}

/// `YYYY.MM.DD` (UTC) of a time in milliseconds since the Unix epoch.
fn pgn_date(unix_ms: u64) -> String {
    let days = (unix_ms / 86_400_000) as i64;
    // Days since 1970-01-01 to a civil date: count in 400-year eras of 146,097 days, with
    // years starting on 1 March so that the leap day is a year's last.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The output may be written: not a directory, not one of the inputs, and when it exists a
/// PGN file (it starts with a tag) or empty, unless `force`.
fn may_write_pgn(out: &Path, force: bool, inputs: &[PathBuf]) -> Result<(), String> {
    if out.is_dir() {
        return Err(format!("--pgn {}: is a directory; give the PGN file to write", out.display()));
    }
    let same = |a: &Path| std::fs::canonicalize(a).ok().is_some_and(|a| Some(a) == std::fs::canonicalize(out).ok());
    if inputs.iter().any(|i| same(i)) {
        return Err(format!("--pgn {}: is one of the records files read; choose another file", out.display()));
    }
    match std::fs::read(out) {
        Err(_) => Ok(()),
        Ok(bytes) if bytes.is_empty() || bytes.starts_with(b"[") || force => Ok(()),
        Ok(_) => Err(format!(
            "--pgn {}: the file exists and is not a PGN file; it is left alone (choose another file, or add --force \
             to replace it)",
            out.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::pgn_date;

    #[test]
    fn dates_are_utc_days() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(951_782_400_000), "2000.02.29");
        assert_eq!(pgn_date(951_868_799_999), "2000.02.29");
        assert_eq!(pgn_date(1_796_428_800_000), "2026.12.05");
        assert_eq!(pgn_date(4_107_542_400_000), "2100.03.01");
    }
}
