//! The summary of a two-bot match, for people and (`--json`) programs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use stratego_rules::Color;

use crate::record::GameRecord;
use stratego_records::{GameDigest, STALLED_SHARE_OF_LIMIT_PERCENT, SideTally, stall_cap_us};
use stratego_stats::{EloEstimate, elo};

/// Per-bot totals.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BotTotals {
    /// Bot name.
    pub name: String,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Games lost by fault, by reason code.
    pub faults: BTreeMap<String, u32>,
    /// Moves made.
    pub moves: u64,
    /// Think time in all, microseconds.
    pub think_us: u64,
    /// Moves credited with machine stalls (see `stall_us` in RECORDS.md).
    pub stall_moves: u64,
    /// Machine stall time credited in all, microseconds.
    pub stall_us: u64,
    /// Moves that came past their limit, within the safety margin (`over_us` in RECORDS.md).
    pub margin_moves: u64,
    /// The furthest past its limit such a move came, microseconds.
    pub margin_max_us: u64,
    /// Network lag of a remote bot's moves (`lag_us`, `lag_credit_us` in RECORDS.md).
    #[serde(skip_serializing_if = "LagTotals::is_empty")]
    pub lag: LagTotals,
}

/// A remote bot's network lag over its moves.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LagTotals {
    /// Moves made over the network.
    pub moves: u64,
    /// Measured one-way lag summed over them, microseconds.
    pub lag_us: u64,
    /// The largest measured one-way lag, microseconds.
    pub max_lag_us: u64,
    /// Lag credited in all, microseconds.
    pub credit_us: u64,
}

impl LagTotals {
    /// No remote move.
    pub fn is_empty(&self) -> bool {
        self.moves == 0
    }

    /// Adds a side's remote moves in one game (its tally).
    pub fn add(&mut self, side: &SideTally) {
        self.moves += side.lag_moves;
        self.lag_us += side.lag_us;
        self.max_lag_us = self.max_lag_us.max(side.lag_max_us);
        self.credit_us += side.lag_credit_us;
    }

    /// `NAME 120 moves, lag 0.1 ms mean (0.3 max) one way, 12.0 ms credited`.
    pub fn describe(&self, name: &str) -> String {
        format!(
            "{name} {} moves, lag {:.1} ms mean ({:.1} max) one way, {:.1} ms credited",
            self.moves,
            self.lag_us as f64 / 1000.0 / self.moves.max(1) as f64,
            self.max_lag_us as f64 / 1000.0,
            self.credit_us as f64 / 1000.0
        )
    }
}

/// The summary of a match, updated game by game.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Games finished.
    pub games: u32,
    /// Games planned.
    pub planned: u32,
    /// The match seed.
    pub seed: u64,
    /// Ruleset name.
    pub rules: String,
    /// The two bots (first = bot A).
    pub bots: [BotTotals; 2],
    /// Games by end reason.
    pub reasons: BTreeMap<String, u32>,
    /// Plies in all.
    pub plies: u64,
    /// The safety margin past each limit, milliseconds (`time_control.margin_ms`).
    pub time_margin_ms: u64,
    /// Elo of bot A against bot B.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elo: Option<EloEstimate>,
    /// Normalised Elo of bot A against bot B (`null` without spread).
    pub nelo: Option<f64>,
    /// Colour-swapped pairs finished, by bot A's points in the pair.
    pub pentanomial: stratego_stats::Pentanomial,
    /// The run was interrupted before every game was played.
    pub interrupted: bool,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// Host CPU time per ply, microseconds.
    pub host_cpu_us_per_ply: f64,
    /// Host peak resident memory, KiB.
    pub host_peak_rss_kib: u64,
    /// The records file, when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<String>,
}

impl Summary {
    /// Adds a finished game; `a_color` is the colour bot A played.
    pub fn add(&mut self, rec: &GameRecord, a_color: Color) {
        self.add_digest(&GameDigest::of(rec), a_color);
    }

