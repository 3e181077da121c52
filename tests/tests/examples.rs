//! The example bots in other languages play real games through the host without a fault.

use stratego_tests::{assert_rule_endings, play_against_sample_bot};

fn plays_cleanly(name: &str, command: &str) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let cmd = format!("{command} {root}/{name}");
    let recs = play_against_sample_bot(&name.replace('/', "-"), &cmd, 4, &["-j", "2", "--seed", "12"]);
    assert_eq!(recs.len(), 4);
    assert_rule_endings(name, &recs);
}

#[test]
fn the_python_example_plays_without_a_fault() {
    plays_cleanly("examples/python/bot.py", "python3");
}

#[test]
fn the_javascript_example_plays_without_a_fault() {
    plays_cleanly("examples/javascript/bot.js", "node");
}
