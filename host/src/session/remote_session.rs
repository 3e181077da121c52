//! The JSON protocol of protocol.md, as a [`BotSession`] over a remote bot's WebSocket
//! connection ([`crate::remote::hub::Link`]) instead of a process: the same messages, the
//! same parsing ([`parse_bot_message`]) and the same referee, clocks and records as a local
//! bot.
//!
//! What differs: a remote bot is charged wall time from the end of the host's write to the
//! arrival of its answer (no CPU accounting or stall credit: the host cannot see its
//! machine), less a capped, measured lag credit ([`crate::remote::lag`]); it plays one game
//! a connection lease (its `connect` client keeps a `multi_game` process across games, and
//! starts a fresh one when it needs one); and a lost connection is waited for within the
//! bot's time away (`--reconnect-s` a game, `--reconnect-event-s` an event), the request's
//! clock paused unless its process had read it, then the game is resumed (a process that
//! lived on gets the lines it had not read) or greeted again (a fresh process gets the
//! game state and the pending request again).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use stratego_protocol::{BotMessage, HostMessage, Info, Quit, Ready, SetupRequest};
use stratego_rules::{Game, Ply};

use crate::reason::{Fault, Reason};
use crate::remote::hub::{Answer, Hub, Incoming, LeaseError, Link, OWED, Outgoing, Owed};
use crate::remote::lag::LagQuota;
use crate::session::messages::{
    self, InfoLines, TurnBuffers, keep_info, note_unrequested, parse_bot_message, unexpected,
};
use crate::session::protocol_log::Direction;
use crate::session::{
    BotSession, Decision, GameEnd, GameStart, LagCredit, SessionError, SessionOptions, SessionReport, Timed,
    TurnRequest,
};
use crate::text::clip;

mod resume;

/// A remote bot spoken to in the JSON protocol over its connection.
pub struct RemoteSession {
    hub: Arc<Hub>,
    /// The bot's id in the event (and in the hub).
    bot: usize,
    name: String,
    options: SessionOptions,
    /// The connection this game holds, once leased.
    link: Option<Link>,
    /// A lease was taken (given back at the end).
    leased: bool,
    /// Why there is no connection (it never came).
    not_connected: Option<Fault>,
    /// The connection was lost and not yet made again.
    lost: Option<String>,
    /// The bot lost its game on the entrant's side (its program died; its `connect` client
    /// said so), to be reported at the next request.
    fault: Option<Fault>,
    /// The game's setup request (sent again, with `fixed`, after a reconnection).
    setup_request: Option<SetupRequest>,
    ready: Option<Ready>,
    infos: InfoLines,
    /// Plies played in the current game (the ply of its `info` lines).
    ply: u32,
    pending: Vec<Ply>,
    unrequested: Vec<String>,
    game_id: String,
    /// The game's `hello`, sent again after a reconnection.
    hello: Option<HostMessage>,
    failed: bool,
    sent_turn: bool,
    notes: Vec<String>,
    quota: LagQuota,
    /// When the last line went out on the connection (the start of a request's time).
    last_written: Option<Instant>,
    /// Time away in the current game: waited for its connection.
    away: Duration,
    /// Lines sent in this game since its `hello` (the `hello` is line 1) to the bot's
    /// current process.
    sent_lines: u64,
    /// The lines sent since the bot's last answer, with their numbers: those its process
    /// may not have read.
    unanswered: Vec<(u64, String)>,
    bytes_to_bot: u64,
    bytes_from_bot: u64,
}

impl RemoteSession {
    /// A session for remote bot `bot` (its connection is taken by [`RemoteSession::attach`]).
    pub fn new(hub: Arc<Hub>, bot: usize, options: &SessionOptions) -> RemoteSession {
        RemoteSession {
            name: hub.name(bot),
            hub,
            bot,
            options: options.clone(),
            link: None,
            leased: false,
            not_connected: None,
            lost: None,
            fault: None,
            setup_request: None,
            ready: None,
            infos: InfoLines::default(),
            ply: 0,
            pending: Vec::new(),
            unrequested: Vec::new(),
            game_id: String::new(),
            hello: None,
            failed: false,
            sent_turn: false,
            notes: Vec::new(),
            quota: LagQuota::default(),
            last_written: None,
            away: Duration::ZERO,
            sent_lines: 0,
            unanswered: Vec::new(),
            bytes_to_bot: 0,
            bytes_from_bot: 0,
        }
    }