    /// Adds a finished game read as a digest (all this summary reads of a record).
    pub fn add_digest(&mut self, game: &GameDigest, a_color: Color) {
        self.games += 1;
        self.plies += game.plies;
        self.time_margin_ms = game.time_control.margin_ms;
        *self.reasons.entry(game.result.reason.code().to_owned()).or_default() += 1;
        for (i, color) in [(0, a_color), (1, !a_color)] {
            let b = &mut self.bots[i];
            match game.result.winner {
                None => b.draws += 1,
                Some(w) if w == color => b.wins += 1,
                Some(_) => {
                    b.losses += 1;
                    if game.result.faulty == Some(color) {
                        *b.faults.entry(game.result.reason.code().to_owned()).or_default() += 1;
                    }
                }
            }
            let side = &game.sides[color];
            b.moves += side.moves;
            b.stall_moves += side.stall_moves;
            b.stall_us += side.stall_us;
            b.margin_moves += side.margin_moves;
            b.margin_max_us = b.margin_max_us.max(side.margin_max_us);
            b.think_us += game.bots[color].think_us;
            b.lag.add(side);
        }
        let a = &self.bots[0];
        self.elo = elo(a.wins, a.draws, a.losses);
        self.nelo = stratego_stats::nelo(a.wins, a.draws, a.losses);
    }

    /// The final table.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let interrupted =
            if self.interrupted { format!(" (interrupted: {} planned)", self.planned) } else { String::new() };
        let _ = writeln!(
            s,
            "Match: {}, rules {}, seed {}{interrupted}",
            stratego_stats::plural(u64::from(self.games), "game"),
            self.rules,
            self.seed
        );
        let width = self.bots.iter().map(|b| b.name.len()).max().unwrap_or(3).max(3);
        let _ = writeln!(
            s,
            "  {:width$}  {:>5} {:>5} {:>5}  {:>6}  {:>9}  faults",
            "bot", "win", "draw", "loss", "score", "ms/move"
        );
        for b in &self.bots {
            let n = b.wins + b.draws + b.losses;
            let score = if n == 0 { 0.0 } else { (f64::from(b.wins) + f64::from(b.draws) / 2.0) / f64::from(n) };
            let ms = if b.moves == 0 { 0.0 } else { b.think_us as f64 / b.moves as f64 / 1000.0 };
            let faults: Vec<String> = b.faults.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let faults = if faults.is_empty() { "-".to_owned() } else { faults.join(", ") };
            let _ = writeln!(
                s,
                "  {:width$}  {:>5} {:>5} {:>5}  {:>5.1}%  {:>9.3}  {faults}",
                b.name,
                b.wins,
                b.draws,
                b.losses,
                100.0 * score,
                ms
            );
        }
        let (a, b) = (&self.bots[0], &self.bots[1]);
        if self.games > 0 {
            let _ = writeln!(
                s,
                "  Elo {} vs {}: {}",
                a.name,
                b.name,
                stratego_stats::describe_elo(a.wins, a.draws, a.losses)
            );
            let p = &self.pentanomial;
            if p.pairs() > 0 {
                let _ = writeln!(
                    s,
                    "  pairs (LL LD WL+DD WD WW): {} {} {} {} {}; Elo from pairs {}",
                    p.ll,
                    p.ld,
                    p.wl_dd,
                    p.wd,
                    p.ww,
                    stratego_stats::describe_pentanomial(p)
                );
            }
        }
        if self.bots.iter().any(|b| b.stall_moves > 0) {
            let per_bot: Vec<String> = self
                .bots
                .iter()
                .map(|b| format!("{} {} moves, {:.1} ms", b.name, b.stall_moves, b.stall_us as f64 / 1000.0))
                .collect();
            let _ = writeln!(s, "  machine stalls credited: {}", per_bot.join("; "));
        }
        if self.bots.iter().any(|b| !b.lag.is_empty()) {
            let per_bot: Vec<String> =
                self.bots.iter().filter(|b| !b.lag.is_empty()).map(|b| b.lag.describe(&b.name)).collect();
            let _ = writeln!(s, "  remote bots' network: {}", per_bot.join("; "));
        }
        if self.time_margin_ms > 0 {
            let per_bot: Vec<String> = self
                .bots
                .iter()
                .map(|b| match b.margin_moves {
                    0 => format!("{} none", b.name),
                    n => format!("{} {n} (at most {:.3} ms over)", b.name, b.margin_max_us as f64 / 1000.0),
                })
                .collect();
            let _ = writeln!(
                s,
                "  time margin {} ms past each limit; moves that used it: {}",
                self.time_margin_ms,
                per_bot.join("; ")
            );
        }
        let reasons: Vec<String> = self.reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(s, "  endings: {}", reasons.join(", "));
        let _ = writeln!(
            s,
            "  plies: {} ({:.0} per game), wall {:.1} s, host CPU {:.1} µs/ply, host peak RSS {:.1} MiB",
            self.plies,
            if self.games == 0 { 0.0 } else { self.plies as f64 / f64::from(self.games) },
            self.wall_s,
            self.host_cpu_us_per_ply,
            self.host_peak_rss_kib as f64 / 1024.0
        );
        if let Some(r) = &self.records {
            let _ = writeln!(s, "  records: {r}");
        }
        s
    }
}

