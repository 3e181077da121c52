//! Nothing lost, nothing repeated: a tournament killed with `kill -9` and resumed, shards
//! merged, plans that differ refused (issue #12), through the real binary.

use std::collections::HashSet;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use stratego_tests::read_records;
use stratego_tests::{CALM_CLOCK, TempDir, host_bin};

/// Deterministic bots (the sample bot's play depends only on the seed the host sends), each
/// marked with an environment variable so the test can find any process left behind.
fn tournament_args(mark: &str) -> Vec<String> {
    let bot = |cmd: &str| format!(r#"{{"command": "{cmd}", "env": {{"STRATEGO_TEST_MARK": "{mark}"}}}}"#);
    let mut args = vec!["tournament".to_owned()];
    for cmd in ["sample-bot", "sample-bot --strategy random", "sample-bot --strategy search --worlds 2"] {
        args.extend(["--bot".to_owned(), bot(cmd)]);
    }
    args.extend(["--games", "4", "--seed", "21", "-j", "2", "-q", "--json"].map(str::to_owned));
    // A calm clock: a game lost on time in one run and not in another would change the
    // report these tests compare.
    args.extend(CALM_CLOCK.map(str::to_owned));
    args
}

fn run(args: &[String], extra: &[&str]) -> Output {
    Command::new(host_bin()).args(args).args(extra).output().expect("run stratego-host")
}

/// Processes whose environment carries the mark.
fn marked_processes(mark: &str) -> Vec<u32> {
    let needle = format!("STRATEGO_TEST_MARK={mark}");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        if let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) {
            if env.split(|&b| b == 0).any(|v| v == needle.as_bytes()) {
                pids.push(pid);
            }
        }
    }
    pids
}

/// The report without what differs between runs of the same plan.
fn comparable(out: &Output) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let o = v.as_object_mut().unwrap();
    o.remove("wall_s");
    o.remove("records");
    // Like the wall time, the machine's stalls and the bots' thinking times differ from run
    // to run (issue #41, item 11(a)).
    o.remove("overload");
    v
}

#[test]
fn a_tournament_killed_again_and_again_resumes_to_the_report_of_an_uninterrupted_run() {
    let dir = TempDir::new("resume-kill");
    let mark = format!("resume-{}", std::process::id());
    let args = tournament_args(&mark);
    let out = dir.0.to_str().unwrap();
    // Kill the host at different points (once it has recorded a game more, then a little
    // later), resuming each time.
    let lines = || std::fs::read_to_string(dir.join("games.jsonl")).map(|t| t.lines().count()).unwrap_or(0);
    let mut counts = Vec::new();
    for (i, after_ms) in [0u64, 150, 40, 300].into_iter().enumerate() {
        let before = lines();
        if before == 12 {
            break; // fast games: the run ended before this kill could interrupt it
        }
        let mut child = Command::new(host_bin())
            .args(&args)
            .args(["--out", out])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        while lines() <= before && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(after_ms));
        // SAFETY: SIGKILL to our own child.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGKILL);
        }
        let _ = child.wait();
        let n = std::fs::read_to_string(dir.join("games.jsonl")).map(|t| t.lines().count()).unwrap_or(0);
        counts.push(n);
        // The bots die with their host (parent-death signal).
        let deadline = Instant::now() + Duration::from_secs(30);
        while !marked_processes(&mark).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(marked_processes(&mark).is_empty(), "kill {i}: bot processes left behind");
    }
    let resumed = run(&args, &["--out", out]);
    assert_eq!(resumed.status.code(), Some(0), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert!(
        String::from_utf8_lossy(&resumed.stderr).contains("resuming"),
        "after kills at {counts:?} games: {}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(counts.windows(2).all(|w| w[0] < w[1]), "each kill came after a new game: {counts:?}");
    assert!(counts.iter().filter(|&&n| n < 12).count() >= 2, "at least two kills interrupted the run: {counts:?}");
    // Every planned game exactly once.
    let records = read_records(&dir.join("games.jsonl")).unwrap();
    let ids: HashSet<_> = records.iter().map(|r| r.game_id.clone()).collect();
    assert_eq!(records.len(), 12, "after kills at {counts:?} games");
    assert_eq!(ids.len(), 12);
    // The same report as an uninterrupted run of the same plan.
    let whole = TempDir::new("resume-whole");
    let uninterrupted = run(&args, &["--out", whole.0.to_str().unwrap()]);
    assert_eq!(comparable(&resumed), comparable(&uninterrupted));
    // Running it once more plays nothing and reports the same.
    let again = run(&args, &["--out", out]);
    assert_eq!(comparable(&again), comparable(&uninterrupted));
    assert_eq!(read_records(&dir.join("games.jsonl")).unwrap().len(), 12);
    assert!(marked_processes(&mark).is_empty());
}

#[test]
fn shards_run_apart_merge_to_the_single_run_and_other_plans_are_refused() {
    let mark = format!("shards-{}", std::process::id());
    let args = tournament_args(&mark);
    let dirs: Vec<TempDir> = (1..=3).map(|i| TempDir::new(&format!("shard-{i}"))).collect();
    let children: Vec<_> = dirs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            Command::new(host_bin())
                .args(&args)
                .args(["--shard", &format!("{}/3", i + 1), "--out", d.0.to_str().unwrap()])
                .output()
        })
        .collect();
    for c in children {
        let c = c.unwrap();
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    }
    let paths: Vec<&str> = dirs.iter().map(|d| d.0.to_str().unwrap()).collect();
    let merged = Command::new(host_bin()).arg("merge").args(&paths).arg("--json").output().unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", String::from_utf8_lossy(&merged.stderr));
    let single = TempDir::new("shard-single");
    let whole = run(&args, &["--out", single.0.to_str().unwrap()]);
    assert_eq!(comparable(&merged), comparable(&whole));
    // A missing shard is named.
    let partial = Command::new(host_bin()).arg("merge").args(&paths[..2]).output().unwrap();
    assert_eq!(partial.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&partial.stderr).contains("games missing: "));
    // A directory of another plan is refused, saying what differs.
    let two_games: Vec<String> = args.iter().map(|a| if a == "4" { "2".to_owned() } else { a.clone() }).collect();
    let other = run(&two_games, &["--out", paths[0]]);
    assert_eq!(other.status.code(), Some(2));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        err.contains("holds another plan")
            && err.contains("event.games_per_pairing: 4 in the directory, 2 in this command"),
        "{err}"
    );
}

