//! `--sandbox`: a hostile bot (tests/src/bin/hostile-bot.rs) that plays legal moves but
//! first tries to read the records, the opponent's program and command line, list
//! processes, reach a TCP listener of the test, fill its disk, fork 10,000 processes, write
//! outside its directory, read root's files and the host's environment, and leave a process
//! behind. Each attempt is made with real bwrap through the real host binary: in the
//! sandbox every one fails and the game still ends by the rules; without the sandbox the
//! same bot succeeds (so these tests can fail).

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use stratego_tests::{TempDir, bin, host_bin, records};

/// Each attempt's outcomes (an attempt may be made more than once: `write`), from the
/// hostile bot's stderr in the record: true when it managed.
type Attempts = BTreeMap<String, Vec<(bool, String)>>;

fn attempts(tail: &str) -> Attempts {
    let mut out = Attempts::new();
    for line in tail.lines() {
        let Some(rest) = line.strip_prefix("HOSTILE ") else { continue };
        let Some((name, what)) = rest.split_once(": ") else { continue };
        let managed = what.starts_with("MANAGED");
        out.entry(name.to_owned()).or_default().push((managed, what.to_owned()));
    }
    out
}

fn managed(a: &Attempts, name: &str) -> bool {
    let outcomes = a.get(name).unwrap_or_else(|| panic!("attempt {name} was not made: {a:#?}"));
    outcomes.iter().all(|(m, _)| *m)
}

fn blocked(a: &Attempts, name: &str) -> bool {
    let outcomes = a.get(name).unwrap_or_else(|| panic!("attempt {name} was not made: {a:#?}"));
    outcomes.iter().all(|(m, _)| !*m)
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Live processes whose command line is exactly `sleep MARK`.
fn lingering(mark: &str) -> Vec<String> {
    let want = format!("sleep\0{mark}\0");
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.parse::<u32>().is_err() {
            continue;
        }
        if std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == want.as_bytes()) {
            out.push(name);
        }
    }
    out
}

/// Connections waiting on a non-blocking listener.
fn accepted(listener: &TcpListener) -> usize {
    let mut n = 0;
    loop {
        match listener.accept() {
            Ok(_) => n += 1,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return n,
            Err(e) => panic!("accept: {e}"),
        }
    }
}

/// A unique `sleep` argument for this test.
fn mark(salt: u32) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("{}.{:09}", 7000 + salt, nanos)
}

struct Arena {
    tmp: TempDir,
    listener: TcpListener,
    mark: String,
}

struct Run {
    out: Output,
    stderr: String,
    record: Value,
    attempts: Attempts,
}

impl Arena {
    /// A hostile bot's own directory (`arena`), the records inside it (`arena/results`, the
    /// worst case: the sandbox must mask them), a directory outside (`outside`), a TCP
    /// listener on 127.0.0.1.
    fn new(name: &str) -> Arena {
        let tmp = TempDir::new(name);
        std::fs::create_dir_all(tmp.join("arena")).unwrap();
        std::fs::create_dir_all(tmp.join("outside")).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        Arena { tmp, listener, mark: mark(std::process::id() % 1000) }
    }

    /// The hostile bot's spec, with these attempts' sizes.
    fn hostile(&self, forks: u32, disk: u64, extra_env: &[(&str, &str)]) -> String {
        let port = self.listener.local_addr().unwrap().port();
        let mut env = json!({
            "HOSTILE_RECORDS": self.tmp.join("arena/results/manifest.json"),
            "HOSTILE_OPPONENT_EXE": bin("misbehaving-bot"),
            "HOSTILE_OPPONENT_PIDFILE": self.tmp.join("arena/opponent.pid"),
            "HOSTILE_TCP": format!("127.0.0.1:{port}"),
            "HOSTILE_DISK_BYTES": disk.to_string(),
            "HOSTILE_FORKS": forks.to_string(),
            "HOSTILE_WRITE": format!("{}:{}", self.tmp.join("outside/pwned").display(), self.tmp.join("arena/pwned").display()),
            "HOSTILE_SECRET": "HOST_SECRET_TOKEN",
            "HOSTILE_LINGER": self.mark,
        });
        for (k, v) in extra_env {
            env[*k] = json!(v);
        }
        json!({"command": [bin("hostile-bot")], "dir": self.tmp.join("arena"), "env": env}).to_string()
    }

    /// The opponent: the misbehaving bot playing normally, outside the sandbox (so that it
    /// can write its pid where the hostile bot looks for it).
    fn opponent(&self) -> String {
        let pidfile = self.tmp.join("arena/opponent.pid");
        json!({"command": [bin("misbehaving-bot"), "--pidfile", pidfile], "sandbox": false}).to_string()
    }

