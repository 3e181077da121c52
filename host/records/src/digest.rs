//! A game record without its moves: what the reports (a match's summary, a tournament's
//! standings, an SPRT) and an index page's row read of a record, read from a record's line
//! without building the record.
//!
//! A 300-ply record is mostly its plies; keeping them (a vector of plies, each with its
//! move and fight) is most of what a full read costs. [`GameDigest::parse`] reads the same
//! line, every field read with its record's type but the plies counted into per-side tallies
//! as they are read, none kept. [`GameDigest::of`] makes the same digest from a record
//! already built: the reports fill themselves from digests either way, so a report of
//! records read lightly (`merge`) is the report of the same records read whole.
//!
//! A line is a digest exactly when it is a record: every field a record must have is
//! required, and every field is read with the record's own type (a ply's move is parsed as
//! a move, a bot as a bot), so `merge` takes and refuses the same lines whether it reads
//! them as digests or whole (with `--out`, `--skip-bad-lines`, or on resume).

use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};
use stratego_protocol::TimeControl;
use stratego_protocol::record::{BotInfo, GameRecord, RecordPly, RecordResult};
use stratego_rules::{ByColor, RulesetSpec};

/// The host's least cap of a move's stall credit: a move's cap is what it was allowed (its
/// limit, the margin included), or this if that is more (`credit_cap` in the host's
/// stopwatch).
pub const STALL_CAP_FLOOR_US: u64 = 250_000;

/// A ply counts as stalled ([`SideTally::stalled_moves`]) when its credit is at least this
/// share of what it was allowed (its limit, or what was left of the bank, plus the margin),
/// percent: a stall that size is one a clock can feel; a few microseconds on a fast move,
/// however many, are not.
pub const STALLED_SHARE_OF_LIMIT_PERCENT: u64 = 25;

/// The most a move allowed `allowed_us` (limit plus margin) is credited, microseconds: the
/// host's cap (`credit_cap`).
pub fn stall_cap_us(allowed_us: u64) -> u64 {
    allowed_us.max(STALL_CAP_FLOOR_US)
}

/// What one side's move was allowed, microseconds (limit plus margin), replaying its clock
/// as the host charged it: the move limit, or what was left of the bank if less.
#[derive(Clone, Copy, Debug)]
struct SideClock {
    tc: TimeControl,
    remaining_us: Option<u64>,
}

impl SideClock {
    fn new(tc: TimeControl) -> SideClock {
        SideClock { tc, remaining_us: tc.bank_ms.map(|b| b.saturating_mul(1000)) }
    }

    /// What the next move is allowed.
    fn allowed_us(&self) -> u64 {
        let limit = self.tc.move_ms.map(|m| m.saturating_mul(1000));
        let budget = match (limit, self.remaining_us) {
            (Some(m), Some(r)) => m.min(r),
            (Some(m), None) => m,
            (None, Some(r)) => r,
            (None, None) => 365 * 24 * 3600 * 1_000_000,
        };
        budget.saturating_add(self.tc.margin_ms.saturating_mul(1000))
    }

    /// Charges a move that took `time_us` (an overdrawn bank is left empty, as the host does).
    fn charge(&mut self, time_us: u64) {
        if let Some(r) = self.remaining_us.as_mut() {
            *r = r.saturating_sub(time_us).saturating_add(self.tc.increment_ms.saturating_mul(1000));
        }
    }
}

