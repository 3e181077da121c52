//! What makes `match`, `tournament` and `sprt` differ, in one place: for its kind, a
//! [`Competition`] gives the games it plays (and the source the executor takes them from), the
//! [`ReportSink`] its games fill, how that report is shown (text, JSON, an HTML page) and the
//! exit code it ends with. The kind is told apart here and nowhere else ([`of`], and
//! [`from_manifest`] for a run's directory); `commands::harness` runs any competition and
//! `commands::merge` reports any, without knowing which.
//!
//! The run layer needs a little of the kind (how bots meet and games per pairing for the
//! schedule, the name and SPRT for the manifest): [`Competition`] hands it down as data.
//!
//! `ladder play` is a competition too (its kind is in `commands::ladder::play`, beside the
//! ladder's database, which this layer does not know): its report sink is the database
//! itself ([`Competition::keeps_games`]), its report the ladder's table, read back at the end
//! ([`ReportSink::conclude`]).

use std::collections::{HashSet, VecDeque};

use crate::compete::report::{Summary, json};
pub use crate::compete::report_sink::{Page, ReportSink};
use crate::compete::sinks::MatchSummary;
use crate::compete::sprt::{PairSource, SprtSink};
use crate::compete::tournament::TournamentSink;
use crate::display::terminal::style::Style;
use crate::run::executor::GameSource;
use crate::run::happenings::DigestSink;
use crate::run::manifest;
use crate::run::plan::EventKind;
use crate::run::schedule::{self, GameSpec};
use stratego_stats::Hypothesis;

/// A competition's kind: what its games are, what they fill and how it ends.
pub trait Competition {
    /// The command that plays it, as a run's manifest records it (`match`, `tournament`,
    /// `sprt`).
    fn name(&self) -> &'static str;

    /// How its bots meet and games per pairing: the competition's part of the schedule's
    /// input ([`crate::run::plan::RunConfig::schedule_event`]).
    fn pairing(&self) -> (schedule::Format, u32);

    /// For `sprt`: the test and its game limit, as the manifest records them.
    fn sprt(&self) -> Option<(stratego_stats::Sprt, u32)> {
        None
    }

    /// For a competition that decides as it goes (`sprt`), why, in words (`an SPRT decides as
    /// it goes`): it cannot be sharded, and the games it did not reach are not missing.
    /// `None` for a fixed list of games.
    fn open_ended(&self) -> Option<&'static str> {
        None
    }

    /// Pages per bot its live page serves (`/bots/NAME`, `/arena/games/ID.html`): an arena's,
    /// read from its file. `None` (the default): the live page has none.
    fn bot_pages(&self) -> Option<std::sync::Arc<dyn crate::display::web::bot_page::ArenaPages>> {
        None
    }

    /// Every game of its plan for `event`, in schedule order (open-ended: every game it may
    /// play). By default the schedule's plan.
    fn games(&self, event: &schedule::EventSpec) -> Vec<GameSpec> {
        schedule::plan(event)
    }

    /// Where the executor takes the games to play from: `todo` are the games of
    /// [`Competition::games`] (in this shard) not finished yet; an open-ended competition
    /// makes them as it goes instead (skipping the others of its games: those finished). By
    /// default, `todo` as a list.
    fn source(&self, _event: &schedule::EventSpec, todo: VecDeque<GameSpec>) -> Games {
        Games::List(todo)
    }

    /// The report its games fill, with nothing in it yet.
    fn report_sink(&self, header: &Header) -> Box<dyn ReportSink>;

    /// Whether its report sink is where the games are kept (the ladder's database): then it
    /// sees each game right after the startup guard and before the records file, so that a
    /// game it fails to keep is not written there either (nor counted, nor shown), and a
    /// records file that failed never remakes the report (the file is a copy). By default
    /// the report comes after the records file and counts what it took.
    fn keeps_games(&self) -> bool {
        false
    }

    /// The live page's title (an event's name, when `--event` gave one, comes first). By
    /// default `match of a, b`, and past two bots their number (`tournament of 8 bots`):
    /// the page's header does not list every bot (issue #44, item 9), its standings do.
    fn title(&self, names: &[&str]) -> String {
        match names {
            [_, _] | [_] => format!("{} of {}", self.name(), names.join(", ")),
            _ => format!("{} of {} bots", self.name(), names.len()),
        }
    }
}

