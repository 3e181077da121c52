//! The entrant's side of remote bots: `stratego-host connect wss://HOST:PORT --token-file F
//! -- ./my-bot ARGS` connects out to the organiser's host (no open port on the entrant's
//! side), runs the bot locally, and carries its protocol lines over the WebSocket, one line
//! per text frame, unchanged both ways: the bot cannot tell it is remote.
//!
//! The bot is started at the first line the host sends and again after it has exited (a
//! bot that plays one game a process gets a fresh one for each game, as on the host). A
//! connection that is lost (or silent past its heartbeats) is made again, with the same
//! token, keeping the bot. A bot that exits mid-game (other than after `game_over` or
//! `quit`), or writes a line the protocol forbids, is reported to the host in the close
//! frame ([`CLOSE_CRASH`], [`CLOSE_LINE_TOO_LONG`], [`CLOSE_INVALID_UTF8`]): its game is
//! lost with that reason, as a local bot's would be, and `connect` connects again for the
//! next game with a fresh process.
//!
//! The bot dies with `connect`, and so does every process it started: it runs in a process
//! group of its own, which `connect` kills whenever the bot ends; its process is started
//! with a [`ChildSetup`] (the command gives `supervise::os::die_with_parent`, the
//! parent-death signal); and a [`Guardian`], a small process forked before anything else,
//! kills the bot's group when `connect` is gone however it ended (SIGKILL included: the
//! parent-death signal reaches only the bot's first process, not an engine a launcher
//! script started).

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_util::codec::{FramedRead, LinesCodec};

mod games;
mod guardian;
mod relay;
use games::Tally;
pub use games::{Ending, GameSeen, Report};
pub use guardian::Guardian;
use relay::relay;

/// What `connect` was told.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// `ws://HOST:PORT` or `wss://HOST:PORT` (a path is allowed).
    pub url: String,
    /// The bot's token.
    pub token: String,
    /// Extra certificate authorities (PEM), e.g. the organiser's self-signed certificate.
    pub ca: Option<PathBuf>,
    /// The bot's command.
    pub command: Vec<String>,
    /// Give up after this long without a connection.
    pub retry_for: Duration,
    /// Longest line the bot may write.
    pub max_line: usize,
    /// A ping this often; nothing from the host for `silence`: the connection is gone.
    pub heartbeat: Duration,
    /// See `heartbeat`.
    pub silence: Duration,
    /// `--log-protocol`: every line both ways, and what `connect` did, appended here.
    pub log_protocol: Option<PathBuf>,
    /// `--bot-stderr`: the bot's stderr appended here (else it goes to connect's own).
    pub bot_stderr: Option<PathBuf>,
    /// `--share-stderr-tail`: the last bytes the bot wrote to stderr in each game go to
    /// the organiser, for the game's record.
    pub share_stderr_tail: bool,
}

/// The upgrade request's header by which a `connect` client says whether its bot's
/// process from a lost connection still runs: `GAME_ID LINES` (the game it was in, and how
/// many of that game's lines it had read), or `-` for none.
pub const RESUME_HEADER: &str = "x-stratego-resume";

/// The `type` of the line the host sends a `connect` client whose connection it resumes
/// (`{"type":"resume","game_id":…,"read":N}`: its bot's process had read the game's first
/// N lines; the lines after them follow). Never passed on to the bot.
pub const RESUME: &str = "resume";

/// The upgrade request's header by which a `connect` client says it shares its bot's
/// stderr tail (value `shared`).
pub const STDERR_TAIL_HEADER: &str = "x-stratego-stderr-tail";

/// Close code (WebSocket, application range) of a connection whose bot's program ended
/// mid-game: the host records its game as lost with reason `crash`, the reason text saying
/// how it ended.
pub const CLOSE_CRASH: u16 = 4000;
/// Close code: the bot wrote a line longer than `--max-line` (reason `line_too_long`).
pub const CLOSE_LINE_TOO_LONG: u16 = 4001;
/// Close code: the bot wrote a line that is not UTF-8 (reason `invalid_utf8`).
pub const CLOSE_INVALID_UTF8: u16 = 4002;