    /// One game of the hostile bot (Red) against the opponent, with `flags`.
    fn play(&self, hostile: &str, flags: &[&str]) -> Run {
        let _ = std::fs::remove_dir_all(self.tmp.join("arena/results"));
        let _ = std::fs::remove_file(self.tmp.join("arena/opponent.pid"));
        let out_dir = self.tmp.join("arena/results");
        let out = Command::new(host_bin())
            .arg("match")
            .args([hostile, &self.opponent(), "--games", "1", "--seed", "3", "--out"])
            .arg(&out_dir)
            .args(flags)
            .env("HOST_SECRET_TOKEN", "hunter2")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "the match ran: {stderr}");
        let record = records(&out_dir).remove(0);
        let tail = record["bots"]["red"]["stderr_tail"].as_str().unwrap().to_owned();
        assert!(tail.contains("HOSTILE done"), "the hostile bot made every attempt:\n{tail}\n{stderr}");
        Run { out, stderr, attempts: attempts(&tail), record }
    }
}

/// The game ended by the rules, with no fault.
fn assert_rule_ending(run: &Run) {
    let result = &run.record["result"];
    assert!(result["faulty"].is_null(), "no fault: {result}");
    let reason = result["reason"].as_str().unwrap();
    assert!(["flag_captured", "no_moves", "ply_limit", "no_movable_pieces"].contains(&reason), "{result}");
}

#[test]
fn in_the_sandbox_a_hostile_bot_manages_nothing_and_without_it_everything() {
    let arena = Arena::new("sandbox-hostile");
    let outside = arena.tmp.join("outside/pwned");
    let own = arena.tmp.join("arena/pwned");

    // The fork bomb runs only where a process limit is in force.
    let limit = stratego_host::sandbox::process_limit();
    let forks = if limit.is_ok() { 10_000 } else { 200 };
    let run = arena.play(
        &arena.hostile(forks, 1 << 30, &[]),
        &["--sandbox", "--bot-pids", "64", "--bot-disk", "16M", "--bot-memory", "512M"],
    );
    let a = &run.attempts;
    assert!(run.stderr.contains("stratego-host: sandbox for hostile-bot: "), "{}", run.stderr);
    assert!(run.stderr.contains("processes and threads 64 ("), "{}", run.stderr);
    for name in ["records", "opponent-exe", "opponent-cmdline", "processes", "tcp", "disk", "write", "shadow", "secret"]
    {
        assert!(blocked(a, name), "{name} must fail in the sandbox: {:?}", a[name]);
    }
    assert!(blocked(a, "fork"), "the fork bomb must be stopped ({limit:?}): {:?}", a["fork"]);
    let fork = &a["fork"][0].1;
    let forked: u32 = fork.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(forked < 64, "at most 64 processes and threads: {fork}");
    assert!(a["disk"][0].1.contains("wrote 16777216 of 1073741824 bytes"), "{:?}", a["disk"]);
    assert!(!outside.exists() && !own.exists(), "nothing written outside its /tmp");
    assert_eq!(accepted(&arena.listener), 0, "no connection reached the listener");
    assert!(lingering(&arena.mark).is_empty(), "nothing it started outlives the game");
    assert_rule_ending(&run);

    // The same bot, not sandboxed (a small fork and a small file).
    let run = arena.play(&arena.hostile(20, 32 << 20, &[]), &[]);
    let a = &run.attempts;
    for name in ["records", "opponent-exe", "opponent-cmdline", "processes", "tcp", "disk", "fork", "write", "secret"] {
        assert!(managed(a, name), "{name} succeeds without the sandbox: {:?}", a[name]);
    }
    assert_eq!(managed(a, "shadow"), is_root(), "/etc/shadow is readable by root only: {:?}", a["shadow"]);
    assert!(a["secret"][0].1.contains("hunter2"));
    assert!(outside.exists() && own.exists(), "it wrote outside its directory and into it");
    assert_eq!(accepted(&arena.listener), 1, "its connection reached the listener");
    assert!(lingering(&arena.mark).is_empty(), "the host killed what it left behind");
    assert_rule_ending(&run);
    assert!(!run.stderr.contains("sandbox for"), "{}", run.stderr);
    drop(run.out);
}

#[test]
fn sandbox_net_keeps_the_network_and_nothing_else() {
    let arena = Arena::new("sandbox-net");
    let run = arena.play(&arena.hostile(10, 1 << 20, &[]), &["--sandbox", "--sandbox-net"]);
    let a = &run.attempts;
    assert!(managed(a, "tcp"), "{:?}", a["tcp"]);
    assert_eq!(accepted(&arena.listener), 1);
    for name in ["records", "opponent-exe", "opponent-cmdline", "processes", "write", "shadow", "secret"] {
        assert!(blocked(a, name), "{name}: {:?}", a[name]);
    }
    assert!(run.stderr.contains("network shared with the host (--sandbox-net)"), "{}", run.stderr);
    assert_rule_ending(&run);
}

#[test]
fn a_sandboxed_bot_over_its_memory_limit_loses_with_a_memory_fault() {
    let arena = Arena::new("sandbox-oom");
    let hostile = arena.hostile(1, 1, &[("HOSTILE_OOM", "1")]);
    let run = arena.play(&hostile, &["--sandbox", "--bot-memory", "128M", "--move-time", "10"]);
    let result = &run.record["result"];
    assert_eq!(result["faulty"], "red", "{result}");
    assert_eq!(result["reason"], "memory_limit", "{result}");
    assert!(result["message"].as_str().unwrap().contains("128 MiB"), "{result}");
}

