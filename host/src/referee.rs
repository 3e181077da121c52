//! One game between two bot processes, refereed by the rules crate.
//!
//! The referee is the only code that talks to bots during a game and the only code that
//! decides results. Each bot sees only its own [`View`](stratego_rules::View)-derived turn.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use stratego_protocol::{
    BotMessage, Clock as WireClock, GameOver, GameResult, Hello, HostMessage, Placement, PlyNotice, SetupRequest,
    Strike, Turn,
};
use stratego_rules::{ByColor, Color, Deployment, Game, Move, Ply, Ruleset};

use crate::bot_process::{BotProcess, RecvError};
use crate::bot_spec::BotSpec;
use crate::clock::{Clock, TimeControl};
use crate::reason::{Fault, Reason};
use crate::record::{BotInfo, GameRecord, RecordPly, RecordResult, StrikeRecord};

/// Settings shared by every game of a match.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The rules.
    pub rules: Arc<Ruleset>,
    /// The clocks.
    pub time_control: TimeControl,
    /// Longest line a bot may send.
    pub max_line: usize,
    /// Time a bot has to exit after `quit` before its group is killed.
    pub grace: Duration,
    /// A bot's clock starts when it has read its request, but at the latest this long after
    /// the host wrote it (zero: at the write).
    pub read_grace: Duration,
    /// The match's master seed.
    pub match_seed: u64,
    /// Pin each game's bots to one CPU (by worker slot).
    pub pin: bool,
    /// The scheduling priority the host asks for.
    pub host_priority: crate::os::HostPriority,
    /// Credit bots with machine stalls (see [`crate::stall_watch`]); needs a real-time host.
    pub stall_credit: bool,
    /// Timeouts and illegal moves forgiven per bot and game (a random legal move is played
    /// instead); 0: every fault loses.
    pub strikes: u32,
}

/// One game of the plan.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// Position in the plan.
    pub index: u32,
    /// Unique id.
    pub game_id: String,
    /// Seed of the game.
    pub seed: u64,
    /// Bot index (into the match's bot list) per colour.
    pub bots: ByColor<usize>,
}

/// A seat at the table: the process and what the referee tracks for it.
struct Seat {
    color: Color,
    spec: BotSpec,
    proc: Option<BotProcess>,
    fault: Option<Fault>,
    clock: Clock,
    /// Plies not yet told to this bot.
    pending: Vec<Ply>,
    think_us: u64,
    exit: Option<String>,
    timeout_late_us: Option<u64>,
    /// Stall time credited to the last answer (see [`crate::stall_watch`]).
    stall_credit: Duration,
    /// Strikes used in this game.
    strikes: Vec<StrikeRecord>,
    /// To tell the bot in its next turn.
    strike_notice: Option<Strike>,
    /// A timed-out answer may still arrive: drop buffered moves before each turn.
    maybe_stale: bool,
    /// See [`GameSettings::read_grace`].
    read_grace: Duration,
}

impl Seat {
    fn fail(&mut self, fault: Fault) {
        if self.fault.is_none() {
            self.fault = Some(fault);
        }
    }

    fn immediate(&self) -> bool {
        self.proc.as_ref().and_then(|p| p.ready.as_ref()).is_some_and(|r| r.immediate_plies)
    }

