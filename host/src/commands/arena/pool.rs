//! The arena's pool of entrants: who is idle and present, and the next pairing among them
//! (the ladder's uncertainty-reducing choice, [`choose_pairs`], over the idle entrants; never
//! the same pair twice in a row; colours balanced). Pure state, no I/O: the arena's game
//! source asks it for a pairing, its report sink tells it when a game is saved.

use std::collections::HashMap;

use stratego_rules::ByColor;

use crate::commands::ladder::play::choose_pairs;
use crate::commands::ladder::store::PairTally;

/// One entrant, by executor id.
#[derive(Clone, Debug)]
struct Entrant {
    /// Its games not saved yet (one playing now; and the one before it while a kept
    /// multi-game process of it answers its next `hello`: [`Pool::choose_after`]).
    busy: u32,
    /// Can be paired: a local entrant always, a remote one while connected.
    present: bool,
    /// Retired while the arena runs: paired no more.
    retired: bool,
    /// Games saved (every game in the file, this run's included).
    games: u64,
    /// Games as Red less games as Blue.
    balance: i64,
    /// The opponent of its last game.
    last: Option<usize>,
}

/// The entrants of a running arena.
#[derive(Clone, Debug)]
pub struct Pool {
    entrants: Vec<Entrant>,
    /// Games between two entrants (smaller id first).
    met: HashMap<(usize, usize), u64>,
}

/// A blocked pairing's weight: it is chosen only when nothing else is left, and then refused.
const BLOCKED: u64 = u64::MAX / 4;

