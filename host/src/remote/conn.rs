//! One remote bot's connection: what the hub's task for it does once it is authenticated
//! (frames to lines stamped with their arrival, lines to frames, pings and the round trips
//! they measure, the limits of frames, inbox and writes), and the look at a request's head
//! that tells a bot's WebSocket upgrade from a page's request on a shared port. The
//! listener and the registry of bots are [`crate::remote::hub`]. Also the types a session
//! holds a connection by ([`Link`], [`Owed`]), the TLS config and the address key of the
//! connection limits.

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use crate::reason::{Fault, Reason};
use crate::remote::lag::RttWindow;

/// Lines a connection holds that its session has not read yet; a bot that sends more
/// without being asked is disconnected (its memory on the host stays bounded).
pub const INBOX: usize = 256;

/// What a connection tells its session.
#[derive(Debug)]
pub enum Incoming {
    /// A protocol line (one text frame) and when it arrived.
    Line(String, Instant),
    /// A frame that breaks the rules (the connection is closed after it).
    Fault(Fault),
    /// The connection is gone, and why.
    Gone(String),
}

/// A line for the bot, and where to say when it was written.
#[derive(Debug)]
pub struct Outgoing {
    /// The protocol line, without its line ending.
    pub line: String,
    /// Told the moment the frame went into the socket.
    pub written: Option<oneshot::Sender<Instant>>,
}

/// What a connection measures, shared with its session.
#[derive(Debug, Default)]
pub struct ConnStats {
    /// A request is out (the bot thinks): round trips measured now are not taken.
    pub thinking: AtomicBool,
    /// Recent round trips.
    pub rtt: Mutex<RttWindow>,
    /// Bytes of frames sent and received.
    pub bytes_sent: AtomicU64,
    /// Bytes of frames received.
    pub bytes_received: AtomicU64,
    /// Its `connect` client shares the bot's stderr tail (it sent the header
    /// `X-Stratego-Stderr-Tail: shared`): one comes after each `game_over`.
    pub shares_stderr: AtomicBool,
    /// Its client sent the header `X-Stratego-Resume` (a `connect` client that takes up a
    /// game again and is told of the games that ended while it was away).
    pub resumable: AtomicBool,
    /// The last stderr tail it sent (`{"type":"stderr_tail",…}`): the game's id and the text.
    pub stderr_tail: Mutex<Option<(String, String)>>,
}

/// How a stderr tail line of a `connect` client starts (see
/// [`crate::remote::client::STDERR_TAIL`]).
const STDERR_TAIL_LINE: &str = r#"{"type":"stderr_tail""#;

/// The limits a connection's task keeps (from [`crate::remote::hub::ListenOptions`]).
#[derive(Clone, Copy, Debug)]
pub struct ConnLimits {
    /// A ping this often.
    pub heartbeat: Duration,
    /// No frame at all for this long: the connection is gone (and a write that waits this
    /// long fails).
    pub silence: Duration,
    /// Longest frame (one protocol line), `--max-line`.
    pub max_line: usize,
}

/// Reads (without taking it from the socket) a request's head until it is whole, at most
/// 8 KiB, until `deadline`: whether it asks for a WebSocket upgrade (`Upgrade: websocket`),
/// or why nothing usable came.
pub async fn sniff(stream: &tokio::net::TcpStream, deadline: tokio::time::Instant) -> Result<bool, String> {
    let mut buf = vec![0u8; 8192];
    let mut seen = 0;
    loop {
        let n = match tokio::time::timeout_at(deadline, stream.peek(&mut buf)).await {
            Err(_) => return Err("no request head within the handshake limit".to_owned()),
            Ok(Err(e)) => return Err(format!("reading its request: {e}")),
            Ok(Ok(0)) => return Err("closed before its request".to_owned()),
            Ok(Ok(n)) => n,
        };
        let head = &buf[..n];
        if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(is_upgrade(&head[..end]));
        }
        if n == buf.len() {
            // Too long a head for either: the page answers it (431).
            return Ok(false);
        }
        if n == seen {
            // Nothing new yet: peek returns at once while anything is waiting.
            if tokio::time::timeout_at(deadline, tokio::time::sleep(Duration::from_millis(10))).await.is_err() {
                return Err("no whole request head within the handshake limit".to_owned());
            }
        }
        seen = n;
    }
}