/// What every report starts from.
#[derive(Clone, Debug)]
pub struct Header {
    /// The bots' names, by id.
    pub names: Vec<String>,
    /// Games planned (in this shard).
    pub planned: u32,
    /// The master seed.
    pub seed: u64,
    /// The rules' name.
    pub rules: String,
    /// The records file, when the games are saved.
    pub records: Option<String>,
}

/// The games a run plays: a list, or pairs made as the competition goes.
pub enum Games {
    /// The games still to play, in order.
    List(VecDeque<GameSpec>),
    /// An SPRT's pairs.
    Pairs(PairSource),
    /// Games made by a source of a competition above this layer (the arena's pairings).
    Other(Box<dyn GameSource>),
}

impl GameSource for Games {
    fn next_game(&mut self) -> Option<GameSpec> {
        match self {
            Games::List(games) => games.next_game(),
            Games::Pairs(pairs) => pairs.next_game(),
            Games::Other(source) => source.next_game(),
        }
    }

    fn next_game_after(
        &mut self,
        held: Option<stratego_rules::ByColor<usize>>,
    ) -> Option<crate::run::schedule::GameSpec> {
        match self {
            Games::Other(source) => source.next_game_after(held),
            _ => self.next_game(),
        }
    }

    fn most(&self) -> Option<usize> {
        match self {
            Games::List(games) => games.most(),
            Games::Pairs(pairs) => pairs.most(),
            Games::Other(source) => source.most(),
        }
    }

    fn ends_when_empty(&self) -> bool {
        match self {
            Games::Other(source) => source.ends_when_empty(),
            _ => true,
        }
    }

    fn hub_started(&mut self, hub: &std::sync::Arc<crate::remote::hub::Hub>) {
        if let Games::Other(source) = self {
            source.hub_started(hub);
        }
    }

    fn admit(&mut self) -> Vec<crate::run::executor::Entrant> {
        match self {
            Games::Other(source) => source.admit(),
            _ => Vec::new(),
        }
    }

    fn admitted(
        &mut self,
        id: usize,
        entrant: &crate::run::executor::Entrant,
        check: Result<(), crate::run::happenings::Failure>,
    ) {
        if let Games::Other(source) = self {
            source.admitted(id, entrant, check);
        }
    }
}

/// The competition of a validated plan's kind.
pub fn of(kind: &EventKind) -> Box<dyn Competition> {
    match kind {
        EventKind::Match { games } => Box::new(MatchKind { games: *games }),
        EventKind::Tournament { format, games_per_pairing, anchor } => {
            Box::new(TournamentKind { format: format.clone(), games_per_pairing: *games_per_pairing, anchor: *anchor })
        }
        EventKind::Sprt { sprt, max_games } => Box::new(SprtKind { sprt: *sprt, max_games: *max_games }),
        // A knockout plays each tie as a match (`commands::knockout`).
        EventKind::Knockout { games } => Box::new(MatchKind { games: *games }),
    }
}

/// The competition a run's directory holds (its manifest's plan), for `merge`; `anchor`
/// (`NAME[=ELO]`) fixes a tournament's rating.
///
/// # Errors
/// An anchor for another competition than a tournament, or one that names no bot.
pub fn from_manifest(plan: &manifest::Plan, anchor: Option<&str>) -> Result<Box<dyn Competition>, String> {
    if anchor.is_some() && plan.command != "tournament" {
        return Err(format!("--anchor: only for a tournament's directories (these hold a {})", plan.command));
    }
    let kind = match (plan.command.as_str(), plan.sprt) {
        ("sprt", Some((sprt, max_games))) => EventKind::Sprt { sprt, max_games },
        ("tournament", _) => EventKind::Tournament {
            format: plan.event.format.clone(),
            games_per_pairing: plan.event.games_per_pairing,
            anchor: anchor
                .map(|text| crate::run::plan::parse_anchor(text, plan.bots.iter().map(|b| b.name.as_str())))
                .transpose()?,
        },
        _ => EventKind::Match { games: plan.event.games_per_pairing },
    };
    Ok(of(&kind))
}

