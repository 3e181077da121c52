//! One game between two bots, refereed by the rules crate.
//!
//! The referee is the only code that decides results. It talks to each bot through a
//! [`BotSession`] (the seam: protocol.md over a process or over a remote bot's connection,
//! or the UCC 2012 protocol, in a run; a scripted bot in the tests), and a game is four steps: [`start`] both bots, get both [`setups`], play the
//! [`moves`], and [`finish`] (decide the result, tell both bots, keep or stop them).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use stratego_protocol::{Clock as WireClock, Strike};
use stratego_rules::{ByColor, Color, Deployment, Game, Move, Ruleset};

use crate::game::clock::{Clock, TimeControl};
use crate::reason::{Fault, Reason};
use crate::record::{BotInfo, GameRecord, RecordPly, RecordResult, StrikeRecord};
use crate::run::placement::ShareCpu;
use crate::run::schedule::GameSpec;
use crate::session::{BotSession, Decision, GameEnd, GameStart, SessionError, Timed, TurnRequest};
use crate::text::secs;

/// Settings shared by every game of a run.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The rules.
    pub rules: Arc<Ruleset>,
    /// The clocks (a bot may have its own: [`Seat::time_control`]).
    pub time_control: TimeControl,
    /// Longest line a bot may send.
    pub max_line: usize,
    /// Time a bot has to exit after `quit` before its group is killed.
    pub grace: Duration,
    /// A bot's clock starts when it has read its request, but at the latest this long after
    /// the host wrote it (zero: at the write).
    pub read_grace: Duration,
    /// The run's master seed.
    pub match_seed: u64,
    /// Timeouts and illegal moves forgiven per bot and game (a random legal move is played
    /// instead); 0: every fault loses.
    pub strikes: u32,
    /// Do not tell bots their opponent's name.
    pub blind: bool,
    /// `--log-protocol`: every line each way.
    pub protocol_log: Option<Arc<crate::session::protocol_log::ProtocolLog>>,
    /// `--listen`: where remote bots connect, when the event has any.
    pub listen: Option<Arc<crate::remote::hub::ListenOptions>>,
    /// `--draw-after-no-capture` and `--adjudicate-material` ([`crate::run::adjudicate`]).
    pub adjudication: crate::run::adjudicate::Adjudication,
}

impl GameSettings {
    /// How sessions start their bots' processes (pinned to `cpu` when given).
    pub fn session_options(&self, cpu: Option<usize>) -> crate::session::SessionOptions {
        crate::session::SessionOptions {
            max_line: self.max_line,
            cpu,
            read_grace: self.read_grace,
            grace: self.grace,
            log: self.protocol_log.clone(),
        }
    }
}

/// A bot taking its seat for one game.
pub struct Seat<S> {
    /// Its stable name (tables, records).
    pub name: String,
    /// Its command, for the record.
    pub command: Vec<String>,
    /// Its session, or why it could not be started.
    pub session: Result<S, Fault>,
    /// Its clocks.
    pub time_control: TimeControl,
    /// The setup the event gives it (a setup book), if any.
    pub fixed_setup: Option<Deployment>,
    /// The CPU this game's bots share when both are single-threaded (see
    /// [`BotSession::single_threaded`]).
    pub share_cpu: Option<ShareCpu>,
}

/// Settles where the game's bots run (see [`ShareCpu::settle`]); whether they now share a CPU.
fn share_cpu<S: BotSession>(players: &mut ByColor<Player<S>>, share: Option<&ShareCpu>) -> bool {
    let Some(share) = share else { return false };
    let ByColor { red, blue } = players;
    share.settle(red.session.as_mut(), blue.session.as_mut())
}

/// What the referee tracks for a seat during a game.
struct Player<S> {
    name: String,
    command: Vec<String>,
    session: Option<S>,
    fault: Option<Fault>,
    tc: TimeControl,
    clock: Clock,
    fixed_setup: Option<Deployment>,
    think_us: u64,
    timeout_late_us: Option<u64>,
    strikes: Vec<StrikeRecord>,
    /// To tell the bot in its next turn.
    strike_notice: Option<Strike>,
}

impl<S> Player<S> {
    fn fail(&mut self, fault: Fault) {
        if self.fault.is_none() {
            self.fault = Some(fault);
        }
    }
}

