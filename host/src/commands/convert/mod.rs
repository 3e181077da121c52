//! `stratego-host convert IN OUT`: game records (`games.jsonl`, RECORDS.md) to Gravon
//! (StraDoS2) XML and back.
//!
//! Gravon → records: every game of an `.xml` file, a `.zip` of them, or a directory of
//! both (recursively) is replayed with the rules crate under its game type's ruleset and
//! written as one record a line. A game the arena cannot represent (a type without a
//! ruleset such as `ultimate lightning`; a free training board without a Flag) is
//! *skipped*, and an unreadable game, an illegal move or a recorded result the replay
//! contradicts is an *error*: each is reported on stderr with its file, and counted in the
//! summary; none is dropped silently.
//!
//! Records → Gravon: each record whose ruleset is a Gravon game type's (`classic`,
//! `barrage`, `duell`, `classicfree`) becomes one XML game: one `.xml` file, a `.zip`, or a
//! directory of `<game id>.xml`.
//!
//! Results: Gravon's `<result type winner>` maps to a record's reason as follows (the
//! record's message keeps the Gravon type, `(Gravon result type 12)`, so that converting
//! back gives the same XML): 0 `no_legal_moves`, 1 `flag_captured`, 2 `neither_can_move`,
//! 3 `resignation`, 4 (agreed draw) `resignation` with no winner, 10–14 (absence or clock)
//! `move_timeout` (the loser is the faulty side; no winner: a draw). A record made by the
//! arena maps back by its reason: the three rule endings to 0, 1, 2; a resignation or
//! fault with a winner to 3 (the loser gave the game up; Gravon's codes have no finer
//! split that fits); any other draw to 4. A type 4 draw whose replay ends at the ply limit
//! is read back as `ply_limit`, so that every ending the arena writes reads back; a fault
//! written as 3 or 4 reads back as a resignation or an agreed draw, and the writer says so
//! (a note per game on stderr, and `approximated` in the summary). Think times and bot
//! names have no place in Gravon XML and are lost.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use stratego_protocol::TimeControl;
use stratego_protocol::reason::Reason;
use stratego_protocol::record::{BotInfo, GameRecord, RecordPly, RecordResult};
use stratego_rules::gravon::{GravonGame, GravonResult, Playthrough, ruleset_for_type};
use stratego_rules::{ByColor, Color, Deployment, EndReason, Game, Ruleset};

use crate::commands::CommandOutput;

mod gravon_archive;
use crate::exit;
use crate::run::plan::ConfigError;
use gravon_archive::has_ext;
pub use gravon_archive::{GravonGames, gravon_game_id, gravon_games, read_gravon};

/// The Gravon game types the arena can play, in the order a record's ruleset is matched.
pub const GRAVON_TYPES: [&str; 4] = ["classic", "barrage", "duell", "classicfree"];

/// `convert` options, as the command line gave them ([`crate::cli::records`]).
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// Input: game records (a games.jsonl file, or an --out directory holding one), or
    /// Gravon XML (an .xml file, a .zip of them, or a directory of .xml and .zip files).
    pub input: PathBuf,
    /// Output: records are written to OUT.jsonl or OUT/games.jsonl; Gravon XML to OUT.xml
    /// (one game), OUT.zip, or a directory OUT of <game id>.xml files. It must not exist
    /// yet (a directory may exist if empty).
    pub output: PathBuf,
    /// The output format, when IN does not tell (a directory holding both kinds, or a
    /// file without a telling extension or content).
    pub to: Option<RecordFormat>,
    /// Only these games (by game id; repeat), for records → Gravon.
    pub game: Vec<String>,
    /// Print the summary as JSON on stdout.
    pub json: bool,
}

/// A game file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordFormat {
    /// The arena's game records (JSON Lines, RECORDS.md).
    Records,
    /// Gravon (StraDoS2) XML.
    Gravon,
}

/// Why one game was not converted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The arena cannot represent the game (key: what kind, for the summary's counts;
    /// message: why).
    Unsupported {
        /// The count it goes under, e.g. the game type.
        key: String,
        /// In words.
        message: String,
    },
    /// The game is broken: unreadable, an illegal move, a result the replay contradicts.
    Error(String),
}

impl Problem {
    fn error(message: impl Into<String>) -> Problem {
        Problem::Error(message.into())
    }
}

