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
}

/// Close code (WebSocket, application range) of a connection whose bot's program ended
/// mid-game: the host records its game as lost with reason `crash`, the reason text saying
/// how it ended.
pub const CLOSE_CRASH: u16 = 4000;
/// Close code: the bot wrote a line longer than `--max-line` (reason `line_too_long`).
pub const CLOSE_LINE_TOO_LONG: u16 = 4001;
/// Close code: the bot wrote a line that is not UTF-8 (reason `invalid_utf8`).
pub const CLOSE_INVALID_UTF8: u16 = 4002;

/// Exit code: the host refused the token.
pub const EXIT_REFUSED: i32 = 2;
/// Exit code: no connection could be made within `--retry-s`.
pub const EXIT_UNREACHABLE: i32 = 1;

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

/// The watcher of `connect`'s bot groups: a process forked by [`Guardian::start`] that kills
/// every group it was told of ([`Guardian::watch`]) once `connect` is gone (the end of a
/// pipe whose writing end only `connect` holds), whatever ended it.
#[derive(Debug)]
pub struct Guardian {
    pipe: std::os::fd::OwnedFd,
}

/// The most bot groups a guardian keeps (`connect` runs one bot at a time).
const GUARDED: usize = 64;

impl Guardian {
    /// Forks the guardian. Must be called while the process has one thread (before a
    /// runtime starts): the child runs only async-signal-safe calls anyway.
    ///
    /// # Errors
    /// No pipe or no fork.
    pub fn start() -> std::io::Result<Guardian> {
        use std::os::fd::FromRawFd;
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 writes two descriptors into the array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let [read_end, write_end] = fds;
        // SAFETY: the child makes only async-signal-safe calls (signal, close, read, kill,
        // _exit) and never returns.
        match unsafe { libc::fork() } {
            -1 => {
                let e = std::io::Error::last_os_error();
                // SAFETY: both descriptors are ours.
                unsafe {
                    libc::close(read_end);
                    libc::close(write_end);
                }
                Err(e)
            }
            // SAFETY: see above.
            0 => unsafe { guard(read_end, write_end) },
            _ => {
                // SAFETY: the read end is ours, and closed once; the write end is owned.
                unsafe { libc::close(read_end) };
                Ok(Guardian { pipe: unsafe { std::os::fd::OwnedFd::from_raw_fd(write_end) } })
            }
        }
    }

