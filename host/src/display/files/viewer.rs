//! The HTML viewer of game records: pages that carry a game's moves, and a script that
//! computes its positions in the browser with the rules crate compiled to WebAssembly.
//!
//! A page holds the games' data only (setups, moves, think times, bots, result), as JSON in
//! a `<script type="application/json" id="data">` element (escaped so that no text of a
//! record can close that element). The viewer's script ([`viewer_asset`]: its code, its
//! style, and the `host/viewer-wasm` module as base64, built by the host's build script)
//! replays the moves with the rules crate in the browser to get, for each ply, the board as
//! a spectator sees it and as each bot was told it, the fights and the captured pieces; the
//! script itself only draws (the think times and clocks it adds up from the record's).
//!
//! - [`export_html`] makes one self-contained page (the script inlined; no network).
//! - [`write_index`] (a run's `--out`, `merge --out`, `ladder table --html`) writes the pages
//!   of the games in `games/` beside the index, each loading the one script beside them,
//!   [`ASSET_NAME`] (a browser loads a `<script src>` beside a `file:` page, where it refuses
//!   to `fetch` one). A page is about 15 bytes a ply (a 1,000-ply game about 20 KB).
//!
//! [`index_html`] makes a plain tournament index linking each game's viewer.
//!
//! The page's elements have stable ids for tests and scripts: `#prev`, `#next`, `#play`,
//! `#first`, `#last`, `#slider`, `#ply-label` (its `data-ply` is the ply shown),
//! `#view-spectator`, `#view-red`, `#view-blue`, `#game-select`; every board square is a
//! `[data-square="e4"]` element whose `data-piece` is `red:X`, `blue:?` (a piece whose rank
//! the view does not know) or empty. The body's `data-ready` is `1` once the page is drawn
//! and its `data-engine` is `wasm` once the module runs. A URL fragment
//! `#game=ID&ply=N&view=red` opens a given game, ply and view.

use stratego_protocol::record::GameRecord;
use stratego_rules::Color;

/// One game's row on an index page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexGame {
    /// Game id.
    pub id: String,
    /// Red's bot.
    pub red: String,
    /// Blue's bot.
    pub blue: String,
    /// The result for people: `1-0 flag_captured`.
    pub result: String,
    /// Plies played.
    pub plies: usize,
    /// A relative URL of the game's viewer page, if one was written.
    pub href: Option<String>,
}

impl IndexGame {
    /// The row of `record`, linking `href`.
    pub fn of(record: &GameRecord, href: Option<String>) -> IndexGame {
        IndexGame::row(
            &record.game_id,
            record.bots.as_ref().map(|b| b.name.as_str()),
            &record.result,
            record.plies.len(),
            href,
        )
    }

    /// The row of a record read as its digest (no link).
    pub fn of_digest(game: &stratego_records::GameDigest) -> IndexGame {
        IndexGame::row(
            &game.game_id,
            game.bots.as_ref().map(|b| b.name.as_str()),
            &game.result,
            game.plies as usize,
            None,
        )
    }

    fn row(
        id: &str,
        names: stratego_rules::ByColor<&str>,
        result: &crate::record::RecordResult,
        plies: usize,
        href: Option<String>,
    ) -> IndexGame {
        let score = match result.winner {
            Some(Color::Red) => "1-0",
            Some(Color::Blue) => "0-1",
            None => "½-½",
        };
        IndexGame {
            id: id.to_owned(),
            red: names.red.to_owned(),
            blue: names.blue.to_owned(),
            result: format!("{score} {}", result.reason.code()),
            plies,
            href,
        }
    }
}

/// An index page: `summary_html` (a ranking or crosstable the caller made: it is inserted
/// as it is, so it must not hold unescaped text from a record), `note` (text), and a table
/// of `games`, each id linking its viewer page when it has one. Every text is escaped; a
/// `javascript:` or `data:` href becomes `#`. The games table is `<table id="games">`, a
/// row per game with `data-game="ID"`.
pub fn index_html(title: &str, summary_html: Option<&str>, note: Option<&str>, games: &[IndexGame]) -> String {
    index_page_html(title, summary_html, note, games, &ListPage { first: 0, total: games.len(), nav: None })
}

