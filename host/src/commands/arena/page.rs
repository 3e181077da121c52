//! The data of the arena's pages per bot (`arena run --serve`), read from the arena's file
//! on a read-only connection of their own (the live page's thread asks, at a low priority;
//! SQLite's WAL lets it read while the arena writes). The pages are rendered by
//! [`crate::display::web::bot_page`].
//!
//! A bot's rating over time is the ladder's Bradley–Terry fit **refitted at checkpoints of
//! the arena's history**: the file's games in the order they were saved are cut into at
//! most [`CHECKPOINTS`] equal prefixes (prefix `i` of `C` ends after `ceil(i·N/C)` of the
//! `N` games), every bot is rated from the games of each prefix, and the bot's page shows a
//! point per prefix in which it had played (the last one is the table's rating now). Nothing
//! is stored: a page reads the file's games once (one row each, no record) and fits `C`
//! times.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use stratego_protocol::record::GameRecord;

use crate::commands::ladder::store::stored_line;
use crate::display::web::bot_page::{ArenaPages, BotPage, OpponentRow, RatingPoint, RecentGame};

/// Most checkpoints of a bot's rating plot.
pub const CHECKPOINTS: usize = 20;
/// Recent games listed on a bot's page.
pub const RECENT: usize = 20;

/// The arena's file as the pages per bot read it.
pub struct StorePages {
    file: PathBuf,
    conn: Mutex<Option<Connection>>,
}

/// The pages per bot of the arena in `file`, for the run's live page (`arena run --serve`
/// hands them to it through [`crate::compete::competition::Competition::bot_pages`]).
pub fn pages(file: &Path) -> Arc<dyn crate::display::web::bot_page::ArenaPages> {
    Arc::new(StorePages { file: file.to_owned(), conn: Mutex::new(None) })
}

/// The live page's standings of an arena: how many games this run saved and plays now, then
/// the ladder's table (`<table id="ranking">`, a row per entrant with `data-bot`: the live
/// page links each name to the entrant's page).
pub fn standings_html(arena: &crate::commands::ladder::store::Ladder, saved: u64, running: usize) -> String {
    let head = format!("{} saved in this run, {running} playing now", stratego_stats::plural(saved, "game"));
    match crate::commands::ladder::table::LadderTable::read(arena) {
        Ok(t) => format!(
            "<p class=\"arena-head\">{}</p><div class=\"arena-table\">{}</div>",
            crate::text::html_escape(&head),
            t.table_html()
        ),
        Err(e) => format!(
            "<pre>{}\nthe table cannot be read: {}</pre>",
            crate::text::html_escape(&head),
            crate::text::html_escape(&e)
        ),
    }
}

/// One saved game, as the rating over time reads it.
struct Row {
    game_id: String,
    red: i64,
    blue: i64,
    red_score: f64,
    reason: String,
    played_unix: i64,
}

impl StorePages {
    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, String> {
        let mut conn = self.conn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if conn.is_none() {
            let c = Connection::open_with_flags(&self.file, OpenFlags::SQLITE_OPEN_READ_ONLY)
                .map_err(|e| format!("{}: {e}", self.file.display()))?;
            c.busy_timeout(std::time::Duration::from_secs(5)).map_err(|e| e.to_string())?;
            *conn = Some(c);
        }
        f(conn.as_ref().expect("opened above")).map_err(|e| e.to_string())
    }
}

/// `(bot id, retired)` of `name`, every bot's name by id, and every game in saved order.
type Read = (Option<(i64, bool)>, HashMap<i64, String>, Vec<Row>);

