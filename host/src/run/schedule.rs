//! The schedule: which games a run plays, as a pure function of the event (bots, format,
//! games per pairing, setup book size, master seed). No I/O, no processes: the same input
//! gives the same list on every machine, which is what shards and resume build on.
//!
//! Games come in colour-swapped pairs: game `2p` of a pairing's pair `p` seats its first
//! bot as Red, game `2p + 1` seats it as Blue. Both games of a pair share their seed and,
//! with a setup book, the same two book setups by colour, so that neither bot gains from
//! the luck of the draw. Round-robin and gauntlet schedules are played round by round
//! (every pairing's first pair, then every pairing's second…), so a run stopped early
//! still covers every pairing.

use stratego_protocol::Rng;
use stratego_rules::ByColor;

/// A bot's index in the event's bot list.
pub type BotId = usize;

/// One game of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpec {
    /// Position in the run (0-based).
    pub index: u32,
    /// Unique id within the run.
    pub game_id: String,
    /// The colour-swapped pair this game belongs to (games `2 * pair` and `2 * pair + 1`).
    pub pair: u32,
    /// The game's seed (each bot's seed is derived from it and its colour).
    pub seed: u64,
    /// Which bot sits on each side.
    pub seats: ByColor<BotId>,
    /// The setup book entry each side plays (`None`: the bot chooses its own setup).
    pub setups: ByColor<Option<u32>>,
}

/// How the bots meet.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every bot plays every other bot.
    RoundRobin,
    /// The seeds play every other bot (and not each other).
    Gauntlet {
        /// The seeds' ids.
        seeds: Vec<BotId>,
    },
}

/// What a schedule is made from.
///
/// In a manifest, [`EventSpec::same_program`] is written as `same_program_groups` (the bots
/// that are one program, a list per program: 200 copies of one bot are 200 numbers, where
/// their pairs were 19,900) with `same_program` empty; the pairs form of older manifests is
/// still read (see [`EventSpec::legacy_json`] for their plan hash).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "EventSpecWire", into = "EventSpecWire")]
pub struct EventSpec {
    /// Number of bots.
    pub bots: usize,
    /// How they meet.
    pub format: Format,
    /// Games per pairing (even: colour-swapped pairs; a match may be odd, its last pair
    /// then has only its first game).
    pub games_per_pairing: u32,
    /// Master seed.
    pub seed: u64,
    /// Entries in the setup book, if one is used.
    pub book_len: Option<u32>,
    /// Bots that choose their own setup even with a book (by id).
    pub own_setup: Vec<bool>,
    /// Pairs of bots that are the same program with the same arguments (by id): their
    /// games get a seed per game, else the two games of a pair would be the same game.
    pub same_program: Vec<(BotId, BotId)>,
    /// How pairs take their setup book entries (`--setups-order`).
    #[serde(default, skip_serializing_if = "BookOrder::is_random")]
    pub book_order: BookOrder,
    /// With [`BookOrder::Sequential`]: the entry (0-based) of the first pair's Red setup
    /// (`--setups-start N` is 1-based).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub book_start: u32,
}

/// [`EventSpec`] as manifests write it.
#[derive(serde::Serialize, serde::Deserialize)]
struct EventSpecWire {
    bots: usize,
    format: Format,
    games_per_pairing: u32,
    seed: u64,
    book_len: Option<u32>,
    own_setup: Vec<bool>,
    /// The pairs (older manifests, and sets of pairs that are not whole groups).
    #[serde(default)]
    same_program: Vec<(BotId, BotId)>,
    /// The bots that are one program, a group per program (each sorted, groups by their
    /// first bot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    same_program_groups: Option<Vec<Vec<BotId>>>,
    #[serde(default, skip_serializing_if = "BookOrder::is_random")]
    book_order: BookOrder,
    #[serde(default, skip_serializing_if = "is_zero")]
    book_start: u32,
}

impl From<EventSpecWire> for EventSpec {
    fn from(w: EventSpecWire) -> EventSpec {
        let mut same_program = w.same_program;
        if let Some(groups) = &w.same_program_groups {
            same_program.extend(groups_pairs(groups));
            same_program.sort_unstable();
            same_program.dedup();
        }
        EventSpec {
            bots: w.bots,
            format: w.format,
            games_per_pairing: w.games_per_pairing,
            seed: w.seed,
            book_len: w.book_len,
            own_setup: w.own_setup,
            same_program,
            book_order: w.book_order,
            book_start: w.book_start,
        }
    }
}

