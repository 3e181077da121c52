//! No bot process outlives the host: after a normal match, after a forfeit by a bot with a
//! grandchild holding its pipes, and after SIGINT to the host.

use std::process::{Command, Stdio};
use std::time::Duration;

use stratego_tests::{TempDir, group_members, host_bin, misbehaving, process_alive, read_pids, run_match, wait_for};

fn assert_all_gone(pids: &[i32]) {
    assert!(!pids.is_empty(), "the bots wrote their pids");
    // A killed process is gone once the kernel has run its exit, which a busy machine may
    // put off: waited for (the asserts below say which survived).
    wait_for(Duration::from_secs(10), || pids.iter().all(|&pid| !process_alive(pid) && group_members(pid).is_empty()));
    for &pid in pids {
        assert!(!process_alive(pid), "process {pid} survived");
        assert!(group_members(pid).is_empty(), "process group {pid} still has members: {:?}", group_members(pid));
    }
}

#[test]
fn no_process_remains_after_a_normal_match() {
    let dir = TempDir::new("procs-normal");
    let pidfile = dir.join("pids");
    let bot = misbehaving(&format!("--pidfile {}", pidfile.display()));
    let out = run_match(&[&bot, &bot, "--games", "2", "--seed", "4"]);
    assert!(out.status.success());
    let pids = read_pids(&pidfile);
    // One process per bot per game, and the pre-flight start of the (one) program.
    assert_eq!(pids.len(), 5, "one process per bot per game, one pre-flight: {}", String::from_utf8_lossy(&out.stderr));
    assert_all_gone(&pids);
}

#[test]
fn a_forfeiting_bots_grandchild_is_killed_with_its_group() {
    let dir = TempDir::new("procs-grandchild");
    let pidfile = dir.join("pids");
    let bot = misbehaving(&format!("--misbehave grandchild --at 1 --pidfile {}", pidfile.display()));
    let out = run_match(&[&bot, "sample-bot", "--games", "1", "--grace-ms", "100", "--out", dir.0.to_str().unwrap()]);
    assert!(out.status.success());
    let rec = &stratego_tests::records(&dir.0)[0];
    assert_eq!(rec["result"]["reason"], "illegal_move");
    let pids = read_pids(&pidfile);
    assert_eq!(pids.len(), 3, "its pre-flight start, the bot and its grandchild: {pids:?}");
    assert_all_gone(&pids);
}

#[test]
fn sigint_to_the_host_kills_every_bot() {
    let dir = TempDir::new("procs-sigint");
    let pidfile = dir.join("pids");
    let bot = misbehaving(&format!("--misbehave move-timeout --at 1 --pidfile {}", pidfile.display()));
    let child = Command::new(host_bin())
        .args(["match", &bot, &bot, "--games", "4", "-j", "2", "--move-time", "60", "--out", dir.0.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until all four bots of the two running games are up (after the pre-flight's).
    let up = wait_for(Duration::from_secs(120), || read_pids(&pidfile).len() >= 5);
    assert!(up, "the pre-flight bot and four bots did not start within 120 s: {:?}", read_pids(&pidfile));
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: sending SIGINT to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    let pids = read_pids(&pidfile);
    assert_eq!(pids.len(), 5);
    assert_all_gone(&pids);
}
