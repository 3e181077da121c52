//! What the ladder shows: the ratings table (Bradley–Terry refitted from every game, active
//! bots only) as text, Markdown, JSON or HTML, and a bot's history as text.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::store::{History, Ladder, LadderBot, PairTally};
use crate::display::files::viewer::html_escape;

/// One row of the ladder's table.
#[derive(Clone, Debug, Serialize)]
pub struct TableRow {
    /// Rank among the active bots (1 is best).
    pub rank: usize,
    /// Name.
    pub name: String,
    /// Bradley–Terry Elo (mean 0 over every bot that played, retired ones too); `null`
    /// without games.
    pub elo: Option<f64>,
    /// Half-width of the 95 % interval; `null` when unknown.
    pub elo_err95: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Points (a draw is half a point).
    pub points: f64,
    /// When it last played (Unix seconds).
    pub last_played_unix: Option<i64>,
    /// The same, UTC, ISO 8601.
    pub last_played: Option<String>,
}

/// The ladder's table: active bots by rating.
#[derive(Clone, Debug, Serialize)]
pub struct LadderTable {
    /// Games in the ladder (retired bots' included).
    pub games: u64,
    /// Retired bots (hidden, their games counted).
    pub retired: usize,
    /// Active bots, best first.
    pub bots: Vec<TableRow>,
}

impl LadderTable {
    /// The ladder's table: ratings from every game, active bots only.
    ///
    /// # Errors
    /// A database error or an unreadable stored spec.
    pub fn read(ladder: &Ladder) -> Result<LadderTable, String> {
        let bots = ladder.bots()?;
        let pairs = ladder.pair_tallies().map_err(|e| e.to_string())?;
        Ok(LadderTable::compute(&bots, &pairs))
    }

    /// Rates every bot from the tallies of every pairing and keeps the active bots.
    pub fn compute(bots: &[LadderBot], pairs: &[PairTally]) -> LadderTable {
        let index: HashMap<i64, usize> = bots.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
        let mut rows: Vec<TableRow> = bots
            .iter()
            .map(|b| TableRow {
                rank: 0,
                name: b.name.clone(),
                elo: None,
                elo_err95: None,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                points: 0.0,
                last_played_unix: None,
                last_played: None,
            })
            .collect();
        let mut bt = Vec::new();
        let mut games = 0;
        for p in pairs {
            games += p.games;
            let (Some(&r), Some(&b)) = (index.get(&p.red), index.get(&p.blue)) else { continue };
            bt.push((r, b, p.red_wins as f64 + 0.5 * p.draws as f64, p.games as f64));
            for (me, wins, losses) in [(r, p.red_wins, p.red_losses), (b, p.red_losses, p.red_wins)] {
                let row = &mut rows[me];
                row.games += p.games;
                row.wins += wins;
                row.draws += p.draws;
                row.losses += losses;
                row.points += wins as f64 + 0.5 * p.draws as f64;
                row.last_played_unix = Some(row.last_played_unix.map_or(p.last_played, |t| t.max(p.last_played)));
            }
        }
        let ratings = stratego_stats::bradley_terry_tallies(bots.len(), &bt, None);
        for (row, rating) in rows.iter_mut().zip(&ratings) {
            if row.games > 0 {
                row.elo = Some(rating.elo);
                row.elo_err95 = rating.err95.is_finite().then_some(rating.err95);
            }
            row.last_played = row.last_played_unix.map(utc);
        }
        let mut active: Vec<TableRow> =
            rows.into_iter().zip(bots).filter(|(_, b)| b.retired_unix.is_none()).map(|(r, _)| r).collect();
        active.sort_by(|a, b| {
            let key = |r: &TableRow| r.elo.unwrap_or(f64::NEG_INFINITY);
            key(b).total_cmp(&key(a)).then_with(|| b.games.cmp(&a.games)).then_with(|| a.name.cmp(&b.name))
        });
        for (i, r) in active.iter_mut().enumerate() {
            r.rank = i + 1;
        }
        LadderTable { games, retired: bots.iter().filter(|b| b.retired_unix.is_some()).count(), bots: active }
    }

