//! The JSON protocol of protocol.md, as a [`BotSession`] over a [`Process`]: encodes each
//! request as one line, decodes each answer line, classifies what is wrong with a bad one,
//! keeps `info` lines, and times each answer with the request's [`Stopwatch`]. What the host
//! sees of the bot's process around its turns (threads, CPU, reads) is its [`Observer`]'s.

use std::sync::Arc;
use std::time::{Duration, Instant};

use stratego_protocol::{BotMessage, HostMessage, Info, Quit, Ready};
use stratego_rules::{Game, Ply};

use crate::reason::{Fault, Reason};
use crate::session::messages::{
    self, InfoLines, TurnBuffers, keep_info, note_unrequested, parse_bot_message, unexpected,
};
use crate::session::protocol_log::Direction;
use crate::session::{
    BotSession, Decision, GameEnd, GameStart, PostGame, SessionError, SessionOptions, SessionReport, Timed, TurnRequest,
};
use crate::supervise::bot_spec::BotSpec;
use crate::supervise::observe::Observer;
use crate::supervise::process::{Process, RecvError};
use crate::supervise::stopwatch::Stopwatch;
use crate::supervise::supervisor::Supervisor;

/// A bot process spoken to in the JSON protocol.
pub struct JsonSession {
    spec: BotSpec,
    options: SessionOptions,
    supervisor: Supervisor,
    proc: Process,
    /// Games started in this session (over its processes).
    games: u32,
    /// Set when this game needed a fresh process; reported in the record.
    process_note: Option<String>,
    /// Whether the current process has sent anything at all (in any game).
    answered: bool,
    /// Whether this game's first `turn` was sent.
    sent_turn: bool,
    /// Its `ready` answer, once given.
    ready: Option<Ready>,
    /// `info` lines of the current game.
    infos: InfoLines,
    /// Plies played in the current game, as far as the bot was told (the ply of its `info`
    /// lines).
    ply: u32,
    /// Plies not yet told to the bot, and the other buffers of its `turn` kept between
    /// turns for their allocations.
    turn_buffers: TurnBuffers,
    /// A request of this game went wrong: the process is not handed another game.
    failed: bool,
    /// The process is gone or unusable (crash, closed output, a resource limit): nothing
    /// more is sent to it.
    dead: bool,
    /// A timed-out answer may still arrive: drop buffered moves before the next turn.
    maybe_stale: bool,
    /// Add an unknown field to every message (the conformance check's forward-compatibility
    /// probe).
    probe_unknown_fields: bool,
    /// Where to send what the bot writes after `game_over` (see [`PostGame`]), when the
    /// process is kept for another game; and how many of `infos` came before `game_over`.
    post_game: Option<tokio::sync::oneshot::Sender<PostGame>>,
    infos_at_game_over: u64,
    /// Answers of this game that no request asked for, in words.
    unrequested: Vec<String>,
    /// The game in progress, and how long a `ply` notice may wait for the bot to read.
    game_id: String,
    /// The game in progress, for the lines of its stderr in the protocol log.
    log_game: Arc<std::sync::Mutex<String>>,
    notice_timeout: Duration,
    write_buf: Vec<u8>,
    /// What the host sees of the bot's process: whether it runs as single-threaded, the CPU
    /// it shares with its opponent.
    observer: Observer,
}