/// A bot's moves stalled by at least [`STALLED_SHARE_OF_LIMIT_PERCENT`] of what they were
/// allowed (its limit, or the bank left, plus the margin) past which the machine is said to
/// have been overloaded for it: this share of its moves, percent (one move in 50 held back
/// by a quarter of its time). A move at its cap is overload on its own. Many tiny credits
/// on a fast bot's moves are neither: the credit is judged against what it can distort.
pub const OVERLOAD_STALLED_MOVES_PERCENT: u64 = 2;

/// One bot's stall credit over the games counted ([`Overload`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct BotOverload {
    /// Bot name.
    pub name: String,
    /// Moves made.
    pub moves: u64,
    /// Thinking time charged over them (`time_us`), microseconds.
    pub think_us: u64,
    /// Moves credited with machine stalls (`stall_us` > 0).
    pub stall_moves: u64,
    /// Stall time credited in all, microseconds.
    pub stall_us: u64,
    /// The credit as a share of the thinking time, percent (shown, not judged: a fast bot's
    /// thinking time is tiny).
    pub stall_share_percent: f64,
    /// Moves credited at least [`STALLED_SHARE_OF_LIMIT_PERCENT`] of what they were allowed
    /// (a move lost on time included), at the cap included.
    pub stalled_moves: u64,
    /// Moves credited the most a move is (a move lost on time included): its cap, what the
    /// move was allowed or 250 ms if that is more (see supervision.md), so the machine held
    /// the bot off for longer than the host makes up for.
    pub capped_moves: u64,
    /// Whether the machine was overloaded for this bot: a move at the cap, or stalled moves
    /// (see [`BotOverload::stalled_moves`]) at least [`OVERLOAD_STALLED_MOVES_PERCENT`] of
    /// its moves.
    pub overloaded: bool,
}

impl BotOverload {
    fn update(&mut self) {
        self.stall_share_percent = if self.think_us == 0 {
            if self.stall_us == 0 { 0.0 } else { 100.0 }
        } else {
            (self.stall_us as f64 * 1000.0 / self.think_us as f64).round() / 10.0
        };
        self.overloaded = self.capped_moves > 0
            || (self.stalled_moves > 0
                && self.stalled_moves * 100 >= self.moves.max(1) * OVERLOAD_STALLED_MOVES_PERCENT);
    }