/// Judges an answer: in time ([`crate::game::clock::in_time`], the one verdict), or the
/// fault that `what` was too slow. The one place where a request's answer is found too
/// late; the bank is charged after, without a second verdict ([`Clock::spend`]).
pub fn judge<T>(
    answer: Result<Timed<T>, SessionError>,
    limit: Duration,
    margin: Duration,
    timeout: Reason,
    what: &str,
    timeout_late_us: &mut Option<u64>,
) -> Result<Timed<T>, Fault> {
    // Formatted only for a fault: judging runs every ply.
    let margin_note = || match margin {
        m if m.is_zero() => String::new(),
        m => format!(" (+{} margin)", secs(m)),
    };
    match answer {
        Ok(a) if crate::game::clock::in_time(a.took, limit, margin) => Ok(a),
        Ok(a) => {
            let stalls = match a.stall_credit {
                c if c.is_zero() => String::new(),
                // The credit is capped (see stopwatch::credit_cap): a longer stall shows so.
                c if c >= crate::supervise::stopwatch::credit_cap(limit + margin) => {
                    format!(" (not counting {} of machine stalls, the most a move is credited)", secs(c))
                }
                c => format!(" (not counting {} of machine stalls)", secs(c)),
            };
            Err(Fault::new(
                timeout,
                format!("{what} took {}; the limit was {}{}{stalls}", secs(a.took), secs(limit), margin_note()),
            ))
        }
        Err(SessionError::Timeout { stall_credit, late, note }) => {
            *timeout_late_us = Some(late.as_micros() as u64);
            let stalls = match stall_credit {
                c if c.is_zero() => String::new(),
                c => format!(" (plus {} for machine stalls)", secs(c)),
            };
            let note = note.map(|n| format!("; {n}")).unwrap_or_default();
            Err(Fault::new(timeout, format!("no {what} within {}{}{stalls}{note}", secs(limit), margin_note())))
        }
        Err(SessionError::Fault(f)) => Err(f),
    }
}

/// What the referee's per-ply callback (`on_ply`) is told while a game is played: the start
/// and each ply, which the executor turns into [`crate::run::happenings::Happening`]s for the
/// `--watch` board and the live page.
#[derive(Clone, Copy, Debug)]
pub enum PlyUpdate<'a> {
    /// The setups are in and the game starts.
    Started(&'a Game),
    /// A ply was played.
    Ply(&'a RecordPly),
}

/// Plays one game. Returns its record and the sessions fit for another game (the others
/// are shut down).
/// `on_ply`, when given, sees the start and each ply as it is played (for the `--watch` board and the live page).
pub async fn play_game<S: BotSession>(
    settings: &GameSettings,
    spec: &GameSpec,
    seats: ByColor<Seat<S>>,
    on_ply: Option<&(dyn Fn(PlyUpdate<'_>) + Sync)>,
) -> (GameRecord, ByColor<Option<S>>) {
    let started = Instant::now();
    let started_unix_ms =
        SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let share = seats.red.share_cpu.clone();
    let mut players = seats.map(|seat| {
        let (session, fault) = match seat.session {
            Ok(s) => (Some(s), None),
            Err(f) => (None, Some(f)),
        };
        Player {
            name: seat.name,
            command: seat.command,
            session,
            fault,
            clock: Clock::new(&seat.time_control),
            tc: seat.time_control,
            fixed_setup: seat.fixed_setup,
            think_us: 0,
            timeout_late_us: None,
            strikes: Vec::new(),
            strike_notice: None,
        }
    });
    let starts = ByColor::new_with(|color| StartInfo {
        game_id: &spec.game_id,
        color,
        rules: &settings.rules,
        time_control: players[color].tc,
        seed: stratego_protocol::Rng::derive(spec.seed, color.index() as u64 + 1),
        max_line: settings.max_line,
        opponent: (!settings.blind).then(|| players[!color].name.clone()),
    });

    start(&mut players, &starts).await;
    let shared = share_cpu(&mut players, share.as_ref());
    let deployments = if players.red.fault.is_none() && players.blue.fault.is_none() {
        setups(&mut players, &starts, &settings.rules).await
    } else {
        ByColor::default()
    };
    let mut plies = Vec::new();
    let mut resigned = None;
    let mut adjudged = None;
    let mut game = None;
    if let (Some(r), Some(b)) = (&deployments.red, &deployments.blue) {
        match Game::new(settings.rules.clone(), r, b) {
            Ok(mut g) => {
                if let Some(f) = on_ply {
                    f(PlyUpdate::Started(&g));
                }
                let share = share.as_ref().filter(|_| !shared);
                let ended = (&mut plies, &mut adjudged);
                resigned = moves(&mut g, &mut players, settings, spec, ended, on_ply, share).await;
                game = Some(g);
            }
            Err(e) => players.blue.fail(Fault::new(Reason::InvalidSetup, e.to_string())),
        }
    }
    let result = match adjudged {
        Some(a) => crate::run::adjudicate::result(a),
        None => decide(&players, resigned, game.as_ref()),
    };
    let (infos, kept) = finish(&mut players, settings, spec, &result, &deployments, plies.len() as u32).await;
    let record = GameRecord {
        game_id: spec.game_id.clone(),
        index: spec.index,
        pair: spec.pair,
        book_setups: spec.setups,
        match_seed: settings.match_seed,
        seed: spec.seed,
        host_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_unix_ms,
        duration_ms: started.elapsed().as_millis() as u64,
        ruleset: settings.rules.spec().clone(),
        time_control: time_control_of(&players),
        time_controls: {
            let (red, blue) = (players.red.tc.to_wire(), players.blue.tc.to_wire());
            (red != blue).then_some(ByColor { red, blue })
        },
        bots: infos,
        deployments: deployments.as_ref().map(|d| d.as_ref().map(|d| d.to_rows(&settings.rules))),
        plies,
        result,
    };
    (record, kept)
}

/// The time control written in the record: the event's, or Red's when the bots differ
/// (each bot's own is in its `hello`).
fn time_control_of<S>(players: &ByColor<Player<S>>) -> stratego_protocol::TimeControl {
    players.red.tc.to_wire()
}

/// What a bot is told at the start, owned by the game (the sessions borrow it).
#[derive(Clone, Debug)]
struct StartInfo<'a> {
    game_id: &'a str,
    color: Color,
    rules: &'a Ruleset,
    time_control: TimeControl,
    seed: u64,
    max_line: usize,
    opponent: Option<String>,
}

impl StartInfo<'_> {
    fn view(&self) -> GameStart<'_> {
        GameStart {
            game_id: self.game_id,
            color: self.color,
            rules: self.rules,
            time_control: &self.time_control,
            seed: self.seed,
            max_line: self.max_line,
            opponent: self.opponent.as_deref(),
        }
    }
}

