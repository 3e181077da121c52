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

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody, combinators::UnsyncBoxBody};
use hyper::body::Frame;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use stratego_protocol::record::{GameRecord, RecordPly};
use stratego_rules::{ByColor, Color, Ruleset};
use stratego_viewer_wasm::live::{LivePly, SpectatorBoard};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{Notify, broadcast};

use crate::display::files::viewer::html_escape;
use crate::run::events::{Event, Failure, Flow, RunEnd, Sink};

/// Most connections open at once.
pub const MAX_CONNECTIONS: usize = 32;
/// Most connections open at once from one address by default (an IPv6 address's /56 counts
/// as one; `--serve-per-address` sets it):
/// one client cannot take the connections of the others (a browser opens at most 6 to a
/// server; a few spectators behind one NAT share this).
pub const MAX_PER_ADDRESS: usize = 8;
/// Longest request head (request line and headers), bytes (hyper's smallest buffer).
pub const MAX_REQUEST_BYTES: usize = 8192;
/// Time a client has to send its request head.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// A response that cannot be written for this long closes its connection.
pub const WRITE_STALL: Duration = Duration::from_secs(10);
/// Shortest time between two `boards` messages.
pub const PUSH_EVERY: Duration = Duration::from_millis(100);
/// Shortest time between two `standings` messages.
pub const STANDINGS_EVERY: Duration = Duration::from_secs(1);
/// Finished games whose viewer pages are kept.
pub const KEEP_FINISHED: usize = 100;
/// Faults listed.
const KEEP_FAULTS: usize = 50;
/// The longest notice shown, characters (the rest is cut, with `…`).
const NOTICE_CHARS: usize = 600;
/// Notices listed (what the host told the person running it: [`crate::notice`]).
pub const KEEP_NOTICES: usize = crate::notice::KEEP;
/// Messages every client's stream may be behind before it is sent a snapshot instead.
pub const QUEUE: usize = 64;
/// A comment on an idle event stream this often, so that a dead client is found.
const KEEPALIVE: Duration = Duration::from_secs(15);
/// Kernel send buffer of a connection, bytes: with [`WRITE_STALL`], what one client that
/// does not read can hold.
const SEND_BUFFER: usize = 64 * 1024;

const TEMPLATE: &str = include_str!("live_page.html");
const STYLE: &str = include_str!("live_page.css");
const SCRIPT: &str = include_str!("live_page.js");

/// A bot as the page names it.
#[derive(Clone, Debug)]
pub struct LiveBot {
    /// Its name.
    pub name: String,
    /// Its clocks.
    pub time_control: stratego_protocol::TimeControl,
}

/// What the page shows and where it is served.
pub struct LivePageOptions {
    /// Where to listen (`127.0.0.1:8080`, `[::1]:0`…).
    pub addr: String,
    /// `--serve-delay`: plies a running game is shown behind.
    pub delay: u32,
    /// The page's title.
    pub title: String,
    /// The rules of the event's games.
    pub rules: Arc<Ruleset>,
    /// The bots, by id.
    pub bots: Vec<LiveBot>,
    /// Games planned, when known.
    pub planned: Option<u64>,
    /// The run's remote bots' listener (`--listen`), when it has remote bots: the page shows
    /// their connections and lag, and, when `addr` is its address too, gets its HTTP
    /// connections from it instead of listening itself (one listener for both).
    pub remote: Option<Arc<crate::remote::hub::ListenOptions>>,
    /// Which bots (by id) are remote.
    pub remote_bots: Vec<bool>,
    /// Most connections open at once from one address (`--serve-per-address`, default
    /// [`MAX_PER_ADDRESS`]; at most [`MAX_CONNECTIONS`]).
    pub per_address: usize,
}

/// Lag figures kept per remote bot (its last moves').
const KEEP_LAGS: usize = 1000;

/// Gives the standings as HTML (escaped: it is inserted into the page as it is) after the
/// given number of finished games; `true` once the event is over (the report is final).
pub type StandingsFn = Box<dyn FnMut(u64, bool) -> String>;

