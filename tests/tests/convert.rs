//! `stratego-host convert`: real Gravon games to records and back, through the real
//! binary. The committed fixture (`rules/tests/data/gravon`, 112 games of the supported
//! types and 3 `ultimate lightning` games) runs everywhere; the full archive
//! (`../shared/data/gravon`) is an `--ignored` test that `.ci/run` runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stratego_host::commands::convert::read_gravon;
use stratego_protocol::record::GameRecord;
use stratego_rules::Color;
use stratego_rules::gravon::{GravonGame, Playthrough};
use stratego_tests::read_records;
use stratego_tests::{TempDir, host_bin, run_match};

fn convert(args: &[&str]) -> Output {
    Command::new(host_bin()).arg("convert").args(args).output().expect("run stratego-host")
}

fn summary(out: &Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("a JSON summary")
}

/// What the round trip found, for the counts each test asserts.
struct RoundTrip {
    summary: serde_json::Value,
    back: serde_json::Value,
    records: Vec<GameRecord>,
    stderr: String,
}

/// Converts every game under `archive` to records, checks each record against a replay of
/// the original (same plies, same rule ending, same winner), converts the records back to
/// a directory of XML files and checks each parses to the original game (type, field,
/// moves, result).
fn round_trip(archive: &Path, tmp: &TempDir) -> RoundTrip {
    let records_file = tmp.join("games.jsonl");
    let out = convert(&[archive.to_str().unwrap(), records_file.to_str().unwrap(), "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let first = summary(&out);
    let records = read_records(&records_file).unwrap();
    assert_eq!(records.len() as u64, first["converted"].as_u64().unwrap());

    let originals: BTreeMap<String, GravonGame> = read_gravon(archive)
        .unwrap()
        .into_iter()
        .filter_map(|(name, xml)| {
            let id = stratego_host::commands::convert::gravon_game_id(&name);
            GravonGame::parse(&xml).ok().map(|g| (id, g))
        })
        .collect();
    for r in &records {
        let g = &originals[&r.game_id];
        let replay = Playthrough::run(g).unwrap();
        assert_eq!(r.plies.len(), g.moves.len(), "{}", r.game_id);
        assert!(r.plies.iter().zip(&g.moves).all(|(p, m)| p.ply.mv == *m), "{}: the moves", r.game_id);
        // The record replays by itself to the rules' ending of the original game.
        assert_eq!(r.play_through().unwrap_or_else(|e| panic!("{}: {e}", r.game_id)), replay.outcome, "{}", r.game_id);
        let res = g.result.unwrap();
        let winner = match res.winner {
            1 => Some(Color::Red),
            2 => Some(Color::Blue),
            _ => None,
        };
        assert_eq!(r.result.winner, winner, "{}: the winner", r.game_id);
        if let Some(o) = replay.outcome {
            assert_eq!(r.result.reason, stratego_protocol::reason::Reason::from(o.reason), "{}", r.game_id);
        }
    }

    let xml_dir = tmp.join("xml");
    let out = convert(&[records_file.to_str().unwrap(), xml_dir.to_str().unwrap(), "--json"]);
    let back = summary(&out);
    assert_eq!(back["converted"], first["converted"]);
    assert_eq!(back["errors"], 0);
    let written = read_gravon(&xml_dir).unwrap();
    assert_eq!(written.len(), records.len());
    for (name, xml) in written {
        let id = stratego_host::commands::convert::gravon_game_id(&name);
        let again = GravonGame::parse(&xml).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again, originals[&id], "{name}: back to XML, the same game");
    }
    RoundTrip { summary: first, back, records, stderr }
}

#[test]
fn fixture_games_convert_to_records_and_back() {
    let archive = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rules/tests/data/gravon");
    let tmp = TempDir::new("convert-fixture");
    let rt = round_trip(&archive, &tmp);
    let s = &rt.summary;
    assert_eq!(s["games"], 115);
    assert_eq!(s["converted"], 111);
    assert_eq!(s["errors"], 0);
    assert_eq!(s["skipped"]["ultimate lightning"], 3);
    // The one free training board without a Red Flag cannot be an arena record.
    assert_eq!(s["skipped"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>(), 4);
    // Each skipped game is named on stderr, with its archive and why.
    assert_eq!(rt.stderr.lines().filter(|l| l.contains(": skipped: ")).count(), 4, "{}", rt.stderr);
    assert!(rt.stderr.contains("strados2005-5.zip:classicfree-2005.5-4228.xml: skipped: Red's setup"), "{}", rt.stderr);
    assert!(rt.stderr.contains("ultimate lightning-2005.5-2105.xml: skipped: game type \"ultimate lightning\""));
    assert_eq!(rt.back["plies"], s["plies"]);
    let types: BTreeMap<String, usize> = rt.records.iter().fold(BTreeMap::new(), |mut m, r| {
        *m.entry(r.ruleset.name.clone()).or_default() += 1;
        m
    });
    assert_eq!(types, BTreeMap::from([("barrage".into(), 4), ("classic".into(), 100), ("classicfree".into(), 7)]));
}

#[test]
fn a_converted_human_game_can_be_replayed_and_exported() {
    let archive = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rules/tests/data/gravon/strados2005-2.zip");
    let tmp = TempDir::new("convert-watch");
    let file = tmp.join("human.jsonl");
    let out = convert(&[archive.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("converted 14 of 14 games"), "{text}");
    let records = read_records(&file).unwrap();
    let flag = records.iter().find(|r| r.result.reason.code() == "flag_captured").expect("a flag capture");
    let out = Command::new(host_bin())
        .args(["replay", file.to_str().unwrap(), "--game", &flag.game_id])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let shown = String::from_utf8_lossy(&out.stdout);
    let n = flag.plies.len();
    assert!(shown.contains(&format!("Ply {n}/{n}: ")) && shown.contains("attacks flag (F)"), "{shown}");
    assert!(shown.contains("Result: ") && shown.contains("flag_captured"), "{shown}");
    assert!(shown.contains("Think time: not recorded") && !shown.contains("thought"), "{shown}");
    let html = tmp.join("human.html");
    let out = Command::new(host_bin())
        .args(["export", file.to_str().unwrap(), "--game", &flag.game_id, "--html", html.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&html).unwrap().contains(&flag.game_id));
}

#[test]
fn arena_records_convert_to_gravon_and_back() {
    let tmp = TempDir::new("convert-arena");
    let run = tmp.join("run");
    let out = run_match(&[
        "sample-bot --strategy random",
        "sample-bot",
        "--games",
        "2",
        "--seed",
        "4",
        "--rules",
        "barrage",
        "--out",
        run.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let zip = tmp.join("games.zip");
    let s = summary(&convert(&[run.to_str().unwrap(), zip.to_str().unwrap(), "--json"]));
    assert_eq!(
        (s["converted"].as_u64(), s["from"].as_str(), s["to"].as_str()),
        (Some(2), Some("records"), Some("gravon"))
    );
    let back = tmp.join("back.jsonl");
    let s = summary(&convert(&[zip.to_str().unwrap(), back.to_str().unwrap(), "--json"]));
    assert_eq!(s["converted"], 2);
    let original = read_records(&run.join("games.jsonl")).unwrap();
    let again = read_records(&back).unwrap();
    for (a, b) in original.iter().zip(&again) {
        assert_eq!(b.game_id, a.game_id);
        assert_eq!(b.deployments, a.deployments);
        assert_eq!(b.ruleset, a.ruleset);
        let moves = |r: &GameRecord| r.plies.iter().map(|p| p.ply).collect::<Vec<_>>();
        assert_eq!(moves(b), moves(a));
        assert_eq!((b.result.winner, b.result.reason), (a.result.winner, a.result.reason));
    }
    // One game to one .xml file; two need --game.
    let one = tmp.join("one.xml");
    let out = convert(&[run.to_str().unwrap(), one.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--game"));
    let out = convert(&[run.to_str().unwrap(), one.to_str().unwrap(), "--game", &original[1].game_id]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let g = GravonGame::parse(&std::fs::read_to_string(&one).unwrap()).unwrap();
    assert_eq!((g.game_type.as_str(), g.moves.len()), ("barrage", original[1].plies.len()));
    // An existing output is never overwritten; an isf game has no Gravon type.
    let out = convert(&[run.to_str().unwrap(), one.to_str().unwrap(), "--game", &original[1].game_id]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
    let isf = tmp.join("isf");
    let out = run_match(&[
        "sample-bot --strategy random",
        "sample-bot --strategy random",
        "--games",
        "1",
        "--rules",
        "isf",
        "--out",
        isf.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    // Nothing converted is a failure (exit 2), no empty archive left behind (issue #41, item 9).
    let isf_zip = tmp.join("isf.zip");
    let out = convert(&[isf.to_str().unwrap(), isf_zip.to_str().unwrap(), "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("skipped: ruleset \"isf\" is not a Gravon game type"), "{stderr}");
    assert!(stderr.contains("two_square_limit (3; Gravon's classic: 5)"), "the field that differs is named: {stderr}");
    assert!(stderr.contains("none of the 1 games converted"), "{stderr}");
    assert!(!isf_zip.exists(), "no empty archive is written");
    // A file that says neither: --to decides.
    let odd = tmp.join("records.txt");
    std::fs::copy(run.join("games.jsonl"), &odd).unwrap();
    assert_eq!(
        summary(&convert(&[odd.to_str().unwrap(), tmp.join("odd").to_str().unwrap(), "--json"]))["to"],
        "gravon"
    );
    let out = convert(&[odd.to_str().unwrap(), tmp.join("odd2").to_str().unwrap(), "--to", "records"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("same format"));
}

/// Where the full archive is: `$STRATEGO_GRAVON_DIR`, else the shared folder beside the
/// checkout.
fn full_archive_dir() -> PathBuf {
    match std::env::var_os("STRATEGO_GRAVON_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/gravon"),
    }
}

#[test]
#[ignore = "needs the full Gravon archive (../shared/data/gravon or $STRATEGO_GRAVON_DIR); .ci/run runs it"]
fn every_full_archive_game_converts_to_records_and_back() {
    let dir = full_archive_dir();
    assert!(dir.is_dir(), "the full Gravon archive is not at {} (set STRATEGO_GRAVON_DIR)", dir.display());
    let tmp = TempDir::new("convert-archive");
    let rt = round_trip(&dir, &tmp);
    let s = &rt.summary;
    eprintln!("convert of {}: {}", dir.display(), serde_json::to_string(s).unwrap());
    assert_eq!(s["errors"], 0, "{}", rt.stderr);
    assert_eq!(s["games"], 3947);
    assert_eq!(s["converted"], 3935);
    assert_eq!(s["skipped"]["ultimate lightning"], 11);
    assert_eq!(rt.stderr.lines().filter(|l| l.contains(": skipped: ")).count(), 12, "{}", rt.stderr);
}