/// What the reports read of one side's plies in a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideTally {
    /// Plies the side played.
    pub moves: u64,
    /// Of them, plies credited with a machine stall (`stall_us` > 0).
    pub stall_moves: u64,
    /// The stall time credited over them, microseconds.
    pub stall_us: u64,
    /// Of them, plies credited at least [`STALLED_SHARE_OF_LIMIT_PERCENT`] of what they
    /// were allowed (at the cap included).
    pub stalled_moves: u64,
    /// Of them, plies credited the most a move is ([`stall_cap_us`] of what it was
    /// allowed: the machine held the bot off longer than the host makes up for).
    pub stall_capped_moves: u64,
    /// What the side's next move would have been allowed, microseconds (limit plus margin):
    /// the move it lost on time, when it did.
    pub next_allowed_us: u64,
    /// Plies that came past their limit, within the margin (`over_us` > 0).
    pub margin_moves: u64,
    /// The furthest past its limit such a ply came, microseconds.
    pub margin_max_us: u64,
    /// Plies made over the network (`lag_us` present).
    pub lag_moves: u64,
    /// Their measured one-way lag summed, microseconds.
    pub lag_us: u64,
    /// The largest measured one-way lag, microseconds.
    pub lag_max_us: u64,
    /// Lag credited over them (`lag_credit_us`), microseconds.
    pub lag_credit_us: u64,
}

impl SideTally {
    /// Counts one ply of this side.
    fn add(&mut self, p: &PlyTimes, allowed_us: u64) {
        let PlyTimes { stall_us, over_us, lag_us, lag_credit_us, .. } = *p;
        self.moves += 1;
        if stall_us > 0 {
            self.stall_moves += 1;
            self.stall_us += stall_us;
            if u128::from(stall_us) * 100 >= u128::from(allowed_us) * u128::from(STALLED_SHARE_OF_LIMIT_PERCENT) {
                self.stalled_moves += 1;
            }
            if stall_us >= stall_cap_us(allowed_us) {
                self.stall_capped_moves += 1;
            }
        }
        if over_us > 0 {
            self.margin_moves += 1;
            self.margin_max_us = self.margin_max_us.max(over_us);
        }
        if let Some(lag) = lag_us {
            self.lag_moves += 1;
            self.lag_us += lag;
            self.lag_max_us = self.lag_max_us.max(lag);
            self.lag_credit_us += lag_credit_us;
        }
    }
}

/// What the reports read of one bot in a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BotDigest {
    /// Its name from the bot spec.
    pub name: String,
    /// Its think time over the game's moves, microseconds.
    pub think_us: u64,
}

/// A game record without its moves: see the module's documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct GameDigest {
    /// Game id.
    pub game_id: String,
    /// Position in the run's schedule.
    pub index: u32,
    /// The colour-swapped pair of the game.
    pub pair: u32,
    /// The time control (Red's, as the record's `time_control`).
    pub time_control: TimeControl,
    /// The bots by colour.
    pub bots: ByColor<BotDigest>,
    /// Plies in all.
    pub plies: u64,
    /// Each side's plies, tallied.
    pub sides: ByColor<SideTally>,
    /// How it ended.
    pub result: RecordResult,
}

impl GameDigest {
    /// The digest of a record already read.
    pub fn of(record: &GameRecord) -> GameDigest {
        let times: Vec<PlyTimes> = record.plies.iter().map(PlyTimes::of).collect();
        let tcs = record.time_controls.unwrap_or(ByColor::new(record.time_control, record.time_control));
        let sides = tally(&times, tcs);
        GameDigest {
            game_id: record.game_id.clone(),
            index: record.index,
            pair: record.pair,
            time_control: record.time_control,
            bots: record.bots.as_ref().map(|b| BotDigest { name: b.name.clone(), think_us: b.think_us }),
            plies: record.plies.len() as u64,
            sides,
            result: record.result.clone(),
        }
    }

    /// The digest of a record's line (its JSON), the moves not read.
    ///
    /// # Errors
    /// The line is not JSON of a record's shape (serde_json's error: what and where).
    pub fn parse(line: &str) -> Result<GameDigest, serde_json::Error> {
        let w: DigestWire = serde_json::from_str(line)?;
        Ok(GameDigest {
            game_id: w.game_id,
            index: w.index,
            pair: w.pair,
            time_control: w.time_control,
            bots: w.bots.map(|b| BotDigest { name: b.name, think_us: b.think_us }),
            plies: w.plies.0.len() as u64,
            sides: tally(&w.plies.0, w.time_controls.unwrap_or(ByColor::new(w.time_control, w.time_control))),
            result: w.result,
        })
    }
}