    fn cells(r: &TableRow) -> [String; 9] {
        let score = if r.games == 0 { "-".to_owned() } else { format!("{:.1}%", 100.0 * r.points / r.games as f64) };
        [
            r.rank.to_string(),
            r.elo.map_or("-".to_owned(), |e| format!("{:+.0}", if e.abs() < 0.5 { 0.0 } else { e })),
            r.elo_err95.map_or("-".to_owned(), |e| format!("±{e:.0}")),
            r.games.to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            score,
            r.last_played.clone().unwrap_or_else(|| "-".to_owned()),
        ]
    }

    /// The heading: bots and games.
    pub fn heading(&self) -> String {
        let retired = if self.retired > 0 { format!(", {} retired", self.retired) } else { String::new() };
        format!("Ladder: {} bots, {} games{retired}", self.bots.len(), self.games)
    }

    /// A plain-text table (names made safe for a terminal by [`crate::text::clean`]).
    pub fn render(&self) -> String {
        let mut s = self.heading() + "\n";
        let names: Vec<_> = self.bots.iter().map(|b| crate::text::clean(&b.name)).collect();
        let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(3).max(3);
        let _ = writeln!(
            s,
            "  {:>3}  {:width$}  {:>6} {:>5}  {:>5}  {:>4} {:>4} {:>4}  {:>6}  last played",
            "#", "bot", "Elo", "±95%", "games", "W", "D", "L", "score"
        );
        for (r, name) in self.bots.iter().zip(&names) {
            let c = Self::cells(r);
            let _ = writeln!(
                s,
                "  {:>3}  {:width$}  {:>6} {:>5}  {:>5}  {:>4} {:>4} {:>4}  {:>6}  {}",
                c[0], name, c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
            );
        }
        s
    }

    /// A Markdown table (GitHub-flavoured), for a CI job summary.
    pub fn markdown(&self) -> String {
        let mut s = format!("### {}\n\n", self.heading());
        s.push_str("| # | bot | Elo | ±95% | games | W | D | L | score | last played |\n");
        s.push_str("|--:|:----|----:|-----:|------:|--:|--:|--:|------:|:------------|\n");
        for r in &self.bots {
            let c = Self::cells(r);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                c[0],
                markdown_escape(&crate::text::clean(&r.name)),
                c[1],
                c[2],
                c[3],
                c[4],
                c[5],
                c[6],
                c[7],
                c[8]
            );
        }
        s
    }

    /// A small self-contained HTML page.
    pub fn html(&self) -> String {
        let mut s = String::from(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"generator\" content=\"stratego-host\">\n<title>Stratego ladder</title>\n<style>\n\
             body { font-family: system-ui, sans-serif; margin: 2em; }\n\
             table { border-collapse: collapse; }\n\
             th, td { padding: 0.3em 0.8em; border-bottom: 1px solid #ddd; }\n\
             td.n { text-align: right; font-variant-numeric: tabular-nums; }\n\
             th { background: #f3f3f3; }\n</style>\n</head>\n<body>\n",
        );
        let _ = writeln!(s, "<h1>{}</h1>", html_escape(&self.heading()));
        s.push_str(&self.table_html());
        s.push_str("\n</body>\n</html>\n");
        s
    }

    /// The table alone (`<table id="ranking">`, a row per bot with `data-bot`), for a page.
    pub fn table_html(&self) -> String {
        let mut s = String::from(
            "<table id=\"ranking\">\n<tr><th>#</th><th>bot</th><th>Elo</th><th>±95%</th><th>games</th><th>W</th><th>D</th><th>L</th><th>score</th><th>last played</th></tr>\n",
        );
        for r in &self.bots {
            let c = Self::cells(r);
            let name = html_escape(&r.name);
            let _ = write!(s, "<tr data-bot=\"{name}\"><td class=\"n\">{}</td><td>{name}</td>", c[0]);
            for cell in &c[1..8] {
                let _ = write!(s, "<td class=\"n\">{}</td>", html_escape(cell));
            }
            let _ = writeln!(s, "<td>{}</td></tr>", html_escape(&c[8]));
        }
        s.push_str("</table>");
        s
    }
}

