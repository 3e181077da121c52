//! A test bot that plays random legal moves but first tries to cheat and to harm the
//! machine, for the sandbox's tests (`tests/tests/sandbox.rs`).
//!
//! At its first setup request (both bots have started by then) it makes every attempt its
//! environment names and writes one line per attempt to stderr:
//! `HOSTILE <attempt>: MANAGED <what>` or `HOSTILE <attempt>: blocked <why>`, then
//! `HOSTILE done`. Then it plays.
//!
//! - `HOSTILE_RECORDS=FILE`: read a file of the host's records directory;
//! - `HOSTILE_OPPONENT_EXE=FILE`: read the opponent's executable;
//! - `HOSTILE_OPPONENT_PIDFILE=FILE`: read the opponent's pid from FILE (retrying for a
//!   second), then `/proc/PID/cmdline`;
//! - always: list processes (`/proc`), managed when it sees the host (`stratego-host`);
//! - `HOSTILE_TCP=HOST:PORT`: open a TCP connection;
//! - `HOSTILE_DISK_BYTES=N` (default 1 GiB): write N bytes to `$TMPDIR` (or /tmp);
//! - `HOSTILE_FORKS=N` (default 10,000): fork N processes that wait, then let them go;
//! - `HOSTILE_WRITE=FILE[:FILE…]`: create each file (outside its directory, in it);
//! - always: read `/etc/shadow` (managed only by a root that is not sandboxed);
//! - `HOSTILE_SECRET=NAME`: whether the host's environment variable NAME is visible;
//! - `HOSTILE_LINGER=MARK`: leave `sleep MARK` behind, in a new session (double fork);
//! - `HOSTILE_OOM=1`: at its first turn, allocate memory until something stops it.

use std::io::Write;
use std::time::Duration;

use stratego_protocol::bot::{self, Action, Bot, Game};
use stratego_protocol::{Ready, SetupRequest, Turn};

fn report(attempt: &str, managed: bool, what: &str) {
    let verdict = if managed { "MANAGED" } else { "blocked" };
    eprintln!("HOSTILE {attempt}: {verdict} {what}");
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn read_file(attempt: &str, path: &str) {
    match std::fs::read(path) {
        Ok(bytes) if !bytes.is_empty() => report(attempt, true, &format!("read {} bytes of {path}", bytes.len())),
        Ok(_) => report(attempt, false, &format!("{path} reads as empty")),
        Err(e) => report(attempt, false, &format!("{path}: {e}")),
    }
}

fn opponent_cmdline(pidfile: &str) {
    // The file holds a pid per start of the opponent (the host's pre-flight start first):
    // the last one, once it is a live process (in a sandbox none ever is).
    let mut pid = None;
    for _ in 0..100 {
        if let Some(p) =
            std::fs::read_to_string(pidfile).ok().and_then(|t| t.lines().last()?.trim().parse::<u32>().ok())
        {
            pid = Some(p);
            if std::path::Path::new(&format!("/proc/{p}")).exists() {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let Some(pid) = pid else {
        report("opponent-cmdline", false, &format!("no pid in {pidfile}"));
        return;
    };
    match std::fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(bytes) if !bytes.is_empty() => {
            let text = String::from_utf8_lossy(&bytes).replace('\0', " ");
            report("opponent-cmdline", true, &format!("pid {pid}: {}", text.trim()));
        }
        Ok(_) => report("opponent-cmdline", false, &format!("/proc/{pid}/cmdline is empty")),
        Err(e) => report("opponent-cmdline", false, &format!("/proc/{pid}/cmdline: {e}")),
    }
}

fn list_processes() {
    let me = std::process::id();
    let mut seen = 0;
    let mut host = None;
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
            seen += 1;
            if pid == me {
                continue;
            }
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains("stratego-host") && cmd.contains(" match") {
                host = Some(format!("pid {pid}: {}", cmd.trim()));
            }
        }
    }
    match host {
        Some(h) => report("processes", true, &format!("{seen} processes, the host among them ({h})")),
        None => report("processes", false, &format!("{seen} processes, not the host")),
    }
}

fn tcp(addr: &str) {
    let Ok(sock) = addr.parse::<std::net::SocketAddr>() else {
        report("tcp", false, &format!("bad address {addr}"));
        return;
    };
    match std::net::TcpStream::connect_timeout(&sock, Duration::from_secs(1)) {
        Ok(mut s) => {
            let _ = s.write_all(b"hostile-bot was here\n");
            report("tcp", true, &format!("connected to {addr}"));
        }
        Err(e) => report("tcp", false, &format!("{addr}: {e}")),
    }
}

fn fill_disk(bytes: u64) {
    let dir = std::env::var("TMPDIR").unwrap_or_else(|_| "/tmp".into());
    let path = format!("{dir}/hostile-fill-{}", std::process::id());
    let mut written = 0u64;
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&path)?;
        let chunk = vec![0x5au8; 1 << 20];
        while written < bytes {
            let n = chunk.len().min((bytes - written) as usize);
            f.write_all(&chunk[..n])?;
            written += n as u64;
        }
        f.sync_all()
    })();
    let _ = std::fs::remove_file(&path);
    match result {
        Ok(()) => report("disk", true, &format!("wrote {written} bytes to {dir}")),
        Err(e) => report("disk", false, &format!("wrote {written} of {bytes} bytes to {dir}: {e}")),
    }
}

