//! `ladder play`: the pairings that most reduce the ratings' uncertainty (the bots with the
//! fewest games first, each against its least-played opponent), played as a [`Competition`]
//! through the harness that plays `match` ([`crate::commands::harness::run_competition`]), each
//! game saved to the ladder as soon as it finishes.
//!
//! How the ladder fits the harness, and why nothing it does changed in the move:
//! - sinks: the ladder's report sink is its database ([`LadderReport`]), which keeps the
//!   games ([`Competition::keeps_games`]): each game's end is seen by the startup guard,
//!   then the database, then the `--out` records file, then the progress line, then the live
//!   page (`--report-every N` prints, every N games, how many were saved, between the
//!   records file and the progress line). A game the database fails to save stops the run
//!   and reaches no sink after it: not the records file, not the progress line.
//! - the run's flags are the harness's: `--setups-order`/`--setups-start` deal the book as
//!   for `match` (pair `p` of this run takes entries start+2p and start+2p+1), `--recover`
//!   makes a bot that fails to start for a game lose that game and go on. (Until the ladder
//!   was moved onto the harness it ignored these three without a word.)
//! - 'static: the harness's report sink is a `Box<dyn ReportSink>` (shared with the
//!   progress line, so `'static`), so it cannot borrow the ladder: the competition and its
//!   sink share the one SQLite connection (`Rc<RefCell<Ladder>>`; the sinks run on the
//!   executor's own task, one thread).
//! - the end: the harness says a failure as before (`stratego-host: MESSAGE`, its code),
//!   the ladder's own end lines come from [`ReportSink::end_message`] (`ladder: N games
//!   played and saved`; `interrupted; ... the N finished games are saved`), and the table on
//!   stdout is read from the database once every sink has finished
//!   ([`ReportSink::conclude`]: a table that cannot be read fails the command with exit 1
//!   and nothing on stdout, as before). The ladder has no page of its own, so no
//!   `index.html` is written into `--out`.
//! - the games: the harness's schedule input ([`RunConfig::schedule_event`], the same
//!   as the ladder built itself: round robin, 2 games a pair, the run's seed, the book's
//!   length, the same-program pairs, the book dealt as `--setups-order` says), and for each
//!   chosen pair `p` (in the order [`choose_pairs`] chose them) the two games of
//!   [`schedule::pair_games`], so a seeded run draws the same seeds, setups and book
//!   entries as before.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{SystemTime, UNIX_EPOCH};

use stratego_rules::ByColor;

use super::store::{Ladder, LadderBot};
use super::table::LadderTable;
use super::{db_error, failure};
use crate::commands::CommandOutput;
use crate::compete::competition::{Competition, Header, Page, ReportSink};
use crate::compete::report::json;
use crate::display::terminal::style::Style;
use crate::run::executor::Entrant;
use crate::run::happenings::{Failure, Flow, Happening, RunEnd, Sink};
use crate::run::plan::{ConfigError, RunConfig, usage};
use crate::run::schedule::{self, GameSpec};

/// Chooses `pairs` colour-swapped pairs among `games.len()` bots that have played
/// `games[i]` games, `met_of(i)` giving the games bot `i` has played against each other
/// bot (asked once per bot, for the bots that are chosen first in a pair only): each pair
/// takes the bot with the fewest games (the lowest index on a tie), against its
/// least-played opponent (then the one with fewest games, then the lowest index); the
/// counts include the pairs already chosen.
///
/// # Errors
/// The first error of `met_of`.
pub fn choose_pairs<E>(
    games: &[u64],
    met_of: impl FnMut(usize) -> Result<HashMap<usize, u64>, E>,
    pairs: usize,
) -> Result<Vec<(usize, usize)>, E> {
    let rank: Vec<u64> = (0..games.len() as u64).collect();
    choose_pairs_ranked(games, met_of, pairs, &rank)
}

/// [`choose_pairs`], ties broken by `rank` (lowest first) rather than by index: an
/// unseeded `ladder play` ranks the bots by a draw of its own, so that runners started at
/// once on one ladder, which read the same tallies, do not all play the same pairs in the
/// same order.
///
/// # Errors
/// The first error of `met_of`.
pub fn choose_pairs_ranked<E>(
    games: &[u64],
    mut met_of: impl FnMut(usize) -> Result<HashMap<usize, u64>, E>,
    pairs: usize,
    rank: &[u64],
) -> Result<Vec<(usize, usize)>, E> {
    let n = games.len();
    if n < 2 {
        return Ok(Vec::new());
    }
    let mut games = games.to_vec();
    // What each chosen bot had met before (asked when first chosen), and the pairs chosen.
    let mut before: HashMap<usize, HashMap<usize, u64>> = HashMap::new();
    let mut added: HashMap<(usize, usize), u64> = HashMap::new();
    let key = |a: usize, b: usize| (a.min(b), a.max(b));
    let mut out = Vec::with_capacity(pairs);
    for _ in 0..pairs {
        let a = (0..n).min_by_key(|&i| (games[i], rank[i])).expect("two bots");
        let met = match before.entry(a) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(met_of(a)?),
        };
        let b = (0..n)
            .filter(|&j| j != a)
            .min_by_key(|&j| {
                let times = met.get(&j).copied().unwrap_or(0) + added.get(&key(a, j)).copied().unwrap_or(0);
                (times, games[j], rank[j])
            })
            .expect("two bots");
        games[a] += 2;
        games[b] += 2;
        *added.entry(key(a, b)).or_default() += 2;
        out.push((a, b));
    }
    Ok(out)
}

