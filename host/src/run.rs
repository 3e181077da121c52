//! Runs a validated `match`, `tournament` or `sprt`: the supervisor, the schedule, the
//! executor and the sinks put together. The three commands differ only in their schedule
//! and their sinks.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;

use crate::cli::{EventKind, EventPlan};
use crate::events::{Event, Failure, Flow, RunEnd, Sink};
use crate::executor::{BookLookup, Executor};
use crate::record::RecordWriter;
use crate::report::Summary;
use crate::schedule;
use crate::sinks::{MatchSummary, Progress, RecordsSink, StartupWatch, game_line};
use crate::sprt::{PairSource, SprtSink};
use crate::stats::Hypothesis;
use crate::style::Style;
use crate::supervisor::{Supervisor, SupervisorOptions};
use crate::tournament::TournamentSink;

/// What a finished run prints on stdout, and its exit code.
#[derive(Debug)]
pub struct Outcome {
    /// The summary (a table, or JSON with `--json`).
    pub stdout: String,
    /// The process's exit code.
    pub code: i32,
}

/// A sink shared with the progress line (which reads its status).
struct Shared<S>(Rc<RefCell<S>>);

impl<S: Sink> Sink for Shared<S> {
    fn on_event(&mut self, event: &Event) -> Flow {
        self.0.borrow_mut().on_event(event)
    }
    fn finish(&mut self, end: &RunEnd) -> Result<(), Failure> {
        self.0.borrow_mut().finish(end)
    }
}

/// Runs the event to its end (or interruption) and returns what to print.
///
/// # Errors
/// A configuration problem found only now (the setup book), with its exit code.
pub fn run_event(plan: EventPlan) -> Result<Outcome, crate::cli::ConfigError> {
    let run = &plan.run;
    let book = match &run.setups {
        None => None,
        Some(path) => {
            Some(Arc::new(crate::setup_book::SetupBook::load(path, &run.settings.rules).map_err(|e| {
                crate::cli::ConfigError { message: format!("--setups: {e}"), code: crate::exit::USAGE }
            })?))
        }
    };
    let records = match &run.out {
        Some(dir) => Some(RecordWriter::open(dir).map_err(|e| crate::cli::ConfigError {
            message: format!("--out {}: {e}", dir.display()),
            code: crate::exit::USAGE,
        })?),
        None => None,
    };
    if let Some(log) = &run.settings.protocol_log {
        tracing::info!("protocol log: {}", log.describe());
    }
    let supervisor = Supervisor::start(SupervisorOptions {
        priority: run.host_priority,
        stall_credit: run.stall_credit,
        pin_host: run.pin && run.concurrency == 1,
    });
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let outcome = runtime.block_on(play(&plan, book, records, supervisor.clone()));
    drop(runtime);
    supervisor.kill_all();
    Ok(outcome)
}

