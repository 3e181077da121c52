//! The organiser's side of remote bots: a WebSocket listener (TLS, or plain for loopback
//! tests) where remote bots connect out with their token, and the registry that hands a
//! game the connection of its bot.
//!
//! Each connection is served by one task that owns the socket: it turns each text frame into
//! one protocol line (stamped with its arrival), writes the session's lines as text frames
//! (and says when each was written), sends a ping every [`ListenOptions::heartbeat`] and
//! measures the round trip from its pong (outside the bot's thinking only: see
//! [`crate::remote::lag`]), and declares the connection gone after
//! [`ListenOptions::silence`] without any frame. Everything is bounded: frame size
//! (`--max-line`), lines waiting to be read ([`INBOX`]), the socket's write buffer, the
//! handshake's time, connections in all and connections not yet authenticated per address.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, mpsc, oneshot};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};

use crate::remote::client::{RESUME_HEADER, STDERR_TAIL_HEADER};
pub use crate::remote::conn::{Answer, ConnStats, INBOX, Incoming, Link, OWED, Outgoing, Owed, addr_key, load_tls};
use crate::remote::conn::{ConnLimits, Io, serve, sniff};
use crate::remote::token::{self, TokenHash};

/// How the host listens for remote bots (`--listen` and the flags beside it).
#[derive(Clone)]
pub struct ListenOptions {
    /// `--listen ADDR`.
    pub addr: String,
    /// `--tls-cert`/`--tls-key`, loaded.
    pub tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
    /// `--connect-timeout`: how long a game waits for a remote bot that is not connected.
    pub connect_timeout: Duration,
    /// `--reconnect-s`: the time away a bot has in one game: how long, summed over the
    /// game, it may be without its connection while the game waits for it (its clock
    /// paused; see [`crate::session::remote_session`]).
    pub reconnect: Duration,
    /// `--reconnect-event-s`: the same, summed over the bot's games of the whole event.
    pub reconnect_event: Duration,
    /// `--handshake-timeout-ms`: TLS and WebSocket handshake, token included.
    pub handshake_timeout: Duration,
    /// `--max-connections`: connections at once, authenticated or not.
    pub max_connections: usize,
    /// `--max-unauthenticated`: connections per address still in their handshake.
    pub max_unauthenticated_per_ip: usize,
    /// A ping this often.
    pub heartbeat: Duration,
    /// No frame at all for this long: the connection is gone.
    pub silence: Duration,
    /// Longest frame (one protocol line), `--max-line`.
    pub max_line: usize,
    /// What the hub shares with the run's live page (`--serve`).
    pub page: Arc<PageLink>,
}

/// Takes a plain HTTP connection that came to the `--listen` port (see [`PageLink::http`]).
pub type HttpHandoff = Arc<dyn Fn(std::net::TcpStream) + Send + Sync>;

/// What the hub and the run's live page share: the one listener when `--serve` names the
/// `--listen` address, and the remote bots' connection states for the page's table.
#[derive(Default)]
pub struct PageLink {
    /// Set by the live page when `--serve` is the `--listen` address (plain WebSocket
    /// only): every connection whose request is not a WebSocket upgrade is handed to it.
    pub http: std::sync::OnceLock<HttpHandoff>,
    /// Set by the hub when it starts.
    pub hub: std::sync::OnceLock<std::sync::Weak<Hub>>,
}

impl std::fmt::Debug for PageLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageLink").field("http", &self.http.get().is_some()).finish_non_exhaustive()
    }
}

/// A remote bot's connection, as the live page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteStatus {
    /// Its name.
    pub name: String,
    /// Connected now.
    pub connected: bool,
    /// Times it connected in this run.
    pub connections: u64,
    /// The recent median one-way lag the host measured (half the median round trip).
    pub one_way_lag: Option<Duration>,
}

impl std::fmt::Debug for ListenOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListenOptions")
            .field("addr", &self.addr)
            .field("tls", &self.tls.is_some())
            .field("connect_timeout", &self.connect_timeout)
            .field("reconnect", &self.reconnect)
            .finish_non_exhaustive()
    }
}

/// A remote bot the hub admits: its name and the hashes of its tokens.
#[derive(Clone, Debug)]
pub struct RemoteBot {
    /// Its name in the event.
    pub name: String,
    /// The SHA-256 of each token that may connect as it.
    pub tokens: Vec<TokenHash>,
}