    /// `a: 2 moves at the cap; 5 of 120 moves stalled by 25 % of their time or more; 1.234 s
    /// credited over 40 moves, 14.2 % of its thinking time`.
    fn describe(&self) -> String {
        let capped = match self.capped_moves {
            0 => String::new(),
            n => format!("{} at the cap; ", stratego_stats::plural(n, "move")),
        };
        format!(
            "{}: {capped}{} of {} moves stalled by {} % of their time or more; {:.3} s credited over {}, {:.1} % of its thinking time",
            self.name,
            self.stalled_moves,
            self.moves,
            STALLED_SHARE_OF_LIMIT_PERCENT,
            self.stall_us as f64 / 1e6,
            stratego_stats::plural(self.stall_moves, "move"),
            self.stall_share_percent
        )
    }
}

/// Whether the machine was overloaded during an event, from the stall credit of its games'
/// records (`stall_us`, and the credit a loss on time names): when it was, the clocks
/// decided games the bots' play did not, and the results say so (the summary, `--json`,
/// `--report-every`, the index page and the live page).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Overload {
    /// Whether any bot's games were: see [`BotOverload::overloaded`].
    pub overloaded: bool,
    /// [`OVERLOAD_STALLED_MOVES_PERCENT`].
    pub stalled_moves_threshold_percent: u64,
    /// [`STALLED_SHARE_OF_LIMIT_PERCENT`].
    pub stalled_share_of_limit_percent: u64,
    /// Each bot's figures, by id.
    pub bots: Vec<BotOverload>,
}

impl Overload {
    /// Nothing counted yet, for the bots named (by id).
    pub fn new(names: &[String]) -> Overload {
        Overload {
            overloaded: false,
            stalled_moves_threshold_percent: OVERLOAD_STALLED_MOVES_PERCENT,
            stalled_share_of_limit_percent: STALLED_SHARE_OF_LIMIT_PERCENT,
            bots: names.iter().map(|n| BotOverload { name: n.clone(), ..BotOverload::default() }).collect(),
        }
    }

    /// Counts a finished game, whose bots by colour are `seats` (ids).
    pub fn add(&mut self, seats: stratego_rules::ByColor<usize>, record: &GameRecord) {
        self.add_digest(seats, &GameDigest::of(record));
    }

    /// Counts a finished game read as a digest (the same as its whole record: `merge`
    /// reports what the run did).
    pub fn add_digest(&mut self, seats: stratego_rules::ByColor<usize>, game: &GameDigest) {
        for color in [Color::Red, Color::Blue] {
            let Some(b) = self.bots.get_mut(seats[color]) else { continue };
            let side = &game.sides[color];
            b.moves += side.moves;
            b.think_us += game.bots[color].think_us;
            b.stall_moves += side.stall_moves;
            b.stall_us += side.stall_us;
            b.stalled_moves += side.stalled_moves;
            b.capped_moves += side.stall_capped_moves;
            if game.result.faulty == Some(color) {
                match timeout_credit(&game.result.message) {
                    Some(TimeoutCredit::Capped) => {
                        b.stalled_moves += 1;
                        b.capped_moves += 1;
                    }
                    Some(TimeoutCredit::Us(us)) => {
                        let allowed = side.next_allowed_us;
                        if u128::from(us) * 100 >= u128::from(allowed) * u128::from(STALLED_SHARE_OF_LIMIT_PERCENT) {
                            b.stalled_moves += 1;
                        }
                        if us >= stall_cap_us(allowed) {
                            b.capped_moves += 1;
                        }
                    }
                    None => {}
                }
            }
            b.update();
        }
        self.overloaded = self.bots.iter().any(|b| b.overloaded);
    }

    /// The bots the machine was overloaded for.
    pub fn flagged(&self) -> impl Iterator<Item = &BotOverload> {
        self.bots.iter().filter(|b| b.overloaded)
    }