/// Exit code: the event is over, and the bot lost no game by a fault of its own and saw
/// every game's result.
pub const EXIT_CLEAN: i32 = 0;
/// Exit code: no connection could be made within `--retry-s`.
pub const EXIT_UNREACHABLE: i32 = 1;
/// Exit code: the host refused the token (or a file or certificate given could not be
/// used).
pub const EXIT_REFUSED: i32 = 2;
/// Exit code: the event is over, and the bot lost at least one game by a fault of its own
/// (a forfeit: a crash, a timeout, an illegal move, its connection lost too long, …), or a
/// game's result never reached it.
pub const EXIT_FAULTS: i32 = 3;

type Ws = tokio_tungstenite::WebSocketStream<Box<dyn ClientIo>>;

trait ClientIo: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send> ClientIo for T {}

/// Why a connection attempt failed.
enum ConnectError {
    /// The host said no for good (a bad token): stop.
    Refused(String),
    /// Try again later.
    Retry(String),
}

/// Run in the bot's process between fork and exec, given `connect`'s process id (the
/// parent it expects). `connect` passes the supervisor's `die_with_parent`, which this
/// layer, below the supervisor's, does not name itself.
///
/// # Safety
/// It must make only async-signal-safe calls.
pub type ChildSetup = unsafe fn(i32) -> std::io::Result<()>;

/// The bot's process and its output lines.
struct Bot {
    child: tokio::process::Child,
    /// Its input (`None` once closed).
    stdin: Option<tokio::process::ChildStdin>,
    lines: mpsc::Receiver<Result<String, (u16, String)>>,
    /// `quit` was passed on: its exit is expected.
    quitting: bool,
    /// `game_over` was passed on: a bot that plays one game a process may exit now.
    over: bool,
    /// It said `multi_game` in its `ready`: it is kept for the next game (no `quit`).
    multi_game: bool,
    /// The game it was greeted for (its last `hello`'s `game_id`).
    game: Option<String>,
    /// Lines of that game passed to it (its `hello` is the first).
    read: u64,
    /// Its answer (`ready`, `setup`, `move`, `resign`) to the last request passed to it,
    /// once it gave one: sent again on a resumed connection whose host still waits for it
    /// (it may have been lost with the connection).
    answer: Option<String>,
    /// Its process group (its process's id), killed when it ends.
    pgid: Option<i32>,
    guardian: Option<Arc<Guardian>>,
}

impl Drop for Bot {
    fn drop(&mut self) {
        // Whatever the bot started goes with it (a launcher script's engine, a helper).
        if let Some(g) = self.pgid {
            // SAFETY: kill takes plain integers; the group's leader is not reaped before
            // this (a `Child` is reaped only by a wait), or it was just now.
            unsafe { libc::kill(-g, libc::SIGKILL) };
            if let Some(guardian) = &self.guardian {
                guardian.tell(-g);
            }
        }
        let _ = self.child.start_kill();
    }
}

/// The last bytes a bot wrote to stderr in its current game, kept for the organiser's
/// records when the entrant says so (`--share-stderr-tail`).
#[derive(Debug, Default)]
struct StderrTail {
    text: Vec<u8>,
}

/// Bytes of a bot's stderr kept for the organiser ([`StderrTail`]).
pub const SHARED_TAIL: usize = 4096;

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        self.text.extend_from_slice(bytes);
        if self.text.len() > SHARED_TAIL {
            let cut = self.text.len() - SHARED_TAIL;
            self.text.drain(..cut);
        }
    }

    fn take(&mut self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut self.text)).into_owned()
    }
}

/// Where `connect` writes what it carries (`--log-protocol`) and the bot's stderr
/// (`--bot-stderr`), and the stderr tail it shares.
#[derive(Clone, Debug, Default)]
struct Sinks {
    protocol: Option<Arc<std::sync::Mutex<std::fs::File>>>,
    stderr: Option<Arc<std::sync::Mutex<std::fs::File>>>,
    tail: Option<Arc<std::sync::Mutex<StderrTail>>>,
}