/// The Slurm array recipe, run as Slurm would run its tasks (the array variables set by
/// hand: a one-node Slurm cluster is not started here), merges to the single run.
#[test]
fn the_slurm_array_recipe_shards_and_merges_to_the_single_run() {
    let dir = TempDir::new("slurm-recipe");
    let config = dir.join("t.toml");
    std::fs::write(
        &config,
        "games = 2\nseed = 8\nmove_time = 60\n[[bot]]\ncommand = \"sample-bot\"\n[[bot]]\ncommand = \"sample-bot --strategy random\"\n[[bot]]\ncommand = \"sample-bot --strategy search --worlds 2\"\n",
    )
    .unwrap();
    let script = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../recipes/slurm-shards.sh");
    let results = dir.join("results");
    for task in 1..=3 {
        let out = Command::new("bash")
            .arg(&script)
            .arg(&config)
            .arg(&results)
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env("SLURM_CPUS_PER_TASK", "2")
            .env("STRATEGO_HOST", host_bin())
            .output()
            .unwrap();
        assert!(out.status.success(), "task {task}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let shards: Vec<String> = (1..=3).map(|i| results.join(format!("shard-{i}")).display().to_string()).collect();
    let merged = Command::new(host_bin()).arg("merge").args(&shards).arg("--json").output().unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", String::from_utf8_lossy(&merged.stderr));
    let single = Command::new(host_bin())
        .args(["tournament", config.to_str().unwrap(), "-j", "2", "-q", "--json", "--out"])
        .arg(dir.join("single"))
        .output()
        .unwrap();
    assert_eq!(comparable(&merged), comparable(&single));
}

/// The Slurm array recipe submitted for real to a one-node Slurm cluster (`.ci/run` starts
/// one with `.ci/slurm-one-node.sh`): `sbatch --wait --array=1-3`, then `merge`, equals the
/// single run.
#[test]
#[ignore = "needs a running one-node Slurm (.ci/run starts one with .ci/slurm-one-node.sh)"]
fn the_slurm_array_recipe_runs_under_a_real_slurm_and_merges_to_the_single_run() {
    let sinfo = Command::new("sinfo").args(["-h", "-o", "%T"]).output();
    assert!(
        sinfo.as_ref().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("idle")),
        "no idle Slurm node: start one with .ci/slurm-one-node.sh ({sinfo:?})"
    );
    let dir = TempDir::new("slurm-real");
    let config = dir.join("t.toml");
    std::fs::write(
        &config,
        "games = 2\nseed = 8\nmove_time = 60\n[[bot]]\ncommand = \"sample-bot\"\n[[bot]]\ncommand = \"sample-bot --strategy random\"\n[[bot]]\ncommand = \"sample-bot --strategy search --worlds 2\"\n",
    )
    .unwrap();
    let script = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../recipes/slurm-shards.sh");
    let results = dir.join("results");
    let out = Command::new("sbatch")
        .args(["--wait", "--array=1-3", "--cpus-per-task=1"])
        .arg(&script)
        .arg(&config)
        .arg(&results)
        .current_dir(&dir.0)
        .env("STRATEGO_HOST", host_bin())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sbatch: {} {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let shards: Vec<String> = (1..=3).map(|i| results.join(format!("shard-{i}")).display().to_string()).collect();
    let merged = Command::new(host_bin()).arg("merge").args(&shards).arg("--json").output().unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", String::from_utf8_lossy(&merged.stderr));
    let single = Command::new(host_bin())
        .args(["tournament", config.to_str().unwrap(), "-q", "--json", "--out"])
        .arg(dir.join("single"))
        .output()
        .unwrap();
    assert_eq!(comparable(&merged), comparable(&single));
}

/// JSON text without the whitespace outside its strings: serde_json's compact form of what
/// it wrote pretty.
fn minify(text: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// The text of the JSON object that starts at `start` of the compact `text`.
fn object_at(text: &str, start: usize) -> &str {
    let (mut depth, mut in_string, mut escaped) = (0, false, false);
    for (i, c) in text[start..].char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[start..start + i + 1];
                }
            }
            _ => {}
        }
    }
    panic!("no object at {start}")
}

