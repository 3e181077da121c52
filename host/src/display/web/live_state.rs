//! The live page's state: the event as the page shows it (the standings, the games
//! running with their spectator boards, the last finished games, the faults held back while
//! a running game plays their setups, the remote bots' lag, the host's notices), what the
//! sink hands it ([`Update`]) and the messages it sends its clients. The sink and the HTTP
//! server are [`crate::display::web::live_page`].

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stratego_protocol::record::{GameRecord, RecordPly};
use stratego_rules::{ByColor, Color, Ruleset};
use stratego_viewer_wasm::live::{LivePly, SpectatorBoard};
use tokio::sync::broadcast;

use crate::display::files::viewer::html_escape;
use crate::run::happenings::Happening;

/// Shortest time between two `standings` messages.
pub const STANDINGS_EVERY: Duration = Duration::from_secs(1);
/// Finished games whose viewer pages are kept.
pub const KEEP_FINISHED: usize = 100;
/// Faults listed.
pub(crate) const KEEP_FAULTS: usize = 50;
/// The longest notice shown, characters (the rest is cut, with `…`).
const NOTICE_CHARS: usize = 600;
/// Notices listed (what the host told the person running it: [`crate::notice`]).
pub const KEEP_NOTICES: usize = crate::notice::KEEP;
/// Messages every client's stream may be behind before it is sent a snapshot instead.
pub const QUEUE: usize = 64;

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
    /// [`crate::display::web::live_page::MAX_PER_ADDRESS`]; at most
    /// [`crate::display::web::live_page::MAX_CONNECTIONS`]).
    pub per_address: usize,
    /// An arena's pages per bot (`arena run --serve`): `/bots/NAME`, `/arena/games/ID.html`,
    /// `/arena/version`; `None` for every other run.
    pub bot_pages: Option<Arc<dyn crate::display::web::bot_page::ArenaPages>>,
}

/// Lag figures kept per remote bot (its last moves').
const KEEP_LAGS: usize = 1000;

/// What the sink hands the server thread.
pub(crate) enum Update {
    /// A happening of this run.
    Happening(Happening),
    History(Happening),
    Standings(String),
    /// Whether the page counts the standings itself.
    OwnStandings(bool),
    /// A notice of the host's ([`crate::notice`]).
    Notice(crate::notice::Notice),
    Over,
}

/// A running game.
pub(crate) struct Running {
    pub(crate) id: String,
    /// Its colour-swapped pair: the other game of a pair plays the same book setups.
    pub(crate) pair: u32,
    /// The setup book entries it plays (`None`: the bot's own setup).
    pub(crate) setups: ByColor<Option<u32>>,
    pub(crate) seats: ByColor<usize>,
    /// The spectator's board at the ply shown (from the setups on).
    pub(crate) board: Option<SpectatorBoard>,
    /// Plies played but not shown yet (`--serve-delay`).
    pub(crate) queue: VecDeque<RecordPly>,
    pub(crate) shown: u32,
    pub(crate) played: u32,
    /// Plies shown since the last `boards` message (the board has them already).
    pub(crate) pending: Vec<LivePly>,
    /// Plies played since the last `boards` message.
    pub(crate) moved: bool,
    /// Think time of each side's last move shown, µs.
    pub(crate) last_us: ByColor<u64>,
    /// Each side's bank left at the ply shown, µs (with a bank).
    pub(crate) bank_us: ByColor<Option<i64>>,
}

impl Running {
    /// A game that has just started: no board yet (its setups come next), nothing shown.
    pub(crate) fn new(
        id: String,
        pair: u32,
        setups: ByColor<Option<u32>>,
        seats: ByColor<usize>,
        bank_us: ByColor<Option<i64>>,
    ) -> Running {
        Running {
            id,
            pair,
            setups,
            seats,
            board: None,
            queue: VecDeque::new(),
            shown: 0,
            played: 0,
            pending: Vec::new(),
            moved: false,
            last_us: ByColor::new(0, 0),
            bank_us,
        }
    }
}

/// A finished game kept for its viewer page.
pub(crate) struct Finished {
    pub(crate) n: u64,
    pub(crate) record: Arc<GameRecord>,
}

/// A fault's row, with its game's pair and setup book entries: its message can tell where a
/// piece of those setups stood (`the Bomb on a4 cannot move`), so it is held back while
/// another game that plays one of them runs ([`State::shows_through`]).
pub(crate) struct FaultRow {
    pub(crate) row: Value,
    pub(crate) game: String,
    pub(crate) pair: u32,
    pub(crate) setups: ByColor<Option<u32>>,
}

/// What `/games/N.html` answers for a kept finished game.
pub(crate) enum GamePage {
    /// Its viewer page.
    Page(String),
    /// Held back while the running game named would show through it.
    Held(String),
    /// The page could not be made (why).
    Error(String),
}