/// `match`: two bots, N games.
struct MatchKind {
    games: u32,
}

impl Competition for MatchKind {
    fn name(&self) -> &'static str {
        "match"
    }

    fn pairing(&self) -> (schedule::Format, u32) {
        (schedule::Format::RoundRobin, self.games)
    }

    fn report_sink(&self, header: &Header) -> Box<dyn ReportSink> {
        let mut s = MatchSummary::new(Summary {
            planned: header.planned,
            seed: header.seed,
            rules: header.rules.clone(),
            records: header.records.clone(),
            ..Summary::default()
        });
        s.summary.bots[0].name = header.names[0].clone();
        s.summary.bots[1].name = header.names[1].clone();
        Box::new(s)
    }
}

impl ReportSink for MatchSummary {
    fn digest_sink(&mut self) -> Option<&mut dyn DigestSink> {
        Some(self)
    }

    fn progress(&self) -> Option<String> {
        let a = &self.summary.bots[0];
        Some(format!("{} +{} ={} -{}", a.name, a.wins, a.draws, a.losses))
    }

    fn interim(&self, done: u64) -> String {
        let s = &self.summary;
        let a = &s.bots[0];
        let played = f64::from(a.wins + a.draws + a.losses).max(1.0);
        let score = f64::from(a.wins) + f64::from(a.draws) / 2.0;
        format!(
            "score after {done} of {}: {} +{} ={} -{} ({:.1} %) vs {}",
            stratego_stats::plural(u64::from(s.planned), "game"),
            a.name,
            a.wins,
            a.draws,
            a.losses,
            100.0 * score / played,
            s.bots[1].name
        )
    }

    fn live_html(&self, _done: u64) -> String {
        crate::compete::report::match_table_html(&self.summary, true)
    }

    fn text(&self, _style: Style) -> String {
        self.summary.render()
    }

    fn json(&self, event: Option<&str>) -> String {
        event_json(event, &self.summary)
    }

    fn page(&self) -> Page {
        let s = &self.summary;
        Page {
            title: format!("Match: {} vs {}", s.bots[0].name, s.bots[1].name),
            summary_html: Some(crate::compete::report::match_html(s)),
            extra: Vec::new(),
        }
    }

    fn code(&self) -> i32 {
        crate::exit::OK
    }
}

/// `tournament`: many bots, round-robin or gauntlet.
struct TournamentKind {
    format: schedule::Format,
    games_per_pairing: u32,
    anchor: Option<(usize, f64)>,
}

impl Competition for TournamentKind {
    fn name(&self) -> &'static str {
        "tournament"
    }

    fn pairing(&self) -> (schedule::Format, u32) {
        (self.format.clone(), self.games_per_pairing)
    }

    fn report_sink(&self, header: &Header) -> Box<dyn ReportSink> {
        let mut t = TournamentSink::new(
            header.names.clone(),
            header.planned,
            header.seed,
            header.rules.clone(),
            header.records.clone(),
        );
        t.anchor = self.anchor;
        Box::new(t)
    }
}

impl ReportSink for TournamentSink {
    fn digest_sink(&mut self) -> Option<&mut dyn DigestSink> {
        Some(self)
    }

    fn progress(&self) -> Option<String> {
        self.leader().map(|(n, p, g)| format!("leader {n} {p}/{g}"))
    }

    fn interim(&self, done: u64) -> String {
        self.standings_text(done)
    }

    fn live_html(&self, _done: u64) -> String {
        TournamentSink::live_html(self)
    }

    fn text(&self, style: Style) -> String {
        self.report.render(style)
    }

    fn json(&self, event: Option<&str>) -> String {
        event_json(event, &self.report)
    }

    fn page(&self) -> Page {
        let title = format!("Tournament: {} bots, rules {}", self.bots(), self.report.rules);
        Page {
            summary_html: Some(crate::compete::tournament::tournament_html(&self.report)),
            extra: crate::compete::tournament::tournament_crosstable_page(&self.report, &title).into_iter().collect(),
            title,
        }
    }

