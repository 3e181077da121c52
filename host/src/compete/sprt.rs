//! `stratego-host sprt NEW BASE`: colour-swapped pairs of NEW (bot 0) against BASE (bot 1)
//! until the generalised SPRT over the pairs' pentanomial counts accepts H0 or H1, or the
//! game limit is reached. The schedule is open-ended ([`PairSource`]); the verdict comes
//! from [`SprtSink`], which stops the run when a bound is crossed.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fmt::Write as _;

use serde::Serialize;
use stratego_rules::Color;

use crate::display::terminal::style::Style;
use crate::run::executor::GameSource;
use crate::run::happenings::{DigestSink, Failure, Flow, Happening, RunEnd, Sink};
use crate::run::schedule::{self, GameSpec};
use stratego_stats::{Hypothesis, Pentanomial, Sprt};

/// Pairs of NEW and BASE, one after another, up to `max_games`.
pub struct PairSource {
    event: schedule::EventSpec,
    next_index: u32,
    max_games: u32,
    pending: VecDeque<GameSpec>,
    /// Games already finished (a resumed run): not played again.
    skip: HashSet<String>,
}

impl PairSource {
    /// Pairs for `event` (two bots) up to `max_games` games.
    pub fn new(event: schedule::EventSpec, max_games: u32) -> PairSource {
        PairSource { event, next_index: 0, max_games, pending: VecDeque::new(), skip: HashSet::new() }
    }

    /// The same, not playing the games whose ids are in `finished`.
    pub fn skipping(mut self, finished: HashSet<String>) -> PairSource {
        self.skip = finished;
        self
    }
}

impl GameSource for PairSource {
    fn next_game(&mut self) -> Option<GameSpec> {
        loop {
            if let Some(g) = self.pending.pop_front() {
                return Some(g);
            }
            if self.next_index >= self.max_games {
                return None;
            }
            let pair = schedule::pair_games(&self.event, self.next_index / 2, 0, 1);
            self.next_index += 2;
            self.pending.extend(pair.into_iter().filter(|g| !self.skip.contains(&g.game_id)));
        }
    }

    fn most(&self) -> Option<usize> {
        Some(self.pending.len() + self.max_games.saturating_sub(self.next_index) as usize)
    }
}

/// The state of the test, for people and (`--json`) programs.
#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    /// NEW's name.
    pub new: String,
    /// BASE's name.
    pub base: String,
    /// The test's parameters.
    pub sprt: Sprt,
    /// Lower and upper LLR bounds.
    pub bounds: (f64, f64),
    /// The log-likelihood ratio over the finished pairs.
    pub llr: f64,
    /// Games finished.
    pub games: u32,
    /// NEW's wins, draws and losses.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// NEW's losses.
    pub losses: u32,
    /// Finished pairs by NEW's points.
    pub pentanomial: Pentanomial,
    /// Elo of NEW over BASE as numbers (`elo`, `elo_low`, `elo_high` of the 95 % interval,
    /// `score`, `los`; an infinite value is `null`); `null` before any game.
    pub elo: Option<stratego_stats::EloEstimate>,
    /// The same in words.
    pub elo_text: String,
    /// Games of a pair whose other game was not played (the last game of an interrupted
    /// or limited run): counted in W/D/L, not in the pairs nor the LLR.
    pub unpaired_games: u32,
    /// `"H1"` (NEW is better), `"H0"` (not better), `"inconclusive"` (game limit) or
    /// `"interrupted"`.
    pub verdict: String,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// The records file, when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<String>,
}

/// Watches the pairs and stops the run when the test decides.
pub struct SprtSink {
    open: BTreeMap<u32, f64>,
    decided: Option<Hypothesis>,
    /// NEW's and BASE's losses by fault, by reason code (for the live page's table).
    faults: [BTreeMap<String, u32>; 2],
    /// The report so far.
    pub report: SprtReport,
}

impl SprtSink {
    /// A sink for NEW (bot 0) against BASE (bot 1).
    pub fn new(sprt: Sprt, new: String, base: String, records: Option<String>) -> SprtSink {
        SprtSink {
            open: BTreeMap::new(),
            decided: None,
            faults: Default::default(),
            report: SprtReport {
                new,
                base,
                bounds: sprt.bounds(),
                sprt,
                llr: 0.0,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                pentanomial: Pentanomial::default(),
                elo: None,
                elo_text: String::new(),
                unpaired_games: 0,
                verdict: "inconclusive".into(),
                wall_s: 0.0,
                records,
            },
        }
    }