    /// Takes the bot's connection for game `game_id`, waiting for it (with a "waiting for"
    /// line on stderr) while it is not connected, at most the hub's connect timeout, or
    /// while another game holds it. Without one, the game's first request fails with
    /// `not_connected`.
    pub async fn attach(&mut self, game_id: &str) {
        if self.link.is_some() {
            return;
        }
        let name = self.name.clone();
        let timeout = self.hub.options().connect_timeout;
        let on_wait = |connected: bool| {
            if connected {
                crate::notice::say(
                    crate::notice::Level::Info,
                    format!("stratego-host: game {game_id}: waiting for remote bot {name} (busy in another game)"),
                );
            } else {
                crate::notice::say(
                    crate::notice::Level::Info,
                    format!(
                        "stratego-host: game {game_id}: waiting for remote bot {name} to connect (at most {:.0} s, --connect-timeout)",
                        timeout.as_secs_f64()
                    ),
                );
            }
        };
        match self.hub.lease(self.bot, timeout, on_wait).await {
            Ok(link) => {
                self.leased = true;
                self.link = Some(link);
            }
            Err(LeaseError::NotConnected(t)) => {
                self.not_connected = Some(Fault::new(
                    Reason::NotConnected,
                    format!(
                        "remote bot {} did not connect within {:.0} s (--connect-timeout); is its `stratego-host connect` running, with its token?",
                        self.name,
                        t.as_secs_f64()
                    ),
                ));
            }
        }
    }

    fn log(&self, direction: Direction, text: &[u8]) {
        if let Some(log) = &self.options.log {
            log.line(&self.name, &self.game_id, direction, text);
        }
    }

    fn encode(msg: &HostMessage) -> String {
        let mut buf = Vec::with_capacity(256);
        stratego_protocol::write_host_message(&mut buf, msg);
        buf.pop(); // the newline: a frame is one line
        String::from_utf8(buf).expect("host messages are UTF-8")
    }

    fn keep_info(&mut self, text: &str) {
        keep_info(&mut self.infos, self.ply, text);
    }

    fn unrequested_answer(&mut self, what: &str) {
        note_unrequested(&mut self.unrequested, &self.name, &self.game_id, what);
    }

    /// Lines already waiting (before a request): `info` kept, answers nobody asked for noted.
    fn take_waiting_lines(&mut self) {
        loop {
            let Some(link) = self.link.as_mut() else { return };
            match link.rx.try_recv() {
                Ok(Incoming::Line(line, _)) => {
                    self.bytes_from_bot += line.len() as u64 + 1;
                    self.log(Direction::FromBot, line.as_bytes());
                    match parse_bot_message(&line) {
                        Ok(BotMessage::Info(Info { text })) => self.keep_info(&text),
                        Ok(m) => {
                            let late = answer_of(&m).and_then(|a| self.owed_answer(a, ply_of(&m), false));
                            let what = match &m {
                                BotMessage::Move(mv) => mv.mv.clone(),
                                _ => format!("{:?}", clip(&line)),
                            };
                            self.unrequested_answer(&format!(
                                "{what} (before this request){}",
                                late_note(late.as_ref())
                            ));
                        }
                        Err(_) => self.unrequested_answer(&format!("{:?} (before this request)", clip(&line))),
                    }
                }
                Ok(Incoming::Fault(f)) => {
                    self.fault.get_or_insert(f);
                }
                Ok(Incoming::Gone(why)) => {
                    self.lost = Some(why);
                }
                Err(_) => return,
            }
        }
    }