    fn code(&self) -> i32 {
        crate::exit::OK
    }
}

/// `sprt`: NEW (bot 0) against BASE (bot 1) in pairs until the test decides.
struct SprtKind {
    sprt: stratego_stats::Sprt,
    max_games: u32,
}

impl Competition for SprtKind {
    fn name(&self) -> &'static str {
        "sprt"
    }

    fn pairing(&self) -> (schedule::Format, u32) {
        (schedule::Format::RoundRobin, 2)
    }

    fn sprt(&self) -> Option<(stratego_stats::Sprt, u32)> {
        Some((self.sprt, self.max_games))
    }

    fn open_ended(&self) -> Option<&'static str> {
        Some("an SPRT decides as it goes")
    }

    fn games(&self, event: &schedule::EventSpec) -> Vec<GameSpec> {
        (0..self.max_games / 2).flat_map(|p| schedule::pair_games(event, p, 0, 1)).collect()
    }

    fn source(&self, event: &schedule::EventSpec, todo: VecDeque<GameSpec>) -> Games {
        let todo: HashSet<String> = todo.into_iter().map(|g| g.game_id).collect();
        let finished: HashSet<String> =
            self.games(event).into_iter().map(|g| g.game_id).filter(|id| !todo.contains(id)).collect();
        Games::Pairs(PairSource::new(event.clone(), self.max_games).skipping(finished))
    }

    fn report_sink(&self, header: &Header) -> Box<dyn ReportSink> {
        Box::new(SprtSink::new(self.sprt, header.names[0].clone(), header.names[1].clone(), header.records.clone()))
    }
}

impl ReportSink for SprtSink {
    fn digest_sink(&mut self) -> Option<&mut dyn DigestSink> {
        Some(self)
    }

    fn progress(&self) -> Option<String> {
        Some(self.status())
    }

    fn interim(&self, done: u64) -> String {
        format!("after {}: {}", stratego_stats::plural(done, "game"), self.status())
    }

    fn live_html(&self, _done: u64) -> String {
        SprtSink::live_html(self)
    }

    fn text(&self, style: Style) -> String {
        self.report.render(style)
    }

    fn json(&self, event: Option<&str>) -> String {
        event_json(event, &self.report)
    }

    fn page(&self) -> Page {
        Page {
            title: format!("SPRT: {} vs {}", self.report.new, self.report.base),
            summary_html: None,
            extra: Vec::new(),
        }
    }

    fn decided(&self) -> bool {
        self.verdict().is_some()
    }

    fn code(&self) -> i32 {
        match self.verdict() {
            Some(Hypothesis::H1) => crate::exit::SPRT_H1,
            Some(Hypothesis::H0) => crate::exit::SPRT_H0,
            None => crate::exit::SPRT_INCONCLUSIVE,
        }
    }
}

