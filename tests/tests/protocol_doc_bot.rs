//! The complete Python bot printed in protocol.md plays real games through the host:
//! the documentation's own example must work as written.

use stratego_tests::{TempDir, assert_rule_endings, records, run_match};

fn quick_start_bot() -> String {
    let md = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../protocol.md")).unwrap();
    let start = md.find("```python\n").expect("protocol.md has a Python bot") + "```python\n".len();
    let end = start + md[start..].find("```").unwrap();
    md[start..end].to_owned()
}

#[test]
fn the_python_bot_of_protocol_md_plays_without_a_fault() {
    let dir = TempDir::new("doc-bot");
    let bot = dir.join("tiny.py");
    std::fs::write(&bot, quick_start_bot()).unwrap();
    let cmd = format!("python3 {}", bot.display());
    let out = run_match(&[
        &cmd,
        "sample-bot --strategy random",
        "--games",
        "4",
        "--seed",
        "8",
        "--out",
        dir.0.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let recs = records(&dir.0);
    assert_eq!(recs.len(), 4);
    assert_rule_endings("the doc's bot", &recs);
    assert!(recs.iter().any(|r| r["bots"]["red"]["reported_name"] == "tiny-python"));
}