fn read_all(conn: &Connection, name: &str) -> rusqlite::Result<Read> {
    let me = conn
        .query_row("SELECT id, retired_unix IS NOT NULL FROM bots WHERE name = ?1", [name], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, bool>(1)?))
        })
        .optional()?;
    let mut names = HashMap::new();
    let mut stmt = conn.prepare("SELECT id, name FROM bots")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
        let (id, n) = row?;
        names.insert(id, n);
    }
    let mut stmt = conn.prepare(
        "SELECT game_id, red_bot, blue_bot, result, reason, played_unix FROM games ORDER BY played_unix, id",
    )?;
    let games = stmt
        .query_map([], |r| {
            Ok(Row {
                game_id: r.get(0)?,
                red: r.get(1)?,
                blue: r.get(2)?,
                red_score: r.get(3)?,
                reason: r.get(4)?,
                played_unix: r.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((me, names, games))
}

/// The bot's rating at each checkpoint of `games` where it had played (see the module
/// documentation).
pub fn rating_over_time(games: &[(i64, i64, f64)], bot: i64) -> Vec<RatingPoint> {
    let n = games.len();
    let c = n.min(CHECKPOINTS);
    let mut index: HashMap<i64, usize> = HashMap::new();
    for &(r, b, _) in games {
        let next = index.len();
        index.entry(r).or_insert(next);
        let next = index.len();
        index.entry(b).or_insert(next);
    }
    let mut tallies: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
    let mut played = false;
    let mut out = Vec::new();
    let mut done = 0;
    for i in 1..=c {
        let end = (i * n).div_ceil(c);
        for &(r, b, score) in &games[done..end] {
            played |= r == bot || b == bot;
            let t = tallies.entry((index[&r], index[&b])).or_default();
            t.0 += score;
            t.1 += 1.0;
        }
        done = end;
        if !played {
            continue;
        }
        let bt: Vec<(usize, usize, f64, f64)> = tallies.iter().map(|(&(r, b), &(s, g))| (r, b, s, g)).collect();
        let ratings = stratego_stats::bradley_terry_tallies(index.len(), &bt, None);
        let me = ratings[index[&bot]];
        out.push(RatingPoint { games: end as u64, elo: me.elo, err95: me.err95.is_finite().then_some(me.err95) });
    }
    out
}

impl ArenaPages for StorePages {
    fn bot(&self, name: &str) -> Result<Option<BotPage>, String> {
        let (me, names, games) = self.with(|c| read_all(c, name))?;
        let Some((id, retired)) = me else { return Ok(None) };
        let name_of = |b: i64| names.get(&b).cloned().unwrap_or_else(|| format!("#{b}"));
        let mut opponents: BTreeMap<String, OpponentRow> = BTreeMap::new();
        let mut mine = Vec::new();
        for g in games.iter().filter(|g| g.red == id || g.blue == id) {
            let as_red = g.red == id;
            let score = if as_red { g.red_score } else { 1.0 - g.red_score };
            let opponent = name_of(if as_red { g.blue } else { g.red });
            let row = opponents
                .entry(opponent.clone())
                .or_insert_with(|| OpponentRow { name: opponent.clone(), ..OpponentRow::default() });
            let result = if score == 1.0 {
                row.wins += 1;
                "win"
            } else if score == 0.0 {
                row.losses += 1;
                "loss"
            } else {
                row.draws += 1;
                "draw"
            };
            mine.push(RecentGame {
                game_id: g.game_id.clone(),
                opponent,
                color: if as_red { "red" } else { "blue" }.to_owned(),
                result: result.to_owned(),
                reason: g.reason.clone(),
                played_unix: g.played_unix,
            });
        }
        let rating = rating_over_time(&games.iter().map(|g| (g.red, g.blue, g.red_score)).collect::<Vec<_>>(), id);
        let played = mine.len() as u64;
        mine.reverse();
        mine.truncate(RECENT);
        Ok(Some(BotPage {
            name: name.to_owned(),
            retired,
            games: played,
            opponents: opponents.into_values().collect(),
            recent: mine,
            rating,
            arena_games: games.len() as u64,
            checkpoints_note: format!(
                "The Bradley–Terry rating (Elo scale, 95 % error bars) refitted at up to {CHECKPOINTS} checkpoints of the arena's history: the arena's games in the order they were saved, cut into equal prefixes; a point per prefix in which this bot had played."
            ),
        }))
    }

    fn record(&self, game_id: &str) -> Result<Option<GameRecord>, String> {
        let line = self.with(|c| {
            c.query_row(
                "SELECT r.record FROM games g JOIN records r ON r.game = g.id WHERE g.game_id = ?1",
                params![game_id],
                |r| Ok(stored_line(r.get_ref(0)?)),
            )
            .optional()
        })?;
        match line {
            None => Ok(None),
            Some(line) => {
                let line = line.map_err(|e| format!("game {game_id}: {e}"))?;
                serde_json::from_slice(&line).map(Some).map_err(|e| format!("game {game_id}: stored record: {e}"))
            }
        }
    }

    fn version(&self) -> Result<String, String> {
        self.with(|c| c.query_row("SELECT COALESCE(MAX(id), 0) FROM games", [], |r| r.get::<_, i64>(0)))
            .map(|v| v.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checkpoints_cut_the_history_into_equal_prefixes_and_skip_those_before_the_bot_played() {
        // 45 games: 20 checkpoints after 3, 5, 7, 9, 12, … 45 games; bot 3 plays from game 10.
        let mut games: Vec<(i64, i64, f64)> = (0..9).map(|i| (1, 2, f64::from(i % 2))).collect();
        games.extend((0..36).map(|i| if i % 2 == 0 { (3, 1, 1.0) } else { (2, 3, 0.5) }));
        let points = rating_over_time(&games, 3);
        let ends: Vec<u64> = (1..=20u64).map(|i| (i * 45).div_ceil(20)).filter(|&e| e >= 10).collect();
        assert_eq!(points.iter().map(|p| p.games).collect::<Vec<_>>(), ends);
        assert!(points.last().unwrap().elo > 0.0, "it beat bot 1 every time: {points:?}");
        // Fewer games than checkpoints: one a game.
        assert_eq!(rating_over_time(&games[..5], 1).len(), 5);
        assert!(rating_over_time(&[], 1).is_empty());
    }
}
