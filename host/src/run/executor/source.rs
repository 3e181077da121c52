//! What the executor plays (a child of `executor.rs`): the [`GameSource`] that hands out
//! games (a fixed schedule, `sprt`'s as it goes, an arena's pairings), the bot table
//! ([`Bots`], growing while an arena admits entrants) and its [`Entrant`]s.

use std::collections::VecDeque;
use std::sync::Arc;

use stratego_rules::ByColor;

use crate::game::clock::TimeControl;
use crate::remote::hub::Hub;
use crate::run::schedule::GameSpec;
use crate::supervise::bot_spec::BotSpec;

/// Where the games come from: a fixed schedule, or one made as the run goes (`sprt`).
pub trait GameSource: Send {
    /// The next game to play, if any.
    fn next_game(&mut self) -> Option<GameSpec>;

    /// The next game for a worker slot that holds its last game, of bots `held` (played;
    /// reported once the multi-game processes it keeps answer their next `hello`, or are
    /// closed): a source that pairs as it goes (the arena), whose bots are busy until their
    /// game is reported, may seat them again in this slot, so that a multi-game bot plays
    /// on in its process, as in a match. By default [`GameSource::next_game`].
    fn next_game_after(&mut self, _held: Option<ByColor<usize>>) -> Option<GameSpec> {
        self.next_game()
    }

    /// The most games it can still give, when it knows (`None`: no bound known). The run
    /// starts no more worker slots than this: `concurrency = 1000000` for 2 games starts 2.
    fn most(&self) -> Option<usize> {
        None
    }

    /// Whether a `None` from [`GameSource::next_game`] is the end of the run (by default), or
    /// only "none yet" (the arena: its idle entrants are too few now): then a worker slot
    /// asks again a little later, until the run is stopped.
    fn ends_when_empty(&self) -> bool {
        true
    }

    /// Told the run's `--listen` hub once it is started (the arena pairs only remote bots
    /// that are connected). By default nothing.
    fn hub_started(&mut self, _hub: &Arc<Hub>) {}

    /// Bots to admit now, while the run goes on (an arena's entrants added since it
    /// started); asked by a worker slot before each [`GameSource::next_game`]. The executor
    /// gives each the next bot id ([`Bots::push`]), masks its paths in every sandbox,
    /// tells the `--listen` hub its tokens (a remote bot) or starts it once to its `ready`
    /// (a local one: its start-up check), then says how that went
    /// ([`GameSource::admitted`]). By default none: an event's bots are fixed.
    fn admit(&mut self) -> Vec<Entrant> {
        Vec::new()
    }

    /// Bot `entrant`, from [`GameSource::admit`], is bot `id` from now on; `check` is how
    /// its start-up check went (a local bot that could not start: why). Its games may be
    /// handed out from now on (not those of a bot whose check failed).
    fn admitted(&mut self, _id: usize, _entrant: &Entrant, _check: Result<(), crate::run::happenings::Failure>) {}
}

/// The bots of a run, by id: fixed for an event; an arena admits entrants while it runs
/// ([`GameSource::admit`]), each taking the next id.
#[derive(Debug, Default)]
pub struct Bots(std::sync::RwLock<Vec<Entrant>>);

impl Bots {
    /// The bots `bots`, by id.
    pub fn new(bots: Vec<Entrant>) -> Bots {
        Bots(std::sync::RwLock::new(bots))
    }

    /// Bot `id`, if there is one.
    pub fn get(&self, id: usize) -> Option<Entrant> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
    }

    /// How many bots there are now.
    #[allow(clippy::len_without_is_empty)] // never empty: an event has two bots at least
    pub fn len(&self) -> usize {
        self.0.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Every bot now, by id.
    pub fn all(&self) -> Vec<Entrant> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Adds `bot`; returns its id.
    pub fn push(&self, bot: Entrant) -> usize {
        let mut bots = self.0.write().unwrap_or_else(|e| e.into_inner());
        bots.push(bot);
        bots.len() - 1
    }
}

impl GameSource for VecDeque<GameSpec> {
    fn next_game(&mut self) -> Option<GameSpec> {
        self.pop_front()
    }

    fn most(&self) -> Option<usize> {
        Some(self.len())
    }
}

/// One bot of the event.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// How to start it, and its stable name.
    pub spec: BotSpec,
    /// Its clocks.
    pub time_control: TimeControl,
    /// Add an unknown field to every message (`check`'s forward-compatibility probe).
    pub probe_unknown_fields: bool,
}

/// A game already taken from a source (to see that there is one), then the source's.
pub(super) struct Prepended<S> {
    pub(super) first: Option<GameSpec>,
    pub(super) rest: S,
}

impl<S: GameSource> GameSource for Prepended<S> {
    fn next_game(&mut self) -> Option<GameSpec> {
        self.first.take().or_else(|| self.rest.next_game())
    }

    fn next_game_after(&mut self, held: Option<ByColor<usize>>) -> Option<GameSpec> {
        self.first.take().or_else(|| self.rest.next_game_after(held))
    }

    fn most(&self) -> Option<usize> {
        Some(usize::from(self.first.is_some()) + self.rest.most()?)
    }

    fn ends_when_empty(&self) -> bool {
        self.rest.ends_when_empty()
    }

    fn hub_started(&mut self, hub: &Arc<Hub>) {
        self.rest.hub_started(hub);
    }

    fn admit(&mut self) -> Vec<Entrant> {
        self.rest.admit()
    }

    fn admitted(&mut self, id: usize, entrant: &Entrant, check: Result<(), crate::run::happenings::Failure>) {
        self.rest.admitted(id, entrant, check);
    }
}