/// What the sink hands the server thread.
enum Update {
    Event(Event),
    History(Event),
    Standings(String),
    /// Whether the page counts the standings itself.
    OwnStandings(bool),
    /// A notice of the host's ([`crate::notice`]).
    Notice(crate::notice::Notice),
    Over,
}

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
    /// event's name, when `--event` gave one, comes first), else `None`.
    ///
    /// # Errors
    /// As [`LivePage::start`].
    pub fn for_run(
        run: &crate::run::plan::RunConfig,
        bots: &[crate::run::executor::Entrant],
        title: &str,
        planned: Option<u64>,
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
        };
        LivePage::start(options).map(Some)
    }

    /// Gives the standings' HTML from now on: `standings` is called at once (the table
    /// before any game: every entrant, so the standings are never empty), after a finished
    /// game at most once every [`STANDINGS_EVERY`], and once at the end (escaped: it is
    /// inserted into the page as it is). Without, the page counts each bot's wins, draws and
    /// losses itself.
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

    fn on_history(&mut self, event: &Event) {
        if matches!(event, Event::GameFinished { .. }) {
            self.dirty = true;
            self.done += 1;
            let _ = self.tx.send(Update::History(event.clone()));
        }
    }

    fn on_event(&mut self, event: &Event) -> Flow {
        if matches!(event, Event::GameFinished { .. }) {
            self.dirty = true;
            self.done += 1;
        }
        let _ = self.tx.send(Update::Event(event.clone()));
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

/// A running game.
struct Running {
    id: String,
    /// Its colour-swapped pair: the other game of a pair plays the same book setups.
    pair: u32,
    /// The setup book entries it plays (`None`: the bot's own setup).
    setups: ByColor<Option<u32>>,
    seats: ByColor<usize>,
    /// The spectator's board at the ply shown (from the setups on).
    board: Option<SpectatorBoard>,
    /// Plies played but not shown yet (`--serve-delay`).
    queue: VecDeque<RecordPly>,
    shown: u32,
    played: u32,
    /// Plies shown since the last `boards` message (the board has them already).
    pending: Vec<LivePly>,
    /// Plies played since the last `boards` message.
    moved: bool,
    /// Think time of each side's last move shown, µs.
    last_us: ByColor<u64>,
    /// Each side's bank left at the ply shown, µs (with a bank).
    bank_us: ByColor<Option<i64>>,
}

/// A finished game kept for its viewer page.
struct Finished {
    n: u64,
    record: Arc<GameRecord>,
}

/// A fault's row, with its game's pair and setup book entries: its message can tell where a
/// piece of those setups stood (`the Bomb on a4 cannot move`), so it is held back while
/// another game that plays one of them runs ([`State::shows_through`]).
struct FaultRow {
    row: Value,
    game: String,
    pair: u32,
    setups: ByColor<Option<u32>>,
}

/// What `/games/N.html` answers for a kept finished game.
enum GamePage {
    /// Its viewer page.
    Page(String),
    /// Held back while the running game named would show through it.
    Held(String),
    /// The page could not be made (why).
    Error(String),
}

/// The event as the page shows it.
struct State {
    title: String,
    delay: u32,
    rules: Arc<Ruleset>,
    bots: Vec<LiveBot>,
    /// Square names by board index (`rank * width + file`) and the lakes' indices.
    squares: Vec<String>,
    lakes: Vec<usize>,
    planned: Option<u64>,
    done: u64,
    running: Vec<Running>,
    finished: VecDeque<Finished>,
    finished_rows: VecDeque<Value>,
    /// The faults shown, newest first.
    faults: VecDeque<FaultRow>,
    /// Faults not shown yet: a running game plays a setup of theirs.
    held_faults: VecDeque<FaultRow>,
    standings: String,
    /// With no standings from the command: each bot's wins, draws, losses.
    own_score: Option<Vec<[u32; 3]>>,
    standings_dirty: bool,
    last_standings: Option<Instant>,
    over: bool,
    tx: broadcast::Sender<Arc<str>>,
    /// The remote bots' listener (their connection states).
    remote: Option<Arc<crate::remote::hub::ListenOptions>>,
    /// Per bot, when remote: the lag of its last moves and the credit given.
    lags: Vec<Option<RemoteLag>>,
    /// The `remote` table last sent.
    remote_sent: Value,
    last_remote: Option<Instant>,
    /// Whether the machine was overloaded, from the finished games' stall credit.
    overload: crate::run::overload::Overload,
    /// The host's notices, newest first.
    notices: VecDeque<Value>,
}

/// A remote bot's lag, from its moves' records.
#[derive(Default)]
struct RemoteLag {
    /// The measured one-way lag at each of its last [`KEEP_LAGS`] moves, µs.
    lag_us: VecDeque<u64>,
    moves: u64,
    credit_us: u64,
}

/// One server-sent event.
fn sse(name: &str, data: &Value) -> Arc<str> {
    format!("event: {name}\ndata: {data}\n\n").into()
}

impl State {
    fn new(options: &LivePageOptions) -> State {
        let rules = options.rules.clone();
        let (w, h) = (usize::from(rules.width()), usize::from(rules.height()));
        let mut squares = vec![String::new(); w * h];
        let mut lakes = Vec::new();
        for rank in 0..rules.height() {
            for file in 0..rules.width() {
                let sq = stratego_rules::Square::new(file, rank).expect("a square of the board");
                let i = usize::from(rank) * w + usize::from(file);
                squares[i] = sq.to_string();
                if rules.is_lake(sq) {
                    lakes.push(i);
                }
            }
        }
        let (tx, _) = broadcast::channel(QUEUE);
        let mut state = State {
            title: options.title.clone(),
            delay: options.delay,
            rules,
            bots: options.bots.clone(),
            squares,
            lakes,
            planned: options.planned,
            done: 0,
            running: Vec::new(),
            finished: VecDeque::new(),
            finished_rows: VecDeque::new(),
            faults: VecDeque::new(),
            held_faults: VecDeque::new(),
            standings: String::new(),
            own_score: Some(vec![[0; 3]; options.bots.len()]),
            standings_dirty: false,
            last_standings: None,
            over: false,
            tx,
            remote: options.remote.clone(),
            lags: options.remote_bots.iter().map(|&r| r.then(RemoteLag::default)).collect(),
            remote_sent: Value::Null,
            last_remote: None,
            overload: crate::run::overload::Overload::new(
                &options.bots.iter().map(|b| b.name.clone()).collect::<Vec<_>>(),
            ),
            notices: VecDeque::new(),
        };
        state.standings = state.score_html();
        state
    }

    fn send(&self, name: &str, data: &Value) {
        // No receivers is fine: nobody is watching.
        let _ = self.tx.send(sse(name, data));
    }

    fn game_json(&self, g: &Running) -> Value {
        let name = |id: usize| self.bots.get(id).map_or("?", |b| b.name.as_str()).to_owned();
        let tc = |id: usize| self.bots.get(id).map(|b| b.time_control);
        json!({
            "id": g.id,
            "red": name(g.seats.red),
            "blue": name(g.seats.blue),
            "shown": g.shown,
            "played": g.played,
            "board": g.board.as_ref().map(SpectatorBoard::cells),
            "to_move": g.board.as_ref().map(|b| b.to_move().name()),
            "clocks": clocks_json(g, tc(g.seats.red), tc(g.seats.blue)),
        })
    }

    /// Everything, as it is now. The plies not yet sent go out first (to the clients already
    /// reading), so that the boards of the snapshot are those of the last `boards` message:
    /// subscribe a new client after this, not before.
    fn snapshot(&mut self) -> Value {
        self.flush_boards();
        json!({
            "title": self.title,
            "delay": self.delay,
            "planned": self.planned,
            "done": self.done,
            "width": self.rules.width(),
            "height": self.rules.height(),
            "squares": self.squares,
            "lakes": self.lakes,
            "games": self.running.iter().map(|g| self.game_json(g)).collect::<Vec<_>>(),
            "finished": self.finished_rows,
            "faults": self.faults.iter().map(|f| self.fault_json(f)).collect::<Vec<_>>(),
            "standings": self.standings,
            "remote": self.remote_json(),
            "overload": self.overload,
            "notices": self.notices,
            "over": self.over,
        })
    }

    fn apply(&mut self, update: Update) {
        match update {
            Update::Event(e) => self.on_event(e, false),
            Update::History(e) => self.on_event(e, true),
            Update::Standings(html) => {
                self.standings = html;
                self.send("standings", &json!({ "html": self.standings, "done": self.done }));
            }
            Update::OwnStandings(own) => {
                self.own_score = own.then(|| vec![[0; 3]; self.bots.len()]);
                self.standings = self.score_html();
            }
            Update::Notice(n) => self.notice(&n),
            Update::Over => {
                self.flush_boards();
                self.flush_standings(true);
                self.flush_remote(true);
                self.over = true;
                self.send("over", &json!({ "done": self.done }));
            }
        }
    }

    fn on_event(&mut self, event: Event, history: bool) {
        match event {
            Event::GameStarted { spec } => {
                let bank =
                    |id: usize| self.bots.get(id).and_then(|b| b.time_control.bank_ms).map(|ms| ms as i64 * 1000);
                let g = Running {
                    id: spec.game_id.clone(),
                    pair: spec.pair,
                    setups: spec.setups,
                    seats: spec.seats,
                    board: None,
                    queue: VecDeque::new(),
                    shown: 0,
                    played: 0,
                    pending: Vec::new(),
                    moved: false,
                    last_us: ByColor::new(0, 0),
                    bank_us: ByColor::new(bank(spec.seats.red), bank(spec.seats.blue)),
                };
                self.send("game", &self.game_json(&g));
                self.running.push(g);
            }
            Event::GameSetups { game_id, deployments } => {
                let Some(i) = self.running.iter().position(|g| g.id == game_id) else { return };
                // The referee checked the setups: every piece on its square, no rank public.
                self.running[i].board = Some(SpectatorBoard::start(&self.rules, &deployments.red, &deployments.blue));
                let data = self.game_json(&self.running[i]);
                self.send("game", &data);
            }
            Event::Ply { game_id, ply } => {
                let Some(i) = self.running.iter().position(|g| g.id == game_id) else { return };
                self.running[i].played += 1;
                self.running[i].moved = true;
                let bot = self.running[i].seats[ply.ply.color];
                if let Some(Some(l)) = self.lags.get_mut(bot) {
                    if let Some(lag) = ply.lag_us {
                        if l.lag_us.len() == KEEP_LAGS {
                            l.lag_us.pop_front();
                        }
                        l.lag_us.push_back(lag);
                    }
                    l.moves += 1;
                    l.credit_us += ply.lag_credit_us;
                }
                self.running[i].queue.push_back(ply);
                while self.running[i].queue.len() > self.delay as usize {
                    self.show_next(i);
                }
            }
            Event::Fault { spec, color, reason, message } => {
                let bot = self.bots.get(spec.seats[color]).map_or("?", |b| b.name.as_str()).to_owned();
                let row = json!({
                    "game": spec.game_id,
                    "bot": bot,
                    "color": color.name(),
                    "reason": reason.code(),
                    "message": crate::text::clip(&message),
                });
                let fault = FaultRow { row, game: spec.game_id.clone(), pair: spec.pair, setups: spec.setups };
                if self.shows_through(&fault.game, fault.pair, fault.setups).is_some() {
                    self.hold_fault(fault);
                } else {
                    self.publish_fault(fault);
                }
            }
            Event::GameFinished { spec, record } => {
                self.done += 1;
                self.running.retain(|g| g.id != spec.game_id);
                if let Some(score) = self.own_score.as_mut() {
                    for color in [Color::Red, Color::Blue] {
                        let k = match record.result.winner {
                            None => 1,
                            Some(w) if w == color => 0,
                            Some(_) => 2,
                        };
                        if let Some(s) = score.get_mut(spec.seats[color]) {
                            s[k] += 1;
                        }
                    }
                    self.standings_dirty = true;
                }
                let was = self.overload.overloaded;
                self.overload.add(spec.seats, &record);
                if !history && (was || self.overload.overloaded) {
                    self.send("overload", &json!(self.overload));
                }
                let n = self.done;
                let row = finished_row(n, &record);
                self.finished.push_front(Finished { n, record });
                self.finished.truncate(KEEP_FINISHED);
                self.finished_rows.push_front(row.clone());
                self.finished_rows.truncate(KEEP_FINISHED);
                if !history {
                    self.send("finished", &json!({ "row": row, "done": self.done }));
                }
                // After the game's end is sent: a client sees the game gone, then the faults
                // it held back.
                self.release_faults();
            }
        }
    }

    /// The running game (other than `game` itself) that plays a setup `game` played: the
    /// other game of its pair (`pair`), or one that plays one of its setup book entries
    /// (`setups`; with a book smaller than the pairs, sequential order wraps and random
    /// draws repeat). While it runs, what shows `game`'s setups is held back.
    fn shows_through(&self, game: &str, pair: u32, setups: ByColor<Option<u32>>) -> Option<&str> {
        let used = |e: Option<u32>| e.is_some_and(|e| setups.red == Some(e) || setups.blue == Some(e));
        self.running
            .iter()
            .filter(|g| g.id != game)
            .find(|g| g.pair == pair || used(g.setups.red) || used(g.setups.blue))
            .map(|g| g.id.as_str())
    }

    /// A fault as sent: its message left out while a running game plays one of its game's
    /// setups (it may have been shown before that game started).
    fn fault_json(&self, f: &FaultRow) -> Value {
        let mut row = f.row.clone();
        if let Some(running) = self.shows_through(&f.game, f.pair, f.setups) {
            row["message"] =
                Value::String(format!("(held back while game {running} is running: it plays a setup of this game's)"));
            row["held"] = Value::Bool(true);
        }
        row
    }

    /// Shows a notice of the host's: listed (newest first, the last [`KEEP_NOTICES`]) and
    /// sent, its `stratego-host: ` prefix left out; not the page's own address (the page is
    /// there).
    fn notice(&mut self, n: &crate::notice::Notice) {
        let text = n.text.strip_prefix("stratego-host: ").unwrap_or(&n.text);
        if text.starts_with("live page: http://") {
            return;
        }
        let row = json!({
            "level": match n.level {
                crate::notice::Level::Always => "always",
                crate::notice::Level::Info => "info",
            },
            "warning": text.starts_with("warning: "),
            "text": match text.char_indices().nth(NOTICE_CHARS) {
                Some((end, _)) => format!("{}…", &text[..end]),
                None => text.to_owned(),
            },
        });
        self.send("notice", &row);
        self.notices.push_front(row);
        self.notices.truncate(KEEP_NOTICES);
    }

    /// Holds a fault back until no running game plays its game's setups. No fault is dropped
    /// unsent: past [`KEEP_FAULTS`] held, the oldest is sent now with its message withheld
    /// for good (it may tell a setup a running game plays).
    fn hold_fault(&mut self, fault: FaultRow) {
        if self.held_faults.len() >= KEEP_FAULTS {
            let Some(mut oldest) = self.held_faults.pop_front() else { return };
            oldest.row["message"] = Value::String(format!(
                "(withheld: more than {KEEP_FAULTS} faults were waiting for running games that play their games' setups)"
            ));
            oldest.row["held"] = Value::Bool(true);
            self.publish_fault(oldest);
        }
        self.held_faults.push_back(fault);
    }

    /// Shows a fault: sent, and listed.
    fn publish_fault(&mut self, fault: FaultRow) {
        self.send("fault", &fault.row);
        self.faults.push_front(fault);
        self.faults.truncate(KEEP_FAULTS);
    }

    /// Shows the held faults that no running game shows through any more, oldest first.
    fn release_faults(&mut self) {
        for fault in std::mem::take(&mut self.held_faults) {
            if self.shows_through(&fault.game, fault.pair, fault.setups).is_some() {
                self.held_faults.push_back(fault);
            } else {
                self.publish_fault(fault);
            }
        }
    }

    /// Shows the next ply of running game `i`.
    fn show_next(&mut self, i: usize) {
        let Some(ply) = self.running[i].queue.pop_front() else { return };
        let g = &mut self.running[i];
        let Some(board) = g.board.as_mut() else { return };
        let mover = board.to_move();
        let live = LivePly::of(&ply.ply);
        if let Err(e) = board.apply(&live, &mut Vec::new()) {
            tracing::warn!("--serve: game {}: {e}", g.id);
            return;
        }
        g.pending.push(live);
        g.shown += 1;
        g.last_us[mover] = ply.time_us;
        let inc = self.bots.get(g.seats[mover]).map_or(0, |b| b.time_control.increment_ms as i64 * 1000);
        if let Some(left) = g.bank_us[mover].as_mut() {
            *left = *left - ply.time_us as i64 + inc;
        }
    }

    /// One `boards` message with the plies shown since the last one (nothing is made when
    /// nobody is watching).
    fn flush_boards(&mut self) {
        let watched = self.tx.receiver_count() > 0;
        let tc = |id: usize| self.bots.get(id).map(|b| b.time_control);
        let mut list = Vec::new();
        for g in &mut self.running {
            if !g.moved || g.board.is_none() {
                continue;
            }
            g.moved = false;
            let plies = std::mem::take(&mut g.pending);
            if watched {
                list.push(json!({
                    "id": g.id,
                    "shown": g.shown,
                    "played": g.played,
                    "plies": plies,
                    "to_move": g.board.as_ref().map(|b| b.to_move().name()),
                    "clocks": clocks_json(g, tc(g.seats.red), tc(g.seats.blue)),
                }));
            }
        }
        if !list.is_empty() {
            self.send("boards", &json!({ "games": list }));
        }
    }

    fn flush_standings(&mut self, force: bool) {
        if !self.standings_dirty {
            return;
        }
        if !force && self.last_standings.is_some_and(|t| t.elapsed() < STANDINGS_EVERY) {
            return;
        }
        self.standings = self.score_html();
        self.standings_dirty = false;
        self.last_standings = Some(Instant::now());
        self.send("standings", &json!({ "html": self.standings, "done": self.done }));
    }

    /// The remote bots' table: each one's connection and the lag of its moves (median and
    /// 90th percentile of its last moves' measured one-way lag, and the credit given).
    fn remote_json(&self) -> Value {
        let status = self
            .remote
            .as_ref()
            .and_then(|l| l.page.hub.get())
            .and_then(std::sync::Weak::upgrade)
            .map(|h| h.status())
            .unwrap_or_default();
        let rows: Vec<Value> = self
            .lags
            .iter()
            .enumerate()
            .filter_map(|(id, l)| Some((id, l.as_ref()?)))
            .map(|(id, l)| {
                let name = self.bots.get(id).map_or("?", |b| b.name.as_str());
                let st = status.iter().find(|s| s.name == name);
                let mut sorted: Vec<u64> = l.lag_us.iter().copied().collect();
                sorted.sort_unstable();
                // Nearest rank.
                let pct = |p: usize| (!sorted.is_empty()).then(|| sorted[(p * sorted.len()).div_ceil(100).max(1) - 1]);
                json!({
                    "name": name,
                    "connected": st.is_some_and(|s| s.connected),
                    "connections": st.map_or(0, |s| s.connections),
                    "lag_now_us": st.and_then(|s| s.one_way_lag).map(|d| d.as_micros() as u64),
                    "moves": l.moves,
                    "lag_median_us": pct(50),
                    "lag_p90_us": pct(90),
                    "credit_us": l.credit_us,
                })
            })
            .collect();
        Value::Array(rows)
    }

    /// A `remote` message when the table changed, at most once every [`STANDINGS_EVERY`]
    /// (`force`: now, at the end).
    fn flush_remote(&mut self, force: bool) {
        if self.remote.is_none() || (!force && self.last_remote.is_some_and(|t| t.elapsed() < STANDINGS_EVERY)) {
            return;
        }
        self.last_remote = Some(Instant::now());
        let table = self.remote_json();
        if table != self.remote_sent {
            self.send("remote", &json!({ "bots": table }));
            self.remote_sent = table;
        }
    }

    /// The page's own score table (wins, draws, losses, points), best first.
    fn score_html(&self) -> String {
        let Some(score) = &self.own_score else { return String::new() };
        let mut rows: Vec<(usize, [u32; 3])> = score.iter().copied().enumerate().collect();
        rows.sort_by(|a, b| {
            let points = |s: [u32; 3]| 2 * s[0] + s[1];
            points(b.1).cmp(&points(a.1)).then(a.0.cmp(&b.0))
        });
        let mut out = String::from(
            "<table class=\"score\"><thead><tr><th>Bot</th><th>Games</th><th>Won</th><th>Drawn</th><th>Lost</th><th>Points</th></tr></thead><tbody>",
        );
        for (id, [w, d, l]) in rows {
            let name = self.bots.get(id).map_or("?", |b| b.name.as_str());
            out.push_str(&format!(
                "<tr data-bot=\"{0}\"><td>{0}</td><td>{1}</td><td>{w}</td><td>{d}</td><td>{l}</td><td>{2}</td></tr>",
                html_escape(name),
                w + d + l,
                f64::from(w) + f64::from(d) / 2.0
            ));
        }
        out.push_str("</tbody></table>");
        out
    }

    /// The viewer page of the `n`-th finished game: `None` when it is not kept.
    ///
    /// Held back ([`GamePage::Held`]) while a running game plays one of its setups (the
    /// other game of its colour-swapped pair, or any game that plays one of its setup book
    /// entries, see [`State::shows_through`]): the page shows every rank of both setups.
    fn viewer_page(&self, n: u64) -> Option<GamePage> {
        let f = self.finished.iter().find(|f| f.n == n)?;
        let record = &f.record;
        if let Some(running) = self.shows_through(&record.game_id, record.pair, record.book_setups) {
            return Some(GamePage::Held(running.to_owned()));
        }
        let title = format!("{}: game {}", self.title, record.game_id);
        Some(match crate::display::files::viewer::export_html(std::slice::from_ref(&**record), &title) {
            Ok(html) => GamePage::Page(html),
            Err(e) => GamePage::Error(e),
        })
    }
}

/// Each side's clock at the ply shown: its last think time and, with a bank, what is left.
fn clocks_json(
    g: &Running,
    red: Option<stratego_protocol::TimeControl>,
    blue: Option<stratego_protocol::TimeControl>,
) -> Value {
    let side = |c: Color, tc: Option<stratego_protocol::TimeControl>| {
        json!({
            "last_us": g.last_us[c],
            "bank_us": g.bank_us[c],
            "move_ms": tc.and_then(|t| t.move_ms),
        })
    };
    json!({ "red": side(Color::Red, red), "blue": side(Color::Blue, blue) })
}

/// A finished game's row: its number, id, bots, result and viewer page.
fn finished_row(n: u64, r: &GameRecord) -> Value {
    let score = match r.result.winner {
        Some(Color::Red) => "1-0",
        Some(Color::Blue) => "0-1",
        None => "½-½",
    };
    json!({
        "n": n,
        "id": r.game_id,
        "red": r.bots.red.name,
        "blue": r.bots.blue.name,
        "result": format!("{score} {}", r.result.reason.code()),
        "plies": r.plies.len(),
        "href": format!("/games/{n}.html"),
    })
}

// ---- the server ---------------------------------------------------------------------------

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
                set_send_buffer(&stream);
                let (state, assets, closing) = (state.clone(), assets.clone(), closing.clone());
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

/// Why a connection is refused.
#[derive(Clone, Copy, Debug)]
enum Refusal {
    /// [`MAX_CONNECTIONS`] are open.
    Full,
    /// The per-address limit (this many) is open from the client's address.
    Address(usize),
}

/// The address a connection counts against: an IPv4 address (also when mapped into IPv6),
/// or an IPv6 address's /56 (one client usually has a /64 and often a /56 or a /48: a
/// /64 apiece let one client open four times the limit).
fn address_key(ip: std::net::IpAddr) -> std::net::IpAddr {
    use std::net::{IpAddr, Ipv6Addr};
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !(u128::MAX >> 56))),
        },
    }
}