/// Whether a request head has the header `Upgrade: websocket`.
fn is_upgrade(head: &[u8]) -> bool {
    String::from_utf8_lossy(head).split("\r\n").skip(1).any(|line| {
        line.split_once(':').is_some_and(|(name, value)| {
            name.trim().eq_ignore_ascii_case("upgrade")
                && value.split(',').any(|v| v.trim().eq_ignore_ascii_case("websocket"))
        })
    })
}

/// The fault a `connect` client reports in its close frame (see
/// [`crate::remote::client::CLOSE_CRASH`]), if the code is one of its.
fn client_fault(code: u16, reason: &str) -> Option<Fault> {
    use crate::remote::client::{CLOSE_CRASH, CLOSE_INVALID_UTF8, CLOSE_LINE_TOO_LONG};
    let reason_code = match code {
        CLOSE_CRASH => Reason::Crash,
        CLOSE_LINE_TOO_LONG => Reason::LineTooLong,
        CLOSE_INVALID_UTF8 => Reason::InvalidUtf8,
        _ => return None,
    };
    let said = crate::text::clean(reason);
    Some(Fault::new(reason_code, format!("on the entrant's side (its connect client says): {said}")))
}

/// The streams a connection may run over (plain TCP, or TLS over it).
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// The kernel's smallest round trip measured on TCP socket `fd` (`tcpi_min_rtt` of
/// `TCP_INFO`, else its smoothed `tcpi_rtt`): from the acknowledgements of the entrant's
/// kernel, which the bot cannot delay as it can its pongs. `None` when not available.
fn kernel_min_rtt(fd: std::os::fd::RawFd) -> Option<Duration> {
    // struct tcp_info (linux/tcp.h): tcpi_rtt at byte 68, tcpi_min_rtt at byte 148 (Linux
    // 4.9 and later; a shorter answer means an older kernel).
    const RTT: usize = 68;
    const MIN_RTT: usize = 148;
    let mut buf = [0u8; 256];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `buf` and the length into `len`.
    let r = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, buf.as_mut_ptr().cast(), &raw mut len) };
    if r != 0 {
        return None;
    }
    let field = |at: usize| -> Option<u32> {
        (len as usize >= at + 4).then(|| u32::from_ne_bytes(buf[at..at + 4].try_into().expect("4 bytes")))
    };
    let us = field(MIN_RTT).filter(|&v| v != 0 && v != u32::MAX).or_else(|| field(RTT).filter(|&v| v != 0))?;
    Some(Duration::from_micros(u64::from(us)))
}

/// Serves an authenticated connection until it is gone; returns why. A round trip
/// measured by a ping and its pong counts at most the kernel's own estimate on `fd` (a bot
/// that delays its pongs gains no lag credit by it).
#[allow(clippy::too_many_arguments)]
pub async fn serve(
    ws: WebSocketStream<Box<dyn Io>>,
    fd: std::os::fd::RawFd,
    mut out_rx: mpsc::Receiver<Outgoing>,
    in_tx: mpsc::Sender<Incoming>,
    stats: Arc<ConnStats>,
    options: &ConnLimits,
    mut closing: tokio::sync::watch::Receiver<bool>,
) -> String {
    let mut heartbeat = tokio::time::interval(options.heartbeat);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut c = Served { ws, fd, in_tx, stats, limits: *options, last_seen: Instant::now(), seq: 0, ping_out: None };
    loop {
        let ended = tokio::select! {
            frame = c.ws.next() => c.on_frame(frame).await,
            out = out_rx.recv() => c.on_outgoing(out).await,
            () = async { let _ = closing.wait_for(|&c| c).await; } => {
                let _ = tokio::time::timeout(
                    Duration::from_secs(1),
                    c.ws.close(Some(CloseFrame { code: CloseCode::Normal, reason: "the event is over".into() })),
                )
                .await;
                Some("the event is over".to_owned())
            }
            _ = heartbeat.tick() => c.on_heartbeat().await,
        };
        if let Some(why) = ended {
            return why;
        }
    }
}

