//! The executor: plays the games a [`GameSource`] hands out, up to `concurrency` at once,
//! and sends every [`Happening`] to the run's [`Sink`]s.
//!
//! Each worker slot keeps a pool of bot sessions keyed by bot id, so a bot that can play
//! several games in one process (`ready.multi_game`) keeps its process between its games;
//! a bot whose process died, exited or faulted gets a fresh one for its next game. A
//! [`Cancel`] (SIGINT/SIGTERM) or a sink's [`Flow::Stop`] stops the run between happenings:
//! games still running are stopped, their bots killed, and what finished is kept.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use stratego_rules::{ByColor, Color, Deployment};
use tokio::sync::mpsc;

use crate::reason::{Fault, Reason};
use crate::remote::hub::{Hub, RemoteBot};
use crate::run::happenings::{Flow, Happening, RunEnd, Sink};
use crate::run::referee::{GameSettings, Seat, play_game};
use crate::run::schedule::GameSpec;
use crate::session::any_session::AnySession;
use crate::session::remote_session::RemoteSession;
use crate::session::{BotSession, GameStart, PostGame, SessionReport};
use crate::supervise::bot_spec::{BotSpec, Protocol};
use crate::supervise::supervisor::{Cancel, Supervisor};

mod source;
use source::Prepended;
pub use source::{Bots, Entrant, GameSource};

/// How long a worker slot waits before it asks a source that had no game for one again
/// ([`GameSource::ends_when_empty`] false).
const ASK_AGAIN: std::time::Duration = std::time::Duration::from_millis(50);

/// How often a game aborted before its first move (a remote bot's connection lost, see
/// [`crate::session::remote_session`]) is played again before it counts as forfeited.
pub const MAX_RESTARTS: u32 = 3;

/// A setup book entry placed for a side.
pub type BookLookup = Arc<dyn Fn(u32, Color) -> Deployment + Send + Sync>;

/// Everything the executor needs to play games.
#[derive(Clone)]
pub struct Executor {
    /// Settings shared by every game.
    pub settings: Arc<GameSettings>,
    /// The bots, by id (an arena's grow while it runs).
    pub bots: Arc<Bots>,
    /// The setup book, when the schedule uses one.
    pub book: Option<BookLookup>,
    /// Games at once.
    pub concurrency: usize,
    /// Pin each worker slot's bots to one CPU.
    pub pin: bool,
    /// Put a game's bots on its slot's CPU when both say they are single-threaded and
    /// there are no more slots than CPUs (`ready.single_threaded`; `--no-auto-pin` off).
    pub auto_pin: bool,
    /// The run's supervisor.
    pub supervisor: Supervisor,
    /// Bots already started once before the run (to ask their `ready.name`:
    /// [`Executor::ready_names`]), by id, and how that went: the pre-flight takes it as its
    /// own start of them instead of starting them again. Empty: none.
    pub preflown: Vec<Option<Result<(), crate::run::happenings::Failure>>>,
}