    /// The group `pgid` is to be killed when `connect` ends (positive), or no more
    /// (negative: it is gone).
    fn tell(&self, pgid: i32) {
        use std::os::fd::AsRawFd;
        let bytes = pgid.to_ne_bytes();
        // SAFETY: writes 4 bytes from a live array to a descriptor we own (a pipe: 4 bytes
        // go whole).
        let _ = unsafe { libc::write(self.pipe.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
    }
}

/// The guardian's life: remembers the groups it is told of until the pipe ends, then kills
/// them all.
///
/// # Safety
/// Only in the child of a fork, with the pipe's two ends.
unsafe fn guard(read_end: i32, write_end: i32) -> ! {
    // SAFETY: async-signal-safe calls on plain integers and a stack array.
    unsafe {
        libc::close(write_end);
        // It writes nothing: it holds no one's output open.
        for fd in 0..=2 {
            libc::close(fd);
        }
        // A Ctrl-C or a kill of connect's process group must not end the guardian first.
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
        let mut groups = [0i32; GUARDED];
        let mut buf = [0u8; 4];
        loop {
            let n = libc::read(read_end, buf.as_mut_ptr().cast(), 4);
            if n == 4 {
                let g = i32::from_ne_bytes(buf);
                if g > 0 {
                    if let Some(slot) = groups.iter_mut().find(|s| **s == 0) {
                        *slot = g;
                    }
                } else if let Some(slot) = groups.iter_mut().find(|s| **s == -g) {
                    *slot = 0;
                }
                continue;
            }
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            break;
        }
        for g in groups {
            if g > 0 {
                libc::kill(-g, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }
}

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

impl Bot {
    fn spawn(
        command: &[String],
        max_line: usize,
        setup: ChildSetup,
        guardian: Option<&Arc<Guardian>>,
    ) -> Result<Bot, String> {
        let mut cmd = tokio::process::Command::new(&command[0]);
        cmd.args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
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
        Ok(Bot { child, stdin: Some(stdin), lines, quitting: false, over: false, pgid, guardian: guardian.cloned() })
    }
}

/// Runs `connect` until the host ends the event (closes with "the event is over"), the
/// token is refused, or no connection can be made for `retry_for`. Each bot process is
/// started with `setup` (see [`ChildSetup`]) in a process group of its own, told to
/// `guardian` (see [`Guardian`]). Returns the exit code.
pub async fn run(opts: ConnectOptions, setup: ChildSetup, guardian: Option<Arc<Guardian>>) -> i32 {
    let tls = match tls_config(opts.ca.as_deref()) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {e}"));
            return EXIT_REFUSED;
        }
    };
    let mut bot: Option<Bot> = None;
    let mut backoff = Duration::from_millis(100);
    let mut unreachable_since = Instant::now();
    loop {
        let ws = match open(&opts, &tls).await {
            Ok(ws) => ws,
            Err(ConnectError::Refused(why)) => {
                crate::notice::say(
                    crate::notice::Level::Always,
                    format!("stratego-host connect: the host refused the connection: {why}"),
                );
                return EXIT_REFUSED;
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
                    return EXIT_UNREACHABLE;
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
        backoff = Duration::from_millis(100);
        // Lines the bot wrote while there was no connection answered requests the host
        // will make again: they are dropped.
        if let Some(b) = bot.as_mut() {
            while b.lines.try_recv().is_ok() {}
        }
        match relay(ws, &mut bot, &opts, setup, guardian.as_ref()).await {
            Ended::Over => {
                crate::notice::say(crate::notice::Level::Always, "stratego-host connect: the host ended the event");
                if let Some(mut b) = bot.take() {
                    drop(b.stdin.take());
                    let _ = tokio::time::timeout(Duration::from_secs(2), b.child.wait()).await;
                }
                return 0;
            }
            Ended::Lost(why) => {
                crate::notice::say(
                    crate::notice::Level::Always,
                    format!("stratego-host connect: connection lost: {why}; connecting again"),
                );
                unreachable_since = Instant::now();
            }
        }
    }
}

/// How a connection ended.
enum Ended {
    /// The host closed it at the end of the event.
    Over,
    /// Lost; connect again.
    Lost(String),
}

/// Carries lines both ways over one connection.
async fn relay(
    mut ws: Ws,
    bot: &mut Option<Bot>,
    opts: &ConnectOptions,
    setup: ChildSetup,
    guardian: Option<&Arc<Guardian>>,
) -> Ended {
    let mut heartbeat = tokio::time::interval(opts.heartbeat);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_seen = Instant::now();
    loop {
        let bot_line = async {
            match bot.as_mut() {
                Some(b) => b.lines.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            frame = ws.next() => {
                last_seen = Instant::now();
                match frame {
                    Some(Ok(Message::Text(t))) => {
                        let line = t.as_str();
                        let hello = line.starts_with(r#"{"type":"hello""#);
                        // A bot told to quit (or, at a new game's hello, one whose game is
                        // over) ends before the next game's first line.
                        if let Some(mut old) = bot.take_if(|b| b.quitting || (hello && b.over)) {
                            drop(old.stdin.take());
                            if tokio::time::timeout(Duration::from_secs(2), old.child.wait()).await.is_err() {
                                let _ = old.child.start_kill();
                                let _ = old.child.wait().await;
                            }
                            // What it said after quit (info lines) goes to the host.
                            while let Ok(Ok(l)) = old.lines.try_recv() {
                                let _ = ws.send(Message::text(l)).await;
                            }
                        }
                        if bot.is_none() {
                            match Bot::spawn(&opts.command, opts.max_line, setup, guardian) {
                                Ok(b) => *bot = Some(b),
                                Err(e) => {
                                    crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {e}"));
                                    return fail_game(ws, CLOSE_CRASH, e).await;
                                }
                            }
                        }
                        let b = bot.as_mut().expect("started above");
                        if line.starts_with(r#"{"type":"quit""#) {
                            b.quitting = true;
                        } else if line.starts_with(r#"{"type":"game_over""#) {
                            b.over = true;
                        } else if hello {
                            // The same game's hello again (after a reconnection), or the next.
                            b.over = false;
                        }
                        let mut bytes = Vec::with_capacity(line.len() + 1);
                        bytes.extend_from_slice(line.as_bytes());
                        bytes.push(b'\n');
                        let Some(stdin) = b.stdin.as_mut() else { continue };
                        if let Err(e) = stdin.write_all(&bytes).await {
                            // Its exit is seen next.
                            tracing::debug!("writing to the bot: {e}");
                        }
                    }
                    Some(Ok(Message::Ping(_))) => {
                        let _ = ws.flush().await;
                    }
                    Some(Ok(Message::Close(frame))) => {
                        // The host's words, shown in this terminal: sanitised.
                        let why = frame.map(|f| crate::terminal_text::clean(&f.reason).into_owned()).unwrap_or_default();
                        if why == "the event is over" {
                            return Ended::Over;
                        }
                        return Ended::Lost(format!("the host closed the connection ({why})"));
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Ended::Lost(crate::terminal_text::clean(&e.to_string()).into_owned()),
                    None => return Ended::Lost("the connection closed".to_owned()),
                }
            }
            line = bot_line => {
                match line {
                    Some(Ok(line)) => {
                        if let Err(e) = ws.send(Message::text(line)).await {
                            return Ended::Lost(format!("writing to the host failed: {e}"));
                        }
                    }
                    Some(Err((code, why))) => {
                        crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {why}; the bot is stopped"));
                        *bot = None;
                        return fail_game(ws, code, why).await;
                    }
                    // Its output closed: its exit comes next.
                    None => {
                        if let Some(b) = bot.as_mut() {
                            let status = match tokio::time::timeout(Duration::from_secs(2), b.child.wait()).await {
                                Ok(s) => s.ok(),
                                Err(_) => {
                                    let _ = b.child.start_kill();
                                    b.child.wait().await.ok()
                                }
                            };
                            let expected = b.quitting || b.over;
                            *bot = None;
                            if !expected {
                                let why = format!("the bot's program ended mid-game ({})", describe(status));
                                crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {why}"));
                                return fail_game(ws, CLOSE_CRASH, why).await;
                            }
                        }
                    }
                }
            }
            _ = heartbeat.tick() => {
                if last_seen.elapsed() >= opts.silence {
                    return Ended::Lost(format!("nothing from the host for {:.1} s", opts.silence.as_secs_f64()));
                }
                if let Err(e) = ws.send(Message::Ping(Vec::new().into())).await {
                    return Ended::Lost(format!("writing to the host failed: {e}"));
                }
            }
        }
    }
}

/// The bot failed its game: the host is told why in the close frame (it records the game
/// as lost with the matching reason), and `connect` connects again for the next game.
async fn fail_game(mut ws: Ws, code: u16, why: String) -> Ended {
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
async fn open(opts: &ConnectOptions, tls: &Arc<tokio_rustls::rustls::ClientConfig>) -> Result<Ws, ConnectError> {
    let mut request = opts
        .url
        .as_str()
        .into_client_request()
        .map_err(|e| ConnectError::Refused(format!("{}: not a ws:// or wss:// address: {e}", opts.url)))?;
    let bearer = format!("Bearer {}", opts.token)
        .parse()
        .map_err(|_| ConnectError::Refused("the token is not a valid header value".to_owned()))?;
    request.headers_mut().insert("authorization", bearer);
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
            let body = crate::terminal_text::clean(&body);
            let why = format!("{} {}", resp.status(), body);
            if resp.status().as_u16() == 401 || resp.status().as_u16() == 403 {
                Err(ConnectError::Refused(why))
            } else {
                Err(ConnectError::Retry(why))
            }
        }
        Err(e) => {
            Err(ConnectError::Retry(format!("WebSocket handshake: {}", crate::terminal_text::clean(&e.to_string()))))
        }
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
