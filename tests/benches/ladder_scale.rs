//! The ladder at scale: whole-process timings of the real release binary on synthetic
//! ladder files of growing size.
//!
//! `cargo bench -p stratego-tests --bench ladder_scale [-- BOTSxGAMES … [--no-prune]
//! [--tiny] [--before PATH] [--keep DIR]]` (default `100x10000 100x100000 1000x100000
//! 1000x1000000`; the last writes a 5 GB file in the temporary directory and takes several
//! minutes to build).
//!
//! - `--tiny`: the records are synthetic 10-ply games (about 700 bytes stored) instead of
//!   1,000-ply ones: the file builds in a fraction of the time, for measuring what does not
//!   read records (`table`, `pairings`, `history`).
//! - `--before PATH`: also runs every measurement with the binary PATH (e.g. a copy of an
//!   older release build), interleaved with the current one on the same file, and prints
//!   its row first: a before/after comparison in one run, under the same load. The prune
//!   (which changes the file) is measured on two copies of the file.
//! - `--keep DIR`: builds the files in DIR and keeps them (`DIR/ladder-BOTSxGAMES[-tiny].db`);
//!   a file already there is used as it is, not rebuilt.
//!
//! For each size the benchmark makes a ladder file with the real binary (`ladder add`,
//! which writes the schema), then adds the other bots (copies of the first under other
//! names) and the games with SQL inserts in one transaction: uniformly random pairings and
//! results, one a second, each with a realistic record stored as the ladder stores it —
//! the compact form's zstd frame ([`stratego_records::Encoder`], level 9) of a synthetic
//! 1,000-ply game (random setups, random legal moves under the classic rules, think times
//! like the sample bots'; eight such records, made once, are used in turn). The ladder's
//! trigger keeps its tallies as it would for played games.
//!
//! Then it runs, three times each, and prints the median wall time, CPU time (user +
//! system) and peak RSS (from `wait4`) of: `ladder table --json`, `ladder pairings -n 40`
//! (what `play -n 40` chooses before it plays), `ladder history BOT --json` (a bot with
//! the average number of games), and once, last: `ladder prune --keep-last GAMES/10
//! --archive FILE` (with its VACUUM; skipped with `--no-prune`), with the file's size
//! before and after. On a shared
//! machine the wall times grow with the load; the CPU times are the steadier figure.

#[path = "../../host/records/tests/support/synthetic.rs"]
mod synthetic;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stratego_records::{Encoder, Form};
use stratego_tests::{TempDir, release_host};

/// One run of the binary: wall time, CPU time (user + system), peak RSS in KB.
struct Run {
    wall: Duration,
    cpu: Duration,
    rss_kb: i64,
}

// The child is reaped by wait4 (which also gives its resource usage), not by `wait`.
#[allow(clippy::zombie_processes)]
fn run(host: &Path, db: &Path, args: &[&str]) -> Run {
    let start = Instant::now();
    let child = Command::new(host)
        .arg("ladder")
        .arg("--db")
        .arg(db)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start stratego-host");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child, with valid pointers.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(pid, child.id() as i32, "wait4");
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    if !ok {
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut child.stderr.expect("stderr"), &mut err);
        panic!("ladder {args:?} failed ({status}): {err}");
    }
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    Run { wall, cpu: tv(usage.ru_utime) + tv(usage.ru_stime), rss_kb: usage.ru_maxrss }
}

fn file_size(db: &Path) -> u64 {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(db).map_or(0, |m| m.len()) + std::fs::metadata(&wal).map_or(0, |m| m.len())
}

