//! `--serve ADDR`: a live page of a running event, served over HTTP while it runs.
//!
//! [`LivePage`] is a [`Sink`]: it hands every event to a server thread of its own (low
//! priority, its own tokio runtime, so serving never takes time from thinking bots) and
//! returns at once. The server keeps the event's state (the standings, the games running,
//! the last finished games, the faults) and serves three things, and nothing else:
//!
//! - `GET /`: the page (one HTML file, its style and script inlined);
//! - `GET /events`: a stream of server-sent events: a `snapshot` of everything first, then
//!   deltas (`game` started, `boards` changed, `finished`, `fault`, `standings`, `notice`,
//!   `over`);
//! - `GET /games/N.html`: the viewer page ([`crate::display::files::viewer::export_html`]) of the
//!   N-th finished game, for the last [`KEEP_FINISHED`] finished games;
//! - `GET /viewer.wasm`: the rules crate compiled to WebAssembly (`host/viewer-wasm`, the
//!   asset the viewer pages inline), with which the page applies the plies it is sent.
//!
//! Only the spectator's board of a running game is ever sent, as any spectator may see it:
//! which side owns each square, and the ranks made public by fights (and a Scout's long
//! move), never a rank nobody has seen, nor a bot's own view (the page of a finished game
//! adds those once it is over); with `--serve-delay N` a running game is shown N plies
//! behind. A client is sent each running game's board in its snapshot, then the plies as
//! they are shown: the move, and for a fight the two ranks it reveals
//! ([`stratego_viewer_wasm::live::LivePly`]); the page applies them with the WebAssembly
//! module, and this server keeps the same [`SpectatorBoard`] per game for the snapshots.
//! Plies are coalesced into at most one `boards` message every [`PUSH_EVERY`], and the
//! standings at most once every [`STANDINGS_EVERY`].
//!
//! Limits: at most [`MAX_CONNECTIONS`] connections, and at most [`MAX_PER_ADDRESS`] from one
//! address (`--serve-per-address`; an IPv6 /56 is one address), so that one client cannot lock the others out
//! (more get `503` and are closed), a
//! request head of at most [`MAX_REQUEST_BYTES`] (`431`), [`HEADER_TIMEOUT`] to send it,
//! one request per connection, `GET` only (`405`), and a response that cannot be written
//! for [`WRITE_STALL`] closes its connection. Every client reads the same bounded queue of
//! [`QUEUE`] messages: a client that falls behind it is sent a fresh snapshot instead of
//! what it missed, so a client that does not read costs no memory.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody, combinators::UnsyncBoxBody};
use hyper::body::Frame;
use hyper::{Method, Request, Response, StatusCode};
use tokio::sync::{Notify, broadcast};

use crate::display::files::viewer::html_escape;
use crate::display::web::http::{AddressSlot, PerAddress, Refusal, Stalls, address_key, refuse, set_send_buffer};
pub use crate::display::web::http::{MAX_CONNECTIONS, WRITE_STALL};
use crate::display::web::live_state::{GamePage, State, Update, sse};
pub use crate::display::web::live_state::{
    KEEP_FINISHED, KEEP_NOTICES, LiveBot, LivePageOptions, QUEUE, STANDINGS_EVERY,
};
use crate::run::happenings::{Failure, Flow, Happening, RunEnd, Sink};

/// Most connections open at once from one address by default (an IPv6 address's /56 counts
/// as one; `--serve-per-address` sets it):
/// one client cannot take the connections of the others (a browser opens at most 6 to a
/// server; a few spectators behind one NAT share this).
pub const MAX_PER_ADDRESS: usize = 8;
/// Longest request head (request line and headers), bytes (hyper's smallest buffer).
pub const MAX_REQUEST_BYTES: usize = 8192;
/// Time a client has to send its request head.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// Shortest time between two `boards` messages.
pub const PUSH_EVERY: Duration = Duration::from_millis(100);
/// A comment on an idle event stream this often, so that a dead client is found.
const KEEPALIVE: Duration = Duration::from_secs(15);

