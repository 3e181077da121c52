//! The tournament's tables: a ranking with Bradley–Terry ratings and error bars, and a
//! crosstable, built game by game from the run's events; for people (aligned, colour only
//! on a terminal) and for programs (`--json`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use stratego_rules::Color;

use crate::display::files::viewer::{ExtraPage, run_line};
use crate::display::terminal::style::Style;
use crate::run::happenings::{DigestSink, Failure, Flow, Happening, RunEnd, Sink};
use crate::run::schedule::GameSpec;
use crate::text::{half, html_escape};
use stratego_stats::{self as stats, Pentanomial, Rating};

/// One bot's line of the ranking.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Standing {
    /// Stable name.
    pub name: String,
    /// Rating (Bradley–Terry, Elo scale, average 0).
    pub elo: f64,
    /// Half-width of its 95 % interval (`null` when it has no game).
    pub elo_err95: Option<f64>,
    /// Games played.
    pub games: u32,
    /// Points (a win 1, a draw 1/2).
    pub points: f64,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Losses by fault, by reason code.
    pub faults: BTreeMap<String, u32>,
    /// Moves that came past their limit, within the safety margin (`over_us` in the records).
    pub margin_moves: u64,
    /// A remote bot's network lag (`lag_us`, `lag_credit_us` in the records).
    #[serde(skip_serializing_if = "crate::compete::report::LagTotals::is_empty")]
    pub lag: crate::compete::report::LagTotals,
}

/// The results between two bots, from the first's side.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PairingResult {
    /// First bot's name.
    pub a: String,
    /// Second bot's name.
    pub b: String,
    /// Wins of `a`.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses of `a`.
    pub losses: u32,
    /// Colour-swapped pairs, by `a`'s points in the pair.
    pub pentanomial: Pentanomial,
    /// `a`'s points per game, 0 to 1.
    pub score: f64,
    /// Share of drawn games.
    pub draw_ratio: f64,
    /// Likelihood that `a` is the stronger, 0 to 1.
    pub los: f64,
    /// Normalised Elo of `a` over `b` (`null` without spread).
    pub nelo: Option<f64>,
    /// Elo of `a` over `b` in words ("no decisive game" when there is none).
    pub elo: String,
    /// Elo from the pentanomial counts of the finished pairs, in words.
    pub pair_elo: String,
}

/// The tables of a tournament.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TournamentReport {
    /// Games finished.
    pub games: u32,
    /// Games planned.
    pub planned: u32,
    /// Master seed.
    pub seed: u64,
    /// Ruleset name.
    pub rules: String,
    /// Bots by rank (best first).
    pub ranking: Vec<Standing>,
    /// `crosstable[i][j]`: points of ranked bot `i` against ranked bot `j` and games
    /// between them (`null` on the diagonal and for pairs that did not meet).
    pub crosstable: Vec<Vec<Option<(f64, u32)>>>,
    /// Every pairing that played.
    pub pairings: Vec<PairingResult>,
    /// The run was interrupted before every game was played.
    pub interrupted: bool,
    /// The safety margin past each limit, milliseconds (`time_control.margin_ms`).
    pub time_margin_ms: u64,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// The records file, when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<String>,
}

/// Collects a tournament's games.
pub struct TournamentSink {
    names: Vec<String>,
    standings: Vec<Standing>,
    /// (bot, opponent) → (points, games).
    cross: BTreeMap<(usize, usize), (f64, u32)>,
    /// (first, second) of a pairing → its results.
    pairings: BTreeMap<(usize, usize), PairingResult>,
    /// Games for the ratings: (red, blue, Red's score).
    games: Vec<(usize, usize, f64)>,
    /// Pair number → the first game's first-bot score and who that bot was.
    open_pairs: BTreeMap<u32, (usize, usize, f64)>,
    /// A bot whose rating is fixed (id, Elo); else ratings average 0.
    pub anchor: Option<(usize, f64)>,
    /// The report, once finished.
    pub report: TournamentReport,
}

