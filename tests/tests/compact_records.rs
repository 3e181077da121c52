//! Records at rest in the compact form (`games.jsonl.zst`, one zstd frame per record,
//! RECORDS.md): a run's directory whose records were compressed is read by `replay`,
//! `export`, `merge`, `convert` and resume, and a torn last frame is dropped and its game
//! played again like a torn line, through the real binary.

use std::path::Path;
use std::process::{Command, Output};

use stratego_tests::{CALM_CLOCK, TempDir, host_bin};

/// A short match of two sample bots (deterministic: the play depends on the seed only).
fn match_args(out: &Path) -> Vec<String> {
    let mut args: Vec<String> = ["match", "sample-bot", "sample-bot --strategy random", "--games", "4", "--seed", "11"]
        .map(str::to_owned)
        .to_vec();
    args.extend(["-q", "--json", "--out", out.to_str().unwrap()].map(str::to_owned));
    args.extend(CALM_CLOCK.map(str::to_owned));
    args
}

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).env("NO_COLOR", "1").output().expect("run stratego-host")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Plays the match into `dir`, then replaces `games.jsonl` by `games.jsonl.zst` (each line
/// its own zstd frame). Returns the plain lines and the frames.
fn play_and_compress(dir: &Path) -> (Vec<String>, Vec<Vec<u8>>) {
    let args = match_args(dir);
    let out = Command::new(host_bin()).args(&args).output().expect("run stratego-host");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plain = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&plain).unwrap();
    let lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    assert_eq!(lines.len(), 4, "{text}");
    let frames: Vec<Vec<u8>> = lines.iter().map(|l| zstd::bulk::compress(l.as_bytes(), 9).unwrap()).collect();
    std::fs::write(dir.join("games.jsonl.zst"), frames.concat()).unwrap();
    std::fs::remove_file(&plain).unwrap();
    (lines, frames)
}

/// The game ids of plain record lines.
fn ids(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["game_id"].as_str().unwrap().to_owned())
        .collect()
}

/// The plain lines a compact file holds (its frames decoded one after the other).
fn decoded_lines(file: &Path) -> Vec<String> {
    let bytes = zstd::stream::decode_all(std::fs::File::open(file).unwrap()).unwrap();
    String::from_utf8(bytes).unwrap().split_inclusive('\n').map(str::to_owned).collect()
}

