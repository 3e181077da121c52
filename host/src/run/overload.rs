//! Whether the machine was overloaded for a bot over a run's games: the stall credit its
//! moves were given, judged against what they were allowed (for the reports, the index
//! page and the live page).

use std::fmt::Write as _;

use serde::Serialize;
use stratego_rules::Color;

use crate::record::GameRecord;
use stratego_records::{GameDigest, STALLED_SHARE_OF_LIMIT_PERCENT, stall_cap_us};

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

    /// Bot `id` is named `name` (a bot that joined the run: an arena's entrant admitted
    /// while it runs).
    pub fn name_bot(&mut self, id: usize, name: &str) {
        if self.bots.len() <= id {
            self.bots.resize_with(id + 1, BotOverload::default);
        }
        self.bots[id].name = name.to_owned();
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
                crate::text::html_escape(&b.name),
                crate::text::html_escape(&b.describe())
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
}
