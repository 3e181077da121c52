//! What the layers below the commands say (issue #43, item 7) goes where the command says:
//! with `-q` the notices of how a run goes are left out, the ones a person or a test waits
//! for are kept. Before, the remote session and the hub printed them themselves, whatever
//! `-q` said. Through the real binary, listening on 127.0.0.1 for a remote bot that never
//! connects.

use std::time::Duration;

use stratego_tests::TempDir;
use stratego_tests::remote::{remote_match, remote_spec, token};

/// The host's stderr for a match against a remote bot that never connects (the game forfeits
/// after half a second), with `extra` flags.
fn absent_remote_bot(name: &str, extra: &[&str]) -> String {
    let dir = TempDir::new(name);
    let (_, sha) = token(&dir, "ghost");
    let out = dir.join("out");
    let mut flags = vec!["--connect-timeout", "0.5"];
    flags.extend(extra);
    let host = remote_match(&remote_spec("ghost", &sha), 1, &out, &flags);
    let (code, _, stderr) = host.finish(Duration::from_secs(60));
    assert_eq!(code, 0, "{stderr}");
    stderr
}

#[test]
fn quiet_leaves_out_the_remote_waits_and_keeps_the_listening_line() {
    let loud = absent_remote_bot("notices-loud", &[]);
    assert!(loud.contains("waiting for remote bot ghost to connect"), "without -q the wait is said: {loud}");
    let quiet = absent_remote_bot("notices-quiet", &["-q"]);
    assert!(quiet.contains("stratego-host: listening for remote bots (ghost) on ws://127.0.0.1:"), "{quiet}");
    assert!(!quiet.contains("waiting for remote bot"), "-q leaves out how the run goes: {quiet}");
}