const TEMPLATE: &str = include_str!("live_page.html");
const STYLE: &str = include_str!("live_page.css");
const SCRIPT: &str = include_str!("live_page.js");

/// Gives the standings as HTML (escaped: it is inserted into the page as it is) after the
/// given number of finished games; `true` once the event is over (the report is final).
pub type StandingsFn = Box<dyn FnMut(u64, bool) -> String>;

/// What the sink hands the server thread, taken every [`PUSH_EVERY`] (no wake-up a ply: a
/// thread woken for each would cost the run more than all the rest), at once for the end.
#[derive(Default)]
struct Inbox {
    queue: Mutex<Vec<Update>>,
    over: Notify,
}

impl Inbox {
    fn send(&self, update: Update) -> Result<(), ()> {
        let over = matches!(update, Update::Over);
        self.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(update);
        if over {
            self.over.notify_one();
        }
        Ok(())
    }

    fn take(&self) -> Vec<Update> {
        std::mem::take(&mut *self.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

/// The `--serve` sink (see the module documentation).
pub struct LivePage {
    tx: Arc<Inbox>,
    standings: Option<StandingsFn>,
    dirty: bool,
    done: u64,
    last_standings: Option<Instant>,
    thread: Option<std::thread::JoinHandle<()>>,
    addr: Option<SocketAddr>,
    /// The host's notices, shown on the page too (issue #43, item 7), until the page ends.
    notices: Option<crate::notice::Watch>,
}

/// Where the page's connections come from: its own listener, or the `--listen` one's.
enum Source {
    Listener(std::net::TcpListener),
    Handed(tokio::sync::mpsc::Receiver<std::net::TcpStream>),
}

impl LivePage {
    /// Binds `options.addr` and starts the server thread; says where on stderr
    /// (`stratego-host: live page: http://ADDR/`).
    ///
    /// # Errors
    /// The address cannot be parsed or bound, or the thread cannot be started.
    pub fn start(options: LivePageOptions) -> Result<LivePage, String> {
        let shared = options.remote.as_ref().filter(|l| l.addr == options.addr);
        let (source, addr) = match shared {
            Some(listen) => {
                if listen.tls.is_some() {
                    return Err(format!(
                        "--serve {}: the --listen address, which has TLS (--tls-cert): the live page is plain HTTP; give --serve an address of its own",
                        options.addr
                    ));
                }
                // The hub's listener hands over every request that is not a WebSocket
                // upgrade (it says where, once bound).
                let (tx, rx) = tokio::sync::mpsc::channel::<std::net::TcpStream>(MAX_CONNECTIONS);
                let handoff: crate::remote::hub::HttpHandoff = Arc::new(move |stream| {
                    // Past the queue, a connection is closed (the page's own limit follows).
                    let _ = tx.try_send(stream);
                });
                if listen.page.http.set(handoff).is_err() {
                    return Err(format!("--serve {}: the --listen port serves a live page already", options.addr));
                }
                (Source::Handed(rx), None)
            }
            None => {
                let listener =
                    std::net::TcpListener::bind(&options.addr).map_err(|e| format!("--serve {}: {e}", options.addr))?;
                let addr = listener.local_addr().map_err(|e| format!("--serve {}: {e}", options.addr))?;
                listener.set_nonblocking(true).map_err(|e| format!("--serve {}: {e}", options.addr))?;
                (Source::Listener(listener), Some(addr))
            }
        };
        let tx = Arc::new(Inbox::default());
        let rx = tx.clone();
        let thread = std::thread::Builder::new()
            .name("live-page".into())
            .spawn(move || {
                crate::supervise::os::lower_current_thread();
                let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                    Ok(r) => r,
                    Err(e) => {
                        tracing::error!("--serve: cannot start its runtime: {e}");
                        return;
                    }
                };
                runtime.block_on(serve(source, options, rx));
            })
            .map_err(|e| format!("--serve: cannot start its thread: {e}"))?;
        if let Some(addr) = addr {
            crate::notice::say(crate::notice::Level::Always, format!("stratego-host: live page: http://{addr}/"));
        }
        // The notices said so far (a resumed directory's torn line, a warning about a bot),
        // then each as it is said.
        let inbox = tx.clone();
        let watch = crate::notice::watch(Arc::new(move |n: &crate::notice::Notice| {
            let _ = inbox.send(Update::Notice(n.clone()));
        }));
        for n in watch.earlier() {
            let _ = tx.send(Update::Notice(n.clone()));
        }
        Ok(LivePage {
            tx,
            standings: None,
            dirty: false,
            done: 0,
            last_standings: None,
            thread: Some(thread),
            addr,
            notices: Some(watch),
        })
    }

    /// With `--serve` in `run`: the live page of an event of `bots` titled `title` (an
    /// event's name, when `--event` gave one, comes first), serving `bot_pages` when given
    /// (an arena's pages per bot), else `None`.
    ///
    /// # Errors
    /// As [`LivePage::start`].
    pub fn for_run(
        run: &crate::run::plan::RunConfig,
        bots: &[crate::run::executor::Entrant],
        title: &str,
        planned: Option<u64>,
        bot_pages: Option<Arc<dyn crate::display::web::bot_page::ArenaPages>>,
    ) -> Result<Option<LivePage>, String> {
        let Some(addr) = &run.serve else { return Ok(None) };
        let title = match &run.event {
            Some(name) => format!("{name} — {title}"),
            None => title.to_owned(),
        };
        let options = LivePageOptions {
            addr: addr.clone(),
            delay: run.serve_delay,
            title,
            rules: run.settings.rules.clone(),
            bots: bots
                .iter()
                .map(|b| LiveBot { name: b.spec.name.clone(), time_control: b.time_control.to_wire() })
                .collect(),
            planned,
            remote: run.settings.listen.clone().filter(|_| bots.iter().any(|b| b.spec.remote)),
            remote_bots: bots.iter().map(|b| b.spec.remote).collect(),
            per_address: run.serve_per_address,
            bot_pages,
        };
        LivePage::start(options).map(Some)
    }

    /// Gives the standings' HTML from now on: `standings` is called at once (the table
    /// before any game: every entrant, so the standings are never empty), after a finished
    /// game at most once every [`STANDINGS_EVERY`] (a rating fit over every game costs: not
    /// once a game), by a tick when no happening comes (the bots of the running games may
    /// think, or wait, for minutes: the page must not leave the last games out until then),
    /// and once at the end (escaped: it is inserted into the page as it is). Without, the
    /// page counts each bot's wins, draws and losses itself.
    pub fn set_standings(&mut self, mut standings: StandingsFn) {
        let first = standings(self.done, false);
        self.standings = Some(standings);
        let _ = self.tx.send(Update::OwnStandings(false));
        let _ = self.tx.send(Update::Standings(first));
    }

    /// The address bound (`None` when it shares the `--listen` listener, which says its
    /// address once bound).
    pub fn addr(&self) -> Option<SocketAddr> {
        self.addr
    }

    /// Computes the standings when they changed and are due (or the run is `over`) and
    /// hands them to the server.
    fn push_standings(&mut self, over: bool) {
        let due = self.last_standings.is_none_or(|t| t.elapsed() >= STANDINGS_EVERY);
        if !self.dirty || !(due || over) {
            return;
        }
        if let Some(f) = self.standings.as_mut() {
            let _ = self.tx.send(Update::Standings(f(self.done, over)));
        }
        self.dirty = false;
        self.last_standings = Some(Instant::now());
    }
}

impl Sink for LivePage {
    fn wants_plies(&self) -> bool {
        true
    }

    /// Standings held back by [`STANDINGS_EVERY`] are sent once due, even when no
    /// happening comes.
    fn tick_every(&self) -> Option<Duration> {
        self.standings.is_some().then_some(STANDINGS_EVERY / 4)
    }

    fn on_tick(&mut self) {
        self.push_standings(false);
    }

    fn on_history(&mut self, happening: &Happening) {
        if matches!(happening, Happening::GameFinished { .. }) {
            self.dirty = true;
            self.done += 1;
            let _ = self.tx.send(Update::History(happening.clone()));
        }
    }

    fn on_happening(&mut self, happening: &Happening) -> Flow {
        if matches!(happening, Happening::GameFinished { .. }) {
            self.dirty = true;
            self.done += 1;
        }
        // Standings that count the games running (an arena's "N playing now") change when a
        // game starts too: pushed once due, at the next happening (a ply, at the latest).
        if matches!(happening, Happening::GameStarted { .. }) {
            self.dirty = true;
        }
        let _ = self.tx.send(Update::Happening(happening.clone()));
        self.push_standings(false);
        Flow::Continue
    }

    fn finish(&mut self, _end: &RunEnd) -> Result<(), Failure> {
        self.dirty = true;
        self.push_standings(true);
        self.notices = None;
        let _ = self.tx.send(Update::Over);
        if let Some(t) = self.thread.take() {
            // The server sends what is left and closes its connections.
            let _ = t.join();
        }
        Ok(())
    }
}

impl Drop for LivePage {
    fn drop(&mut self) {
        let _ = self.tx.send(Update::Over);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

// ---- the event's state --------------------------------------------------------------------

type Body = UnsyncBoxBody<Bytes, Infallible>;
type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs the server until [`Update::Over`] (or the sink is gone): the updates, the pushes
/// every [`PUSH_EVERY`], and the connections.
async fn serve(source: Source, options: LivePageOptions, rx: Arc<Inbox>) {
    let state: Shared = Arc::new(Mutex::new(State::new(&options)));
    let (listener, mut handed) = match source {
        Source::Listener(l) => match tokio::net::TcpListener::from_std(l) {
            Ok(l) => (Some(l), None),
            Err(e) => {
                tracing::error!("--serve: {e}");
                return;
            }
        },
        Source::Handed(rx) => (None, Some(rx)),
    };
    let assets = Arc::new(Assets::new(&options.title));
    let permits = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let per_address = PerAddress { counts: Arc::default(), limit: options.per_address.clamp(1, MAX_CONNECTIONS) };
    // Refusals being written at once; past that a connection is closed without a word.
    let refusals = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let closing = tokio_util::sync::CancellationToken::new();
    let mut tick = tokio::time::interval(PUSH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = rx.over.notified() => {
                let mut s = lock(&state);
                for update in rx.take() {
                    s.apply(update);
                }
                break;
            }
            _ = tick.tick() => {
                let mut s = lock(&state);
                let mut over = false;
                for update in rx.take() {
                    over |= matches!(update, Update::Over);
                    s.apply(update);
                }
                if over {
                    break;
                }
                s.flush_boards();
                s.flush_standings(false);
                s.flush_remote(false);
            }
            accepted = next_connection(listener.as_ref(), handed.as_mut()) => {
                let Some(stream) = accepted else {
                    // Out of descriptors, say: a moment before trying again.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                // Its address's count first, then the total: a client at its own limit
                // takes nothing from the others.
                let admitted = match stream.peer_addr() {
                    Ok(peer) => per_address.take(address_key(peer.ip())).and_then(|slot| {
                        permits.clone().try_acquire_owned().map(|permit| (permit, slot)).map_err(|_| Refusal::Full)
                    }),
                    // Gone already.
                    Err(_) => continue,
                };
                let (permit, slot) = match admitted {
                    Ok(admitted) => admitted,
                    Err(why) => {
                        if let Ok(refusal) = refusals.clone().try_acquire_owned() {
                            tokio::spawn(async move {
                                refuse(stream, why).await;
                                drop(refusal);
                            });
                        }
                        continue;
                    }
                };
                spawn_connection(stream, (state.clone(), assets.clone(), closing.clone()), (permit, slot));
            }
        }
    }
    // The last messages go out, then every connection closes.
    tokio::time::sleep(Duration::from_millis(200)).await;
    closing.cancel();
    let deadline = Instant::now() + Duration::from_secs(1);
    while permits.available_permits() < MAX_CONNECTIONS && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Serves one admitted connection on a task of its own, until it ends or the page closes
/// (a graceful shutdown, half a second at most); its places are given back then.
fn spawn_connection(
    stream: tokio::net::TcpStream,
    (state, assets, closing): (Shared, Arc<Assets>, tokio_util::sync::CancellationToken),
    (permit, slot): (tokio::sync::OwnedSemaphorePermit, AddressSlot),
) {
    set_send_buffer(&stream);
    tokio::spawn(async move {
        let io = hyper_util::rt::TokioIo::new(Stalls::new(stream));
        let service = hyper::service::service_fn(move |req| {
            let (state, assets) = (state.clone(), assets.clone());
            async move { Ok::<_, Infallible>(respond(&req, &state, &assets)) }
        });
        let mut http = hyper::server::conn::http1::Builder::new();
        http.keep_alive(false)
            .max_buf_size(MAX_REQUEST_BYTES)
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT);
        let conn = http.serve_connection(io, service);
        tokio::pin!(conn);
        tokio::select! {
            _ = conn.as_mut() => {}
            _ = closing.cancelled() => {
                conn.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(Duration::from_millis(500), conn).await;
            }
        }
        drop(permit);
        drop(slot);
    });
}

/// The next connection: from the page's own listener, or handed over by the `--listen` one.
async fn next_connection(
    listener: Option<&tokio::net::TcpListener>,
    handed: Option<&mut tokio::sync::mpsc::Receiver<std::net::TcpStream>>,
) -> Option<tokio::net::TcpStream> {
    match (listener, handed) {
        (Some(l), _) => l.accept().await.ok().map(|(s, _)| s),
        (None, Some(rx)) => match rx.recv().await {
            Some(s) => s.set_nonblocking(true).ok().and_then(|()| tokio::net::TcpStream::from_std(s).ok()),
            // The listener is gone (the run ends): nothing more comes.
            None => std::future::pending().await,
        },
        (None, None) => std::future::pending().await,
    }
}

fn full(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Full::new(body.into()).boxed_unsync());
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert("content-type", content_type.parse().expect("a header value"));
    h.insert("cache-control", "no-store".parse().expect("a header value"));
    h.insert("x-content-type-options", "nosniff".parse().expect("a header value"));
    r
}

fn text(status: StatusCode, message: &str) -> Response<Body> {
    full(status, "text/plain; charset=utf-8", format!("{message}\n"))
}

/// The page's content security policy: its own inline style and script, its own event
/// stream, nothing from elsewhere; `'wasm-unsafe-eval'` lets a finished game's viewer page
/// compile its inlined WebAssembly module (the rules; it allows no JavaScript `eval`).
const POLICY: &str = "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

/// What the server serves as it is: the page, and the WebAssembly module.
struct Assets {
    page: Bytes,
    wasm: Bytes,
    /// The module's entity tag: its SHA-256's first 16 hex digits, quoted.
    etag: String,
}

impl Assets {
    fn new(title: &str) -> Assets {
        use base64::Engine as _;
        use sha2::Digest as _;
        let wasm = base64::engine::general_purpose::STANDARD
            .decode(crate::display::files::viewer::WASM_BASE64)
            .expect("the build script's base64 decodes");
        let digest = sha2::Sha256::digest(&wasm);
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Assets { page: page_html(title, &hex).into(), wasm: wasm.into(), etag: format!("\"{hex}\"") }
    }

    /// The module: `304` when the client holds this very one, else its bytes, to be kept
    /// (its URL in the page names its version).
    fn wasm<B>(&self, req: &Request<B>) -> Response<Body> {
        let fresh =
            req.headers().get_all("if-none-match").iter().any(|v| {
                v.to_str().is_ok_and(|v| v.split(',').any(|t| t.trim().trim_start_matches("W/") == self.etag))
            });
        let mut r = if fresh {
            let mut r = Response::new(Full::new(Bytes::new()).boxed_unsync());
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            r
        } else {
            full(StatusCode::OK, "application/wasm", self.wasm.clone())
        };
        let h = r.headers_mut();
        h.insert("cache-control", "public, max-age=86400".parse().expect("a header value"));
        h.insert("etag", self.etag.parse().expect("a header value"));
        h.insert("x-content-type-options", "nosniff".parse().expect("a header value"));
        r
    }
}

/// The answer to one request: the page, the event stream, the WebAssembly module, a
/// finished game's viewer page, or an error.
fn respond<B>(req: &Request<B>, state: &Shared, assets: &Assets) -> Response<Body> {
    if req.method() != Method::GET {
        let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "only GET");
        r.headers_mut().insert("allow", "GET".parse().expect("a header value"));
        return r;
    }
    let path = req.uri().path();
    let mut r = match path {
        "/" | "/index.html" => full(StatusCode::OK, "text/html; charset=utf-8", assets.page.clone()),
        "/events" => return sse_stream(state),
        "/viewer.wasm" => return assets.wasm(req),
        _ if path == "/arena/version" || path.starts_with("/bots/") || path.starts_with("/arena/games/") => {
            arena_page(path, state)
        }
        _ => {
            let n = path.strip_prefix("/games/").and_then(|p| p.strip_suffix(".html")).and_then(|n| {
                // Digits only: `/games/007.html` names no game.
                (!n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse::<u64>().ok()).flatten()
            });
            let page = n.and_then(|n| lock(state).viewer_page(n));
            match page {
                Some(GamePage::Page(html)) => full(StatusCode::OK, "text/html; charset=utf-8", html),
                Some(GamePage::Held(running)) => text(
                    StatusCode::FORBIDDEN,
                    &format!(
                        "held back while game {running} is running: it plays a setup this game's page shows (it is the other game of this one's pair, or plays one of its setup book entries); it is served once no running game does"
                    ),
                ),
                Some(GamePage::Error(e)) => {
                    text(StatusCode::INTERNAL_SERVER_ERROR, &format!("cannot show the game: {e}"))
                }
                None if n.is_some() => text(
                    StatusCode::NOT_FOUND,
                    &format!("no such finished game here (the last {KEEP_FINISHED} finished games are kept)"),
                ),
                None => text(
                    StatusCode::NOT_FOUND,
                    "not found: the live page is /, its events /events, its rules /viewer.wasm",
                ),
            }
        }
    };
    r.headers_mut().insert("content-security-policy", POLICY.parse().expect("a header value"));
    r
}

/// The event stream: a snapshot, then the deltas; a snapshot again when the client fell
/// more than [`QUEUE`] messages behind.
/// The arena's pages (`arena run --serve`): `/bots/NAME` (a bot's page),
/// `/arena/games/ID.html` (a stored game's viewer page, held back as a finished game's is
/// while a running game plays one of its setups), `/arena/version` (what the bot pages poll).
fn arena_page(path: &str, state: &Shared) -> Response<Body> {
    use crate::display::web::bot_page;
    let (pages, title) = {
        let s = lock(state);
        (s.arena.clone(), s.title.clone())
    };
    let Some(pages) = pages else {
        return text(StatusCode::NOT_FOUND, "not found: pages per bot are an arena's (arena run --serve)");
    };
    let failed = |e: String| text(StatusCode::INTERNAL_SERVER_ERROR, &format!("cannot read the arena: {e}"));
    if path == "/arena/version" {
        return match pages.version() {
            Ok(v) => {
                let running = lock(state).running_ids();
                full(StatusCode::OK, "text/plain; charset=utf-8", format!("{v};{running}"))
            }
            Err(e) => failed(e),
        };
    }
    if let Some(name) = path.strip_prefix("/bots/") {
        let Some(name) = bot_page::decode_name(name) else {
            return text(StatusCode::NOT_FOUND, "not found: a bot's page is /bots/NAME");
        };
        return match pages.bot(&name) {
            Ok(Some(page)) => {
                let running = lock(state).running_of(&name);
                full(StatusCode::OK, "text/html; charset=utf-8", bot_page::bot_page_html(&page, &running, &title))
            }
            Ok(None) => text(StatusCode::NOT_FOUND, "no such bot in this arena"),
            Err(e) => failed(e),
        };
    }
    let id = path
        .strip_prefix("/arena/games/")
        .and_then(|p| p.strip_suffix(".html"))
        .filter(|id| bot_page::plain_game_id(id));
    let Some(id) = id else {
        return text(StatusCode::NOT_FOUND, "not found: a stored game's page is /arena/games/ID.html");
    };
    let record = match pages.record(id) {
        Ok(Some(r)) => r,
        Ok(None) => {
            return text(
                StatusCode::NOT_FOUND,
                "no such finished game in this arena (a running game is not stored yet)",
            );
        }
        Err(e) => return failed(e),
    };
    if let Some(running) = lock(state).shows_through_stored(&record) {
        return text(
            StatusCode::FORBIDDEN,
            &format!(
                "held back while game {running} is running: it plays a setup this game's page shows; it is served once no running game does"
            ),
        );
    }
    match crate::display::files::viewer::export_html(std::slice::from_ref(&record), &format!("{title}: game {id}")) {
        Ok(html) => full(StatusCode::OK, "text/html; charset=utf-8", html),
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, &format!("cannot show the game: {e}")),
    }
}

/// `GET /events`: the stream of server-sent events (a web term; the page's updates, not the
/// competition "event" names).
fn sse_stream(state: &Shared) -> Response<Body> {
    let (rx, first, over) = {
        let mut s = lock(state);
        // Subscribed under the lock, after the snapshot: every message after it reaches the
        // client, and none it already holds.
        let first = sse("snapshot", &s.snapshot());
        (s.tx.subscribe(), first, s.over)
    };
    struct Stream {
        rx: broadcast::Receiver<Arc<str>>,
        state: Shared,
        first: Option<Arc<str>>,
        done: bool,
    }
    let start = Stream { rx, state: state.clone(), first: Some(first), done: over };
    let stream = futures_util::stream::unfold(start, |mut s| async move {
        if let Some(first) = s.first.take() {
            return Some((Ok(Frame::data(Bytes::from(first.as_bytes().to_vec()))), s));
        }
        if s.done {
            return None;
        }
        let message = tokio::select! {
            m = s.rx.recv() => m,
            _ = tokio::time::sleep(KEEPALIVE) => {
                return Some((Ok(Frame::data(Bytes::from_static(b": keep-alive\n\n"))), s));
            }
        };
        let text: Arc<str> = match message {
            Ok(m) => {
                if m.starts_with("event: over\n") {
                    s.done = true;
                }
                m
            }
            Err(broadcast::error::RecvError::Lagged(_)) => {
                // Behind by more than the queue: the state as it is now, instead.
                let mut st = lock(&s.state);
                let snapshot = sse("snapshot", &st.snapshot());
                s.rx = st.tx.subscribe();
                s.done = st.over;
                snapshot
            }
            Err(broadcast::error::RecvError::Closed) => return None,
        };
        Some((Ok(Frame::data(Bytes::from(text.as_bytes().to_vec()))), s))
    });
    let mut r = Response::new(BodyExt::boxed_unsync(StreamBody::new(stream)));
    let h = r.headers_mut();
    h.insert("content-type", "text/event-stream".parse().expect("a header value"));
    h.insert("cache-control", "no-store".parse().expect("a header value"));
    h.insert("x-content-type-options", "nosniff".parse().expect("a header value"));
    r
}

/// The page, its script fetching the module at `/viewer.wasm?v=VERSION`.
fn page_html(title: &str, version: &str) -> String {
    TEMPLATE
        .replace("{{STYLE}}", STYLE)
        .replace("{{SCRIPT}}", &SCRIPT.replace("{{WASM_URL}}", &format!("/viewer.wasm?v={version}")))
        .replace("{{TITLE}}", &html_escape(title))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::web::live_state::{FaultRow, KEEP_FAULTS, Running};
    use serde_json::json;
    use stratego_rules::{ByColor, Ruleset};

    fn state() -> State {
        let options = LivePageOptions {
            addr: String::new(),
            delay: 0,
            title: "t".into(),
            rules: Arc::new(Ruleset::preset("classic").unwrap()),
            bots: vec![],
            planned: None,
            remote: None,
            remote_bots: vec![],
            per_address: MAX_PER_ADDRESS,
            bot_pages: None,
        };
        State::new(&options)
    }

    /// A running game `id` of pair `pair`, red's setup book entry `book`, not yet shown.
    fn running(id: &str, pair: u32, book: Option<u32>) -> Running {
        Running::new(id.into(), pair, ByColor::new(book, None), ByColor::new(0, 1), ByColor::default())
    }

    async fn next_text(body: &mut Body) -> String {
        let frame = body.frame().await.expect("a frame").expect("no error");
        String::from_utf8(frame.into_data().expect("data").to_vec()).expect("UTF-8")
    }

    #[tokio::test]
    async fn a_client_that_falls_behind_gets_a_snapshot_not_the_backlog() {
        let shared: Shared = Arc::new(Mutex::new(state()));
        let mut body = sse_stream(&shared).into_body();
        assert!(next_text(&mut body).await.starts_with("event: snapshot\n"));
        lock(&shared).send("standings", &json!({ "html": "first", "done": 0 }));
        assert!(next_text(&mut body).await.contains("first"), "a delta follows the snapshot");
        for i in 0..QUEUE * 10 {
            lock(&shared).send("standings", &json!({ "html": i.to_string(), "done": 0 }));
        }
        // What is queued is bounded, whatever the client did not read.
        assert_eq!(lock(&shared).tx.len(), QUEUE);
        let next = next_text(&mut body).await;
        assert!(next.starts_with("event: snapshot\n"), "the state as it is, instead of the backlog: {next}");
        lock(&shared).send("standings", &json!({ "html": "after", "done": 0 }));
        assert!(next_text(&mut body).await.contains("after"), "then the deltas again");
        lock(&shared).apply(Update::Over);
        assert!(next_text(&mut body).await.starts_with("event: over\n"));
        assert!(body.frame().await.is_none(), "the stream ends with the event");
    }

    #[test]
    fn no_held_fault_is_dropped_unsent() {
        let mut st = state();
        let mut rx = st.tx.subscribe();
        // A running game that plays book entry 0: every fault of a game with that entry is held.
        st.running.push(running("run", 999, Some(0)));
        for i in 0..=KEEP_FAULTS {
            let row = json!({ "game": format!("g{i}"), "message": format!("the Bomb on a4 cannot move {i}") });
            let fault = FaultRow { row, game: format!("g{i}"), pair: i as u32, setups: ByColor::new(Some(0), None) };
            assert!(st.shows_through(&fault.game, fault.pair, fault.setups).is_some());
            st.hold_fault(fault);
        }
        // One past the limit: the oldest was sent, its message withheld, none dropped.
        assert_eq!(st.held_faults.len(), KEEP_FAULTS);
        let sent = rx.try_recv().expect("the oldest fault was sent");
        assert!(sent.starts_with("event: fault\n") && sent.contains("\"g0\"") && sent.contains("withheld"), "{sent}");
        assert!(!sent.contains("cannot move 0"), "its message is not shown: {sent}");
        assert!(rx.try_recv().is_err(), "only it");
        assert_eq!(st.faults.len(), 1);
    }

    #[test]
    fn a_stored_game_is_held_by_its_runs_pair_and_by_any_runs_book_setups() {
        let mut st = state();
        st.running.push(running("arena-1-aa-1", 0, None));
        let mut r = crate::display::files::game_page::tests::played_record(4);
        (r.game_id, r.pair) = ("arena-1-aa-7".into(), 0);
        assert_eq!(st.shows_through_stored(&r), Some("arena-1-aa-1"), "the other game of its pair, this run");
        r.game_id = "arena-0-bb-7".into();
        assert_eq!(st.shows_through_stored(&r), None, "pair 0 of an earlier run is another pair");
        r.book_setups = ByColor::new(None, Some(3));
        st.running.push(running("arena-1-aa-2", 1, Some(3)));
        assert_eq!(st.shows_through_stored(&r), Some("arena-1-aa-2"), "a book entry it played, in any run");
    }

    #[test]
    fn the_page_title_is_escaped() {
        let html = page_html("</title><script>alert(1)</script>", "0123");
        assert!(!html.contains("<script>alert(1)"));
        assert!(html.contains("&lt;/title&gt;"));
    }
}