#[test]
fn a_compressed_run_directory_is_replayed_exported_merged_converted_and_resumed() {
    let tmp = TempDir::new("compact-records");
    let dir = tmp.join("run");
    let (lines, frames) = play_and_compress(&dir);
    let ids = ids(&lines);
    let zst = dir.join("games.jsonl.zst");
    let d = dir.to_str().unwrap();

    // replay: the directory finds its compact file; --game picks any of its games.
    let out = host(&["replay", d, "--game", &ids[2]]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Result: "), "{}", String::from_utf8_lossy(&out.stdout));
    let out = host(&["replay", zst.to_str().unwrap(), "--game", &ids[3], "--ply", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // export: every game on one page.
    let html = tmp.join("all.html");
    let out = host(&["export", d, "--html", html.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(ids.iter().all(|id| page.contains(id.as_str())), "a game is missing from the page");

    // merge: the whole plan is there.
    let out = host(&["merge", d, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("4 of 4 planned games"), "{}", stderr(&out));

    // convert: records to Gravon, of every game.
    let zip = tmp.join("games.zip");
    let out = host(&["convert", d, zip.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (s["converted"].as_u64(), s["from"].as_str(), s["to"].as_str()),
        (Some(4), Some("records"), Some("gravon"))
    );

    // resume: the same command finds every game finished and plays none again.
    let args = match_args(&dir);
    let out = Command::new(host_bin()).args(&args).output().expect("run stratego-host");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("4 games already finished"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&zst).unwrap(), frames.concat(), "the compact file changed");
    assert!(!dir.join("games.jsonl").exists(), "resume started a plain file beside the compact one");
    // Nor does a page or a run refuse to write over the compact file.
    let out = host(&["export", d, "--html", zst.to_str().unwrap(), "--force"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("never overwritten"), "{}", stderr(&out));
}

#[test]
fn a_torn_last_frame_is_dropped_and_its_game_played_again() {
    let tmp = TempDir::new("compact-torn");
    let dir = tmp.join("run");
    let (lines, frames) = play_and_compress(&dir);
    let zst = dir.join("games.jsonl.zst");
    // A host killed in the middle of its last write: the frame's end is missing.
    let whole = frames[..3].concat();
    let len = (whole.len() + frames[3].len() - 7) as u64;
    std::fs::OpenOptions::new().write(true).open(&zst).unwrap().set_len(len).unwrap();

    // The read-only commands read the three whole games and say the last is torn.
    let out = host(&["export", dir.to_str().unwrap(), "--html", tmp.join("p.html").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("frame 4") && stderr(&out).contains("is torn"), "{}", stderr(&out));
    assert_eq!(std::fs::metadata(&zst).unwrap().len(), len, "a read-only command cut the file");

    // Resume drops the torn frame and plays that game again, in the compact form.
    let args = match_args(&dir);
    let out = Command::new(host_bin()).args(&args).output().expect("run stratego-host");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("is torn") && stderr(&out).contains("3 games already finished"), "{}", stderr(&out));
    assert!(!dir.join("games.jsonl").exists(), "resume started a plain file beside the compact one");
    let bytes = std::fs::read(&zst).unwrap();
    assert_eq!(&bytes[..whole.len()], &whole[..], "the whole frames were kept as they were");
    let again = decoded_lines(&zst);
    assert_eq!(again.len(), 4);
    assert_eq!(ids(&again), ids(&lines), "the torn game is played again, no other");
    // The same game, move for move (the think times differ from run to run).
    let moves = |l: &str| -> Vec<serde_json::Value> {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        v["plies"].as_array().unwrap().iter().map(|p| p["move"].clone()).collect()
    };
    let (replayed, first) = (moves(&again[3]), moves(&lines[3]));
    assert!(!first.is_empty() && replayed == first, "the game played again differs from the torn one");
}

#[test]
fn compress_writes_one_frame_per_game_and_a_plain_directory_is_never_turned_compact() {
    let tmp = TempDir::new("compact-flag");
    // --compress: the same games as a plain run, one frame each, no plain file.
    let plain_dir = tmp.join("plain");
    let out = Command::new(host_bin()).args(match_args(&plain_dir)).output().expect("run stratego-host");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = tmp.join("compact");
    let mut args = match_args(&dir);
    args.push("--compress".into());
    let out = Command::new(host_bin()).args(&args).output().expect("run stratego-host");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!dir.join("games.jsonl").exists(), "--compress wrote a plain file");
    let zst = dir.join("games.jsonl.zst");
    let lines = decoded_lines(&zst);
    let plain: Vec<String> = std::fs::read_to_string(plain_dir.join("games.jsonl"))
        .unwrap()
        .split_inclusive('\n')
        .map(str::to_owned)
        .collect();
    assert_eq!(ids(&lines), ids(&plain), "the compact run holds other games than the plain one");
    let bytes = std::fs::read(&zst).unwrap();
    let frames = bytes.windows(4).filter(|w| *w == [0x28, 0xb5, 0x2f, 0xfd]).count();
    assert!(frames >= 4, "{frames} zstd frame starts for 4 games");
    assert!(bytes.len() * 3 < plain.iter().map(String::len).sum::<usize>(), "not compressed");
    // Resumed without the flag, it stays compact (nothing played again).
    let out = Command::new(host_bin()).args(match_args(&dir)).output().expect("run stratego-host");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("4 games already finished"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&zst).unwrap(), bytes, "the compact file changed");

    // A plain directory with --compress: refused before anything is written.
    let before = std::fs::read(plain_dir.join("games.jsonl")).unwrap();
    let manifest = std::fs::read(plain_dir.join("manifest.json")).unwrap();
    let mut args = match_args(&plain_dir);
    args.push("--compress".into());
    let out = Command::new(host_bin()).args(&args).output().expect("run stratego-host");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--compress") && stderr(&out).contains("plain records"), "{}", stderr(&out));
    assert_eq!(std::fs::read(plain_dir.join("games.jsonl")).unwrap(), before, "the plain records changed");
    assert_eq!(std::fs::read(plain_dir.join("manifest.json")).unwrap(), manifest, "the manifest changed");
    assert!(!plain_dir.join("games.jsonl.zst").exists(), "a compact file appeared beside the plain one");
}