impl JsonSession {
    /// Starts the bot's process (see [`Process::spawn`]).
    ///
    /// # Errors
    /// The operating system's error when the program cannot be started.
    pub fn spawn(spec: &BotSpec, options: &SessionOptions, supervisor: &Supervisor) -> std::io::Result<JsonSession> {
        let proc = Process::spawn(spec, options.max_line, options.cpu, !options.read_grace.is_zero(), supervisor)?;
        let log_game = Arc::new(std::sync::Mutex::new(String::new()));
        log_stderr(&proc, options, &spec.name, &log_game);
        Ok(JsonSession {
            spec: spec.clone(),
            options: options.clone(),
            supervisor: supervisor.clone(),
            proc,
            games: 0,
            process_note: None,
            answered: false,
            sent_turn: false,
            ready: None,
            infos: InfoLines::default(),
            ply: 0,
            turn_buffers: TurnBuffers { plies: Vec::new(), pieces: Vec::new(), legal: Vec::with_capacity(128) },
            failed: false,
            dead: false,
            maybe_stale: false,
            probe_unknown_fields: false,
            post_game: None,
            infos_at_game_over: 0,
            unrequested: Vec::new(),
            game_id: String::new(),
            log_game,
            notice_timeout: Duration::from_secs(10),
            write_buf: Vec::with_capacity(8 * 1024),
            observer: Observer::new(&spec.name),
        })
    }

    /// Adds `note`, if any, to this game's note on the bot's process (after any earlier one).
    fn add_note(&mut self, note: Option<String>) {
        let Some(note) = note else { return };
        match &mut self.process_note {
            Some(before) => {
                before.push_str("; ");
                before.push_str(&note);
            }
            None => self.process_note = Some(note),
        }
    }

    /// Kept for another game: what the bot writes from now (after `game_over`) until it
    /// answers the next `hello` is sent to `to` then, for the game that ended (its stderr
    /// tail too, and the exit of a process found gone before that `hello`).
    pub fn send_post_game_to(&mut self, to: tokio::sync::oneshot::Sender<PostGame>) {
        self.post_game = Some(to);
    }

    /// Sends what came after `game_over` (see [`JsonSession::send_post_game_to`]): the
    /// `info` lines since then, the stderr tail and count since the ended game began.
    /// Returns the bytes of the `info` lines sent.
    fn send_post_game(&mut self, exit: Option<String>, stderr: Option<(String, u64)>) -> u64 {
        let Some(to) = self.post_game.take() else { return 0 };
        let info = self.infos.split_off(self.infos_at_game_over);
        let bytes_from_bot = info.bytes();
        let (stderr_tail, stderr_bytes) = stderr.unwrap_or_else(|| self.proc.stderr_tail());
        let _ = to.send(PostGame { info, stderr_tail, stderr_bytes, bytes_from_bot, exit });
        bytes_from_bot
    }

    /// Adds an unknown field to every message from now on (`check`'s forward-compatibility
    /// probe).
    pub fn probe_unknown_fields(&mut self) {
        self.probe_unknown_fields = true;
    }

    fn log(&self, direction: Direction, text: &[u8]) {
        if let Some(log) = &self.options.log {
            log.line(&self.spec.name, &self.game_id, direction, text);
        }
    }