    /// The verdict, once the test has decided.
    pub fn verdict(&self) -> Option<Hypothesis> {
        self.decided
    }

    /// The progress line's status: games, W/D/L and the LLR against its bounds.
    pub fn status(&self) -> String {
        let r = &self.report;
        format!(
            "{} +{} ={} -{}  LLR {:.2} [{:.2}, {:.2}]",
            r.new, r.wins, r.draws, r.losses, r.llr, r.bounds.0, r.bounds.1
        )
    }
}

impl SprtSink {
    /// The test as it stands, for the live page (issue #44, item 8): the LLR between its
    /// bounds (`<div id="sprt" data-llr data-lower data-upper>`, with a bar from the lower
    /// bound to the upper), the finished pairs, the Elo of NEW over BASE with its 95 %
    /// interval, and a row per bot (games, points, score, W/D/L and faults by
    /// [`FAULT_KINDS`](crate::compete::report::FAULT_KINDS)).
    pub fn live_html(&self) -> String {
        use crate::compete::report::{fault_cells_html, fault_headers_html, score_percent};
        use crate::text::{half, html_escape};
        let r = &self.report;
        let (lower, upper) = r.bounds;
        let at = if upper > lower { ((r.llr - lower) / (upper - lower)).clamp(0.0, 1.0) } else { 0.5 };
        let verdict = match self.decided {
            Some(Hypothesis::H1) => format!("H1 accepted: {} is better", r.new),
            Some(Hypothesis::H0) => format!("H0 accepted: {} is not better", r.new),
            None => "running".to_owned(),
        };
        let mut s = format!(
            "<div id=\"sprt\" data-llr=\"{llr:.3}\" data-lower=\"{lower:.3}\" data-upper=\"{upper:.3}\"><p><strong>LLR {llr:.2}</strong> between the bounds {lower:.2} (H0) and {upper:.2} (H1): {}</p><div class=\"llr-bar\"><span class=\"llr-at\" style=\"left:{:.1}%\"></span></div><p class=\"note\">elo0 {}, elo1 {} ({:?}), alpha {}, beta {}; pairs LL {} LD {} WL+DD {} WD {} WW {}</p></div>\n",
            html_escape(&verdict),
            100.0 * at,
            r.sprt.elo0,
            r.sprt.elo1,
            r.sprt.model,
            r.sprt.alpha,
            r.sprt.beta,
            r.pentanomial.ll,
            r.pentanomial.ld,
            r.pentanomial.wl_dd,
            r.pentanomial.wd,
            r.pentanomial.ww,
            llr = r.llr,
        );
        s.push_str(&format!(
            "<table id=\"ranking\">\n<thead><tr><th>bot</th><th>games</th><th class=\"pts\">points</th><th>score</th><th class=\"wdl\">W</th><th class=\"wdl\">D</th><th class=\"wdl\">L</th>{}</tr></thead>\n<tbody>\n",
            fault_headers_html()
        ));
        for (i, (name, (w, d, l))) in
            [(&r.new, (r.wins, r.draws, r.losses)), (&r.base, (r.losses, r.draws, r.wins))].into_iter().enumerate()
        {
            let points = f64::from(w) + f64::from(d) / 2.0;
            let _ = writeln!(
                s,
                "<tr data-bot=\"{name}\"><td>{name}</td><td class=\"n\">{}</td><td class=\"n pts\">{}</td><td class=\"n\">{}</td><td class=\"n wdl\">{w}</td><td class=\"n wdl\">{d}</td><td class=\"n wdl\">{l}</td>{}</tr>",
                w + d + l,
                half(points),
                score_percent(points, w + d + l),
                fault_cells_html(&self.faults[i]),
                name = html_escape(name),
            );
        }
        s.push_str("</tbody>\n</table>");
        if r.games > 0 {
            let _ = write!(
                s,
                "\n<p class=\"elo\">Elo of {} over {}: {}</p>",
                html_escape(&r.new),
                html_escape(&r.base),
                html_escape(&stratego_stats::describe_elo(r.wins, r.draws, r.losses))
            );
        }
        s
    }
}

impl Sink for SprtSink {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        let Happening::GameFinished { spec, record } = happening else { return Flow::Continue };
        self.add(spec, &record.result)
    }

    fn finish(&mut self, end: &RunEnd) -> Result<(), Failure> {
        self.finish_report(end);
        Ok(())
    }
}

impl DigestSink for SprtSink {
    fn on_digest(&mut self, spec: &GameSpec, game: &stratego_records::GameDigest) {
        let _ = self.add(spec, &game.result);
    }
}

