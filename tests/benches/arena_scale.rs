//! The arena's pairing and table at scale: the costs `arena run` pays on its main thread,
//! measured in process on synthetic tallies (no games are played).
//!
//! `cargo bench -p stratego-tests --bench arena_scale [-- BOTSxGAMES …]` (default: 10, 100
//! and 1,000 entrants × 1,000, 100,000 and 1,000,000 games). For each size, games are
//! spread over uniformly random ordered pairings with random results, tallied as the
//! ladder file's `pairs` table tallies them (what `arena run` reads at its start and what
//! the table is fitted from). Then, each the median of several runs:
//!
//! - `Pool::new`: the pool built from the tallies, once at the start of a run;
//! - a pairing: `Pool::choose` with every entrant idle and present (the most it looks at)
//!   and `Pool::saved` of the game, the mean over 1,000 (200 at 1,000 entrants) pairings;
//! - the table: `LadderTable::compute`, the Bradley–Terry refit with error bars over every
//!   entrant and pairing, as the live page, `--report-every` and the end of a run make it.
//!
//! CPU-bound and single-threaded: on a loaded machine the times grow with the load.

use std::time::{Duration, Instant};

use stratego_host::commands::arena::pool::Pool;
use stratego_host::commands::ladder::store::{LadderBot, PairTally};
use stratego_host::commands::ladder::table::LadderTable;
use stratego_host::supervise::bot_spec::BotSpec;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The tallies of `games` games among `bots` bots (ids 1..=bots), uniformly random
/// ordered pairings and results, one game a second.
fn tallies(bots: u64, games: u64) -> Vec<PairTally> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ bots ^ (games << 20));
    let mut by_pair: std::collections::HashMap<(i64, i64), PairTally> = std::collections::HashMap::new();
    for g in 0..games {
        let red = rng.below(bots) as i64 + 1;
        let mut blue = rng.below(bots - 1) as i64 + 1;
        if blue >= red {
            blue += 1;
        }
        let t = by_pair.entry((red, blue)).or_insert(PairTally { red, blue, ..PairTally::default() });
        t.games += 1;
        match rng.below(3) {
            0 => t.red_wins += 1,
            1 => t.draws += 1,
            _ => t.red_losses += 1,
        }
        t.last_played = g as i64;
    }
    by_pair.into_values().collect()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 1.0 { format!("{ms:.3}") } else { format!("{ms:.1}") }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a.contains('x')).collect();
    let sizes: Vec<(u64, u64)> = if args.is_empty() {
        [10, 100, 1000].iter().flat_map(|&b| [1_000, 100_000, 1_000_000].map(|g| (b, g))).collect()
    } else {
        args.iter()
            .map(|a| {
                let (b, g) = a.split_once('x').expect("BOTSxGAMES");
                (b.parse().expect("bots"), g.parse().expect("games"))
            })
            .collect()
    };
    let spec = BotSpec::parse("sample-bot").expect("a spec");
    println!("| entrants | games | pairings tallied | `Pool::new` ms | a pairing µs | table ms |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for (n, games) in sizes {
        let pairs = tallies(n, games);
        let ids: Vec<i64> = (1..=n as i64).collect();
        let present = vec![true; n as usize];
        let bots: Vec<LadderBot> = ids
            .iter()
            .map(|&id| LadderBot {
                id,
                name: format!("bot{id}"),
                spec: BotSpec { name: format!("bot{id}"), ..spec.clone() },
                version: None,
                retired_unix: None,
            })
            .collect();
        let new = median(
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(Pool::new(&ids, &present, &pairs));
                    t.elapsed()
                })
                .collect(),
        );
        let mut pool = Pool::new(&ids, &present, &pairs);
        let rounds = if n >= 1000 { 200 } else { 1000 };
        let pairing = median(
            (0..3)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..rounds {
                        let seats = pool.choose().expect("a pairing");
                        pool.saved(seats);
                    }
                    t.elapsed() / rounds
                })
                .collect(),
        );
        let runs = if n >= 1000 { 1 } else { 3 };
        let table = median(
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(LadderTable::compute(&bots, &pairs));
                    t.elapsed()
                })
                .collect(),
        );
        println!(
            "| {n} | {games} | {} | {} | {:.1} | {} |",
            pairs.len(),
            ms(new),
            pairing.as_secs_f64() * 1e6,
            ms(table)
        );
    }
}