/// The event as the page shows it.
pub(crate) struct State {
    pub(crate) title: String,
    pub(crate) delay: u32,
    pub(crate) rules: Arc<Ruleset>,
    pub(crate) bots: Vec<LiveBot>,
    /// Square names by board index (`rank * width + file`) and the lakes' indices.
    pub(crate) squares: Vec<String>,
    pub(crate) lakes: Vec<usize>,
    pub(crate) planned: Option<u64>,
    pub(crate) done: u64,
    pub(crate) running: Vec<Running>,
    pub(crate) finished: VecDeque<Finished>,
    pub(crate) finished_rows: VecDeque<Value>,
    /// The faults shown, newest first.
    pub(crate) faults: VecDeque<FaultRow>,
    /// Faults not shown yet: a running game plays a setup of theirs.
    pub(crate) held_faults: VecDeque<FaultRow>,
    pub(crate) standings: String,
    /// With no standings from the command: each bot's wins, draws, losses.
    pub(crate) own_score: Option<Vec<[u32; 3]>>,
    pub(crate) standings_dirty: bool,
    pub(crate) last_standings: Option<Instant>,
    pub(crate) over: bool,
    pub(crate) tx: broadcast::Sender<Arc<str>>,
    /// The remote bots' listener (their connection states).
    pub(crate) remote: Option<Arc<crate::remote::hub::ListenOptions>>,
    /// Per bot, when remote: the lag of its last moves and the credit given.
    pub(crate) lags: Vec<Option<RemoteLag>>,
    /// The `remote` table last sent.
    pub(crate) remote_sent: Value,
    pub(crate) last_remote: Option<Instant>,
    /// Whether the machine was overloaded, from the finished games' stall credit.
    pub(crate) overload: crate::run::overload::Overload,
    /// The host's notices, newest first.
    pub(crate) notices: VecDeque<Value>,
    /// The arena's pages per bot (`arena run --serve`), when the run has them.
    pub(crate) arena: Option<Arc<dyn crate::display::web::bot_page::ArenaPages>>,
}

/// A remote bot's lag, from its moves' records.
#[derive(Default)]
pub(crate) struct RemoteLag {
    /// The measured one-way lag at each of its last [`KEEP_LAGS`] moves, µs.
    pub(crate) lag_us: VecDeque<u64>,
    pub(crate) moves: u64,
    pub(crate) credit_us: u64,
}

/// One server-sent event.
pub(crate) fn sse(name: &str, data: &Value) -> Arc<str> {
    format!("event: {name}\ndata: {data}\n\n").into()
}