/// What a conversion did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ConvertReport {
    /// Direction: the input format.
    pub from: Option<RecordFormat>,
    /// Direction: the output format.
    pub to: Option<RecordFormat>,
    /// Games read.
    pub games: usize,
    /// Games written.
    pub converted: usize,
    /// Plies of the games written.
    pub plies: usize,
    /// Games skipped as unsupported, by kind (the game type, or what the arena lacks).
    pub skipped: BTreeMap<String, usize>,
    /// Games that are broken.
    pub errors: usize,
    /// Games whose ending Gravon has no result type for, written as the nearest one (a
    /// fault as a resignation, a draw by faults as an agreed draw), by what was written
    /// as what.
    pub approximated: BTreeMap<String, usize>,
    /// A line per game skipped or broken: `file: skipped: why` / `file: error: why`.
    pub problems: Vec<String>,
    /// The file or directory written.
    pub output: String,
}

impl ConvertReport {
    fn note(&mut self, name: &str, problem: Problem) {
        let line = match problem {
            Problem::Unsupported { key, message } => {
                *self.skipped.entry(key).or_default() += 1;
                format!("{name}: skipped: {message}")
            }
            Problem::Error(message) => {
                self.errors += 1;
                format!("{name}: error: {message}")
            }
        };
        // Entry names and messages come from archives and records made anywhere.
        eprintln!("stratego-host convert: {}", crate::text::clean(&line));
        self.problems.push(line);
    }

    /// The summary line for people.
    pub fn render(&self) -> String {
        let skipped: usize = self.skipped.values().sum();
        let kinds: Vec<String> = self.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let kinds = if kinds.is_empty() { String::new() } else { format!(" ({})", kinds.join(", ")) };
        let name = |f: Option<RecordFormat>| match f {
            Some(RecordFormat::Records) => "records",
            Some(RecordFormat::Gravon) => "Gravon XML",
            None => "?",
        };
        let approximated = match self.approximated.values().sum::<usize>() {
            0 => String::new(),
            n => {
                let kinds: Vec<String> = self.approximated.iter().map(|(k, n)| format!("{k}: {n}")).collect();
                format!(
                    "; {n} endings have no Gravon result type and were written as the nearest ({})",
                    kinds.join(", ")
                )
            }
        };
        format!(
            "converted {} of {} games ({} plies) from {} to {} in {}; skipped {skipped}{kinds}; errors {}{approximated}\n",
            self.converted,
            self.games,
            self.plies,
            name(self.from),
            name(self.to),
            self.output,
            self.errors
        )
    }
}

/// The `type` attribute of a file's `<game>` element, read without parsing the rest (for a
/// game whose moves the parser cannot read, e.g. `ultimate lightning` squares).
fn sniff_game_type(xml: &str) -> Option<String> {
    let at = xml.find("<game")?;
    let rest = &xml[at..xml[at..].find('>').map_or(xml.len(), |e| at + e)];
    let t = rest.find("type=")? + 5;
    let quote = rest[t..].chars().next()?;
    let body = &rest[t + 1..];
    Some(body[..body.find(quote)?].to_owned())
}

/// The message marker that keeps a Gravon result type in a record.
fn marker(kind: u8) -> String {
    format!("(Gravon result type {kind})")
}

fn marked_kind(message: &str) -> Option<u8> {
    let at = message.rfind("(Gravon result type ")? + "(Gravon result type ".len();
    message[at..].split(')').next()?.parse().ok()
}

