//! `stratego-host tournament --format knockout` (or `format = "knockout"` in the file): single
//! elimination.
//!
//! - Seeding is by entry order (the file's `[[bot]]` tables, then `--bot` flags): seed 1 is
//!   the first. The bracket has the next power of two of places; seeds are placed as in
//!   tennis (1 meets the last, and 1 and 2 can meet only in the final), so the byes (places
//!   without a bot) go to the best seeds, who go through to round 2 without playing.
//! - A tie is a match of `games` games (even: colour-swapped pairs; default 2). Level after
//!   them, the two play one more colour-swapped pair, up to [`EXTRA_PAIRS`] more; still
//!   level, the better seed goes through ("by seed" in the bracket).
//! - Every tie is a `match` played by the harness into its own directory,
//!   `OUT/round-R/tie-T` (an extra pair: `OUT/round-R/tie-T-extra-K`), so it has its own
//!   manifest, records and resume; the ties are played one after the other (`-j` plays a
//!   tie's games at once). `OUT/knockout.json` keeps the entrants, the games per tie and
//!   the master seed: a rerun of the same command (after a `kill -9`, an interruption)
//!   reads the finished ties from their records, resumes the one that was playing, and
//!   finishes the bracket as an uninterrupted run would have. Each tie's seed is drawn
//!   from the master seed and its place, so the same seed gives the same games.
//! - The report is the bracket: each round's ties with their scores and who went through,
//!   then the winner (`--json`: the same as JSON).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stratego_rules::Color;

use crate::commands::CommandOutput;
use crate::commands::harness;
use crate::run::plan::{ConfigError, EventKind, EventPlan, usage};

/// Colour-swapped pairs a level tie plays, one at a time, before the better seed goes through.
pub const EXTRA_PAIRS: u32 = 2;

/// What `OUT/knockout.json` keeps: what a rerun must match, and the master seed.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Stored {
    /// The entrants' names, in seed order.
    bots: Vec<String>,
    /// Games per tie.
    games: u32,
    /// The master seed.
    seed: u64,
}

/// One tie as played.
#[derive(Clone, Debug, Serialize)]
pub struct Tie {
    /// The better seed's name (a bye has no opponent).
    pub high: String,
    /// The other's name; `None` for a bye.
    pub low: Option<String>,
    /// Their seeds (from 1).
    pub seeds: (usize, Option<usize>),
    /// Points of each (a win 1, a draw 1/2), extra pairs included.
    pub score: (f64, f64),
    /// Games played, extra pairs included.
    pub games: u32,
    /// Who went through.
    pub winner: String,
    /// How: `"score"`, `"bye"` or `"seed"` (level after every extra pair).
    pub by: &'static str,
}

/// The bracket so far.
#[derive(Debug, Default, Serialize)]
pub struct Bracket {
    /// The event's name, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Each round's ties, in bracket order.
    pub rounds: Vec<Vec<Tie>>,
    /// The winner, once the final is played.
    pub winner: Option<String>,
}

/// The places of a bracket of `size` (a power of two) by seed (from 1): seed 1 meets seed
/// `size`, and the two best seeds are in opposite halves, the four best in different
/// quarters, and so on.
pub fn bracket_order(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, n + 1 - s]).collect();
    }
    order
}

