//! Game records: one self-contained JSON object per game, appended to a JSON Lines file
//! as soon as the game ends. RECORDS.md documents every field.
//!
//! They live here, beside the protocol's types, so that a viewer or an analysis tool can
//! read records and play them through the rules with only serde and the rules crate (no tokio, libc or clap).

use serde::{Deserialize, Serialize};
use stratego_rules::{ByColor, Color, Deployment, Game, Outcome, Ply, Ruleset, RulesetSpec};

use crate::reason::Reason;

/// What a record says about one bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotInfo {
    /// Name from the bot spec.
    pub name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Name the bot gave in `ready`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_name: Option<String>,
    /// Version from `ready`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Author from `ready`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Last bytes of stderr (at most 8 KiB; a multi-game process's tail covers its games so far).
    pub stderr_tail: String,
    /// Bytes the process has written to stderr in all.
    pub stderr_bytes: u64,
    /// `info` lines sent during this game: the first 100 and the last 100 (each clipped to
    /// 1000 characters).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub info: Vec<String>,
    /// For each line of `info`, the plies played when it came (a line sent while the bot
    /// thought on a turn carries that turn's `ply`: it belongs to the move that became ply
    /// `ply + 1`). Absent in records of hosts before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub info_plies: Vec<u32>,
    /// `info` lines sent in this game but not kept (those between the first 100 and the
    /// last 100). Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub info_dropped: u64,
    /// Bytes the host sent to the bot in this game.
    pub bytes_to_bot: u64,
    /// Bytes the bot sent in this game.
    pub bytes_from_bot: u64,
    /// Total think time over the game's moves, in microseconds.
    pub think_us: u64,
    /// Bank left at the end, in milliseconds (`null` without a bank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
    /// After a timeout: how long after the deadline the host declared it, microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_late_us: Option<u64>,
    /// Faults forgiven under `--strikes`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strikes: Vec<StrikeRecord>,
    /// What the host had to do about the bot's process for this game: a multi-game bot that
    /// exited after its previous game gets a fresh process, noted here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_note: Option<String>,
    /// Answers the bot sent that no request asked for (a second `move` for a turn already
    /// answered, a move for another ply), each in words; they were not played.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unrequested: Vec<String>,
    /// How the process ended, if it was stopped after this game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<String>,
    /// A remote bot's time away in this game, microseconds: how long the game waited for
    /// its lost connection to come back, its clock paused (not part of `think_us`).
    /// Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub away_us: u64,
}

impl BotInfo {
    /// A bot known only by its name and command: every count zero, nothing reported yet.
    pub fn new(name: String, command: Vec<String>) -> BotInfo {
        BotInfo {
            name,
            command,
            reported_name: None,
            version: None,
            author: None,
            stderr_tail: String::new(),
            stderr_bytes: 0,
            info: Vec::new(),
            info_plies: Vec::new(),
            info_dropped: 0,
            bytes_to_bot: 0,
            bytes_from_bot: 0,
            think_us: 0,
            clock_ms: None,
            timeout_late_us: None,
            strikes: Vec::new(),
            process_note: None,
            unrequested: Vec::new(),
            exit: None,
            away_us: 0,
        }
    }
}

/// A fault forgiven under the strike policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrikeRecord {
    /// The ply played for the bot (1-based).
    pub ply: u32,
    /// The fault.
    pub reason: Reason,
    /// What was wrong.
    pub message: String,
    /// The random legal move played instead.
    pub replaced_by: stratego_rules::Move,
}

/// One ply and the time the mover took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "RecordPlyWire")]
pub struct RecordPly {
    /// The ply.
    #[serde(flatten)]
    pub ply: Ply,
    /// Think time in microseconds, from the end of the host's write of the turn to the end
    /// of the bot's answer line.
    pub time_us: u64,
    /// Time the machine was stalled during the move (see `RECORDS.md`), in microseconds:
    /// credited to the bot, so not part of `time_us`. Absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stall_us: u64,
    /// How far past its limit the move came, within the host's safety margin
    /// (`time_control.margin_ms`), in microseconds. Absent when it came in time.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub over_us: u64,
    /// A remote bot's move: the network lag the host measured for it at the time (the recent
    /// median one-way lag, from ping/pong outside the bot's thinking), in microseconds.
    /// Absent for local bots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_us: Option<u64>,
    /// A remote bot's move: the lag credited to it (not part of `time_us`), in microseconds:
    /// at most `lag_us`, at most the fixed cap and at most its refilling quota (see
    /// `RECORDS.md`). Absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lag_credit_us: u64,
}