/// Converts one Gravon game (its text, named `name`) into a record numbered `index`.
///
/// # Errors
/// [`Problem::Unsupported`] for a game type without a ruleset or a deployment an arena
/// record cannot hold; [`Problem::Error`] for unreadable XML, an illegal move or a result
/// the replay contradicts.
pub fn gravon_to_record(name: &str, xml: &str, index: u32) -> Result<GameRecord, Problem> {
    let g = match GravonGame::parse(xml) {
        Ok(g) => g,
        Err(e) => {
            return Err(match sniff_game_type(xml) {
                Some(t) if ruleset_for_type(&t).is_none() => unsupported_type(&t),
                _ => Problem::error(e.to_string()),
            });
        }
    };
    let rules = g.ruleset().ok_or_else(|| unsupported_type(&g.game_type))?;
    let (red, blue) = g.deployments(&rules).map_err(|e| Problem::error(e.to_string()))?;
    // A record's setups are read back with `Deployment::parse`, which requires the Flag
    // that free training boards may leave out.
    let rows = ByColor::new(red.to_rows(&rules), blue.to_rows(&rules));
    for color in Color::ALL {
        if let Err(e) = Deployment::parse(&rules, color, &rows[color]) {
            return Err(Problem::Unsupported {
                key: format!("{}: setup an arena record cannot hold", g.game_type),
                message: format!("{color}'s setup: {e} (arena records require it)"),
            });
        }
    }
    let replay = Playthrough::run(&g).map_err(|e| Problem::error(e.to_string()))?;
    if let Some((ply, mv, why)) = &replay.illegal {
        return Err(Problem::error(format!("ply {ply} {mv} is illegal: {why}")));
    }
    let result = g.result.ok_or_else(|| Problem::error("no <result> element"))?;
    // A draw the rules made (the ply limit) has no Gravon type of its own: the host writes
    // it as type 4 (a draw), and reads it back as the rules' draw.
    let rules_draw = replay
        .outcome
        .filter(|o| o.winner.is_none() && matches!(o.reason, EndReason::PlyLimit | EndReason::SealedFlags))
        .filter(|_| (result.kind, result.winner) == (4, 3));
    if !replay.agrees && rules_draw.is_none() {
        let said = replay.outcome.map_or("the game goes on".to_owned(), |o| o.to_string());
        return Err(Problem::error(format!(
            "result type {} winner {} disagrees with the replay: {said}",
            result.kind, result.winner
        )));
    }
    let mut game = Game::new(rules.clone(), &red, &blue).map_err(|e| Problem::error(e.to_string()))?;
    let mut plies = Vec::with_capacity(g.moves.len());
    for (i, &mv) in g.moves.iter().enumerate() {
        let ply = game.play(mv).map_err(|e| Problem::error(format!("ply {} {mv} is illegal: {e}", i + 1)))?;
        plies.push(RecordPly { ply, time_us: 0, stall_us: 0, over_us: 0, lag_us: None, lag_credit_us: 0 });
    }
    let (winner, reason, what) = gravon_ending(result, rules_draw)?;
    let faulty = if reason == Reason::MoveTimeout { winner.map(|w| !w) } else { None };
    let who = match winner {
        Some(c) => format!("{c} wins"),
        None => "Draw".to_owned(),
    };
    let bot = |c: Color| BotInfo::new(format!("gravon-{}", c.name()), Vec::new());
    Ok(GameRecord {
        game_id: gravon_game_id(name),
        index,
        pair: index,
        book_setups: ByColor::new(None, None),
        match_seed: 0,
        seed: 0,
        host_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_unix_ms: 0,
        duration_ms: 0,
        ruleset: rules.spec().clone(),
        time_control: TimeControl {
            startup_ms: 0,
            setup_ms: 0,
            move_ms: None,
            bank_ms: None,
            increment_ms: 0,
            margin_ms: 0,
        },
        time_controls: None,
        bots: ByColor::new(bot(Color::Red), bot(Color::Blue)),
        deployments: ByColor::new(Some(rows.red), Some(rows.blue)),
        plies,
        result: RecordResult {
            winner,
            reason,
            message: format!("{who}: {what}, a Gravon game {}", marker(result.kind)),
            faulty,
        },
    })
}

/// A Gravon `result`'s winner, the reason it ended and that reason in words; a type 4 (a
/// draw) that the rules made (`rules_draw`) is that draw, not an agreed one.
///
/// # Errors
/// A winner or a result type that Gravon does not have.
fn gravon_ending(
    result: GravonResult,
    rules_draw: Option<stratego_rules::Outcome>,
) -> Result<(Option<Color>, Reason, String), Problem> {
    let winner = match result.winner {
        1 => Some(Color::Red),
        2 => Some(Color::Blue),
        3 => None,
        w => return Err(Problem::error(format!("result winner {w}: expected 1, 2 or 3"))),
    };
    let (reason, what) = match result.kind {
        0 => (Reason::NoLegalMoves, "the loser could not move".to_owned()),
        1 => (Reason::FlagCaptured, "flag captured".to_owned()),
        2 => (Reason::NeitherCanMove, "neither side could move".to_owned()),
        3 => (Reason::Resignation, "resignation".to_owned()),
        4 => match rules_draw {
            Some(o) => (Reason::from(o.reason), format!("{} (by the rules)", o.reason)),
            None => (Reason::Resignation, "draw agreed".to_owned()),
        },
        k @ 10..=14 => (Reason::MoveTimeout, format!("absence or clock (code {k})")),
        k => return Err(Problem::error(format!("result type {k}: not a Gravon result type (0-4, 10-14)"))),
    };
    Ok((winner, reason, what))
}