impl Executor {
    /// Runs games from `source` until it is empty, a sink stops the run, or `cancel` fires.
    /// Every sink sees every happening, in order; at the end each sink's
    /// [`Sink::finish`] is called with how the run ended.
    ///
    /// `history` holds the games an earlier run of the same plan finished (resume), read as
    /// it goes (a resumed directory's records, one at a time): the first games start before
    /// it is read, and the sinks see it whole ([`Sink::on_history`]) before any happening of
    /// this run (the games' happenings wait). A history item that is an error (a record that
    /// cannot be read) stops the run with it.
    pub async fn run_with_history(
        &self,
        source: impl GameSource + 'static,
        history: impl Iterator<Item = Result<Happening, crate::run::happenings::Failure>>,
        sinks: &mut [&mut dyn Sink],
        mut cancel: Cancel,
    ) -> RunEnd {
        let started = Instant::now();
        let mut end = RunEnd::default();
        let mut history = history.peekable();
        // Before the first game, every bot is started once (see `Executor::preflight`): a
        // bot that cannot start stops the run before any game, and leaves none behind.
        let mut source = source;
        let first = source.next_game();
        if let Some(game) = &first {
            let checked = tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    end.cancelled = true;
                    Ok(())
                }
                r = self.preflight(game) => r,
            };
            if let Err(f) = checked {
                end.failed = Some(f);
            }
            if end.cancelled || end.failed.is_some() {
                self.supervisor.kill_all();
                feed_history(&mut history, sinks, &mut end, None);
                end.wall = started.elapsed();
                finish_sinks(sinks, &mut end);
                return end;
            }
        }
        // Nothing to play (a finished plan, a decided test: a rerun is a report): no
        // address is bound for remote bots that would play no game.
        let hub = if first.is_none() && source.ends_when_empty() {
            Ok(None)
        } else {
            self.start_hub(!source.ends_when_empty()).await
        };
        let hub = match hub {
            Ok(h) => h,
            Err(f) => {
                end.failed = Some(f);
                end.wall = started.elapsed();
                finish_sinks(sinks, &mut end);
                return end;
            }
        };
        if let Some(h) = &hub {
            source.hub_started(h);
        }
        let source = Prepended { first, rest: source };
        // No more slots than games (each slot is a thread, with its own event loop).
        let slots = self.concurrency.max(1).min(source.most().unwrap_or(usize::MAX).max(1));
        if slots < self.concurrency {
            tracing::debug!("concurrency {}: {slots} slots, one per game to play", self.concurrency);
        }
        let source: Arc<Mutex<Box<dyn GameSource>>> = Arc::new(Mutex::new(Box::new(source)));
        let stop = Arc::new(AtomicBool::new(false));
        let want_plies = sinks.iter().any(|s| s.wants_plies());
        let (tx, mut rx) = mpsc::unbounded_channel::<Happening>();
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let mut workers = Vec::new();
        // With more than one slot, each plays on a thread of its own (its own event loop):
        // one thread serving every game made `-j 2` slower than `-j 1` (BENCHMARKS.md). So
        // does a single slot while a history is read on this one.
        let threaded = slots > 1 || history.peek().is_some();
        let (abort_tx, abort_rx) = tokio::sync::watch::channel(false);
        for slot in 0..slots {
            let (exec, source, stop, tx) = (self.clone(), source.clone(), stop.clone(), tx.clone());
            let cpu = self.pin.then_some(slot % cores);
            let share = crate::run::placement::ShareCpu::for_slot(slot, slots, self.auto_pin, self.pin);
            let hub = hub.clone();
            let work = async move { exec.worker(source, stop, tx, cpu, share, want_plies, hub).await };
            workers.push(if threaded {
                spawn_slot_thread(slot, work, abort_rx.clone())
            } else {
                Worker::Task(tokio::spawn(work))
            });
        }
        drop(tx);
        // The history, while the first games play: their happenings wait in the channel.
        feed_history(&mut history, sinks, &mut end, Some(&cancel));
        relay_happenings(&mut rx, sinks, &mut end, &mut cancel).await;
        stop.store(true, Ordering::SeqCst);
        self.wind_down(workers, &abort_tx, &end).await;
        if let Some(h) = &hub {
            h.shutdown().await;
        }
        let (cpu_us, rss_kib) = crate::supervise::os::self_usage();
        end.wall = started.elapsed();
        end.host_cpu_us = cpu_us;
        end.host_peak_rss_kib = rss_kib;
        finish_sinks(sinks, &mut end);
        end
    }

    /// Stops the slots when the run ended early (`end`: cancelled, stopped by a sink, or
    /// failed): their running games are not counted, their bots are killed. Then waits for
    /// every slot to end.
    async fn wind_down(&self, workers: Vec<Worker>, abort_tx: &tokio::sync::watch::Sender<bool>, end: &RunEnd) {
        if end.cancelled || end.stopped || end.failed.is_some() {
            // Games still running are not counted: stop them and kill their bots.
            let _ = abort_tx.send(true);
            for w in &workers {
                if let Worker::Task(t) = w {
                    t.abort();
                }
            }
            self.supervisor.kill_all();
        }
        for w in workers {
            match w {
                Worker::Task(t) => {
                    let _ = t.await;
                }
                Worker::Thread(done) => {
                    let _ = done.await;
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)] // one slot's whole context, passed once
    async fn worker(
        self,
        source: Arc<Mutex<Box<dyn GameSource>>>,
        stop: Arc<AtomicBool>,
        tx: mpsc::UnboundedSender<Happening>,
        cpu: Option<usize>,
        share: Option<crate::run::placement::ShareCpu>,
        want_plies: bool,
        hub: Option<Arc<Hub>>,
    ) {
        // Sessions of multi-game bots, kept between this worker's games, by bot id: those
        // of the last game only (a kept session its next game does not seat is closed).
        let mut pool: Vec<Vec<AnySession>> = (0..self.bots.len()).map(|_| Vec::new()).collect();
        // The last game, while its kept processes may still write for it (see `Held`).
        let mut held: Option<Held> = None;
        // A game aborted before its first move (a remote bot's lost connection), to play
        // again, and how often it was.
        let mut again: Option<(GameSpec, u32)> = None;
        loop {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let (spec, restarts) = match again.take() {
                Some(a) => a,
                None => match self.next_game(&source, &mut held, &mut pool, &tx, hub.as_ref()).await {
                    Next::Play(spec) => (spec, 0),
                    Next::Wait => continue,
                    Next::End => break,
                },
            };
            if let Some(h) = held.as_mut() {
                self.close_unseated(h, &spec, &mut pool).await;
            }
            let mut seats = ByColor::new_with(|color| Seat {
                share_cpu: share.clone(),
                ..self.seat(&spec, color, &mut pool, cpu, hub.as_ref())
            });
            attach_remotes(&mut seats, &spec).await;
            let on_ply = |update: crate::run::referee::PlyUpdate<'_>| {
                let game_id = spec.game_id.clone();
                let _ = tx.send(match update {
                    crate::run::referee::PlyUpdate::Started(game) => {
                        Happening::GameSetups { game_id, deployments: game.deployments().clone() }
                    }
                    crate::run::referee::PlyUpdate::Ply(ply) => Happening::Ply { game_id, ply: ply.clone() },
                });
            };
            let on_ply: Option<&(dyn Fn(crate::run::referee::PlyUpdate<'_>) + Sync)> =
                if want_plies { Some(&on_ply) } else { None };
            // The last game is reported once its kept processes have answered this game's
            // hello (what they wrote until then is its), while this game plays.
            let last = held.take();
            let ((record, kept), sent) = tokio::join!(play_game(&self.settings, &spec, seats, on_ply), async {
                match last {
                    Some(h) => h.report(&tx).await,
                    None => true,
                }
            });
            let h = hold(spec, record, kept, &mut pool);
            if !sent {
                break;
            }
            if h.record.result.reason == Reason::Disconnected && h.record.plies.is_empty() && restarts < MAX_RESTARTS {
                // Nobody had moved: the game is aborted and played again, not forfeited.
                crate::notice::say(
                    crate::notice::Level::Info,
                    format!(
                        "stratego-host: game {}: aborted before its first move ({}); played again",
                        h.spec.game_id, h.record.result.message
                    ),
                );
                again = Some((h.spec, restarts + 1));
                continue;
            }
            if h.waiting.red.is_none() && h.waiting.blue.is_none() {
                if !h.report(&tx).await {
                    break;
                }
            } else {
                held = Some(h);
            }
        }
        // The last game's kept processes end: their last words and exit go to it.
        if let Some(h) = held {
            self.release(h, &mut pool, &tx).await;
        }
        for s in pool.into_iter().flatten() {
            crate::session::BotSession::shutdown(s, self.settings.grace).await;
        }
    }

    /// The next game from `source`, announced (its `GameStarted`); when the source has none
    /// yet (the arena's entrants are busy or away), the game `held` for its kept processes
    /// is reported now (the source may wait for its end to pair its bots again), and the
    /// slot waits a moment to ask again. `Next::End` once the source is done, or nobody
    /// listens anymore.
    async fn next_game(
        &self,
        source: &Mutex<Box<dyn GameSource>>,
        held: &mut Option<Held>,
        pool: &mut Vec<Vec<AnySession>>,
        tx: &mpsc::UnboundedSender<Happening>,
        hub: Option<&Arc<Hub>>,
    ) -> Next {
        self.admit(source, hub, tx).await;
        if pool.len() < self.bots.len() {
            pool.resize_with(self.bots.len(), Vec::new);
        }
        let last = held.as_ref().map(|h| h.spec.seats);
        let next = {
            let mut source = source.lock().unwrap_or_else(|e| e.into_inner());
            source.next_game_after(last).ok_or_else(|| source.ends_when_empty())
        };
        match next {
            Ok(spec) => {
                let _ = tx.send(Happening::GameStarted { spec: spec.clone() });
                Next::Play(spec)
            }
            Err(true) => Next::End,
            Err(false) => {
                if let Some(h) = held.take() {
                    if !self.release(h, pool, tx).await {
                        return Next::End;
                    }
                }
                tokio::time::sleep(ASK_AGAIN).await;
                Next::Wait
            }
        }
    }

    /// Admits the bots `source` has for it ([`GameSource::admit`]): each takes the next bot
    /// id and is masked in every sandbox from now on, the sinks are told
    /// ([`Happening::Joined`]), a remote one's tokens go to the hub and a local one (of the JSON
    /// protocol) is started once to its `ready`, as the pre-flight starts every bot; then
    /// the source is told how that went.
    async fn admit(
        &self,
        source: &Mutex<Box<dyn GameSource>>,
        hub: Option<&Arc<Hub>>,
        tx: &mpsc::UnboundedSender<Happening>,
    ) {
        let new = source.lock().unwrap_or_else(|e| e.into_inner()).admit();
        for entrant in new {
            self.supervisor.note_bot(&entrant.spec);
            let id = self.bots.push(entrant.clone());
            let _ = tx.send(Happening::Joined {
                id,
                name: entrant.spec.name.clone(),
                time_control: entrant.time_control,
                remote: entrant.spec.remote,
            });
            let check = if entrant.spec.remote {
                match hub {
                    Some(hub) => {
                        hub.add_bot(
                            id,
                            RemoteBot { name: entrant.spec.name.clone(), tokens: entrant.spec.tokens.clone() },
                        );
                        Ok(())
                    }
                    None => Err(crate::run::happenings::Failure {
                        message: format!("remote bot {}: the host does not listen (--listen)", entrant.spec.name),
                        code: crate::exit::USAGE,
                    }),
                }
            } else if entrant.spec.protocol == Protocol::Json {
                self.start_once(id, Color::Red).await.map(|_| ())
            } else {
                Ok(())
            };
            source.lock().unwrap_or_else(|e| e.into_inner()).admitted(id, &entrant, check);
        }
    }

    /// A kept process of the held game `h` that game `spec` does not seat ends now: its
    /// last words and exit go to the game it played.
    async fn close_unseated(&self, h: &mut Held, spec: &GameSpec, pool: &mut [Vec<AnySession>]) {
        for color in Color::ALL {
            let Some((id, _)) = &h.waiting[color] else { continue };
            let id = *id;
            if spec.seats.red != id && spec.seats.blue != id {
                h.waiting[color] = None;
                if let Some(s) = pool[id].pop() {
                    let (exit, report) = s.close(self.settings.grace).await;
                    h.closed(color, exit, report);
                }
            }
        }
    }

    /// Closes the kept processes of the held game `h` (their last words and exit go to it)
    /// and reports it. False when nobody listens anymore.
    async fn release(&self, mut h: Held, pool: &mut [Vec<AnySession>], tx: &mpsc::UnboundedSender<Happening>) -> bool {
        for color in Color::ALL {
            if let Some((id, _)) = h.waiting[color].take() {
                if let Some(s) = pool[id].pop() {
                    let (exit, report) = s.close(self.settings.grace).await;
                    h.closed(color, exit, report);
                }
            }
        }
        h.report(tx).await
    }

    /// Starts every distinct bot of the event once, as its games start it (the same
    /// session code, sandbox and supervisor): its process, `hello` (game id `preflight`,
    /// the colour it has in `first` if it plays there), its `ready` within its start-up
    /// limit, then `quit`. A few at a time (as many as the games at once start). Bots of
    /// the legacy protocol, which has no greeting, are not started.
    ///
    /// # Errors
    /// The first bot that could not be started or did not say `ready`: exit code 3, with
    /// the fault and the last lines of its stderr.
    async fn preflight(&self, first: &GameSpec) -> Result<(), crate::run::happenings::Failure> {
        let mut distinct: Vec<(usize, BotSpec)> = Vec::new();
        for (id, e) in self.bots.all().iter().enumerate() {
            let key = BotSpec { name: String::new(), ..e.spec.clone() };
            if let Some(Some(started)) = self.preflown.get(id) {
                // Started once already, when it was asked its name.
                started.clone()?;
                distinct.push((id, key));
                continue;
            }
            // Remote bots connect when their entrants start them: their games wait for them.
            if e.spec.protocol == Protocol::Json && !e.spec.remote && !distinct.iter().any(|(_, k)| *k == key) {
                distinct.push((id, key));
            }
        }
        let ids: Vec<usize> = distinct
            .into_iter()
            .map(|(id, _)| id)
            .filter(|&id| self.preflown.get(id).is_none_or(Option::is_none))
            .collect();
        for chunk in ids.chunks(2 * self.concurrency.max(1)) {
            let checks = chunk.iter().map(|&id| {
                let color = Color::ALL.into_iter().find(|&c| first.seats[c] == id).unwrap_or(Color::Red);
                self.preflight_one(id, color)
            });
            for r in futures_util::future::join_all(checks).await {
                r?;
            }
        }
        Ok(())
    }

    /// [`Executor::preflight`] of bot `id`, told it plays `color`.
    async fn preflight_one(&self, id: usize, color: Color) -> Result<(), crate::run::happenings::Failure> {
        self.start_once(id, color).await.map(|_| ())
    }

    /// Starts bots `ids` once each, as the pre-flight does (the same `hello`, game id
    /// `preflight`, told the colour given with its id; `ready` within the start-up limit; `quit`), a few at a time, and
    /// returns each one's `ready.name`, or why it did not start: the outcome of its
    /// pre-flight ([`Executor::preflown`]).
    pub async fn ready_names(&self, ids: &[(usize, Color)]) -> Vec<Result<String, crate::run::happenings::Failure>> {
        let mut all = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(2 * self.concurrency.max(1)) {
            let starts = chunk.iter().map(|&(id, color)| self.start_once(id, color));
            all.extend(futures_util::future::join_all(starts).await);
        }
        all
    }

    /// Starts bot `id` once, told it plays `color`, to its `ready`; returns the name it
    /// gave there.
    async fn start_once(&self, id: usize, color: Color) -> Result<String, crate::run::happenings::Failure> {
        let bots = self.bots.all();
        let entrant = &bots[id];
        let name = &entrant.spec.name;
        let cannot = |why: String, stderr: &str| crate::run::happenings::Failure {
            message: format!(
                "bot {name} cannot start (started once before the first game, to its \"ready\"): {why}{}",
                crate::run::happenings::stderr_lines(name, stderr)
            ),
            code: crate::exit::BOT_NOT_STARTABLE,
        };
        let mut session = AnySession::spawn(&entrant.spec, &self.settings.session_options(None), &self.supervisor)
            .map_err(|e| cannot(format!("the program could not be started: {e}"), ""))?;
        let tc = entrant.time_control;
        let opponent = bots.iter().enumerate().find(|&(i, _)| i != id).map(|(_, e)| e.spec.name.clone());
        let start = GameStart {
            game_id: "preflight",
            color,
            rules: &self.settings.rules,
            time_control: &tc,
            seed: 0,
            max_line: self.settings.max_line,
            opponent: opponent.as_deref().filter(|_| !self.settings.blind),
        };
        let answer = session.start_game(&start).await;
        let mut late = None;
        let judged =
            crate::run::referee::judge(answer, tc.startup, tc.margin, Reason::StartupTimeout, "ready", &mut late);
        let (_, report) = session.close(self.settings.grace).await;
        judged.map(|_| report.reported_name.unwrap_or_default()).map_err(|f| cannot(f.message, &report.stderr_tail))
    }

    /// Seats a bot: a kept session of it, or a new process.
    fn seat(
        &self,
        spec: &GameSpec,
        color: Color,
        pool: &mut Vec<Vec<AnySession>>,
        cpu: Option<usize>,
        hub: Option<&Arc<Hub>>,
    ) -> Seat<AnySession> {
        let id = spec.seats[color];
        let entrant = self.bots.get(id).expect("a game seats bots of the run");
        if pool.len() <= id {
            pool.resize_with(id + 1, Vec::new);
        }
        let session = match pool[id].pop() {
            Some(s) => Ok(s),
            None if entrant.spec.remote => match hub {
                Some(hub) => {
                    Ok(AnySession::Remote(RemoteSession::new(hub.clone(), id, &self.settings.session_options(cpu))))
                }
                None => Err(Fault::new(Reason::NotConnected, "a remote bot, and the host does not listen (--listen)")),
            },
            None => AnySession::spawn(&entrant.spec, &self.settings.session_options(cpu), &self.supervisor)
                .map(|mut s| {
                    if let (true, AnySession::Json(j)) = (entrant.probe_unknown_fields, &mut s) {
                        j.probe_unknown_fields();
                    }
                    s
                })
                .map_err(|e| Fault::new(Reason::Crash, format!("the program could not be started: {e}"))),
        };
        let fixed_setup = match (&self.book, spec.setups[color]) {
            (Some(book), Some(i)) => Some(book(i, color)),
            _ => None,
        };
        Seat {
            name: entrant.spec.name.clone(),
            command: entrant.spec.command.clone(),
            session,
            time_control: entrant.time_control,
            fixed_setup,
            share_cpu: None,
        }
    }

    /// Starts listening for the event's remote bots (`--listen`), if it has any.
    ///
    /// # Errors
    /// Remote bots without `--listen`, or an address that cannot be bound (exit 2).
    /// With `open` (the source may admit bots while it runs: an arena), the hub is started
    /// whenever `--listen` is given, for the remote bots admitted later.
    async fn start_hub(&self, open: bool) -> Result<Option<Arc<Hub>>, crate::run::happenings::Failure> {
        let bots = self.bots.all();
        let wanted = bots.iter().any(|b| b.spec.remote) || (open && self.settings.listen.is_some());
        if !wanted {
            return Ok(None);
        }
        let fail = |message: String| crate::run::happenings::Failure { message, code: crate::exit::USAGE };
        let Some(options) = self.settings.listen.as_deref() else {
            return Err(fail("the event has remote bots: give --listen ADDR".to_owned()));
        };
        let bots = bots
            .iter()
            .map(|b| b.spec.remote.then(|| RemoteBot { name: b.spec.name.clone(), tokens: b.spec.tokens.clone() }))
            .collect();
        Hub::start(options.clone(), bots).await.map(Some).map_err(fail)
    }
}

/// What a slot does next (see [`Executor::next_game`]).
enum Next {
    /// Play this game.
    Play(GameSpec),
    /// Ask the source again.
    Wait,
    /// End the slot.
    End,
}

/// Takes the connections of the game's remote bots, in the order of their ids (two games
/// that each wait for the other's bot would wait for ever).
async fn attach_remotes(seats: &mut ByColor<Seat<AnySession>>, spec: &GameSpec) {
    let mut colors = Color::ALL;
    colors.sort_by_key(|&c| spec.seats[c]);
    for color in colors {
        if let Ok(AnySession::Remote(r)) = &mut seats[color].session {
            r.attach(&spec.game_id).await;
        }
    }
}

/// The game `spec` just played, held for the sessions it `kept` for another game: each is
/// told to report what its process writes until its next `hello`, and goes back to `pool`.
fn hold(
    spec: GameSpec,
    record: crate::record::GameRecord,
    kept: ByColor<Option<AnySession>>,
    pool: &mut [Vec<AnySession>],
) -> Held {
    let ByColor { red, blue } = kept;
    let mut h = Held { spec, record, waiting: ByColor::default() };
    for (color, session) in [(Color::Red, red), (Color::Blue, blue)] {
        if let Some(mut s) = session {
            let (to, from) = tokio::sync::oneshot::channel();
            s.send_post_game_to(to);
            h.waiting[color] = Some((h.spec.seats[color], from));
            pool[h.spec.seats[color]].push(s);
        }
    }
    h
}

/// Gives the slots' happenings (`rx`) to the sinks as they come, counting the finished games,
/// until every slot is done, a sink stops or fails the run, or `cancel` fires (`end` says
/// which).
async fn relay_happenings(
    rx: &mut mpsc::UnboundedReceiver<Happening>,
    sinks: &mut [&mut dyn Sink],
    end: &mut RunEnd,
    cancel: &mut Cancel,
) {
    // The sinks that want ticks get them at the shortest period any of them asks for.
    let every = sinks.iter().filter_map(|s| s.tick_every()).min();
    let mut ticks = every.map(|d| {
        let mut t = tokio::time::interval_at(tokio::time::Instant::now() + d, d);
        t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        t
    });
    loop {
        if end.failed.is_some() || end.cancelled {
            break;
        }
        let report = tokio::select! {
            biased;
            () = cancel.cancelled(), if !end.cancelled => {
                end.cancelled = true;
                break;
            }
            r = rx.recv() => r,
            _ = async { ticks.as_mut().expect("ticks").tick().await }, if ticks.is_some() => {
                for sink in sinks.iter_mut().filter(|s| s.tick_every().is_some()) {
                    sink.on_tick();
                }
                continue;
            }
        };
        let Some(happening) = report else { break };
        if matches!(happening, Happening::GameFinished { .. }) {
            end.finished += 1;
        }
        let flow = to_sinks(sinks, &happening);
        match flow {
            Flow::Continue => {}
            Flow::Stop => {
                end.stopped = true;
                break;
            }
            Flow::Fail(e) => {
                end.failed = Some(e);
                break;
            }
        }
    }
}

/// Gives `happening` to every sink in turn: how the run goes on (the first sink's stop or
/// failure; a failure keeps the happening from the sinks after it).
fn to_sinks(sinks: &mut [&mut dyn Sink], happening: &Happening) -> Flow {
    let mut flow = Flow::Continue;
    for sink in sinks.iter_mut() {
        match sink.on_happening(happening) {
            Flow::Continue => {}
            // A sink that fails keeps the happening from the sinks after it: a game that
            // is not saved (or not a game: a bot that never started) is not counted.
            f @ Flow::Fail(_) => {
                flow = f;
                break;
            }
            f => {
                if flow == Flow::Continue {
                    flow = f;
                }
            }
        }
    }
    flow
}

/// Each sink's [`Sink::finish`] with how the run ended (`end`); the first that fails
/// fails the run, unless it had failed already.
fn finish_sinks(sinks: &mut [&mut dyn Sink], end: &mut RunEnd) {
    for sink in sinks.iter_mut() {
        if let Err(e) = sink.finish(end) {
            end.failed.get_or_insert(e);
        }
    }
}

/// Gives every item of `history` to every sink ([`Sink::on_history`]), counting the games;
/// a history item that is an error fails the run (`end.failed`), and `cancel` firing
/// stops the reading (checked every 256 items).
fn feed_history(
    history: &mut impl Iterator<Item = Result<Happening, crate::run::happenings::Failure>>,
    sinks: &mut [&mut dyn Sink],
    end: &mut RunEnd,
    cancel: Option<&Cancel>,
) {
    for (n, happening) in history.enumerate() {
        if n % 256 == 255 && cancel.is_some_and(Cancel::is_cancelled) {
            end.cancelled = true;
            return;
        }
        let happening = match happening {
            Ok(e) => e,
            Err(f) => {
                end.failed.get_or_insert(f);
                return;
            }
        };
        for sink in sinks.iter_mut() {
            sink.on_history(&happening);
        }
        if matches!(happening, Happening::GameFinished { .. }) {
            end.finished += 1;
        }
    }
}

/// A finished game whose bots' processes were kept for another game: what they write after
/// its `game_over` belongs to it (protocol.md), so it is reported only once each has
/// answered its next `hello` ([`PostGame`]) or has been closed (its exit recorded).
struct Held {
    spec: GameSpec,
    record: crate::record::GameRecord,
    /// By seat: the bot id of a kept process, and where its post-game output comes.
    waiting: ByColor<Option<(usize, tokio::sync::oneshot::Receiver<PostGame>)>>,
}

impl Held {
    /// Seat `color`'s process was closed: what it said until its exit, and the exit.
    fn closed(&mut self, color: Color, exit: String, report: SessionReport) {
        let b = &mut self.record.bots[color];
        b.exit = Some(exit);
        report.info.into_record(b);
        b.bytes_from_bot = report.bytes_from_bot;
        (b.stderr_tail, b.stderr_bytes) = (report.stderr_tail, report.stderr_bytes);
    }

    /// Waits for the post-game output of the processes still out, adds it to the record,
    /// and reports the game (its fault, then its end). False when nobody listens anymore.
    async fn report(mut self, tx: &mpsc::UnboundedSender<Happening>) -> bool {
        for color in Color::ALL {
            let Some((_, from)) = self.waiting[color].take() else { continue };
            // A session dropped before its next hello sends nothing: the record stays.
            if let Ok(post) = from.await {
                let b = &mut self.record.bots[color];
                let mut info = crate::session::messages::InfoLines::from_record(b);
                info.append(post.info);
                info.into_record(b);
                b.bytes_from_bot += post.bytes_from_bot;
                (b.stderr_tail, b.stderr_bytes) = (post.stderr_tail, post.stderr_bytes);
                if post.exit.is_some() {
                    b.exit = post.exit;
                }
            }
        }
        let Held { spec, record, .. } = self;
        if let Some(faulty) = record.result.faulty {
            let _ = tx.send(Happening::Fault {
                spec: spec.clone(),
                color: faulty,
                reason: record.result.reason,
                message: record.result.message.clone(),
            });
        }
        tx.send(Happening::GameFinished { spec, record: Arc::new(record) }).is_ok()
    }
}

/// A worker slot: a task of the run's event loop, or a thread with an event loop of its own
/// (which says when it is done).
enum Worker {
    Task(tokio::task::JoinHandle<()>),
    Thread(tokio::sync::oneshot::Receiver<()>),
}

/// Starts slot `slot`'s worker on a thread of its own, with a single-threaded event loop;
/// `abort` turning true drops the worker (its games are stopped, their bots killed by the
/// supervisor). Falls back to a task of the caller's event loop if no thread can be made.
fn spawn_slot_thread(
    slot: usize,
    work: impl std::future::Future<Output = ()> + Send + 'static,
    mut abort: tokio::sync::watch::Receiver<bool>,
) -> Worker {
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let work = Arc::new(Mutex::new(Some(work)));
    let for_thread = work.clone();
    let started = std::thread::Builder::new().name(format!("game-slot-{slot}")).spawn(move || {
        let Some(work) = for_thread.lock().unwrap_or_else(|e| e.into_inner()).take() else { return };
        match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime.block_on(async move {
                tokio::select! {
                    () = work => {}
                    _ = abort.wait_for(|&a| a) => {}
                }
            }),
            Err(e) => tracing::error!("game slot {slot}: cannot start an event loop: {e}"),
        }
        let _ = done_tx.send(());
    });
    match started {
        Ok(_) => Worker::Thread(done_rx),
        Err(e) => {
            tracing::warn!("game slot {slot}: cannot start a thread ({e}); it plays on the main event loop");
            let work = work.lock().unwrap_or_else(|e| e.into_inner()).take();
            Worker::Task(tokio::spawn(async move {
                if let Some(w) = work {
                    w.await;
                }
            }))
        }
    }
}