impl TournamentSink {
    /// A sink for bots with these names.
    pub fn new(names: Vec<String>, planned: u32, seed: u64, rules: String, records: Option<String>) -> TournamentSink {
        TournamentSink {
            standings: names.iter().map(|n| Standing { name: n.clone(), ..Standing::default() }).collect(),
            names,
            cross: BTreeMap::new(),
            pairings: BTreeMap::new(),
            games: Vec::new(),
            open_pairs: BTreeMap::new(),
            anchor: None,
            report: TournamentReport { planned, seed, rules, records, ..TournamentReport::default() },
        }
    }

    /// The number of bots.
    pub fn bots(&self) -> usize {
        self.names.len()
    }

    /// The standings so far, by score (points per game), for `--report-every`: a header
    /// and a line per bot that has played.
    pub fn standings_text(&self, done: u64) -> String {
        use std::fmt::Write as _;
        let mut rows: Vec<&Standing> = self.standings.iter().filter(|s| s.games > 0).collect();
        rows.sort_by(|a, b| {
            (b.points / f64::from(b.games)).total_cmp(&(a.points / f64::from(a.games))).then(b.games.cmp(&a.games))
        });
        let width = rows.iter().map(|s| s.name.chars().count()).max().unwrap_or(0);
        let mut s =
            format!("standings after {done} of {}:\n", stratego_stats::plural(u64::from(self.report.planned), "game"));
        for (i, r) in rows.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {:>3}  {:width$}  {:>6}/{:<4} {:5.1} %",
                i + 1,
                r.name,
                r.points,
                r.games,
                100.0 * r.points / f64::from(r.games)
            );
        }
        s
    }

    /// The leader so far and its points, for the progress line.
    pub fn leader(&self) -> Option<(&str, f64, u32)> {
        self.standings
            .iter()
            .filter(|s| s.games > 0)
            .max_by(|a, b| (a.points / f64::from(a.games)).total_cmp(&(b.points / f64::from(b.games))))
            .map(|s| (s.name.as_str(), s.points, s.games))
    }

    fn add(&mut self, red: usize, blue: usize, record: &stratego_records::GameDigest, pair: u32) {
        let red_score = match record.result.winner {
            Some(Color::Red) => 1.0,
            Some(Color::Blue) => 0.0,
            None => 0.5,
        };
        self.games.push((red, blue, red_score));
        self.report.time_margin_ms = record.time_control.margin_ms;
        for (me, other, score, color) in [(red, blue, red_score, Color::Red), (blue, red, 1.0 - red_score, Color::Blue)]
        {
            let s = &mut self.standings[me];
            s.margin_moves += record.sides[color].margin_moves;
            s.lag.add(&record.sides[color]);
            s.games += 1;
            s.points += score;
            match record.result.winner {
                None => s.draws += 1,
                Some(w) if w == color => s.wins += 1,
                Some(_) => {
                    s.losses += 1;
                    if record.result.faulty == Some(color) {
                        *s.faults.entry(record.result.reason.code().to_owned()).or_default() += 1;
                    }
                }
            }
            let c = self.cross.entry((me, other)).or_default();
            c.0 += score;
            c.1 += 1;
        }
        let key = (red.min(blue), red.max(blue));
        let a_score = if red == key.0 { red_score } else { 1.0 - red_score };
        let names = &self.names;
        let p = self.pairings.entry(key).or_insert_with(|| PairingResult {
            a: names[key.0].clone(),
            b: names[key.1].clone(),
            ..PairingResult::default()
        });
        match a_score {
            1.0 => p.wins += 1,
            0.0 => p.losses += 1,
            _ => p.draws += 1,
        }
        match self.open_pairs.remove(&pair) {
            None => {
                self.open_pairs.insert(pair, (key.0, key.1, a_score));
            }
            Some((_, _, first)) => p.pentanomial.add(first + a_score),
        }
    }

    /// The ranking (best first) and crosstable in its order, from the games so far: the
    /// Bradley–Terry fit of the final report ([`stats::bradley_terry`]), so the live page's
    /// table (issue #44, item 8) is the one the run ends with.
    fn ranked(&self) -> (Vec<Standing>, Crosstable) {
        let ratings = stats::bradley_terry(self.names.len(), &self.games, self.anchor);
        let mut standings = self.standings.clone();
        for (s, r) in standings.iter_mut().zip(&ratings) {
            s.elo = r.elo;
            s.elo_err95 = r.err95.is_finite().then_some(r.err95);
        }
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&standings[a], &standings[b]);
            rating_key(&ratings[b], y).total_cmp(&rating_key(&ratings[a], x)).then(a.cmp(&b))
        });
        let crosstable = order
            .iter()
            .map(|&i| order.iter().map(|&j| if i == j { None } else { self.cross.get(&(i, j)).copied() }).collect())
            .collect();
        (order.iter().map(|&i| standings[i].clone()).collect(), crosstable)
    }

    /// The ranking and crosstable as they stand, for the live page: every bot from the start
    /// (those without a game last), with its rating and error bar, points, score and
    /// faults ([`tournament_table_html`]); the crosstable up to [`LIVE_CROSSTABLE_MAX`] bots.
    pub fn live_html(&self) -> String {
        let (ranking, cells) = self.ranked();
        let report = TournamentReport { ranking, crosstable: cells, ..TournamentReport::default() };
        tournament_table_html(&report, true)
    }

    fn finish_report(&mut self, end: &RunEnd) {
        let (ranking, crosstable) = self.ranked();
        let r = &mut self.report;
        r.games = end.finished;
        r.interrupted = end.cancelled;
        r.wall_s = end.wall.as_secs_f64();
        r.ranking = ranking;
        r.crosstable = crosstable;
        r.pairings = self
            .pairings
            .values()
            .cloned()
            .map(|mut p| {
                let (w, d, l) = (p.wins, p.draws, p.losses);
                let n = f64::from(w + d + l);
                p.score = if n == 0.0 { 0.0 } else { (f64::from(w) + f64::from(d) / 2.0) / n };
                p.draw_ratio = stats::draw_ratio(w, d, l);
                p.los = stats::elo(w, d, l).map_or(0.5, |e| e.los);
                p.nelo = stats::nelo(w, d, l);
                p.elo = stats::describe_elo(w, d, l);
                p.pair_elo = stats::describe_pentanomial(&p.pentanomial);
                p
            })
            .collect();
    }
}