impl Sinks {
    /// Opens the files (appended to) of `opts`.
    fn open(opts: &ConnectOptions) -> Result<Sinks, String> {
        let append = |p: &std::path::Path, flag: &str| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map(|f| Arc::new(std::sync::Mutex::new(f)))
                .map_err(|e| format!("{flag} {}: {e}", p.display()))
        };
        Ok(Sinks {
            protocol: opts.log_protocol.as_deref().map(|p| append(p, "--log-protocol")).transpose()?,
            stderr: opts.bot_stderr.as_deref().map(|p| append(p, "--bot-stderr")).transpose()?,
            tail: opts.share_stderr_tail.then(Arc::default),
        })
    }

    /// One line of the protocol log: the time (seconds since the Unix epoch, to the
    /// microsecond), who wrote it (`host>bot`, `bot>host`, or `connect` for what `connect`
    /// itself saw), and the line.
    fn log(&self, who: &str, line: &str) {
        use std::io::Write;
        let Some(f) = &self.protocol else { return };
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let text = format!("{}.{:06} {who} {line}\n", now.as_secs(), now.subsec_micros());
        let _ = f.lock().unwrap_or_else(|e| e.into_inner()).write_all(text.as_bytes());
    }
}

impl Bot {
    fn spawn(
        command: &[String],
        max_line: usize,
        setup: ChildSetup,
        guardian: Option<&Arc<Guardian>>,
        sinks: &Sinks,
    ) -> Result<Bot, String> {
        let mut cmd = tokio::process::Command::new(&command[0]);
        // Its stderr: to the --bot-stderr file, through connect when its tail is shared,
        // else connect's own.
        let piped = sinks.stderr.is_some() || sinks.tail.is_some();
        cmd.args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if piped { Stdio::piped() } else { Stdio::inherit() })
            .process_group(0)
            .kill_on_drop(true);
        let parent = std::process::id() as i32;
        // The bot tells the guardian its group itself, before its program starts: a
        // `connect` killed at any moment after that leaves no process of it behind.
        let tell = guardian.map(|g| std::os::fd::AsRawFd::as_raw_fd(&g.pipe));
        // SAFETY: `setup` makes only async-signal-safe calls (the promise of `ChildSetup`);
        // getpid and write are async-signal-safe too.
        unsafe {
            cmd.pre_exec(move || {
                setup(parent)?;
                if let Some(fd) = tell {
                    // Its own group (process_group(0)): its process id.
                    let bytes = libc::getpid().to_ne_bytes();
                    if libc::write(fd, bytes.as_ptr().cast(), bytes.len()) != 4 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().map_err(|e| format!("cannot start the bot {:?}: {e}", command[0]))?;
        let pgid = child.id().and_then(|id| i32::try_from(id).ok());
        if let Some(err) = child.stderr.take() {
            relay_stderr(err, sinks);
        }
        let max = max_line;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel(64);
        tokio::spawn(async move {
            let mut framed = FramedRead::new(stdout, LinesCodec::new_with_max_length(max_line));
            while let Some(line) = framed.next().await {
                let item = line.map_err(|e| match e {
                    tokio_util::codec::LinesCodecError::MaxLineLengthExceeded => {
                        (CLOSE_LINE_TOO_LONG, format!("the bot wrote a line longer than {max} bytes"))
                    }
                    tokio_util::codec::LinesCodecError::Io(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                        (CLOSE_INVALID_UTF8, "the bot wrote a line that is not valid UTF-8".to_owned())
                    }
                    tokio_util::codec::LinesCodecError::Io(e) => {
                        (CLOSE_CRASH, format!("reading the bot's output failed: {e}"))
                    }
                });
                let stop = item.is_err();
                if tx.send(item).await.is_err() || stop {
                    break;
                }
            }
        });
        Ok(Bot {
            child,
            stdin: Some(stdin),
            lines,
            quitting: false,
            over: false,
            multi_game: false,
            game: None,
            read: 0,
            answer: None,
            pgid,
            guardian: guardian.cloned(),
        })
    }
}

/// Relays the bot's stderr as it comes: to the `--bot-stderr` file, else where `connect`'s
/// own lines go, and into the tail shared with the host when it is.
fn relay_stderr(mut err: tokio::process::ChildStderr, sinks: &Sinks) {
    let (file, tail) = (sinks.stderr.clone(), sinks.tail.clone());
    tokio::spawn(async move {
        use std::io::Write;
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 8192];
        let mut line = Vec::new();
        while let Ok(n) = err.read(&mut buf).await {
            if n == 0 {
                break;
            }
            let bytes = &buf[..n];
            if let Some(t) = &tail {
                t.lock().unwrap_or_else(|e| e.into_inner()).push(bytes);
            }
            match &file {
                Some(f) => {
                    let _ = f.lock().unwrap_or_else(|e| e.into_inner()).write_all(bytes);
                }
                None => {
                    // No file: its lines go where connect's own go.
                    line.extend_from_slice(bytes);
                    while let Some(i) = line.iter().position(|&b| b == b'\n') {
                        let l: Vec<u8> = line.drain(..=i).collect();
                        let text = String::from_utf8_lossy(&l[..i]).into_owned();
                        crate::notice::say(crate::notice::Level::Always, text);
                    }
                }
            }
        }
    });
}

/// Runs `connect` until the host ends the event (closes with "the event is over"), the
/// token is refused, or no connection can be made for `retry_for`. Each bot process is
/// started with `setup` (see [`ChildSetup`]) in a process group of its own, told to
/// `guardian` (see [`Guardian`]). Returns the exit code and the games it saw.
pub async fn run(opts: ConnectOptions, setup: ChildSetup, guardian: Option<Arc<Guardian>>) -> Report {
    let tally = Tally::default();
    let tls = match tls_config(opts.ca.as_deref()) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {e}"));
            return tally.report(EXIT_REFUSED, "TLS settings refused");
        }
    };
    let sinks = match Sinks::open(&opts) {
        Ok(s) => s,
        Err(e) => {
            crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {e}"));
            return tally.report(EXIT_REFUSED, "a file could not be opened");
        }
    };
    let mut state = State { bot: None, tally, sinks, held: None };
    let mut backoff = Duration::from_millis(100);
    let mut unreachable_since = Instant::now();
    loop {
        // A process still in a game (its connection lost) is offered for that game: the
        // host resumes it (it keeps its state) or greets it again.
        let resume =
            state.bot.as_ref().filter(|b| !b.over && !b.quitting).and_then(|b| Some((b.game.clone()?, b.read)));
        let ws = match open(&opts, &tls, resume.as_ref()).await {
            Ok(ws) => ws,
            Err(ConnectError::Refused(why)) => {
                crate::notice::say(
                    crate::notice::Level::Always,
                    format!("stratego-host connect: the host refused the connection: {why}"),
                );
                return state.tally.report(EXIT_REFUSED, "the host refused the connection");
            }
            Err(ConnectError::Retry(why)) => {
                if unreachable_since.elapsed() >= opts.retry_for {
                    crate::notice::say(
                        crate::notice::Level::Always,
                        format!(
                            "stratego-host connect: no connection for {:.0} s, giving up: {why}",
                            opts.retry_for.as_secs_f64()
                        ),
                    );
                    state.sinks.log("connect", &format!("# giving up: {why}"));
                    return state.tally.report(EXIT_UNREACHABLE, "no connection, gave up");
                }
                crate::notice::say(
                    crate::notice::Level::Always,
                    format!("stratego-host connect: {why}; trying again in {:.1} s", backoff.as_secs_f64()),
                );
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
                continue;
            }
        };
        crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: connected to {}", opts.url));
        state.sinks.log("connect", &format!("# connected to {}", opts.url));
        backoff = Duration::from_millis(100);
        // Lines the bot wrote while there was no connection answer requests the host will
        // make again, unless it resumes the connection: they wait for its first word.
        if resume.is_none() {
            state.held = None;
            if let Some(b) = state.bot.as_mut() {
                while b.lines.try_recv().is_ok() {}
            }
        }
        match relay(ws, &mut state, &opts, setup, guardian.as_ref(), resume.is_some()).await {
            Ended::Over => {
                crate::notice::say(crate::notice::Level::Always, "stratego-host connect: the host ended the event");
                state.sinks.log("connect", "# the host ended the event");
                if let Some(mut b) = state.bot.take() {
                    // A bot kept for more games is told the event is over, as on the host.
                    if !b.quitting {
                        if let Some(stdin) = b.stdin.as_mut() {
                            state.sinks.log("host>bot", r#"{"type":"quit"}"#);
                            let _ = stdin.write_all(b"{\"type\":\"quit\"}\n").await;
                        }
                    }
                    drop(b.stdin.take());
                    let _ = tokio::time::timeout(Duration::from_secs(2), b.child.wait()).await;
                }
                return state.tally.report(EXIT_CLEAN, "the host ended the event");
            }
            Ended::Lost(why) => {
                crate::notice::say(
                    crate::notice::Level::Always,
                    format!("stratego-host connect: connection lost: {why}; connecting again"),
                );
                state.sinks.log("connect", &format!("# connection lost: {why}"));
                unreachable_since = Instant::now();
            }
        }
    }
}

/// What `connect` keeps across its connections.
struct State {
    bot: Option<Bot>,
    tally: Tally,
    sinks: Sinks,
    /// A line of the bot's that could not be sent (the connection was lost): sent first
    /// on a resumed connection, else dropped.
    held: Option<String>,
}

/// How a connection ended.
enum Ended {
    /// The host closed it at the end of the event.
    Over,
    /// Lost; connect again.
    Lost(String),
}

/// The `type` of a protocol line, read from its start (lines are compact JSON).
fn is_type(line: &str, t: &str) -> bool {
    line.strip_prefix(r#"{"type":""#).and_then(|r| r.strip_prefix(t)).is_some_and(|r| r.starts_with('"'))
}

/// The `type` of the line `connect` sends the host after a `game_over` when the entrant
/// shares its bot's stderr (`--share-stderr-tail`): `{"type":"stderr_tail","game_id":…,
/// "text":…}`, the last [`SHARED_TAIL`] bytes the bot wrote to stderr in that game. The
/// host keeps it in the game's record (`stderr_tail`); it never reaches the referee.
pub const STDERR_TAIL: &str = "stderr_tail";

/// The stderr tail line for game `game` (its `type` first: the host reads it from the start).
fn tail_line(game: &str, text: &str) -> String {
    let (game, text) = (serde_json::Value::from(game), serde_json::Value::from(text));
    format!(r#"{{"type":"{STDERR_TAIL}","game_id":{game},"text":{text}}}"#)
}

/// The `type` of a bot's line (any JSON spacing and key order), if it has one.
fn bot_type(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    Some(v.get("type")?.as_str()?.to_owned())
}

/// The bot failed its game: the host is told why in the close frame (it records the game
/// as lost with the matching reason), and `connect` connects again for the next game.
async fn fail_game(ws: &mut Ws, code: u16, why: String, sinks: &Sinks, game: Option<&str>) -> Ended {
    sinks.log("connect", &format!("# the game is lost on this side ({code}): {why}"));
    if let (Some(tail), Some(game)) = (&sinks.tail, game) {
        // Its last words, for the organiser's record of the game (--share-stderr-tail):
        // a moment for them to come through its pipe first.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let text = tail.lock().unwrap_or_else(|e| e.into_inner()).take();
        let frame = tail_line(game, &text);
        sinks.log("connect", &frame);
        let _ = ws.send(Message::text(frame)).await;
    }
    // A close frame's reason holds at most 123 bytes.
    let mut reason = why.clone();
    while reason.len() > 123 {
        reason.pop();
    }
    let frame = CloseFrame { code: CloseCode::from(code), reason: reason.into() };
    let _ = tokio::time::timeout(Duration::from_secs(5), ws.close(Some(frame))).await;
    Ended::Lost(format!("the game was lost: {why}"))
}

fn describe(status: Option<std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(sig)) => format!("killed by signal {sig}"),
            _ => "ended".to_owned(),
        },
        None => "ended".to_owned(),
    }
}