/// A `ladder play` run as the harness plays it: the chosen pairs, two games each, saved to
/// the ladder.
struct LadderKind {
    /// The ladder, shared with its report sink.
    ladder: Rc<RefCell<Ladder>>,
    /// The pairs to play, by executor bot id, in the order they were chosen.
    pairs: Vec<(usize, usize)>,
    /// This run's game id prefix ([`run_prefix`]).
    prefix: String,
    /// Database id of each executor bot id.
    ids: Vec<i64>,
    /// Program hash of each executor bot id, now.
    versions: Vec<Option<String>>,
}

impl Competition for LadderKind {
    fn name(&self) -> &'static str {
        "ladder"
    }

    fn pairing(&self) -> (schedule::Format, u32) {
        (schedule::Format::RoundRobin, 2)
    }

    /// The games of `pairs`, two a pair with colours swapped, as the schedule deals them
    /// (seats, seeds, book entries), under ids unique to this run.
    fn games(&self, event: &schedule::EventSpec) -> Vec<GameSpec> {
        self.pairs
            .iter()
            .enumerate()
            .flat_map(|(p, &(a, b))| schedule::pair_games(event, p as u32, a, b))
            .map(|g| GameSpec { game_id: format!("{}-{}", self.prefix, g.index + 1), ..g })
            .collect()
    }

    fn report_sink(&self, _header: &Header) -> Box<dyn ReportSink> {
        Box::new(LadderReport {
            ladder: self.ladder.clone(),
            ids: self.ids.clone(),
            versions: self.versions.clone(),
            saved: 0,
            table: None,
        })
    }

    fn keeps_games(&self) -> bool {
        true
    }

    fn title(&self, _names: &[&str]) -> String {
        "ladder".to_owned()
    }
}

/// Saves every finished game to the ladder, each in its own transaction, as it finishes;
/// its report is the ladder's table afterwards.
struct LadderReport {
    ladder: Rc<RefCell<Ladder>>,
    /// Database id of each executor bot id.
    ids: Vec<i64>,
    /// Program hash of each executor bot id, now.
    versions: Vec<Option<String>>,
    saved: u32,
    /// The table, read once the run is over.
    table: Option<LadderTable>,
}

impl Sink for LadderReport {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        let Some((seats, record)) = happening.finished() else { return Flow::Continue };
        let ids = ByColor::new(self.ids[seats.red], self.ids[seats.blue]);
        let versions = ByColor::new(self.versions[seats.red].as_deref(), self.versions[seats.blue].as_deref());
        match self.ladder.borrow_mut().insert_game(record, ids, versions) {
            Ok(()) => {
                self.saved += 1;
                Flow::Continue
            }
            Err(e) => Flow::Fail(Failure {
                message: format!("ladder: cannot save game {}: {e}", record.game_id),
                code: crate::exit::FAILURE,
            }),
        }
    }
}

impl ReportSink for LadderReport {
    /// The progress line shows the games only (the ratings are computed at the end).
    fn progress(&self) -> Option<String> {
        None
    }

    fn interim(&self, done: u64) -> String {
        format!("{} finished, {} saved to the ladder", stratego_stats::plural(done, "game"), self.saved)
    }

    fn text(&self, _style: Style) -> String {
        self.table.as_ref().map(LadderTable::render).unwrap_or_default()
    }

    /// The table as JSON (`--event` names no ladder).
    fn json(&self, _event: Option<&str>) -> String {
        self.table.as_ref().map(json).unwrap_or_default()
    }

    /// No page: the ladder writes no index into `--out` (`ladder table --html` makes its page).
    fn page(&self) -> Page {
        Page { title: "ladder".to_owned(), summary_html: None, extra: Vec::new() }
    }

    fn code(&self) -> i32 {
        crate::exit::OK
    }

    /// The ladder's standings are its table, computed at the end: the live page counts
    /// wins, draws and losses itself.
    fn live_standings(&self) -> bool {
        false
    }

