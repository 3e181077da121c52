//! `ladder play`: the pairings that most reduce the ratings' uncertainty (the bots with the
//! fewest games first, each against its least-played opponent), played through the executor
//! as `match` plays its games, each saved to the ladder as soon as it finishes.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use stratego_rules::ByColor;

use super::store::{Ladder, LadderBot};
use super::table::LadderTable;
use super::{db_error, failure};
use crate::commands::Outcome;
use crate::compete::report::json;
use crate::compete::sinks::{Progress, RecordsSink, StartupGuard, game_line};
use crate::run::events::{Event, Failure, Flow, Sink};
use crate::run::executor::{BookLookup, Entrant, Executor};
use crate::run::plan::{ConfigError, RunConfig, usage};
use crate::run::schedule::{self, GameSpec};
use crate::supervise::supervisor::{Supervisor, SupervisorOptions};

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
    mut met_of: impl FnMut(usize) -> Result<HashMap<usize, u64>, E>,
    pairs: usize,
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
        let a = (0..n).min_by_key(|&i| (games[i], i)).expect("two bots");
        let met = match before.entry(a) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(met_of(a)?),
        };
        let b = (0..n)
            .filter(|&j| j != a)
            .min_by_key(|&j| {
                let times = met.get(&j).copied().unwrap_or(0) + added.get(&key(a, j)).copied().unwrap_or(0);
                (times, games[j], j)
            })
            .expect("two bots");
        games[a] += 2;
        games[b] += 2;
        *added.entry(key(a, b)).or_default() += 2;
        out.push((a, b));
    }
    Ok(out)
}

/// Saves every finished game to the ladder, each in its own transaction, as it finishes.
struct LadderSink<'a> {
    ladder: &'a mut Ladder,
    /// Database id of each executor bot id.
    ids: Vec<i64>,
    /// Program hash of each executor bot id, now.
    versions: Vec<Option<String>>,
    saved: u32,
}