    /// Sends `msg` and waits for the answer within `limit` from the moment the bot has read
    /// it (see [`crate::bot_process::Stopwatch`]). Returns the answer and the think time.
    async fn ask(
        &mut self,
        msg: &HostMessage,
        limit: Duration,
        timeout: Reason,
        what: &str,
        expect_ply: Option<u32>,
    ) -> Option<(BotMessage, Duration)> {
        let proc = self.proc.as_mut()?;
        let mut watch = proc.stopwatch(Instant::now(), limit, self.read_grace);
        let result = async {
            let written = proc.send(msg, watch.deadline()).await?;
            watch.written(written);
            loop {
                let (answer, at) = proc.recv(&mut watch).await?;
                // A move that names another ply is a late answer to an earlier turn.
                if let BotMessage::Move(m) = &answer {
                    if m.ply.is_some() && expect_ply.is_some() && m.ply != expect_ply {
                        continue;
                    }
                }
                // A late answer is judged with the stall log; an answer in time is credited
                // only when a stall was logged meanwhile (for banks and records).
                let raw = at.saturating_duration_since(watch.start());
                let credit = watch.credit_stalls(at, raw > limit);
                break Ok::<_, RecvError>((answer, raw.saturating_sub(credit)));
            }
        }
        .await;
        self.stall_credit = watch.credit();
        let deadline = watch.deadline();
        match result {
            Ok((answer, took)) if took <= limit => Some((answer, took)),
            Ok((_, took)) => {
                let stalls = match self.stall_credit {
                    c if c.is_zero() => String::new(),
                    c => format!(" (not counting {} of machine stalls)", secs(c)),
                };
                self.fail(Fault::new(
                    timeout,
                    format!("{what} took {}; the limit was {}{stalls}", secs(took), secs(limit)),
                ));
                None
            }
            Err(RecvError::Timeout) => {
                // How late the host noticed: the timeout-lateness figure of BENCHMARKS.md.
                self.timeout_late_us = Some(Instant::now().saturating_duration_since(deadline).as_micros() as u64);
                let stalls = match self.stall_credit {
                    c if c.is_zero() => String::new(),
                    c => format!(" (plus {} for machine stalls)", secs(c)),
                };
                self.fail(Fault::new(timeout, format!("no {what} within {}{stalls}", secs(limit))));
                None
            }
            Err(RecvError::Fault(f)) => {
                self.fail(f);
                None
            }
        }
    }
}

/// `1.234 s`.
pub fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn unexpected(got: &BotMessage, wanted: &str) -> Fault {
    let ty = match got {
        BotMessage::Ready(_) => "ready",
        BotMessage::Setup(_) => "setup",
        BotMessage::Move(_) => "move",
        BotMessage::Resign(_) => "resign",
        BotMessage::Info(_) => "info",
    };
    Fault::new(Reason::UnexpectedMessage, format!("it sent {ty:?} when {wanted} was expected"))
}

