//! The executor: runs the plan's games, up to `concurrency` at once, and hands each
//! finished record to the reporters (records file, live line, summary).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use stratego_protocol::Rng;
use stratego_rules::{ByColor, Color};
use tokio::sync::mpsc;

use crate::bot_process::BotProcess;
use crate::bot_spec::BotSpec;
use crate::record::{GameRecord, RecordWriter};
use crate::referee::{GameSettings, GameSpec, play_game};
use crate::report::Summary;

/// A validated match.
pub struct MatchPlan {
    /// Bot A and bot B.
    pub bots: [BotSpec; 2],
    /// Games to play.
    pub games: u32,
    /// Games at once.
    pub concurrency: usize,
    /// Shared settings.
    pub settings: GameSettings,
    /// Where records go.
    pub records: Option<RecordWriter>,
    /// Print a line per game.
    pub live: bool,
}

impl MatchPlan {
    /// The games in order: colours alternate (bot A is Red in even games), and each pair
    /// of games shares its seed.
    pub fn schedule(&self) -> Vec<GameSpec> {
        (0..self.games)
            .map(|i| {
                let a_red = i % 2 == 0;
                GameSpec {
                    index: i,
                    game_id: format!("{:016x}-{}", self.settings.match_seed, i + 1),
                    seed: Rng::derive(self.settings.match_seed, u64::from(i / 2)),
                    bots: if a_red { ByColor::new(0, 1) } else { ByColor::new(1, 0) },
                }
            })
            .collect()
    }
}

/// The thread that encodes and writes records, while a match runs.
static RECORD_WRITER: Mutex<Option<std::thread::JoinHandle<std::io::Result<()>>>> = Mutex::new(None);

/// Waits until every record handed to the writer is written. Called at the end of a match,
/// and by `main` after an interruption (the match's future is dropped then, which closes
/// the writer's queue).
///
/// # Errors
/// A record could not be written.
pub fn wait_for_records() -> std::io::Result<()> {
    let writer = RECORD_WRITER.lock().unwrap_or_else(|e| e.into_inner()).take();
    match writer {
        Some(w) => w.join().unwrap_or_else(|_| Err(std::io::Error::other("the record writer panicked"))),
        None => Ok(()),
    }
}

/// Runs the match to the end and returns the summary.
///
/// # Errors
/// A record could not be written (the match stops: results that cannot be saved are lost).
pub async fn run_match(plan: MatchPlan) -> std::io::Result<Summary> {
    let started = Instant::now();
    let plan = Arc::new(plan);
    let queue = Arc::new(Mutex::new(plan.schedule().into_iter().collect::<VecDeque<_>>()));
    let (tx, mut rx) = mpsc::unbounded_channel::<GameRecord>();
    let mut workers = Vec::new();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    if !crate::os::become_subreaper() {
        tracing::warn!(
            "could not become a child subreaper: bot descendants that leave their process group may outlive their game"
        );
    }
    let wanted = plan.settings.host_priority;
    let got = crate::os::raise_host_priority(wanted);
    if got < wanted {
        tracing::info!(
            "the host runs at priority {got:?}, not {wanted:?} (needs CAP_SYS_NICE): answers may be read late when bots fill every CPU"
        );
    } else {
        tracing::debug!("the host runs at priority {got:?}");
    }
    if plan.settings.stall_credit {
        if got == crate::os::HostPriority::Realtime {
            match crate::stall_watch::start() {
                Ok(w) => tracing::debug!("stall watchdogs on CPUs {:?}", w.cpus().collect::<Vec<_>>()),
                Err(e) => tracing::info!("no credit for machine stalls: {e}"),
            }
        } else {
            tracing::info!("no credit for machine stalls: the watchdogs need a real-time host (CAP_SYS_NICE)");
        }
    }
    if plan.settings.pin && plan.concurrency == 1 {
        // One game at a time: host and both bots share one CPU, so every hand-over is a
        // cheap same-CPU wake-up instead of a cross-CPU one.
        if let Err(e) = crate::os::pin_current(0) {
            tracing::warn!("--pin: cannot pin the host: {e}");
        }
    }
    for slot in 0..plan.concurrency.max(1) {
        let (plan, queue, tx) = (plan.clone(), queue.clone(), tx.clone());
        let cpu = plan.settings.pin.then_some(slot % cores);
        workers.push(tokio::spawn(async move {
            // Processes of multi-game bots, kept between this worker's games.
            let mut pool: Vec<Vec<BotProcess>> = vec![Vec::new(), Vec::new()];
            loop {
                let Some(spec) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front() else { break };
                let specs = ByColor::new(plan.bots[spec.bots.red].clone(), plan.bots[spec.bots.blue].clone());
                let procs = ByColor::new(pool[spec.bots.red].pop(), pool[spec.bots.blue].pop());
                let (record, kept) = play_game(&plan.settings, &spec, cpu, specs, procs).await;
                let ByColor { red, blue } = kept;
                for (color, p) in [(Color::Red, red), (Color::Blue, blue)] {
                    if let Some(p) = p {
                        pool[spec.bots[color]].push(p);
                    }
                }
                if tx.send(record).is_err() {
                    break;
                }
            }
            for p in pool.into_iter().flatten() {
                p.shutdown(plan.settings.grace).await;
            }
        }));
    }
    drop(tx);
    let mut summary = Summary {
        planned: plan.games,
        seed: plan.settings.match_seed,
        rules: plan.settings.rules.name().to_owned(),
        records: plan.records.as_ref().map(|r| r.path().display().to_string()),
        ..Summary::default()
    };
    summary.bots[0].name = plan.bots[0].name.clone();
    summary.bots[1].name = plan.bots[1].name.clone();
    // Records are encoded and written on a thread of their own at a low priority: encoding
    // a long game takes a millisecond or more, which must not be taken from thinking bots
    // (the host's own thread runs at a raised priority).
    let (wtx, wrx) = std::sync::mpsc::channel::<GameRecord>();
    let write_failed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (plan, failed) = (plan.clone(), write_failed.clone());
        std::thread::Builder::new().name("records".into()).spawn(move || {
            crate::os::lower_current_thread();
            for record in wrx {
                if let Some(w) = &plan.records {
                    if let Err(e) = w.append(&record) {
                        failed.store(true, std::sync::atomic::Ordering::SeqCst);
                        return Err(e);
                    }
                }
            }
            Ok(())
        })?
    };
    *RECORD_WRITER.lock().unwrap_or_else(|e| e.into_inner()) = Some(writer);
    while let Some(record) = rx.recv().await {
        if write_failed.load(std::sync::atomic::Ordering::SeqCst) {
            break; // the match stops: results that cannot be saved are lost
        }
        let a_color = if record.index % 2 == 0 { Color::Red } else { Color::Blue };
        summary.add(&record, a_color);
        if plan.live {
            eprintln!("{}", summary.game_line(&record));
        }
        let _ = wtx.send(record);
    }
    drop(wtx);
    if write_failed.load(std::sync::atomic::Ordering::SeqCst) {
        // Stop the games still running; their bots are killed with the host.
        for w in &workers {
            w.abort();
        }
    }
    for w in workers {
        let _ = w.await;
    }
    wait_for_records()?;
    let (cpu_us, rss_kib) = crate::os::self_usage();
    summary.wall_s = started.elapsed().as_secs_f64();
    summary.host_cpu_us_per_ply = if summary.plies == 0 { 0.0 } else { cpu_us as f64 / summary.plies as f64 };
    summary.host_peak_rss_kib = rss_kib;
    Ok(summary)
}