/// `dir/manifest.json` rewritten as a host before `same_program_groups` wrote it: the bots
/// that are one program as pairs, and the plan hash (FNV-1a 64 of the plan's compact JSON)
/// of that form.
fn write_older_manifest(dir: &std::path::Path, groups: &str, pairs: &str) {
    let text = minify(&std::fs::read_to_string(dir.join("manifest.json")).unwrap());
    let new_form = format!("\"same_program\":[],\"same_program_groups\":{groups}");
    assert!(text.contains(&new_form), "{text}");
    let text = text.replacen(&new_form, &format!("\"same_program\":{pairs}"), 1);
    let at = text.find("\"plan\":{").unwrap() + "\"plan\":".len();
    let plan = object_at(&text, at);
    let hash = plan.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let old: serde_json::Value = serde_json::from_str(&text).unwrap();
    let stored = old["plan_hash"].as_str().unwrap().to_owned();
    let text = text.replacen(&format!("\"plan_hash\":\"{stored}\""), &format!("\"plan_hash\":\"{hash:016x}\""), 1);
    std::fs::write(dir.join("manifest.json"), text).unwrap();
}

#[test]
fn a_manifest_of_an_older_host_with_same_program_pairs_is_resumed_and_merged() {
    let tmp = TempDir::new("resume-older-manifest");
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    // Three copies of one program: the manifest names them as one group, where an older
    // host listed their three pairs.
    let mut args: Vec<String> =
        ["tournament", "--bot", "sample-bot", "--bot", "sample-bot", "--bot", "sample-bot"].map(str::to_owned).to_vec();
    args.extend(["--games", "2", "--seed", "3", "-q", "--json"].map(str::to_owned));
    args.extend(CALM_CLOCK.map(str::to_owned));
    let shard = |n: &str, dir: &std::path::Path| run(&args, &["--shard", n, "--out", dir.to_str().unwrap()]);
    let out = shard("1/2", &a);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let games_a = read_records(&a.join("games.jsonl")).unwrap().len();
    assert_eq!(games_a, 4, "pairs 0 and 2 of three");
    let manifest = std::fs::read_to_string(a.join("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    assert_eq!(m["plan"]["event"]["same_program_groups"], serde_json::json!([[0, 1, 2]]), "{manifest}");
    assert_eq!(m["plan"]["event"]["same_program"], serde_json::json!([]));
    write_older_manifest(&a, "[[0,1,2]]", "[[0,1],[0,2],[1,2]]");
    // merge reads it beside a manifest of this host.
    let out = shard("2/2", &b);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let merged = Command::new(host_bin()).args(["merge", "--json"]).arg(&a).arg(&b).output().unwrap();
    let err = String::from_utf8_lossy(&merged.stderr);
    assert_eq!(merged.status.code(), Some(0), "{err}");
    assert!(err.contains("6 of 6 planned games"), "{err}");
    // Resume reads it: the same command finds its games and plays none again; the manifest
    // is then written in this host's form.
    let out = shard("1/2", &a);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("resuming") && err.contains("4 games already finished"), "{err}");
    assert_eq!(read_records(&a.join("games.jsonl")).unwrap().len(), games_a);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["plan"]["event"]["same_program_groups"], serde_json::json!([[0, 1, 2]]));
    // Another plan is still refused against the older form, naming what differs.
    write_older_manifest(&a, "[[0,1,2]]", "[[0,1],[0,2],[1,2]]");
    let seed = args.iter().position(|a| a == "--seed").unwrap() + 1;
    let mut other_args = args.clone();
    other_args[seed] = "4".to_owned();
    let other = run(&other_args, &["--shard", "1/2", "--out", a.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&other.stderr);
    assert_eq!(other.status.code(), Some(2), "{err}");
    assert!(err.contains("holds another plan") && err.contains("event.seed"), "{err}");
}