fn unsupported_type(t: &str) -> Problem {
    Problem::Unsupported {
        key: t.to_owned(),
        message: format!("game type {t:?} is not supported (no ruleset; supported: {})", GRAVON_TYPES.join(", ")),
    }
}

/// The Gravon game type whose ruleset `record` was played under: the type whose ruleset
/// is the record's, or whose ruleset differs from it only in its ply limit (a game played
/// with `--max-plies`) when the game is no longer than the type's limit (its moves are
/// then a game of that type; a draw at the record's own limit is written as an agreed
/// draw, see [`approximation`]).
///
/// # Errors
/// No such type: [`Problem::Unsupported`] naming the fields in which the record's ruleset
/// differs from the nearest type's.
fn gravon_type(record: &GameRecord) -> Result<&'static str, Problem> {
    let own = serde_json::to_value(&record.ruleset).unwrap_or_default();
    let mut nearest: Option<(&'static str, Vec<String>)> = None;
    for t in GRAVON_TYPES {
        let Some(rules) = ruleset_for_type(t) else { continue };
        if *rules.spec() == record.ruleset {
            return Ok(t);
        }
        let theirs = serde_json::to_value(rules.spec()).unwrap_or_default();
        let differ: Vec<String> = match (own.as_object(), theirs.as_object()) {
            (Some(a), Some(b)) => b
                .iter()
                .filter(|(k, v)| a.get(k.as_str()) != Some(v))
                .map(|(k, v)| {
                    format!("{k} ({}; Gravon's {t}: {v})", a.get(k.as_str()).unwrap_or(&serde_json::Value::Null))
                })
                .collect(),
            _ => vec!["(not comparable)".into()],
        };
        if differ.len() == 1 && record.ruleset.ply_limit != rules.ply_limit() {
            let fits = rules.ply_limit().is_none_or(|limit| record.plies.len() <= limit as usize);
            if fits {
                return Ok(t);
            }
            return Err(Problem::Unsupported {
                key: format!("ruleset {}: longer than Gravon's ply limit", record.ruleset.name),
                message: format!(
                    "ruleset {:?} differs from Gravon's {t} only in ply_limit ({}), and the game's {} plies go past Gravon's {t} limit of {}",
                    record.ruleset.name,
                    limit_text(record.ruleset.ply_limit),
                    record.plies.len(),
                    limit_text(rules.ply_limit())
                ),
            });
        }
        // The nearest: the type of the same name, else the one with fewest differences.
        let better = match &nearest {
            None => true,
            Some((n, d)) => *n != record.ruleset.name && (t == record.ruleset.name || differ.len() < d.len()),
        };
        if better {
            nearest = Some((t, differ));
        }
    }
    let (t, differ) = nearest.unwrap_or(("classic", Vec::new()));
    Err(Problem::Unsupported {
        key: format!("ruleset {}", record.ruleset.name),
        message: format!(
            "ruleset {:?} is not a Gravon game type's ({}): it differs from Gravon's {t} in {}",
            record.ruleset.name,
            GRAVON_TYPES.join(", "),
            differ.join(", ")
        ),
    })
}

fn limit_text(limit: Option<u32>) -> String {
    limit.map_or("none".to_owned(), |n| n.to_string())
}