/// The connections open from each address, and the most one may have open
/// ([`LivePageOptions::per_address`]).
#[derive(Clone)]
struct PerAddress {
    counts: Arc<Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
    limit: usize,
}

/// One connection counted against its address, until dropped.
struct AddressSlot {
    counts: PerAddress,
    address: std::net::IpAddr,
}

impl PerAddress {
    /// Counts a connection from `address`, unless the limit is open from it.
    fn take(&self, address: std::net::IpAddr) -> Result<AddressSlot, Refusal> {
        let mut counts = self.counts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = counts.entry(address).or_default();
        if *n >= self.limit {
            return Err(Refusal::Address(self.limit));
        }
        *n += 1;
        Ok(AddressSlot { counts: self.clone(), address })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.counts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = counts.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.address);
            }
        }
    }
}

/// Tells a client refused (past [`MAX_CONNECTIONS`], or [`MAX_PER_ADDRESS`] from its
/// address) so, and closes.
async fn refuse(mut stream: tokio::net::TcpStream, why: Refusal) {
    use tokio::io::AsyncWriteExt as _;
    let body = match why {
        Refusal::Full => format!("too many connections (at most {MAX_CONNECTIONS})\n"),
        Refusal::Address(n) => format!("too many connections from your address (at most {n})\n"),
    };
    let reply = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(reply.as_bytes())).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.shutdown()).await;
}