/// The times of one ply, all the digest reads of it.
#[derive(Clone, Copy, Debug)]
struct PlyTimes {
    color: stratego_rules::Color,
    time_us: u64,
    stall_us: u64,
    over_us: u64,
    lag_us: Option<u64>,
    lag_credit_us: u64,
}

impl PlyTimes {
    fn of(p: &RecordPly) -> PlyTimes {
        PlyTimes {
            color: p.ply.color,
            time_us: p.time_us,
            stall_us: p.stall_us,
            over_us: p.over_us,
            lag_us: p.lag_us,
            lag_credit_us: p.lag_credit_us,
        }
    }
}

/// Tallies the plies by side, each side's clock (`tcs`) replayed to know what each move
/// was allowed.
fn tally(plies: &[PlyTimes], tcs: ByColor<TimeControl>) -> ByColor<SideTally> {
    let mut sides = ByColor::<SideTally>::default();
    let mut clocks = tcs.map(SideClock::new);
    for p in plies {
        let clock = &mut clocks[p.color];
        sides[p.color].add(p, clock.allowed_us());
        clock.charge(p.time_us);
    }
    for color in [stratego_rules::Color::Red, stratego_rules::Color::Blue] {
        sides[color].next_allowed_us = clocks[color].allowed_us();
    }
    sides
}

/// A record's line as the digest reads it: every field of a [`GameRecord`] with its type
/// (those not used read and dropped), the plies tallied.
#[derive(Deserialize)]
struct DigestWire {
    game_id: String,
    index: u32,
    #[serde(default)]
    pair: u32,
    #[serde(default, rename = "book_setups")]
    _book_setups: ByColor<Option<u32>>,
    #[serde(rename = "match_seed")]
    _match_seed: u64,
    #[serde(rename = "seed")]
    _seed: u64,
    #[serde(rename = "host_version")]
    _host_version: String,
    #[serde(rename = "started_unix_ms")]
    _started: u64,
    #[serde(rename = "duration_ms")]
    _duration: u64,
    #[serde(rename = "ruleset")]
    _ruleset: RulesetSpec,
    time_control: TimeControl,
    #[serde(default)]
    time_controls: Option<ByColor<TimeControl>>,
    bots: ByColor<BotInfo>,
    #[serde(rename = "deployments")]
    _deployments: ByColor<Option<String>>,
    plies: PlyTallies,
    result: RecordResult,
}

/// The plies, each read whole and only its times kept (what each move was allowed is known
/// only with the time control, which may come after the plies).
struct PlyTallies(Vec<PlyTimes>);

impl<'de> Deserialize<'de> for PlyTallies {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PlyTallies, D::Error> {
        struct Plies;
        impl<'de> Visitor<'de> for Plies {
            type Value = PlyTallies;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of plies")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PlyTallies, A::Error> {
                let mut t = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                // Each ply read as the record reads it (its move and fight included, so the
                // same lines are refused), then dropped once its times are kept.
                while let Some(p) = seq.next_element::<RecordPly>()? {
                    t.push(PlyTimes::of(&p));
                }
                Ok(PlyTallies(t))
            }
        }
        d.deserialize_seq(Plies)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of real shape: two bots, a few plies with every timing field, a fight, a
    /// fault.
    fn record() -> GameRecord {
        let line = r#"{"game_id":"0000000000000001-3","index":3,"pair":1,"match_seed":1,"seed":7,"host_version":"t","started_unix_ms":5,"duration_ms":9,"ruleset":{"name":"classic"},"time_control":{"startup_ms":1,"setup_ms":2,"move_ms":3,"bank_ms":null,"increment_ms":0,"margin_ms":25},"bots":{"red":{"name":"a","command":["x"],"stderr_tail":"tail\n","stderr_bytes":5,"bytes_to_bot":1,"bytes_from_bot":2,"think_us":400},"blue":{"name":"b","command":["y"],"stderr_tail":"","stderr_bytes":0,"bytes_to_bot":1,"bytes_from_bot":2,"think_us":700,"strikes":[]}},"deployments":{"red":null,"blue":null},"plies":[{"color":"red","move":"a4-a5","time_us":10,"stall_us":3},{"color":"blue","move":"b7-b6","time_us":20,"over_us":8,"lag_us":50,"lag_credit_us":40},{"color":"red","move":"a5-a6","time_us":30,"over_us":2},{"color":"blue","move":"b6-b5","time_us":20,"over_us":9,"lag_us":70}],"result":{"winner":"red","reason":"move_timeout","message":"late","faulty":"blue"}}"#;
        let mut rec: GameRecord = serde_json::from_str(line).expect("a record");
        rec.plies[2].ply.combat =
            Some(stratego_rules::Combat::resolve(stratego_rules::Rank::Scout, stratego_rules::Rank::Bomb));
        rec
    }