    fn conclude(&mut self) -> Result<(), Failure> {
        let table = LadderTable::read(&self.ladder.borrow())
            .map_err(|message| Failure { message, code: crate::exit::FAILURE })?;
        self.table = Some(table);
        Ok(())
    }

    fn end_message(&self, end: &RunEnd, _records: Option<&str>) -> Option<String> {
        Some(if end.cancelled {
            format!("interrupted; every bot process was killed; the {} finished games are saved", self.saved)
        } else {
            format!("ladder: {} played and saved", stratego_stats::plural(u64::from(self.saved), "game"))
        })
    }
}

/// Makes a ladder bot an entrant, as `match` does: built-in sample bot resolved, default
/// limits, program checked, clocks settled.
fn entrant(bot: &LadderBot, run: &RunConfig) -> Result<Entrant, ConfigError> {
    let mut spec = bot.spec.clone();
    // The name the run shows: a ladder file's names are not trusted to be safe for a
    // terminal (`ladder add` refuses such a name; a file edited by other means may hold one).
    spec.name = crate::text::clean(&bot.name).into_owned();
    crate::run::plan::entrant(spec, run)
}

/// A prefix unique to this run: `ladder-<unix ms>-<random>`.
fn run_prefix() -> String {
    let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let random = stratego_protocol::Rng::derive(t.as_nanos() as u64, u64::from(std::process::id()));
    format!("ladder-{}-{:08x}", t.as_millis(), random as u32)
}

/// Plays `games` games (colour-swapped pairs) between the ladder's active bots, saving each
/// as it finishes; the table afterwards is the output, the run's end the exit code.
pub(super) fn play_games(mut ladder: Ladder, run: &RunConfig, games: u32) -> Result<CommandOutput, ConfigError> {
    let all = ladder.bots().map_err(failure)?;
    let active: Vec<&LadderBot> = all.iter().filter(|b| b.retired_unix.is_none()).collect();
    if active.len() < 2 {
        return Err(usage(format!("ladder: {} active bots; `ladder add NAME COMMAND` at least two", active.len())));
    }
    // A seeded run plays what `ladder pairings` shows; an unseeded one breaks ties by a draw
    // of its own (its seed comes from the clock and the process id), so that concurrent
    // runners spread over the pairings.
    let tiebreak = (!run.seed_given).then_some(run.settings.match_seed);
    // The pairs are claimed in the file as they are chosen (one runner after the other), and
    // an unseeded run counts the pairs other running `ladder play`s claimed as being played,
    // so that runners started at once spread even when the tallies favour one pair; a seeded
    // run plays what `ladder pairings` shows whatever runs beside it.
    let prefix = run_prefix();
    let position: HashMap<i64, usize> = active.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
    let claimed = ladder.claim(
        &prefix,
        |ladder, others| {
            let others: &[(i64, i64)] = if tiebreak.is_some() { others } else { &[] };
            let pairs = pairs_to_play_claimed(ladder, &active, games, tiebreak, others)?;
            Ok(pairs.into_iter().map(|(a, b)| (active[a].id, active[b].id)).collect())
        },
        db_error,
    )?;
    let pairs: Vec<(usize, usize)> = claimed.iter().map(|(a, b)| (position[a], position[b])).collect();
    // Only the bots that play are made entrants (their programs checked and hashed): a
    // ladder of a thousand bots plays a few of them a run.
    let mut playing: Vec<usize> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    playing.sort_unstable();
    playing.dedup();
    let seat = |i: usize| playing.binary_search(&i).expect("a chosen bot");
    let pairs: Vec<(usize, usize)> = pairs.iter().map(|&(a, b)| (seat(a), seat(b))).collect();
    let active: Vec<&LadderBot> = playing.iter().map(|&i| active[i]).collect();
    let bots = active.iter().map(|b| entrant(b, run)).collect::<Result<Vec<_>, _>>()?;
    let versions = program_versions(&bots, &active);

    let book = crate::commands::harness::load_book(run)?;
    let event = run.schedule_event(&bots, schedule::Format::RoundRobin, 2, book.as_ref().map(|b| b.len() as u32));
    let ids: Vec<i64> = active.iter().map(|b| b.id).collect();
    let kind = LadderKind { ladder: Rc::new(RefCell::new(ladder)), pairs, prefix: prefix.clone(), ids, versions };
    // The records file is a copy of the ladder's games: no manifest, never resumed.
    if let (Some(dir), true) = (&run.out, run.compress) {
        crate::record::compress_allowed(dir).map_err(usage)?;
    }
    let records = match &run.out {
        Some(dir) => Some(
            crate::record::OutDirWriter::open(dir, run.compress)
                .map_err(|e| usage(format!("--out {}: {e}", dir.display())))?,
        ),
        None => None,
    };
    let outcome = crate::commands::harness::run_competition(run, &bots, &kind, event, book, records, None);
    // The run is over: its claims go (a killed run's are dropped as stale by the next one).
    if let Err(e) = kind.ladder.borrow().release(&prefix) {
        tracing::warn!("ladder: the claims of run {prefix} stay in the file (they expire): {e}");
    }
    outcome
}