    /// The summary's lines (none when the machine was not overloaded), each ending in a
    /// newline: a heading, then a line per bot it was overloaded for.
    pub fn text(&self) -> String {
        if !self.overloaded {
            return String::new();
        }
        let mut s = format!(
            "  OVERLOADED MACHINE: the results may be distorted (stall credit at its cap, or {} % of a bot's moves or more stalled by {} % of their time or more):\n",
            self.stalled_moves_threshold_percent, self.stalled_share_of_limit_percent
        );
        for b in self.flagged() {
            let _ = writeln!(s, "    {}", b.describe());
        }
        s
    }

    /// One line (`--report-every`), or `None` when the machine was not overloaded.
    pub fn line(&self) -> Option<String> {
        self.overloaded.then(|| {
            let bots: Vec<String> = self.flagged().map(BotOverload::describe).collect();
            format!("  overloaded machine, results may be distorted: {}", bots.join("; "))
        })
    }

    /// The index page's warning (escaped), or an empty string.
    pub fn html(&self) -> String {
        if !self.overloaded {
            return String::new();
        }
        let mut s = format!(
            "<div class=\"overload\" data-overloaded=\"1\"><p><strong>The machine was overloaded</strong>: the results may be distorted (stall credit at its cap, or {} % of a bot's moves or more stalled by {} % of their time or more).</p><ul>",
            self.stalled_moves_threshold_percent, self.stalled_share_of_limit_percent
        );
        for b in self.flagged() {
            let _ = write!(
                s,
                "<li data-bot=\"{0}\">{1}</li>",
                crate::display::files::viewer::html_escape(&b.name),
                crate::display::files::viewer::html_escape(&b.describe())
            );
        }
        s.push_str("</ul></div>");
        s
    }
}

/// The stall credit a loss on time's message (`run::referee::judge`) names.
enum TimeoutCredit {
    /// `the most a move is credited`: the cap.
    Capped,
    /// `plus X s for machine stalls` or `not counting X s of machine stalls`.
    Us(u64),
}

/// The stall credit a loss on time's message names, if any.
fn timeout_credit(message: &str) -> Option<TimeoutCredit> {
    if message.contains("of machine stalls, the most a move is credited") {
        return Some(TimeoutCredit::Capped);
    }
    let between =
        |from: &str, to: &str| message.split(from).nth(1).and_then(|rest| rest.split(to).next().map(str::to_owned));
    between("(plus ", " s for machine stalls)")
        .or_else(|| between("(not counting ", " s of machine stalls)"))
        .and_then(|secs| secs.parse::<f64>().ok())
        .filter(|secs| secs.is_finite() && *secs >= 0.0)
        .map(|secs| TimeoutCredit::Us((secs * 1e6).round() as u64))
}