    #[test]
    fn the_digest_of_a_line_is_the_digest_of_its_record() {
        let rec = record();
        let line = serde_json::to_string(&rec).unwrap();
        let light = GameDigest::parse(&line).unwrap();
        assert_eq!(light, GameDigest::of(&rec));
        assert_eq!(light.plies, 4);
        let (red, blue) = (light.sides.red, light.sides.blue);
        assert_eq!((red.moves, red.stall_moves, red.stall_us, red.margin_moves, red.margin_max_us), (2, 1, 3, 1, 2));
        assert_eq!((blue.moves, blue.margin_moves, blue.margin_max_us), (2, 2, 9));
        assert_eq!((blue.lag_moves, blue.lag_us, blue.lag_max_us, blue.lag_credit_us), (2, 120, 70, 40));
        assert_eq!(red.lag_moves, 0);
        assert_eq!((light.bots.red.name.as_str(), light.bots.blue.think_us), ("a", 700));
        assert_eq!(light.time_control.margin_ms, 25);
    }

    #[test]
    fn a_line_without_a_field_a_record_must_have_is_refused_naming_it() {
        let line = serde_json::to_string(&record()).unwrap();
        // (The record's own `result`, not its fight's: a fight is skipped, its content unread.)
        for (name, at) in [
            ("move", "\"move\":"),
            ("time_us", "\"time_us\":"),
            ("ruleset", "\"ruleset\":"),
            ("stderr_tail", "\"stderr_tail\":"),
            ("result", "\"result\":{\"winner\""),
        ] {
            let broken = line.replacen(at, &at.replacen(name, "renamed", 1), 1);
            assert_ne!(broken, line);
            let full = serde_json::from_str::<GameRecord>(&broken).expect_err("the full read refuses it");
            let light = GameDigest::parse(&broken).expect_err(&format!("so does the digest: {name}"));
            assert!(light.to_string().contains(&format!("missing field `{name}`")), "{light}");
            assert!(full.to_string().contains(&format!("missing field `{name}`")), "{full}");
        }
        assert!(GameDigest::parse(&line[..line.len() / 2]).is_err(), "a torn line is not a digest");
        let bad_colour = line.replacen("\"color\":\"red\"", "\"color\":\"green\"", 1);
        assert!(GameDigest::parse(&bad_colour).is_err(), "a ply's colour is read, and checked");
        // What the digest does not keep is still read with its type: a line the full read
        // refuses, the digest refuses too.
        for (what, from, to) in [
            ("a move that is no move", "\"a4-a5\"", "\"nowhere\""),
            ("a negative think time", "\"time_us\":10", "\"time_us\":-10"),
            ("a seed that is text", "\"seed\":7", "\"seed\":\"7\""),
            ("a ruleset of the wrong shape", "\"ruleset\":{", "\"ruleset\":[{"),
            ("a bot's byte count that is text", "\"bytes_to_bot\":1", "\"bytes_to_bot\":\"1\""),
            ("a setup that is a number", "\"deployments\":{\"red\":null", "\"deployments\":{\"red\":5"),
        ] {
            let bad = line.replacen(from, to, 1);
            assert_ne!(bad, line, "{what}");
            assert!(serde_json::from_str::<GameRecord>(&bad).is_err(), "the full read refuses {what}");
            assert!(GameDigest::parse(&bad).is_err(), "so does the digest: {what}");
        }
    }
}