/// Each bot's program hash now, with a warning for a program that changed since it was added.
fn program_versions(bots: &[Entrant], active: &[&LadderBot]) -> Vec<Option<String>> {
    bots.iter()
        .zip(active)
        .map(|(e, b)| {
            let now = crate::run::manifest::executable_hash(&e.spec.command, e.spec.dir.as_deref()).map(|(_, h)| h);
            if now != b.version {
                eprintln!(
                    "stratego-host: warning: bot {}: its program changed since it was added ({} -> {}); `ladder add` it again to record the new version",
                    crate::text::clean(&b.name),
                    b.version.as_deref().unwrap_or("?"),
                    now.as_deref().unwrap_or("?")
                );
            }
            now
        })
        .collect()
}

/// The `games / 2` colour-swapped pairs to play among `active` (indices into it), from the
/// games each bot has played and each pair has played against each other (the ladder's
/// tallies: no game is read).
pub fn pairs_to_play(ladder: &Ladder, active: &[&LadderBot], games: u32) -> Result<Vec<(usize, usize)>, ConfigError> {
    pairs_to_play_spread(ladder, active, games, None)
}

/// [`pairs_to_play`], ties between equally deserving bots broken by a draw from `tiebreak`
/// when given ([`choose_pairs_ranked`]), else by the order the bots were added.
///
/// # Errors
/// A database error.
pub fn pairs_to_play_spread(
    ladder: &Ladder,
    active: &[&LadderBot],
    games: u32,
    tiebreak: Option<u64>,
) -> Result<Vec<(usize, usize)>, ConfigError> {
    pairs_to_play_claimed(ladder, active, games, tiebreak, &[])
}

/// [`pairs_to_play_spread`], the pairs in `claimed` (by bot id: other runs are playing
/// them, two games each) counted as if played.
///
/// # Errors
/// A database error.
pub fn pairs_to_play_claimed(
    ladder: &Ladder,
    active: &[&LadderBot],
    games: u32,
    tiebreak: Option<u64>,
    claimed: &[(i64, i64)],
) -> Result<Vec<(usize, usize)>, ConfigError> {
    // Counts over every game, retired opponents included.
    let position: HashMap<i64, usize> = active.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
    let mut totals = ladder.games_played().map_err(db_error)?;
    for &(a, b) in claimed {
        *totals.entry(a).or_default() += 2;
        *totals.entry(b).or_default() += 2;
    }
    let played: Vec<u64> = active.iter().map(|b| totals.get(&b.id).copied().unwrap_or(0)).collect();
    let met_of = |i: usize| -> rusqlite::Result<HashMap<usize, u64>> {
        let id = active[i].id;
        let mut met = ladder.met(id)?;
        for &(a, b) in claimed {
            if a == id {
                *met.entry(b).or_default() += 2;
            } else if b == id {
                *met.entry(a).or_default() += 2;
            }
        }
        Ok(met.into_iter().filter_map(|(id, n)| position.get(&id).map(|&j| (j, n))).collect())
    };
    let rank: Vec<u64> = match tiebreak {
        None => (0..active.len() as u64).collect(),
        Some(seed) => active.iter().map(|b| stratego_protocol::Rng::derive(seed, b.id as u64)).collect(),
    };
    choose_pairs_ranked(&played, met_of, (games / 2) as usize, &rank).map_err(db_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_go_to_the_bots_with_fewest_games_and_their_least_played_opponents() {
        let none = |_| Ok::<_, ()>(HashMap::new());
        let pairs = choose_pairs(&[0, 0, 0], none, 4).unwrap();
        assert_eq!(pairs, vec![(0, 1), (2, 0), (1, 2), (0, 1)]);
        // A newcomer plays first, against the opponent it has met least.
        let met = |i: usize| {
            Ok::<_, ()>(match i {
                0 => HashMap::from([(1, 10)]),
                1 => HashMap::from([(0, 10)]),
                _ => HashMap::new(),
            })
        };
        let pairs = choose_pairs(&[10, 10, 0], met, 2).unwrap();
        assert_eq!(pairs, vec![(2, 0), (2, 1)]);
        // Bots 0 and 1 have met ten times: each plays bot 2, again and again (the pairs chosen count).
        let pairs = choose_pairs(&[10, 10, 30], met, 3).unwrap();
        assert_eq!(pairs, vec![(0, 2), (1, 2), (0, 2)]);
        assert!(choose_pairs(&[3], none, 2).unwrap().is_empty());
        assert_eq!(choose_pairs(&[0, 0], |_| Err::<HashMap<usize, u64>, _>("db"), 1), Err("db"));
    }
}