/// The JSON report, with `"event"` when `--event` named the event.
fn event_json<T: serde::Serialize>(event: Option<&str>, value: &T) -> String {
    let Some(name) = event else { return json(value) };
    let mut object = serde_json::Map::new();
    object.insert("event".to_owned(), serde_json::Value::String(name.to_owned()));
    match serde_json::to_value(value).expect("reports serialise") {
        serde_json::Value::Object(fields) => object.extend(fields),
        other => {
            object.insert("report".to_owned(), other);
        }
    }
    json(&object)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use stratego_rules::Color;

    use super::*;
    use crate::record::GameRecord;
    use crate::run::happenings::{Happening, RunEnd};
    use crate::run::schedule::{BookOrder, EventSpec, Format};

    /// A record for `spec` whose result and plies vary with `n`: wins, draws and faults of
    /// either side, plies with stalls, margins and network lag.
    fn varied(spec: &GameSpec, n: usize) -> GameRecord {
        let winner = [Some(Color::Red), Some(Color::Blue), None][n % 3];
        let faulty = (n % 5 == 1).then(|| winner.map_or(Color::Red, |w| !w));
        let mut rec = crate::record::tests_support::record_with_fault(winner, faulty);
        rec.game_id = spec.game_id.clone();
        rec.index = spec.index;
        rec.pair = spec.pair;
        rec.time_control.margin_ms = 5;
        rec.bots.red.think_us = 1000 + n as u64;
        rec.bots.blue.think_us = 2000 + 3 * n as u64;
        let plies: Vec<String> = (0..(n % 7) + 1)
            .map(|k| {
                let color = if k % 2 == 0 { "red" } else { "blue" };
                let mut p = format!(r#"{{"color":"{color}","move":"a4-a5","time_us":{}"#, 100 + k);
                if (n + k) % 3 == 0 {
                    p.push_str(&format!(r#","stall_us":{}"#, 10 + n + k));
                }
                if (n + k) % 4 == 1 {
                    p.push_str(&format!(r#","over_us":{}"#, 7 * (n + k)));
                }
                if (n + k) % 5 == 2 {
                    p.push_str(&format!(r#","lag_us":{},"lag_credit_us":{}"#, 40 + n, (n + k) % 30));
                }
                p + "}"
            })
            .collect();
        rec.plies = plies.iter().map(|p| serde_json::from_str(p).unwrap()).collect();
        rec
    }

    /// Every report `merge` fills from digests (match, tournament, SPRT) says exactly what
    /// it says when given the whole records: the same text and JSON, byte for byte.
    #[test]
    fn a_report_filled_from_digests_is_the_report_of_the_whole_records() {
        let kinds = [
            (EventKind::Match { games: 20 }, 2),
            (EventKind::Tournament { format: Format::RoundRobin, games_per_pairing: 4, anchor: None }, 4),
            (
                EventKind::Sprt {
                    sprt: stratego_stats::Sprt {
                        elo0: 0.0,
                        elo1: 200.0,
                        alpha: 0.2,
                        beta: 0.2,
                        model: stratego_stats::EloModel::Normalized,
                    },
                    max_games: 40,
                },
                2,
            ),
        ];
        for (kind, bots) in kinds {
            let competition = of(&kind);
            let (format, games_per_pairing) = competition.pairing();
            let event = EventSpec {
                bots,
                format,
                games_per_pairing,
                seed: 3,
                book_len: None,
                own_setup: vec![false; bots],
                same_program: vec![],
                book_order: BookOrder::Random,
                book_start: 0,
            };
            let games = competition.games(&event);
            let header = Header {
                names: (0..bots).map(|i| format!("bot{i}")).collect(),
                planned: games.len() as u32,
                seed: 3,
                rules: "classic".into(),
                records: None,
            };
            let (mut whole, mut light) = (competition.report_sink(&header), competition.report_sink(&header));
            for (n, spec) in games.iter().enumerate() {
                let rec = varied(spec, n);
                let line = serde_json::to_string(&rec).unwrap();
                whole.on_history(&Happening::GameFinished { spec: spec.clone(), record: Arc::new(rec) });
                let digest = stratego_records::GameDigest::parse(&line).unwrap();
                light.digest_sink().expect("a report of digests").on_digest(spec, &digest);
            }
            let end = RunEnd { finished: games.len() as u32, ..RunEnd::default() };
            whole.finish(&end).unwrap();
            light.finish(&end).unwrap();
            let name = competition.name();
            let text = whole.text(Style::plain());
            assert_eq!(light.text(Style::plain()), text, "{name}: text");
            assert_eq!(light.json(Some("e")), whole.json(Some("e")), "{name}: JSON");
            assert_eq!(light.page().summary_html, whole.page().summary_html, "{name}: index summary");
            // The records were not all alike: the reports have something to differ on.
            let json = whole.json(None);
            let read: &[&str] = match name {
                "match" => &["\"stall_moves\": ", "\"margin_max_us\": ", "\"credit_us\": "],
                "tournament" => &["\"margin_moves\": ", "\"credit_us\": "],
                _ => &["\"pentanomial\": "],
            };
            for field in read {
                assert!(json.contains(field), "{name}: {field} is in the report: {json}");
            }
        }
    }
}