fn fork_many(n: u32) {
    let mut fds = [0i32; 2];
    // SAFETY: pipe writes two descriptors into the array.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        report("fork", false, "no pipe");
        return;
    }
    let mut children = Vec::new();
    let mut error = None;
    for _ in 0..n {
        // SAFETY: the child only calls async-signal-safe functions (close, read, _exit).
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: as above; the child waits until the parent closes the pipe.
            unsafe {
                libc::close(fds[1]);
                let mut b = 0u8;
                libc::read(fds[0], (&mut b as *mut u8).cast(), 1);
                libc::_exit(0);
            }
        }
        if pid < 0 {
            error = Some(std::io::Error::last_os_error());
            break;
        }
        children.push(pid);
    }
    let forked = children.len();
    // SAFETY: closing our descriptors lets the children go; then reap them.
    unsafe {
        libc::close(fds[1]);
        libc::close(fds[0]);
        for pid in children {
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
    match error {
        None => report("fork", true, &format!("forked {forked} processes")),
        Some(e) => report("fork", false, &format!("forked {forked} of {n} processes: {e}")),
    }
}

fn write_files(list: &str) {
    for path in list.split(':').filter(|p| !p.is_empty()) {
        match std::fs::File::create(path).and_then(|mut f| f.write_all(b"pwned\n")) {
            Ok(()) => report("write", true, &format!("created {path}")),
            Err(e) => report("write", false, &format!("{path}: {e}")),
        }
    }
}

fn linger(mark: &str) {
    // setsid(1) in a child of our own: a grandchild in a new session, re-parented away
    // from us as soon as the child exits.
    let spawned = std::process::Command::new("setsid")
        .args(["-f", "sleep", mark])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    match spawned {
        Ok(s) if s.success() => report("linger", true, &format!("left `sleep {mark}` behind in a new session")),
        Ok(s) => report("linger", false, &format!("setsid: {s}")),
        Err(e) => report("linger", false, &format!("setsid: {e}")),
    }
}

fn attack() {
    if let Some(p) = env("HOSTILE_RECORDS") {
        read_file("records", &p);
    }
    if let Some(p) = env("HOSTILE_OPPONENT_EXE") {
        read_file("opponent-exe", &p);
    }
    if let Some(p) = env("HOSTILE_OPPONENT_PIDFILE") {
        opponent_cmdline(&p);
    }
    list_processes();
    if let Some(a) = env("HOSTILE_TCP") {
        tcp(&a);
    }
    fill_disk(env("HOSTILE_DISK_BYTES").and_then(|v| v.parse().ok()).unwrap_or(1 << 30));
    fork_many(env("HOSTILE_FORKS").and_then(|v| v.parse().ok()).unwrap_or(10_000));
    if let Some(list) = env("HOSTILE_WRITE") {
        write_files(&list);
    }
    read_file("shadow", "/etc/shadow");
    if let Some(name) = env("HOSTILE_SECRET") {
        match std::env::var(&name) {
            Ok(v) => report("secret", true, &format!("{name}={v}")),
            Err(_) => report("secret", false, &format!("{name} is not set")),
        }
    }
    if let Some(mark) = env("HOSTILE_LINGER") {
        linger(&mark);
    }
    eprintln!("HOSTILE done");
}

struct Hostile {
    attacked: bool,
    oom: bool,
}

impl Bot for Hostile {
    fn ready(&self) -> Ready {
        Ready { name: "hostile-bot".into(), ..Ready::default() }
    }

    fn setup(&mut self, game: &mut Game, _request: &SetupRequest) -> String {
        if !self.attacked {
            self.attacked = true;
            attack();
        }
        bot::random_setup(game)
    }

    fn turn(&mut self, game: &mut Game, turn: &Turn) -> Action {
        if self.oom {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                let mut v = vec![0u8; 32 << 20];
                for i in (0..v.len()).step_by(4096) {
                    v[i] = 1;
                }
                hoard.push(v);
                std::hint::black_box(&hoard);
            }
        }
        Action::Move(*game.rng.choose(&turn.legal_moves).expect("a turn has legal moves"))
    }
}

fn main() -> std::io::Result<()> {
    bot::run(Hostile { attacked: false, oom: env("HOSTILE_OOM").is_some() })
}