async fn play(
    plan: &EventPlan,
    book: Option<Arc<crate::setup_book::SetupBook>>,
    records: Option<RecordWriter>,
    supervisor: Supervisor,
) -> Outcome {
    let run = &plan.run;
    let names: Vec<String> = plan.bots.iter().map(|b| b.spec.name.clone()).collect();
    let same_program = (0..plan.bots.len())
        .flat_map(|a| (a + 1..plan.bots.len()).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            let (x, y) = (&plan.bots[a].spec, &plan.bots[b].spec);
            x.command == y.command && x.dir == y.dir && x.env == y.env
        })
        .collect();
    let book_len = book.as_ref().map(|b| b.len() as u32);
    let event = |format: schedule::Format, games: u32| schedule::Event {
        bots: plan.bots.len(),
        format,
        games_per_pairing: games,
        seed: run.settings.match_seed,
        book_len,
        own_setup: plan.bots.iter().map(|b| b.spec.own_setup).collect(),
        same_program: Vec::clone(&same_program),
    };
    let lookup: Option<BookLookup> =
        book.map(|b| Arc::new(move |i: u32, color| b.deployment(i as usize, color)) as BookLookup);
    let executor = Executor {
        settings: Arc::new(run.settings.clone()),
        bots: Arc::new(plan.bots.clone()),
        book: lookup,
        concurrency: run.concurrency,
        pin: run.pin,
        supervisor: supervisor.clone(),
    };
    let cancel = supervisor.cancel_on_signals();
    let mut records = match records {
        Some(w) => match RecordsSink::start(w) {
            Ok(s) => Some(s),
            Err(e) => {
                return Outcome { stdout: String::new(), code: fail(&format!("cannot start the record writer: {e}")) };
            }
        },
        None => None,
    };
    let records_path = records.as_ref().map(|r| r.path().to_owned());
    let style = Style::stdout();
    let mut startup = StartupWatch::default();
    match &plan.kind {
        EventKind::Match { games } => {
            let schedule: VecDeque<_> = schedule::plan(&event(schedule::Format::RoundRobin, *games)).into();
            let summary = Rc::new(RefCell::new(MatchSummary::new(Summary {
                planned: *games,
                seed: run.settings.match_seed,
                rules: run.settings.rules.name().to_owned(),
                records: records_path,
                ..Summary::default()
            })));
            {
                let mut s = summary.borrow_mut();
                s.summary.bots[0].name = names[0].clone();
                s.summary.bots[1].name = names[1].clone();
            }
            let status = summary.clone();
            let mut progress = Progress::new(
                run.live,
                Some(u64::from(*games)),
                move |e| {
                    e.finished().map(|_| {
                        let s = &status.borrow().summary;
                        let a = &s.bots[0];
                        format!("{} +{} ={} -{}", a.name, a.wins, a.draws, a.losses)
                    })
                },
                game_line,
            );
            let mut shared = Shared(summary.clone());
            let end = {
                let mut sinks: Vec<&mut dyn Sink> = Vec::new();
                if let Some(r) = records.as_mut() {
                    sinks.push(r);
                }
                sinks.push(&mut startup);
                sinks.push(&mut shared);
                sinks.push(&mut progress);
                executor.run(schedule, &mut sinks, cancel).await
            };
            let s = &summary.borrow().summary;
            let text = if run.json { json(s) } else { s.render() };
            finish(text, &end, crate::exit::OK)
        }
        EventKind::Tournament { format, games_per_pairing } => {
            let games = schedule::plan(&event(format.clone(), *games_per_pairing));
            let planned = games.len() as u32;
            let table = Rc::new(RefCell::new(TournamentSink::new(
                names.clone(),
                planned,
                run.settings.match_seed,
                run.settings.rules.name().to_owned(),
                records_path,
            )));
            let status = table.clone();
            let mut progress = Progress::new(
                run.live,
                Some(u64::from(planned)),
                move |e| {
                    e.finished().and_then(|_| status.borrow().leader().map(|(n, p, g)| format!("leader {n} {p}/{g}")))
                },
                game_line,
            );
            let mut shared = Shared(table.clone());
            let end = {
                let mut sinks: Vec<&mut dyn Sink> = Vec::new();
                if let Some(r) = records.as_mut() {
                    sinks.push(r);
                }
                sinks.push(&mut startup);
                sinks.push(&mut shared);
                sinks.push(&mut progress);
                executor.run(VecDeque::from(games), &mut sinks, cancel).await
            };
            let report = &table.borrow().report;
            let text = if run.json { json(report) } else { report.render(style) };
            finish(text, &end, crate::exit::OK)
        }
        EventKind::Sprt { sprt, max_games } => {
            let source = PairSource::new(event(schedule::Format::RoundRobin, 2), *max_games);
            let test = Rc::new(RefCell::new(SprtSink::new(*sprt, names[0].clone(), names[1].clone(), records_path)));
            let status = test.clone();
            let mut progress = Progress::new(
                run.live,
                Some(u64::from(*max_games)),
                move |e| e.finished().map(|_| status.borrow().status()),
                game_line,
            );
            let mut shared = Shared(test.clone());
            let end = {
                let mut sinks: Vec<&mut dyn Sink> = Vec::new();
                if let Some(r) = records.as_mut() {
                    sinks.push(r);
                }
                sinks.push(&mut startup);
                sinks.push(&mut shared);
                sinks.push(&mut progress);
                executor.run(source, &mut sinks, cancel).await
            };
            let t = test.borrow();
            let text = if run.json { json(&t.report) } else { t.report.render(style) };
            let code = match t.verdict() {
                Some(Hypothesis::H1) => crate::exit::SPRT_H1,
                Some(Hypothesis::H0) => crate::exit::SPRT_H0,
                None => crate::exit::SPRT_INCONCLUSIVE,
            };
            finish(text, &end, code)
        }
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("reports serialise") + "\n"
}

fn fail(message: &str) -> i32 {
    eprintln!("stratego-host: {message}");
    crate::exit::FAILURE
}

/// The outcome for how the run ended: a failed sink exits 1, an interruption 130 (after
/// the summary of what finished), else `code`.
fn finish(stdout: String, end: &RunEnd, code: i32) -> Outcome {
    if let Some(f) = &end.failed {
        eprintln!("stratego-host: {}", f.message);
        return Outcome { stdout, code: f.code };
    }
    if end.cancelled {
        eprintln!(
            "stratego-host: interrupted; every bot process was killed; the {} finished games are in the summary and the records",
            end.finished
        );
        return Outcome { stdout, code: crate::exit::INTERRUPTED };
    }
    Outcome { stdout, code }
}
