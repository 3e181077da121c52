//! Results at scale (issue #34, events): whole-process runs of the real release host on
//! large events and on synthetic directories this benchmark writes, and how each cost grows
//! with the work.
//!
//! `cargo bench -p stratego-tests --bench scale [-- quick|goals] [-- only start|resume|merge]`
//! (`goals`: only the sizes of the goals, resume of 40,000 games (300 plies plain and
//! compact, 1,000 plies plain) and merge of 100 shards; `SCALE_HOST=PATH`: run that host binary instead of the release build;
//! `SCALE_BEFORE=PATH`: also run resume and merge with that binary, e.g. an older one, on
//! the same directories, each row of it first; `SCALE_TMP=DIR`: where the directories go,
//! default the temporary directory; `SCALE_KEEP=1`: keep the merge directories)
//!
//! 1. **start**: a round-robin of N built-in sample bots (`--games 2`, `-j 2`, `--out`):
//!    the time from the host's start to its first game (the first record's
//!    `started_unix_ms`), `manifest.json`'s size, the host's own peak memory (VmHWM while
//!    it plays, and its maximum resident set at exit, from `wait4`), the live bot processes
//!    seen, and after an interrupt (SIGINT after a few games) the index page and the
//!    viewer pages it writes.
//! 2. **resume**: a directory of M finished games of a 200-bot plan, written here (records
//!    in the record format of RECORDS.md, plain or compact, the last one torn as by a
//!    `kill -9`): the time from the host's start to its first new game, and its memory
//!    then; then SIGINT, and the time the host takes to write its summary and index.
//! 3. **merge**: S shard directories of about 1,000 games each, written here: `merge` of
//!    all of them, wall time and maximum resident set.
//!    Then `merge --out`, which also writes the index pages and the viewer pages.
//!
//! Records are made from two real games (played once here by the host), renumbered and
//! renamed for each game of the plan and cut to P plies (a prefix of a legal game is a
//! legal game). Figures go to BENCHMARKS.md by hand.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use stratego_host::run::{manifest, schedule};
use stratego_protocol::record::GameRecord;

fn unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