/// Converts one record into a Gravon game.
///
/// # Errors
/// [`Problem::Unsupported`] for a ruleset that is no Gravon game type or a game that did
/// not start (no setups); [`Problem::Error`] for a record that does not replay.
pub fn record_to_gravon(record: &GameRecord) -> Result<GravonGame, Problem> {
    let game_type = gravon_type(record)?;
    let rules = Ruleset::try_from(record.ruleset.clone()).map_err(|e| Problem::error(e.to_string()))?;
    let (Some(r), Some(b)) = (&record.deployments.red, &record.deployments.blue) else {
        return Err(Problem::Unsupported {
            key: "no setups".into(),
            message: format!("the game did not start (no setups): {}", record.result.message),
        });
    };
    let red = Deployment::parse(&rules, Color::Red, r).map_err(|e| Problem::error(format!("Red's setup: {e}")))?;
    let blue = Deployment::parse(&rules, Color::Blue, b).map_err(|e| Problem::error(format!("Blue's setup: {e}")))?;
    let mut game = Game::new(rules, &red, &blue).map_err(|e| Problem::error(e.to_string()))?;
    for (i, p) in record.plies.iter().enumerate() {
        let played = game.play(p.ply.mv).map_err(|e| Problem::error(format!("ply {} {}: {e}", i + 1, p.ply.mv)))?;
        if played != p.ply {
            return Err(Problem::error(format!("ply {}: recorded {:?}, replayed {:?}", i + 1, p.ply, played)));
        }
    }
    let res = &record.result;
    let winner = match res.winner {
        Some(Color::Red) => 1,
        Some(Color::Blue) => 2,
        None => 3,
    };
    let by_reason = match (res.reason, res.winner) {
        (Reason::NoLegalMoves, _) => 0,
        (Reason::FlagCaptured, _) => 1,
        (Reason::NeitherCanMove, _) => 2,
        (_, Some(_)) => 3,
        (_, None) => 4,
    };
    // A record converted from Gravon keeps its result type; trust it when it fits the
    // reason (it is only a note in the message).
    let kind = match marked_kind(&res.message) {
        Some(k @ 0..=2) if k == by_reason => k,
        Some(3) if res.reason == Reason::Resignation && res.winner.is_some() => 3,
        Some(4) if res.reason == Reason::Resignation && res.winner.is_none() => 4,
        Some(k @ 10..=14) if res.reason == Reason::MoveTimeout => k,
        _ => by_reason,
    };
    Ok(GravonGame::from_game(game_type, &game, Some(GravonResult { kind, winner })))
}

/// How `record_to_gravon` writes a record's ending when Gravon has no result type for it:
/// `Some("crash as type 3 (resignation)")` for a fault with a winner (read back as a
/// resignation), `Some("… as type 4 (agreed draw)")` for a draw by faults; `None` when the
/// ending goes both ways unchanged (the rules' endings, the ply limit, a resignation, a
/// Gravon time-out kept from a converted game).
pub fn approximation(record: &GameRecord) -> Option<String> {
    let res = &record.result;
    if res.reason == Reason::PlyLimit {
        // A `--max-plies` limit Gravon's type does not have: an agreed draw in Gravon.
        let t = gravon_type(record).ok()?;
        let theirs = ruleset_for_type(t)?.ply_limit();
        if theirs != record.ruleset.ply_limit {
            return Some(format!(
                "ply_limit at {} plies (Gravon's {t}: {}) as type 4 (agreed draw)",
                limit_text(record.ruleset.ply_limit),
                limit_text(theirs)
            ));
        }
        return None;
    }
    if !res.reason.is_fault() {
        return None;
    }
    if res.reason == Reason::MoveTimeout && matches!(marked_kind(&res.message), Some(10..=14)) {
        return None;
    }
    Some(match res.winner {
        Some(_) => format!("{} as type 3 (resignation)", res.reason.code()),
        None => format!("{} as type 4 (agreed draw)", res.reason.code()),
    })
}

/// The file name of a game's XML in a zip or directory: its id with anything but
/// letters, digits, `.`, `-`, `_` (and a leading dot) replaced by `_`.
fn xml_file_name(id: &str) -> String {
    let mut s: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s + ".xml"
}