impl From<EventSpec> for EventSpecWire {
    fn from(e: EventSpec) -> EventSpecWire {
        let groups = same_program_groups(&e.same_program);
        let (same_program, same_program_groups) = match groups {
            Some(g) if !g.is_empty() => (Vec::new(), Some(g)),
            Some(_) => (Vec::new(), None),
            None => (e.same_program, None),
        };
        EventSpecWire {
            bots: e.bots,
            format: e.format,
            games_per_pairing: e.games_per_pairing,
            seed: e.seed,
            book_len: e.book_len,
            own_setup: e.own_setup,
            same_program,
            same_program_groups,
            book_order: e.book_order,
            book_start: e.book_start,
        }
    }
}

/// Every pair `(a, b)`, `a < b`, of bots in one group, in order.
fn groups_pairs(groups: &[Vec<BotId>]) -> Vec<(BotId, BotId)> {
    let mut pairs: Vec<(BotId, BotId)> = groups
        .iter()
        .flat_map(|g| g.iter().flat_map(move |&a| g.iter().filter(move |&&b| a < b).map(move |&b| (a, b))))
        .collect();
    pairs.sort_unstable();
    pairs
}

/// `pairs` as groups of bots that are one program, when the pairs are exactly every pair
/// of those groups (as [`crate::run::plan::same_program`] makes them, sorted); `None`
/// otherwise.
fn same_program_groups(pairs: &[(BotId, BotId)]) -> Option<Vec<Vec<BotId>>> {
    let mut group_of: std::collections::BTreeMap<BotId, BotId> = std::collections::BTreeMap::new();
    for &(a, b) in pairs {
        if a >= b {
            return None;
        }
        let root = *group_of.get(&a).unwrap_or(&a);
        group_of.entry(a).or_insert(root);
        match group_of.get(&b) {
            Some(&r) if r != root => return None,
            _ => {
                group_of.insert(b, root);
            }
        }
    }
    let mut groups: std::collections::BTreeMap<BotId, Vec<BotId>> = std::collections::BTreeMap::new();
    for (&bot, &root) in &group_of {
        groups.entry(root).or_default().push(bot);
    }
    let groups: Vec<Vec<BotId>> = groups.into_values().collect();
    (groups_pairs(&groups) == pairs).then_some(groups)
}

impl EventSpec {
    /// The JSON text of this spec as manifests of version 1 wrote it (`same_program` as
    /// pairs), and as it is written now: a plan hash of an older manifest is that of the
    /// plan with the first in place of the second.
    pub fn legacy_json(&self) -> (String, String) {
        let now = serde_json::to_string(self).expect("an event spec serialises");
        let mut w = EventSpecWire::from(self.clone());
        w.same_program = self.same_program.clone();
        w.same_program_groups = None;
        (serde_json::to_string(&w).expect("an event spec serialises"), now)
    }
}

/// How the pairs of an event take their entries from a setup book.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum BookOrder {
    /// Each pair draws two entries at random (from the seed).
    #[default]
    Random,
    /// Pair p plays entries `start + 2p` (Red's in its first game) and `start + 2p + 1`,
    /// wrapping around at the end of the book.
    Sequential,
}

impl BookOrder {
    /// Whether it is the default, random order (left out of manifests, which then read as
    /// before the option existed).
    pub fn is_random(&self) -> bool {
        *self == BookOrder::Random
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The pairings of an event, in order: `(first, second)` with `first` Red in each pair's
/// first game.
pub fn pairings(bots: usize, format: &Format) -> Vec<(BotId, BotId)> {
    match format {
        Format::RoundRobin => (0..bots).flat_map(|a| (a + 1..bots).map(move |b| (a, b))).collect(),
        Format::Gauntlet { seeds } => {
            seeds.iter().flat_map(|&s| (0..bots).filter(|o| !seeds.contains(o)).map(move |o| (s, o))).collect()
        }
    }
}

/// The whole schedule of an event.
pub fn plan(event: &EventSpec) -> Vec<GameSpec> {
    let pairings = pairings(event.bots, &event.format);
    // A set, not the list's scan per pair: 200 copies of one bot are 19,900 pairs.
    let same: std::collections::HashSet<(BotId, BotId)> = event.same_program.iter().copied().collect();
    let pairs_per_pairing = event.games_per_pairing.div_ceil(2);
    let mut games = Vec::new();
    let mut pair = 0u32;
    for round in 0..pairs_per_pairing {
        for &(a, b) in &pairings {
            let both = 2 * round + 1 < event.games_per_pairing;
            let same = same.contains(&(a, b)) || same.contains(&(b, a));
            for game in pair_games_of(event, pair, a, b, same).into_iter().take(if both { 2 } else { 1 }) {
                games.push(GameSpec { index: games.len() as u32, game_id: game_id(event.seed, games.len()), ..game });
            }
            pair += 1;
        }
    }
    games
}

/// The two games of pair number `pair` between `a` (Red first) and `b`, numbered
/// `2 * pair` and `2 * pair + 1` (an open-ended schedule such as `sprt` makes them one
/// pair at a time).
pub fn pair_games(event: &EventSpec, pair: u32, a: BotId, b: BotId) -> [GameSpec; 2] {
    let same = event.same_program.iter().any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a));
    pair_games_of(event, pair, a, b, same)
}