/// A crosstable's cells in ranked order: points and games of the row's bot against the
/// column's (`None` on the diagonal and for pairs that did not meet).
type Crosstable = Vec<Vec<Option<(f64, u32)>>>;

/// Ranks by rating, and bots without games last.
fn rating_key(r: &Rating, s: &Standing) -> f64 {
    if s.games == 0 { f64::NEG_INFINITY } else { r.elo }
}

impl Sink for TournamentSink {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        if let Happening::GameFinished { spec, record } = happening {
            self.on_digest(spec, &stratego_records::GameDigest::of(record));
        }
        Flow::Continue
    }

    fn finish(&mut self, end: &RunEnd) -> Result<(), Failure> {
        self.finish_report(end);
        Ok(())
    }
}

impl DigestSink for TournamentSink {
    fn on_digest(&mut self, spec: &GameSpec, game: &stratego_records::GameDigest) {
        self.add(spec.seats.red, spec.seats.blue, game, spec.pair);
    }
}

impl TournamentReport {
    /// The tables for people.
    pub fn render(&self, style: Style) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}",
            style.bold(&format!(
                "Tournament: {} of {}, rules {}, seed {}{}",
                self.games,
                stratego_stats::plural(u64::from(self.planned), "game"),
                self.rules,
                self.seed,
                if self.interrupted { " (interrupted)" } else { "" }
            ))
        );
        let width = self.ranking.iter().map(|b| b.name.chars().count()).max().unwrap_or(3).max(4);
        let _ = writeln!(
            s,
            "  {:>3}  {:width$}  {:>6} {:>6}  {:>5}  {:>6}  {:>6}  {:>5} {:>5} {:>5}  faults",
            "#", "bot", "Elo", "±95%", "games", "points", "score", "win", "draw", "loss"
        );
        for (i, b) in self.ranking.iter().enumerate() {
            let score = if b.games == 0 { 0.0 } else { 100.0 * b.points / f64::from(b.games) };
            let err = b.elo_err95.map_or("—".to_owned(), |e| format!("{e:.0}"));
            let faults: Vec<String> = b.faults.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let faults = if faults.is_empty() { "-".to_owned() } else { faults.join(", ") };
            let elo = if b.games == 0 { "—".to_owned() } else { format!("{:+.0}", zero(b.elo)) };
            let elo = format!("{elo:>6}");
            let elo = if b.elo > 0.5 {
                style.green(&elo)
            } else if b.elo < -0.5 {
                style.red(&elo)
            } else {
                elo
            };
            let _ = writeln!(
                s,
                "  {:>3}  {:width$}  {elo} {:>6}  {:>5}  {:>6.1}  {:>5.1}%  {:>5} {:>5} {:>5}  {faults}",
                i + 1,
                b.name,
                err,
                b.games,
                b.points,
                score,
                b.wins,
                b.draws,
                b.losses,
            );
        }
        self.render_crosstable(&mut s, width);
        self.render_pairings(&mut s);
        if self.time_margin_ms > 0 {
            let used: Vec<String> = self
                .ranking
                .iter()
                .filter(|b| b.margin_moves > 0)
                .map(|b| format!("{} {}", b.name, b.margin_moves))
                .collect();
            let used = if used.is_empty() { "none".to_owned() } else { used.join(", ") };
            let _ = writeln!(s, "  time margin {} ms past each limit; moves that used it: {used}", self.time_margin_ms);
        }
        let remote: Vec<String> =
            self.ranking.iter().filter(|b| !b.lag.is_empty()).map(|b| b.lag.describe(&b.name)).collect();
        if !remote.is_empty() {
            let _ = writeln!(s, "  remote bots' network: {}", remote.join("; "));
        }
        let _ = writeln!(s, "  wall {:.1} s", self.wall_s);
        if let Some(r) = &self.records {
            let _ = writeln!(s, "  records: {r}");
        }
        s
    }

    /// The crosstable: the points of each row's bot against each column's, over the games
    /// they played (`width`: the names' column).
    fn render_crosstable(&self, s: &mut String, width: usize) {
        let _ = writeln!(s, "\n  Crosstable (points of the row's bot against the column's / games):");
        let cell = 9;
        let mut header = format!("  {:>3}  {:width$} ", "", "");
        for i in 0..self.ranking.len() {
            let _ = write!(header, " {:>cell$}", format!("#{}", i + 1));
        }
        let _ = writeln!(s, "{}", header.trim_end());
        for (i, row) in self.crosstable.iter().enumerate() {
            let mut line = format!("  {:>3}  {:width$} ", i + 1, self.ranking[i].name);
            for c in row {
                let text = match c {
                    None => "·".to_owned(),
                    Some((p, n)) => format!("{}/{n}", half(*p)),
                };
                let _ = write!(line, " {text:>cell$}");
            }
            let _ = writeln!(s, "{}", line.trim_end());
        }
    }

    /// The pairings (at most 45 of them): wins, draws and losses of the first, the draw
    /// ratio, the pentanomial pairs and the Elo difference.
    fn render_pairings(&self, s: &mut String) {
        if !self.pairings.is_empty() && self.pairings.len() <= 45 {
            let _ = writeln!(s, "\n  Pairings (W/D/L of the first; draw ratio; pairs LL LD WL+DD WD WW):");
            for p in &self.pairings {
                let pe = &p.pentanomial;
                let _ = writeln!(
                    s,
                    "    {} vs {}: {}/{}/{}, draws {:.0} %, pairs {} {} {} {} {}, Elo {}",
                    p.a,
                    p.b,
                    p.wins,
                    p.draws,
                    p.losses,
                    100.0 * p.draw_ratio,
                    pe.ll,
                    pe.ld,
                    pe.wl_dd,
                    pe.wd,
                    pe.ww,
                    p.elo
                );
            }
        }
    }
}