/// A page beside an index ([`ExtraPage`]): its title, a link back to the index
/// (`#to-index`), and `body` as it is (HTML the caller made, like a summary).
fn extra_page_html(title: &str, index_name: &str, body: &str) -> String {
    let title = html_escape(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n{}\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n<style>{INDEX_STYLE}</style>\n</head>\n<body>\n<p><a id=\"to-index\" href=\"{}\">&larr; index</a></p>\n<h1>{title}</h1>\n{body}\n</body>\n</html>\n",
        crate::run::output_file::PAGE_MARKER,
        html_escape(index_name)
    )
}

/// Where one page of a games list is in the whole list.
struct ListPage<'a> {
    /// Position (0-based) of its first game in the list.
    first: usize,
    /// Games in the whole list.
    total: usize,
    /// The links to the list's pages (`<nav id="pages">`), when there are several.
    nav: Option<&'a str>,
}

/// [`index_html`] of one page of a games list: its games are numbered from `page.first +
/// 1`, the heading says which of `page.total` it shows, and `page.nav` goes above and below
/// the table.
fn index_page_html(
    title: &str,
    summary_html: Option<&str>,
    note: Option<&str>,
    games: &[IndexGame],
    page: &ListPage<'_>,
) -> String {
    let title = html_escape(title);
    let mut out = String::with_capacity(1024 + games.len() * 200);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(crate::run::output_file::PAGE_MARKER);
    out.push('\n');
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!("<title>{title}</title>\n<style>{INDEX_STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n"));
    if let Some(table) = summary_html {
        out.push_str("<section class=\"summary\">\n");
        out.push_str(table);
        out.push_str("\n</section>\n");
    }
    if let Some(note) = note {
        out.push_str(&format!("<p class=\"note\">{}</p>\n", html_escape(note)));
    }
    if page.total == games.len() {
        out.push_str(&format!("<h2>Games ({})</h2>\n", games.len()));
    } else {
        out.push_str(&format!(
            "<h2>Games ({}; {}-{} here)</h2>\n",
            page.total,
            page.first + 1,
            page.first + games.len()
        ));
    }
    if let Some(nav) = page.nav {
        out.push_str(nav);
    }
    out.push_str("<table id=\"games\">\n<thead><tr><th>#</th><th>game</th><th>Red</th><th>Blue</th><th>result</th><th>plies</th></tr></thead>\n<tbody>\n");
    for (i, g) in games.iter().enumerate() {
        let id = match &g.href {
            Some(href) => {
                let trimmed = href.trim_start().to_ascii_lowercase();
                let href = if trimmed.starts_with("javascript:") || trimmed.starts_with("data:") { "#" } else { href };
                format!("<a href=\"{}\">{}</a>", html_escape(href), html_escape(&g.id))
            }
            None => html_escape(&g.id),
        };
        out.push_str(&format!(
            "<tr data-game=\"{}\"><td class=\"n\">{}</td><td>{id}</td><td class=\"red\">{}</td><td class=\"blue\">{}</td><td>{}</td><td class=\"n\">{}</td></tr>\n",
            html_escape(&g.id),
            page.first + i + 1,
            html_escape(&g.red),
            html_escape(&g.blue),
            html_escape(&g.result),
            g.plies
        ));
    }
    out.push_str("</tbody>\n</table>\n");
    if let Some(nav) = page.nav {
        out.push_str(nav);
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// At most this many viewer pages beside an index (the first games in schedule order):
/// a page is about 15 bytes a ply and 4 KB more (a 1,000-ply game about 20 KB), so 250
/// pages are a few MB; the index still lists every game, and `stratego-host export` makes
/// the others.
pub const MAX_VIEWER_PAGES: usize = 250;

/// Games listed on one index page: a long list goes on over `index-2.html`, `index-3.html`…
/// beside `index.html` (500 rows are about 100 KB; the 39,800 games of a 200-bot round-robin
/// make 80 pages).
pub const GAMES_PER_PAGE: usize = 500;

/// What [`write_index`] wrote.
#[derive(Clone, Debug, Default)]
pub struct IndexWritten {
    /// Games listed.
    pub games: usize,
    /// Viewer pages written.
    pub pages: usize,
    /// Bytes of the viewer pages.
    pub page_bytes: u64,
    /// Bytes of the viewer's script beside them ([`ASSET_NAME`]), when there are pages.
    pub asset_bytes: u64,
    /// Index pages (`index.html` and the list's further pages).
    pub list_pages: usize,
}

/// A page beside an index that the index links (a large tournament's crosstable).
#[derive(Clone, Debug)]
pub struct ExtraPage {
    /// Its file name, beside the index (`crosstable.html`).
    pub name: String,
    /// Its title.
    pub title: String,
    /// Its body (HTML made by the caller, as a summary).
    pub body: String,
}

/// The file name of a game's viewer page: its id with anything but letters, digits, `.`,
/// `-`, `_` replaced by `_`, and `.html`.
pub fn page_name(id: &str) -> String {
    let mut s: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s + ".html"
}

/// The `games/` directory of viewer pages beside an index page.
fn games_dir_of(index: &std::path::Path) -> std::path::PathBuf {
    index.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new(".")).join("games")
}