/// Escapes text for a Markdown table cell: Markdown punctuation is backslash-escaped and
/// HTML is escaped (GitHub renders inline HTML in job summaries).
pub fn markdown_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(ch);
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc(unix: i64) -> String {
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
}

// A bot's history is shown beside the table (its dates as the table's); the store reads it.
impl History {
    /// A plain-text list.
    pub fn render(&self) -> String {
        let (w, d, l) = self.games.iter().fold((0, 0, 0), |(w, d, l), g| match g.result.as_str() {
            "win" => (w + 1, d, l),
            "loss" => (w, d, l + 1),
            _ => (w, d + 1, l),
        });
        let mut s = format!(
            "{}{}: {} games, +{w} ={d} -{l}\n",
            crate::text::clean(&self.name),
            if self.retired { " (retired)" } else { "" },
            self.games.len()
        );
        let width = self.games.iter().map(|g| g.opponent.chars().count()).max().unwrap_or(8).max(8);
        let _ =
            writeln!(s, "  {:20}  {:width$}  {:5}  {:6}  {:22}  game", "date", "opponent", "color", "result", "reason");
        for g in &self.games {
            let _ = writeln!(
                s,
                "  {:20}  {:width$}  {:5}  {:6}  {:22}  {}",
                utc(g.played_unix),
                crate::text::clean(&g.opponent),
                g.color,
                g.result,
                g.reason,
                crate::text::clean(&g.game_id)
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervise::bot_spec::BotSpec;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_798_761_599), "2026-12-31T23:59:59Z");
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(html_escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
        assert_eq!(markdown_escape("a|b_<c>"), "a\\|b\\_&lt;c&gt;");
    }

    fn bot(id: i64, name: &str, retired: bool) -> LadderBot {
        LadderBot {
            id,
            name: name.into(),
            spec: BotSpec::sample_bot(&[]),
            version: None,
            retired_unix: retired.then_some(1),
        }
    }

    fn tally(red: i64, blue: i64, wdl: (u64, u64, u64), last_played: i64) -> PairTally {
        PairTally {
            red,
            blue,
            games: wdl.0 + wdl.1 + wdl.2,
            red_wins: wdl.0,
            draws: wdl.1,
            red_losses: wdl.2,
            last_played,
        }
    }

    #[test]
    fn the_table_rates_from_every_game_and_hides_retired_bots() {
        let bots = [bot(1, "a", false), bot(2, "b", false), bot(3, "old", true), bot(4, "new", false)];
        let pairs = [
            tally(1, 2, (1, 0, 0), 10),
            tally(2, 1, (0, 0, 1), 11),
            tally(1, 3, (0, 1, 0), 12),
            tally(3, 2, (1, 0, 0), 13),
        ];
        let t = LadderTable::compute(&bots, &pairs);
        assert_eq!(t.games, 4);
        assert_eq!(t.retired, 1);
        let names: Vec<&str> = t.bots.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "new"]);
        assert_eq!(t.bots[0].games, 3);
        assert_eq!((t.bots[0].wins, t.bots[0].draws, t.bots[0].losses), (2, 1, 0));
        assert_eq!(t.bots[0].points, 2.5);
        assert_eq!(t.bots[0].last_played_unix, Some(12));
        assert!(t.bots[0].elo.unwrap() > t.bots[1].elo.unwrap());
        assert_eq!(t.bots[2].elo, None);
        assert_eq!(t.bots[2].rank, 3);
        // The order of the tallies does not matter.
        let mut reversed = pairs;
        reversed.reverse();
        let u = LadderTable::compute(&bots, &reversed);
        for (x, y) in t.bots.iter().zip(&u.bots) {
            assert!((x.elo.unwrap_or(0.0) - y.elo.unwrap_or(0.0)).abs() < 1e-6);
        }
        assert!(t.markdown().contains("| 1 | a |"));
        assert!(t.html().contains("<td>a</td>"));
        assert!(t.html().contains(crate::run::output_file::PAGE_MARKER));
    }
}