/// Step 1: both bots are introduced to the game, at once.
async fn start<S: BotSession>(players: &mut ByColor<Player<S>>, starts: &ByColor<StartInfo<'_>>) {
    async fn one<S: BotSession>(p: &mut Player<S>, start: &StartInfo<'_>) {
        let Some(session) = p.session.as_mut() else { return };
        let answer = session.start_game(&start.view()).await;
        if let Err(f) =
            judge(answer, p.tc.startup, p.tc.margin, Reason::StartupTimeout, "ready", &mut p.timeout_late_us)
        {
            p.fail(f);
        }
    }
    let ByColor { red, blue } = players;
    tokio::join!(one(red, &starts.red), one(blue, &starts.blue));
}

/// Step 2: both setups, at once. A bot with a fixed setup is told it and must still answer.
async fn setups<S: BotSession>(
    players: &mut ByColor<Player<S>>,
    starts: &ByColor<StartInfo<'_>>,
    rules: &Ruleset,
) -> ByColor<Option<Deployment>> {
    async fn one<S: BotSession>(p: &mut Player<S>, start: &StartInfo<'_>, rules: &Ruleset) -> Option<Deployment> {
        let session = p.session.as_mut()?;
        let answer = session.setup(&start.view(), p.fixed_setup.as_ref()).await;
        match judge(answer, p.tc.setup, p.tc.margin, Reason::SetupTimeout, "setup", &mut p.timeout_late_us) {
            Err(f) => {
                p.fail(f);
                None
            }
            Ok(_) if p.fixed_setup.is_some() => p.fixed_setup.clone(),
            Ok(a) => match Deployment::parse(rules, start.color, &a.value) {
                Ok(d) => Some(d),
                Err(e) => {
                    p.fail(Fault::new(Reason::InvalidSetup, e.to_string()));
                    None
                }
            },
        }
    }
    let ByColor { red, blue } = players;
    let (r, b) = tokio::join!(one(red, &starts.red, rules), one(blue, &starts.blue, rules));
    ByColor::new(r, b)
}