/// What a path holds, from its name and, failing that, its first bytes.
fn detect(path: &Path) -> Result<Option<RecordFormat>, String> {
    if path.is_dir() {
        let records = crate::record::records_path(path)?.is_file();
        let gravon = gravon_games(path, 0).map(|g| !g.is_empty()).unwrap_or(false);
        return Ok(match (records, gravon) {
            (true, false) => Some(RecordFormat::Records),
            (false, true) => Some(RecordFormat::Gravon),
            _ => None,
        });
    }
    if has_ext(path, "jsonl") || has_ext(path, "json") || path.to_string_lossy().ends_with(".jsonl.zst") {
        return Ok(Some(RecordFormat::Records));
    }
    if has_ext(path, "xml") || has_ext(path, "zip") {
        return Ok(Some(RecordFormat::Gravon));
    }
    let mut head = [0u8; 64];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&head[..n]);
    Ok(match text.trim_start().chars().next() {
        Some('{') => Some(RecordFormat::Records),
        Some('<') => Some(RecordFormat::Gravon),
        Some('P') if head.starts_with(b"PK") => Some(RecordFormat::Gravon),
        _ if head.starts_with(&stratego_records::ZSTD_MAGIC) => Some(RecordFormat::Records),
        _ => None,
    })
}

/// Runs a conversion.
///
/// # Errors
/// A usage problem: an input that cannot be read or told apart, an output that exists, an
/// unknown `--game`.
pub fn convert(args: &ConvertOptions) -> Result<ConvertReport, String> {
    if !args.input.exists() {
        return Err(format!("{}: no such file or directory", args.input.display()));
    }
    let from = match (detect(&args.input)?, args.to) {
        (Some(f), Some(to)) if f == to => {
            return Err(format!(
                "{} holds {}; --to {} asks for the same format",
                args.input.display(),
                format_name(f),
                format_name(to)
            ));
        }
        (Some(f), _) => f,
        (None, Some(RecordFormat::Gravon)) => RecordFormat::Records,
        (None, Some(RecordFormat::Records)) => RecordFormat::Gravon,
        (None, None) => {
            return Err(format!(
                "{}: cannot tell whether it holds records or Gravon XML; say which with --to records|gravon",
                args.input.display()
            ));
        }
    };
    let out = &args.output;
    crate::run::output_file::must_be_new(out, "convert writes a new file or an empty directory")?;
    match from {
        RecordFormat::Gravon => {
            if !args.game.is_empty() {
                return Err("--game picks records to write as Gravon XML; a Gravon input converts whole".into());
            }
            gravon_to_records(&args.input, out)
        }
        RecordFormat::Records => records_to_gravon(&args.input, out, &args.game),
    }
}

fn format_name(f: RecordFormat) -> &'static str {
    match f {
        RecordFormat::Records => "records",
        RecordFormat::Gravon => "gravon",
    }
}

fn gravon_to_records(input: &Path, out: &Path) -> Result<ConvertReport, String> {
    let games = gravon_games(input, stratego_records::max_record_bytes())?;
    if games.is_empty() {
        return Err(format!("{}: no Gravon .xml games found", input.display()));
    }
    let mut summary = ConvertReport {
        from: Some(RecordFormat::Gravon),
        to: Some(RecordFormat::Records),
        games: games.len(),
        ..ConvertReport::default()
    };
    let file = if out.is_dir() || !has_ext(out, "jsonl") { out.join("games.jsonl") } else { out.to_owned() };
    let made_dir = !out.exists() && file != out;
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let io = |e: std::io::Error| format!("{}: {e}", file.display());
    // Each record is written as it is made: one game's text and record in memory at a time.
    let mut w = std::io::BufWriter::new(std::fs::File::create(&file).map_err(io)?);
    let mut ids = std::collections::HashSet::new();
    for (name, xml) in games {
        let made = xml.map_err(Problem::Error).and_then(|xml| gravon_to_record(&name, &xml, summary.converted as u32));
        match made {
            Ok(mut record) => {
                // Two files of the same name in different archives: keep ids unique.
                if !ids.insert(record.game_id.clone()) {
                    record.game_id = format!("{}-{}", record.game_id, record.index);
                    ids.insert(record.game_id.clone());
                }
                summary.converted += 1;
                summary.plies += record.plies.len();
                serde_json::to_writer(&mut w, &record).map_err(|e| e.to_string())?;
                w.write_all(b"\n").map_err(io)?;
            }
            Err(p) => summary.note(&name, p),
        }
    }
    w.flush().map_err(io)?;
    drop(w);
    summary.output = file.display().to_string();
    if summary.converted == 0 {
        // No output rather than an empty one.
        let _ = std::fs::remove_file(&file);
        if made_dir {
            let _ = std::fs::remove_dir(out);
        }
        return Err(nothing_converted(&summary, out));
    }
    Ok(summary)
}