/// Plays one game. `procs` holds processes to reuse (multi-game bots); the processes
/// still fit for another game come back in the second value, the rest are shut down.
/// New processes are pinned to `cpu` when given.
pub async fn play_game(
    settings: &GameSettings,
    spec: &GameSpec,
    cpu: Option<usize>,
    bot_specs: ByColor<BotSpec>,
    procs: ByColor<Option<BotProcess>>,
) -> (GameRecord, ByColor<Option<BotProcess>>) {
    let started = Instant::now();
    let started_unix_ms =
        SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let tc = settings.time_control;
    let rules = settings.rules.clone();
    let mut seats: ByColor<Seat> = ByColor::new_with(|color| Seat {
        color,
        spec: bot_specs[color].clone(),
        proc: None,
        fault: None,
        clock: Clock::new(&tc),
        pending: Vec::new(),
        think_us: 0,
        exit: None,
        timeout_late_us: None,
        stall_credit: Duration::ZERO,
        strikes: Vec::new(),
        strike_notice: None,
        maybe_stale: false,
        read_grace: settings.read_grace,
    });
    let ByColor { red: red_proc, blue: blue_proc } = procs;
    for (color, existing) in [(Color::Red, red_proc), (Color::Blue, blue_proc)] {
        let seat = &mut seats[color];
        seat.proc = match existing {
            Some(p) => Some(p),
            None => match BotProcess::spawn(&seat.spec, settings.max_line, cpu, !settings.read_grace.is_zero()) {
                Ok(p) => Some(p),
                Err(e) => {
                    seat.fail(Fault::new(Reason::Crash, format!("the program could not be started: {e}")));
                    None
                }
            },
        };
        if let Some(p) = seat.proc.as_mut() {
            p.infos.clear();
            p.bytes_sent = 0;
            p.bytes_received = 0;
            p.games += 1;
        }
    }

    // Handshake, both bots at once.
    let ByColor { red, blue } = &mut seats;
    tokio::join!(handshake(red, settings, spec), handshake(blue, settings, spec));

    // Setup, both at once.
    let mut deployments: ByColor<Option<Deployment>> = ByColor::default();
    if seats.red.fault.is_none() && seats.blue.fault.is_none() {
        let ByColor { red, blue } = &mut seats;
        let (r, b) = tokio::join!(setup(red, &rules, &tc, spec), setup(blue, &rules, &tc, spec));
        deployments = ByColor::new(r, b);
    }

    let mut plies = Vec::new();
    let mut game = None;
    if let (Some(r), Some(b)) = (&deployments.red, &deployments.blue) {
        match Game::new(rules.clone(), r, b) {
            Ok(g) => game = Some(g),
            Err(e) => seats.blue.fail(Fault::new(Reason::InvalidSetup, e.to_string())),
        }
    }
    let mut resigned = None;
    if let Some(game) = game.as_mut() {
        resigned = play_moves(game, &mut seats, settings, spec, &mut plies).await;
    }

    // The result.
    let result = match (&seats.red.fault, &seats.blue.fault) {
        (Some(r), Some(b)) => RecordResult {
            winner: None,
            reason: Reason::BothFaulted,
            message: format!("Red: {} ({}); Blue: {} ({})", r.message, r.reason, b.message, b.reason),
            faulty: None,
        },
        (Some(f), None) | (None, Some(f)) => {
            let faulty = if seats.red.fault.is_some() { Color::Red } else { Color::Blue };
            RecordResult {
                winner: Some(!faulty),
                reason: f.reason,
                message: format!("{} ({faulty}) forfeits: {}", seats[faulty].spec.name, f.message),
                faulty: Some(faulty),
            }
        }
        (None, None) => match (resigned, game.as_ref().and_then(Game::outcome)) {
            (Some(c), _) => RecordResult {
                winner: Some(!c),
                reason: Reason::Resignation,
                message: format!("{} ({c}) resigned", seats[c].spec.name),
                faulty: None,
            },
            (None, Some(o)) => RecordResult {
                winner: o.winner,
                reason: o.reason.into(),
                message: match o.winner {
                    Some(w) => format!("{} ({w}) wins: {}", seats[w].spec.name, o.reason),
                    None => format!("draw: {}", o.reason),
                },
                faulty: None,
            },
            (None, None) => unreachable!("a game without fault or resignation ends by the rules"),
        },
    };

    // Tell both bots, then keep or stop their processes.
    let mut kept: ByColor<Option<BotProcess>> = ByColor::default();
    for color in Color::ALL {
        let opponent_setup = deployments[!color]
            .as_ref()
            .map(|d| d.pieces().iter().map(|&(square, rank)| Placement { square, rank }).collect())
            .unwrap_or_default();
        let seat = &mut seats[color];
        let Some(mut proc) = seat.proc.take() else { continue };
        let fit = seat.fault.as_ref().is_none_or(|f| {
            !matches!(f.reason, Reason::Crash | Reason::ClosedOutput | Reason::MemoryLimit | Reason::CpuLimit)
        });
        if fit {
            let over = HostMessage::GameOver(GameOver {
                game_id: spec.game_id.clone(),
                result: match result.winner {
                    None => GameResult::Draw,
                    Some(w) if w == color => GameResult::Win,
                    Some(_) => GameResult::Loss,
                },
                winner: result.winner,
                reason: result.reason.code().to_owned(),
                message: result.message.clone(),
                plies: std::mem::take(&mut seat.pending),
                total_plies: plies.len() as u32,
                opponent_setup,
            });
            let _ = proc.send(&over, Instant::now() + settings.grace).await;
        }
        let reusable = seat.fault.is_none() && proc.ready.as_ref().is_some_and(|r| r.multi_game);
        if reusable {
            kept[color] = Some(proc);
        } else {
            seat.proc = Some(proc);
        }
    }
    let mut infos: ByColor<BotInfo> = ByColor::new_with(|c| bot_info(&seats[c], kept[c].as_ref()));
    for color in Color::ALL {
        if let Some(proc) = seats[color].proc.take() {
            infos[color].exit = Some(proc.shutdown(settings.grace).await);
        }
    }
    for color in Color::ALL {
        infos[color].think_us = seats[color].think_us;
        infos[color].clock_ms = seats[color].clock.remaining.map(crate::clock::ms);
        infos[color].timeout_late_us = seats[color].timeout_late_us;
        infos[color].strikes = std::mem::take(&mut seats[color].strikes);
    }
    let record = GameRecord {
        game_id: spec.game_id.clone(),
        index: spec.index,
        match_seed: settings.match_seed,
        seed: spec.seed,
        host_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_unix_ms,
        duration_ms: started.elapsed().as_millis() as u64,
        ruleset: rules.spec().clone(),
        time_control: tc.to_wire(),
        bots: infos,
        deployments: deployments.as_ref().map(|d| d.as_ref().map(|d| d.to_rows(&rules))),
        plies,
        result,
    };
    (record, kept)
}