/// Games that ended while a bot was away whose `game_over` a hub keeps for its next
/// connection.
pub const MISSED: usize = 4;

/// One remote bot's place in the hub.
#[derive(Debug, Default)]
struct Slot {
    /// The connection, while no game holds it.
    idle: Option<Link>,
    /// The current connection's measurements.
    stats: Option<Arc<ConnStats>>,
    /// Times it connected.
    connections: u64,
    /// The id of its connection while it is connected.
    connected_id: Option<u64>,
    /// A game holds its connection (or waits to get it back after a loss).
    leased: bool,
    /// Time away (its connection lost while a game waited for it) over the event so far.
    away: Duration,
    /// `game_over` lines of games that ended while it was away, for its next connection
    /// (at most [`MISSED`], the newest).
    missed: VecDeque<String>,
}

/// Why a game gets no connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaseError {
    /// It never connected (or was not connected) within the wait.
    NotConnected(Duration),
}

/// The listener and the registry of remote bots' connections.
pub struct Hub {
    /// The remote bots by the executor's bot id (`None`: a local bot); an arena admits more
    /// while it runs ([`Hub::admit`]).
    bots: std::sync::RwLock<Vec<Option<Arc<HubBot>>>>,
    options: ListenOptions,
    local_addr: SocketAddr,
    next_id: AtomicU64,
    connections: AtomicUsize,
    /// Connections that passed their handshake and serve a bot now.
    authenticated: AtomicUsize,
    /// Connections still in their handshake, by address ([`addr_key`]).
    unauthenticated: Mutex<HashMap<IpAddr, Vec<Pending>>>,
    /// Refused connections (bad token, limits), for the tests and the log.
    pub refused: AtomicU64,
    /// The refusals' log lines, rate-limited.
    refusal_log: Mutex<RefusalLog>,
    /// Turns true when the event is over: every connection is closed, saying so.
    closing: tokio::sync::watch::Sender<bool>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").field("local_addr", &self.local_addr).finish_non_exhaustive()
    }
}

/// A remote bot the hub admits, and its connection.
struct HubBot {
    bot: RemoteBot,
    slot: Mutex<Slot>,
    notify: Notify,
    /// Where its token hashes come from (its token files are read again at each
    /// handshake: a revoked token admits nobody from then on).
    source: token::TokenSource,
}

impl HubBot {
    fn new(bot: RemoteBot) -> Arc<HubBot> {
        let source = token::TokenSource::of(&bot.tokens);
        Arc::new(HubBot { bot, slot: Mutex::new(Slot::default()), notify: Notify::new(), source })
    }
}

/// Lines of each kind of refusal logged in a window.
pub const REFUSALS_SHOWN: u32 = 10;
/// The window of [`REFUSALS_SHOWN`].
pub const REFUSAL_WINDOW: Duration = Duration::from_secs(10);

/// Refusals logged and not logged in the current window.
#[derive(Debug, Default)]
struct RefusalLog {
    /// When the window began (its first refusal).
    since: Option<Instant>,
    kinds: Vec<RefusalKind>,
}

/// One kind of refusal in a [`RefusalLog`].
#[derive(Debug, Default)]
struct RefusalKind {
    kind: &'static str,
    shown: u32,
    hidden: u64,
    /// Where the hidden ones came from (at most 1024 kept).
    addrs: std::collections::HashSet<IpAddr>,
}

/// A connection still in its handshake.
#[derive(Debug)]
struct Pending {
    id: u64,
    since: Instant,
    /// Closes it (its place goes to a newer connection).
    evict: oneshot::Sender<()>,
}

/// A connection through its handshake: the socket, the bot's index, its measurements and
/// the game its client's process was in (see [`Link::resume`]).
type Handshaken = (tokio_tungstenite::WebSocketStream<Box<dyn Io>>, usize, Arc<ConnStats>, Option<(String, u64)>);

/// Why a handshake was refused: the HTTP status and the reason in words.
struct Refusal(StatusCode, String);