/// What [`serve`] keeps of a connection between its events.
struct Served {
    ws: WebSocketStream<Box<dyn Io>>,
    fd: std::os::fd::RawFd,
    in_tx: mpsc::Sender<Incoming>,
    stats: Arc<ConnStats>,
    limits: ConnLimits,
    last_seen: Instant,
    seq: u64,
    /// The ping out, when it was sent and whether the bot was thinking then.
    ping_out: Option<(u64, Instant, bool)>,
}

/// Why a write that failed or waited too long ends the connection.
fn write_failed(result: Result<Result<(), WsError>, tokio::time::error::Elapsed>, limit: Duration) -> Option<String> {
    match result {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("writing to it failed: {e}")),
        Err(_) => Some(format!("it read nothing for {} s", limit.as_secs_f64())),
    }
}

impl Served {
    /// The connection is gone: its session is told why.
    fn gone(&self, why: String) -> Option<String> {
        let _ = self.in_tx.try_send(Incoming::Gone(why.clone()));
        Some(why)
    }

    /// A frame came (or the stream ended): `Some(why)` when the connection ends.
    async fn on_frame(&mut self, frame: Option<Result<Message, WsError>>) -> Option<String> {
        let now = Instant::now();
        self.last_seen = now;
        let max_line = self.limits.max_line;
        match frame {
            None => self.gone("the connection closed".to_owned()),
            Some(Ok(Message::Text(t))) => self.on_text(t.as_str(), now).await,
            Some(Ok(Message::Binary(b))) => {
                self.stats.bytes_received.fetch_add(b.len() as u64, Ordering::Relaxed);
                let f = Fault::new(
                    Reason::MalformedJson,
                    "it sent a binary frame (protocol lines go in text frames, one line a frame)",
                );
                let _ = self.in_tx.try_send(Incoming::Fault(f));
                let _ = self
                    .ws
                    .close(Some(CloseFrame {
                        code: CloseCode::Unsupported,
                        reason: "binary frames are not protocol lines".into(),
                    }))
                    .await;
                self.gone("it sent a binary frame".to_owned())
            }
            Some(Ok(Message::Ping(_))) => {
                // tungstenite queued the pong (one at most); send it now. A client that
                // pings without reading its pongs is gone once they cannot go.
                let limit = self.limits.silence;
                let why = write_failed(tokio::time::timeout(limit, self.ws.flush()).await, limit)?;
                self.gone(why)
            }
            Some(Ok(Message::Pong(p))) => {
                self.on_pong(p.as_ref(), now);
                None
            }
            Some(Ok(Message::Close(frame))) => {
                // `connect` says in its close frame when the bot lost its game on the
                // entrant's side (its program died, or wrote a forbidden line).
                if let Some(f) = frame.as_ref().and_then(|f| client_fault(u16::from(f.code), &f.reason)) {
                    let why = f.message.clone();
                    let _ = self.in_tx.try_send(Incoming::Fault(f));
                    return self.gone(why);
                }
                let why = frame
                    .map(|f| format!(" ({}: {})", u16::from(f.code), crate::text::clean(&f.reason)))
                    .unwrap_or_default();
                self.gone(format!("the bot's side closed the connection{why}"))
            }
            Some(Ok(Message::Frame(_))) => None,
            Some(Err(WsError::Capacity(e))) => {
                let f = Fault::new(
                    Reason::LineTooLong,
                    format!("it sent a frame longer than the limit of {max_line} bytes ({e})"),
                );
                let _ = self.in_tx.try_send(Incoming::Fault(f));
                let _ =
                    self.ws.close(Some(CloseFrame { code: CloseCode::Size, reason: "frame too long".into() })).await;
                self.gone(format!("it sent a frame longer than {max_line} bytes"))
            }
            Some(Err(WsError::Utf8(_))) => {
                let f = Fault::new(Reason::InvalidUtf8, "it sent a text frame that is not valid UTF-8");
                let _ = self.in_tx.try_send(Incoming::Fault(f));
                self.gone("it sent a text frame that is not valid UTF-8".to_owned())
            }
            Some(Err(e)) => self.gone(format!("{e}")),
        }
    }