/// A report as JSON for stdout: pretty-printed, with a final newline (every `--json`).
pub fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("reports serialise") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn plies(list: &[&str]) -> Vec<crate::record::RecordPly> {
        list.iter().map(|p| serde_json::from_str(p).unwrap()).collect()
    }

    #[test]
    fn the_overload_tally_flags_a_move_at_the_cap_and_a_share_past_the_threshold() {
        let names = ["a".to_owned(), "b".to_owned()];
        let seats = stratego_rules::ByColor::new(0, 1);
        // 20 ms moves, 3 ms margin: the cap is 250 ms. Red (a) had one move stalled to the
        // cap; Blue (b) a little stall, under every threshold.
        let mut rec = crate::record::tests_support::record(Some(Color::Red));
        rec.time_control.move_ms = Some(20);
        rec.time_control.margin_ms = 3;
        rec.plies = plies(&[
            r#"{"color":"red","move":"a4-a5","time_us":18000,"stall_us":250000}"#,
            r#"{"color":"blue","move":"a7-a6","time_us":19000,"stall_us":1500}"#,
            r#"{"color":"red","move":"a5-a4","time_us":18000,"stall_us":249999}"#,
        ]);
        (rec.bots.red.think_us, rec.bots.blue.think_us) = (36_000, 19_000);
        let mut o = Overload::new(&names);
        o.add(seats, &rec);
        let (a, b) = (&o.bots[0], &o.bots[1]);
        assert_eq!((a.moves, a.stall_moves, a.stall_us, a.capped_moves, a.think_us), (2, 2, 499_999, 1, 36_000));
        assert_eq!(a.stalled_moves, 2);
        assert!(a.overloaded && !b.overloaded && o.overloaded);
        assert_eq!((b.stall_moves, b.stalled_moves, b.capped_moves), (1, 0, 0));
        let text = o.text();
        assert!(text.starts_with("  OVERLOADED MACHINE: the results may be distorted"), "{text}");
        assert!(
            text.contains("\n    a: 1 move at the cap; 2 of 2 moves stalled by 25 % of their time or more; 0.500 s credited over 2 moves"),
            "{text}"
        );
        assert!(!text.contains("    b:"), "only the bots it was overloaded for: {text}");
        assert!(o.line().unwrap().contains("a: 1 move at the cap"));
        assert!(o.html().contains("<li data-bot=\"a\">"));

        // A bot's moves: `n` of `stall_us` each among `of` of a thousand microseconds, under
        // the limit `move_ms` (no margin).
        let run = |move_ms: u64, of: usize, n: usize, stall_us: u64| {
            let mut r = crate::record::tests_support::record(None);
            r.time_control.move_ms = Some(move_ms);
            r.time_control.margin_ms = 0;
            r.plies = (0..of)
                .map(|i| {
                    let stall = if i < n { format!(r#","stall_us":{stall_us}"#) } else { String::new() };
                    serde_json::from_str(&format!(r#"{{"color":"red","move":"a4-a5","time_us":100{stall}}}"#)).unwrap()
                })
                .collect();
            r.bots.red.think_us = 100 * of as u64;
            let mut o = Overload::new(&names);
            o.add(seats, &r);
            o.bots[0].clone()
        };
        // A fast bot (0.1 ms a move) on a quiet machine: tens of microseconds credited on
        // every one of 5,000 moves: 0.2 s in all, 40 % of its thinking time, but nothing a
        // 100 ms clock can feel. Not overload (the verdict of the thinking-time share was).
        let fast = run(100, 5000, 5000, 40);
        assert_eq!((fast.stall_moves, fast.stalled_moves, fast.capped_moves), (5000, 0, 0));
        assert!(fast.stall_us >= 100_000 && fast.stall_share_percent > 10.0, "{fast:?}");
        assert!(!fast.overloaded, "{fast:?}");
        // Real stalls: 30 ms (30 % of a 100 ms limit) on 3 of 100 moves: overload; on 1 of
        // 100, not (under 2 %); 20 ms on 3 of 100 (20 %): not.
        assert!(run(100, 100, 3, 30_000).overloaded);
        assert!(!run(100, 100, 1, 30_000).overloaded);
        assert!(!run(100, 100, 3, 20_000).overloaded);
        // 25 % exactly counts.
        assert_eq!(run(100, 100, 2, 25_000).stalled_moves, 2);
        // The cap depends on the limit: 300 ms on a 2 s move is not at the cap (2 s is), and
        // only 15 % of it; a move credited its whole 2 s is.
        let long = run(2000, 100, 1, 300_000);
        assert_eq!((long.stalled_moves, long.capped_moves, long.overloaded), (0, 0, false));
        let capped = run(2000, 100, 1, 2_000_000);
        assert_eq!((capped.capped_moves, capped.overloaded), (1, true));
        assert_eq!(
            stall_cap_us(20_000),
            crate::supervise::stopwatch::credit_cap(Duration::from_millis(20)).as_micros() as u64
        );
        assert_eq!(
            stall_cap_us(2_000_000),
            crate::supervise::stopwatch::credit_cap(Duration::from_secs(2)).as_micros() as u64
        );
        assert_eq!(
            u128::from(stratego_records::STALL_CAP_FLOOR_US),
            crate::supervise::stopwatch::CREDIT_CAP_FLOOR.as_micros(),
            "the records' floor is the host's"
        );
        // With a bank, a move is allowed what is left of it: 1 s bank, no move limit, 150 ms
        // credited on the moves after the bank is down to 300 ms (50 %): stalled.
        let mut r = crate::record::tests_support::record(None);
        (r.time_control.move_ms, r.time_control.bank_ms, r.time_control.margin_ms) = (None, Some(1000), 0);
        r.plies = plies(&[
            r#"{"color":"red","move":"a4-a5","time_us":700000}"#,
            r#"{"color":"red","move":"a5-a4","time_us":1000,"stall_us":150000}"#,
        ]);
        let mut o = Overload::new(&names);
        o.add(seats, &r);
        assert_eq!((o.bots[0].stalled_moves, o.bots[0].capped_moves, o.overloaded), (1, 0, true));

        // A loss on time whose credit reached the cap, in either of the referee's words.
        for message in [
            "no move within 0.020 s (+0.003 s margin) (plus 0.250 s for machine stalls)",
            "move took 0.400 s; the limit was 0.020 s (+0.003 s margin) (not counting 0.250 s of machine stalls, the most a move is credited)",
        ] {
            let mut r = crate::record::tests_support::record_with_fault(Some(Color::Blue), Some(Color::Red));
            r.time_control.move_ms = Some(20);
            r.time_control.margin_ms = 3;
            r.result.message = message.into();
            let mut o = Overload::new(&names);
            o.add(seats, &r);
            assert_eq!(o.bots[0].capped_moves, 1, "{message}");
            assert!(o.overloaded);
        }
        // Not at the cap of a 2 s move.
        let mut long = crate::record::tests_support::record_with_fault(Some(Color::Blue), Some(Color::Red));
        long.time_control.move_ms = Some(2000);
        long.result.message = "no move within 2.000 s (plus 0.300 s for machine stalls)".into();
        let mut o = Overload::new(&names);
        o.add(seats, &long);
        assert_eq!(o.bots[0].capped_moves, 0);
        let mut calm = crate::record::tests_support::record_with_fault(Some(Color::Blue), Some(Color::Red));
        calm.time_control.move_ms = Some(20);
        calm.result.message = "no move within 0.020 s (plus 0.002 s for machine stalls)".into();
        let mut o = Overload::new(&names);
        o.add(seats, &calm);
        assert!(!o.overloaded, "a credit under the cap and a quarter of the limit");
        assert_eq!(o.text(), "");
        assert!(o.line().is_none() && o.html().is_empty());
    }

    #[test]
    fn the_summary_shows_the_margin_and_the_moves_that_used_it() {
        let mut rec = crate::record::tests_support::record(Some(Color::Red));
        rec.time_control.margin_ms = 3;
        rec.plies = [
            r#"{"color":"red","move":"a4-a5","time_us":21000,"over_us":1000}"#,
            r#"{"color":"blue","move":"a7-a6","time_us":19000}"#,
            r#"{"color":"red","move":"a5-a4","time_us":22500,"over_us":2500}"#,
        ]
        .iter()
        .map(|p| serde_json::from_str(p).unwrap())
        .collect();
        let mut s = Summary::default();
        s.bots[0].name = "a".into();
        s.bots[1].name = "b".into();
        s.add(&rec, Color::Red);
        assert_eq!((s.bots[0].margin_moves, s.bots[0].margin_max_us, s.bots[1].margin_moves), (2, 2500, 0));
        let text = s.render();
        assert!(
            text.contains(
                "  time margin 3 ms past each limit; moves that used it: a 2 (at most 2.500 ms over); b none\n"
            ),
            "{text}"
        );
        rec.time_control.margin_ms = 0;
        let mut none = Summary::default();
        none.add(&rec, Color::Red);
        assert!(!none.render().contains("time margin"), "no margin, no line");
    }
}