/// The viewer page names of the first `max_pages` of `records` (unique: `-2`, `-3`… for
/// ids that give the same name).
fn page_names(records: &[GameRecord], max_pages: usize) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    records
        .iter()
        .take(max_pages)
        .map(|r| {
            let mut name = page_name(&r.game_id);
            let mut k = 2;
            while !taken.insert(name.clone()) {
                name = format!("{}-{k}.html", page_name(&r.game_id).trim_end_matches(".html"));
                k += 1;
            }
            name
        })
        .collect()
}

/// Whether [`write_index`] may write `index` and its viewer pages (see
/// [`crate::run::output_file::may_write_page`]): each is new or a page this host wrote (with
/// `force`, any file but records, a manifest or a database). `flag` names the option that
/// chose `index`, for the message. Nothing is written.
///
/// # Errors
/// The first file that may not be written, and why.
pub fn index_outputs_allowed(
    index: &std::path::Path,
    records: &[GameRecord],
    max_pages: usize,
    force: Option<bool>,
    flag: &str,
) -> Result<(), String> {
    let viewers = &records[..records.len().min(max_pages)];
    outputs_allowed(index, viewers, list_pages(records.len(), GAMES_PER_PAGE), &[], force, flag)
}

/// Pages a list of `games` takes at `per_page` a page (at least one).
fn list_pages(games: usize, per_page: usize) -> usize {
    games.div_ceil(per_page.max(1)).max(1)
}

/// The file of page `n` (1-based) of the games list whose first page is `index`:
/// `index.html`, `index-2.html`…
fn list_page_path(index: &std::path::Path, n: usize) -> std::path::PathBuf {
    if n <= 1 {
        return index.to_owned();
    }
    let stem = index.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "index".into());
    let ext = index.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    index.with_file_name(format!("{stem}-{n}{ext}"))
}

/// [`index_outputs_allowed`] of an index of `lists` list pages, the viewer pages of
/// `viewers` and the `extra` pages.
fn outputs_allowed(
    index: &std::path::Path,
    viewers: &[GameRecord],
    lists: usize,
    extra: &[ExtraPage],
    force: Option<bool>,
    flag: &str,
) -> Result<(), String> {
    for n in 1..=lists {
        crate::run::output_file::may_write_page(&list_page_path(index, n), force, flag)?;
    }
    for page in extra {
        crate::run::output_file::may_write_page(&index.with_file_name(&page.name), force, flag)?;
    }
    let games_dir = games_dir_of(index);
    if games_dir.exists() && !games_dir.is_dir() {
        return Err(format!("{}: not a directory; the viewer pages go there", games_dir.display()));
    }
    for name in page_names(viewers, viewers.len()) {
        crate::run::output_file::may_write_page(&games_dir.join(name), force, "viewer page")?;
    }
    if !viewers.is_empty() {
        crate::run::output_file::may_write_page(&games_dir.join(ASSET_NAME), force, "the viewer's script")?;
    }
    Ok(())
}