/// [`pair_games`], told whether `a` and `b` are the same program.
fn pair_games_of(event: &EventSpec, pair: u32, a: BotId, b: BotId, same: bool) -> [GameSpec; 2] {
    let pair_seed = Rng::derive(event.seed, u64::from(pair));
    let setups: ByColor<Option<u32>> = match event.book_len.filter(|&n| n > 0) {
        None => ByColor::new(None, None),
        Some(n) if event.book_order == BookOrder::Sequential => {
            let first = (u64::from(event.book_start) + 2 * u64::from(pair)) % u64::from(n);
            ByColor::new(Some(first as u32), Some(((first + 1) % u64::from(n)) as u32))
        }
        Some(n) => {
            let mut rng = Rng::new(Rng::derive(event.seed ^ BOOK_STREAM, u64::from(pair)));
            let (x, y) = (rng.below(n as usize) as u32, rng.below(n as usize) as u32);
            ByColor::new(Some(x), Some(y))
        }
    };
    let own = |bot: BotId| event.own_setup.get(bot).copied().unwrap_or(false);
    let game = |k: u32, seats: ByColor<BotId>| {
        let index = 2 * pair + k;
        GameSpec {
            index,
            game_id: game_id(event.seed, index as usize),
            pair,
            seed: if same { Rng::derive(pair_seed, u64::from(k) + 1) } else { pair_seed },
            setups: ByColor::new(setups.red.filter(|_| !own(seats.red)), setups.blue.filter(|_| !own(seats.blue))),
            seats,
        }
    };
    [game(0, ByColor::new(a, b)), game(1, ByColor::new(b, a))]
}

/// Separates the book's random stream from the games' seeds.
const BOOK_STREAM: u64 = 0xB00C_5E7E_5EED_0001;

/// Whether pair `pair` belongs to shard `index` (1-based) of `count`: pairs are dealt out
/// in turn, so every shard gets a share of every round and pairing.
pub fn in_shard(pair: u32, index: u32, count: u32) -> bool {
    count <= 1 || pair % count == index - 1
}

