//! The ladder at scale: whole-process timings of the real release binary on synthetic
//! ladder files of growing size.
//!
//! `cargo bench -p stratego-tests --bench ladder_scale [-- BOTSxGAMES … [--no-prune]]`
//! (default `100x10000 100x100000 1000x100000 1000x1000000`; the last writes a 5 GB file
//! in the temporary directory and takes several minutes to build).
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

use std::path::Path;
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

/// The median (by wall time) of three runs.
fn median(host: &Path, db: &Path, args: &[&str]) -> Run {
    let mut runs: Vec<Run> = (0..3).map(|_| run(host, db, args)).collect();
    runs.sort_by_key(|r| r.wall);
    runs.swap_remove(1)
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
        let args: Vec<String> = std::env::args().skip(1).filter(|a| a.contains('x')).collect();
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
    let no_prune = std::env::args().any(|a| a == "--no-prune");
    let host = release_host();
    let mut encoder = Encoder::new(Form::Compact).unwrap();
    let records: Vec<_> = (0..8).map(|seed| synthetic::record(1_000, seed, synthetic::Times::Fast)).collect();
    let plain: usize = records.iter().map(|r| serde_json::to_vec(r).unwrap().len() + 1).sum::<usize>() / records.len();
    let frames: Vec<Vec<u8>> = records.iter().map(|r| encoder.encode(r).unwrap()).collect();
    let compact = frames.iter().map(Vec::len).sum::<usize>() / frames.len();
    println!("records: synthetic 1,000-ply games, {plain} bytes plain, {compact} bytes stored (mean of 8)");
    println!(
        "{:>5} {:>9} {:>9} {:>7} | {:>22} | {:>22} | {:>22} | {:>28}",
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
        let dir = TempDir::new(&format!("ladder-scale-{bots}x{games}"));
        let db = dir.join("ladder.db");
        let t = Instant::now();
        build(&host, &db, bots, games, &frames);
        eprintln!("built {bots} bots, {games} games in {:.1} s", t.elapsed().as_secs_f64());
        let size = file_size(&db);
        let cell = |r: &Run| format!("{:>6} {:>6} {:>6.0}", ms(r.wall), ms(r.cpu), r.rss_kb as f64 / 1024.0);
        let table = median(&host, &db, &["table", "--json"]);
        let pairings = median(&host, &db, &["pairings", "-n", "40"]);
        let bot = format!("b{}", bots / 2);
        let history = median(&host, &db, &["history", &bot, "--json"]);
        print!(
            "{bots:>5} {games:>9} {:>9.0} {:>7} | {} | {} | {} |",
            size as f64 / 1e6,
            size / u64::from(games),
            cell(&table),
            cell(&pairings),
            cell(&history),
        );
        if no_prune {
            println!(" (skipped)");
            continue;
        }
        std::io::Write::flush(&mut std::io::stdout()).unwrap();
        let archive = dir.join("archive.jsonl.zst");
        let keep = (games / 10).to_string();
        let prune = run(&host, &db, &["prune", "--keep-last", &keep, "--archive", archive.to_str().unwrap()]);
        println!(
            " {:>6.0} {:>6.0} {:>5.0} {:>6.0}",
            prune.wall.as_secs_f64(),
            prune.cpu.as_secs_f64(),
            prune.rss_kb as f64 / 1024.0,
            file_size(&db) as f64 / 1e6,
        );
    }
}