/// `-0` printed as `0`.
/// Zero for anything that rounds to zero, so that no rating prints as `-0`.
fn zero(x: f64) -> f64 {
    if x.abs() < 0.5 { 0.0 } else { x }
}

/// Bots above which a tournament's crosstable goes on a page of its own
/// ([`CROSSTABLE_PAGE`] beside the index) instead of the index: it grows with the square of
/// the bots (200 bots: 40,000 cells, about 1.3 MB).
pub const CROSSTABLE_INLINE_MAX: usize = 40;

/// A tournament's ranking and crosstable as HTML for [`index_html`](crate::display::files::viewer::index_html): `<table
/// id="ranking">` (a row per bot, best first, `data-bot` its name) and `<table
/// id="crosstable">` whose cells carry `data-cell="ROW,COLUMN"` (ranked positions from 0)
/// and show points/games as the text summary does.
/// With more than [`CROSSTABLE_INLINE_MAX`] bots, the crosstable is not in it but on the page
/// [`tournament_crosstable_page`] makes, linked (`<a id="crosstable-link">`).
pub fn tournament_html(report: &TournamentReport) -> String {
    let mut s = run_line(report.games, report.planned, &report.rules, report.seed, report.interrupted);
    s.push_str(&tournament_table_html(report, false));
    s
}