/// `SEED-N`: the master seed in hex and the 1-based game number, unique within the run.
pub fn game_id(seed: u64, index: usize) -> String {
    format!("{seed:016x}-{}", index + 1)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;

    fn event(bots: usize, format: Format, games: u32) -> EventSpec {
        EventSpec {
            bots,
            format,
            games_per_pairing: games,
            seed: 7,
            book_len: None,
            own_setup: vec![false; bots],
            same_program: Vec::new(),
            book_order: BookOrder::Random,
            book_start: 0,
        }
    }

    #[test]
    fn a_round_robin_plays_every_pairing_in_colour_swapped_pairs_with_unique_ids() {
        let games = plan(&event(4, Format::RoundRobin, 4));
        assert_eq!(games.len(), 6 * 4);
        let ids: HashSet<_> = games.iter().map(|g| g.game_id.clone()).collect();
        assert_eq!(ids.len(), games.len());
        let mut per_pairing: BTreeMap<(usize, usize), (u32, u32)> = BTreeMap::new();
        for g in &games {
            let key = (g.seats.red.min(g.seats.blue), g.seats.red.max(g.seats.blue));
            let e = per_pairing.entry(key).or_default();
            if g.seats.red == key.0 { e.0 += 1 } else { e.1 += 1 }
        }
        assert_eq!(per_pairing.len(), 6);
        assert!(per_pairing.values().all(|&(r, b)| r == 2 && b == 2), "{per_pairing:?}");
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.index as usize, i);
            assert_eq!(g.pair as usize, i / 2);
        }
        for pair in games.chunks(2) {
            assert_eq!(pair[0].seats.red, pair[1].seats.blue);
            assert_eq!(pair[0].seats.blue, pair[1].seats.red);
            assert_eq!(pair[0].seed, pair[1].seed);
        }
        // Round by round: the first six pairs cover all six pairings.
        let first: HashSet<_> =
            games[..12].iter().map(|g| (g.seats.red.min(g.seats.blue), g.seats.red.max(g.seats.blue))).collect();
        assert_eq!(first.len(), 6);
    }

    #[test]
    fn the_schedule_is_a_pure_function_of_the_event() {
        let e = event(5, Format::RoundRobin, 2);
        assert_eq!(plan(&e), plan(&e));
        let other = EventSpec { seed: 8, ..e.clone() };
        assert_ne!(plan(&e)[0].seed, plan(&other)[0].seed);
        assert_ne!(plan(&e)[0].game_id, plan(&other)[0].game_id);
    }

    #[test]
    fn a_gauntlet_plays_its_seeds_against_the_rest_only() {
        let games = plan(&event(5, Format::Gauntlet { seeds: vec![0, 1] }, 2));
        assert_eq!(games.len(), 2 * 3 * 2);
        for g in &games {
            let seeds = [g.seats.red, g.seats.blue].iter().filter(|&&b| b < 2).count();
            assert_eq!(seeds, 1, "{g:?}");
        }
    }

    #[test]
    fn a_match_keeps_its_old_numbering_and_seeds() {
        // Bot A is Red in even games, each pair shares the seed derived from its number,
        // and an odd number of games ends with half a pair.
        let games = plan(&event(2, Format::RoundRobin, 5));
        assert_eq!(games.len(), 5);
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.seats.red, i % 2);
            assert_eq!(g.seed, Rng::derive(7, (i / 2) as u64));
            assert_eq!(g.game_id, format!("{:016x}-{}", 7, i + 1));
        }
    }

    #[test]
    fn both_games_of_a_pair_use_the_same_book_setups_by_colour_unless_a_bot_brings_its_own() {
        let mut e = event(3, Format::RoundRobin, 4);
        e.book_len = Some(1000);
        let games = plan(&e);
        for pair in games.chunks(2) {
            assert!(pair[0].setups.red.is_some() && pair[0].setups.blue.is_some());
            assert_eq!(pair[0].setups, pair[1].setups);
        }
        let distinct: HashSet<_> = games.iter().map(|g| g.setups.red).collect();
        assert!(distinct.len() > 5, "pairs draw different book entries: {distinct:?}");
        e.own_setup[2] = true;
        for g in plan(&e) {
            for color in stratego_rules::Color::ALL {
                assert_eq!(g.setups[color].is_none(), g.seats[color] == 2, "{g:?}");
            }
        }
    }

    #[test]
    fn same_program_bots_are_written_as_groups_and_the_older_pairs_form_is_read() {
        let mut e = event(200, Format::RoundRobin, 2);
        // Bots 0..150 one program, 150..200 another: 11,175 + 1,225 pairs.
        let group = |r: std::ops::Range<usize>| r.clone().flat_map(move |a| (a + 1..r.end).map(move |b| (a, b)));
        e.same_program = group(0..150).chain(group(150..200)).collect();
        let json = serde_json::to_string(&e).unwrap();
        assert!(json.contains("\"same_program\":[],\"same_program_groups\":[[0,1,2,"), "{}", &json[..300]);
        assert!(json.len() < 2_500, "{} bytes", json.len());
        assert_eq!(serde_json::from_str::<EventSpec>(&json).unwrap(), e, "read back");
        // The pairs form of older manifests is read as the same event, and `legacy_json`
        // writes it again byte for byte.
        let (old, now) = e.legacy_json();
        assert_eq!(now, json);
        assert!(old.contains("\"same_program\":[[0,1],[0,2],") && !old.contains("groups"), "{}", &old[..300]);
        assert_eq!(serde_json::from_str::<EventSpec>(&old).unwrap(), e);
        // Without such bots both forms are the same text (older manifests' hashes hold).
        let plain = event(4, Format::RoundRobin, 2);
        let (old, now) = plain.legacy_json();
        assert_eq!(old, now);
        assert!(now.contains("\"same_program\":[]") && !now.contains("groups"));
        // Pairs that are not whole groups stay pairs.
        let mut odd = event(3, Format::RoundRobin, 2);
        odd.same_program = vec![(0, 1), (1, 2)];
        let json = serde_json::to_string(&odd).unwrap();
        assert!(json.contains("\"same_program\":[[0,1],[1,2]]") && !json.contains("groups"), "{json}");
        assert_eq!(serde_json::from_str::<EventSpec>(&json).unwrap(), odd);
        // The schedule looks the pairs up the same way in both forms.
        let games = plan(&e);
        assert_eq!(games.len(), 200 * 199);
        let g = games.iter().find(|g| g.seats.red == 0 && g.seats.blue == 1).unwrap();
        let h = games.iter().find(|h| h.pair == g.pair && h.index != g.index).unwrap();
        assert_ne!(g.seed, h.seed, "same program: a seed per game");
        let g = games.iter().find(|g| g.seats.red == 0 && g.seats.blue == 199).unwrap();
        let h = games.iter().find(|h| h.pair == g.pair && h.index != g.index).unwrap();
        assert_eq!(g.seed, h.seed, "different programs: one seed a pair");
    }

    #[test]
    fn self_play_gets_a_seed_per_game() {
        let mut e = event(2, Format::RoundRobin, 2);
        e.same_program = vec![(0, 1)];
        let games = plan(&e);
        assert_ne!(games[0].seed, games[1].seed);
    }
}