    fn encode(&mut self, msg: &HostMessage) {
        self.write_buf.clear();
        stratego_protocol::write_host_message(&mut self.write_buf, msg);
        if self.probe_unknown_fields {
            // `…}\n` becomes `…,"x_future_field":{…}}\n`.
            let end = self.write_buf.len() - 2;
            self.write_buf.truncate(end);
            self.write_buf.extend_from_slice(br#","x_future_field":{"nested":[1,"two",null]}}"#);
            self.write_buf.push(b'\n');
        }
    }

    /// Sends a message that expects no answer.
    async fn tell(&mut self, msg: &HostMessage, deadline: Instant) -> Result<(), SessionError> {
        if self.dead {
            return Ok(());
        }
        self.encode(msg);
        self.log(Direction::ToBot, &self.write_buf);
        let buf = std::mem::take(&mut self.write_buf);
        let r = self.proc.write(&buf, deadline).await;
        self.write_buf = buf;
        r.map(|_| ()).map_err(|e| self.failure(e, Duration::ZERO, Instant::now(), None))
    }

    /// Sends `msg` and waits for the answer within `limit` from the moment the bot has read
    /// it. A `move` naming another ply than `expect_ply` is a late answer to an earlier turn
    /// and is skipped.
    async fn ask(
        &mut self,
        msg: &HostMessage,
        limit: Duration,
        expect_ply: Option<u32>,
    ) -> Result<Timed<BotMessage>, SessionError> {
        if self.dead {
            return Err(SessionError::Fault(Fault::new(Reason::Crash, "the process is no longer running")));
        }
        self.encode(msg);
        self.log(Direction::ToBot, &self.write_buf);
        let received_before = self.proc.bytes_received;
        let mut watch = self.proc.stopwatch(Instant::now(), limit, self.options.read_grace, expect_ply.is_some());
        let buf = std::mem::take(&mut self.write_buf);
        let written = self.proc.write_request(&buf, &mut watch).await;
        self.write_buf = buf;
        let mut note = None;
        let result = match written {
            Err(e) => Err(e),
            Ok(()) => {
                loop {
                    match self.next_message(&mut watch).await {
                        Ok((BotMessage::Move(m), _))
                            if m.ply.is_some() && expect_ply.is_some() && m.ply != expect_ply =>
                        {
                            let what = format!(
                                "it sent a move for ply {} (\"ply\" must echo the turn's ply, {}); that move was ignored",
                                m.ply.unwrap_or_default(),
                                expect_ply.unwrap_or_default()
                            );
                            self.unrequested_answer(&format!("{} for ply {}", m.mv, m.ply.unwrap_or_default()));
                            note = Some(what);
                        }
                        Ok((answer, at)) => {
                            // A late answer is judged with the stall log; an answer in time is
                            // credited only when a stall was logged meanwhile.
                            let raw = at.saturating_duration_since(watch.start());
                            let credit = watch.credit_stalls(at, raw > limit, true);
                            break Ok(Timed {
                                value: answer,
                                took: raw.saturating_sub(credit),
                                stall_credit: credit,
                                lag: None,
                            });
                        }
                        Err(e) => break Err(e),
                    }
                }
            }
        };
        self.observer.watched(&watch);
        if self.proc.bytes_received > received_before {
            self.answered = true;
        } else if note.is_none() && !self.answered {
            // Not a byte from this process yet, not even an `info` line: often an answer
            // stuck in the bot's output buffer. A process that has answered before flushes.
            note = Some("nothing at all came back: did the bot flush its output?".to_owned());
        }
        result.map_err(|e| self.failure(e, watch.credit(), watch.deadline(), note))
    }

    /// Notes an answer no request asked for (for the record and on the console); it is not
    /// played.
    fn unrequested_answer(&mut self, what: &str) {
        note_unrequested(&mut self.unrequested, &self.spec.name, &self.game_id, what);
    }

    /// Takes the `move` and `resign` lines already waiting before a turn is sent: no
    /// request asked for them (a second answer to the previous turn); `info` lines are kept.
    fn take_unrequested_answers(&mut self) -> Result<(), SessionError> {
        while let Some(line) = self.proc.buffered_line() {
            self.log(Direction::FromBot, line.as_bytes());
            match parse_bot_message(&line) {
                Ok(BotMessage::Info(Info { text })) => self.keep_info(&text),
                Ok(BotMessage::Move(m)) => match m.ply {
                    Some(p) => self.unrequested_answer(&format!("{} for ply {p}", m.mv)),
                    None => self.unrequested_answer(&format!("{} (a second move before this turn)", m.mv)),
                },
                Ok(BotMessage::Resign(_)) => self.unrequested_answer("resign (before this turn)"),
                // What would have been a fault as the turn's answer still is one.
                Ok(other) => {
                    self.failed = true;
                    return Err(unexpected(&other, "\"move\" or \"resign\""));
                }
                Err(f) => {
                    self.failed = true;
                    return Err(SessionError::Fault(f));
                }
            }
        }
        Ok(())
    }

    /// The next message that is not `info` (those are kept for the record).
    async fn next_message(&mut self, watch: &mut Stopwatch) -> Result<(BotMessage, Instant), RecvError> {
        loop {
            let (line, at) = self.proc.read_line(watch).await?;
            self.log(Direction::FromBot, line.as_bytes());
            match parse_bot_message(&line) {
                Ok(BotMessage::Info(Info { text })) => self.keep_info(&text),
                Ok(msg) => return Ok((msg, at)),
                Err(f) => return Err(RecvError::Fault(f)),
            }
        }
    }

    fn failure(
        &mut self,
        e: RecvError,
        stall_credit: Duration,
        deadline: Instant,
        note: Option<String>,
    ) -> SessionError {
        self.failed = true;
        match e {
            RecvError::Timeout => {
                self.maybe_stale = true;
                SessionError::Timeout { stall_credit, late: Instant::now().saturating_duration_since(deadline), note }
            }
            RecvError::Fault(f) => {
                if matches!(f.reason, Reason::Crash | Reason::ClosedOutput | Reason::MemoryLimit | Reason::CpuLimit) {
                    self.dead = true;
                }
                SessionError::Fault(f)
            }
        }
    }

    /// Records an `info` line, within the per-game bounds.
    fn keep_info(&mut self, text: &str) {
        keep_info(&mut self.infos, self.ply, text);
    }

    /// Drops `move` and `resign` lines that are already waiting (late answers to a turn
    /// that timed out under the strike policy); keeps `info` lines.
    fn discard_buffered_moves(&mut self) {
        while let Some(line) = self.proc.buffered_line() {
            self.log(Direction::FromBot, line.as_bytes());
            if let Ok(BotMessage::Info(Info { text })) = parse_bot_message(&line) {
                self.keep_info(&text);
            }
        }
    }

    /// Starts a game in the current process: hello, then ready.
    async fn hello(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
        // What the bot writes from this hello on belongs to this game; for a process kept
        // from a game, what it writes until its answer still belongs to that game (it wrote
        // it after game_over, before it read this hello).
        let carry = self.post_game.is_some();
        let before = (self.proc.bytes_sent, self.proc.bytes_received);
        if !carry {
            self.infos.clear();
            self.proc.begin_game();
        }
        self.turn_buffers.plies.clear();
        self.ply = 0;
        self.failed = false;
        self.dead = false;
        self.maybe_stale = false;
        self.sent_turn = false;
        self.game_id = start.game_id.to_owned();
        start.game_id.clone_into(&mut self.log_game.lock().unwrap_or_else(|e| e.into_inner()));
        self.notice_timeout = start.time_control.startup;
        let hello = messages::hello(start);
        let answer = self.ask(&hello, start.time_control.allowed(start.time_control.startup), None).await;
        // A kept process found gone at this hello is replaced (`start_game`): its restart
        // sends the ended game what came after its game_over, with its exit.
        let gone =
            matches!(&answer, Err(SessionError::Fault(f)) if matches!(f.reason, Reason::Crash | Reason::ClosedOutput));
        if carry && !gone {
            // Its stderr is read by a task of its own: what it wrote before its answer is
            // in the pipe already, and one turn of the event loop (a park, which polls the
            // pipes) takes it in.
            tokio::time::sleep(Duration::from_millis(1)).await;
            let carried = self.send_post_game(None, None);
            // This game's counts: the hello and its answer.
            let sent = self.proc.bytes_sent.saturating_sub(before.0);
            let received = self.proc.bytes_received.saturating_sub(before.1).saturating_sub(carried);
            self.infos.clear();
            self.proc.begin_game();
            self.proc.bytes_sent = sent;
            self.proc.bytes_received = received;
        }
        let answer = match answer {
            Ok(a) => a,
            Err(e) => return Err(e),
        };
        match answer.value {
            BotMessage::Ready(r) => {
                self.observer.ready(&mut self.proc, r.single_threaded);
                self.ready = Some(r);
                Ok(Timed { value: (), took: answer.took, stall_credit: answer.stall_credit, lag: None })
            }
            other => {
                self.failed = true;
                Err(unexpected(&other, "\"ready\""))
            }
        }
    }

    /// Replaces the process by a fresh one, noting for the record why (`why` completes "the
    /// previous one …") and how the old one ended.
    async fn restart(&mut self, why: &str) -> Result<(), SessionError> {
        let fresh = Process::spawn(
            &self.spec,
            self.options.max_line,
            self.options.cpu,
            !self.options.read_grace.is_zero(),
            &self.supervisor,
        )
        .map_err(|e| {
            SessionError::Fault(Fault::new(Reason::Crash, format!("the program could not be started again: {e}")))
        })?;
        log_stderr(&fresh, &self.options, &self.spec.name, &self.log_game);
        let old = std::mem::replace(&mut self.proc, fresh);
        self.answered = false;
        self.observer.fresh_process();
        let mut old = old;
        let until = Instant::now() + self.options.grace;
        while let Some(line) = old.drain_line(until).await {
            self.log(Direction::FromBot, line.as_bytes());
            if let Ok(BotMessage::Info(Info { text })) = parse_bot_message(&line) {
                self.keep_info(&text);
            }
        }
        let (how, tail, bytes) = old.shutdown_with_tail(self.options.grace).await;
        // Its last words and its exit belong to the game it played.
        self.send_post_game(Some(how.clone()), Some((tail, bytes)));
        self.infos.clear();
        self.ready = None;
        self.process_note = Some(format!("a fresh process: the previous one {why} ({how})"));
        Ok(())
    }

    fn full_view(&self) -> bool {
        self.ready.as_ref().is_none_or(|r| r.view.is_full())
    }

    fn immediate(&self) -> bool {
        self.ready.as_ref().is_some_and(|r| r.immediate_plies)
    }
}

impl BotSession for JsonSession {
    fn single_threaded(&self) -> bool {
        !self.dead && (self.observer.seen_single_threaded() || self.ready.as_ref().is_some_and(|r| r.single_threaded))
    }