    /// Sends a line; false when the connection is gone.
    async fn send(&mut self, msg: &HostMessage, deadline: Instant) -> Option<Instant> {
        let line = RemoteSession::encode(msg);
        self.last_written = None;
        self.log(Direction::ToBot, line.as_bytes());
        // Kept until an answer shows the bot has read it: sent again after a reconnection
        // whose connect client still runs the process, from where it stopped reading.
        self.sent_lines += 1;
        self.unanswered.push((self.sent_lines, line.clone()));
        self.write_line(line, deadline).await
    }

    /// Writes one line on the connection; when it was written, or `None` when the
    /// connection is gone.
    async fn write_line(&mut self, line: String, deadline: Instant) -> Option<Instant> {
        let link = self.link.as_ref()?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let n = line.len() as u64 + 1;
        let sent = tokio::time::timeout_at(deadline.into(), link.tx.send(Outgoing { line, written: Some(tx) })).await;
        if !matches!(sent, Ok(Ok(()))) {
            return None;
        }
        let at = tokio::time::timeout_at(deadline.into(), rx).await.ok()?.ok()?;
        self.last_written = Some(at);
        self.bytes_to_bot += n;
        Some(at)
    }

    /// Sends `msg` (answered by `expect`), then waits for its answer until `deadline`,
    /// which, when not set yet, is set to `limit` after the end of this write. Returns the
    /// answer and the moments the request was written and the answer came.
    ///
    /// Answers are tied to the requests they answer: the request is owed an answer on the
    /// connection ([`Link::owed`]) until one comes. A line that answers an earlier request
    /// still owed (one that timed out, or a game's that ended: a `move` while a `ready` is
    /// expected, a `move` for another ply) is that request's late answer: dropped and noted
    /// as unrequested. With `skip_answers` (the greeting after a reconnection), moves before
    /// `ready` are dropped too.
    async fn exchange(
        &mut self,
        msg: Option<&HostMessage>,
        deadline: &mut Option<Instant>,
        limit: Duration,
        (expect, expect_ply): (Answer, Option<u32>),
        skip_answers: bool,
    ) -> Result<(BotMessage, Instant, Instant), SessionError> {
        let write_by = deadline.unwrap_or_else(|| Instant::now() + limit);
        // Without a message: the request is out already (its process has it, or it was
        // sent again on a resumed connection), and its time counts from now.
        let sent = match msg {
            Some(msg) => self.send(msg, write_by).await,
            None => {
                self.last_written = Some(Instant::now());
                self.last_written
            }
        };
        let Some(written) = sent else {
            let d = *deadline.get_or_insert(write_by);
            if Instant::now() >= d {
                return Err(SessionError::Timeout {
                    stall_credit: Duration::ZERO,
                    late: Instant::now().saturating_duration_since(d),
                    note: Some("the request could not be written in time: does the bot read its frames?".to_owned()),
                });
            }
            return Err(self.gone_error("writing to it failed"));
        };
        let d = *deadline.get_or_insert(written + limit);
        self.owe(Owed { answer: expect, game_id: self.game_id.clone(), ply: expect_ply });
        loop {
            let link = self.link.as_mut().expect("sent on it");
            let next = tokio::time::timeout_at(d.into(), link.rx.recv()).await;
            match next {
                Err(_) => {
                    return Err(SessionError::Timeout {
                        stall_credit: Duration::ZERO,
                        late: Instant::now().saturating_duration_since(d),
                        note: None,
                    });
                }
                Ok(None) => return Err(self.gone_error("the connection ended")),
                Ok(Some(Incoming::Gone(why))) => return Err(self.gone_error(&why)),
                Ok(Some(Incoming::Fault(f))) => {
                    self.failed = true;
                    return Err(SessionError::Fault(f));
                }
                Ok(Some(Incoming::Line(line, at))) => {
                    self.bytes_from_bot += line.len() as u64 + 1;
                    self.log(Direction::FromBot, line.as_bytes());
                    match parse_bot_message(&line) {
                        Ok(BotMessage::Info(Info { text })) => self.keep_info(&text),
                        Ok(BotMessage::Move(m)) if m.ply.is_some() && expect_ply.is_some() && m.ply != expect_ply => {
                            let late = self.owed_answer(Answer::Move, m.ply, true);
                            self.unrequested_answer(&format!(
                                "{} for ply {}{}",
                                m.mv,
                                m.ply.unwrap_or_default(),
                                late_note(late.as_ref())
                            ));
                        }
                        Ok(m) if answer_of(&m).is_some_and(|a| a != expect) => {
                            // Not this request's answer: an earlier request's, late, when
                            // one is owed; else the bot broke the protocol (the caller
                            // says how).
                            let a = answer_of(&m).expect("checked");
                            let late = self.owed_answer(a, ply_of(&m), true);
                            if late.is_none() && !(skip_answers && a == Answer::Move) {
                                self.settle_owed();
                                self.unanswered.clear();
                                return Ok((m, written, at));
                            }
                            let what = match &m {
                                BotMessage::Move(mv) => mv.mv.clone(),
                                BotMessage::Resign(_) => "resign".to_owned(),
                                _ => format!("{:?}", clip(&line)),
                            };
                            let when = if late.is_none() { " (before its ready)" } else { "" };
                            self.unrequested_answer(&format!("{what}{when}{}", late_note(late.as_ref())));
                        }
                        Ok(m) => {
                            self.settle_owed();
                            self.unanswered.clear();
                            return Ok((m, written, at));
                        }
                        Err(f) => {
                            self.failed = true;
                            return Err(SessionError::Fault(f));
                        }
                    }
                }
            }
        }
    }

