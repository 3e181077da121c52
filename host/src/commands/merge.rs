//! `stratego-host merge DIR...`: the report of one plan played in shards (or resumed in
//! several directories): the same tables, JSON, statistics and ratings as a single run.
//! Directories of different plans are refused; games missing or recorded twice are named.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use crate::commands::CommandOutput;
use crate::compete::competition::{self, Header};
use crate::display::files::viewer::IndexCollector;
use crate::display::terminal::style::Style;
use crate::run::happenings::{Happening, RunEnd};
use crate::run::manifest;
use crate::run::plan::{ConfigError, usage};

/// `merge` options, as the command line gave them ([`crate::cli::records`]).
#[derive(Debug)]
pub struct MergeOptions {
    /// The `--out` directories of the shards (each with its manifest.json and games.jsonl).
    pub dirs: Vec<PathBuf>,
    /// Print the report as JSON on stdout.
    pub json: bool,
    /// Write the merged report's index page (DIR/index.html) and a viewer page per game
    /// (DIR/games/), as a run's --out directory has.
    pub out: Option<PathBuf>,
    /// For a tournament: fix one bot's rating (NAME, at 0, or NAME=ELO) instead of
    /// averaging the ratings to 0, as `tournament --anchor`.
    pub anchor: Option<String>,
    /// Merge even when a bot's program differs between the directories (or changed in the
    /// middle of one): by default that is refused, as the report would mix two versions.
    pub mixed_versions: bool,
    /// Skip the lines of the records files that are not game records (a corrupted line),
    /// saying how many, instead of refusing the directory (the games on those lines are
    /// then missing from the report, and named as such).
    pub skip_bad_lines: bool,
    /// Write the ids of the missing games to FILE, one a line (stderr names only a few).
    pub missing_list: Option<PathBuf>,
    /// With --out: games listed on each index page (index.html, then index-2.html…).
    pub games_per_page: usize,
}

/// Merges the directories into one report. Exit code 0 when every planned game is there
/// exactly once, [`crate::exit::FAILURE`] when games are missing or recorded twice (the
/// report of what is there is printed, and the ids on stderr).
///
/// # Errors
/// A directory without a manifest, or directories of different plans (exit 2).
pub fn run_merge(args: MergeOptions) -> Result<CommandOutput, ConfigError> {
    check_directories(&args)?;
    let (manifests, event) = read_manifests(&args)?;
    let first = &manifests[0];
    let plan = &first.plan;
    let competition = competition::from_manifest(plan, args.anchor.as_deref()).map_err(usage)?;
    // Which games the plan holds (an SPRT's are the pairs it may reach).
    let games = competition.games(&plan.event);
    let names: Vec<String> = plan.bots.iter().map(|b| b.name.clone()).collect();
    let header = Header {
        names,
        planned: games.len() as u32,
        seed: plan.event.seed,
        rules: plan.rules.name.clone(),
        records: None,
    };
    // As a run's: says when the machine was overloaded.
    let mut report = crate::compete::sinks::with_overload(competition.report_sink(&header), &header.names);
    let mut index = args.out.as_ref().map(|_| IndexCollector::new(crate::display::files::viewer::MAX_VIEWER_PAGES));
    let (seen, strangers, finished) = read_games(&args, &games, &mut report, &mut index)?;
    let mut missing = Vec::new();
    let mut duplicated = Vec::new();
    for (g, &n) in games.iter().zip(&seen) {
        match n {
            0 if competition.open_ended().is_none() => missing.push(g.game_id.clone()),
            0 | 1 => {}
            n => duplicated.push(format!("{} ({n} times)", g.game_id)),
        }
    }
    let strangers: Vec<String> = strangers.into_iter().collect();
    let end = RunEnd { finished, ..RunEnd::default() };
    let _ = report.finish(&end);
    // The index page's title and summary, for --out.
    let mut page = report.page();
    if let Some(name) = &event {
        page.title = format!("{name} — {}", page.title);
    }
    let stdout = if args.json { report.json(event.as_deref()) } else { report.text(Style::stdout()) };
    let mut code = crate::exit::OK;
    if let (Some(dir), Some(collector)) = (&args.out, index)
        && !write_merged_index(dir, collector, &page, args.games_per_page)
    {
        code = crate::exit::FAILURE;
    }
    let shards: Vec<String> =
        manifests.iter().map(|m| m.shard.map_or("whole".to_owned(), |s| format!("{}/{}", s.index, s.count))).collect();
    eprintln!(
        "stratego-host: merged {} director{} (shards {}): {} of {} planned games",
        args.dirs.len(),
        if args.dirs.len() == 1 { "y" } else { "ies" },
        shards.join(", "),
        finished,
        games.len()
    );
    if !missing.is_empty() {
        for line in missing_shards(&manifests, &games, &seen) {
            eprintln!("stratego-host: {line}");
        }
        if let Some(path) = &args.missing_list {
            let mut text = missing.join("\n");
            text.push('\n');
            std::fs::write(path, text).map_err(|e| usage(format!("--missing-list {}: {e}", path.display())))?;
            eprintln!("stratego-host: the ids of the {} missing games are in {}", missing.len(), path.display());
        }
    }
    if !name_games(&missing, &duplicated, &strangers, args.missing_list.is_some()) {
        code = crate::exit::FAILURE;
    }
    Ok(CommandOutput { stdout, code })
}

