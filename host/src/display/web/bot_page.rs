//! The arena's page per bot on the live page (`arena run --serve`): its results against each
//! opponent, its recent games (each a link to the game in the viewer), its rating over time
//! as an inline SVG plot, and its running games (named, never shown: no setup of a running
//! game is on it). The data come from the arena's file through [`ArenaPages`] (made by
//! `commands/arena/page.rs`); this module only renders them. The live page routes
//! `/bots/NAME` here, `/arena/games/ID.html` to a stored game's viewer page, and polls
//! `/arena/version` (cheap) to reload a bot's page when a game ended or started.

use std::fmt::Write as _;

use stratego_protocol::record::GameRecord;

use crate::text::html_escape;

/// A bot's results against one opponent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpponentRow {
    /// The opponent's name.
    pub name: String,
    /// Games won against it.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

/// One finished game of the bot.
#[derive(Clone, Debug, PartialEq)]
pub struct RecentGame {
    /// The game's id.
    pub game_id: String,
    /// The opponent's name.
    pub opponent: String,
    /// `red` or `blue`: the bot's colour.
    pub color: String,
    /// `win`, `draw` or `loss`, for the bot.
    pub result: String,
    /// Why it ended (a reason code).
    pub reason: String,
    /// When it was saved (Unix seconds).
    pub played_unix: i64,
}

/// The bot's rating at one checkpoint of the arena's history.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingPoint {
    /// Games of the arena (all bots) up to the checkpoint.
    pub games: u64,
    /// The bot's Bradley–Terry rating (Elo scale) fitted on those games.
    pub elo: f64,
    /// Its 95 % error bar, when finite.
    pub err95: Option<f64>,
}

/// What a bot's page shows from the arena's file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BotPage {
    /// The bot's name.
    pub name: String,
    /// Retired (paired no more).
    pub retired: bool,
    /// Its finished games.
    pub games: u64,
    /// Its results by opponent, by name.
    pub opponents: Vec<OpponentRow>,
    /// Its latest games, newest first.
    pub recent: Vec<RecentGame>,
    /// Its rating at each checkpoint of the arena's history where it had played.
    pub rating: Vec<RatingPoint>,
    /// Games of the arena in all.
    pub arena_games: u64,
    /// How the checkpoints were chosen (said under the plot).
    pub checkpoints_note: String,
}

/// A running game of the bot, as its page names it: never its board.
#[derive(Clone, Debug, PartialEq)]
pub struct RunningGame {
    /// The game's id.
    pub game_id: String,
    /// The opponent's name.
    pub opponent: String,
    /// The bot's colour.
    pub color: String,
    /// Plies shown on the live page so far.
    pub ply: u32,
}

/// Where the pages per bot get their data (the arena's file).
pub trait ArenaPages: Send + Sync {
    /// The page data of bot `name`, `None` when the file has no such bot.
    ///
    /// # Errors
    /// The file cannot be read.
    fn bot(&self, name: &str) -> Result<Option<BotPage>, String>;
    /// The stored record of finished game `game_id`, `None` when there is none.
    ///
    /// # Errors
    /// The file cannot be read, or the record does not.
    fn record(&self, game_id: &str) -> Result<Option<GameRecord>, String>;
    /// A value that changes whenever a game is saved (cheap: the live page polls it).
    ///
    /// # Errors
    /// The file cannot be read.
    fn version(&self) -> Result<String, String>;
}

/// `name` for a URL path segment (every byte but ASCII letters, digits, `-`, `_`, `.` as
/// `%XX`).
pub fn encode_name(name: &str) -> String {
    let mut s = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
            s.push(b as char);
        } else {
            let _ = write!(s, "%{b:02X}");
        }
    }
    s
}