    /// The request just sent is `owed` an answer on the connection (the oldest of [`OWED`]
    /// owed is forgotten).
    fn owe(&mut self, owed: Owed) {
        if let Some(link) = self.link.as_mut() {
            if link.owed.len() == OWED {
                link.owed.pop_front();
            }
            link.owed.push_back(owed);
        }
    }

    /// The current request (the last owed) got its answer.
    fn settle_owed(&mut self) {
        if let Some(link) = self.link.as_mut() {
            link.owed.pop_back();
        }
    }

    /// Takes the oldest request still owed an answer of kind `answer` (for a move, one
    /// with its `ply` when one is), leaving out the current request (the last owed) when
    /// `current` is out: the request a late answer answers, if any.
    fn owed_answer(&mut self, answer: Answer, ply: Option<u32>, current: bool) -> Option<Owed> {
        let link = self.link.as_mut()?;
        let earlier = link.owed.len().saturating_sub(usize::from(current));
        let fits = |o: &Owed| o.answer == answer && (ply.is_none() || o.ply.is_none() || o.ply == ply);
        let i = link.owed.iter().take(earlier).position(fits)?;
        link.owed.remove(i)
    }

    /// A lost connection, to be resumed (see [`RemoteSession::ask`]).
    fn gone_error(&mut self, why: &str) -> SessionError {
        self.lost = Some(why.to_owned());
        SessionError::Fault(Fault::new(Reason::Disconnected, format!("its connection was lost: {why}")))
    }