fn bot_info(seat: &Seat, kept: Option<&BotProcess>) -> BotInfo {
    let proc = seat.proc.as_ref().or(kept);
    let ready = proc.and_then(|p| p.ready.clone());
    let (stderr_tail, stderr_bytes) = proc.map(|p| p.stderr_tail()).unwrap_or_default();
    BotInfo {
        name: seat.spec.name.clone(),
        command: seat.spec.command.clone(),
        reported_name: ready.as_ref().map(|r| r.name.clone()),
        version: ready.as_ref().and_then(|r| r.version.clone()),
        author: ready.as_ref().and_then(|r| r.author.clone()),
        stderr_tail,
        stderr_bytes,
        info: proc.map(|p| p.infos.clone()).unwrap_or_default(),
        bytes_to_bot: proc.map_or(0, |p| p.bytes_sent),
        bytes_from_bot: proc.map_or(0, |p| p.bytes_received),
        think_us: seat.think_us,
        clock_ms: None,
        exit: seat.exit.clone(),
        timeout_late_us: None,
        strikes: Vec::new(),
    }
}

async fn handshake(seat: &mut Seat, settings: &GameSettings, spec: &GameSpec) {
    let hello = HostMessage::Hello(Hello {
        protocol: stratego_protocol::PROTOCOL_VERSION,
        game_id: spec.game_id.clone(),
        color: seat.color,
        ruleset: settings.rules.spec().clone(),
        time_control: settings.time_control.to_wire(),
        seed: stratego_protocol::Rng::derive(spec.seed, seat.color.index() as u64 + 1),
        max_line_bytes: settings.max_line,
    });
    match seat.ask(&hello, settings.time_control.startup, Reason::StartupTimeout, "ready", None).await {
        Some((BotMessage::Ready(r), _)) => {
            if let Some(p) = seat.proc.as_mut() {
                p.ready = Some(r);
            }
        }
        Some((other, _)) => seat.fail(unexpected(&other, "\"ready\"")),
        None => {}
    }
}

async fn setup(seat: &mut Seat, rules: &Ruleset, tc: &TimeControl, spec: &GameSpec) -> Option<Deployment> {
    let request = HostMessage::SetupRequest(SetupRequest {
        game_id: spec.game_id.clone(),
        color: seat.color,
        squares: rules.setup_squares(seat.color).collect(),
        pieces: *rules.pieces(),
        exact_counts: rules.exact_counts(),
        time_ms: crate::clock::ms(tc.setup),
    });
    match seat.ask(&request, tc.setup, Reason::SetupTimeout, "setup", None).await? {
        (BotMessage::Setup(s), _) => match Deployment::parse(rules, seat.color, &s.deployment) {
            Ok(d) => Some(d),
            Err(e) => {
                seat.fail(Fault::new(Reason::InvalidSetup, e.to_string()));
                None
            }
        },
        (other, _) => {
            seat.fail(unexpected(&other, "\"setup\""));
            None
        }
    }
}