    fn share_cpu(&mut self, cpu: Option<usize>, all: &[usize]) {
        self.observer.share_cpu(&mut self.proc, cpu, all);
    }

    async fn start_game(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
        self.process_note = None;
        self.unrequested.clear();
        if self.games > 0 && self.proc.has_exited() {
            // A multi-game bot that exits after game_over does not forfeit its next game:
            // it gets a fresh process, as chess hosts do (-recover).
            self.restart("had ended after its game").await?;
        }
        self.games += 1;
        match self.hello(start).await {
            Err(SessionError::Fault(f))
                if self.games > 1
                    && self.process_note.is_none()
                    && matches!(f.reason, Reason::Crash | Reason::ClosedOutput) =>
            {
                // It exited between the previous game's end and this hello. A crash's message
                // is its exit, which the note gives once (the restart's `how`).
                let why = match f.reason {
                    Reason::Crash => "had ended after its game, before its next hello".to_owned(),
                    _ => format!("could not go on after its game: {}", f.message),
                };
                self.restart(&why).await?;
                self.hello(start).await
            }
            other => other,
        }
    }

    async fn setup(
        &mut self,
        start: &GameStart<'_>,
        fixed: Option<&stratego_rules::Deployment>,
    ) -> Result<Timed<String>, SessionError> {
        let request = HostMessage::SetupRequest(messages::setup_request(start, fixed));
        let answer = self.ask(&request, start.time_control.allowed(start.time_control.setup), None).await?;
        match answer.value {
            BotMessage::Setup(s) => {
                Ok(Timed { value: s.deployment, took: answer.took, stall_credit: answer.stall_credit, lag: None })
            }
            other => {
                self.failed = true;
                Err(unexpected(&other, "\"setup\""))
            }
        }
    }