    /// Sends a request and waits for its answer within `limit` from the end of the write
    /// (plus the lag allowance for a move, `paced`). A connection lost meanwhile is waited
    /// for (see [`RemoteSession::resume`]) and the request sent again on the new one: the
    /// request's clock is paused from the loss until the request is written again (the
    /// time away, bounded per game and per event, and recorded), and runs on with what it
    /// had left. The bot is charged the time its request was out on a connection.
    ///
    /// After a reconnection the request sent is `resend`'s (when given): a bot that keeps
    /// its own board gets its own setup again (a `setup_request` with `fixed`) and a turn
    /// with every ply of the game, as a fresh process needs.
    async fn ask(
        &mut self,
        msg: &HostMessage,
        limit: Duration,
        expect: (Answer, Option<u32>),
        paced: bool,
        resend: Option<&(dyn Fn(&RemoteSession) -> Resend + Sync)>,
    ) -> Result<Timed<BotMessage>, SessionError> {
        if let Some(f) = &self.not_connected {
            self.failed = true;
            return Err(SessionError::Fault(f.clone()));
        }
        self.take_waiting_lines();
        if let Some(f) = self.fault.take() {
            self.failed = true;
            return Err(SessionError::Fault(f));
        }
        let mut resent: Option<HostMessage> = None;
        let one_way = self.link.as_ref().and_then(|l| l.stats.rtt.lock().unwrap_or_else(|e| e.into_inner()).one_way());
        let allowance = if paced { self.quota.allowance(one_way) } else { Duration::ZERO };
        // What the request's clock has left, and what it has charged before the current
        // write (time out on a connection that was then lost).
        let mut left = limit + allowance;
        let mut used = Duration::ZERO;
        // The request's line number, once sent; after a resumed connection, it is only
        // waited for (`wait_only`).
        let mut request_index: Option<u64> = None;
        let mut wait_only = false;
        loop {
            if let Some(why) = self.lost.take() {
                let lost_at = Instant::now();
                let (until, kept) = self.resume(why, lost_at, request_index).await?;
                if let Some(read) = kept {
                    if self.charge_kept(lost_at, request_index, read, &mut used, &mut left)? {
                        wait_only = true;
                    }
                } else if let Some(f) = resend {
                    let what = f(self);
                    match self.resend(what, until, lost_at).await? {
                        Some(request) => resent = Some(request),
                        // Lost again: resumed at the top of the loop.
                        None => continue,
                    }
                } else {
                    self.charge_away(lost_at);
                }
            }
            let msg = resent.as_ref().unwrap_or(msg);
            if let Some(l) = self.link.as_ref() {
                l.stats.thinking.store(true, Ordering::SeqCst);
            }
            let mut deadline = None;
            let msg = if wait_only { None } else { Some(msg) };
            wait_only = false;
            let result = self.exchange(msg, &mut deadline, left, expect, false).await;
            if msg.is_some() {
                request_index = Some(self.sent_lines);
            }
            if let Some(f) = self.fault.take() {
                self.failed = true;
                return Err(SessionError::Fault(f));
            }
            if let Some(l) = self.link.as_ref() {
                l.stats.thinking.store(false, Ordering::SeqCst);
            }
            match result {
                Ok((answer, written, at)) => {
                    let raw = used + at.saturating_duration_since(written);
                    let lag = paced.then(|| (allowance, one_way.unwrap_or_default()));
                    return Ok(self.timed(answer, raw, lag));
                }
                // Lost: resumed at the top of the loop, with what the clock had left then
                // (the time since the write was out on a connection: charged).
                Err(SessionError::Fault(f)) if f.reason == Reason::Disconnected && self.lost.is_some() => {
                    if let Some(w) = self.last_written.take() {
                        let out = w.elapsed();
                        used += out;
                        left = left.saturating_sub(out);
                    }
                    if left.is_zero() {
                        self.failed = true;
                        return Err(SessionError::Timeout {
                            stall_credit: Duration::ZERO,
                            late: Duration::ZERO,
                            note: Some("its connection was lost after its time had run out".to_owned()),
                        });
                    }
                }
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            }
        }
    }

    /// After a connection resumed with its process kept, which had read the game's lines up
    /// to `read` (the lines it had not read were sent again): the time since `lost_at` is
    /// charged as time away. A request it had read before the loss (`request_index`) was in
    /// its hands all along (it may have thought on it): its clock ran while it was away
    /// (`used` and `left`), and a timeout when that ran out. One it had not read waited
    /// with it: its clock was paused. True when the request is out already, to be waited for.
    fn charge_kept(
        &mut self,
        lost_at: Instant,
        request_index: Option<u64>,
        read: u64,
        used: &mut Duration,
        left: &mut Duration,
    ) -> Result<bool, SessionError> {
        let away = lost_at.elapsed();
        self.charge_away(lost_at);
        let Some(i) = request_index else { return Ok(false) };
        if i <= read {
            *used += away;
            *left = left.saturating_sub(away);
            if left.is_zero() {
                self.failed = true;
                return Err(SessionError::Timeout {
                    stall_credit: Duration::ZERO,
                    late: Duration::ZERO,
                    note: Some(format!(
                        "its connection was lost for {:.2} s after it had the request (its process kept it), and its time ran out meanwhile",
                        away.as_secs_f64()
                    )),
                });
            }
        }
        Ok(true)
    }