/// Reads the directories' records one at a time, each given to `report` (its first copy)
/// and, with `--out`, to `index` (which keeps a row of each and the records of its first
/// games): memory grows with the games by a few bytes each, not by their records. Returns
/// how many times each game of `games` was found, the ids not of the plan, and the games
/// counted.
fn read_games(
    args: &MergeOptions,
    games: &[crate::run::schedule::GameSpec],
    report: &mut Box<dyn crate::compete::report_sink::ReportSink>,
    index: &mut Option<IndexCollector>,
) -> Result<(Vec<u32>, BTreeSet<String>, u32), ConfigError> {
    let by_id: HashMap<&str, usize> = games.iter().enumerate().map(|(i, g)| (g.game_id.as_str(), i)).collect();
    let mut seen = vec![0u32; games.len()];
    let mut strangers: BTreeSet<String> = BTreeSet::new();
    let mut finished = 0u32;
    for dir in &args.dirs {
        let file = crate::record::records_path(dir).map_err(usage)?;
        // Each record read as its digest (its moves skipped: the report and the index's
        // rows read none), and whole only for a viewer page; see `Digested`.
        let records: Box<dyn Iterator<Item = Result<crate::record::Digested, String>>> =
            if args.skip_bad_lines && file.exists() {
                let (found, bad) = crate::record::read_records_skipping(&file).map_err(usage)?;
                crate::record::report_skipped(&file, &bad);
                Box::new(found.into_iter().map(|r| Ok(crate::record::Digested::of(r))))
            } else {
                crate::record::digests_iter(dir).map_err(usage)?
            };
        let whole = |d: crate::record::Digested| d.record().map_err(|e| usage(format!("{}: {e}", file.display())));
        for r in records {
            let d = r.map_err(|e| usage(crate::record::with_skip_hint(e, &file)))?;
            let Some(&i) = by_id.get(d.digest.game_id.as_str()) else {
                strangers.insert(d.digest.game_id.clone());
                continue;
            };
            seen[i] += 1;
            if seen[i] > 1 {
                continue;
            }
            finished += 1;
            if let Some(sink) = report.digest_sink() {
                sink.on_digest(&games[i], &d.digest);
                if let Some(index) = index.as_mut() {
                    index.push_digested(d).map_err(|e| usage(format!("{}: {e}", file.display())))?;
                }
                continue;
            }
            // A report that reads whole records.
            let record = Arc::new(whole(d)?);
            report.on_history(&Happening::GameFinished { spec: games[i].clone(), record: record.clone() });
            if let Some(index) = index.as_mut() {
                index.push(Arc::try_unwrap(record).unwrap_or_else(|r| (*r).clone()));
            }
        }
    }
    Ok((seen, strangers, finished))
}