    /// A text frame: one protocol line for the session (or its client's stderr tail).
    async fn on_text(&mut self, text: &str, now: Instant) -> Option<String> {
        self.stats.bytes_received.fetch_add(text.len() as u64 + 1, Ordering::Relaxed);
        let line = text.strip_suffix('\n').unwrap_or(text);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.contains('\n') {
            let f = Fault::new(
                Reason::MalformedJson,
                "it sent a frame of several lines (one protocol line per text frame)",
            );
            let _ = self.in_tx.try_send(Incoming::Fault(f));
            let _ = self
                .ws
                .close(Some(CloseFrame { code: CloseCode::Policy, reason: "one protocol line per text frame".into() }))
                .await;
            return self.gone("it sent a frame of several lines".to_owned());
        }
        if line.starts_with(STDERR_TAIL_LINE) {
            // Its connect client's, not the bot's: the game's stderr tail.
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                let game = v["game_id"].as_str().unwrap_or_default().to_owned();
                let text = v["text"].as_str().unwrap_or_default().to_owned();
                *self.stats.stderr_tail.lock().unwrap_or_else(|e| e.into_inner()) = Some((game, text));
            }
            return None;
        }
        if let Err(e) = self.in_tx.try_send(Incoming::Line(line.to_owned(), now)) {
            if matches!(e, mpsc::error::TrySendError::Closed(_)) {
                return Some("the event is over".to_owned());
            }
            let _ = self
                .ws
                .close(Some(CloseFrame {
                    code: CloseCode::Policy,
                    reason: format!("more than {INBOX} lines nobody asked for").into(),
                }))
                .await;
            return self.gone(format!("it sent more than {INBOX} lines that nobody asked for"));
        }
        // A ping right after each line from the bot (an answer: it thinks no more), ahead of
        // its next request: the round trip of the network.
        self.ping(false).await
    }

    /// Sends the next ping; `thinking`: whether the bot thinks now (its round trip is then
    /// not taken).
    async fn ping(&mut self, thinking: bool) -> Option<String> {
        self.seq += 1;
        let limit = self.limits.silence;
        let sent =
            tokio::time::timeout(limit, self.ws.send(Message::Ping(self.seq.to_be_bytes().to_vec().into()))).await;
        match write_failed(sent, limit) {
            None => {
                self.ping_out = Some((self.seq, Instant::now(), thinking));
                None
            }
            Some(why) => self.gone(why),
        }
    }

    /// A pong: the round trip of the ping it answers, when that went out while the bot was
    /// not thinking (at most the kernel's estimate).
    fn on_pong(&mut self, payload: &[u8], now: Instant) {
        let Some((s, sent, thinking)) = self.ping_out else { return };
        if payload != &s.to_be_bytes()[..] {
            return;
        }
        self.ping_out = None;
        // Only pings sent outside the bot's thinking measure the network (they go ahead of
        // its next request).
        if !thinking {
            let mut rtt = now - sent;
            if let Some(kernel) = kernel_min_rtt(self.fd) {
                rtt = rtt.min(kernel);
            }
            self.stats.rtt.lock().unwrap_or_else(|e| e.into_inner()).push(rtt);
        }
    }

    /// A line for the bot (or `None`: nobody holds the connection any more, the run ends).
    async fn on_outgoing(&mut self, out: Option<Outgoing>) -> Option<String> {
        let Some(Outgoing { line, written }) = out else {
            let _ = self.ws.close(Some(CloseFrame { code: CloseCode::Away, reason: "the event is over".into() })).await;
            return Some("the event is over".to_owned());
        };
        let n = line.len() as u64 + 1;
        let limit = self.limits.silence;
        if let Some(why) = write_failed(tokio::time::timeout(limit, self.ws.send(Message::text(line))).await, limit) {
            return self.gone(why);
        }
        self.stats.bytes_sent.fetch_add(n, Ordering::Relaxed);
        if let Some(w) = written {
            let _ = w.send(Instant::now());
        }
        None
    }

    /// The heartbeat: gone after [`ConnLimits::silence`] without a frame, else a ping.
    async fn on_heartbeat(&mut self) -> Option<String> {
        let silence = self.limits.silence;
        if Instant::now().duration_since(self.last_seen) >= silence {
            let _ = self.ws.close(Some(CloseFrame { code: CloseCode::Away, reason: "silent too long".into() })).await;
            return self.gone(format!("nothing came for {:.1} s (heartbeats unanswered)", silence.as_secs_f64()));
        }
        let thinking = self.stats.thinking.load(Ordering::SeqCst);
        self.ping(thinking).await
    }
}