    /// After a connection taken up again with a fresh process: its own setup sent back as
    /// fixed when `what` has one (its answer checked), then the request to send again;
    /// `None` when the connection was lost again meanwhile. The time since `lost_at` is
    /// charged as time away either way.
    async fn resend(
        &mut self,
        what: Resend,
        until: Instant,
        lost_at: Instant,
    ) -> Result<Option<HostMessage>, SessionError> {
        if let Some(setup) = what.setup {
            let r = self.exchange(Some(&setup), &mut Some(until), Duration::ZERO, (Answer::Setup, None), true).await;
            match r {
                Ok((BotMessage::Setup(_), _, _)) => {}
                Ok((other, _, _)) => {
                    self.failed = true;
                    self.charge_away(lost_at);
                    return Err(unexpected(&other, "\"setup\" (its own setup, sent again as fixed)"));
                }
                Err(SessionError::Fault(f)) if f.reason == Reason::Disconnected && self.lost.is_some() => {
                    self.charge_away(lost_at);
                    return Ok(None);
                }
                Err(e) => {
                    self.failed = true;
                    self.charge_away(lost_at);
                    return Err(e);
                }
            }
        }
        self.charge_away(lost_at);
        Ok(Some(what.request))
    }

    /// An answer that took `raw` on the wire, less the lag credit when the request was paced
    /// (`lag`: its allowance and the one-way lag measured when it was sent).
    fn timed(&mut self, answer: BotMessage, raw: Duration, lag: Option<(Duration, Duration)>) -> Timed<BotMessage> {
        let (took, lag) = match lag {
            Some((allowance, one_way)) => {
                let credit = self.quota.credit(allowance, raw);
                (raw - credit, Some(LagCredit { lag: one_way, credit }))
            }
            None => (raw, None),
        };
        Timed { value: answer, took, stall_credit: Duration::ZERO, lag }
    }

    fn full_view(&self) -> bool {
        self.ready.as_ref().is_none_or(|r| r.view.is_full())
    }

    /// Tells the bot something that needs no answer (a lost connection shows at its next
    /// request).
    async fn tell(&mut self, msg: &HostMessage) {
        if self.link.is_none() || self.lost.is_some() {
            return;
        }
        let deadline = Instant::now() + self.options.grace.max(Duration::from_secs(1));
        if self.send(msg, deadline).await.is_none() {
            self.lost.get_or_insert_with(|| "writing to it failed".to_owned());
        }
    }

    /// Gives the connection back to the hub for the bot's next game.
    fn release(&mut self) {
        if self.leased {
            self.leased = false;
            self.hub.give_back(self.bot, self.link.take());
        }
    }
}

impl Drop for RemoteSession {
    fn drop(&mut self) {
        self.release();
    }
}

/// Which request `m` answers (`None` for `info`).
fn answer_of(m: &BotMessage) -> Option<Answer> {
    match m {
        BotMessage::Ready(_) => Some(Answer::Ready),
        BotMessage::Setup(_) => Some(Answer::Setup),
        BotMessage::Move(_) | BotMessage::Resign(_) => Some(Answer::Move),
        BotMessage::Info(_) => None,
    }
}

/// The `ply` a move says it answers.
fn ply_of(m: &BotMessage) -> Option<u32> {
    match m {
        BotMessage::Move(mv) => mv.ply,
        _ => None,
    }
}

