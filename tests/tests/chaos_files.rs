//! Untrusted files (issue #41 items 9 and 10, issue #42 items 14–17): decompression bombs
//! and over-long lines in records files, ladders and Gravon archives, a ladder file with
//! foreign SQL, a compact file that starts with a skippable frame, a huge `concurrency` in
//! a TOML, `--max-plies` games converted to Gravon, and a 64-bit seed in the viewer. Every
//! hostile file is made here, at test time (none is committed), and read by the real host
//! binary; each reader's peak resident memory is measured by `wait4` on its process.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stratego_tests::{CALM_CLOCK, TempDir, host_bin, ladder, ok, run_match};

/// The default limit on a record (`--max-record-bytes`): 64 MiB.
const LIMIT: usize = 64 << 20;
/// The most memory a host reading a bomb may take: the limit held once, its copy while the
/// buffer grows, and the rest of the host.
const RSS_BOUND_KB: i64 = 200 * 1024;

/// What a finished host run left: exit code, stdout, stderr, peak RSS (KiB).
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    peak_kb: i64,
}

/// Runs the host with `args` and measures its peak resident memory (`ru_maxrss` of its
/// process, through the small `peak-rss` program: see there why not from this process).
/// A run longer than `limit` is killed (and fails the test).
fn measured(dir: &Path, args: &[&str], limit: Duration) -> Run {
    let stem = args.join("_").replace(['/', ' '], "_").chars().take(60).collect::<String>();
    let (out, err, rss) =
        (dir.join(format!("run-{stem}.out")), dir.join(format!("run-{stem}.err")), dir.join(format!("run-{stem}.rss")));
    let mut child = Command::new(stratego_tests::bin("peak-rss"))
        .arg(&rss)
        .arg(host_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("start peak-rss");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = Command::new("pkill").args(["-KILL", "-P", &child.id().to_string()]).status();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let measured = std::fs::read_to_string(&rss).unwrap_or_default();
    let mut words = measured.split_whitespace();
    let peak_kb: i64 = words.next().and_then(|w| w.parse().ok()).unwrap_or(i64::MAX);
    let code = words.next().and_then(|w| w.parse().ok());
    Run {
        code,
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
        peak_kb,
    }
}

/// A generous limit for one command: only how long a broken run takes to fail.
const PATIENCE: Duration = Duration::from_secs(300);

/// One zstd frame that decompresses to `bytes` zero bytes in four bytes per 128 KiB: the
/// decompression bomb (a 2 GiB frame is 64 KiB). Written byte by byte from the format
/// (RFC 8878): a header that names no content size, then run-length blocks.
fn zstd_bomb(bytes: usize) -> Vec<u8> {
    const BLOCK: usize = 128 << 10;
    // Magic; no content size, not single-segment, no checksum; a 128 KiB window (2^(10+7)).
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3];
    let blocks = bytes.div_ceil(BLOCK);
    for i in 0..blocks {
        let size = if i + 1 == blocks { bytes - i * BLOCK } else { BLOCK };
        let header = (size << 3) | (1 << 1) | usize::from(i + 1 == blocks);
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.push(b' ');
    }
    frame
}