    async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Timed<Decision>, SessionError> {
        if self.maybe_stale {
            self.discard_buffered_moves();
            self.maybe_stale = false;
        } else {
            self.take_unrequested_answers()?;
        }
        let game = req.game;
        self.ply = game.ply_count();
        let buffers = std::mem::take(&mut self.turn_buffers);
        let turn = messages::turn(req, self.full_view(), !self.sent_turn, buffers);
        self.sent_turn = true;
        let note = self.observer.before_turn(&mut self.proc);
        self.add_note(note);
        let answer = self.ask(&turn, req.budget, Some(game.ply_count())).await;
        let note = self.observer.after_turn(&mut self.proc, answer.is_ok());
        self.add_note(note);
        self.turn_buffers = TurnBuffers::take_back(turn);
        let answer = answer?;
        let value = messages::decision(answer.value).inspect_err(|_| self.failed = true)?;
        Ok(Timed { value, took: answer.took, stall_credit: answer.stall_credit, lag: None })
    }

    async fn played(&mut self, game: &Game, ply: &Ply) {
        self.ply = game.ply_count();
        if self.immediate() {
            let notice = messages::ply_notice(&self.game_id, game, ply);
            // A failure here shows up at this bot's next turn.
            let _ = self.tell(&notice, Instant::now() + self.notice_timeout).await;
        } else {
            self.turn_buffers.plies.push(*ply);
        }
    }

