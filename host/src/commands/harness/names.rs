//! A new event's bots named by their own `ready.name` (issue #44, item 14): each bot whose
//! name was not given is started once before the event, as its pre-flight start
//! ([`Executor::ready_names`]), and takes the name it answers when that name is valid and
//! free ([`names_from_answers`]); otherwise it keeps the name of its command. The names go
//! into the plan and the manifest, so a rerun on the directory takes them from there
//! ([`from_manifest`]) and never asks again: names do not change within an event.

use std::path::Path;
use std::sync::Arc;

use stratego_rules::Color;

use crate::run::executor::{Entrant, Executor};
use crate::run::happenings::Failure;
use crate::run::manifest::PlanBot;
use crate::run::plan::{ProgressMode, RunConfig, same_program};
use crate::run::schedule::GameSpec;
use crate::supervise::bot_spec::Protocol;
use crate::supervise::bot_spec::naming::names_from_answers;
use crate::supervise::supervisor::{Supervisor, SupervisorOptions};

/// The bots asked their names: the run's supervisor, which started them, and each bot's
/// pre-flight outcome by id ([`Executor::preflown`]).
pub(super) struct Asked {
    /// The run's supervisor (the run goes on with it).
    pub supervisor: Supervisor,
    /// Each asked bot's start, by id.
    pub preflown: Vec<Option<Result<(), Failure>>>,
}

/// The supervisor of a run of `bots` under `run`, masking what their sandboxes must not show.
pub(super) fn supervisor_of(run: &RunConfig, bots: &[Entrant]) -> Supervisor {
    Supervisor::start(SupervisorOptions {
        priority: run.host_priority,
        stall_credit: run.stall_credit,
        pin_host: run.pin && run.concurrency == 1,
    })
    .with_masks(run.masks(bots))
}

/// Why bot `i` of `bots` is not asked its name, if it is not.
fn not_asked(run: &RunConfig, bots: &[Entrant], same: &[(usize, usize)], i: usize) -> Option<&'static str> {
    let spec = &bots[i].spec;
    if spec.name_given.0 {
        Some("given")
    } else if spec.protocol != Protocol::Json {
        Some("from its command: the 2012 protocol has no ready.name")
    } else if same.iter().any(|&(a, b)| a == i || b == i) {
        Some("from its command: another bot is the same program, with the same answer")
    } else if run.shard.is_some() {
        // Each shard would ask on its own: a bot slow to answer in one would give that
        // shard another plan, refused by `merge` after all the games.
        Some("from its command: a shard does not ask")
    } else {
        None
    }
}

/// A new event (no manifest yet): asks each bot of `bots` whose name was not given, of the
/// JSON protocol and not the same program as another, its `ready.name` (a few at a time,
/// each within its start-up limit), and renames those whose answer is valid and free. Says
/// on stderr, one line a bot (not with `-q`), where each name came from. `None` when
/// `--names-from-commands` or no bot is asked.
///
/// Each bot is told the colour it plays in `first`, the event's first game (red when it is
/// not in it), as the pre-flight start it stands for always did.
pub(super) fn ask(run: &RunConfig, bots: &mut [Entrant], first: Option<&GameSpec>) -> Option<Asked> {
    if run.names_from_commands {
        return None;
    }
    let same = same_program(bots);
    let ids: Vec<usize> = (0..bots.len()).filter(|&i| not_asked(run, bots, &same, i).is_none()).collect();
    if ids.is_empty() {
        return None;
    }
    let supervisor = supervisor_of(run, bots);
    let executor = Executor {
        settings: Arc::new(run.settings.clone()),
        bots: Arc::new(crate::run::executor::Bots::new(bots.to_vec())),
        book: None,
        concurrency: run.concurrency,
        pin: false,
        auto_pin: false,
        supervisor: supervisor.clone(),
        preflown: Vec::new(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let colored: Vec<(usize, Color)> = ids
        .iter()
        .map(|&id| {
            (id, Color::ALL.into_iter().find(|&c| first.is_some_and(|g| g.seats[c] == id)).unwrap_or(Color::Red))
        })
        .collect();
    let results = runtime.block_on(executor.ready_names(&colored));
    drop(runtime);
    let mut answers = vec![None; bots.len()];
    let mut preflown = vec![None; bots.len()];
    for (&i, r) in ids.iter().zip(results) {
        preflown[i] = Some(r.as_ref().map(|_| ()).map_err(Clone::clone));
        answers[i] = r.ok();
    }
    let current: Vec<String> = bots.iter().map(|b| b.spec.name.clone()).collect();
    let taken = names_from_answers(&current, &answers);
    let snapshot = executor.bots.all();
    for (i, bot) in bots.iter_mut().enumerate() {
        let source = match (&taken[i], not_asked(run, &snapshot, &same, i)) {
            (Some(Ok(name)), _) => {
                let was = std::mem::replace(&mut bot.spec.name, name.clone());
                if was == *name {
                    "its ready.name, its command's too".to_owned()
                } else {
                    format!("its ready.name; its command names it {was}")
                }
            }
            (Some(Err(why)), _) => format!("from its command: {why}"),
            (None, Some(why)) => why.to_owned(),
            (None, None) => "from its command: it did not start".to_owned(),
        };
        if run.progress != ProgressMode::Quiet {
            eprintln!("stratego-host: bot {}: \"{}\" ({source})", i + 1, bot.spec.name);
        }
    }
    // The masks name the bots (a bot's own directory is told from another bot's by its
    // name): the names they were noted under, renamed; their paths as noted before the bots
    // ran.
    let now: Vec<String> = bots.iter().map(|b| b.spec.name.clone()).collect();
    let masks = supervisor.masks().renamed(&current, &now);
    Some(Asked { supervisor: supervisor.with_masks(masks), preflown })
}

/// A rerun on `dir`, whose manifest names the bots `planned`: each bot whose name was not
/// given takes the name the manifest gives the bot of the same command at its place (the
/// name it was asked for when the event began), unless another bot has that name now.
/// Says on stderr (unless `-q`) each name that is not its command's.
pub(super) fn from_manifest(run: &RunConfig, bots: &mut [Entrant], planned: &[PlanBot], dir: &Path) {
    if planned.len() != bots.len() {
        return;
    }
    for i in 0..bots.len() {
        let (spec, kept) = (&bots[i].spec, &planned[i]);
        if spec.name_given.0 || spec.remote || kept.command != spec.plan_command() || kept.name == spec.name {
            continue;
        }
        if bots.iter().enumerate().any(|(j, b)| j != i && b.spec.name == kept.name) {
            continue;
        }
        bots[i].spec.name = kept.name.clone();
        if run.progress != ProgressMode::Quiet {
            eprintln!(
                "stratego-host: bot {}: \"{}\" (kept from {}: the name it gave when the event began)",
                i + 1,
                kept.name,
                dir.join("manifest.json").display()
            );
        }
    }
}