/// Step 3: the move loop. Returns the side that resigned, if one did.
async fn moves<S: BotSession>(
    game: &mut Game,
    players: &mut ByColor<Player<S>>,
    settings: &GameSettings,
    spec: &GameSpec,
    (plies, adjudged): (&mut Vec<RecordPly>, &mut Option<crate::run::adjudicate::Adjudged>),
    on_ply: Option<&(dyn Fn(PlyUpdate<'_>) + Sync)>,
    mut share: Option<&ShareCpu>,
) -> Option<Color> {
    let mut adjudicator = crate::run::adjudicate::Adjudicator::new(settings.adjudication);
    let mut legal = Vec::with_capacity(128);
    let mut rng = stratego_protocol::Rng::new(stratego_protocol::Rng::derive(spec.seed, 0x5712_1CE5));
    // Where each side's pieces stood after the setups (told to bots that keep their own board).
    let setup_squares: ByColor<Vec<stratego_rules::Square>> =
        ByColor::new_with(|c| game.view_pieces(c).iter().filter(|p| p.color == c).map(|p| p.square).collect());
    while !game.is_over() {
        // Bots seen to be single-threaded during the game (see `JsonSession`) share their
        // CPU from then on.
        if share.is_some()
            && players.red.session.as_ref().is_some_and(S::single_threaded)
            && players.blue.session.as_ref().is_some_and(S::single_threaded)
        {
            share_cpu(players, share.take());
        }
        let color = game.to_move();
        let opponent_remaining = players[!color].clock.remaining;
        let p = &mut players[color];
        let budget = p.clock.budget(&p.tc);
        let strike = p.strike_notice.take();
        let session = p.session.as_mut()?;
        let req = TurnRequest {
            game_id: &spec.game_id,
            game,
            clock: WireClock {
                move_ms: crate::game::clock::ms(budget),
                remaining_ms: p.clock.remaining.map(crate::game::clock::ms),
                opponent_remaining_ms: opponent_remaining.map(crate::game::clock::ms),
            },
            budget: p.tc.allowed(budget),
            strike: strike.as_ref(),
            opponent_setup: &setup_squares[!color],
        };
        let answer = session.turn(&req).await;
        let took = answer.as_ref().ok().map(|a| (a.took, a.stall_credit));
        let lag = answer.as_ref().ok().and_then(|a| a.lag);
        let margin = p.tc.margin;
        let decided =
            judge(answer, budget, margin, Reason::MoveTimeout, "move", &mut p.timeout_late_us).and_then(|a| {
                p.think_us += a.took.as_micros() as u64;
                // In time (judge's verdict, against this budget): only the bank is charged.
                p.clock.spend(&p.tc, a.took);
                match a.value {
                    Decision::Resign => Ok(None),
                    Decision::Move(text) => match text.parse::<Move>() {
                        Err(e) => Err(Fault::new(Reason::IllegalMove, e.to_string())),
                        Ok(mv) => match game.check_move(mv) {
                            Ok(()) => Ok(Some(mv)),
                            Err(e) => Err(Fault::new(Reason::IllegalMove, format!("{mv} is illegal: {e}"))),
                        },
                    },
                }
            });
        let mv = match decided {
            Ok(Some(mv)) => mv,
            Ok(None) => return Some(color),
            Err(fault) => match strike_policy(p, fault, game, &mut legal, &mut rng, settings.strikes) {
                Some(mv) => mv,
                None => return None,
            },
        };
        let ply = game.play_unchecked(mv);
        let (time_us, stall_us, over_us) = took.map_or((0, 0, 0), |(t, s)| {
            let over = if t <= budget + margin { t.saturating_sub(budget) } else { Duration::ZERO };
            (t.as_micros() as u64, s.as_micros() as u64, over.as_micros() as u64)
        });
        plies.push(RecordPly {
            ply,
            time_us,
            stall_us,
            over_us,
            lag_us: lag.map(|l| l.lag.as_micros() as u64),
            lag_credit_us: lag.map_or(0, |l| l.credit.as_micros() as u64),
        });
        if let Some(f) = on_ply {
            f(PlyUpdate::Ply(plies.last().expect("just pushed")));
        }
        for c in Color::ALL {
            if let Some(s) = players[c].session.as_mut() {
                s.played(game, &ply).await;
            }
        }
        if !game.is_over() {
            *adjudged = adjudicator.after_ply(game, &ply);
            if adjudged.is_some() {
                return None;
            }
        }
    }
    None
}

/// Under `--strikes`, a timeout or illegal move is forgiven while strikes are left: a random
/// legal move is played instead, recorded and told to the bot. Returns that move, or `None`
/// when the fault stands (it is then the player's fault).
fn strike_policy<S>(
    p: &mut Player<S>,
    fault: Fault,
    game: &Game,
    legal: &mut Vec<Move>,
    rng: &mut stratego_protocol::Rng,
    strikes: u32,
) -> Option<Move> {
    let forgivable = matches!(fault.reason, Reason::MoveTimeout | Reason::IllegalMove);
    if !forgivable || p.strikes.len() as u32 >= strikes {
        p.fail(fault);
        return None;
    }
    game.legal_moves(legal);
    let mv = *rng.choose(legal).expect("a game not over has legal moves");
    if fault.reason == Reason::MoveTimeout {
        if let Some(remaining) = p.clock.remaining.as_mut() {
            // The bank was spent: give the increment so the bot can go on.
            *remaining = p.tc.increment.max(Duration::from_millis(1));
        }
    }
    p.strikes.push(StrikeRecord {
        ply: game.ply_count() + 1,
        reason: fault.reason,
        message: fault.message.clone(),
        replaced_by: mv,
    });
    p.strike_notice = Some(Strike {
        reason: fault.reason.code().to_owned(),
        message: fault.message,
        replaced_by: mv,
        strikes_left: strikes - p.strikes.len() as u32,
    });
    Some(mv)
}

/// The result: a fault decides first, then a resignation, then the rules.
fn decide<S>(players: &ByColor<Player<S>>, resigned: Option<Color>, game: Option<&Game>) -> RecordResult {
    match (&players.red.fault, &players.blue.fault) {
        (Some(r), Some(b)) => RecordResult {
            winner: None,
            reason: Reason::BothFaulted,
            message: format!("Red: {} ({}); Blue: {} ({})", r.message, r.reason, b.message, b.reason),
            faulty: None,
        },
        (Some(f), None) | (None, Some(f)) => {
            let faulty = if players.red.fault.is_some() { Color::Red } else { Color::Blue };
            RecordResult {
                winner: Some(!faulty),
                reason: f.reason,
                message: format!("{} ({faulty}) forfeits: {}", players[faulty].name, f.message),
                faulty: Some(faulty),
            }
        }
        (None, None) => match (resigned, game.and_then(Game::outcome)) {
            (Some(c), _) => RecordResult {
                winner: Some(!c),
                reason: Reason::Resignation,
                message: format!("{} ({c}) resigned", players[c].name),
                faulty: None,
            },
            (None, Some(o)) => RecordResult {
                winner: o.winner,
                reason: o.reason.into(),
                message: match o.winner {
                    Some(w) => format!("{} ({w}) wins: {}", players[w].name, o.reason),
                    None => format!("draw: {}", o.reason),
                },
                faulty: None,
            },
            (None, None) => unreachable!("a game without fault or resignation ends by the rules"),
        },
    }
}

/// Step 4: tell both bots how it ended, then keep the sessions fit for another game and
/// stop the others. Returns what the record says of each bot.
async fn finish<S: BotSession>(
    players: &mut ByColor<Player<S>>,
    settings: &GameSettings,
    spec: &GameSpec,
    result: &RecordResult,
    deployments: &ByColor<Option<Deployment>>,
    total_plies: u32,
) -> (ByColor<BotInfo>, ByColor<Option<S>>) {
    let mut kept: ByColor<Option<S>> = ByColor::default();
    let mut stopping: ByColor<Option<S>> = ByColor::default();
    let mut infos: ByColor<Option<BotInfo>> = ByColor::default();
    for color in Color::ALL {
        let p = &mut players[color];
        let mut info = BotInfo {
            think_us: p.think_us,
            clock_ms: p.clock.remaining.map(crate::game::clock::ms),
            timeout_late_us: p.timeout_late_us,
            strikes: std::mem::take(&mut p.strikes),
            ..BotInfo::new(p.name.clone(), p.command.clone())
        };
        if let Some(mut session) = p.session.take() {
            session
                .game_over(&GameEnd {
                    game_id: &spec.game_id,
                    color,
                    result,
                    total_plies,
                    opponent_setup: deployments[!color].as_ref(),
                })
                .await;
            let r = session.report();
            info.reported_name = r.reported_name;
            info.version = r.version;
            info.author = r.author;
            r.info.into_record(&mut info);
            info.bytes_to_bot = r.bytes_to_bot;
            info.bytes_from_bot = r.bytes_from_bot;
            info.process_note = r.process_note;
            info.unrequested = r.unrequested;
            info.away_us = r.away.as_micros() as u64;
            (info.stderr_tail, info.stderr_bytes) = (r.stderr_tail, r.stderr_bytes);
            if p.fault.is_none() && session.reusable() {
                kept[color] = Some(session);
            } else {
                stopping[color] = Some(session);
            }
        }
        infos[color] = Some(info);
    }
    // Both at once: each may take the grace period to exit. What a bot writes after
    // `game_over` until it ends belongs to this game: its report is taken again once it has.
    let ByColor { red, blue } = stopping;
    let stop = |s: Option<S>| async move {
        match s {
            Some(s) => Some(s.close(settings.grace).await),
            None => None,
        }
    };
    let (r, b) = tokio::join!(stop(red), stop(blue));
    let mut infos = infos.map(|i| i.expect("both seats reported"));
    for (info, closed) in [(&mut infos.red, r), (&mut infos.blue, b)] {
        if let Some((exit, report)) = closed {
            info.exit = Some(exit);
            report.info.into_record(info);
            info.bytes_from_bot = report.bytes_from_bot;
            (info.stderr_tail, info.stderr_bytes) = (report.stderr_tail, report.stderr_bytes);
        }
    }
    (infos, kept)
}

#[cfg(test)]
mod tests {
    //! The referee through the seam, with in-memory bots: no processes, no clocks.

    use std::sync::{Arc, Mutex};

    use stratego_protocol::Rng;

    use super::*;
    use crate::session::SessionReport;

    /// How a scripted bot plays.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Script {
        /// Random legal moves.
        Random,
        /// An illegal move at the given ply (a move of an empty square).
        IllegalAt(u32),
        /// Its answer at the given ply takes longer than the budget.
        SlowAt(u32),
        /// No answer at the given ply (the host's deadline passes).
        SilentAt(u32),
        /// Resigns at the given ply.
        ResignAt(u32),
        /// An invalid setup.
        BadSetup,
    }

    /// What a scripted bot saw, for the tests to check.
    #[derive(Default, Debug)]
    struct Seen {
        opponent: Option<Option<String>>,
        fixed: Option<String>,
        played: u32,
        over: Option<RecordResult>,
        stopped: bool,
    }

    struct MemBot {
        script: Script,
        rng: Rng,
        multi_game: bool,
        seen: Arc<Mutex<Seen>>,
    }

    fn bot(script: Script, seed: u64) -> (MemBot, Arc<Mutex<Seen>>) {
        let seen = Arc::new(Mutex::new(Seen::default()));
        (MemBot { script, rng: Rng::new(seed), multi_game: false, seen: seen.clone() }, seen)
    }

    fn answer<T>(value: T) -> Result<Timed<T>, SessionError> {
        Ok(Timed { value, took: Duration::from_micros(5), stall_credit: Duration::ZERO, lag: None })
    }

    impl BotSession for MemBot {
        async fn start_game(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
            self.seen.lock().unwrap().opponent = Some(start.opponent.map(str::to_owned));
            answer(())
        }

        async fn setup(
            &mut self,
            start: &GameStart<'_>,
            fixed: Option<&Deployment>,
        ) -> Result<Timed<String>, SessionError> {
            self.seen.lock().unwrap().fixed = fixed.map(|d| d.to_rows(start.rules));
            if self.script == Script::BadSetup {
                return answer("FFFF".to_owned());
            }
            let mut next = || self.rng.next_u64();
            answer(Deployment::random(start.rules, start.color, &mut next).to_rows(start.rules))
        }

        async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Timed<Decision>, SessionError> {
            let ply = req.game.ply_count();
            match self.script {
                Script::IllegalAt(p) if p <= ply => return answer(Decision::Move("e5-e6".into())),
                Script::SlowAt(p) if p <= ply => {
                    return Ok(Timed {
                        value: Decision::Move("a1-a2".into()),
                        took: req.budget + Duration::from_millis(3),
                        stall_credit: Duration::from_millis(2),
                        lag: None,
                    });
                }
                Script::SilentAt(p) if p <= ply => {
                    return Err(SessionError::Timeout {
                        stall_credit: Duration::ZERO,
                        late: Duration::from_micros(40),
                        note: Some("it sent a move for ply 3".into()),
                    });
                }
                Script::ResignAt(p) if p <= ply => return answer(Decision::Resign),
                _ => {}
            }
            let mut legal = Vec::new();
            req.game.legal_moves(&mut legal);
            let mv = legal[self.rng.below(legal.len())];
            answer(Decision::Move(mv.to_string()))
        }

        async fn played(&mut self, _game: &Game, _ply: &stratego_rules::Ply) {
            self.seen.lock().unwrap().played += 1;
        }

        async fn game_over(&mut self, end: &GameEnd<'_>) {
            self.seen.lock().unwrap().over = Some(end.result.clone());
        }

        fn report(&self) -> SessionReport {
            SessionReport { reported_name: Some("mem".into()), ..SessionReport::default() }
        }

        fn reusable(&self) -> bool {
            self.multi_game
        }

        async fn shutdown(self, _grace: Duration) -> String {
            self.seen.lock().unwrap().stopped = true;
            "stopped".into()
        }
    }

    fn settings(strikes: u32) -> GameSettings {
        GameSettings {
            rules: Arc::new(Ruleset::classic()),
            time_control: TimeControl {
                startup: Duration::from_secs(1),
                setup: Duration::from_secs(1),
                move_limit: Some(Duration::from_millis(100)),
                bank: None,
                increment: Duration::ZERO,
                margin: Duration::ZERO,
            },
            max_line: 1 << 20,
            grace: Duration::from_millis(10),
            read_grace: Duration::ZERO,
            match_seed: 1,
            strikes,
            blind: false,
            protocol_log: None,
            listen: None,
            adjudication: Default::default(),
        }
    }

    fn spec() -> GameSpec {
        GameSpec {
            index: 0,
            game_id: "g-1".into(),
            pair: 0,
            seed: 42,
            seats: ByColor::new(0, 1),
            setups: ByColor::new(None, None),
        }
    }

    fn seat(name: &str, bot: MemBot, settings: &GameSettings) -> Seat<MemBot> {
        Seat {
            name: name.into(),
            command: vec![name.into()],
            session: Ok(bot),
            time_control: settings.time_control,
            fixed_setup: None,
            share_cpu: None,
        }
    }

    async fn play(settings: &GameSettings, red: MemBot, blue: MemBot) -> (GameRecord, ByColor<Option<MemBot>>) {
        let seats = ByColor::new(seat("r", red, settings), seat("b", blue, settings));
        play_game(settings, &spec(), seats, None).await
    }

    #[tokio::test]
    async fn a_game_between_legal_movers_ends_by_the_rules_and_plays_through() {
        let s = settings(0);
        let ((red, rs), (blue, bs)) = (bot(Script::Random, 1), bot(Script::Random, 2));
        let (rec, kept) = play(&s, red, blue).await;
        let outcome = rec.play_through().expect("the record plays through").expect("the rules ended the game");
        assert_eq!(rec.result.winner, outcome.winner);
        assert_eq!(rec.result.reason, Reason::from(outcome.reason));
        // Both bots were told every ply and the result, then stopped (not multi-game).
        for seen in [&rs, &bs] {
            let seen = seen.lock().unwrap();
            assert_eq!(seen.played as usize, rec.plies.len());
            assert_eq!(seen.over.as_ref(), Some(&rec.result));
            assert!(seen.stopped);
        }
        assert!(kept.red.is_none() && kept.blue.is_none());
        assert_eq!(rec.bots.red.exit.as_deref(), Some("stopped"));
        assert_eq!(rs.lock().unwrap().opponent, Some(Some("b".into())));
    }

    #[tokio::test]
    async fn an_illegal_move_forfeits_and_says_which_move() {
        let s = settings(0);
        let (rec, _) = play(&s, bot(Script::Random, 1).0, bot(Script::IllegalAt(5), 2).0).await;
        assert_eq!(rec.result.reason, Reason::IllegalMove);
        assert_eq!(rec.result.faulty, Some(Color::Blue));
        assert_eq!(rec.result.winner, Some(Color::Red));
        assert!(rec.result.message.starts_with("b (Blue) forfeits: e5-e6 is illegal"), "{}", rec.result.message);
        assert_eq!(rec.plies.len(), 5);
    }

    #[tokio::test]
    async fn a_late_answer_and_a_missing_answer_are_move_timeouts_with_the_figures() {
        let s = settings(0);
        let (rec, _) = play(&s, bot(Script::SlowAt(2), 1).0, bot(Script::Random, 2).0).await;
        assert_eq!(rec.result.reason, Reason::MoveTimeout);
        assert_eq!(
            rec.result.message,
            "r (Red) forfeits: move took 0.103 s; the limit was 0.100 s (not counting 0.002 s of machine stalls)"
        );
        let (rec, _) = play(&s, bot(Script::Random, 1).0, bot(Script::SilentAt(3), 2).0).await;
        assert_eq!(rec.result.reason, Reason::MoveTimeout);
        assert_eq!(rec.result.message, "b (Blue) forfeits: no move within 0.100 s; it sent a move for ply 3");
        assert_eq!(rec.bots.blue.timeout_late_us, Some(40));
    }

    #[tokio::test]
    async fn strikes_replace_a_forgivable_fault_by_a_random_legal_move() {
        let s = settings(1);
        let (rec, _) = play(&s, bot(Script::Random, 1).0, bot(Script::IllegalAt(5), 2).0).await;
        // The first illegal move is forgiven; the second (at the next turn) is not.
        assert_eq!(rec.bots.blue.strikes.len(), 1);
        assert_eq!(rec.bots.blue.strikes[0].ply, 6);
        assert_eq!(rec.plies[5].ply.mv, rec.bots.blue.strikes[0].replaced_by);
        assert_eq!(rec.result.reason, Reason::IllegalMove);
        assert_eq!(rec.plies.len(), 7);
    }

    #[tokio::test]
    async fn resignation_and_invalid_setups_decide_the_game() {
        let s = settings(0);
        let (rec, _) = play(&s, bot(Script::ResignAt(0), 1).0, bot(Script::Random, 2).0).await;
        assert_eq!((rec.result.reason, rec.result.winner), (Reason::Resignation, Some(Color::Blue)));
        assert!(rec.plies.is_empty());
        let (rec, _) = play(&s, bot(Script::Random, 1).0, bot(Script::BadSetup, 2).0).await;
        assert_eq!((rec.result.reason, rec.result.faulty), (Reason::InvalidSetup, Some(Color::Blue)));
        assert_eq!(rec.deployments.blue, None);
    }

    #[tokio::test]
    async fn a_fixed_setup_is_told_and_played_whatever_the_bot_answers() {
        let s = settings(0);
        let rules = Ruleset::classic();
        let mut rng = Rng::new(9);
        let mut next = || rng.next_u64();
        let fixed = ByColor::new_with(|c| Deployment::random(&rules, c, &mut next));
        let ((red, rs), (blue, _)) = (bot(Script::Random, 1), bot(Script::BadSetup, 2));
        let mut seats = ByColor::new(seat("r", red, &s), seat("b", blue, &s));
        seats.red.fixed_setup = Some(fixed.red.clone());
        seats.blue.fixed_setup = Some(fixed.blue.clone());
        let (rec, _) = play_game(&s, &spec(), seats, None).await;
        assert_eq!(rs.lock().unwrap().fixed.as_deref(), Some(fixed.red.to_rows(&rules).as_str()));
        assert_eq!(rec.deployments.red.as_deref(), Some(fixed.red.to_rows(&rules).as_str()));
        assert_eq!(rec.deployments.blue.as_deref(), Some(fixed.blue.to_rows(&rules).as_str()));
        assert!(!rec.result.reason.is_fault(), "{:?}", rec.result);
    }

    #[tokio::test]
    async fn a_multi_game_session_without_fault_is_kept_and_a_blind_event_hides_names() {
        let mut s = settings(0);
        s.blind = true;
        let ((mut red, rs), (mut blue, _)) = (bot(Script::Random, 1), bot(Script::IllegalAt(4), 2));
        red.multi_game = true;
        blue.multi_game = true;
        let (rec, kept) = play(&s, red, blue).await;
        assert_eq!(rec.result.faulty, Some(Color::Blue));
        assert!(kept.red.is_some(), "the faultless multi-game bot is kept");
        assert!(kept.blue.is_none(), "the faulty one is stopped");
        assert_eq!(rec.bots.red.exit, None);
        assert_eq!(rs.lock().unwrap().opponent, Some(None));
    }

    #[test]
    fn judge_is_the_one_place_an_answer_is_found_late() {
        let mut late = None;
        let us = Duration::from_micros;
        let ok = judge::<()>(answer(()), us(5), Duration::ZERO, Reason::MoveTimeout, "move", &mut late);
        assert!(ok.is_ok(), "an answer exactly at the limit is in time");
        let slow = judge::<()>(answer(()), us(4), Duration::ZERO, Reason::SetupTimeout, "setup", &mut late);
        assert_eq!(slow.unwrap_err().message, "setup took 0.000 s; the limit was 0.000 s");
        // The answer took 5 µs: 1 µs past a 4 µs limit is within a 1 µs margin, 2 µs is not.
        assert!(judge::<()>(answer(()), us(4), us(1), Reason::MoveTimeout, "move", &mut late).is_ok());
        let over = judge::<()>(answer(()), us(3), us(1), Reason::MoveTimeout, "move", &mut late);
        assert_eq!(over.unwrap_err().message, "move took 0.000 s; the limit was 0.000 s (+0.000 s margin)");
        // A credit at its cap (250 ms for a 20 ms move) says so; one below it does not.
        let mut message_with_credit = |credit_ms: u64| {
            let answer = Ok(Timed {
                value: (),
                took: Duration::from_millis(30),
                stall_credit: Duration::from_millis(credit_ms),
                lag: None,
            });
            let ms = Duration::from_millis;
            judge::<()>(answer, ms(20), ms(3), Reason::MoveTimeout, "move", &mut late).unwrap_err().message
        };
        assert_eq!(
            message_with_credit(23),
            "move took 0.030 s; the limit was 0.020 s (+0.003 s margin) (not counting 0.023 s of machine stalls)"
        );
        assert_eq!(
            message_with_credit(250),
            "move took 0.030 s; the limit was 0.020 s (+0.003 s margin) (not counting 0.250 s of machine stalls, the most \
             a move is credited)"
        );
        assert_eq!(late, None);
    }
}