impl Sink for LadderSink<'_> {
    fn on_event(&mut self, event: &Event) -> Flow {
        let Some((seats, record)) = event.finished() else { return Flow::Continue };
        let ids = ByColor::new(self.ids[seats.red], self.ids[seats.blue]);
        let versions = ByColor::new(self.versions[seats.red].as_deref(), self.versions[seats.blue].as_deref());
        match self.ladder.insert_game(record, ids, versions) {
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

/// Makes a ladder bot an entrant, as `match` does: built-in sample bot resolved, default
/// limits, program checked, clocks settled.
fn entrant(bot: &LadderBot, run: &RunConfig) -> Result<Entrant, ConfigError> {
    let mut spec = bot.spec.clone();
    spec.name = bot.name.clone();
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
pub(super) fn play_games(mut ladder: Ladder, run: &RunConfig, games: u32) -> Result<Outcome, ConfigError> {
    let all = ladder.bots().map_err(failure)?;
    let active: Vec<&LadderBot> = all.iter().filter(|b| b.retired_unix.is_none()).collect();
    if active.len() < 2 {
        return Err(usage(format!("ladder: {} active bots; `ladder add NAME COMMAND` at least two", active.len())));
    }
    let pairs = pairs_to_play(&ladder, &active, games)?;
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

    let book = match &run.setups {
        None => None,
        Some(path) => Some(Arc::new(
            crate::game::setup_book::SetupBook::load(path, &run.settings.rules)
                .map_err(|e| usage(format!("--setups: {e}")))?,
        )),
    };
    let schedule = ladder_schedule(&bots, &pairs, run.settings.match_seed, book.as_ref().map(|b| b.len() as u32));
    let planned = schedule.len() as u64;

    let records = match &run.out {
        Some(dir) => Some(
            crate::record::RecordWriter::open(dir, run.compress)
                .and_then(RecordsSink::start)
                .map_err(|e| usage(format!("--out {}: {e}", dir.display())))?,
        ),
        None => None,
    };
    if let Some(log) = &run.settings.protocol_log {
        tracing::info!("protocol log: {}", log.describe());
    }
    let mut live_page =
        crate::compete::live_page::LivePage::for_run(run, &bots, "ladder", Some(planned)).map_err(usage)?;
    let supervisor = Supervisor::start(SupervisorOptions {
        priority: run.host_priority,
        stall_credit: run.stall_credit,
        pin_host: run.pin && run.concurrency == 1,
    })
    .with_masks(run.masks(&bots));
    let lookup: Option<BookLookup> =
        book.map(|b| Arc::new(move |i: u32, color| b.deployment(i as usize, color)) as BookLookup);
    let executor = Executor {
        settings: Arc::new(run.settings.clone()),
        bots: Arc::new(bots),
        book: lookup,
        concurrency: run.concurrency,
        pin: run.pin,
        auto_pin: run.auto_pin,
        supervisor: supervisor.clone(),
    };
    let ids: Vec<i64> = active.iter().map(|b| b.id).collect();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let (end, saved) = runtime.block_on(async {
        let cancel = supervisor.cancel_on_signals();
        let mut records = records;
        let mut startup = StartupGuard::default();
        let mut sink = LadderSink { ladder: &mut ladder, ids, versions, saved: 0 };
        let mut progress = Progress::new(run.live, Some(planned), |_| None, game_line);
        let end = {
            // A bot that never started stops the run before its game is saved; then the
            // ladder: a game's line is printed only once it is saved.
            let mut sinks: Vec<&mut dyn Sink> = vec![&mut startup, &mut sink];
            if let Some(r) = records.as_mut() {
                sinks.push(r);
            }
            sinks.push(&mut progress);
            if let Some(page) = live_page.as_mut() {
                sinks.push(page);
            }
            executor.run(schedule, &[], &mut sinks, cancel).await
        };
        (end, sink.saved)
    });
    drop(runtime);
    supervisor.kill_all();
    let table = LadderTable::read(&ladder).map_err(failure)?;
    let stdout = if run.json { json(&table) } else { table.render() };
    if let Some(f) = &end.failed {
        eprintln!("stratego-host: {}", f.message);
        return Ok(Outcome { stdout, code: f.code });
    }
    if end.cancelled {
        eprintln!("stratego-host: interrupted; every bot process was killed; the {saved} finished games are saved");
        return Ok(Outcome { stdout, code: crate::exit::INTERRUPTED });
    }
    eprintln!("stratego-host: ladder: {} played and saved", stratego_stats::plural(u64::from(saved), "game"));
    Ok(Outcome { stdout, code: crate::exit::OK })
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
                    b.name,
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
    // Counts over every game, retired opponents included.
    let position: HashMap<i64, usize> = active.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
    let totals = ladder.games_played().map_err(db_error)?;
    let played: Vec<u64> = active.iter().map(|b| totals.get(&b.id).copied().unwrap_or(0)).collect();
    let met_of = |i: usize| -> rusqlite::Result<HashMap<usize, u64>> {
        let met = ladder.met(active[i].id)?;
        Ok(met.into_iter().filter_map(|(id, n)| position.get(&id).map(|&j| (j, n))).collect())
    };
    choose_pairs(&played, met_of, (games / 2) as usize).map_err(db_error)
}

/// The games of `pairs`, two a pair with colours swapped, as the schedule deals them (seats,
/// seeds, book entries), under ids unique to this run ([`run_prefix`]).
fn ladder_schedule(bots: &[Entrant], pairs: &[(usize, usize)], seed: u64, book_len: Option<u32>) -> VecDeque<GameSpec> {
    let same_program = (0..bots.len())
        .flat_map(|a| (a + 1..bots.len()).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            let (x, y) = (&bots[a].spec, &bots[b].spec);
            x.command == y.command && x.dir == y.dir && x.env == y.env
        })
        .collect();
    let event = schedule::EventSpec {
        bots: bots.len(),
        format: schedule::Format::RoundRobin,
        games_per_pairing: 2,
        seed,
        book_len,
        own_setup: bots.iter().map(|b| b.spec.own_setup).collect(),
        same_program,
        book_order: schedule::BookOrder::Random,
        book_start: 0,
    };
    let prefix = run_prefix();
    pairs
        .iter()
        .enumerate()
        .flat_map(|(p, &(a, b))| schedule::pair_games(&event, p as u32, a, b))
        .map(|g| GameSpec { game_id: format!("{prefix}-{}", g.index + 1), ..g })
        .collect()
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
