//! The host's own figures (`host_cpu_us_per_ply`, `host_peak_rss_kib` in `--json`, "host CPU … µs/ply,
//! host peak RSS" in the summary) are the host's, not those of the program that started it
//! with `exec` (`cargo run`, a wrapper script): the kernel keeps a process's CPU time and
//! `ru_maxrss` across `exec`.

use std::process::Command;

use stratego_tests::host_bin;

/// A Python wrapper touches 200 MiB and spins 1 s of CPU, then `exec`s the host for a short
/// match: the host reports neither.
#[test]
fn a_program_that_execs_the_host_does_not_count_as_the_host() {
    let wrapper = r#"
import os, sys, time
ballast = bytearray(b"x") * (200 << 20)
end = time.process_time() + 1.0
while time.process_time() < end:
    pass
os.execv(sys.argv[1], sys.argv[1:])
"#;
    let host = host_bin();
    let out = Command::new("python3")
        .args(["-c", wrapper])
        .arg(&host)
        .args(["match", "sample-bot", "sample-bot --strategy random", "--games", "2", "--seed", "5", "-q", "--json"])
        .output()
        .expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json summary");
    let rss = summary["host_peak_rss_kib"].as_u64().expect("host_peak_rss_kib");
    assert!(rss < 100 * 1024, "the host's peak RSS counts the wrapper's 200 MiB: {rss} KiB");
    let per_ply = summary["host_cpu_us_per_ply"].as_f64().expect("host_cpu_us_per_ply");
    let plies = summary["plies"].as_f64().expect("plies");
    assert!(
        per_ply * plies < 900_000.0,
        "the host's CPU counts the wrapper's second: {per_ply} µs a ply, {plies} plies"
    );
}