/// Bounds the kernel's send buffer of a connection ([`SEND_BUFFER`]).
fn set_send_buffer(stream: &tokio::net::TcpStream) {
    use std::os::fd::AsRawFd as _;
    let size = SEND_BUFFER as libc::c_int;
    // SAFETY: a valid socket descriptor, and a pointer to an int of the size given.
    let _ = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&raw const size).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
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
        "/events" => return events(state),
        "/viewer.wasm" => return assets.wasm(req),
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
fn events(state: &Shared) -> Response<Body> {
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

/// A connection whose writes fail once they have been blocked for [`WRITE_STALL`] (a
/// client that stopped reading).
struct Stalls {
    inner: tokio::net::TcpStream,
    blocked: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Stalls {
    fn new(inner: tokio::net::TcpStream) -> Stalls {
        Stalls { inner, blocked: None }
    }

    fn check<T>(&mut self, cx: &mut Context<'_>, poll: Poll<std::io::Result<T>>) -> Poll<std::io::Result<T>> {
        match poll {
            Poll::Ready(r) => {
                self.blocked = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let timer = self.blocked.get_or_insert_with(|| Box::pin(tokio::time::sleep(WRITE_STALL)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the client has not read for too long",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl AsyncRead for Stalls {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stalls {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.check(cx, poll)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.check(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        };
        State::new(&options)
    }

    async fn next_text(body: &mut Body) -> String {
        let frame = body.frame().await.expect("a frame").expect("no error");
        String::from_utf8(frame.into_data().expect("data").to_vec()).expect("UTF-8")
    }

    #[tokio::test]
    async fn a_client_that_falls_behind_gets_a_snapshot_not_the_backlog() {
        let shared: Shared = Arc::new(Mutex::new(state()));
        let mut body = events(&shared).into_body();
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
        st.running.push(Running {
            id: "run".into(),
            pair: 999,
            setups: ByColor::new(Some(0), None),
            seats: ByColor::new(0, 1),
            board: None,
            queue: VecDeque::new(),
            shown: 0,
            played: 0,
            pending: Vec::new(),
            moved: false,
            last_us: ByColor::default(),
            bank_us: ByColor::default(),
        });
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
    fn an_ipv6_56_is_one_address() {
        let key = |s: &str| address_key(s.parse().unwrap());
        // Four /64s of one /56 (a client's usual delegation): one address.
        assert_eq!(key("2001:db8:0:100::1"), key("2001:db8:0:1ff::2"));
        assert_eq!(key("2001:db8:0:100::1"), key("2001:db8:0:1a0:ffff::9"));
        // Another /56: another address.
        assert_ne!(key("2001:db8:0:100::1"), key("2001:db8:0:200::1"));
        assert_eq!(key("::ffff:127.0.0.2"), key("127.0.0.2"));
    }

    #[test]
    fn the_page_title_is_escaped() {
        let html = page_html("</title><script>alert(1)</script>", "0123");
        assert!(!html.contains("<script>alert(1)"));
        assert!(html.contains("&lt;/title&gt;"));
    }
}