/// Says which earlier request a late answer answered.
fn late_note(late: Option<&Owed>) -> String {
    let Some(o) = late else { return String::new() };
    let what = match (o.answer, o.ply) {
        (Answer::Ready, _) => "hello".to_owned(),
        (Answer::Setup, _) => "setup_request".to_owned(),
        (Answer::Move, Some(p)) => format!("turn at ply {p}"),
        (Answer::Move, None) => "turn".to_owned(),
    };
    format!(" (late: the answer to the {what} of game {}, whose wait had ended)", o.game_id)
}

/// What a request becomes after a reconnection (see [`RemoteSession::ask`]).
struct Resend {
    /// Sent first and answered with `setup`: the bot's own setup, `fixed`.
    setup: Option<HostMessage>,
    /// The request again.
    request: HostMessage,
}

/// The `turn` for `req`: `plies` since the bot's last turn; `first` (for a bot without the
/// full view) adds the opponent's setup squares.
fn turn_message(req: &TurnRequest<'_>, full_view: bool, plies: Vec<Ply>, first: bool) -> HostMessage {
    messages::turn(req, full_view, first, TurnBuffers { plies, ..TurnBuffers::default() })
}

impl BotSession for RemoteSession {
    async fn start_game(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
        self.game_id = start.game_id.to_owned();
        self.infos.clear();
        self.ply = 0;
        self.unrequested.clear();
        self.notes.clear();
        self.pending.clear();
        self.sent_turn = false;
        self.failed = false;
        self.fault = None;
        self.setup_request = None;
        self.bytes_to_bot = 0;
        self.bytes_from_bot = 0;
        self.away = Duration::ZERO;
        self.sent_lines = 0;
        self.unanswered.clear();
        let hello = messages::hello(start);
        self.hello = Some(hello.clone());
        let answer = self
            .ask(&hello, start.time_control.allowed(start.time_control.startup), (Answer::Ready, None), false, None)
            .await?;
        match answer.value {
            BotMessage::Ready(r) => {
                self.ready = Some(r);
                Ok(Timed { value: (), took: answer.took, stall_credit: Duration::ZERO, lag: None })
            }
            other => {
                self.failed = true;
                Err(unexpected(&other, "\"ready\""))
            }
        }
    }

    async fn setup(
        &mut self,
        start: &GameStart<'_>,
        fixed: Option<&stratego_rules::Deployment>,
    ) -> Result<Timed<String>, SessionError> {
        let setup_request = messages::setup_request(start, fixed);
        self.setup_request = Some(setup_request.clone());
        let request = HostMessage::SetupRequest(setup_request);
        let answer = self
            .ask(&request, start.time_control.allowed(start.time_control.setup), (Answer::Setup, None), false, None)
            .await?;
        match answer.value {
            BotMessage::Setup(s) => {
                Ok(Timed { value: s.deployment, took: answer.took, stall_credit: Duration::ZERO, lag: None })
            }
            other => {
                self.failed = true;
                Err(unexpected(&other, "\"setup\""))
            }
        }
    }

    async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Timed<Decision>, SessionError> {
        let game = req.game;
        self.ply = game.ply_count();
        let plies = std::mem::take(&mut self.pending);
        let turn = turn_message(req, self.full_view(), plies.clone(), !self.sent_turn);
        self.sent_turn = true;
        // After a reconnection (a fresh process, or one greeted afresh with `hello`): a bot
        // with the full view needs only the turn; one that keeps its own board needs its own
        // setup and every ply of the game, and the opponent's setup squares.
        let resend = |s: &RemoteSession| {
            if s.full_view() {
                return Resend { setup: None, request: turn_message(req, true, plies.clone(), false) };
            }
            let color = game.to_move();
            let setup = s.setup_request.clone().map(|mut r| {
                r.fixed = Some(game.deployments()[color].to_rows(game.rules()));
                HostMessage::SetupRequest(r)
            });
            Resend { setup, request: turn_message(req, false, game.history().to_vec(), true) }
        };
        let answer = self.ask(&turn, req.budget, (Answer::Move, Some(game.ply_count())), true, Some(&resend)).await?;
        let value = messages::decision(answer.value).inspect_err(|_| self.failed = true)?;
        Ok(Timed { value, took: answer.took, stall_credit: Duration::ZERO, lag: answer.lag })
    }