impl SprtSink {
    /// Counts a finished game (its result); stops the run once the test has decided.
    fn add(&mut self, spec: &GameSpec, result: &stratego_protocol::record::RecordResult) -> Flow {
        let winner = result.winner;
        let new_color = if spec.seats.red == 0 { Color::Red } else { Color::Blue };
        if let Some(faulty) = result.faulty.filter(|&c| winner.is_some_and(|w| w != c)) {
            let bot = usize::from(faulty != new_color);
            *self.faults[bot].entry(result.reason.code().to_owned()).or_default() += 1;
        }
        let score = match winner {
            None => 0.5,
            Some(w) if w == new_color => 1.0,
            Some(_) => 0.0,
        };
        let r = &mut self.report;
        r.games += 1;
        match score {
            1.0 => r.wins += 1,
            0.0 => r.losses += 1,
            _ => r.draws += 1,
        }
        // The test counts whole pairs: their two games share setups and seed.
        match self.open.remove(&spec.pair) {
            None => {
                self.open.insert(spec.pair, score);
                return if self.decided.is_some() { Flow::Stop } else { Flow::Continue };
            }
            Some(first) => {
                r.pentanomial.add(first + score);
            }
        }
        r.llr = r.sprt.llr_pentanomial(&r.pentanomial);
        // The first crossing decides, and sticks: games past it (a directory written by a
        // host that played on, or the pairs still running when it decided) are counted in
        // the report but never reopen or change the verdict, so a rerun gives it again.
        if self.decided.is_none() {
            self.decided = r.sprt.verdict(r.llr);
        }
        if self.decided.is_some() { Flow::Stop } else { Flow::Continue }
    }

    fn finish_report(&mut self, end: &RunEnd) {
        let r = &mut self.report;
        r.wall_s = end.wall.as_secs_f64();
        r.elo = stratego_stats::elo(r.wins, r.draws, r.losses);
        r.elo_text = stratego_stats::describe_elo(r.wins, r.draws, r.losses);
        r.unpaired_games = self.open.len() as u32;
        r.verdict = match (self.decided, end.cancelled) {
            (Some(Hypothesis::H1), _) => "H1".into(),
            (Some(Hypothesis::H0), _) => "H0".into(),
            (None, true) => "interrupted".into(),
            (None, false) => "inconclusive".into(),
        };
    }
}