impl Hub {
    /// Binds `options.addr` and starts accepting remote bots, `bots` by the executor's bot
    /// id (`None` for local bots). Must be called inside a tokio runtime, which serves the
    /// connections.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub async fn start(options: ListenOptions, bots: Vec<Option<RemoteBot>>) -> Result<Arc<Hub>, String> {
        let listener = tokio::net::TcpListener::bind(&options.addr)
            .await
            .map_err(|e| format!("--listen {}: cannot listen there: {e}", options.addr))?;
        let local_addr = listener.local_addr().map_err(|e| format!("--listen {}: {e}", options.addr))?;
        if options.tls.is_none() && !local_addr.ip().is_loopback() {
            tracing::warn!(
                "--listen {local_addr} without --tls-cert/--tls-key: remote bots' tokens and games cross the network unencrypted"
            );
        }
        let names: Vec<&str> = bots.iter().flatten().map(|b| b.name.as_str()).collect();
        // The one line a test or an organiser waits for (the port when --listen gave 0).
        crate::notice::say(
            crate::notice::Level::Always,
            format!(
                "stratego-host: listening for remote bots ({}) on {}://{local_addr}",
                names.join(", "),
                if options.tls.is_some() { "wss" } else { "ws" }
            ),
        );
        let hub = Arc::new(Hub {
            bots: std::sync::RwLock::new(bots.into_iter().map(|b| b.map(HubBot::new)).collect()),
            options,
            local_addr,
            next_id: AtomicU64::new(1),
            connections: AtomicUsize::new(0),
            authenticated: AtomicUsize::new(0),
            unauthenticated: Mutex::new(HashMap::new()),
            refused: AtomicU64::new(0),
            refusal_log: Mutex::new(RefusalLog::default()),
            closing: tokio::sync::watch::channel(false).0,
        });
        let _ = hub.options.page.hub.set(Arc::downgrade(&hub));
        if hub.options.page.http.get().is_some() {
            crate::notice::say(
                crate::notice::Level::Always,
                format!("stratego-host: live page: http://{local_addr}/ (the --listen port)"),
            );
        }
        let h = hub.clone();
        tokio::spawn(async move { h.accept_loop(listener).await });
        // The refusals' summaries go out once a window is over, floods or not.
        let weak = Arc::downgrade(&hub);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(REFUSAL_WINDOW);
            loop {
                tick.tick().await;
                let Some(hub) = weak.upgrade() else { return };
                hub.summarise_refusals(false);
            }
        });
        Ok(hub)
    }

    /// The event is over: closes every connection with the reason "the event is over"
    /// (their `connect` clients then exit), waiting a moment for the close frames to go.
    pub async fn shutdown(&self) {
        let _ = self.closing.send(true);
        self.summarise_refusals(true);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        while self.connections.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The options it runs with.
    pub fn options(&self) -> &ListenOptions {
        &self.options
    }

    /// Remote bot `bot` (the executor's bot id), if it is one.
    fn entry(&self, bot: usize) -> Option<Arc<HubBot>> {
        self.bots.read().unwrap_or_else(|e| e.into_inner()).get(bot).cloned().flatten()
    }

    /// Takes remote bot `remote` as the executor's bot `id` while the event runs (an
    /// entrant an arena admits: its token is taken from now on).
    pub fn add_bot(&self, id: usize, remote: RemoteBot) {
        let mut bots = self.bots.write().unwrap_or_else(|e| e.into_inner());
        if bots.len() <= id {
            bots.resize(id + 1, None);
        }
        bots[id] = Some(HubBot::new(remote));
    }

    /// Whether remote bot `bot` (the executor's bot id) is connected now.
    pub fn connected(&self, bot: usize) -> bool {
        self.entry(bot).is_some_and(|e| e.slot.lock().unwrap_or_else(|e| e.into_inner()).connected_id.is_some())
    }

    /// Each remote bot's connection now, in the event's order of bots.
    pub fn status(&self) -> Vec<RemoteStatus> {
        self.bots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .flatten()
            .map(|e| {
                let (bot, slot) = (&e.bot, &e.slot);
                let s = slot.lock().unwrap_or_else(|e| e.into_inner());
                RemoteStatus {
                    name: bot.name.clone(),
                    connected: s.connected_id.is_some(),
                    connections: s.connections,
                    one_way_lag: s
                        .stats
                        .as_ref()
                        .filter(|_| s.connected_id.is_some())
                        .and_then(|st| st.rtt.lock().unwrap_or_else(|e| e.into_inner()).one_way()),
                }
            })
            .collect()
    }

    /// The name of remote bot `bot`.
    pub fn name(&self, bot: usize) -> String {
        self.entry(bot).map_or_else(|| "?".to_owned(), |e| e.bot.name.clone())
    }

    async fn accept_loop(self: Arc<Hub>, listener: tokio::net::TcpListener) {
        let mut closing = self.closing.subscribe();
        loop {
            let accepted = tokio::select! {
                () = async { let _ = closing.wait_for(|&c| c).await; } => return,
                a = listener.accept() => a,
            };
            let (stream, peer) = match accepted {
                Ok(c) => c,
                Err(e) => {
                    // Out of descriptors and the like: wait a little rather than spin.
                    tracing::warn!("remote bots: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let Some((id, evicted)) = self.admit(peer) else {
                drop(stream);
                continue;
            };
            self.connections.fetch_add(1, Ordering::SeqCst);
            let hub = self.clone();
            tokio::spawn(async move {
                hub.clone().connection(stream, peer, id, evicted).await;
                hub.connections.fetch_sub(1, Ordering::SeqCst);
            });
        }
    }

    /// A connection refused or closed before its handshake was through: counted, and
    /// logged, at most [`REFUSALS_SHOWN`] lines of each `kind` a [`REFUSAL_WINDOW`]; the
    /// rest are summarised in one line a kind when the window is over (a flood of them
    /// costs a few lines, not one a connection).
    fn refuse(&self, kind: &'static str, peer: SocketAddr, line: String) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        self.summarise_refusals(false);
        let mut log = self.refusal_log.lock().unwrap_or_else(|e| e.into_inner());
        log.since.get_or_insert_with(Instant::now);
        let k = match log.kinds.iter().position(|k| k.kind == kind) {
            Some(i) => i,
            None => {
                log.kinds.push(RefusalKind { kind, ..RefusalKind::default() });
                log.kinds.len() - 1
            }
        };
        let k = &mut log.kinds[k];
        if k.shown < REFUSALS_SHOWN {
            k.shown += 1;
            tracing::warn!("{line}");
            if k.shown == REFUSALS_SHOWN {
                tracing::warn!(
                    "remote bots: more refusals ({kind}) in the next {:.0} s are summarised, not shown one by one",
                    REFUSAL_WINDOW.as_secs_f64()
                );
            }
        } else {
            k.hidden += 1;
            if k.addrs.len() < 1024 {
                k.addrs.insert(addr_key(peer.ip()));
            }
        }
    }

    /// Logs a line a kind of the refusals not shown, when the window is over (or `now`),
    /// and starts a new window.
    fn summarise_refusals(&self, now: bool) {
        let mut log = self.refusal_log.lock().unwrap_or_else(|e| e.into_inner());
        let Some(since) = log.since else { return };
        if !now && since.elapsed() < REFUSAL_WINDOW {
            return;
        }
        for k in &log.kinds {
            if k.hidden == 0 {
                continue;
            }
            let mut some: Vec<String> = k.addrs.iter().take(5).map(ToString::to_string).collect();
            if k.addrs.len() > 5 {
                some.push("…".to_owned());
            }
            tracing::warn!(
                "remote bots: {} more connections refused ({}) in {:.1} s, not shown, from {}{} address(es): {}",
                k.hidden,
                k.kind,
                since.elapsed().as_secs_f64(),
                k.addrs.len(),
                if k.addrs.len() >= 1024 { "+" } else { "" },
                some.join(", ")
            );
        }
        *log = RefusalLog::default();
    }

    /// Whether a new connection from `peer` gets a place: not when its address ([`addr_key`])
    /// has `--max-unauthenticated` connections in their handshake already. When
    /// `--max-connections` are taken, the place of a connection still in its handshake is
    /// given to it: the oldest of the address with the most (never one of its own
    /// address's, nor an authenticated bot's), so that no number of half-open connections
    /// keeps a bot with its token out. Its id and what tells it that it was evicted.
    fn admit(&self, peer: SocketAddr) -> Option<(u64, oneshot::Receiver<()>)> {
        let key = addr_key(peer.ip());
        let mut pending = self.unauthenticated.lock().unwrap_or_else(|e| e.into_inner());
        let mine = pending.get(&key).map_or(0, Vec::len);
        if mine >= self.options.max_unauthenticated_per_ip {
            self.refuse(
                "handshakes per address",
                peer,
                format!("remote bots: {peer}: refused: already {mine} connections from {key} in their handshake"),
            );
            return None;
        }
        let in_handshake: usize = pending.values().map(Vec::len).sum();
        if self.authenticated.load(Ordering::SeqCst) + in_handshake >= self.options.max_connections {
            // The address with the most connections in their handshake (the oldest first
            // among equals) gives up its oldest, if it has more than this one's.
            let victim = pending
                .iter()
                .filter(|(k, v)| **k != key && v.len() > mine)
                .max_by_key(|(_, v)| (v.len(), std::cmp::Reverse(v.first().map(|p| p.since))))
                .map(|(k, _)| *k);
            let Some(victim) = victim else {
                self.refuse(
                    "connections at once",
                    peer,
                    format!(
                        "remote bots: {peer}: refused: already {} connections ({in_handshake} in their handshake)",
                        self.options.max_connections
                    ),
                );
                return None;
            };
            let list = pending.get_mut(&victim).expect("found above");
            let old = list.remove(0);
            if list.is_empty() {
                pending.remove(&victim);
            }
            let _ = old.evict.send(());
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (evict, evicted) = oneshot::channel();
        pending.entry(key).or_default().push(Pending { id, since: Instant::now(), evict });
        Some((id, evicted))
    }

    /// Connection `id` from `peer` is out of its handshake (through it, or closed).
    fn handshake_done(&self, peer: SocketAddr, id: u64) {
        let key = addr_key(peer.ip());
        let mut pending = self.unauthenticated.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(list) = pending.get_mut(&key) {
            list.retain(|p| p.id != id);
            if list.is_empty() {
                pending.remove(&key);
            }
        }
    }

    fn ws_config(&self) -> WebSocketConfig {
        // A frame is one protocol line: the line limit of local bots, with room for the
        // frame's header. Writes wait once this much is buffered (a client that does not
        // read holds up only its own game, whose clock runs).
        WebSocketConfig::default()
            .max_message_size(Some(self.options.max_line))
            .max_frame_size(Some(self.options.max_line))
            .write_buffer_size(0)
            .max_write_buffer_size(self.options.max_line.max(1 << 16) * 2)
    }

    /// Serves one connection: TLS, the WebSocket handshake with the token (given up when
    /// `evicted` fires: its place went to a newer connection, see [`Hub::admit`]), then the
    /// bot.
    async fn connection(
        self: Arc<Hub>,
        stream: tokio::net::TcpStream,
        peer: SocketAddr,
        id: u64,
        evicted: oneshot::Receiver<()>,
    ) {
        let hub = self.clone();
        tokio::select! {
            () = self.connection_inner(stream, peer, id) => {}
            Ok(()) = evicted => {
                hub.handshake_done(peer, id);
                hub.refuse("evicted", peer, format!(
                    "remote bots: {peer}: closed: still in its handshake when --max-connections were taken (its place went to a newer connection)"
                ));
            }
        }
    }

    /// On a port shared with the live page: a request that is not a WebSocket upgrade goes
    /// to the page (its head read without taking it from the socket), and a connection that
    /// sends no whole head by `deadline` is closed. The stream back when it is a bot's.
    async fn route_page(
        &self,
        stream: tokio::net::TcpStream,
        peer: SocketAddr,
        id: u64,
        deadline: tokio::time::Instant,
    ) -> Option<tokio::net::TcpStream> {
        let Some(http) = self.options.page.http.get() else { return Some(stream) };
        match sniff(&stream, deadline).await {
            Ok(true) => Some(stream),
            Ok(false) => {
                self.handshake_done(peer, id);
                match stream.into_std() {
                    Ok(s) => http(s),
                    Err(e) => tracing::warn!("live page: {peer}: {e}"),
                }
                None
            }
            Err(why) => {
                self.handshake_done(peer, id);
                self.refuse("no request", peer, format!("remote bots: {peer}: closed: {why}"));
                None
            }
        }
    }

    /// The TLS and WebSocket handshakes with the token check, until `deadline`: the socket,
    /// the bot it authenticated as, the connection's measurements and what its client said
    /// in its `X-Stratego-Resume` header; `None` (refused, and logged) else.
    async fn handshake(
        self: &Arc<Hub>,
        stream: tokio::net::TcpStream,
        peer: SocketAddr,
        id: u64,
        deadline: tokio::time::Instant,
    ) -> Option<Handshaken> {
        let chosen: Arc<Mutex<Option<Result<usize, Refusal>>>> = Arc::new(Mutex::new(None));
        let stats = Arc::new(ConnStats::default());
        let resume: Arc<Mutex<Option<(String, u64)>>> = Arc::default();
        let hs = {
            let (hub, chosen, shares, resume) = (self.clone(), chosen.clone(), stats.clone(), resume.clone());
            // The callback's type is tungstenite's (its refusal is a whole HTTP response).
            #[allow(clippy::result_large_err)]
            let callback = move |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
                let verdict = hub.authenticate(req);
                let shared = req.headers().get(STDERR_TAIL_HEADER).is_some_and(|v| v.as_bytes() == b"shared");
                shares.shares_stderr.store(shared, Ordering::SeqCst);
                if let Some(v) = req.headers().get(RESUME_HEADER).and_then(|v| v.to_str().ok()) {
                    shares.resumable.store(true, Ordering::SeqCst);
                    let parsed = v.trim().rsplit_once(' ').and_then(|(g, n)| Some((g.to_owned(), n.parse().ok()?)));
                    *resume.lock().unwrap_or_else(|e| e.into_inner()) = parsed;
                }
                let answer = match &verdict {
                    Ok(_) => Ok(resp),
                    Err(Refusal(status, why)) => {
                        let mut r = ErrorResponse::new(Some(format!("{why}\n")));
                        *r.status_mut() = *status;
                        Err(r)
                    }
                };
                *chosen.lock().unwrap_or_else(|e| e.into_inner()) = Some(verdict);
                answer
            };
            let config = Some(self.ws_config());
            let tls = self.options.tls.clone();
            async move {
                match tls {
                    Some(tls) => {
                        let acceptor = tokio_rustls::TlsAcceptor::from(tls);
                        let tls_stream = acceptor.accept(stream).await.map_err(|e| format!("TLS handshake: {e}"))?;
                        let io: Box<dyn Io> = Box::new(tls_stream);
                        tokio_tungstenite::accept_hdr_async_with_config(io, callback, config)
                            .await
                            .map_err(|e| format!("WebSocket handshake: {e}"))
                    }
                    None => {
                        let io: Box<dyn Io> = Box::new(stream);
                        tokio_tungstenite::accept_hdr_async_with_config(io, callback, config)
                            .await
                            .map_err(|e| format!("WebSocket handshake: {e}"))
                    }
                }
            }
        };
        let result = tokio::time::timeout_at(deadline, hs).await;
        self.handshake_done(peer, id);
        let verdict = chosen.lock().unwrap_or_else(|e| e.into_inner()).take();
        let (ws, bot) = match (result, verdict) {
            (Err(_), _) => {
                self.refuse(
                    "handshake timeout",
                    peer,
                    format!(
                        "remote bots: {peer}: closed: no handshake within {} ms",
                        self.options.handshake_timeout.as_millis()
                    ),
                );
                return None;
            }
            (Ok(Ok(ws)), Some(Ok(bot))) => (ws, bot),
            (Ok(_), Some(Err(Refusal(status, why)))) => {
                self.refuse("refused token", peer, format!("remote bots: {peer}: refused ({status}): {why}"));
                return None;
            }
            (Ok(Err(e)), _) => {
                self.refuse("bad handshake", peer, format!("remote bots: {peer}: closed: {e}"));
                return None;
            }
            (Ok(Ok(_)), None) => return None,
        };
        let resume = resume.lock().unwrap_or_else(|e| e.into_inner()).take();
        Some((ws, bot, stats, resume))
    }

    async fn connection_inner(self: Arc<Hub>, stream: tokio::net::TcpStream, peer: SocketAddr, id: u64) {
        // The socket, for the kernel's round-trip estimate (see `conn::kernel_min_rtt`): valid
        // while `serve` owns the stream.
        let fd = std::os::fd::AsRawFd::as_raw_fd(&stream);
        let deadline = tokio::time::Instant::now() + self.options.handshake_timeout;
        let Some(stream) = self.route_page(stream, peer, id, deadline).await else { return };
        let Some((ws, bot, stats, resume)) = self.handshake(stream, peer, id, deadline).await else { return };
        let Some(entry) = self.entry(bot) else { return };
        let (info, slot, notify) = (&entry.bot, &entry.slot, &entry.notify);
        let (out_tx, out_rx) = mpsc::channel::<Outgoing>(4);
        let (in_tx, in_rx) = mpsc::channel::<Incoming>(INBOX);
        let taken = {
            let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
            if s.connected_id.is_some() {
                false
            } else {
                s.connected_id = Some(id);
                s.connections += 1;
                s.stats = Some(stats.clone());
                // The games that ended while it was away: their ends first (its client
                // says them to the entrant, and passes each to a process that was in it).
                if stats.resumable.load(Ordering::SeqCst) {
                    for line in s.missed.drain(..) {
                        let _ = out_tx.try_send(Outgoing { line, written: None });
                    }
                }
                s.idle =
                    Some(Link { id, peer, tx: out_tx, rx: in_rx, stats: stats.clone(), owed: VecDeque::new(), resume });
                true
            }
        };
        if !taken {
            // Two handshakes of one token at once: the second to finish is refused.
            self.refuse(
                "connected already",
                peer,
                format!("remote bots: {peer}: refused: bot {} is connected already", info.name),
            );
            let mut ws = ws;
            let _ = ws
                .close(Some(CloseFrame {
                    code: CloseCode::Policy,
                    reason: "connected already: one connection per token".into(),
                }))
                .await;
            return;
        }
        tracing::info!("remote bots: {} connected from {peer} (connection {id})", info.name);
        crate::notice::say(
            crate::notice::Level::Info,
            format!("stratego-host: remote bot {} connected from {peer}", info.name),
        );
        notify.notify_waiters();
        self.authenticated.fetch_add(1, Ordering::SeqCst);
        let limits = ConnLimits {
            heartbeat: self.options.heartbeat,
            silence: self.options.silence,
            max_line: self.options.max_line,
        };
        let why = serve(ws, fd, out_rx, in_tx, stats, &limits, self.closing.subscribe()).await;
        self.authenticated.fetch_sub(1, Ordering::SeqCst);
        {
            let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
            if s.connected_id == Some(id) {
                s.connected_id = None;
            }
            if s.idle.as_ref().is_some_and(|l| l.id == id) {
                s.idle = None;
            }
        }
        crate::notice::warn(format_args!("remote bots: {} ({peer}, connection {id}) gone: {why}", info.name));
        crate::notice::say(
            crate::notice::Level::Info,
            format!("stratego-host: remote bot {} disconnected: {why}", info.name),
        );
        notify.notify_waiters();
    }

    /// Takes bot `bot`'s connection for a game: at once when it is connected and free;
    /// while another game holds it, until that game gives it back; while it is not
    /// connected, until it connects but at most `connect_timeout` (then the error).
    /// `on_wait` is called once if the game has to wait, with whether the bot is connected.
    ///
    /// # Errors
    /// It was not connected when `connect_timeout` ran out.
    pub async fn lease(
        &self,
        bot: usize,
        connect_timeout: Duration,
        on_wait: impl FnOnce(bool),
    ) -> Result<Link, LeaseError> {
        let Some(entry) = self.entry(bot) else {
            return Err(LeaseError::NotConnected(Duration::ZERO));
        };
        let (slot, notify) = (&entry.slot, &entry.notify);
        let deadline = tokio::time::Instant::now() + connect_timeout;
        let mut on_wait = Some(on_wait);
        loop {
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let connected = {
                let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
                if !s.leased {
                    if let Some(link) = s.idle.take() {
                        s.leased = true;
                        return Ok(link);
                    }
                }
                s.connected_id.is_some()
            };
            if let Some(f) = on_wait.take() {
                f(connected);
            }
            if connected {
                // Busy in another game (or handing over): no time limit, that game ends.
                notified.await;
            } else if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let s = slot.lock().unwrap_or_else(|e| e.into_inner());
                if s.connected_id.is_none() {
                    return Err(LeaseError::NotConnected(connect_timeout));
                }
            }
        }
    }

    /// A game that holds bot `bot` lost its connection `lost`: waits until `deadline` for
    /// a new one (the bot reconnecting with its token).
    pub async fn relink(&self, bot: usize, lost: u64, deadline: Instant) -> Option<Link> {
        let entry = self.entry(bot)?;
        let (slot, notify) = (&entry.slot, &entry.notify);
        loop {
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(link) = s.idle.take_if(|l| l.id != lost) {
                    return Some(link);
                }
            }
            if tokio::time::timeout_at(deadline.into(), notified).await.is_err() {
                let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
                return s.idle.take_if(|l| l.id != lost);
            }
        }
    }

    /// The time away bot `bot` has left in the event (`--reconnect-event-s` less what its
    /// games have used).
    pub fn away_left(&self, bot: usize) -> Duration {
        let Some(entry) = self.entry(bot) else { return Duration::ZERO };
        let used = entry.slot.lock().unwrap_or_else(|e| e.into_inner()).away;
        self.options.reconnect_event.saturating_sub(used)
    }

    /// Bot `bot` was away `away` (a game waited that long for its connection): it is taken
    /// from its time away in the event.
    pub fn charge_away(&self, bot: usize, away: Duration) {
        if let Some(entry) = self.entry(bot) {
            entry.slot.lock().unwrap_or_else(|e| e.into_inner()).away += away;
        }
    }

    /// A game of bot `bot` ended while it was away: its `game_over` line goes to the bot's
    /// next connection (when its client takes such lines: see [`crate::remote::client::RESUME_HEADER`]).
    pub fn missed_game_over(&self, bot: usize, line: String) {
        if let Some(entry) = self.entry(bot) {
            let mut s = entry.slot.lock().unwrap_or_else(|e| e.into_inner());
            if s.missed.len() == MISSED {
                s.missed.pop_front();
            }
            s.missed.push_back(line);
        }
    }

    /// A game is done with bot `bot`'s connection: it goes back for the next game (when it
    /// is still alive).
    pub fn give_back(&self, bot: usize, link: Option<Link>) {
        let Some(entry) = self.entry(bot) else { return };
        let (slot, notify) = (&entry.slot, &entry.notify);
        {
            let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
            s.leased = false;
            if let Some(link) = link.filter(|l| !l.tx.is_closed() && s.connected_id == Some(l.id)) {
                s.idle = Some(link);
            }
        }
        notify.notify_waiters();
    }

    /// Checks the upgrade request's `Authorization: Bearer TOKEN` against the remote bots'
    /// token hashes, and that the bot is not connected already.
    fn authenticate(&self, req: &Request) -> Result<usize, Refusal> {
        let Some(value) = req.headers().get("authorization") else {
            return Err(Refusal(
                StatusCode::UNAUTHORIZED,
                "no token: send the header \"Authorization: Bearer TOKEN\" (stratego-host connect --token-file F does)"
                    .to_owned(),
            ));
        };
        let Some(given) = value.to_str().ok().and_then(|v| v.strip_prefix("Bearer ")) else {
            return Err(Refusal(
                StatusCode::UNAUTHORIZED,
                "the Authorization header is not \"Bearer TOKEN\"".to_owned(),
            ));
        };
        let h = token::hash(given);
        // Token files are read again now: an edit since the start (a token revoked or
        // added) applies to this connection.
        let bots: Vec<Option<Arc<HubBot>>> = self.bots.read().unwrap_or_else(|e| e.into_inner()).clone();
        let found = bots.iter().enumerate().find_map(|(i, b)| {
            let HubBot { bot, source, .. } = &**b.as_ref()?;
            let (hashes, errors) = source.current_hashes();
            for e in errors {
                tracing::warn!("remote bots: {}: token_file: {e} (it admits nobody until it is fixed)", bot.name);
            }
            hashes.iter().any(|t| token::same(t, &h)).then_some(i)
        });
        let Some(i) = found else {
            return Err(Refusal(
                StatusCode::UNAUTHORIZED,
                "invalid token: no remote bot of this event has it (revoked, or for another event?)".to_owned(),
            ));
        };
        let HubBot { bot, slot, .. } = &**bots[i].as_ref().expect("found above");
        if slot.lock().unwrap_or_else(|e| e.into_inner()).connected_id.is_some() {
            return Err(Refusal(
                StatusCode::CONFLICT,
                format!("bot {} is connected already: one connection per token (this one is refused)", bot.name),
            ));
        }
        Ok(i)
    }
}