/// The error of a conversion that converted no game: what the games were, and that
/// nothing was written.
fn nothing_converted(summary: &ConvertReport, out: &Path) -> String {
    let kinds: Vec<String> = summary.skipped.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    let skipped: usize = summary.skipped.values().sum();
    let mut why = Vec::new();
    if skipped > 0 {
        why.push(format!("{skipped} skipped ({})", kinds.join(", ")));
    }
    if summary.errors > 0 {
        why.push(format!("{} broken", summary.errors));
    }
    format!(
        "none of the {} games converted ({}; each is named above): {} not written",
        summary.games,
        why.join(", "),
        out.display()
    )
}

fn records_to_gravon(input: &Path, out: &Path, only: &[String]) -> Result<ConvertReport, String> {
    let file = if input.is_dir() { crate::record::records_path(input)? } else { input.to_owned() };
    let mut records = crate::record::read_records_file(&file)?;
    if !only.is_empty() {
        for id in only {
            if !records.iter().any(|r| &r.game_id == id) {
                return Err(format!("--game {id}: no such game in {}", file.display()));
            }
        }
        records.retain(|r| only.contains(&r.game_id));
    }
    if records.is_empty() {
        return Err(format!("{}: no game records", file.display()));
    }
    let mut summary = ConvertReport {
        from: Some(RecordFormat::Records),
        to: Some(RecordFormat::Gravon),
        games: records.len(),
        ..ConvertReport::default()
    };
    let mut xmls = Vec::new();
    for r in &records {
        match record_to_gravon(r) {
            Ok(g) => {
                summary.converted += 1;
                summary.plies += g.moves.len();
                if let Some(how) = approximation(r) {
                    eprintln!(
                        "stratego-host convert: {}: game {}: note: Gravon has no result type for {}: written {how}",
                        file.display(),
                        crate::text::clean(&r.game_id),
                        r.result.reason.code()
                    );
                    *summary.approximated.entry(how).or_default() += 1;
                }
                xmls.push((xml_file_name(&r.game_id), g.to_xml()));
            }
            Err(p) => summary.note(&format!("{}: game {}", file.display(), r.game_id), p),
        }
    }
    if xmls.is_empty() {
        return Err(nothing_converted(&summary, out));
    }
    let write = |p: &Path, bytes: &[u8]| std::fs::write(p, bytes).map_err(|e| format!("{}: {e}", p.display()));
    if has_ext(out, "xml") {
        match xmls.as_slice() {
            [] => {}
            [(_, xml)] => write(out, xml.as_bytes())?,
            _ => {
                return Err(format!(
                    "{}: one .xml file holds one game, and {} converted: pick one with --game ID, or write a .zip or a directory",
                    out.display(),
                    xmls.len()
                ));
            }
        }
    } else if has_ext(out, "zip") {
        let f = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
        let mut zip = zip::ZipWriter::new(f);
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        let mut names = std::collections::HashSet::new();
        for (name, xml) in &xmls {
            let name = unique(name, &mut names);
            zip.start_file(name.as_str(), options).map_err(|e| format!("{}: {e}", out.display()))?;
            zip.write_all(xml.as_bytes()).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        zip.finish().map_err(|e| format!("{}: {e}", out.display()))?;
    } else {
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
        let mut names = std::collections::HashSet::new();
        for (name, xml) in &xmls {
            write(&out.join(unique(name, &mut names)), xml.as_bytes())?;
        }
    }
    summary.output = out.display().to_string();
    Ok(summary)
}

/// `name`, or `name` with `-2`, `-3`… before `.xml` when taken.
fn unique(name: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let mut candidate = name.to_owned();
    let mut k = 2;
    while !taken.insert(candidate.clone()) {
        candidate = format!("{}-{k}.xml", name.trim_end_matches(".xml"));
        k += 1;
    }
    candidate
}

/// `stratego-host convert`: prints the summary on stdout (`--json`: as JSON) and a line
/// per game skipped or broken on stderr. Exit code 0 when no game was broken (skipped
/// games are reported, not failures), 1 when some were.
///
/// # Errors
/// A usage problem (exit 2), its message after `convert: `.
pub fn run(args: ConvertOptions) -> Result<CommandOutput, ConfigError> {
    let summary = convert(&args).map_err(|e| ConfigError { message: format!("convert: {e}"), code: exit::USAGE })?;
    let stdout = if args.json { crate::compete::report::json(&summary) } else { summary.render() };
    Ok(CommandOutput { stdout, code: if summary.errors > 0 { exit::FAILURE } else { exit::OK } })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELD: &str =
        "MBLKEDDCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA__AA__AAAA__AA__AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYNXWQPPOAA";

    fn xml(ty: &str, moves: &[(&str, &str)], result: &str) -> String {
        let mut s = format!("<?xml version=\"1.0\"?><stratego><game type=\"{ty}\"><field content=\"{FIELD}\"/>");
        for (i, (a, b)) in moves.iter().enumerate() {
            s.push_str(&format!("<move id=\"{}\" source=\"{a}\" target=\"{b}\"/>", i + 1));
        }
        s.push_str(result);
        s.push_str("</game></stratego>");
        s
    }

    #[test]
    fn a_barrage_game_goes_both_ways() {
        let text = xml("barrage", &[("D1", "D2"), ("D:", "D9")], r#"<result type="3" winner="2"/>"#);
        let rec = gravon_to_record("z.zip:barrage-1.xml", &text, 0).unwrap();
        assert_eq!(rec.game_id, "barrage-1");
        assert_eq!(rec.plies.len(), 2);
        assert_eq!(rec.play_through().unwrap(), None);
        assert_eq!((rec.result.winner, rec.result.reason), (Some(Color::Blue), Reason::Resignation));
        let back = record_to_gravon(&rec).unwrap();
        assert_eq!(back, GravonGame::parse(&text).unwrap());
    }

    #[test]
    fn clock_results_keep_their_code() {
        for (kind, winner) in [(12u8, 3u8), (11, 1), (4, 3)] {
            let text = xml("barrage", &[("D1", "D2")], &format!(r#"<result type="{kind}" winner="{winner}"/>"#));
            let rec = gravon_to_record("x.xml", &text, 0).unwrap();
            let back = record_to_gravon(&rec).unwrap();
            assert_eq!(back.result, Some(GravonResult { kind, winner }), "{}", rec.result.message);
        }
        let rec = gravon_to_record("x.xml", &xml("barrage", &[], r#"<result type="11" winner="1"/>"#), 0).unwrap();
        assert_eq!((rec.result.reason, rec.result.faulty), (Reason::MoveTimeout, Some(Color::Blue)));
    }

    #[test]
    fn problems_are_told_apart() {
        let ul = xml("ultimate lightning", &[("J1", "J2")], r#"<result type="3" winner="1"/>"#);
        assert!(
            matches!(gravon_to_record("u.xml", &ul, 0), Err(Problem::Unsupported { key, .. }) if key == "ultimate lightning")
        );
        let illegal = xml("barrage", &[("D1", "D5")], r#"<result type="3" winner="1"/>"#);
        match gravon_to_record("i.xml", &illegal, 0) {
            Err(Problem::Error(e)) => assert!(e.contains("ply 1 d1-d5"), "{e}"),
            other => panic!("{other:?}"),
        }
        // A flag capture the replay does not show.
        let wrong = xml("barrage", &[("D1", "D2")], r#"<result type="1" winner="1"/>"#);
        assert!(matches!(gravon_to_record("w.xml", &wrong, 0), Err(Problem::Error(e)) if e.contains("disagrees")));
        assert!(matches!(gravon_to_record("b.xml", "<stratego>", 0), Err(Problem::Error(_))));
    }

    #[test]
    fn names_and_markers() {
        assert_eq!(gravon_game_id("strados2005-1.zip:classic-2005.1-3.xml"), "classic-2005.1-3");
        assert_eq!(xml_file_name("a/b c"), "a_b_c.xml");
        assert_eq!(xml_file_name(".."), "_...xml");
        assert_eq!(marked_kind("Draw: x (Gravon result type 12)"), Some(12));
        assert_eq!(
            sniff_game_type(r#"<stratego><game type="ultimate lightning">"#).as_deref(),
            Some("ultimate lightning")
        );
    }
}