    async fn game_over(&mut self, end: &GameEnd<'_>) {
        let over = messages::game_over(end, std::mem::take(&mut self.turn_buffers.plies));
        let _ = self.tell(&over, Instant::now() + self.options.grace).await;
        self.infos_at_game_over = self.infos.received();
    }

    fn report(&self) -> SessionReport {
        let (stderr_tail, stderr_bytes) = self.proc.stderr_tail();
        SessionReport {
            reported_name: self.ready.as_ref().map(|r| r.name.clone()),
            version: self.ready.as_ref().and_then(|r| r.version.clone()),
            author: self.ready.as_ref().and_then(|r| r.author.clone()),
            info: self.infos.clone(),
            stderr_tail,
            stderr_bytes,
            bytes_to_bot: self.proc.bytes_sent,
            bytes_from_bot: self.proc.bytes_received,
            process_note: self.process_note.clone(),
            unrequested: self.unrequested.clone(),
            away: Duration::ZERO,
        }
    }

    fn reusable(&self) -> bool {
        !self.failed && !self.dead && self.ready.as_ref().is_some_and(|r| r.multi_game)
    }

    async fn shutdown(self, grace: Duration) -> String {
        self.close(grace).await.0
    }

    async fn close(mut self, grace: Duration) -> (String, SessionReport) {
        let deadline = Instant::now() + grace;
        if !self.dead {
            // quit, then whatever the bot says until it closes its output: its last info
            // lines belong to the game that just ended.
            self.encode(&HostMessage::Quit(Quit {}));
            self.log(Direction::ToBot, &self.write_buf);
            let buf = std::mem::take(&mut self.write_buf);
            let _ = self.proc.write(&buf, deadline).await;
            self.proc.close_stdin();
            while let Some(line) = self.proc.drain_line(deadline).await {
                self.log(Direction::FromBot, line.as_bytes());
                if let Ok(BotMessage::Info(Info { text })) = parse_bot_message(&line) {
                    self.keep_info(&text);
                }
            }
        }
        let mut report = self.report();
        let rest = deadline.saturating_duration_since(Instant::now());
        let how;
        (how, report.stderr_tail, report.stderr_bytes) = self.proc.shutdown_with_tail(rest).await;
        (how, report)
    }
}

/// With `--log-protocol`: every line `proc` writes to stderr goes to the log as it comes,
/// under the game `game` names then.
fn log_stderr(proc: &Process, options: &SessionOptions, bot: &str, game: &Arc<std::sync::Mutex<String>>) {
    let Some(log) = options.log.clone() else { return };
    let (bot, game) = (bot.to_owned(), game.clone());
    proc.stderr_to(Box::new(move |line| {
        let game = game.lock().unwrap_or_else(|e| e.into_inner()).clone();
        log.line(&bot, &game, Direction::Stderr, line);
    }));
}
