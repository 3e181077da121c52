//! The summary of a two-bot match, for people and (`--json`) programs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use stratego_rules::Color;

use crate::display::files::viewer::run_line;
#[cfg(test)]
use crate::record::GameRecord;
use crate::text::{half, html_escape};
use stratego_records::{GameDigest, SideTally};
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
    /// Adds a finished game; `a_color` is the colour bot A played (the unit tests'; the
    /// sinks add digests).
    #[cfg(test)]
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

pub use crate::run::overload::Overload;

/// A report as JSON for stdout: pretty-printed, with a final newline (every `--json`).
pub fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("reports serialise") + "\n"
}

/// The three kinds of fault a ranking shows per bot (issue #44, items 8 and 10): games lost
/// on time (start-up, setup or move), by a crash (the process died, closed its output, hit a
/// resource limit, or a remote bot's connection was lost), and forfeited by anything else a
/// bot did wrong (an illegal move or setup, a malformed or unexpected message).
pub const FAULT_KINDS: [(&str, &str); 3] = [
    ("time", "games lost on time (start-up, setup or move)"),
    (
        "crash",
        "games lost by a crash: the process died or closed its output, hit a memory, CPU or output limit, or a remote bot's connection was lost",
    ),
    ("forfeit", "games forfeited by an illegal move or setup, or a malformed or unexpected message"),
];

/// Which of [`FAULT_KINDS`] a fault's reason code is (0, 1 or 2).
pub fn fault_kind(code: &str) -> usize {
    match code {
        "startup_timeout" | "setup_timeout" | "move_timeout" => 0,
        "crash" | "closed_output" | "memory_limit" | "cpu_limit" | "output_limit" | "disconnected"
        | "not_connected" => 1,
        _ => 2,
    }
}

/// A bot's faults (losses by fault, by reason code) counted by [`FAULT_KINDS`].
pub fn fault_counts(faults: &BTreeMap<String, u32>) -> [u32; 3] {
    let mut counts = [0; 3];
    for (code, n) in faults {
        counts[fault_kind(code)] += n;
    }
    counts
}

/// The header cells of the faults' columns (each kind's meaning as its title).
pub fn fault_headers_html() -> String {
    FAULT_KINDS.iter().map(|(name, what)| format!("<th title=\"{what}\">{name}</th>")).collect()
}

/// A bot's faults as the cells under [`fault_headers_html`]: a count per kind
/// (`data-fault="time"`…), titled with the reasons it counts (`move_timeout 2`).
pub fn fault_cells_html(faults: &BTreeMap<String, u32>) -> String {
    let counts = fault_counts(faults);
    let mut s = String::new();
    for (k, (name, _)) in FAULT_KINDS.iter().enumerate() {
        let reasons: Vec<String> =
            faults.iter().filter(|(code, _)| fault_kind(code) == k).map(|(code, n)| format!("{code} {n}")).collect();
        let class = if counts[k] > 0 { "n fault" } else { "n" };
        let _ = write!(
            s,
            "<td class=\"{class}\" data-fault=\"{name}\" title=\"{}\">{}</td>",
            html_escape(&reasons.join(", ")),
            counts[k]
        );
    }
    s
}

/// A bot's points per game as a percentage (`—` before its first game).
pub fn score_percent(points: f64, games: u32) -> String {
    if games == 0 { "—".to_owned() } else { format!("{:.1} %", 100.0 * points / f64::from(games)) }
}

/// A match's result as HTML for [`index_html`](crate::display::files::viewer::index_html): `<table id="ranking">`, a row per bot
/// (`data-bot`) with its games, points, score, wins, draws, losses and faults
/// ([`FAULT_KINDS`]), and under it the Elo of the first bot over the second with its 95 %
/// interval (`<p class="elo">`, once a game is finished).
pub fn match_html(summary: &Summary) -> String {
    let mut s = run_line(summary.games, summary.planned, &summary.rules, summary.seed, summary.interrupted);
    s.push_str(&match_table_html(summary, false));
    s
}

/// [`match_html`] without the line of games, rules and seed above it (the live page says
/// those itself). For the `live` page, the cells of points and W/D/L have the classes `pts`
/// and `wdl` (a narrow screen leaves them out).
pub fn match_table_html(summary: &Summary, live: bool) -> String {
    let mut s = format!(
        "<table id=\"ranking\">\n<thead><tr><th>bot</th><th>games</th><th{pts}>points</th><th>score</th><th{wdl}>W</th><th{wdl}>D</th><th{wdl}>L</th>{}</tr></thead>\n<tbody>\n",
        fault_headers_html(),
        pts = if live { " class=\"pts\"" } else { "" },
        wdl = if live { " class=\"wdl\"" } else { "" },
    );
    let (pts, wdl) = if live { (" pts", " wdl") } else { ("", "") };
    for b in &summary.bots {
        let games = b.wins + b.draws + b.losses;
        let points = f64::from(b.wins) + 0.5 * f64::from(b.draws);
        let _ = writeln!(
            s,
            "<tr data-bot=\"{name}\"><td>{name}</td><td class=\"n\">{games}</td><td class=\"n{pts}\">{}</td><td class=\"n\">{}</td><td class=\"n{wdl}\">{}</td><td class=\"n{wdl}\">{}</td><td class=\"n{wdl}\">{}</td>{}</tr>",
            half(points),
            score_percent(points, games),
            b.wins,
            b.draws,
            b.losses,
            fault_cells_html(&b.faults),
            name = html_escape(&b.name),
        );
    }
    s.push_str("</tbody>\n</table>");
    let (a, b) = (&summary.bots[0], &summary.bots[1]);
    if summary.games > 0 {
        let _ = write!(
            s,
            "\n<p class=\"elo\">Elo of {} over {}: {}</p>",
            html_escape(&a.name),
            html_escape(&b.name),
            html_escape(&stratego_stats::describe_elo(a.wins, a.draws, a.losses))
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

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
