//! An `--out` directory's manifest: the plan checked against it, the games an earlier run
//! finished, and the bots whose program changed since their games there ([`Versions`]).

use std::sync::Arc;

use stratego_rules::Color;

use crate::compete::sinks::failed_to_start;
use crate::run::happenings::{Flow, Happening, Sink};
use crate::run::manifest;
use crate::run::plan::{ConfigError, EventPlan, usage};

/// `shard 2/3`, or `the whole plan`.
fn describe_shard(shard: Option<manifest::Shard>) -> String {
    shard.map_or_else(|| "the whole plan".to_owned(), |s| format!("shard {}/{}", s.index, s.count))
}

/// With `--out DIR`: checks the plan against the directory's manifest (`existing`), finds the
/// games an earlier run of it finished (warning about games recorded twice), and writes the
/// manifest of this run. Returns the finished games' ids (their records are read as the
/// run goes: [`Resumed`]) and the bots whose program changed since ([`Versions`]).
///
/// A version of a bot counts only once a game was played with it (issue #41, item 4): a bot
/// that played no game in the directory yet (its start-up check failed, say) takes its
/// program's hash now, with no change on record; one that played games keeps the hash of
/// the version that played them until the new version finishes a game ([`Versions`]), so
/// that a rerun that plays nothing with it (a finished directory) records no change.
pub(super) fn open_out_dir(
    dir: &std::path::Path,
    plan: &EventPlan,
    mplan: manifest::Plan,
    existing: Option<&manifest::Manifest>,
) -> Result<(Vec<String>, Versions), ConfigError> {
    let mut history = Vec::new();
    // One hash per distinct command (several bots are often one program).
    type Command = (Vec<String>, Option<std::path::PathBuf>);
    let mut seen: std::collections::HashMap<Command, Option<(String, String)>> = std::collections::HashMap::new();
    let mut changed = Vec::new();
    let mut pending = Vec::new();
    let executables: Vec<_> = plan
        .bots
        .iter()
        .map(|b| {
            seen.entry((b.spec.command.clone(), b.spec.dir.clone()))
                .or_insert_with(|| manifest::executable_hash(&b.spec.command, b.spec.dir.as_deref()))
                .clone()
        })
        .collect();
    // What the manifest says now: a bot's new version replaces the old one's here only once
    // it has played a game (see `Versions`).
    let mut recorded = executables.clone();
    match existing {
        Some(m) => {
            if !mplan.has_hash(&m.plan_hash) {
                let diffs = m.plan.differences(&mplan).join("\n  ");
                return Err(usage(format!(
                    "--out {}: the directory holds another plan (use another directory, or the same command):\n  {diffs}",
                    dir.display()
                )));
            }
            if m.shard != plan.run.shard {
                return Err(usage(format!(
                    "--out {}: the directory holds {}, this command plays {}",
                    dir.display(),
                    describe_shard(m.shard),
                    describe_shard(plan.run.shard)
                )));
            }
            history = crate::record::scan_finished(dir).map_err(usage)?;
            changed = m.changed.clone();
            pending = version_changes(dir, plan, m, &executables, &mut recorded)?;
            let mut seen = std::collections::HashSet::new();
            let dups: Vec<&String> = history.iter().filter(|id| !seen.insert(id.as_str())).collect();
            if !dups.is_empty() {
                eprintln!(
                    "stratego-host: warning: {}: games recorded twice (the first is kept): {}",
                    dir.display(),
                    crate::text::clean(&dups.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))
                );
            }
            eprintln!(
                "stratego-host: resuming {}: {} already finished",
                dir.display(),
                stratego_stats::plural(history.len() as u64, "game")
            );
        }
        None => {
            if !crate::record::scan_finished(dir).map_err(usage)?.is_empty() {
                return Err(usage(format!(
                    "--out {}: the directory holds game records but no manifest.json (a run of an older host?): use another directory",
                    dir.display()
                )));
            }
        }
    }
    let m = manifest::Manifest {
        manifest_version: 1,
        plan_hash: mplan.hash(),
        host_version: env!("CARGO_PKG_VERSION").to_owned(),
        plan: mplan,
        shard: plan.run.shard,
        executables: recorded,
        event: plan.run.event.clone(),
        changed,
    };
    manifest::write(dir, &m).map_err(|e| usage(format!("--out {}: {e}", dir.display())))?;
    Ok((history, Versions { dir: dir.to_owned(), manifest: m, pending, saved: Default::default() }))
}