/// Bots up to which the live page shows a tournament's crosstable under its ranking (more
/// would not fit beside the boards of a screen).
pub const LIVE_CROSSTABLE_MAX: usize = 12;

/// [`tournament_html`] without the line of games, rules and seed above it: the ranking (a
/// row per bot: rank, name, Elo, its 95 % error bar, games, points, score, wins, draws,
/// losses, and its faults by [`FAULT_KINDS`](crate::compete::report::FAULT_KINDS)) and the
/// crosstable, or the link to it. For the `live` page, the cells of points and W/D/L have
/// the classes `pts` and `wdl` (a narrow screen leaves them out), and the crosstable is
/// there up to [`LIVE_CROSSTABLE_MAX`] bots.
pub fn tournament_table_html(report: &TournamentReport, live: bool) -> String {
    use crate::compete::report::{fault_cells_html, fault_headers_html, score_percent};
    use std::fmt::Write as _;
    let mut s = format!(
        "<table id=\"ranking\">\n<thead><tr><th>#</th><th>bot</th><th>Elo</th><th>±95%</th><th>games</th><th{pts}>points</th><th>score</th><th{wdl}>W</th><th{wdl}>D</th><th{wdl}>L</th>{}</tr></thead>\n<tbody>\n",
        fault_headers_html(),
        pts = if live { " class=\"pts\"" } else { "" },
        wdl = if live { " class=\"wdl\"" } else { "" },
    );
    let (pts, wdl) = if live { (" pts", " wdl") } else { ("", "") };
    for (i, b) in report.ranking.iter().enumerate() {
        let elo = if b.games == 0 {
            "—".to_owned()
        } else {
            format!("{:+.0}", if b.elo.abs() < 0.5 { 0.0 } else { b.elo })
        };
        let err = b.elo_err95.map_or("—".to_owned(), |e| format!("{e:.0}"));
        let _ = writeln!(
            s,
            "<tr data-bot=\"{name}\"><td class=\"n\">{}</td><td>{name}</td><td class=\"n\" data-elo>{elo}</td><td class=\"n\" data-err>{err}</td><td class=\"n\">{}</td><td class=\"n{pts}\">{}</td><td class=\"n\">{}</td><td class=\"n{wdl}\">{}</td><td class=\"n{wdl}\">{}</td><td class=\"n{wdl}\">{}</td>{}</tr>",
            i + 1,
            b.games,
            half(b.points),
            score_percent(b.points, b.games),
            b.wins,
            b.draws,
            b.losses,
            fault_cells_html(&b.faults),
            name = html_escape(&b.name),
        );
    }
    s.push_str("</tbody>\n</table>\n");
    if live && report.ranking.len() > LIVE_CROSSTABLE_MAX {
        return s;
    }
    if report.ranking.len() > CROSSTABLE_INLINE_MAX {
        let _ = write!(
            s,
            "<h2>Crosstable</h2>\n<p><a id=\"crosstable-link\" href=\"{CROSSTABLE_PAGE}\">The crosstable</a> ({n} × {n} bots) is on a page of its own.</p>",
            n = report.ranking.len()
        );
        return s;
    }
    s.push_str(&crosstable_html(report));
    s
}

