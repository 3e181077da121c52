//! One connection's relay (a child of `client.rs`): the host's lines to the bot's stdin, the
//! bot's lines to the host, pings both ways, in one loop whose every event is a method of
//! [`Link`]: a frame from the host, a resumed connection's first word, the bot's line, the
//! bot's output closing, the heartbeat. It may spawn the bot's process (at a game's first
//! line) and says what goes wrong through `crate::notice`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use super::{
    Bot, CLOSE_CRASH, ChildSetup, ConnectOptions, Ended, Guardian, RESUME, State, Ws, bot_type, describe, fail_game,
    is_type, tail_line,
};

/// Carries lines both ways over one connection.
pub(super) async fn relay(
    ws: Ws,
    state: &mut State,
    opts: &ConnectOptions,
    setup: ChildSetup,
    guardian: Option<&Arc<Guardian>>,
    offered: bool,
) -> Ended {
    let mut heartbeat = tokio::time::interval(opts.heartbeat);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // With a resume offered, the bot's lines wait for the host's first word: `resume`
    // (they go on, in order) or anything else (they answered requests made again: dropped).
    let mut link = Link { ws, state, opts, setup, guardian, gate: offered, last_seen: Instant::now() };
    loop {
        let step = {
            let Link { ws, state, gate, .. } = &mut link;
            let bot_line = async {
                match state.bot.as_mut().filter(|_| !*gate) {
                    Some(b) => b.lines.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                frame = ws.next() => Step::Frame(frame),
                line = bot_line => Step::Bot(line),
                _ = heartbeat.tick() => Step::Heartbeat,
            }
        };
        let ended = match step {
            Step::Frame(frame) => link.on_frame(frame).await,
            Step::Bot(Some(Ok(line))) => link.on_bot_line(line).await,
            Step::Bot(Some(Err((code, why)))) => link.on_bot_failed(code, why).await,
            // Its output closed: its exit comes next.
            Step::Bot(None) => link.on_bot_closed().await,
            Step::Heartbeat => link.on_heartbeat().await,
        };
        if let Some(ended) = ended {
            return ended;
        }
    }
}

/// What woke the relay.
enum Step {
    Frame(Option<Result<Message, WsError>>),
    Bot(Option<Result<String, (u16, String)>>),
    Heartbeat,
}

/// One connection and what `connect` keeps across connections.
struct Link<'a> {
    ws: Ws,
    state: &'a mut State,
    opts: &'a ConnectOptions,
    setup: ChildSetup,
    guardian: Option<&'a Arc<Guardian>>,
    /// The bot's lines wait for the host's first word (a resume was offered).
    gate: bool,
    /// When the host was last heard from.
    last_seen: Instant,
}