#[test]
fn a_sandboxed_bot_over_its_cpu_limit_loses_with_a_cpu_fault() {
    let tmp = TempDir::new("sandbox-cpu");
    let burner = format!("{} --misbehave burn-cpu --at 1", bin("misbehaving-bot").display());
    let out = Command::new(host_bin())
        .arg("match")
        .args([burner.as_str(), "sample-bot --strategy random", "--games", "1", "--sandbox", "--bot-cpu", "1"])
        .args(["--move-time", "10", "--out"])
        .arg(tmp.join("out"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = records(&tmp.join("out")).remove(0);
    assert_eq!(r["result"]["faulty"], "red", "{}", r["result"]);
    assert_eq!(r["result"]["reason"], "cpu_limit", "{}", r["result"]);
    assert!(r["result"]["message"].as_str().unwrap().contains("SIGXCPU"), "{}", r["result"]);
}

#[test]
fn a_python_bot_found_through_pyenv_shims_on_path_plays_in_the_sandbox() {
    let tmp = TempDir::new("sandbox-python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python/bot.py");
    let python = format!("python3 {}", script.canonicalize().unwrap().display());
    let out = Command::new(host_bin())
        .arg("match")
        .args([python.as_str(), "sample-bot --strategy random", "--games", "1", "--sandbox", "--out"])
        .arg(tmp.join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let r = records(&tmp.join("out")).remove(0);
    assert!(r["result"]["faulty"].is_null(), "{}", r["result"]);
    assert!(stderr.contains("sandbox for bot: ") && stderr.contains("sandbox for sample-bot-random: "), "{stderr}");
}

#[test]
fn a_missing_bwrap_or_user_namespaces_stop_the_run_with_the_fix() {
    let bot = bin("misbehaving-bot").display().to_string();
    let out = Command::new(host_bin())
        .args(["match", &bot, &bot, "--games", "1", "--sandbox"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("`bwrap` is not on PATH") && stderr.contains("apt-get install bubblewrap"), "{stderr}");

    // The host inside a user namespace that may not create more (bwrap --disable-userns).
    let out = Command::new("bwrap")
        .args(["--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--"])
        .arg(host_bin())
        .args(["match", &bot, &bot, "--games", "1", "--sandbox"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("cannot create the sandbox's namespaces"), "{stderr}");
    assert!(stderr.contains("user namespaces") && stderr.contains("sysctl -w user.max_user_namespaces"), "{stderr}");
}

#[test]
fn sandbox_keys_without_the_sandbox_are_refused() {
    let bot = bin("misbehaving-bot").display().to_string();
    let out = Command::new(host_bin()).args(["match", &bot, &bot, "--bot-pids", "10"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bot-pids: only with --sandbox"));
    let spec = json!({"command": [bot], "disk": "1M"}).to_string();
    let out = Command::new(host_bin()).args(["match", &spec, &bot]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("disk only apply in the sandbox"), "{stderr}");
}

/// As an ordinary user (here `nobody` when the tests run as root): no cgroup to create, so
/// the process limit is RLIMIT_NPROC in the sandbox's user namespace, and the memory limit
/// an address-space rlimit; the start-up line says so.
#[test]
fn as_an_ordinary_user_the_sandbox_works_with_rlimits() {
    use std::os::unix::fs::PermissionsExt;
    let arena = Arena::new("sandbox-user");
    for d in [arena.tmp.0.clone(), arena.tmp.join("arena"), arena.tmp.join("outside")] {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let hostile = arena.hostile(500, 8 << 20, &[]);
    let out_dir = arena.tmp.join("arena/results");
    let mut cmd = if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(host_bin());
        c
    } else {
        Command::new(host_bin())
    };
    let out = cmd
        .current_dir(&arena.tmp.0)
        .args(["match", &hostile, "sample-bot --strategy random", "--games", "1", "--sandbox", "--bot-pids", "32"])
        .args(["--bot-memory", "1G", "--bot-disk", "4M", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let r = records(&out_dir).remove(0);
    let a = attempts(r["bots"]["red"]["stderr_tail"].as_str().unwrap());
    // (Its opponent is the built-in sample bot: the host's own program, no secret.)
    for name in ["records", "processes", "tcp", "disk", "fork", "write", "shadow"] {
        assert!(blocked(&a, name), "{name}: {:?}", a[name]);
    }
    assert!(r["result"]["faulty"].is_null(), "{}", r["result"]);
    if is_root() {
        assert!(
            stderr.contains("processes and threads 32 (RLIMIT_NPROC in its user namespace, no pids cgroup)"),
            "{stderr}"
        );
        assert!(stderr.contains("memory 1024 MiB (RLIMIT_AS per process, no memory cgroup)"), "{stderr}");
    }
    assert!(lingering(&arena.mark).is_empty());
}