/// The move loop. Returns the side that resigned, if one did.
async fn play_moves(
    game: &mut Game,
    seats: &mut ByColor<Seat>,
    settings: &GameSettings,
    spec: &GameSpec,
    plies: &mut Vec<RecordPly>,
) -> Option<Color> {
    let tc = &settings.time_control;
    let mut legal = Vec::with_capacity(128);
    let mut rng = stratego_protocol::Rng::new(stratego_protocol::Rng::derive(spec.seed, 0x5712_1CE5));
    while !game.is_over() {
        let color = game.to_move();
        game.legal_moves(&mut legal);
        let budget = seats[color].clock.budget(tc);
        let opponent_remaining = seats[!color].clock.remaining;
        let seat = &mut seats[color];
        let full_view = seat.proc.as_ref().and_then(|p| p.ready.as_ref()).is_none_or(|r| r.view.is_full());
        if seat.maybe_stale {
            if let Some(p) = seat.proc.as_mut() {
                p.discard_buffered_moves();
            }
        }
        let turn = HostMessage::Turn(Turn {
            game_id: spec.game_id.clone(),
            ply: game.ply_count(),
            color,
            plies: std::mem::take(&mut seat.pending),
            pieces: if full_view { game.view_pieces(color) } else { Vec::new() },
            captured: full_view.then(|| *game.captured()),
            legal_moves: std::mem::take(&mut legal),
            clock: WireClock {
                move_ms: crate::clock::ms(budget),
                remaining_ms: seat.clock.remaining.map(crate::clock::ms),
                opponent_remaining_ms: opponent_remaining.map(crate::clock::ms),
            },
            strike: seat.strike_notice.take(),
        });
        let answer = seat.ask(&turn, budget, Reason::MoveTimeout, "move", Some(game.ply_count())).await;
        if let HostMessage::Turn(t) = turn {
            legal = t.legal_moves; // keep the buffer
        }
        let took = answer.as_ref().map(|a| a.1);
        if let Some(t) = took {
            seat.think_us += t.as_micros() as u64;
        }
        let decided: Result<Move, Fault> = match answer {
            None => Err(seat.fault.take().expect("ask records its fault")),
            Some((answer, took)) => {
                if seat.clock.charge(tc, took).is_err() {
                    Err(Fault::new(
                        Reason::MoveTimeout,
                        format!("the move took {}; it had {}", secs(took), secs(budget)),
                    ))
                } else {
                    match answer {
                        BotMessage::Move(m) => match m.mv.parse::<Move>() {
                            Err(e) => Err(Fault::new(Reason::IllegalMove, e.to_string())),
                            Ok(mv) => match game.check_move(mv) {
                                Ok(()) => Ok(mv),
                                Err(e) => Err(Fault::new(Reason::IllegalMove, format!("{mv} is illegal: {e}"))),
                            },
                        },
                        BotMessage::Resign(_) => return Some(color),
                        other => Err(unexpected(&other, "\"move\" or \"resign\"")),
                    }
                }
            }
        };
        let mv = match decided {
            Ok(mv) => mv,
            Err(fault) => {
                let forgivable = matches!(fault.reason, Reason::MoveTimeout | Reason::IllegalMove);
                if !forgivable || seat.strikes.len() as u32 >= settings.strikes {
                    seat.fail(fault);
                    return None;
                }
                // The strike policy: a random legal move instead, recorded and told.
                let mv = *rng.choose(&legal).expect("a game not over has legal moves");
                if fault.reason == Reason::MoveTimeout {
                    seat.maybe_stale = true;
                    if let Some(remaining) = seat.clock.remaining.as_mut() {
                        // The bank was spent: give the increment so the bot can go on.
                        *remaining = tc.increment.max(Duration::from_millis(1));
                    }
                }
                seat.strikes.push(StrikeRecord {
                    ply: game.ply_count() + 1,
                    reason: fault.reason,
                    message: fault.message.clone(),
                    replaced_by: mv,
                });
                seat.strike_notice = Some(Strike {
                    reason: fault.reason.code().to_owned(),
                    message: fault.message,
                    replaced_by: mv,
                    strikes_left: settings.strikes - seat.strikes.len() as u32,
                });
                mv
            }
        };
        let ply = game.play_unchecked(mv);
        let stall_us = if took.is_some() { seat.stall_credit.as_micros() as u64 } else { 0 };
        plies.push(RecordPly { ply, time_us: took.map_or(0, |t| t.as_micros() as u64), stall_us });
        for c in Color::ALL {
            let s = &mut seats[c];
            if s.immediate() {
                let notice =
                    HostMessage::Ply(PlyNotice { game_id: spec.game_id.clone(), ply: game.ply_count(), played: ply });
                if let Some(p) = s.proc.as_mut() {
                    // A failure here shows up at this bot's next turn.
                    let _ = p.send(&notice, Instant::now() + tc.startup).await;
                }
            } else {
                s.pending.push(ply);
            }
        }
    }
    None
}