impl Link<'_> {
    /// Sends `line` to the host; the connection is lost if it cannot be written.
    async fn send(&mut self, line: String) -> Option<Ended> {
        match self.ws.send(Message::text(line)).await {
            Ok(()) => None,
            Err(e) => Some(Ended::Lost(format!("writing to the host failed: {e}"))),
        }
    }

    /// A frame (or the end) of the host's side.
    async fn on_frame(&mut self, frame: Option<Result<Message, WsError>>) -> Option<Ended> {
        self.last_seen = Instant::now();
        match frame {
            Some(Ok(Message::Text(t))) => self.on_host_line(t.as_str()).await,
            Some(Ok(Message::Ping(_))) => {
                let _ = self.ws.flush().await;
                None
            }
            Some(Ok(Message::Close(frame))) => {
                // The host's words, shown in this terminal: sanitised.
                let why = frame.map(|f| crate::text::clean(&f.reason).into_owned()).unwrap_or_default();
                if why == "the event is over" {
                    return Some(Ended::Over);
                }
                Some(Ended::Lost(format!("the host closed the connection ({why})")))
            }
            Some(Ok(_)) => None,
            Some(Err(e)) => Some(Ended::Lost(crate::text::clean(&e.to_string()).into_owned())),
            None => Some(Ended::Lost("the connection closed".to_owned())),
        }
    }

    /// A protocol line of the host's: passed to the bot (started for it if need be), and
    /// noted for `connect`'s lines and summary.
    async fn on_host_line(&mut self, line: &str) -> Option<Ended> {
        self.state.sinks.log("host>bot", line);
        if std::mem::take(&mut self.gate) {
            if is_type(line, RESUME) {
                return self.resumed(line).await;
            }
            self.state.held = None;
            if let Some(b) = self.state.bot.as_mut() {
                while b.lines.try_recv().is_ok() {}
            }
        }
        let hello = is_type(line, "hello");
        let over = is_type(line, "game_over");
        let parsed = (hello || over).then(|| serde_json::from_str::<serde_json::Value>(line).unwrap_or_default());
        let game = parsed.as_ref().and_then(|m| m["game_id"].as_str().map(str::to_owned));
        if over && !self.state.bot.as_ref().is_some_and(|b| !b.over && b.game == game) {
            // The end of a game that went on without it (its connection was lost): said,
            // and passed to no process.
            if let Some(m) = &parsed {
                self.state.tally.game_over(m);
            }
            return None;
        }
        self.retire_finished(hello, &game).await;
        if let Some(m) = parsed.as_ref().filter(|_| hello) {
            self.state.tally.hello(m);
            if let Some(t) = &self.state.sinks.tail {
                t.lock().unwrap_or_else(|e| e.into_inner()).take();
            }
        }
        if self.state.bot.is_none() {
            match Bot::spawn(&self.opts.command, self.opts.max_line, self.setup, self.guardian, &self.state.sinks) {
                Ok(b) => self.state.bot = Some(b),
                Err(e) => {
                    crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {e}"));
                    self.state.tally.failed_here(&e);
                    let game = self.state.tally.current();
                    return Some(fail_game(&mut self.ws, CLOSE_CRASH, e, &self.state.sinks, game).await);
                }
            }
        }
        self.pass_on(line, hello, game).await;
        match parsed.as_ref().filter(|_| !hello) {
            Some(m) => self.game_over(m).await,
            None => None,
        }
    }

    /// The host resumed the connection: the answer it waits for, if the bot gave it (it may
    /// have been lost with the connection), then what the bot wrote meanwhile.
    async fn resumed(&mut self, line: &str) -> Option<Ended> {
        let waiting = serde_json::from_str::<serde_json::Value>(line).is_ok_and(|m| m["resend_answer"] == true);
        let answer = self.state.bot.as_ref().and_then(|b| b.answer.clone()).filter(|_| waiting);
        // A held answer the host no longer waits for is dropped (it would be taken for the
        // next request's).
        let held_line = self.state.held.take().filter(|l| {
            Some(l) != answer.as_ref() && !matches!(bot_type(l).as_deref(), Some("ready" | "setup" | "move" | "resign"))
        });
        for l in answer.into_iter().chain(held_line) {
            self.state.sinks.log("bot>host", &l);
            if let Some(ended) = self.send(l).await {
                return Some(ended);
            }
        }
        None
    }

    /// A bot told to quit, or at a new game's hello one whose game is over and that plays one
    /// game a process, or one whose game never ended for it (its connection was lost and the
    /// game went on without it), ends before the next game's first line.
    async fn retire_finished(&mut self, hello: bool, game: &Option<String>) {
        let done = |b: &Bot| {
            b.quitting
                || (hello && b.over && !b.multi_game)
                || (hello && !b.over && b.game.is_some() && b.game != *game)
        };
        let Some(mut old) = self.state.bot.take_if(|b| done(b)) else {
            return;
        };
        drop(old.stdin.take());
        if tokio::time::timeout(Duration::from_secs(2), old.child.wait()).await.is_err() {
            let _ = old.child.start_kill();
            let _ = old.child.wait().await;
        }
        // What it said after quit (info lines) goes to the host.
        while let Ok(Ok(l)) = old.lines.try_recv() {
            self.state.sinks.log("bot>host", &l);
            let _ = self.ws.send(Message::text(l)).await;
        }
    }

    /// Notes what the host's `line` tells of the bot's game, and writes it to the bot.
    async fn pass_on(&mut self, line: &str, hello: bool, game: Option<String>) {
        let b = self.state.bot.as_mut().expect("started before");
        if is_type(line, "quit") {
            b.quitting = true;
        } else if is_type(line, "game_over") {
            b.over = true;
        } else if hello {
            // The same game's hello again (after a reconnection), or the next.
            b.over = false;
            b.game = game;
            b.read = 0;
        }
        b.read += 1;
        if hello || is_type(line, "setup_request") || is_type(line, "turn") {
            b.answer = None;
        }
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        if let Some(stdin) = b.stdin.as_mut() {
            if let Err(e) = stdin.write_all(&bytes).await {
                // Its exit is seen next.
                tracing::debug!("writing to the bot: {e}");
            }
        }
    }

    /// A game's end, passed to the bot: counted, and its stderr so far sent to the host
    /// when the entrant shares it.
    async fn game_over(&mut self, m: &serde_json::Value) -> Option<Ended> {
        self.state.tally.game_over(m);
        let tail = self.state.sinks.tail.clone()?;
        // Its stderr so far in this game, for the organiser's records (--share-stderr-tail):
        // a moment for its last words first.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let text = tail.lock().unwrap_or_else(|e| e.into_inner()).take();
        let frame = tail_line(m["game_id"].as_str().unwrap_or_default(), &text);
        self.state.sinks.log("connect", &frame);
        self.send(frame).await
    }

    /// A line of the bot's: to the host (kept for a resumed connection if it cannot be sent).
    async fn on_bot_line(&mut self, line: String) -> Option<Ended> {
        self.state.sinks.log("bot>host", &line);
        let t = bot_type(&line);
        if let Some(b) = self.state.bot.as_mut() {
            if t.as_deref() == Some("ready") {
                b.multi_game = serde_json::from_str::<serde_json::Value>(&line).is_ok_and(|m| m["multi_game"] == true);
            }
            if matches!(t.as_deref(), Some("ready" | "setup" | "move" | "resign")) {
                b.answer = Some(line.clone());
            }
        }
        if let Err(e) = self.ws.send(Message::text(line.clone())).await {
            // Kept for a resumed connection.
            self.state.held = Some(line);
            return Some(Ended::Lost(format!("writing to the host failed: {e}")));
        }
        None
    }

    /// The bot broke the protocol (a line too long, not text): stopped, its game lost.
    async fn on_bot_failed(&mut self, code: u16, why: String) -> Option<Ended> {
        crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {why}; the bot is stopped"));
        self.state.bot = None;
        self.state.tally.failed_here(&why);
        let game = self.state.tally.current();
        Some(fail_game(&mut self.ws, code, why, &self.state.sinks, game).await)
    }

    /// The bot's output closed: it ended, as expected after `quit` or a game's end, or
    /// mid-game (its game lost).
    async fn on_bot_closed(&mut self) -> Option<Ended> {
        let b = self.state.bot.as_mut()?;
        let status = match tokio::time::timeout(Duration::from_secs(2), b.child.wait()).await {
            Ok(s) => s.ok(),
            Err(_) => {
                let _ = b.child.start_kill();
                b.child.wait().await.ok()
            }
        };
        let expected = b.quitting || b.over;
        self.state.bot = None;
        if expected {
            return None;
        }
        let why = format!("the bot's program ended mid-game ({})", describe(status));
        crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {why}"));
        self.state.tally.failed_here(&why);
        let game = self.state.tally.current();
        Some(fail_game(&mut self.ws, CLOSE_CRASH, why, &self.state.sinks, game).await)
    }

    /// The heartbeat: a silent host is a lost connection; else a ping.
    async fn on_heartbeat(&mut self) -> Option<Ended> {
        if self.last_seen.elapsed() >= self.opts.silence {
            return Some(Ended::Lost(format!("nothing from the host for {:.1} s", self.opts.silence.as_secs_f64())));
        }
        match self.ws.send(Message::Ping(Vec::new().into())).await {
            Ok(()) => None,
            Err(e) => Some(Ended::Lost(format!("writing to the host failed: {e}"))),
        }
    }
}