/// Plays a validated knockout to its end (or interruption) and returns the bracket.
///
/// # Errors
/// No `--out`, `--shard`, a directory holding another knockout, or a tie that cannot be
/// started, with its exit code.
pub fn run(plan: EventPlan) -> Result<CommandOutput, ConfigError> {
    let EventKind::Knockout { games } = plan.kind else { return Err(usage("a knockout plan")) };
    let Some(out) = plan.run.out.clone() else {
        return Err(usage(
            "--format knockout: needs --out DIR, where each tie is kept as it is played (a rerun resumes the bracket)",
        ));
    };
    if plan.run.shard.is_some() {
        return Err(usage("--shard: a knockout's rounds depend on the ones before and cannot be sharded"));
    }
    let names: Vec<String> = plan.bots.iter().map(|b| b.spec.name.clone()).collect();
    let stored_path = out.join("knockout.json");
    let stored: Option<Stored> = match std::fs::read_to_string(&stored_path) {
        Ok(text) => Some(serde_json::from_str(&text).map_err(|e| usage(format!("{}: {e}", stored_path.display())))?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(usage(format!("{}: {e}", stored_path.display()))),
    };
    let seed = match (&stored, plan.run.seed_given) {
        (Some(s), false) => s.seed,
        _ => plan.run.settings.match_seed,
    };
    let this = Stored { bots: names.clone(), games, seed };
    match &stored {
        Some(s) if *s != this => {
            return Err(usage(format!(
                "--out {}: holds another knockout ({} games a tie, seed {}, entrants {}): give another --out",
                out.display(),
                s.games,
                s.seed,
                s.bots.join(", ")
            )));
        }
        Some(_) => {}
        None => {
            std::fs::create_dir_all(&out).map_err(|e| usage(format!("--out {}: {e}", out.display())))?;
            let text = serde_json::to_string_pretty(&this).expect("serialises") + "\n";
            std::fs::write(&stored_path, text).map_err(|e| usage(format!("{}: {e}", stored_path.display())))?;
        }
    }

    let size = names.len().next_power_of_two();
    // Places by seed (0-based bot ids); `None`: a bye.
    let mut places: Vec<Option<usize>> =
        bracket_order(size).into_iter().map(|s| (s <= names.len()).then_some(s - 1)).collect();
    let mut bracket = Bracket { event: plan.run.event.clone(), ..Bracket::default() };
    let mut round = 0usize;
    while places.len() > 1 {
        round += 1;
        let mut next = Vec::with_capacity(places.len() / 2);
        let mut ties = Vec::new();
        for (t, place) in places.chunks(2).enumerate() {
            let (high, low) = match (place[0], place[1]) {
                (Some(a), Some(b)) => (a.min(b), Some(a.max(b))),
                (Some(a), None) | (None, Some(a)) => (a, None),
                (None, None) => {
                    next.push(None);
                    continue;
                }
            };
            let tie = match low {
                None => Tie {
                    high: names[high].clone(),
                    low: None,
                    seeds: (high + 1, None),
                    score: (0.0, 0.0),
                    games: 0,
                    winner: names[high].clone(),
                    by: "bye",
                },
                Some(low) => {
                    let dir = out.join(format!("round-{round}")).join(format!("tie-{}", t + 1));
                    match play_tie(&plan, seed, &dir, (round, t + 1), high, low, games)? {
                        Ok(tie) => tie,
                        Err(stopped) => {
                            bracket.rounds.push(ties);
                            return Ok(CommandOutput { stdout: render(&bracket, &plan), code: stopped.code });
                        }
                    }
                }
            };
            next.push(Some(if tie.winner == names[high] { high } else { low.unwrap_or(high) }));
            ties.push(tie);
        }
        bracket.rounds.push(ties);
        places = next;
    }
    bracket.winner = places.first().copied().flatten().map(|w| names[w].clone());
    Ok(CommandOutput { stdout: render(&bracket, &plan), code: crate::exit::OK })
}

/// Plays the tie of `high` and `low` (bot ids) in `dir`, and its extra pairs while level;
/// `Err` the outcome of a match that did not finish (interrupted, a bot that cannot start).
fn play_tie(
    plan: &EventPlan,
    seed: u64,
    dir: &Path,
    (round, tie): (usize, usize),
    high: usize,
    low: usize,
    games: u32,
) -> Result<Result<Tie, CommandOutput>, ConfigError> {
    let names = (plan.bots[high].spec.name.clone(), plan.bots[low].spec.name.clone());
    let mut score = (0.0, 0.0);
    let mut played = 0;
    for extra in 0..=EXTRA_PAIRS {
        let (dir, n) = if extra == 0 {
            (dir.to_owned(), games)
        } else {
            (PathBuf::from(format!("{}-extra-{extra}", dir.display())), 2)
        };
        let mut run = plan.run.clone();
        run.out = Some(dir.clone());
        run.shard = None;
        run.seed_given = true;
        run.report_every = 0;
        run.names_from_commands = true; // the bracket's names: each tie is a match of its own
        run.settings.match_seed =
            stratego_protocol::Rng::derive(seed, (round as u64) << 32 | (tie as u64) << 8 | u64::from(extra));
        let sub = EventPlan {
            run,
            bots: vec![plan.bots[high].clone(), plan.bots[low].clone()],
            kind: EventKind::Match { games: n },
        };
        let outcome = harness::run_event(sub)?;
        if outcome.code != crate::exit::OK {
            return Ok(Err(outcome));
        }
        let records = crate::record::read_back(&dir).map_err(usage)?;
        for r in &records {
            let points = match r.result.winner {
                None => (0.5, 0.5),
                Some(c) => {
                    let winner = if c == Color::Red { &r.bots.red.name } else { &r.bots.blue.name };
                    if *winner == names.0 { (1.0, 0.0) } else { (0.0, 1.0) }
                }
            };
            score = (score.0 + points.0, score.1 + points.1);
            played += 1;
        }
        if score.0 != score.1 {
            let winner = if score.0 > score.1 { names.0.clone() } else { names.1.clone() };
            return Ok(Ok(tie_of(&names, (high, low), score, played, winner, "score")));
        }
    }
    Ok(Ok(tie_of(&names, (high, low), score, played, names.0.clone(), "seed")))
}

fn tie_of(
    names: &(String, String),
    (high, low): (usize, usize),
    score: (f64, f64),
    games: u32,
    winner: String,
    by: &'static str,
) -> Tie {
    Tie {
        high: names.0.clone(),
        low: Some(names.1.clone()),
        seeds: (high + 1, Some(low + 1)),
        score,
        games,
        winner,
        by,
    }
}

/// The bracket as text, or as JSON with `--json`.
fn render(bracket: &Bracket, plan: &EventPlan) -> String {
    if plan.run.json {
        return serde_json::to_string_pretty(bracket).expect("serialises") + "\n";
    }
    let mut s = String::new();
    let title = match &bracket.event {
        Some(e) => format!("{e} (knockout)"),
        None => "Knockout".to_owned(),
    };
    s.push_str(&format!("{title}: {} bots\n", plan.bots.len()));
    for (r, ties) in bracket.rounds.iter().enumerate() {
        s.push_str(&format!("Round {}\n", r + 1));
        for t in ties {
            match (&t.low, t.seeds.1) {
                (Some(low), Some(low_seed)) => s.push_str(&format!(
                    "  ({}) {} {}-{} ({}) {}  -> {}{}\n",
                    t.seeds.0,
                    t.high,
                    points(t.score.0),
                    points(t.score.1),
                    low_seed,
                    low,
                    t.winner,
                    if t.by == "seed" { " (level: by seed)" } else { "" }
                )),
                _ => s.push_str(&format!("  ({}) {} bye  -> {}\n", t.seeds.0, t.high, t.winner)),
            }
        }
    }
    match &bracket.winner {
        Some(w) => s.push_str(&format!("Winner: {w}\n")),
        None => s.push_str("Unfinished: rerun the same command to resume\n"),
    }
    s
}

/// 1.5 as `1.5`, 2 as `2`.
fn points(p: f64) -> String {
    if p.fract() == 0.0 { format!("{p:.0}") } else { format!("{p:.1}") }
}

#[cfg(test)]
mod tests {
    use super::bracket_order;

    #[test]
    fn seeds_are_placed_so_the_best_meet_last() {
        assert_eq!(bracket_order(1), [1]);
        assert_eq!(bracket_order(2), [1, 2]);
        assert_eq!(bracket_order(4), [1, 4, 2, 3]);
        assert_eq!(bracket_order(8), [1, 8, 4, 5, 2, 7, 3, 6]);
    }
}