/// Writes `index` (an index page of `records`, in their order, below `summary_html`) and a
/// viewer page per game in `games/` beside it, for at most `max_pages` games (the rest are
/// listed without a link, and the page says how to export them). A record that does not
/// replay is listed without a page. A list of more than [`GAMES_PER_PAGE`] games goes on
/// over further pages (`index-2.html`…). Nothing is written unless every file may be (see
/// [`index_outputs_allowed`]; `force` and `flag` as there).
///
/// # Errors
/// A file that may not be overwritten, or a file or directory that cannot be written.
pub fn write_index(
    index: &std::path::Path,
    title: &str,
    summary_html: Option<&str>,
    records: &[GameRecord],
    max_pages: usize,
    force: Option<bool>,
    flag: &str,
) -> Result<IndexWritten, String> {
    let input = IndexInput {
        rows: records.iter().map(|r| IndexGame::of(r, None)).collect(),
        viewers: records[..records.len().min(max_pages)].to_vec(),
    };
    let options = IndexOptions { per_page: GAMES_PER_PAGE, extra: &[], force, flag };
    write_index_of(index, title, summary_html, input, &options)
}

/// How [`write_index_streamed`] writes.
#[derive(Clone, Debug)]
pub struct IndexOptions<'a> {
    /// Games a list page ([`GAMES_PER_PAGE`]).
    pub per_page: usize,
    /// Pages beside the index that its summary links.
    pub extra: &'a [ExtraPage],
    /// As [`index_outputs_allowed`]'s.
    pub force: Option<bool>,
    /// As [`index_outputs_allowed`]'s.
    pub flag: &'a str,
}

/// The rows of an index, and the records of the first rows' games (those that get a viewer
/// page).
struct IndexInput {
    rows: Vec<IndexGame>,
    viewers: Vec<GameRecord>,
}

/// [`write_index`] of records read one by one (a run's directory), as digests (the records
/// of the games that get a viewer page read whole): see [`IndexCollector`].
///
/// # Errors
/// The first error of `records` (before anything is written), or as [`write_index`]'s.
pub fn write_index_streamed(
    index: &std::path::Path,
    title: &str,
    summary_html: Option<&str>,
    records: impl IntoIterator<Item = Result<crate::record::Digested, String>>,
    max_pages: usize,
    options: &IndexOptions<'_>,
) -> Result<IndexWritten, String> {
    let mut collector = IndexCollector::new(max_pages);
    for r in records {
        collector.push_digested(r?)?;
    }
    collector.write(index, title, summary_html, options)
}

/// Gathers an index from records given one by one, in any order (a run's directory, a
/// merge's shards): the games are listed in schedule order (`index`), and only the records
/// of the first `max_pages` are kept, for their viewer pages; of the others, only their
/// rows. Memory grows with the games by a row each (about 200 bytes), not by their records.
pub struct IndexCollector {
    max_pages: usize,
    /// Rows by (schedule index, arrival).
    rows: Vec<(u32, usize, IndexGame)>,
    /// A max-heap of the first `max_pages` records by the same key.
    first: std::collections::BinaryHeap<First>,
}

/// A record and its place among the index's rows.
struct First(u32, usize, GameRecord);

impl PartialEq for First {
    fn eq(&self, o: &Self) -> bool {
        (self.0, self.1) == (o.0, o.1)
    }
}

impl Eq for First {}

impl PartialOrd for First {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for First {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.0, self.1).cmp(&(o.0, o.1))
    }
}

impl IndexCollector {
    /// An empty index whose first `max_pages` games get a viewer page.
    pub fn new(max_pages: usize) -> IndexCollector {
        IndexCollector { max_pages, rows: Vec::new(), first: std::collections::BinaryHeap::new() }
    }