/// Opens the connection: TCP, TLS for `wss://`, the WebSocket handshake with the token.
async fn open(
    opts: &ConnectOptions,
    tls: &Arc<tokio_rustls::rustls::ClientConfig>,
    resume: Option<&(String, u64)>,
) -> Result<Ws, ConnectError> {
    let mut request = opts
        .url
        .as_str()
        .into_client_request()
        .map_err(|e| ConnectError::Refused(format!("{}: not a ws:// or wss:// address: {e}", opts.url)))?;
    let bearer = format!("Bearer {}", opts.token)
        .parse()
        .map_err(|_| ConnectError::Refused("the token is not a valid header value".to_owned()))?;
    request.headers_mut().insert("authorization", bearer);
    // The game its process is in and the lines it has read, or `-` (the header also says
    // that this client takes the ends of games played while it was away).
    let offer = resume.map_or_else(|| "-".to_owned(), |(g, n)| format!("{g} {n}"));
    if let Ok(v) = offer.parse() {
        request.headers_mut().insert(RESUME_HEADER, v);
    }
    if opts.share_stderr_tail {
        request.headers_mut().insert(STDERR_TAIL_HEADER, "shared".parse().expect("a header value"));
    }
    let uri = request.uri().clone();
    let secure = match uri.scheme_str() {
        Some("wss") => true,
        Some("ws") => false,
        _ => return Err(ConnectError::Refused(format!("{}: the address must start with ws:// or wss://", opts.url))),
    };
    let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = uri.port_u16().unwrap_or(if secure { 443 } else { 80 });
    let tcp = tokio::time::timeout(Duration::from_secs(10), tokio::net::TcpStream::connect((host.as_str(), port)))
        .await
        .map_err(|_| ConnectError::Retry(format!("no TCP connection to {host}:{port} within 10 s")))?
        .map_err(|e| ConnectError::Retry(format!("cannot reach {host}:{port}: {e}")))?;
    let _ = tcp.set_nodelay(true);
    let io: Box<dyn ClientIo> = if secure {
        let name = tokio_rustls::rustls::pki_types::ServerName::try_from(host.clone())
            .map_err(|e| ConnectError::Refused(format!("{host}: {e}")))?;
        let stream = tokio_rustls::TlsConnector::from(tls.clone())
            .connect(name, tcp)
            .await
            .map_err(|e| ConnectError::Retry(format!("TLS with {host}:{port}: {e}")))?;
        Box::new(stream)
    } else {
        Box::new(tcp)
    };
    let config = WebSocketConfig::default().max_message_size(Some(64 << 20)).max_frame_size(Some(64 << 20));
    match tokio_tungstenite::client_async_with_config(request, io, Some(config)).await {
        Ok((ws, _)) => Ok(ws),
        Err(WsError::Http(resp)) => {
            // The host's words, shown in this terminal: sanitised.
            let body = resp.body().as_ref().map(|b| String::from_utf8_lossy(b).trim().to_owned()).unwrap_or_default();
            let body = crate::text::clean(&body);
            let why = format!("{} {}", resp.status(), body);
            if resp.status().as_u16() == 401 || resp.status().as_u16() == 403 {
                Err(ConnectError::Refused(why))
            } else {
                Err(ConnectError::Retry(why))
            }
        }
        Err(e) => Err(ConnectError::Retry(format!("WebSocket handshake: {}", crate::text::clean(&e.to_string())))),
    }
}

/// The client's TLS settings: the system's certificate authorities, and `ca` (PEM) if given.
fn tls_config(ca: Option<&std::path::Path>) -> Result<tokio_rustls::rustls::ClientConfig, String> {
    use tokio_rustls::rustls::pki_types::CertificateDer;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    let mut roots = tokio_rustls::rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    if let Some(path) = ca {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
            .map_err(|e| format!("--ca {}: {e}", path.display()))?
            .collect::<Result<_, _>>()
            .map_err(|e| format!("--ca {}: {e}", path.display()))?;
        if certs.is_empty() {
            return Err(format!("--ca {}: no certificate in it", path.display()));
        }
        for c in certs {
            roots.add(c).map_err(|e| format!("--ca {}: {e}", path.display()))?;
        }
    }
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    Ok(tokio_rustls::rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