/// A path segment's `%XX` escapes decoded; `None` when malformed or not UTF-8.
pub fn decode_name(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether `id` may name a stored game in a URL (letters, digits, `-`, `_`, `.`).
pub fn plain_game_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 200 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// The inline SVG plot of a bot's rating over the checkpoints: a point per checkpoint
/// (`<circle class="point" data-games data-elo>`), its error bar, the line through them.
pub fn rating_svg(points: &[RatingPoint]) -> String {
    const W: f64 = 640.0;
    const H: f64 = 220.0;
    const PAD: f64 = 40.0;
    if points.is_empty() {
        return "<p id=\"no-rating\">No rating yet: the bot has no finished game.</p>".to_owned();
    }
    let lo = points.iter().map(|p| p.elo - p.err95.unwrap_or(0.0)).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.elo + p.err95.unwrap_or(0.0)).fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if hi - lo < 1.0 { (lo - 50.0, hi + 50.0) } else { (lo, hi) };
    let max_games = points.iter().map(|p| p.games).max().unwrap_or(1).max(1) as f64;
    let x = |g: u64| PAD + (W - 2.0 * PAD) * g as f64 / max_games;
    let y = |e: f64| H - PAD - (H - 2.0 * PAD) * (e - lo) / (hi - lo);
    let mut s = format!(
        "<svg id=\"rating-plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"rating over time\">"
    );
    let _ = write!(
        s,
        "<line x1=\"{PAD}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#888\"/><line x1=\"{PAD}\" y1=\"{PAD}\" x2=\"{PAD}\" y2=\"{b}\" stroke=\"#888\"/>",
        b = H - PAD,
        r = W - PAD
    );
    let _ = write!(
        s,
        "<text x=\"4\" y=\"{:.1}\" font-size=\"11\">{hi:+.0}</text><text x=\"4\" y=\"{:.1}\" font-size=\"11\">{lo:+.0}</text><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{} games</text>",
        PAD + 4.0,
        H - PAD,
        W - PAD,
        H - PAD + 16.0,
        max_games as u64
    );
    let line: Vec<String> = points.iter().map(|p| format!("{:.1},{:.1}", x(p.games), y(p.elo))).collect();
    let _ = write!(s, "<polyline fill=\"none\" stroke=\"#1f4e9c\" stroke-width=\"2\" points=\"{}\"/>", line.join(" "));
    for p in points {
        if let Some(e) = p.err95 {
            let _ = write!(
                s,
                "<line class=\"err\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1:.1}\" y2=\"{2:.1}\" stroke=\"#9bb\"/>",
                x(p.games),
                y(p.elo - e),
                y(p.elo + e)
            );
        }
        let _ = write!(
            s,
            "<circle class=\"point\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"#1f4e9c\" data-games=\"{}\" data-elo=\"{:.1}\"><title>{} games: {:+.0}{}</title></circle>",
            x(p.games),
            y(p.elo),
            p.games,
            p.elo,
            p.games,
            p.elo,
            p.err95.map(|e| format!(" ±{e:.0}")).unwrap_or_default()
        );
    }
    s.push_str("</svg>");
    s
}

const STYLE: &str = "body{font:15px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}\
th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}a{color:#1f4e9c}";

/// The page of a bot: `running` its games running now (named only), `title` the event's.
pub fn bot_page_html(page: &BotPage, running: &[RunningGame], title: &str) -> String {
    let name = html_escape(&page.name);
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{name} — {}</title>\n<style>{STYLE}</style>\n</head>\n<body data-bot=\"{name}\">\n<p><a href=\"/\">&larr; the live page</a></p>\n<main id=\"bot\">\n",
        html_escape(title)
    );
    s.push_str(&bot_body(page, running));
    s.push_str("</main>\n<script>\n");
    s.push_str(POLL_SCRIPT);
    s.push_str("</script>\n</body>\n</html>\n");
    s
}

/// Polls `/arena/version` every 2 s and, when it changed, fetches the page again and
/// replaces its content (no reload).
const POLL_SCRIPT: &str = r"(function () {
  var last = null;
  function tick() {
    fetch('/arena/version', { cache: 'no-store' }).then(function (r) { return r.text(); }).then(function (v) {
      if (last !== null && v !== last) {
        return fetch(location.pathname, { cache: 'no-store' }).then(function (r) { return r.text(); }).then(function (html) {
          var doc = new DOMParser().parseFromString(html, 'text/html');
          var fresh = doc.getElementById('bot');
          if (fresh) document.getElementById('bot').innerHTML = fresh.innerHTML;
          document.body.setAttribute('data-updates', String(Number(document.body.getAttribute('data-updates') || 0) + 1));
          last = v;
        });
      }
      last = v;
    }).catch(function () {}).then(function () { setTimeout(tick, 2000); });
  }
  tick();
})();
";