    /// Adds a game.
    pub fn push(&mut self, record: GameRecord) {
        let n = self.rows.len();
        self.rows.push((record.index, n, IndexGame::of(&record, None)));
        if self.max_pages > 0 {
            self.first.push(First(record.index, n, record));
            if self.first.len() > self.max_pages {
                self.first.pop();
            }
        }
    }

    /// Adds a game read as a digest: its row; and, when it is among the first games so
    /// far (those that get a viewer page), its whole record, read now.
    ///
    /// # Errors
    /// The record is wanted whole and its line is not one (see
    /// [`crate::record::Digested::record`]).
    pub fn push_digested(&mut self, game: crate::record::Digested) -> Result<(), String> {
        let n = self.rows.len();
        let key = (game.digest.index, n);
        let wanted = self.max_pages > 0
            && (self.first.len() < self.max_pages || self.first.peek().is_some_and(|top| key < (top.0, top.1)));
        if !wanted {
            self.rows.push((key.0, n, IndexGame::of_digest(&game.digest)));
            return Ok(());
        }
        self.push(game.record()?);
        Ok(())
    }

    /// Writes the index (see [`write_index`]).
    ///
    /// # Errors
    /// As [`write_index`]'s.
    pub fn write(
        self,
        index: &std::path::Path,
        title: &str,
        summary_html: Option<&str>,
        options: &IndexOptions<'_>,
    ) -> Result<IndexWritten, String> {
        let mut rows = self.rows;
        rows.sort_by_key(|(i, n, _)| (*i, *n));
        let input = IndexInput {
            rows: rows.into_iter().map(|(_, _, g)| g).collect(),
            viewers: self.first.into_sorted_vec().into_iter().map(|f| f.2).collect(),
        };
        write_index_of(index, title, summary_html, input, options)
    }
}