/// Builds the ladder: `bots` bots, `games` games with `frames` as their records in turn.
fn build(host: &Path, db: &Path, bots: u32, games: u32, frames: &[Vec<u8>]) {
    let out = Command::new(host).arg("ladder").arg("--db").arg(db).args(["add", "b1", "sample-bot"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;").unwrap();
    let tx = conn.transaction().unwrap();
    for b in 2..=bots {
        tx.execute(
            "INSERT INTO bots (name, command, dir, spec, version, added_unix)
             SELECT ?1, command, dir, spec, version, added_unix FROM bots WHERE id = 1",
            [format!("b{b}")],
        )
        .unwrap();
    }
    {
        let mut game = tx
            .prepare(
                "INSERT INTO games (game_id, red_bot, blue_bot, result, reason, played_unix, red_version, blue_version)
                 VALUES (?1, ?2, ?3, ?4, 'flag_captured', ?5, 'v1', 'v1')",
            )
            .unwrap();
        let mut record = tx.prepare("INSERT INTO records (game, record) VALUES (?1, ?2)").unwrap();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut rng = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let start = 1_700_000_000 - i64::from(games);
        for g in 0..games {
            let red = 1 + rng() % u64::from(bots);
            let mut blue = 1 + rng() % u64::from(bots - 1);
            if blue >= red {
                blue += 1;
            }
            let result = [0.0, 0.5, 1.0][(rng() % 3) as usize];
            let id = format!("ladder-bench-{g}");
            game.execute(rusqlite::params![id, red as i64, blue as i64, result, start + i64::from(g)]).unwrap();
            record.execute(rusqlite::params![tx.last_insert_rowid(), frames[g as usize % frames.len()]]).unwrap();
        }
    }
    tx.commit().unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
}

fn ms(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e3)
}

fn main() {
    let sizes: Vec<(u32, u32)> = {
        let args: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| a.starts_with(|c: char| c.is_ascii_digit()) && a.contains('x'))
            .collect();
        let args = if args.is_empty() {
            ["100x10000", "100x100000", "1000x100000", "1000x1000000"].map(String::from).to_vec()
        } else {
            args
        };
        args.iter()
            .map(|a| {
                let (b, g) = a.split_once('x').expect("BOTSxGAMES");
                (b.parse().expect("bots"), g.parse().expect("games"))
            })
            .collect()
    };
    let args: Vec<String> = std::env::args().collect();
    let no_prune = args.iter().any(|a| a == "--no-prune");
    let tiny = args.iter().any(|a| a == "--tiny");
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).map(PathBuf::from);
    let keep = value("--keep");
    let current = release_host();
    // The binaries measured, each under a label, the current one last.
    let mut hosts: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(before) = value("--before") {
        hosts.push(("before", before));
    }
    hosts.push((if hosts.is_empty() { "" } else { "after" }, current.clone()));
    let plies = if tiny { 10 } else { 1_000 };
    let mut encoder = Encoder::new(Form::Compact).unwrap();
    let records: Vec<_> = (0..8).map(|seed| synthetic::record(plies, seed, synthetic::Times::Fast)).collect();
    let plain: usize = records.iter().map(|r| serde_json::to_vec(r).unwrap().len() + 1).sum::<usize>() / records.len();
    let frames: Vec<Vec<u8>> = records.iter().map(|r| encoder.encode(r).unwrap()).collect();
    let compact = frames.iter().map(Vec::len).sum::<usize>() / frames.len();
    println!("records: synthetic {plies}-ply games, {plain} bytes plain, {compact} bytes stored (mean of 8)");
    println!("load average at the start: {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
    println!(
        "{:>6} {:>5} {:>9} {:>9} {:>7} | {:>22} | {:>22} | {:>22} | {:>28}",
        "host",
        "bots",
        "games",
        "file MB",
        "B/game",
        "table ms wall/cpu, MB",
        "pairings -n 40",
        "history BOT",
        "prune: s wall/cpu, MB, file MB"
    );
    for (bots, games) in sizes {
        let scratch = TempDir::new(&format!("ladder-scale-{bots}x{games}"));
        let db = match &keep {
            Some(dir) => {
                std::fs::create_dir_all(dir).unwrap();
                dir.join(format!("ladder-{bots}x{games}{}.db", if tiny { "-tiny" } else { "" }))
            }
            None => scratch.join("ladder.db"),
        };
        if !db.exists() {
            let t = Instant::now();
            build(&current, &db, bots, games, &frames);
            eprintln!("built {bots} bots, {games} games in {:.1} s", t.elapsed().as_secs_f64());
        } else {
            eprintln!("using {} as it is", db.display());
        }
        let size = file_size(&db);
        let cell = |r: &Run| format!("{:>6} {:>6} {:>6.0}", ms(r.wall), ms(r.cpu), r.rss_kb as f64 / 1024.0);
        let bot = format!("b{}", bots / 2);
        // Each command with each host in turn, three rounds: the median of each.
        let commands: [Vec<&str>; 3] =
            [vec!["table", "--json"], vec!["pairings", "-n", "40"], vec!["history", &bot, "--json"]];
        let mut runs: Vec<Vec<Vec<Run>>> =
            hosts.iter().map(|_| commands.iter().map(|_| Vec::new()).collect()).collect();
        for _ in 0..3 {
            for (c, command) in commands.iter().enumerate() {
                for (h, (_, host)) in hosts.iter().enumerate() {
                    runs[h][c].push(run(host, &db, command));
                }
            }
        }
        let mut prunes = Vec::new();
        if !no_prune {
            for (label, host) in &hosts {
                // A copy of the file for each host (the prune changes it).
                let copy = scratch.join(&format!("prune-{}.db", if label.is_empty() { "host" } else { label }));
                std::fs::copy(&db, &copy).unwrap();
                let archive =
                    scratch.join(&format!("archive-{}.jsonl.zst", if label.is_empty() { "host" } else { label }));
                let keep_last = (games / 10).to_string();
                let prune =
                    run(host, &copy, &["prune", "--keep-last", &keep_last, "--archive", archive.to_str().unwrap()]);
                prunes.push((prune, file_size(&copy)));
                let _ = std::fs::remove_file(&copy);
                let _ = std::fs::remove_file(&archive);
                for tail in ["-wal", "-shm"] {
                    let mut p = copy.as_os_str().to_owned();
                    p.push(tail);
                    let _ = std::fs::remove_file(p);
                }
            }
        }
        for (h, (label, _)) in hosts.iter().enumerate() {
            let [table, pairings, history] = [0, 1, 2].map(|c| {
                let mut r = std::mem::take(&mut runs[h][c]);
                r.sort_by_key(|r| r.wall);
                r.swap_remove(1)
            });
            print!(
                "{label:>6} {bots:>5} {games:>9} {:>9.0} {:>7} | {} | {} | {} |",
                size as f64 / 1e6,
                size / u64::from(games),
                cell(&table),
                cell(&pairings),
                cell(&history),
            );
            match prunes.get(h) {
                Some((prune, after)) => println!(
                    " {:>6.0} {:>6.0} {:>5.0} {:>6.0}",
                    prune.wall.as_secs_f64(),
                    prune.cpu.as_secs_f64(),
                    prune.rss_kb as f64 / 1024.0,
                    *after as f64 / 1e6,
                ),
                _ => println!(" (skipped)"),
            }
        }
    }
}