/// One live connection of a bot, as a session holds it.
#[derive(Debug)]
pub struct Link {
    /// Which connection (counts up over the run).
    pub id: u64,
    /// Where it comes from.
    pub peer: SocketAddr,
    /// Lines to the bot.
    pub tx: mpsc::Sender<Outgoing>,
    /// Lines from the bot.
    pub rx: mpsc::Receiver<Incoming>,
    /// Its measurements.
    pub stats: Arc<ConnStats>,
    /// Requests sent on this connection whose answer has not come yet, oldest first (at
    /// most [`OWED`]): an answer that comes later for one of them (one past its deadline,
    /// or for a game that has ended) is tied to it and dropped, never taken for the answer
    /// to a later request. A new connection owes nothing (its `connect` client drops what
    /// the bot wrote while it was not connected, unless the connection is resumed).
    pub owed: VecDeque<Owed>,
    /// What its `connect` client said in its `X-Stratego-Resume` header: the game its
    /// bot's process (still running from a lost connection) was in, and how many of that
    /// game's lines it had read. `None`: no such process.
    pub resume: Option<(String, u64)>,
}

/// Requests a connection remembers as unanswered (see [`Link::owed`]).
pub const OWED: usize = 32;

/// What answers a request: `ready` a `hello`, `setup` a `setup_request`, `move` (or
/// `resign`) a `turn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `ready`.
    Ready,
    /// `setup`.
    Setup,
    /// `move` or `resign`.
    Move,
}

/// A request sent and not answered yet (see [`Link::owed`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owed {
    /// What would answer it.
    pub answer: Answer,
    /// The game it was for.
    pub game_id: String,
    /// The turn's `ply`, for a turn.
    pub ply: Option<u32>,
}

/// Loads a certificate chain and its private key (PEM files) into a TLS server config.
///
/// # Errors
/// A file that cannot be read or holds no certificate or key, or a key that does not fit.
pub fn load_tls(cert: &std::path::Path, key: &std::path::Path) -> Result<tokio_rustls::rustls::ServerConfig, String> {
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?;
    if certs.is_empty() {
        return Err(format!("--tls-cert {}: no certificate in it", cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("--tls-key {}: {e}", key.display()))?;
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    tokio_rustls::rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("--tls-cert/--tls-key: {e}"))
}

/// The address connections are counted by: an IPv4 address, or an IPv6 address's /64 (one
/// subnet, what one machine or home is given), an IPv4-mapped IPv6 address as its IPv4.
pub fn addr_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(std::net::Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_counted_by_ipv4_address_and_by_ipv6_64() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(addr_key(ip("127.0.0.2")), ip("127.0.0.2"));
        assert_ne!(addr_key(ip("127.0.0.2")), addr_key(ip("127.0.0.3")));
        // One /64: one address, whatever its last 64 bits.
        assert_eq!(addr_key(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(addr_key(ip("2001:db8:1:2:ffff:1:2:3")), addr_key(ip("2001:db8:1:2::9")));
        assert_ne!(addr_key(ip("2001:db8:1:2::1")), addr_key(ip("2001:db8:1:3::1")));
        // An IPv4 client on a dual-stack listener is its IPv4 address.
        assert_eq!(addr_key(ip("::ffff:10.1.2.3")), ip("10.1.2.3"));
    }
}