/// The file name of a large tournament's crosstable page, beside its index.
pub const CROSSTABLE_PAGE: &str = "crosstable.html";

/// The crosstable page of a tournament of more than [`CROSSTABLE_INLINE_MAX`] bots (`None`
/// for a smaller one: its crosstable is on the index).
pub fn tournament_crosstable_page(report: &TournamentReport, title: &str) -> Option<ExtraPage> {
    (report.ranking.len() > CROSSTABLE_INLINE_MAX).then(|| ExtraPage {
        name: CROSSTABLE_PAGE.to_owned(),
        title: format!("{title}: crosstable"),
        body: crosstable_html(report),
    })
}

/// `<h2>Crosstable</h2>` and the table (see [`tournament_html`]).
fn crosstable_html(report: &TournamentReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(64 + report.ranking.len() * report.ranking.len() * 32);
    s.push_str("<h2>Crosstable</h2>\n<p>Points of the row's bot against the column's / games.</p>\n<table id=\"crosstable\">\n<thead><tr><th></th>");
    for i in 0..report.ranking.len() {
        let _ = write!(s, "<th>#{}</th>", i + 1);
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for (i, row) in report.crosstable.iter().enumerate() {
        let _ = write!(s, "<tr><th>{} {}</th>", i + 1, html_escape(&report.ranking[i].name));
        for (j, c) in row.iter().enumerate() {
            let text = match c {
                None => "·".to_owned(),
                Some((p, n)) => format!("{}/{n}", half(*p)),
            };
            // Right-aligned by the style (#crosstable td): 40,000 cells of a 200-bot table.
            let _ = write!(s, "<td data-cell=\"{i},{j}\">{text}</td>");
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>");
    s
}

/// Records for the sinks' unit tests.
#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use stratego_rules::Color;

    use super::*;
    use crate::record::tests_support::record_with_fault;
    use crate::run::schedule::{self, Format};

    #[test]
    fn a_large_tournament_has_its_crosstable_on_a_page_of_its_own() {
        for bots in [CROSSTABLE_INLINE_MAX, CROSSTABLE_INLINE_MAX + 1] {
            let event = schedule::EventSpec {
                bots,
                format: Format::RoundRobin,
                games_per_pairing: 2,
                seed: 1,
                book_len: None,
                own_setup: vec![false; bots],
                same_program: vec![],
                book_order: schedule::BookOrder::Random,
                book_start: 0,
            };
            let names: Vec<String> = (0..bots).map(|i| format!("bot{i}")).collect();
            let games = schedule::plan(&event);
            let mut sink = TournamentSink::new(names, games.len() as u32, 1, "classic".into(), None);
            for spec in games.into_iter().take(10) {
                let _ = sink
                    .on_happening(&Happening::GameFinished { spec, record: Arc::new(record_with_fault(None, None)) });
            }
            sink.finish(&RunEnd { finished: 10, ..RunEnd::default() }).unwrap();
            let summary = tournament_html(&sink.report);
            let page = tournament_crosstable_page(&sink.report, "T");
            let cells = bots * bots;
            if bots <= CROSSTABLE_INLINE_MAX {
                assert_eq!(summary.matches("data-cell=").count(), cells, "inline");
                assert!(page.is_none());
            } else {
                assert_eq!(summary.matches("data-cell=").count(), 0, "not on the index");
                assert!(summary.contains("<a id=\"crosstable-link\" href=\"crosstable.html\">"), "{summary}");
                let page = page.expect("a page of its own");
                assert_eq!(page.name, "crosstable.html");
                assert_eq!(page.body.matches("data-cell=").count(), cells);
                // The first games' results are in it: five pairs of draws (1 point of 2).
                assert_eq!(page.body.matches(">1/2</td>").count(), 10, "both sides of five pairings");
            }
        }
    }

    #[test]
    fn the_tables_add_up_and_rank_by_rating() {
        // Three bots; bot 2 wins everything, bot 0 beats bot 1 once and draws once.
        let event = schedule::EventSpec {
            bots: 3,
            format: Format::RoundRobin,
            games_per_pairing: 2,
            seed: 1,
            book_len: None,
            own_setup: vec![false; 3],
            same_program: vec![],
            book_order: schedule::BookOrder::Random,
            book_start: 0,
        };
        let names = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let mut sink = TournamentSink::new(names, 6, 1, "classic".into(), None);
        for spec in schedule::plan(&event) {
            let (red, blue) = (spec.seats.red, spec.seats.blue);
            let winner = match (red, blue) {
                (2, _) => Some(Color::Red),
                (_, 2) => Some(Color::Blue),
                (0, 1) => Some(Color::Red),
                _ => None,
            };
            let faulty = (red == 1 && blue == 2).then_some(Color::Red);
            let rec = record_with_fault(winner, faulty);
            assert_eq!(sink.on_happening(&Happening::GameFinished { spec, record: Arc::new(rec) }), Flow::Continue);
        }
        sink.finish(&RunEnd { finished: 6, ..RunEnd::default() }).unwrap();
        let r = &sink.report;
        let order: Vec<&str> = r.ranking.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(order, ["c", "a", "b"]);
        let points: Vec<f64> = r.ranking.iter().map(|s| s.points).collect();
        assert_eq!(points, [4.0, 1.5, 0.5]);
        assert_eq!(r.ranking.iter().map(|s| s.games).sum::<u32>(), 12);
        assert_eq!(r.ranking[2].faults.get("move_timeout"), Some(&1));
        // Crosstable in rank order: c beat a 2/2, a scored 1.5/2 against b.
        assert_eq!(r.crosstable[0][1], Some((2.0, 2)));
        assert_eq!(r.crosstable[1][2], Some((1.5, 2)));
        assert_eq!(r.crosstable[2][1], Some((0.5, 2)));
        assert_eq!(r.crosstable[1][1], None);
        let ab = r.pairings.iter().find(|p| p.a == "a" && p.b == "b").unwrap();
        assert_eq!((ab.wins, ab.draws, ab.losses), (1, 1, 0));
        assert_eq!(ab.pentanomial.wd, 1, "a win and a draw in one pair");
        assert!((ab.draw_ratio - 0.5).abs() < 1e-12);
        assert!(r.ranking[0].elo > r.ranking[1].elo && r.ranking[1].elo > r.ranking[2].elo);
        assert!(r.ranking.iter().all(|s| s.elo.is_finite() && s.elo_err95.is_some()));
        let text = r.render(crate::display::terminal::style::Style::plain());
        assert!(text.starts_with("Tournament: 6 of 6 games, rules classic, seed 1\n"), "{text}");
        assert!(!text.contains("\x1b["), "no colour in plain style");
        assert!(!text.contains("-0 ") && !text.contains("inf") && !text.contains("NaN"), "{text}");
    }
}