/// Refuses a directory given twice (a mistake in the command, not games recorded twice)
/// and an `--out` inside one of the directories merged.
fn check_directories(args: &MergeOptions) -> Result<(), ConfigError> {
    // A directory given twice is a mistake in the command, not games recorded twice.
    let mut canonical: Vec<PathBuf> = Vec::new();
    for dir in &args.dirs {
        let c = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if let Some(i) = canonical.iter().position(|d| *d == c) {
            return Err(usage(format!(
                "{} is given twice (as {} and {}): give each shard's directory once",
                c.display(),
                args.dirs[i].display(),
                dir.display()
            )));
        }
        canonical.push(c);
    }
    if let Some(out) = &args.out {
        // Pages written into a shard would mix with its own (and be taken for its report).
        let c = out.canonicalize().ok().or_else(|| {
            let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
            parent.canonicalize().ok().map(|p| p.join(out.file_name().unwrap_or_default()))
        });
        if let Some((dir, _)) = c.and_then(|c| args.dirs.iter().zip(&canonical).find(|(_, d)| c.starts_with(d))) {
            return Err(usage(format!(
                "--out {}: is inside {}, one of the directories merged: give a directory of its own",
                out.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// The directories' manifests (each must have one, all of one plan, of one event name and,
/// unless `--mixed-versions`, of one version of each bot), and the event's name.
fn read_manifests(args: &MergeOptions) -> Result<(Vec<manifest::Manifest>, Option<String>), ConfigError> {
    let mut manifests = Vec::new();
    for dir in &args.dirs {
        let m = manifest::read(dir)
            .map_err(usage)?
            .ok_or_else(|| usage(format!("{}: no manifest.json (not a run's --out directory)", dir.display())))?;
        manifests.push(m);
    }
    let first = &manifests[0];
    for (dir, m) in args.dirs.iter().zip(&manifests).skip(1) {
        // The plans' hashes as this host makes them (a manifest of an older host may
        // hold the same plan in an older form, under another hash).
        if m.plan.hash() != first.plan.hash() {
            let (a, b) = (format!("in {}", args.dirs[0].display()), format!("in {}", dir.display()));
            return Err(usage(format!(
                "{} holds another plan than {}:\n  {}",
                dir.display(),
                args.dirs[0].display(),
                first.plan.differences_between(&m.plan, &a, &b).join("\n  ")
            )));
        }
    }
    // The event's name, kept with the plan by each shard: one name, or none.
    let mut event: Option<(&str, &PathBuf)> = None;
    for (dir, m) in args.dirs.iter().zip(&manifests) {
        match (event, m.event.as_deref()) {
            (Some((name, first)), Some(other)) if name != other => {
                return Err(usage(format!(
                    "{} names the event {other:?}, {} names it {name:?}: shards of one event have one name",
                    dir.display(),
                    first.display()
                )));
            }
            (None, Some(name)) => event = Some((name, dir)),
            _ => {}
        }
    }
    let event = event.map(|(name, _)| name.to_owned());
    let mixed = mixed_versions(&args.dirs, &manifests);
    if !mixed.is_empty() {
        let what = mixed.join("\n  ");
        if !args.mixed_versions {
            return Err(usage(format!(
                "the directories were played by different versions of a bot (one report would mix them; --mixed-versions merges anyway):\n  {what}"
            )));
        }
        eprintln!("stratego-host: warning: merging games of different versions of a bot:\n  {what}");
    }
    Ok((manifests, event))
}

/// Writes the merged index page and the games' pages into `dir` (`--out`), and says so;
/// false when it cannot.
fn write_merged_index(
    dir: &std::path::Path,
    collector: IndexCollector,
    page: &crate::compete::report_sink::Page,
    games_per_page: usize,
) -> bool {
    let index = dir.join("index.html");
    let options = crate::display::files::viewer::IndexOptions {
        per_page: games_per_page,
        extra: &page.extra,
        force: None,
        flag: "--out",
    };
    let written = std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))
        .and_then(|()| collector.write(&index, &page.title, page.summary_html.as_deref(), &options));
    match written {
        Ok(w) => {
            eprintln!(
                "stratego-host: wrote {} ({}; {} viewer pages in {})",
                index.display(),
                stratego_stats::plural(w.games as u64, "game"),
                w.pages,
                dir.join("games").display()
            );
            true
        }
        Err(e) => {
            eprintln!("stratego-host: cannot write the index page: {e}");
            false
        }
    }
}

/// Names on stderr the games missing, recorded more than once and not of the plan (a few
/// of each; `listed`: `--missing-list` has every missing id); false when any is.
fn name_games(missing: &[String], duplicated: &[String], strangers: &[String], listed: bool) -> bool {
    let mut whole = true;
    for (what, ids) in [("missing", missing), ("recorded more than once", duplicated), ("not of this plan", strangers)]
    {
        if !ids.is_empty() {
            // The ids come from records files that may have been written anywhere.
            eprintln!(
                "stratego-host: {} {what}: {}",
                stratego_stats::plural(ids.len() as u64, "game"),
                crate::text::clean(&few(ids))
            );
            whole = false;
        }
    }
    if !missing.is_empty() && missing.len() > FEW && !listed {
        eprintln!("stratego-host: --missing-list FILE writes every missing id");
    }
    whole
}

/// Ids named on stderr at most; the rest are counted (`--missing-list` has them all).
const FEW: usize = 10;

/// The first [`FEW`] ids, and how many more.
fn few(ids: &[String]) -> String {
    if ids.len() <= FEW {
        return ids.join(", ");
    }
    format!("{}, … and {} more", ids[..FEW].join(", "), ids.len() - FEW)
}

/// For a sharded plan with games missing: the shards no directory was given for, and the
/// missing games of each shard that was given, e.g. `shard 2/8 is missing (no directory
/// given for it): 12500 games`.
fn missing_shards(
    manifests: &[manifest::Manifest],
    games: &[crate::run::schedule::GameSpec],
    seen: &[u32],
) -> Vec<String> {
    let Some(count) = manifests.iter().find_map(|m| m.shard.map(|s| s.count)) else { return Vec::new() };
    let given: BTreeSet<u32> = manifests.iter().filter_map(|m| m.shard.map(|s| s.index)).collect();
    let mut out = Vec::new();
    for index in 1..=count {
        let lost = games
            .iter()
            .zip(seen)
            .filter(|(g, n)| **n == 0 && crate::run::schedule::in_shard(g.pair, index, count))
            .count();
        if lost == 0 {
            continue;
        }
        let what = stratego_stats::plural(lost as u64, "game");
        if given.contains(&index) {
            out.push(format!("shard {index}/{count}: {what} missing"));
        } else {
            out.push(format!("shard {index}/{count} is missing (no directory given for it): {what}"));
        }
    }
    out
}

/// Bots whose program's hash differs between the directories, or changed within one, in
/// words naming the directories.
fn mixed_versions(dirs: &[PathBuf], manifests: &[manifest::Manifest]) -> Vec<String> {
    let mut out = Vec::new();
    for (dir, m) in dirs.iter().zip(manifests) {
        out.extend(m.changed.iter().map(|c| format!("in {}: {c}", dir.display())));
    }
    for (i, bot) in manifests[0].plan.bots.iter().enumerate() {
        let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (dir, m) in dirs.iter().zip(manifests) {
            if let Some(Some((what, hash))) = m.executables.get(i) {
                seen.entry(format!("{what} {hash}")).or_default().push(dir.display().to_string());
            }
        }
        if seen.len() > 1 {
            let versions: Vec<String> = seen.iter().map(|(v, ds)| format!("{v} in {}", ds.join(", "))).collect();
            out.push(format!("bot {}: {}", bot.name, versions.join("; ")));
        }
    }
    out
}