    async fn played(&mut self, game: &Game, ply: &Ply) {
        self.ply = game.ply_count();
        if self.ready.as_ref().is_some_and(|r| r.immediate_plies) {
            let notice = messages::ply_notice(&self.game_id, game, ply);
            self.tell(&notice).await;
        } else {
            self.pending.push(*ply);
        }
    }

    async fn game_over(&mut self, end: &GameEnd<'_>) {
        let over = messages::game_over(end, std::mem::take(&mut self.pending));
        if self.leased && (self.link.is_none() || self.lost.is_some()) {
            // It is away: its next connection is told how the game ended.
            self.hub.missed_game_over(self.bot, RemoteSession::encode(&over));
            return;
        }
        self.tell(&over).await;
    }

    fn report(&self) -> SessionReport {
        let peer = self.link.as_ref().map(|l| format!("remote, connected from {}", l.peer));
        let mut notes: Vec<String> = peer.into_iter().collect();
        notes.extend(self.notes.iter().cloned());
        SessionReport {
            reported_name: self.ready.as_ref().map(|r| r.name.clone()),
            version: self.ready.as_ref().and_then(|r| r.version.clone()),
            author: self.ready.as_ref().and_then(|r| r.author.clone()),
            info: self.infos.clone(),
            stderr_tail: String::new(),
            stderr_bytes: 0,
            bytes_to_bot: self.bytes_to_bot,
            bytes_from_bot: self.bytes_from_bot,
            process_note: (!notes.is_empty()).then(|| notes.join("; ")),
            unrequested: self.unrequested.clone(),
            away: self.away,
        }
    }

    fn reusable(&self) -> bool {
        // One game a lease: the connection goes back to the hub after each game, so that
        // no worker holds a bot between its games (two games waiting for each other's bots
        // would wait for ever). Its `connect` client starts a fresh process as needed.
        false
    }

    async fn shutdown(self, grace: Duration) -> String {
        self.close(grace).await.0
    }

    async fn close(mut self, grace: Duration) -> (String, SessionReport) {
        // `quit` (unless it plays several games a process: it is kept, as a local one is),
        // then the connection goes back: a process told to quit ends on the entrant's side.
        let multi_game = !self.failed && self.ready.as_ref().is_some_and(|r| r.multi_game);
        let alive = self.link.is_some() && self.lost.is_none();
        if alive && !multi_game {
            self.tell(&HostMessage::Quit(Quit {})).await;
        }
        // The stderr tail its connect client shares (--share-stderr-tail) follows game_over
        // at once (or came before the close frame of a game it lost on its side): it is
        // waited for a moment while the connection lives.
        let mut stderr_tail = String::new();
        let stats = self.link.as_ref().map(|l| l.stats.clone());
        if let Some(stats) = stats.filter(|s| s.shares_stderr.load(Ordering::SeqCst)) {
            let wait =
                if alive { grace.clamp(Duration::from_millis(100), Duration::from_secs(2)) } else { Duration::ZERO };
            let until = Instant::now() + wait;
            loop {
                let tail =
                    stats.stderr_tail.lock().unwrap_or_else(|e| e.into_inner()).take_if(|(g, _)| *g == self.game_id);
                if let Some((_, text)) = tail {
                    stderr_tail = text;
                    break;
                }
                if Instant::now() >= until {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        if alive {
            // What it said after game_over belongs to this game.
            self.take_waiting_lines();
        }
        let mut report = self.report();
        report.stderr_tail = stderr_tail;
        let how = match (&self.not_connected, &self.lost) {
            (Some(_), _) => "remote: never connected".to_owned(),
            (None, Some(why)) => format!("remote: connection lost ({why})"),
            (None, None) if multi_game => {
                "remote: kept for its next game (multi_game); the connection stays".to_owned()
            }
            (None, None) => "remote: told to quit; the connection stays for its next game".to_owned(),
        };
        self.release();
        (how, report)
    }
}