fn bot_body(page: &BotPage, running: &[RunningGame]) -> String {
    let name = html_escape(&page.name);
    let mut s = format!(
        "<h1>{name}{}</h1>\n<p id=\"summary\">{} finished games (of {} in the arena).</p>\n",
        if page.retired { " (retired)" } else { "" },
        page.games,
        page.arena_games
    );
    s.push_str("<h2>Running now</h2>\n");
    if running.is_empty() {
        s.push_str("<p id=\"no-running\">No game running.</p>\n");
    } else {
        s.push_str("<table id=\"running\"><tr><th>game</th><th>opponent</th><th>colour</th><th>ply</th></tr>\n");
        for g in running {
            let _ = writeln!(
                s,
                "<tr data-game=\"{id}\"><td>{id}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
                html_escape(&g.opponent),
                html_escape(&g.color),
                g.ply,
                id = html_escape(&g.game_id)
            );
        }
        s.push_str("</table>\n<p>Its board is on <a href=\"/\">the live page</a>; its record once it is over.</p>\n");
    }
    s.push_str("<h2>Rating over time</h2>\n");
    s.push_str(&rating_svg(&page.rating));
    let _ = writeln!(s, "\n<p class=\"note\">{}</p>", html_escape(&page.checkpoints_note));
    s.push_str("<h2>Against each opponent</h2>\n<table id=\"opponents\"><tr><th>opponent</th><th>games</th><th>W</th><th>D</th><th>L</th><th>score</th></tr>\n");
    for o in &page.opponents {
        let games = o.wins + o.draws + o.losses;
        let points = o.wins as f64 + 0.5 * o.draws as f64;
        let _ = writeln!(
            s,
            "<tr data-opponent=\"{n}\" data-w=\"{w}\" data-d=\"{d}\" data-l=\"{l}\"><td><a href=\"/bots/{href}\">{n}</a></td><td class=\"n\">{games}</td><td class=\"n\">{w}</td><td class=\"n\">{d}</td><td class=\"n\">{l}</td><td class=\"n\">{}</td></tr>",
            crate::text::half(points),
            n = html_escape(&o.name),
            href = encode_name(&o.name),
            w = o.wins,
            d = o.draws,
            l = o.losses,
        );
    }
    s.push_str("</table>\n<h2>Recent games</h2>\n<table id=\"recent\"><tr><th>game</th><th>opponent</th><th>colour</th><th>result</th><th>reason</th></tr>\n");
    for g in &page.recent {
        let id = html_escape(&g.game_id);
        let link =
            if plain_game_id(&g.game_id) { format!("<a href=\"/arena/games/{id}.html\">{id}</a>") } else { id.clone() };
        let _ = writeln!(
            s,
            "<tr data-game=\"{id}\"><td>{link}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            html_escape(&g.opponent),
            html_escape(&g.color),
            html_escape(&g.result),
            html_escape(&g.reason)
        );
    }
    s.push_str("</table>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_go_through_urls_and_back() {
        for name in ["plain", "a b/c", "é&<x>", "%41"] {
            assert_eq!(decode_name(&encode_name(name)).as_deref(), Some(name));
        }
        assert_eq!(decode_name("%4"), None);
        assert_eq!(decode_name("%zz"), None);
        assert!(plain_game_id("arena-17-0558aaa8-224") && !plain_game_id("../x") && !plain_game_id(""));
    }

    #[test]
    fn the_plot_has_a_point_per_checkpoint_and_the_page_escapes_names() {
        let page = BotPage {
            name: "<b>x</b>".into(),
            rating: vec![
                RatingPoint { games: 2, elo: 10.0, err95: Some(200.0) },
                RatingPoint { games: 4, elo: -5.0, err95: None },
            ],
            opponents: vec![OpponentRow { name: "o&p".into(), wins: 1, draws: 1, losses: 0 }],
            ..BotPage::default()
        };
        let html = bot_page_html(&page, &[], "t");
        assert_eq!(html.matches("<circle class=\"point\"").count(), 2);
        assert!(!html.contains("<b>x</b>") && html.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(html.contains("href=\"/bots/o%26p\"") && html.contains(">1.5<"));
    }
}