/// A scratch directory under the target directory's `tmp` (large files: not /tmp).
fn scratch(name: &str) -> PathBuf {
    let base = std::env::var_os("SCALE_TMP").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("stratego-scale-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Resident set high-water mark of a live process, KiB.
fn vm_hwm(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Children of a process, of all its threads (its bots; the sample bot is the host binary
/// itself).
fn children(pid: u32) -> usize {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return 0 };
    tasks
        .filter_map(Result::ok)
        .map(|t| std::fs::read_to_string(t.path().join("children")).map(|s| s.split_whitespace().count()).unwrap_or(0))
        .sum()
}

/// The host under `/usr/bin/time`, which writes its maximum resident set and CPU time to
/// `report` (`wait4` here would not do: a child forked from this benchmark counts the
/// benchmark's own pages until it runs the host).
fn timed(host: &Path, report: &Path) -> Command {
    let mut c = Command::new("/usr/bin/time");
    c.arg("-f").arg("%M %U %S").arg("-o").arg(report).arg(host);
    c
}

/// The host process under `/usr/bin/time` `time_pid`.
fn host_pid(time_pid: u32) -> u32 {
    let t = Instant::now();
    loop {
        let kids = std::fs::read_to_string(format!("/proc/{time_pid}/task/{time_pid}/children")).unwrap_or_default();
        if let Some(pid) = kids.split_whitespace().next().and_then(|p| p.parse().ok()) {
            return pid;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "no host under /usr/bin/time");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits for a [`timed`] host: its exit code, maximum resident set (KiB) and CPU time.
fn wait_timed(mut child: Child, report: &Path) -> (i32, u64, Duration) {
    let status = child.wait().unwrap();
    let text = std::fs::read_to_string(report).unwrap_or_default();
    let last: Vec<f64> = text.lines().last().unwrap_or("").split_whitespace().filter_map(|w| w.parse().ok()).collect();
    let (rss, cpu) = match last[..] {
        [m, u, s] => (m as u64, Duration::from_secs_f64(u + s)),
        _ => (0, Duration::ZERO),
    };
    (status.code().unwrap_or(-1), rss, cpu)
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a plain call with a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn sigint_pid(pid: u32) {
    // SAFETY: a signal to a process this benchmark started.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGINT) };
}

/// The first line of the records file of `dir` (plain or compact) that is a whole record,
/// if any, read without disturbing the writer.
fn records_in(dir: &Path) -> Vec<GameRecord> {
    let Ok(Some(path)) = stratego_records::records_file(dir) else { return Vec::new() };
    stratego_records::RecordReader::open(&path).map(|r| r.filter_map(Result::ok).collect()).unwrap_or_default()
}

/// Lines of a growing plain records file (cheap: no parse).
fn plain_lines(dir: &Path) -> usize {
    std::fs::read(dir.join("games.jsonl")).map(|b| b.iter().filter(|&&c| c == b'\n').count()).unwrap_or(0)
}

fn mb(bytes: u64) -> String {
    if bytes < 1_000_000 { format!("{:.0} KB", bytes as f64 / 1e3) } else { format!("{:.1} MB", bytes as f64 / 1e6) }
}

fn mib(kib: u64) -> String {
    format!("{:.0} MiB", kib as f64 / 1024.0)
}

fn file_size(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

/// A directory's files: each path (relative to it) and its bytes.
type Files = Vec<(String, Vec<u8>)>;

/// Every file under `dir` (relative path, content), sorted by path.
fn tree(dir: &Path) -> Files {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// The sizes of the `.html` files directly in `dir` (none if it cannot be read).
fn html_sizes(dir: &Path) -> Vec<u64> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".html"))
                .map(|e| file_size(&e.path()))
                .collect()
        })
        .unwrap_or_default()
}

fn bots_args(n: usize) -> Vec<String> {
    // The same program N times (the host names them sample-bot, sample-bot-2…): the worst
    // case for the manifest, which lists the bots that are the same program.
    (0..n).flat_map(|_| ["--bot".to_owned(), "sample-bot --strategy random".to_owned()]).collect()
}

/// Runs the host until `dir/manifest.json` is written, then kills it (`kill -9`): the
/// manifest of the plan, written by the host itself.
fn manifest_of(host: &Path, args: &[String], dir: &Path) -> manifest::Manifest {
    let mut child = Command::new(host)
        .args(args)
        .arg("--out")
        .arg(dir)
        .args(["-q", "--no-html"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !dir.join("manifest.json").exists() {
        assert!(t.elapsed() < Duration::from_secs(120), "no manifest.json from {args:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    let _ = child.kill();
    let _ = child.wait();
    for f in ["games.jsonl", "games.jsonl.zst", "index.html"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let _ = std::fs::remove_dir_all(dir.join("games"));
    manifest::read(dir).unwrap().expect("a manifest")
}

/// Two real games of two random sample bots, as templates.
fn templates(host: &Path) -> Vec<GameRecord> {
    let dir = scratch("templates");
    let out = Command::new(host)
        .args(["match", "sample-bot --strategy random", "sample-bot --strategy random"])
        .args(["--games", "6", "--seed", "11", "-q", "--no-html", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut recs = records_in(&dir);
    recs.sort_by_key(|r| std::cmp::Reverse(r.plies.len()));
    let _ = std::fs::remove_dir_all(&dir);
    recs
}

/// The record of game `spec` of the plan `m`, made from `template` cut to `plies` plies.
fn synthetic(template: &GameRecord, m: &manifest::Manifest, spec: &schedule::GameSpec, plies: usize) -> GameRecord {
    let mut r = template.clone();
    r.game_id = spec.game_id.clone();
    r.index = spec.index;
    r.pair = spec.pair;
    r.match_seed = m.plan.event.seed;
    r.seed = spec.seed;
    for color in stratego_rules::Color::ALL {
        let bot = &m.plan.bots[spec.seats[color]];
        r.bots[color].name = bot.name.clone();
        r.bots[color].command = bot.command.clone();
    }
    r.plies.truncate(plies);
    r
}

#[derive(Clone, Copy, PartialEq)]
enum Form {
    Plain,
    Compact,
}

/// Writes the records of `specs` into `dir` (`torn`: and half of one more, as a kill in the
/// middle of a write leaves it). Returns the bytes of the whole records (where the host
/// appends once it has cut the torn one off).
fn write_records(
    dir: &Path,
    tmpl: &[GameRecord],
    m: &manifest::Manifest,
    specs: &[schedule::GameSpec],
    plies: usize,
    form: Form,
    torn: Option<&schedule::GameSpec>,
) -> u64 {
    let (name, f) = match form {
        Form::Plain => ("games.jsonl", stratego_records::Form::Plain),
        Form::Compact => ("games.jsonl.zst", stratego_records::Form::Compact),
    };
    let mut enc = stratego_records::Encoder::new(f).unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join(name)).unwrap());
    let mut bytes = 0;
    // The templates long enough for `plies` (else the longest).
    let long: Vec<&GameRecord> = tmpl.iter().filter(|r| r.plies.len() >= plies).collect();
    let long = if long.is_empty() { vec![&tmpl[0]] } else { long };
    for (i, spec) in specs.iter().enumerate() {
        let b = enc.encode(&synthetic(long[i % long.len()], m, spec, plies)).unwrap();
        bytes += b.len() as u64;
        out.write_all(&b).unwrap();
    }
    if let Some(spec) = torn {
        let b = enc.encode(&synthetic(&tmpl[0], m, spec, plies)).unwrap();
        out.write_all(&b[..b.len() / 2]).unwrap();
    }
    out.flush().unwrap();
    bytes
}

fn start(host: &Path, sizes: &[usize]) {
    println!("\n## 1. A round-robin of N bots (`tournament --games 2 -j 2 --out`), until 20 games, then SIGINT");
    println!(
        "| bots | games planned | first game after | manifest.json | host VmHWM playing | host max RSS (exit) | live bot processes (max) | index.html | index pages in all | viewer page (mean) | SIGINT to exit |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for &n in sizes {
        let dir = scratch(&format!("start-{n}"));
        let out = dir.join("out");
        let t0 = unix_ms();
        let report = dir.join("time.txt");
        let mut child = timed(host, &report)
            .arg("tournament")
            .args(bots_args(n))
            .args(["--games", "2", "--seed", "5", "-j", "2", "-q", "--out"])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = host_pid(child.id());
        let mut hwm = 0;
        let mut live = 0;
        let t = Instant::now();
        while plain_lines(&out) < 20 && t.elapsed() < Duration::from_secs(300) {
            hwm = hwm.max(vm_hwm(pid).unwrap_or(0));
            live = live.max(children(pid));
            std::thread::sleep(Duration::from_millis(10));
        }
        let recs = records_in(&out);
        let first = recs.iter().map(|r| r.started_unix_ms).min().unwrap_or(0).saturating_sub(t0);
        hwm = hwm.max(vm_hwm(pid).unwrap_or(0));
        let t_int = Instant::now();
        sigint_pid(pid);
        let stderr = child.stderr.take();
        let (_code, rss, _) = wait_timed(child, &report);
        let stop = t_int.elapsed();
        drop(stderr);
        let index = file_size(&out.join("index.html"));
        let all_pages: u64 = html_sizes(&out).iter().sum();
        let viewers = html_sizes(&out.join("games"));
        let mean = if viewers.is_empty() { 0 } else { viewers.iter().sum::<u64>() / viewers.len() as u64 };
        let planned = n * (n - 1);
        println!(
            "| {n} | {planned} | {first} ms | {} | {} | {} | {live} | {} | {} | {} | {:.2} s |",
            mb(file_size(&out.join("manifest.json"))),
            mib(hwm),
            mib(rss),
            mb(index),
            mb(all_pages),
            mb(mean),
            stop.as_secs_f64()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn resume(hosts: &[(&str, PathBuf)], tmpl: &[GameRecord], rows: &[(usize, usize, Form)]) {
    println!("\n## 2. Resume of a 200-bot plan's directory of M games after kill -9 (a torn last record)");
    println!(
        "| host | games in the directory | plies a game | form | records file | first new game after | host VmHWM then | SIGINT to exit (summary + index) | host max RSS (exit) | host CPU in all |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let host = &hosts[0].1;
    let dir = scratch("resume");
    let out = dir.join("out");
    // 200 bots, 4 games a pairing: 79,600 games planned.
    let mut args = vec!["tournament".to_owned()];
    args.extend(bots_args(200));
    args.extend(["--games", "4", "--seed", "9", "-j", "2"].map(String::from));
    let m = manifest_of(host, &args, &out);
    let specs = schedule::plan(&m.plan.event);
    // Each host's own manifest of the plan (the same plan; the built-in sample bot is the
    // host binary, whose hash differs between hosts): else a host whose bot "changed" would
    // count each bot's games in the records before its first game.
    let manifests: Vec<String> = hosts
        .iter()
        .enumerate()
        .map(|(i, (_, h))| {
            let d = dir.join(format!("manifest-{i}"));
            manifest_of(h, &args, &d);
            std::fs::read_to_string(d.join("manifest.json")).unwrap()
        })
        .collect();
    for &(games, plies, form) in rows {
        let name = if form == Form::Plain { "games.jsonl" } else { "games.jsonl.zst" };
        // Written once, copied into the directory before each host's run.
        let pristine = dir.join(format!("pristine-{name}"));
        let bytes = write_records(&dir, tmpl, &m, &specs[..games], plies, form, Some(&specs[games]));
        std::fs::rename(dir.join(name), &pristine).unwrap();
        // The id scan alone (this benchmark's build of the host's code, in this process): what
        // a resumed host does first with the records.
        let scan_dir = dir.join("scan");
        std::fs::create_dir_all(&scan_dir).unwrap();
        std::fs::copy(&pristine, scan_dir.join(name)).unwrap();
        let (t, cpu) = (Instant::now(), thread_cpu());
        let ids = stratego_host::record::scan_finished(&scan_dir).unwrap();
        println!(
            "id scan of {games} games, {plies} plies, {}: {:.2} s wall, {:.2} s CPU ({} ids)",
            if form == Form::Plain { "plain" } else { "compact" },
            t.elapsed().as_secs_f64(),
            (thread_cpu() - cpu).as_secs_f64(),
            ids.len()
        );
        let _ = std::fs::remove_dir_all(&scan_dir);
        for (k, (label, host)) in hosts.iter().enumerate() {
            for f in ["games.jsonl", "games.jsonl.zst", "index.html"] {
                let _ = std::fs::remove_file(out.join(f));
            }
            let _ = std::fs::remove_dir_all(out.join("games"));
            std::fs::write(out.join("manifest.json"), &manifests[k]).unwrap();
            std::fs::copy(&pristine, out.join(name)).unwrap();
            let t0 = unix_ms();
            let report = dir.join("time.txt");
            let mut child = timed(host, &report)
                .args(&args)
                .arg("--out")
                .arg(&out)
                .args(["-q"])
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            let pid = host_pid(child.id());
            let mut hwm = 0;
            let t = Instant::now();
            let mut first = None;
            while t.elapsed() < Duration::from_secs(600) {
                hwm = hwm.max(vm_hwm(pid).unwrap_or(0));
                // Only the records after the synthetic ones (the torn one is cut off first).
                let news: Option<u64> = {
                    use std::io::{Seek, SeekFrom};
                    let (name, f) = match form {
                        Form::Plain => ("games.jsonl", stratego_records::Form::Plain),
                        Form::Compact => ("games.jsonl.zst", stratego_records::Form::Compact),
                    };
                    let path = out.join(name);
                    let mut file = std::fs::File::open(&path).unwrap();
                    if file_size(&path) > bytes && file.seek(SeekFrom::Start(bytes)).is_ok() {
                        stratego_records::RecordReader::new(file, f, &path)
                            .map(|r| {
                                r.filter_map(Result::ok)
                                    .filter(|r| r.index as usize >= games)
                                    .map(|r| r.started_unix_ms)
                                    .min()
                            })
                            .ok()
                            .flatten()
                    } else {
                        None
                    }
                };
                if let Some(s) = news {
                    first = Some(s.saturating_sub(t0));
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            hwm = hwm.max(vm_hwm(pid).unwrap_or(0));
            let t_int = Instant::now();
            sigint_pid(pid);
            let _ = child.stdin.take();
            let (_code, rss, cpu) = wait_timed(child, &report);
            let stop = t_int.elapsed();
            println!(
                "| {label} | {games} | {plies} | {} | {} | {} | {} | {:.1} s | {} | {:.1} s |",
                if form == Form::Plain { "plain" } else { "compact" },
                mb(bytes),
                first.map_or("none in 600 s".to_owned(), |f| format!("{:.2} s", f as f64 / 1e3)),
                mib(hwm),
                stop.as_secs_f64(),
                mib(rss),
                cpu.as_secs_f64()
            );
        }
        let _ = std::fs::remove_file(&pristine);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn merge(hosts: &[(&str, PathBuf)], tmpl: &[GameRecord], rows: &[(u32, u32)], plies: usize) {
    let host = &hosts[0].1;
    println!(
        "\n## 3. merge of S shards (100 bots, G games a pairing: about 1,000 games a shard), {plies} plies a game"
    );
    println!(
        "| host | shards | games | records (all shards) | merge wall | merge max RSS | merge --out wall | --out max RSS | index.html | index pages in all |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &(shards, games_per_pairing) in rows {
        let dir = scratch(&format!("merge-{shards}"));
        let mut args = vec!["tournament".to_owned()];
        args.extend(bots_args(100));
        args.extend(
            ["--games", &games_per_pairing.to_string(), "--seed", "13", "--shard", &format!("1/{shards}")]
                .map(String::from),
        );
        let first_dir = dir.join("shard-1");
        let m = manifest_of(host, &args, &first_dir);
        let specs = schedule::plan(&m.plan.event);
        let text = std::fs::read_to_string(first_dir.join("manifest.json")).unwrap();
        let mut dirs = Vec::new();
        let mut bytes = 0;
        for i in 1..=shards {
            let d = dir.join(format!("shard-{i}"));
            std::fs::create_dir_all(&d).unwrap();
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v["shard"]["index"] = i.into();
            std::fs::write(d.join("manifest.json"), serde_json::to_string_pretty(&v).unwrap()).unwrap();
            let mine: Vec<_> = specs.iter().filter(|g| schedule::in_shard(g.pair, i, shards)).cloned().collect();
            bytes += write_records(&d, tmpl, &m, &mine, plies, Form::Plain, None);
            dirs.push(d);
        }
        // What each host printed and wrote, compared at the end (the same report and pages).
        let mut outputs: Vec<(String, Vec<u8>, Files)> = Vec::new();
        for (label, host) in hosts {
            let stdout = dir.join(format!("stdout-{label}.txt"));
            let run = |extra: &[&str]| {
                let t = Instant::now();
                let report = dir.join("time.txt");
                let child = timed(host, &report)
                    .arg("merge")
                    .args(&dirs)
                    .args(extra)
                    .stdout(std::fs::File::create(&stdout).unwrap())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let (code, rss, cpu) = wait_timed(child, &report);
                assert_eq!(code, 0, "merge {extra:?}");
                (t.elapsed(), rss, cpu)
            };
            let (wall, rss, cpu) = run(&[]);
            let printed = std::fs::read(&stdout).unwrap();
            let merged = dir.join(format!("merged-{label}"));
            let _ = std::fs::remove_dir_all(&merged);
            let merged_s = merged.to_string_lossy().into_owned();
            let (wall_out, rss_out, cpu_out) = run(&["--out", &merged_s]);
            let all_pages: u64 = html_sizes(&merged).iter().sum();
            println!(
                "| {label} | {shards} | {} | {} | {:.1} s ({:.1} s CPU) | {} | {:.1} s ({:.1} s CPU) | {} | {} | {} |",
                specs.len(),
                mb(bytes),
                wall.as_secs_f64(),
                cpu.as_secs_f64(),
                mib(rss),
                wall_out.as_secs_f64(),
                cpu_out.as_secs_f64(),
                mib(rss_out),
                mb(file_size(&merged.join("index.html"))),
                mb(all_pages),
            );
            outputs.push((label.to_string(), printed, tree(&merged)));
            let _ = std::fs::remove_dir_all(&merged);
        }
        for (label, printed, pages) in &outputs[1..] {
            let (first, first_printed, first_pages) = &outputs[0];
            let same = |a: bool| if a { "the same" } else { "DIFFERENT" };
            println!(
                "{label} vs {first}: report on stdout {} ({} bytes), --out files {} ({} files)",
                same(printed == first_printed),
                printed.len(),
                same(pages == first_pages),
                pages.len()
            );
        }
        if std::env::var_os("SCALE_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "quick");
    let only = args.iter().position(|a| a == "only").and_then(|i| args.get(i + 1)).cloned();
    let run = |what: &str| only.as_deref().is_none_or(|o| o == what);
    // SCALE_HOST: another binary (a copy, or an older host to compare with).
    let host = std::env::var_os("SCALE_HOST").map_or_else(stratego_tests::release_host, PathBuf::from);
    // SCALE_BEFORE: a second binary, run first on the same directories (resume, merge): a
    // before/after comparison in one run, under the same load.
    let mut hosts: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(before) = std::env::var_os("SCALE_BEFORE") {
        hosts.push(("before", PathBuf::from(before)));
    }
    hosts.push((if hosts.is_empty() { "" } else { "after" }, host.clone()));
    let goals = args.iter().any(|a| a == "goals");
    let tmpl = templates(&host);
    println!(
        "templates: {} real games of {}..{} plies",
        tmpl.len(),
        tmpl.iter().map(|r| r.plies.len()).min().unwrap_or(0),
        tmpl.iter().map(|r| r.plies.len()).max().unwrap_or(0)
    );
    println!("load average at the start: {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
    if run("start") {
        start(&host, if quick { &[20, 50] } else { &[50, 100, 200] });
    }
    if run("resume") {
        let rows: &[(usize, usize, Form)] = if goals {
            &[(40_000, 300, Form::Plain), (40_000, 300, Form::Compact), (40_000, 1000, Form::Plain)]
        } else if quick {
            &[(2_000, 300, Form::Plain), (4_000, 300, Form::Plain)]
        } else {
            &[
                (10_000, 300, Form::Plain),
                (20_000, 300, Form::Plain),
                (40_000, 300, Form::Plain),
                (40_000, 300, Form::Compact),
                (40_000, 100, Form::Plain),
                (40_000, 1000, Form::Plain),
            ]
        };
        resume(&hosts, &tmpl, rows);
    }
    if run("merge") {
        let rows: &[(u32, u32)] = if goals {
            &[(100, 20)]
        } else if quick {
            &[(5, 2), (10, 2)]
        } else {
            &[(20, 4), (50, 10), (100, 20)]
        };
        merge(&hosts, &tmpl, rows, 300);
    }
}