impl SprtReport {
    /// The verdict for people.
    pub fn render(&self, style: Style) -> String {
        let mut s = String::new();
        let verdict = match self.verdict.as_str() {
            "H1" => style.green(&format!("H1 accepted: {} is better than {}", self.new, self.base)),
            "H0" => style.red(&format!("H0 accepted: {} is not better than {}", self.new, self.base)),
            "interrupted" => style.yellow("interrupted before the test decided"),
            _ => style.yellow(&format!(
                "inconclusive after {} (the --max-games limit)",
                stratego_stats::plural(u64::from(self.games), "game")
            )),
        };
        let _ = writeln!(
            s,
            "SPRT {} vs {}: elo0 {}, elo1 {} ({:?}), alpha {}, beta {}",
            self.new, self.base, self.sprt.elo0, self.sprt.elo1, self.sprt.model, self.sprt.alpha, self.sprt.beta
        );
        let _ = writeln!(s, "  {verdict}");
        let _ = writeln!(s, "  LLR {:.3} (bounds {:.3}, {:.3})", self.llr, self.bounds.0, self.bounds.1);
        let p = &self.pentanomial;
        let _ = writeln!(
            s,
            "  games {}: +{} ={} -{}; pairs LL {} LD {} WL+DD {} WD {} WW {}",
            self.games, self.wins, self.draws, self.losses, p.ll, p.ld, p.wl_dd, p.wd, p.ww
        );
        if self.unpaired_games > 0 {
            let (n, verb) = if self.unpaired_games == 1 { ("1 game", "is") } else { ("games", "are") };
            let n = if self.unpaired_games == 1 { n.to_owned() } else { format!("{} {n}", self.unpaired_games) };
            let _ = writeln!(
                s,
                "  ({n} without its colour-swapped partner {verb} counted in the games, not in the pairs nor the LLR)"
            );
        }
        let _ = writeln!(s, "  Elo {}", self.elo_text);
        let _ = writeln!(s, "  wall {:.1} s", self.wall_s);
        if let Some(r) = &self.records {
            let _ = writeln!(s, "  records: {r}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use stratego_rules::Color;

    use super::*;
    use stratego_stats::EloModel;

    #[test]
    fn the_pair_source_makes_colour_swapped_pairs_up_to_the_limit() {
        let event = schedule::EventSpec {
            bots: 2,
            format: schedule::Format::RoundRobin,
            games_per_pairing: 2,
            seed: 9,
            book_len: None,
            own_setup: vec![false; 2],
            same_program: vec![],
            book_order: schedule::BookOrder::Random,
            book_start: 0,
        };
        let mut source = PairSource::new(event, 6);
        let games: Vec<GameSpec> = std::iter::from_fn(|| source.next_game()).collect();
        assert_eq!(games.len(), 6);
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.index as usize, i);
            assert_eq!(g.pair as usize, i / 2);
            assert_eq!(g.seats.red, i % 2, "NEW is Red in the first game of each pair");
        }
    }

    #[test]
    fn the_sink_counts_pairs_and_stops_when_h1_is_accepted() {
        let sprt = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };
        let mut sink = SprtSink::new(sprt, "new".into(), "base".into(), None);
        let event = schedule::EventSpec {
            bots: 2,
            format: schedule::Format::RoundRobin,
            games_per_pairing: 2,
            seed: 9,
            book_len: None,
            own_setup: vec![false; 2],
            same_program: vec![],
            book_order: schedule::BookOrder::Random,
            book_start: 0,
        };
        let mut flows = Vec::new();
        for pair in 0..200 {
            for spec in schedule::pair_games(&event, pair, 0, 1) {
                // NEW wins every game but one draw in four pairs.
                let new_color = if spec.seats.red == 0 { Color::Red } else { Color::Blue };
                let winner = if pair % 4 == 0 && spec.seats.red == 1 { None } else { Some(new_color) };
                let record = crate::record::tests_support::record(winner);
                let flow = sink.on_happening(&Happening::GameFinished { spec, record: Arc::new(record) });
                flows.push(flow.clone());
                if flow == Flow::Stop {
                    break;
                }
            }
            if flows.last() == Some(&Flow::Stop) {
                break;
            }
        }
        assert_eq!(sink.verdict(), Some(Hypothesis::H1));
        let r = &sink.report;
        assert!(r.llr >= r.bounds.1);
        assert_eq!(r.games % 2, 0, "the test decides on whole pairs");
        assert_eq!(r.pentanomial.pairs() as u32 * 2, r.games);
        assert!(r.games < 100, "{} games", r.games);
        sink.finish(&RunEnd::default()).unwrap();
        assert_eq!(sink.report.verdict, "H1");
    }

    /// Review F11: games past the first crossing (a directory where an older host played
    /// on) take the LLR back inside the bounds, but the verdict stays.
    #[test]
    fn the_first_decision_sticks_when_later_games_take_the_llr_back_inside() {
        let sprt = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };
        let mut sink = SprtSink::new(sprt, "new".into(), "base".into(), None);
        let event = schedule::EventSpec {
            bots: 2,
            format: schedule::Format::RoundRobin,
            games_per_pairing: 2,
            seed: 9,
            book_len: None,
            own_setup: vec![false; 2],
            same_program: vec![],
            book_order: schedule::BookOrder::Random,
            book_start: 0,
        };
        let mut pair = 0;
        // NEW wins every pair until H1; then loses every pair, well past the decision.
        while sink.verdict().is_none() {
            for spec in schedule::pair_games(&event, pair, 0, 1) {
                let new_color = if spec.seats.red == 0 { Color::Red } else { Color::Blue };
                let record = crate::record::tests_support::record(Some(new_color));
                let _ = sink.on_happening(&Happening::GameFinished { spec, record: Arc::new(record) });
            }
            pair += 1;
        }
        let decided_at = sink.report.games;
        for _ in 0..decided_at {
            for spec in schedule::pair_games(&event, pair, 0, 1) {
                let new_color = if spec.seats.red == 0 { Color::Red } else { Color::Blue };
                let record = crate::record::tests_support::record(Some(!new_color));
                let flow = sink.on_happening(&Happening::GameFinished { spec, record: Arc::new(record) });
                assert_eq!(flow, Flow::Stop, "a decided test stays decided");
            }
            pair += 1;
        }
        let r = &sink.report;
        assert!(r.llr < r.bounds.1, "the later games took the LLR back inside: {} in {:?}", r.llr, r.bounds);
        assert_eq!(sink.verdict(), Some(Hypothesis::H1));
        sink.finish(&RunEnd::default()).unwrap();
        assert_eq!(sink.report.verdict, "H1");
    }
}