/// A real `--out` directory of `games` compact records, played by the host.
fn compact_run(dir: &Path, games: &str) -> PathBuf {
    let out = dir.join("run");
    let o = run_match(&[
        "sample-bot --strategy random",
        "sample-bot --strategy random",
        "--games",
        games,
        "--seed",
        "9",
        "--max-plies",
        "60",
        "--compress",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    ok(&o);
    out
}

fn assert_refused(what: &str, run: &Run, names: &str) {
    assert_ne!(run.code, Some(0), "{what}: accepted the bomb\n{}", run.stderr);
    assert!(run.code.is_some(), "{what}: killed or aborted (no exit code)\n{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("longer than {LIMIT} bytes")) && run.stderr.contains(names),
        "{what}: the error names the file and the limit:\n{}",
        run.stderr
    );
    assert!(run.peak_kb < RSS_BOUND_KB, "{what}: peak RSS {} KiB reading the bomb", run.peak_kb);
    eprintln!("{what}: peak RSS {} KiB, exit {:?}", run.peak_kb, run.code);
}

/// #42.14: a 2 GiB zstd frame of a few tens of kilobytes, after two real records, makes
/// every reader of records refuse the file with an error naming the frame and the limit,
/// in bounded memory: replay, export, convert, merge, a resumed run.
#[test]
fn a_zstd_bomb_in_a_records_file_is_refused_by_every_reader_in_bounded_memory() {
    let dir = TempDir::new("chaos-files-zstd-bomb");
    let run = compact_run(&dir.0, "2");
    let file = run.join("games.jsonl.zst");
    let good = std::fs::read(&file).unwrap();
    let bomb = zstd_bomb(2 << 30);
    eprintln!("bomb: {} bytes, decompressing to 2 GiB", bomb.len());
    assert_eq!(bomb.len(), 6 + 4 * 16384);
    let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(&bomb).unwrap();
    drop(f);
    let name = file.to_str().unwrap();
    let frame = format!("games.jsonl.zst: frame 3 (byte {})", good.len());

    let r = measured(&dir.0, &["replay", name], PATIENCE);
    assert_refused("replay", &r, &frame);
    let html = dir.join("x.html");
    let r = measured(&dir.0, &["export", name, "--html", html.to_str().unwrap()], PATIENCE);
    assert_refused("export", &r, &frame);
    assert!(!html.exists());
    let zip = dir.join("x.zip");
    let r = measured(&dir.0, &["convert", name, zip.to_str().unwrap()], PATIENCE);
    assert_refused("convert", &r, &frame);
    let r = measured(&dir.0, &["merge", run.to_str().unwrap()], PATIENCE);
    assert_refused("merge", &r, &frame);
    // The same run again: it resumes the directory, whose records it reads first.
    let mut resume = vec!["match", "sample-bot --strategy random", "sample-bot --strategy random"];
    resume.extend(["--games", "2", "--seed", "9", "--max-plies", "60", "--compress", "-q", "--out"]);
    resume.push(run.to_str().unwrap());
    resume.extend(CALM_CLOCK);
    let r = measured(&dir.0, &resume, PATIENCE);
    assert_refused("resume", &r, &frame);
    // The limit is the organiser's: raised past the bomb's size, the frame is decoded and
    // is no record (not measured: it takes its 2 GiB).
    let small = measured(&dir.0, &["replay", name, "--max-record-bytes", "1024"], PATIENCE);
    assert!(small.stderr.contains("longer than 1024 bytes"), "{}", small.stderr);
}

/// #42.15: a plain record line of 300 MB is refused with an error naming the file, the line
/// and the limit, without holding the line.
#[test]
fn a_record_line_past_the_limit_is_an_error_naming_its_file_and_line_in_bounded_memory() {
    let dir = TempDir::new("chaos-files-long-line");
    let run = compact_run(&dir.0, "1");
    let plain =
        String::from_utf8(zstd::stream::decode_all(&std::fs::read(run.join("games.jsonl.zst")).unwrap()[..]).unwrap())
            .unwrap();
    let file = dir.join("games.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    f.write_all(plain.as_bytes()).unwrap();
    // A record whose bot's stderr tail is 300 MB: one line of JSON.
    let filler = vec![b'x'; 1 << 20];
    f.write_all(br#"{"game_id":"huge","stderr_tail":""#).unwrap();
    for _ in 0..300 {
        f.write_all(&filler).unwrap();
    }
    f.write_all(b"\"}\n").unwrap();
    f.write_all(plain.as_bytes()).unwrap();
    f.flush().unwrap();
    drop(f);
    let name = file.to_str().unwrap();
    let r = measured(&dir.0, &["replay", name], PATIENCE);
    assert_refused("replay", &r, &format!("{name}:2:"));
    let html = dir.join("x.html");
    let r = measured(&dir.0, &["export", name, "--html", html.to_str().unwrap()], PATIENCE);
    assert_refused("export", &r, &format!("{name}:2:"));
    // Skipped on request, like any bad line: the records around it are read.
    let r = measured(&dir.0, &["export", name, "--html", html.to_str().unwrap(), "--skip-bad-lines"], PATIENCE);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.peak_kb < RSS_BOUND_KB, "peak RSS {} KiB", r.peak_kb);
    assert!(html.exists());
}

/// A barrage game of two plies in Gravon XML (red resigns).
fn gravon_game() -> String {
    const FIELD: &str =
        "MBLKEDDCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA__AA__AAAA__AA__AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYNXWQPPOAA";
    format!(
        r#"<?xml version="1.0"?><stratego><game type="barrage"><field content="{FIELD}"/><move id="1" source="D1" target="D2"/><move id="2" source="D:" target="D9"/><result type="3" winner="2"/></game></stratego>"#
    )
}

/// #42.14: a Gravon zip of about a megabyte whose one entry inflates to 1 GiB: `convert`
/// reads the archive member by member, reports that entry as an error naming it and the
/// limit, converts the real games beside it, all in bounded memory.
#[test]
fn a_gravon_zip_bomb_is_one_broken_game_read_in_bounded_memory() {
    let dir = TempDir::new("chaos-files-zip-bomb");
    let zip_path = dir.join("strados.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated).large_file(true);
    zip.start_file("barrage-1.xml", opts).unwrap();
    zip.write_all(gravon_game().as_bytes()).unwrap();
    zip.start_file("bomb.xml", opts).unwrap();
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..1024 {
        zip.write_all(&zeros).unwrap();
    }
    zip.start_file("barrage-2.xml", opts).unwrap();
    zip.write_all(gravon_game().as_bytes()).unwrap();
    zip.finish().unwrap();
    let size = std::fs::metadata(&zip_path).unwrap().len();
    eprintln!("zip bomb: {size} bytes, an entry of 1 GiB");
    let out = dir.join("out.jsonl");
    let r = measured(&dir.0, &["convert", zip_path.to_str().unwrap(), out.to_str().unwrap()], PATIENCE);
    eprintln!("convert: peak RSS {} KiB, exit {:?}", r.peak_kb, r.code);
    assert_eq!(r.code, Some(1), "a broken game is exit 1:\n{}", r.stderr);
    assert!(r.stderr.contains(&format!("strados.zip:bomb.xml: error: longer than {LIMIT} bytes")), "{}", r.stderr);
    assert!(r.stdout.contains("converted 2 of 3 games"), "{}", r.stdout);
    assert!(r.peak_kb < RSS_BOUND_KB, "peak RSS {} KiB", r.peak_kb);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2);
}

/// A ladder with two bots and two games played.
fn ladder_with_games(dir: &TempDir) -> PathBuf {
    let db = dir.join("ladder.sqlite");
    ok(&ladder(&db, &["add", "heuristic", "sample-bot"]));
    ok(&ladder(&db, &["add", "random", "sample-bot --strategy random"]));
    ok(&ladder(&db, &["play", "-n", "2", "--seed", "5", "-q"]));
    db
}

/// #42.16: a trigger added to a ladder file (here one that blanks every stored record) is
/// refused on open, before any game is played or saved, with an error naming it; so is a
/// view; the file's games stay as they were.
#[test]
fn a_ladder_file_with_foreign_sql_is_refused_on_open() {
    let dir = TempDir::new("chaos-files-ladder-trigger");
    let db = ladder_with_games(&dir);
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "CREATE TRIGGER blank AFTER INSERT ON records BEGIN UPDATE records SET record = x'' WHERE game = NEW.game; END;",
    )
    .unwrap();
    drop(c);
    for args in [&["play", "-n", "2", "--seed", "6", "-q"][..], &["table"][..], &["records", "--out", "x.jsonl"][..]] {
        let o = ladder(&db, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "ladder {args:?} ran on a file with a foreign trigger:\n{err}");
        assert!(
            err.contains("a trigger blank (on records) that no ladder has")
                && err.contains("as private as the bots' commands"),
            "ladder {args:?}: {err}"
        );
    }
    let c = rusqlite::Connection::open(&db).unwrap();
    let games: i64 = c.query_row("SELECT count(*) FROM games", [], |r| r.get(0)).unwrap();
    assert_eq!(games, 2, "no game was played on the refused file");
    c.execute_batch("DROP TRIGGER blank; CREATE VIEW v AS SELECT 1;").unwrap();
    drop(c);
    let o = ladder(&db, &["table"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("a view v (on v) that no ladder has"));
    rusqlite::Connection::open(&db).unwrap().execute_batch("DROP VIEW v;").unwrap();
    ok(&ladder(&db, &["table"]));
}

/// #42.14 / #42.16: a zstd bomb stored as a game's record makes `ladder records` fail with
/// an error naming the stored record and the limit, in bounded memory.
#[test]
fn a_zstd_bomb_stored_in_a_ladder_is_refused_by_ladder_records_in_bounded_memory() {
    let dir = TempDir::new("chaos-files-ladder-bomb");
    let db = ladder_with_games(&dir);
    let bomb = zstd_bomb(2 << 30);
    let c = rusqlite::Connection::open(&db).unwrap();
    let first: i64 = c.query_row("SELECT min(game) FROM records", [], |r| r.get(0)).unwrap();
    c.execute("UPDATE records SET record = ?1 WHERE game = ?2", rusqlite::params![bomb, first]).unwrap();
    drop(c);
    let out = dir.join("all.jsonl");
    let r = measured(
        &dir.0,
        &["ladder", "--db", db.to_str().unwrap(), "records", "--out", out.to_str().unwrap()],
        PATIENCE,
    );
    eprintln!("ladder records: peak RSS {} KiB, exit {:?}", r.peak_kb, r.code);
    assert_ne!(r.code, Some(0), "{}", r.stderr);
    assert!(r.code.is_some(), "killed or aborted:\n{}", r.stderr);
    assert!(
        r.stderr.contains("stored record") && r.stderr.contains(&format!("more than {LIMIT} bytes")),
        "{}",
        r.stderr
    );
    assert!(r.peak_kb < RSS_BOUND_KB, "peak RSS {} KiB", r.peak_kb);
}

/// #42.17: a compact file that starts with a zstd skippable frame (metadata, which `zstd
/// -dc` reads past) is read past it: its records are all there, whatever its name.
#[test]
fn a_compact_file_starting_with_a_skippable_frame_reads_its_records() {
    let dir = TempDir::new("chaos-files-skippable");
    let run = compact_run(&dir.0, "2");
    let frames = std::fs::read(run.join("games.jsonl.zst")).unwrap();
    let plain = zstd::stream::decode_all(&frames[..]).unwrap();
    let ids: Vec<String> = String::from_utf8(plain)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["game_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 2);
    let mut skippable = vec![0x50, 0x2A, 0x4D, 0x18, 5, 0, 0, 0];
    skippable.extend_from_slice(b"hello");
    for name in ["games.jsonl.zst", "records.bin"] {
        let file = dir.join(name);
        std::fs::write(&file, [&skippable[..], &frames[..]].concat()).unwrap();
        let html = dir.join(&format!("{name}.html"));
        let o = Command::new(host_bin())
            .args(["export", file.to_str().unwrap(), "--html", html.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let page = std::fs::read_to_string(&html).unwrap();
        for id in &ids {
            assert!(page.contains(id.as_str()), "{name}: game {id} is in the page");
        }
        let o = Command::new(host_bin()).args(["replay", file.to_str().unwrap(), "--ply", "1"]).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// #42.17: `concurrency = 1000000` in a TOML for 2 games starts 2 worker slots, not a
/// million threads (which took minutes of CPU).
#[test]
fn a_huge_concurrency_in_a_toml_starts_no_more_slots_than_games() {
    let dir = TempDir::new("chaos-files-concurrency");
    let toml = dir.join("m.toml");
    std::fs::write(
        &toml,
        "games = 2\nconcurrency = 1000000\nmove_time = 60\nrules = \"barrage\"\n\n[[bot]]\nname = \"a\"\ncommand = \"sample-bot --strategy random\"\n\n[[bot]]\nname = \"b\"\ncommand = \"sample-bot --strategy random\"\n",
    )
    .unwrap();
    let r = measured(&dir.0, &["tournament", toml.to_str().unwrap(), "--max-plies", "20", "-vv"], PATIENCE);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stderr.contains("concurrency 1000000: 2 slots, one per game to play"), "{}", r.stderr);
}

/// #41.9: games played with `--max-plies` (a classic ruleset with another ply limit)
/// convert to Gravon as classic games, their draws at the limit written as agreed draws
/// and said so; a ruleset no Gravon type has is skipped naming the fields that differ,
/// and an output with no game is an error that leaves no file.
#[test]
fn max_plies_games_convert_to_gravon_and_an_empty_output_is_an_error() {
    let dir = TempDir::new("chaos-files-gravon");
    let out = dir.join("run");
    ok(&run_match(&[
        "sample-bot --strategy random",
        "sample-bot --strategy random",
        "--games",
        "4",
        "--seed",
        "3",
        "--max-plies",
        "40",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]));
    let zip = dir.join("games.zip");
    let o = Command::new(host_bin()).args(["convert", out.to_str().unwrap(), zip.to_str().unwrap()]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stdout.starts_with("converted 4 of 4 games"), "{stdout}");
    assert!(stdout.contains("ply_limit at 40 plies (Gravon's classic: 2000) as type 4 (agreed draw)"), "{stdout}");
    // And back: the same moves, as classic games.
    let back = dir.join("back.jsonl");
    let o = Command::new(host_bin()).args(["convert", zip.to_str().unwrap(), back.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let mine: Vec<serde_json::Value> = stratego_tests::records(&out);
    let theirs: Vec<serde_json::Value> =
        std::fs::read_to_string(&back).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(theirs.len(), 4);
    let moves = |r: &serde_json::Value| -> Vec<String> {
        r["plies"].as_array().unwrap().iter().map(|p| p["move"].as_str().unwrap().to_owned()).collect()
    };
    let mut a: Vec<Vec<String>> = mine.iter().map(moves).collect();
    let mut b: Vec<Vec<String>> = theirs.iter().map(moves).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);

    // ISF rules are no Gravon type's: every game skipped, naming the fields; no output.
    let isf = dir.join("isf");
    ok(&run_match(&[
        "sample-bot --strategy random",
        "sample-bot --strategy random",
        "--games",
        "2",
        "--rules",
        "isf",
        "--max-plies",
        "20",
        "-q",
        "--out",
        isf.to_str().unwrap(),
    ]));
    let zip = dir.join("isf.zip");
    let o = Command::new(host_bin()).args(["convert", isf.to_str().unwrap(), zip.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "no game converted is a failure: {stderr}");
    assert!(stderr.contains("is not a Gravon game type's") && stderr.contains("it differs from Gravon's"), "{stderr}");
    assert!(stderr.contains("none of the 2 games converted"), "{stderr}");
    assert!(!zip.exists(), "no empty zip is left");
}

/// #41.10: the viewer shows a 64-bit seed exactly (a JavaScript number rounds it), in a
/// real browser; the page's data carries it as a string.
#[test]
fn the_viewer_shows_a_64_bit_seed_exactly_in_a_browser() {
    assert!(
        Command::new("chromium").arg("--version").output().is_ok_and(|o| o.status.success()),
        "this test needs Debian's chromium (.ci/run installs it)"
    );
    let dir = TempDir::new("chaos-files-seed");
    let out = dir.join("run");
    ok(&run_match(&[
        "sample-bot --strategy random",
        "sample-bot",
        "--games",
        "1",
        "--seed",
        "18446744073709242422",
        "--max-plies",
        "30",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]));
    let mut records = stratego_tests::read_records(&out.join("games.jsonl")).unwrap();
    let seed: u64 = 18_446_744_073_709_242_422;
    records[0].seed = seed;
    let html = stratego_host::display::files::viewer::export_html(&records, "seed").unwrap();
    assert!(html.contains(&format!("\"seed\":\"{seed}\"")), "the data carries the seed as a string");
    let page = dir.join("viewer.html");
    std::fs::write(&page, &html).unwrap();
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer/drive.mjs");
    let run = Command::new("node")
        .arg(&driver)
        .args(["--html", page.to_str().unwrap(), "--ply", "1", "--game", "0", "--views", "spectator"])
        .output()
        .expect("run node");
    assert_eq!(run.status.code(), Some(0), "the driver failed:\n{}", String::from_utf8_lossy(&run.stderr));
    let result: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let about = result["texts"]["about"].as_str().unwrap();
    assert!(about.contains(&format!("seed{seed}")), "the page shows the seed exactly: {about}");
}