/// The bots of `plan` whose program changed (`executables`, now) since the manifest `m` of
/// `dir` was written: a bot that played games there keeps its old hash in `recorded` until
/// its new version finishes a game ([`Versions`]); one that played none takes the new hash
/// at once, with a line on stderr.
fn version_changes(
    dir: &std::path::Path,
    plan: &EventPlan,
    m: &manifest::Manifest,
    executables: &[Option<(String, String)>],
    recorded: &mut [Option<(String, String)>],
) -> Result<Vec<VersionChange>, ConfigError> {
    let mut pending = Vec::new();
    // Games per bot name, counted only when a bot changed (the records are read).
    let mut played_by: Option<std::collections::HashMap<String, usize>> = None;
    for (i, (old, new)) in m.executables.iter().zip(executables).enumerate() {
        let hash = |v: &Option<(String, String)>| v.as_ref().map(|(_, h)| h.clone());
        if hash(old) != hash(new) {
            let (what, was, now) = manifest::describe_change(old, new);
            let name = &plan.bots[i].spec.name;
            let counts = match &mut played_by {
                Some(c) => c,
                None => played_by.insert(games_by_bot(dir).map_err(usage)?),
            };
            let played = counts.get(name).copied().unwrap_or(0);
            if played == 0 {
                // No game was played with the old version: nothing mixes.
                tracing::info!("bot {name}: {what} is now {now} (it was {was}, with which no game was played)");
                continue;
            }
            recorded[i] = old.clone();
            pending.push(VersionChange {
                bot: i,
                warning: format!(
                    "bot {name}: {what} changed since the run in {} began (content hash {was} then, {now} now): its {played} game{} so far were played by the old version, the rest will be played by the new one",
                    dir.display(),
                    if played == 1 { "" } else { "s" }
                ),
                changed: format!(
                    "{name}: {what} {was} -> {now} after {}",
                    stratego_stats::plural(played as u64, "game")
                ),
                unplayed: format!(
                    "bot {name}: {what} changed since its {} in {dir} were played (content hash {was} then, {now} now), and no game of the plan is left to play: the report is of the old version's games; to play the new version, give another --out directory (or remove {dir})",
                    stratego_stats::plural(played as u64, "game"),
                    dir = dir.display()
                ),
                new: new.clone(),
                warned: false,
            });
        }
    }
    Ok(pending)
}

/// A bot whose program changed since its games in the directory were played.
#[derive(Debug)]
pub(super) struct VersionChange {
    /// Its id.
    bot: usize,
    /// Said (even with `-q`) when its first game of the new version starts.
    warning: String,
    /// The manifest's `changed` entry, once a game of the new version is finished.
    changed: String,
    /// Said (even with `-q`) when no game is left to play: the new version plays none.
    pub(super) unplayed: String,
    /// The new version's hash, for the manifest's `executables`.
    new: Option<(String, String)>,
    /// Whether the warning was said.
    warned: bool,
}

/// Bots whose program changed since their games in an `--out` directory were played: a
/// sink (before the records) that says so when a game of such a bot starts, and records the
/// change in the manifest (`changed`, and the new hash in `executables`) once that game is
/// finished: the record writer's thread writes the manifest just before it writes the
/// game's record ([`Versions::after_write`]), so a host killed in between leaves a manifest
/// that names the new version and counts the old one's games right, and the game unsaved
/// (a resume plays it again, with the new version). A version counts
/// only once a game was played with it: a rerun that plays no game with the changed bot
/// (or only games it lost before it said `ready`) leaves the manifest as it was, and
/// `merge` accepts the directory.
pub struct Versions {
    dir: std::path::PathBuf,
    manifest: manifest::Manifest,
    pub(super) pending: Vec<VersionChange>,
    /// Changes of finished games (by id), for the writer once it saved their records.
    saved: Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<VersionChange>>>>,
}

impl Versions {
    /// What the record writer runs just before it saves a record: the changes that game made
    /// are recorded in the manifest.
    pub(super) fn after_write(&self) -> crate::compete::sinks::AfterWrite {
        let saved = self.saved.clone();
        let dir = self.dir.clone();
        let mut manifest = self.manifest.clone();
        Box::new(move |record| {
            let Some(now) = saved.lock().unwrap_or_else(|e| e.into_inner()).remove(&record.game_id) else {
                return Ok(());
            };
            for c in now {
                manifest.executables[c.bot] = c.new;
                manifest.changed.push(c.changed);
            }
            manifest::write(&dir, &manifest).map_err(|e| {
                format!("cannot record a bot's new version in {}: {e}", dir.join("manifest.json").display())
            })
        })
    }
}

impl Sink for Versions {
    fn on_happening(&mut self, happening: &Happening) -> Flow {
        match happening {
            Happening::GameStarted { spec } => {
                for c in self
                    .pending
                    .iter_mut()
                    .filter(|c| !c.warned && (spec.seats.red == c.bot || spec.seats.blue == c.bot))
                {
                    // Said even with -q: the games are about to mix two versions.
                    eprintln!("stratego-host: warning: {}", c.warning);
                    c.warned = true;
                }
                Flow::Continue
            }
            Happening::GameFinished { spec, record } => {
                // A game the bot lost before it said `ready` (under `--recover`) was not
                // played by its new version.
                let played = |c: &VersionChange| {
                    [Color::Red, Color::Blue].into_iter().any(|k| spec.seats[k] == c.bot && !failed_to_start(record, k))
                };
                let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending).into_iter().partition(played);
                self.pending = later;
                if !now.is_empty() {
                    // Recorded by the writer once the game's record is saved.
                    self.saved.lock().unwrap_or_else(|e| e.into_inner()).insert(spec.game_id.clone(), now);
                }
                Flow::Continue
            }
            _ => Flow::Continue,
        }
    }

    fn on_history(&mut self, _happening: &Happening) {}
}

/// Finished games per bot name in the records of `dir` (read one at a time): the games a
/// bot played, so not those it lost before it said `ready` ([`failed_to_start`], a game
/// lost under `--recover`): no version of it played there.
fn games_by_bot(dir: &std::path::Path) -> Result<std::collections::HashMap<String, usize>, String> {
    let mut counts = std::collections::HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for r in crate::record::records_iter(dir)? {
        let r = r?;
        if seen.insert(r.game_id.clone()) {
            let played: Vec<&str> = [Color::Red, Color::Blue]
                .into_iter()
                .filter(|&c| !failed_to_start(&r, c))
                .map(|c| r.bots[c].name.as_str())
                .collect();
            for (i, name) in played.iter().enumerate() {
                if !played[..i].contains(name) {
                    *counts.entry((*name).to_owned()).or_default() += 1;
                }
            }
        }
    }
    Ok(counts)
}