impl State {
    pub(crate) fn new(options: &LivePageOptions) -> State {
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
            arena: options.bot_pages.clone(),
        };
        state.standings = state.score_html();
        state
    }

    pub(crate) fn send(&self, name: &str, data: &Value) {
        // No receivers is fine: nobody is watching.
        let _ = self.tx.send(sse(name, data));
    }

    pub(crate) fn game_json(&self, g: &Running) -> Value {
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
    pub(crate) fn snapshot(&mut self) -> Value {
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
            "bot_pages": self.arena.is_some(),
        })
    }

    pub(crate) fn apply(&mut self, update: Update) {
        match update {
            Update::Happening(e) => self.on_happening(e, false),
            Update::History(e) => self.on_happening(e, true),
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

    pub(crate) fn on_happening(&mut self, happening: Happening, history: bool) {
        match happening {
            Happening::Joined { id, name, time_control, remote } => self.joined(id, name, time_control, remote),
            Happening::GameStarted { spec } => {
                let bank =
                    |id: usize| self.bots.get(id).and_then(|b| b.time_control.bank_ms).map(|ms| ms as i64 * 1000);
                let bank_us = ByColor::new(bank(spec.seats.red), bank(spec.seats.blue));
                let g = Running::new(spec.game_id.clone(), spec.pair, spec.setups, spec.seats, bank_us);
                self.send("game", &self.game_json(&g));
                self.running.push(g);
            }
            Happening::GameSetups { game_id, deployments } => {
                let Some(i) = self.running.iter().position(|g| g.id == game_id) else { return };
                // The referee checked the setups: every piece on its square, no rank public.
                self.running[i].board = Some(SpectatorBoard::start(&self.rules, &deployments.red, &deployments.blue));
                let data = self.game_json(&self.running[i]);
                self.send("game", &data);
            }
            Happening::Ply { game_id, ply } => {
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
            Happening::Fault { spec, color, reason, message } => {
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
            Happening::GameFinished { spec, record } => self.game_finished(&spec, record, history),
        }
    }

    /// An entrant a running arena admitted: the page names it from now on.
    fn joined(&mut self, id: usize, name: String, time_control: crate::game::clock::TimeControl, remote: bool) {
        let bot = LiveBot { name, time_control: time_control.to_wire() };
        if self.bots.len() <= id {
            self.bots.resize(id + 1, LiveBot { name: "?".to_owned(), ..bot.clone() });
            self.lags.resize_with(id + 1, || None);
            if let Some(score) = self.own_score.as_mut() {
                score.resize(id + 1, [0; 3]);
            }
        }
        self.lags[id] = remote.then(RemoteLag::default);
        self.overload.name_bot(id, &bot.name);
        self.bots[id] = bot;
    }

    /// A game is over: the tallies, the overload figures and the finished list, then the
    /// faults it held back.
    fn game_finished(&mut self, spec: &crate::run::schedule::GameSpec, record: Arc<GameRecord>, history: bool) {
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

    /// The running game (other than `game` itself) that plays a setup `game` played: the
    /// other game of its pair (`pair`), or one that plays one of its setup book entries
    /// (`setups`; with a book smaller than the pairs, sequential order wraps and random
    /// draws repeat). While it runs, what shows `game`'s setups is held back.
    /// The running games of bot `name`, as its arena page names them (never their boards).
    pub(crate) fn running_of(&self, name: &str) -> Vec<crate::display::web::bot_page::RunningGame> {
        let bot = |id: usize| self.bots.get(id).map_or("?", |b| b.name.as_str());
        self.running
            .iter()
            .filter_map(|g| {
                let (color, opponent) = if bot(g.seats.red) == name {
                    ("red", bot(g.seats.blue))
                } else if bot(g.seats.blue) == name {
                    ("blue", bot(g.seats.red))
                } else {
                    return None;
                };
                Some(crate::display::web::bot_page::RunningGame {
                    game_id: g.id.clone(),
                    opponent: opponent.to_owned(),
                    color: color.to_owned(),
                    ply: g.shown,
                })
            })
            .collect()
    }

    /// The ids of the running games, for the arena pages' version.
    pub(crate) fn running_ids(&self) -> String {
        self.running.iter().map(|g| g.id.as_str()).collect::<Vec<_>>().join(",")
    }

    /// As [`State::shows_through`] for a game stored by an earlier run too (an arena's): a
    /// pair number is a run's own, so the pair rule holds only between games of one run
    /// (their ids alike up to the last `-`); the setup book rule holds across runs.
    pub(crate) fn shows_through_stored(&self, record: &GameRecord) -> Option<&str> {
        let run = |id: &str| id.rsplit_once('-').map_or(id, |(r, _)| r).to_owned();
        let used =
            |e: Option<u32>| e.is_some_and(|e| record.book_setups.red == Some(e) || record.book_setups.blue == Some(e));
        self.running
            .iter()
            .filter(|g| g.id != record.game_id)
            .find(|g| {
                (g.pair == record.pair && run(&g.id) == run(&record.game_id))
                    || used(g.setups.red)
                    || used(g.setups.blue)
            })
            .map(|g| g.id.as_str())
    }

    pub(crate) fn shows_through(&self, game: &str, pair: u32, setups: ByColor<Option<u32>>) -> Option<&str> {
        let used = |e: Option<u32>| e.is_some_and(|e| setups.red == Some(e) || setups.blue == Some(e));
        self.running
            .iter()
            .filter(|g| g.id != game)
            .find(|g| g.pair == pair || used(g.setups.red) || used(g.setups.blue))
            .map(|g| g.id.as_str())
    }

    /// A fault as sent: its message left out while a running game plays one of its game's
    /// setups (it may have been shown before that game started).
    pub(crate) fn fault_json(&self, f: &FaultRow) -> Value {
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
    pub(crate) fn notice(&mut self, n: &crate::notice::Notice) {
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
    pub(crate) fn hold_fault(&mut self, fault: FaultRow) {
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
    pub(crate) fn publish_fault(&mut self, fault: FaultRow) {
        self.send("fault", &fault.row);
        self.faults.push_front(fault);
        self.faults.truncate(KEEP_FAULTS);
    }

    /// Shows the held faults that no running game shows through any more, oldest first.
    pub(crate) fn release_faults(&mut self) {
        for fault in std::mem::take(&mut self.held_faults) {
            if self.shows_through(&fault.game, fault.pair, fault.setups).is_some() {
                self.held_faults.push_back(fault);
            } else {
                self.publish_fault(fault);
            }
        }
    }

    /// Shows the next ply of running game `i`.
    pub(crate) fn show_next(&mut self, i: usize) {
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
    pub(crate) fn flush_boards(&mut self) {
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

    pub(crate) fn flush_standings(&mut self, force: bool) {
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
    pub(crate) fn remote_json(&self) -> Value {
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
    pub(crate) fn flush_remote(&mut self, force: bool) {
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
    pub(crate) fn score_html(&self) -> String {
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
    pub(crate) fn viewer_page(&self, n: u64) -> Option<GamePage> {
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
pub(crate) fn clocks_json(
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
pub(crate) fn finished_row(n: u64, r: &GameRecord) -> Value {
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