fn key(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

impl Pool {
    /// The pool of entrants with database ids `ids` (by executor id), `present` as given
    /// (remote entrants are not, until connected), their games and colours from the file's
    /// tallies (`tallies`: every ordered pairing that played; games with entrants not in
    /// `ids` count for the games and colours, not for `met`).
    pub fn new(ids: &[i64], present: &[bool], tallies: &[PairTally]) -> Pool {
        let at: HashMap<i64, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let mut entrants: Vec<Entrant> = present
            .iter()
            .map(|&p| Entrant { busy: 0, present: p, retired: false, games: 0, balance: 0, last: None })
            .collect();
        let mut met = HashMap::new();
        let mut latest: HashMap<usize, (i64, usize)> = HashMap::new();
        for t in tallies {
            let (red, blue) = (at.get(&t.red).copied(), at.get(&t.blue).copied());
            if let Some(r) = red {
                entrants[r].games += t.games;
                entrants[r].balance += t.games as i64;
            }
            if let Some(b) = blue {
                entrants[b].games += t.games;
                entrants[b].balance -= t.games as i64;
            }
            if let (Some(r), Some(b)) = (red, blue) {
                *met.entry(key(r, b)).or_default() += t.games;
                // The last opponent as far as the tallies tell (their latest game's pairing).
                for (me, other) in [(r, b), (b, r)] {
                    let e = latest.entry(me).or_insert((t.last_played, other));
                    if t.last_played > e.0 {
                        *e = (t.last_played, other);
                    }
                }
            }
        }
        for (me, (_, other)) in latest {
            entrants[me].last = Some(other);
        }
        Pool { entrants, met }
    }

    /// Marks entrant `i` present (a remote entrant connected) or not.
    pub fn set_present(&mut self, i: usize, present: bool) {
        self.entrants[i].present = present;
    }

    /// Entrant `i` joins (added while the arena runs; ids between the last one and `i` not
    /// admitted yet are not paired until they are): `present` as for [`Pool::new`]; not
    /// `playable` (its program could not start), it is never paired.
    pub fn admit(&mut self, i: usize, present: bool, playable: bool) {
        if self.entrants.len() <= i {
            let waiting = Entrant { busy: 0, present: false, retired: true, games: 0, balance: 0, last: None };
            self.entrants.resize(i + 1, waiting);
        }
        self.entrants[i] = Entrant { busy: 0, present, retired: !playable, games: 0, balance: 0, last: None };
    }

    /// Entrant `i` was retired: it is paired no more (its game now, if any, ends as usual).
    pub fn retire(&mut self, i: usize) {
        self.entrants[i].retired = true;
    }

    /// Entrant `i` plays on as a new version (a rating line of its own): its games,
    /// colours and meetings so far are not its line's.
    pub fn renew(&mut self, i: usize) {
        let e = &mut self.entrants[i];
        (e.games, e.balance, e.last) = (0, 0, None);
        self.met.retain(|&(a, b), _| a != i && b != i);
    }

    /// Entrants playing now.
    pub fn busy(&self) -> usize {
        self.entrants.iter().filter(|e| e.busy > 0).count()
    }

    /// Whether `a` and `b` played each other in the last game of either.
    fn blocked(&self, a: usize, b: usize) -> bool {
        self.entrants[a].last == Some(b) || self.entrants[b].last == Some(a)
    }

    /// The next game among the idle, present entrants (by executor id, Red and Blue), both
    /// then busy; `None` when fewer than two can play now. The entrant with the fewest games
    /// plays its least-met opponent ([`choose_pairs`]); a pair that played each other's last
    /// game is not paired again while a third entrant is present (busy or not: then they
    /// wait for it). Red is the one of the two that played Blue more often.
    pub fn choose(&mut self) -> Option<ByColor<usize>> {
        self.choose_after(None)
    }

    /// [`Pool::choose`] for a game slot that holds its last game `held` (played, not saved
    /// yet: it keeps a multi-game process of it, whose next `hello` ends it): that game's
    /// entrants are idle to this slot (to no other), and they count as having met last.
    pub fn choose_after(&mut self, held: Option<ByColor<usize>>) -> Option<ByColor<usize>> {
        let can = |e: &Entrant| e.present && !e.retired;
        let holds = |i: usize| held.is_some_and(|h| h.red == i || h.blue == i);
        let free = |i: usize| self.entrants[i].busy == 0 || (self.entrants[i].busy == 1 && holds(i));
        let mut idle: Vec<usize> = (0..self.entrants.len()).filter(|&i| free(i) && can(&self.entrants[i])).collect();
        let present = self.entrants.iter().filter(|e| can(e)).count();
        let just_met = |a: usize, b: usize| held.is_some_and(|h| key(h.red, h.blue) == key(a, b));
        let blocked = |a: usize, b: usize| self.blocked(a, b) || just_met(a, b);
        while idle.len() >= 2 {
            let games: Vec<u64> = idle.iter().map(|&i| self.entrants[i].games).collect();
            let met_of = |k: usize| -> Result<HashMap<usize, u64>, ()> {
                let a = idle[k];
                Ok(idle
                    .iter()
                    .enumerate()
                    .filter(|&(_, &b)| b != a)
                    .map(|(j, &b)| {
                        let met = self.met.get(&key(a, b)).copied().unwrap_or(0);
                        (j, if blocked(a, b) && present > 2 { BLOCKED } else { met })
                    })
                    .collect())
            };
            let (k, j) = *choose_pairs(&games, met_of, 1).ok()?.first()?;
            let (a, b) = (idle[k], idle[j]);
            if blocked(a, b) && present > 2 {
                // `a` has no other idle opponent now: it waits, the others may still play.
                idle.remove(k);
                continue;
            }
            let (ea, eb) = (&self.entrants[a], &self.entrants[b]);
            let seats = if (ea.balance, a) <= (eb.balance, b) { ByColor::new(a, b) } else { ByColor::new(b, a) };
            self.entrants[a].busy += 1;
            self.entrants[b].busy += 1;
            return Some(seats);
        }
        None
    }

    /// A game of `seats` was saved: both are idle again (unless playing their next game
    /// already) and the tallies count it.
    pub fn saved(&mut self, seats: ByColor<usize>) {
        self.ended(seats);
        let (r, b) = (seats.red, seats.blue);
        self.entrants[r].games += 1;
        self.entrants[r].balance += 1;
        self.entrants[r].last = Some(b);
        self.entrants[b].games += 1;
        self.entrants[b].balance -= 1;
        self.entrants[b].last = Some(r);
        *self.met.entry(key(r, b)).or_default() += 1;
    }

    /// A game of `seats` ended without being saved: both are idle again (unless playing
    /// their next game already).
    pub fn ended(&mut self, seats: ByColor<usize>) {
        for i in [seats.red, seats.blue] {
            self.entrants[i].busy = self.entrants[i].busy.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(red: i64, blue: i64, games: u64, last_played: i64) -> PairTally {
        PairTally { red, blue, games, last_played, ..PairTally::default() }
    }

    #[test]
    fn idle_present_entrants_are_paired_never_twice_in_a_row_with_colours_balanced() {
        let mut pool = Pool::new(&[10, 11, 12], &[true, true, true], &[]);
        let first = pool.choose().unwrap();
        assert_eq!((first.red, first.blue), (0, 1));
        // Entrant 2 alone is idle: no game.
        assert_eq!(pool.choose(), None);
        pool.saved(first);
        // 0 and 1 just met: 2 plays one of them; the other waits (not 0 against 1 again).
        let second = pool.choose().unwrap();
        assert!(second.red == 2 || second.blue == 2, "{second:?}");
        assert_eq!(pool.choose(), None);
        pool.saved(second);
        let third = pool.choose().unwrap();
        let pair = key(third.red, third.blue);
        assert!(pair != key(second.red, second.blue), "{third:?} after {second:?}");
        // Colours: an entrant that played Red plays Blue against one that played Blue.
        let mut pool = Pool::new(&[1, 2], &[true, true], &[tally(1, 2, 3, 100)]);
        let g = pool.choose().unwrap();
        assert_eq!((g.red, g.blue), (1, 0));
        // Only two present: they play again (no one to wait for).
        pool.saved(g);
        assert!(pool.choose().is_some());
    }

    #[test]
    fn absent_entrants_are_not_paired() {
        let mut pool = Pool::new(&[1, 2, 3], &[true, false, true], &[]);
        let g = pool.choose().unwrap();
        assert_eq!(key(g.red, g.blue), (0, 2));
        pool.ended(g);
        pool.set_present(0, false);
        assert_eq!(pool.choose(), None);
        pool.set_present(1, true);
        let g = pool.choose().unwrap();
        assert_eq!(key(g.red, g.blue), (1, 2));
        assert_eq!(pool.busy(), 2);
        // Retired: not paired, present or not.
        pool.ended(g);
        pool.set_present(0, true);
        pool.retire(1);
        pool.set_present(1, true);
        let g = pool.choose().unwrap();
        assert_eq!(key(g.red, g.blue), (0, 2));
    }

    #[test]
    fn a_slot_holding_its_last_game_pairs_its_entrants_again_and_no_other_slot_does() {
        let mut pool = Pool::new(&[1, 2], &[true, true], &[]);
        let first = pool.choose().unwrap();
        // Played, not saved: busy for every slot but the one that holds it.
        assert_eq!(pool.choose(), None);
        let second = pool.choose_after(Some(first)).unwrap();
        assert_eq!(key(second.red, second.blue), (0, 1));
        // The first game saved: they still play the second.
        pool.saved(first);
        assert_eq!(pool.choose(), None);
        pool.saved(second);
        assert!(pool.choose().is_some());
        // With a third present, the held pair counts as met last: not paired again.
        let mut pool = Pool::new(&[1, 2, 3], &[true, true, true], &[]);
        let first = pool.choose().unwrap();
        let next = pool.choose_after(Some(first)).unwrap();
        assert!(next.red == 2 || next.blue == 2, "{next:?}");
    }

    #[test]
    fn an_entrant_admitted_while_the_arena_runs_is_paired_and_one_that_cannot_start_is_not() {
        let mut pool = Pool::new(&[1], &[true], &[]);
        assert_eq!(pool.choose(), None);
        // Ids 1 and 3 admitted before 2 (two slots admitting at once); 3 cannot start.
        pool.admit(3, true, false);
        assert_eq!(pool.choose(), None);
        pool.admit(1, true, true);
        let g = pool.choose().unwrap();
        assert_eq!(key(g.red, g.blue), (0, 1));
        pool.ended(g);
        pool.admit(2, false, true);
        pool.set_present(2, true);
        pool.set_present(0, false);
        let g = pool.choose().unwrap();
        assert_eq!(key(g.red, g.blue), (1, 2));
    }

    #[test]
    fn a_renewed_entrant_is_paired_as_one_without_games() {
        // 0 and 1 met often; 2 is new. Renewed, 0 has no games: it plays first, and its
        // meetings with 1 no longer count (it may meet 1).
        let mut pool = Pool::new(&[1, 2, 3], &[true, true, true], &[tally(1, 2, 5, 100), tally(2, 3, 5, 90)]);
        pool.renew(0);
        let g = pool.choose().unwrap();
        assert!(g.red == 0 || g.blue == 0, "{g:?}");
        assert_eq!(pool.met.keys().filter(|&&(a, b)| a == 0 || b == 0).count(), 0);
    }
}
