//! The example bots in other languages play real games through the host without a fault.

use stratego_tests::{TempDir, records, run_match};

fn plays_cleanly(name: &str, command: &str) {
    let dir = TempDir::new(name);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let cmd = format!("{command} {root}/{name}");
    let out =
        run_match(&[&cmd, "sample-bot", "--games", "4", "-j", "2", "--seed", "12", "--out", dir.0.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let recs = records(&dir.0);
    assert_eq!(recs.len(), 4);
    for r in &recs {
        let reason = r["result"]["reason"].as_str().unwrap();
        assert!(
            ["flag_captured", "no_legal_moves", "neither_can_move", "ply_limit"].contains(&reason),
            "{name}: {}",
            r["result"]
        );
    }
}

#[test]
fn the_python_example_plays_without_a_fault() {
    plays_cleanly("examples/python/bot.py", "python3");
}

#[test]
fn the_javascript_example_plays_without_a_fault() {
    plays_cleanly("examples/javascript/bot.js", "node");
}