/// [`RecordPly`] as it is read: its ply's fields beside its own. Read through
/// `#[serde(flatten)]`, every ply was first buffered field by field (about 5 times slower:
/// the plies are most of a record).
#[derive(Deserialize)]
struct RecordPlyWire {
    color: stratego_rules::Color,
    #[serde(rename = "move")]
    mv: stratego_rules::Move,
    #[serde(default)]
    combat: Option<stratego_rules::Combat>,
    time_us: u64,
    #[serde(default)]
    stall_us: u64,
    #[serde(default)]
    over_us: u64,
    #[serde(default)]
    lag_us: Option<u64>,
    #[serde(default)]
    lag_credit_us: u64,
}

impl From<RecordPlyWire> for RecordPly {
    fn from(w: RecordPlyWire) -> RecordPly {
        RecordPly {
            ply: Ply { color: w.color, mv: w.mv, combat: w.combat },
            time_us: w.time_us,
            stall_us: w.stall_us,
            over_us: w.over_us,
            lag_us: w.lag_us,
            lag_credit_us: w.lag_credit_us,
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn no_book(b: &ByColor<Option<u32>>) -> bool {
    b.red.is_none() && b.blue.is_none()
}

/// The result of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordResult {
    /// The winning side, `null` for a draw.
    pub winner: Option<Color>,
    /// Why it ended.
    pub reason: Reason,
    /// The same in words.
    pub message: String,
    /// The side that faulted, for forfeits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faulty: Option<Color>,
}

/// A complete game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Game id, unique within the run.
    pub game_id: String,
    /// Position in the run's schedule (0-based).
    pub index: u32,
    /// The colour-swapped pair the game belongs to (games `2 * pair` and `2 * pair + 1`).
    #[serde(default)]
    pub pair: u32,
    /// The setup book entries played by each side (absent without a book; `null` for a
    /// side that chose its own setup).
    #[serde(default, skip_serializing_if = "no_book")]
    pub book_setups: ByColor<Option<u32>>,
    /// The match's master seed.
    pub match_seed: u64,
    /// This game's seed (bots get seeds derived from it).
    pub seed: u64,
    /// `stratego-host` version.
    pub host_version: String,
    /// Start time, milliseconds since the Unix epoch.
    pub started_unix_ms: u64,
    /// Wall time of the game, milliseconds.
    pub duration_ms: u64,
    /// The rules.
    pub ruleset: RulesetSpec,
    /// The time control (Red's when the bots have their own: see `time_controls`).
    pub time_control: crate::TimeControl,
    /// Each seat's time control, when the bots have their own (`move_time` per bot);
    /// absent when both play under `time_control`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_controls: Option<ByColor<crate::TimeControl>>,
    /// The bots by colour.
    pub bots: ByColor<BotInfo>,
    /// The setups in rows form (`null` if a bot gave no valid setup).
    pub deployments: ByColor<Option<String>>,
    /// Every ply.
    pub plies: Vec<RecordPly>,
    /// How it ended.
    pub result: RecordResult,
}

impl GameRecord {
    /// Plays the record through the rules crate (a check, not a display: showing a record is
    /// `stratego-host replay`'s): every ply must be legal and have the
    /// recorded fight, and the rules' outcome is returned (`None` when the rules had not
    /// ended the game, e.g. a forfeit or resignation).
    ///
    /// # Errors
    /// What does not play through: a bad setup, or the first illegal or misrecorded ply.
    pub fn play_through(&self) -> Result<Option<Outcome>, String> {
        let rules = Ruleset::try_from(self.ruleset.clone()).map_err(|e| e.to_string())?;
        let (Some(r), Some(b)) = (&self.deployments.red, &self.deployments.blue) else {
            return if self.plies.is_empty() { Ok(None) } else { Err("plies without both setups".into()) };
        };
        let red = Deployment::parse(&rules, Color::Red, r).map_err(|e| e.to_string())?;
        let blue = Deployment::parse(&rules, Color::Blue, b).map_err(|e| e.to_string())?;
        let mut game = Game::new(rules, &red, &blue).map_err(|e| e.to_string())?;
        for (i, p) in self.plies.iter().enumerate() {
            let played = game.play(p.ply.mv).map_err(|e| format!("ply {} {}: {e}", i + 1, p.ply.mv))?;
            if played != p.ply {
                return Err(format!("ply {}: recorded {:?}, replayed {:?}", i + 1, p.ply, played));
            }
        }
        Ok(game.outcome())
    }
}