/// Writes the index of `input` (see [`write_index`]).
fn write_index_of(
    index: &std::path::Path,
    title: &str,
    summary_html: Option<&str>,
    input: IndexInput,
    options: &IndexOptions<'_>,
) -> Result<IndexWritten, String> {
    let IndexInput { mut rows, viewers } = input;
    let per_page = options.per_page.max(1);
    let lists = list_pages(rows.len(), per_page);
    outputs_allowed(index, &viewers, lists, options.extra, options.force, options.flag)?;
    let games_dir = games_dir_of(index);
    if !viewers.is_empty() {
        std::fs::create_dir_all(&games_dir).map_err(|e| format!("{}: {e}", games_dir.display()))?;
    }
    let mut written = IndexWritten { games: rows.len(), list_pages: lists, ..IndexWritten::default() };
    let names = page_names(&viewers, viewers.len());
    let index_name = index.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_else(|| "index.html".into());
    let mut unreplayable = 0;
    if !viewers.is_empty() {
        let path = games_dir.join(ASSET_NAME);
        let asset = viewer_asset();
        // Written again only when it differs (a page open in a browser keeps working).
        if std::fs::read(&path).ok().as_deref() != Some(asset.as_bytes()) {
            std::fs::write(&path, &asset).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        written.asset_bytes = asset.len() as u64;
    }
    for (i, r) in viewers.iter().enumerate() {
        match game_page_html(std::slice::from_ref(r), &format!("{title}: game {}", r.game_id), ASSET_NAME) {
            Ok(page) => {
                let page = with_links(&page, &index_name, names.get(i + 1).map(String::as_str));
                let path = games_dir.join(&names[i]);
                std::fs::write(&path, &page).map_err(|e| format!("{}: {e}", path.display()))?;
                written.pages += 1;
                written.page_bytes += page.len() as u64;
                rows[i].href = Some(format!("games/{}", names[i]));
            }
            Err(e) => {
                crate::notice::warn(format_args!("game {}: no viewer page: {e}", r.game_id));
                unreplayable += 1;
            }
        }
    }
    let mut notes = Vec::new();
    if written.pages + unreplayable < rows.len() {
        notes.push(format!(
            "Viewer pages for the first {} games; for another: stratego-host export games.jsonl --game ID --html game.html",
            written.pages
        ));
    }
    if unreplayable > 0 {
        notes.push(format!("{unreplayable} games do not replay and have no page."));
    }
    let note = (!notes.is_empty()).then(|| notes.join(" "));
    for page in options.extra {
        let path = index.with_file_name(&page.name);
        let html = extra_page_html(&page.title, &index_name, &page.body);
        std::fs::write(&path, html).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let page_file =
        |n: usize| list_page_path(index, n).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    for n in 1..=lists {
        let first = (n - 1) * per_page;
        let chunk = &rows[first.min(rows.len())..(first + per_page).min(rows.len())];
        let nav = (lists > 1).then(|| {
            let mut nav = String::from("<nav class=\"pages\">pages:");
            for k in 1..=lists {
                if k == n {
                    nav.push_str(&format!(" <b>{k}</b>"));
                } else {
                    nav.push_str(&format!(" <a href=\"{}\">{k}</a>", html_escape(&page_file(k))));
                }
            }
            nav.push_str("</nav>\n");
            nav
        });
        let page = ListPage { first, total: rows.len(), nav: nav.as_deref() };
        let html = if n == 1 {
            index_page_html(title, summary_html, note.as_deref(), chunk, &page)
        } else {
            index_page_html(&format!("{title} (games, page {n})"), None, None, chunk, &page)
        };
        let path = list_page_path(index, n);
        std::fs::write(&path, html).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(written)
}

/// The line above a result table (a competition's summary on its index page): games played
/// of planned, rules, seed.
pub fn run_line(games: u32, planned: u32, rules: &str, seed: u64, interrupted: bool) -> String {
    let cut = if interrupted { " (interrupted)" } else { "" };
    format!("<p>{games} of {planned} games, rules {}, seed {seed}{cut}</p>\n", html_escape(rules))
}

/// A viewer page with a line of links at the top of its body: back to the index (`../INDEX`)
/// and on to the next game's page, when there is one.
fn with_links(page: &str, index_name: &str, next: Option<&str>) -> String {
    let mut nav = format!(
        "<body>\n<nav id=\"links\" style=\"font:14px sans-serif;margin:4px 8px\"><a id=\"to-index\" href=\"../{}\">&larr; all games</a>",
        html_escape(index_name)
    );
    if let Some(next) = next {
        nav.push_str(&format!(" &middot; <a id=\"next-game\" href=\"{}\">next game &rarr;</a>", html_escape(next)));
    }
    nav.push_str("</nav>");
    page.replacen("<body>", &nav, 1)
}

const INDEX_STYLE: &str = "body{font:15px/1.4 system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}\
th{background:#f2f2f2}td.n,#crosstable td{text-align:right;font-variant-numeric:tabular-nums}.red{color:#b3261e}.blue{color:#1f4e9c}a{color:#1f4e9c}\
.overload{background:#fff3cd;border:1px solid #d9a400;border-radius:4px;padding:.3em .8em;margin:1em 0}";

pub(crate) use crate::display::files::game_page::WASM_BASE64;
pub use crate::display::files::game_page::{ASSET_NAME, export_html, game_page_html, viewer_asset};
pub use crate::text::html_escape;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::files::game_page::tests::{long_record, played_record};

    /// An index gathered from digests lists the same rows and keeps the same records (the
    /// first games by schedule index, read whole) as one gathered from the whole records,
    /// whatever order the games come in.
    #[test]
    fn an_index_of_digests_is_the_index_of_the_whole_records() {
        let base = played_record(12);
        // Schedule indices 0..37 in a scrambled order, three of them twice (5, 22 and 2: a
        // game recorded twice, as after a resume that replayed it).
        let order: Vec<u32> = (0..40u32).map(|i| (i * 17 + 5) % 37).collect();
        let (mut whole, mut light) = (IndexCollector::new(6), IndexCollector::new(6));
        for (n, &index) in order.iter().enumerate() {
            let mut r = base.clone();
            r.index = index;
            r.game_id = format!("g-{index}-{n}");
            r.plies.truncate(n % 12);
            r.result.winner = [Some(Color::Red), None, Some(Color::Blue)][n % 3];
            let line = serde_json::to_vec(&r).unwrap();
            light.push_digested(crate::record::Digested::from_line(line).unwrap()).unwrap();
            whole.push(r);
        }
        assert_eq!(light.rows, whole.rows, "the same rows");
        let ids =
            |c: IndexCollector| c.first.into_sorted_vec().into_iter().map(|f| (f.0, f.1, f.2)).collect::<Vec<_>>();
        let (kept_light, kept_whole) = (ids(light), ids(whole));
        assert_eq!(kept_light, kept_whole, "the same records kept whole");
        // The six lowest indices, the game recorded twice kept twice (both paths alike).
        assert_eq!(kept_light.iter().map(|k| k.0).collect::<Vec<_>>(), [0, 1, 2, 2, 3, 4]);
        assert!(kept_light.iter().any(|k| !k.2.plies.is_empty()), "with their moves");
    }
    /// An index's pages load the one script beside them; the host writes it only where
    /// there is none or its own.
    #[test]
    fn an_index_writes_its_pages_beside_one_script() {
        let dir = std::env::temp_dir().join(format!("stratego-viewer-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("games")).unwrap();
        let index = dir.join("index.html");
        let mut second = long_record(60);
        second.game_id = "second".into();
        let records = vec![played_record(40), second];
        // Someone else's viewer.js stays, and nothing is written.
        let theirs = dir.join("games").join(ASSET_NAME);
        std::fs::write(&theirs, "console.log('mine');").unwrap();
        let err = write_index(&index, "t", None, &records, 10, Some(false), "--out").unwrap_err();
        assert!(err.contains("viewer.js") && err.contains("not a page this host wrote"), "{err}");
        assert!(!index.exists());
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "console.log('mine');");
        std::fs::remove_file(&theirs).unwrap();
        let w = write_index(&index, "t", None, &records, 10, Some(false), "--out").unwrap();
        assert_eq!(w.pages, 2);
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), viewer_asset());
        assert_eq!(w.asset_bytes, viewer_asset().len() as u64);
        for name in page_names(&records, 2) {
            let page = std::fs::read_to_string(dir.join("games").join(name)).unwrap();
            assert!(page.contains("<script src=\"viewer.js\"></script>") && !page.contains(WASM_BASE64));
        }
        // Written again over its own.
        assert!(write_index(&index, "t", None, &records, 10, Some(false), "--out").is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
    #[test]
    fn the_index_escapes_everything() {
        let row = |id: &str, red: &str, blue: &str, href: Option<&str>| IndexGame {
            id: id.into(),
            red: red.into(),
            blue: blue.into(),
            result: "1-0 flag_captured".into(),
            plies: 3,
            href: href.map(Into::into),
        };
        let games = vec![
            row("g-1", "<b>red</b>", "blue & co", Some("games/g-1.html")),
            row("g\"2", "r", "b", Some("javascript:alert(1)")),
            row("g-3", "r", "b", None),
        ];
        let page = index_html("T <i>", Some("<table id=\"ct\"></table>"), Some("a <note>"), &games);
        assert!(page.contains("<title>T &lt;i&gt;</title>"));
        assert!(page.contains(crate::run::output_file::PAGE_MARKER));
        assert!(page.contains("<a href=\"games/g-1.html\">g-1</a>"));
        assert!(page.contains("&lt;b&gt;red&lt;/b&gt;") && page.contains("blue &amp; co"));
        assert!(page.contains("<a href=\"#\">g&quot;2</a>"));
        assert!(page.contains("<td>g-3</td>"), "no page, no link");
        assert!(page.contains("<table id=\"ct\"></table>") && page.contains("a &lt;note&gt;"));
        assert!(!page.contains("javascript:"));
        assert_eq!(page_name("a/b:c"), "a_b_c.html");
        assert_eq!(page_name(".."), "_...html");
    }
}
