//! A test bot that plays random legal moves and misbehaves on purpose.
//!
//! `misbehaving-bot [--misbehave KIND] [--at N] [--log FILE] [--pidfile FILE]`
//!
//! KIND (at its N-th turn, default 3, unless the kind is about startup or setup):
//! none, startup-timeout, setup-timeout, move-timeout, illegal-move, unparsable-move,
//! invalid-setup, malformed-json, malformed-message, line-too-long, invalid-utf8,
//! unexpected-message, unknown-type, exit-1, sigsegv, close-stdout, resign, grandchild,
//! huge-line (a 1 GB line), endless-line (bytes forever, no newline), garbage (random
//! bytes), wrong-shape (valid JSON, wrong field types), flood (10,000 info lines per turn,
//! then a move), late-1ms (answers 1 ms after the turn's deadline), just-in-time (answers
//! 2 ms before it), close-stdin, setsid-escape (a grandchild in a new session, then an
//! illegal move), ignore-sigterm (ignores SIGTERM and `quit`), stderr-flood (200 MB to
//! stderr, then plays on), alloc (allocates without limit), burn-cpu (spins forever),
//! buffer-after-ready (flushes `ready`, then writes its setup into a buffer it never
//! flushes), double-move (answers its N-th turn twice, both moves echoing the turn's ply),
//! quit-stderr-flood (says `multi_game`, and on `quit` writes 2 MiB to stderr before it
//! exits).
//!
//! `--idle-thread` starts a second thread that only sleeps (a multi-threaded process, as
//! far as the host's stall credit can tell); `--idle-thread-at N` starts it at its N-th turn.
//! `--read-on-thread` reads and thinks on a second thread while the main thread waits for it.
//! `--helper-cpu-ms X` starts a second thread that idles until, from its `--helper-at N`-th
//! turn on (default 1), the main thread has it spin X ms of CPU at each turn (and waits for
//! it) before its own thinking: a bot whose other threads compute.
//!
//! `--stderr-at TEXT` writes TEXT to stderr at its N-th turn, just before it misbehaves
//! (`|` separates lines): a log, or a program's last words.
//!
//! `--log FILE` appends every line received; `--pidfile FILE` appends its pid (and the
//! grandchild's) one per line. `--think-ms X` busy-waits X ms (fractions allowed) from the
//! moment a turn's line has been read to the write of its move, and `--times FILE` appends
//! that measured time in microseconds, one line per move (for the clock benchmarks).
//! `--think-cpu-ms X` instead spins until it has used X ms of CPU time since the read,
//! like a bot that computes: time the machine takes from it makes it answer later.
//! `--read-delay-ms X` (with `--think-ms`): after each move, waits until the next message
//! is in its stdin pipe, then sleeps X ms before reading it, like a bot the scheduler wakes
//! late. `--single-threaded` says so in `ready` (the host may then put both bots on one
//! CPU); `--report-cpus` writes `cpus: LIST` (its allowed CPUs) to stderr at each turn
//! where they changed; `--ponder-ms X` spins X ms after each move, as a bot that thinks on
//! its opponent's time.
//!
//! `--view-moves` asks for `"view": "moves"` and keeps its own board: its own pieces' squares
//! from its setup (or `setup_request.fixed`), the opponent's from `opponent_squares` (which
//! must come in the first turn after each `hello`, and only then), both moved by every ply.
//! At each turn it checks that it has heard of every ply exactly once (`ply`) and that
//! every legal move starts on a square of its own and does not end on one; if not, it says
//! what is wrong on stderr and exits with status 3 (the host records a crash). A remote
//! bot's state after a reconnection is checked by it. `--one-game` exits right after
//! `game_over` (without waiting for `quit`), and exits with status 4 at a second `hello`
//! after a `game_over`: a bot that plays one game a process.

use std::io::{BufRead, Write};

use stratego_protocol::{HostMessage, Rng};
use stratego_rules::{Deployment, Ruleset};

fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// CPU time used by the calling thread.
fn thread_cpu_time() -> std::time::Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn hang() -> ! {
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}

/// Appends one line with a single write: the pid and time files are shared by both bots
/// of a game, and two processes' `writeln!` (number, then newline) can interleave.
fn append_line(f: &mut std::fs::File, line: &str) {
    f.write_all(format!("{line}\n").as_bytes()).expect("append a line");
}

/// Pids of processes whose parent is `pid` (setsid(1) may fork once more).
fn children_of(pid: u32) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(p) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { continue };
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        if rest.split_whitespace().nth(1).and_then(|x| x.parse::<u32>().ok()) == Some(pid) {
            out.push(p);
        }
    }
    out
}

fn main() {
    if std::env::args().any(|a| a == "--read-on-thread") {
        // The main thread only waits: another thread reads the turns and thinks.
        let _ = std::thread::spawn(play).join();
    } else {
        play();
    }
}

fn play() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let has = |name: &str| args.iter().any(|a| a == name);
    let kind = opt("--misbehave").unwrap_or_else(|| "none".into());
    let at: u32 = opt("--at").and_then(|s| s.parse().ok()).unwrap_or(3);
    let mut log =
        opt("--log").map(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).expect("log file"));
    if let Some(p) = opt("--pidfile") {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(p).expect("pid file");
        append_line(&mut f, &std::process::id().to_string());
    }
    if has("--idle-thread") {
        // A second thread that only sleeps: the process is no longer single-threaded.
        std::thread::spawn(hang);
    }
    let mut rng = Rng::new(0);
    let mut rules = Ruleset::classic();
    let mut color = stratego_rules::Color::Red;
    let mut turns = 0u32;
    let view_moves = has("--view-moves");
    let one_game = has("--one-game");
    let mut board = OwnBoard::default();
    let idle_thread_at = opt("--idle-thread-at").and_then(|s| s.parse::<u32>().ok());
    let helper_at: u32 = opt("--helper-at").and_then(|s| s.parse().ok()).unwrap_or(1);
    let helper = opt("--helper-cpu-ms").and_then(|s| s.parse::<f64>().ok()).map(|ms| {
        let work = std::time::Duration::from_secs_f64(ms / 1000.0);
        let (ask, jobs) = std::sync::mpsc::channel::<()>();
        let (done, finished) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            for () in jobs {
                let start = thread_cpu_time();
                while thread_cpu_time() - start < work {
                    std::hint::spin_loop();
                }
                let _ = done.send(());
            }
        });
        (ask, finished)
    });
    let think =
        opt("--think-ms").and_then(|s| s.parse::<f64>().ok()).map(|ms| std::time::Duration::from_secs_f64(ms / 1000.0));
    let think_cpu = opt("--think-cpu-ms")
        .and_then(|s| s.parse::<f64>().ok())
        .map(|ms| std::time::Duration::from_secs_f64(ms / 1000.0));
    let on_cpu = think_cpu.is_some();
    let think = think.or(think_cpu);
    let read_delay = opt("--read-delay-ms")
        .and_then(|s| s.parse::<f64>().ok())
        .map(|ms| std::time::Duration::from_secs_f64(ms / 1000.0));
    let mut times =
        opt("--times").map(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).expect("times file"));
    let ponder = opt("--ponder-ms").and_then(|s| s.parse::<u64>().ok()).map(std::time::Duration::from_millis);
    let mut cpus_seen = String::new();
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let read_at = std::time::Instant::now();
        if let Some(f) = log.as_mut() {
            append_line(f, &line);
        }
        let msg: HostMessage = serde_json::from_str(&line).expect("the host sends valid messages");
        if kind == "ignore-sigterm" {
            // SAFETY: ignoring a signal in our own process.
            unsafe {
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
            }
        }
        match msg {
            HostMessage::Hello(h) => {
                if kind == "startup-timeout" {
                    hang();
                }
                if one_game && board.game_over {
                    eprintln!("misbehaving-bot --one-game: a second game's hello in one process");
                    std::process::exit(4);
                }
                board = OwnBoard::default();
                rng = Rng::new(h.seed);
                rules = Ruleset::try_from(h.ruleset).unwrap();
                color = h.color;
                if kind == "quit-stderr-flood" {
                    send(r#"{"type":"ready","name":"misbehaving-bot","multi_game":true}"#);
                } else if view_moves {
                    send(r#"{"type":"ready","name":"misbehaving-bot","view":"moves"}"#);
                } else if has("--single-threaded") {
                    send(r#"{"type":"ready","name":"misbehaving-bot","single_threaded":true}"#);
                } else {
                    send(r#"{"type":"ready","name":"misbehaving-bot","future_field":{"x":1}}"#);
                }
            }
            HostMessage::SetupRequest(r) => match kind.as_str() {
                "setup-timeout" => hang(),
                "buffer-after-ready" => {
                    // A bot that forgot to flush: its answer stays in its own buffer.
                    let d = Deployment::random(&rules, color, &mut || rng.next_u64());
                    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
                    let _ = writeln!(out, r#"{{"type":"setup","deployment":"{}"}}"#, d.to_rows(&rules));
                    std::mem::forget(out);
                    hang()
                }
                "invalid-setup" => {
                    send(r#"{"type":"setup","deployment":"BBBBBBBBB2/2222222333/3344445555/666677789X"}"#)
                }
                _ => {
                    let d = match &r.fixed {
                        Some(rows) => Deployment::parse(&rules, color, rows).expect("a valid fixed setup"),
                        None => Deployment::random(&rules, color, &mut || rng.next_u64()),
                    };
                    board.own = d.pieces().iter().map(|&(sq, _)| sq).collect();
                    send(&format!(r#"{{"type":"setup","deployment":"{}"}}"#, d.to_rows(&rules)));
                }
            },
            HostMessage::Turn(t) => {
                turns += 1;
                if view_moves {
                    if let Err(e) = board.follow(&t) {
                        eprintln!("misbehaving-bot --view-moves: my board is wrong at ply {}: {e}", t.ply);
                        std::process::exit(3);
                    }
                }
                if idle_thread_at == Some(turns) {
                    std::thread::spawn(hang);
                }
                if let Some((ask, finished)) = helper.as_ref().filter(|_| turns >= helper_at) {
                    let _ = ask.send(());
                    let _ = finished.recv();
                }
                if has("--report-cpus") {
                    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
                    let now = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap_or("?").trim();
                    if now != cpus_seen {
                        eprintln!("cpus: {now}");
                        now.clone_into(&mut cpus_seen);
                    }
                }
                if turns == at {
                    if let Some(text) = opt("--stderr-at") {
                        // Last words before misbehaving: `|` separates lines.
                        let mut err = std::io::stderr().lock();
                        for line in text.split('|') {
                            let _ = writeln!(err, "{line}");
                        }
                        let _ = err.flush();
                    }
                    match kind.as_str() {
                        "move-timeout" => hang(),
                        "illegal-move" => {
                            // Move a piece of the opponent's: always illegal.
                            let p = t.pieces.iter().find(|p| p.color != t.color).unwrap();
                            send(&format!(r#"{{"type":"move","move":"{}-{}"}}"#, p.square, p.square));
                            hang();
                        }
                        "unparsable-move" => send(r#"{"type":"move","move":"e4e5"}"#),
                        "malformed-json" => send("{\"type\": \"move\", oops"),
                        "malformed-message" => send(r#"{"type":"move","mv":"e4-e5"}"#),
                        "line-too-long" => send(&format!(r#"{{"type":"info","text":"{}"}}"#, "x".repeat(2 << 20))),
                        "invalid-utf8" => {
                            let mut out = std::io::stdout().lock();
                            let _ = out.write_all(b"{\"type\":\"move\",\"move\":\"\xff\xfe\"}\n");
                            let _ = out.flush();
                        }
                        "unexpected-message" => send(r#"{"type":"ready","name":"again"}"#),
                        "unknown-type" => send(r#"{"type":"think","text":"hmm"}"#),
                        "exit-1" => std::process::exit(1),
                        // SAFETY: resetting the handler (Rust installs one) and raising in our own process.
                        "sigsegv" => unsafe {
                            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                            libc::raise(libc::SIGSEGV);
                        },
                        "close-stdout" => {
                            // SAFETY: closing our own stdout descriptor.
                            unsafe {
                                libc::close(1);
                            }
                            hang();
                        }
                        "resign" => send(r#"{"type":"resign"}"#),
                        "double-move" => {
                            let m = t.legal_moves[rng.below(t.legal_moves.len())];
                            let line = format!(r#"{{"type":"move","move":"{m}","ply":{}}}"#, t.ply);
                            send(&line);
                            send(&line);
                        }
                        "huge-line" => {
                            let mut out = std::io::stdout().lock();
                            let chunk = vec![b'x'; 1 << 20];
                            for _ in 0..1024 {
                                if out.write_all(&chunk).is_err() {
                                    break;
                                }
                            }
                            let _ = out.write_all(b"\n");
                            hang();
                        }
                        "endless-line" => {
                            let mut out = std::io::stdout().lock();
                            let chunk = vec![b'{'; 64 << 10];
                            while out.write_all(&chunk).is_ok() {}
                            hang();
                        }
                        "garbage" => {
                            let mut out = std::io::stdout().lock();
                            let mut bytes = vec![0u8; 4096];
                            for b in bytes.iter_mut() {
                                *b = (rng.next_u64() & 0xff) as u8;
                            }
                            let _ = out.write_all(&bytes);
                            let _ = out.write_all(b"\n");
                            let _ = out.flush();
                            hang();
                        }
                        "wrong-shape" => send(r#"{"type":"move","move":42}"#),
                        "flood" => {
                            for i in 0..10_000 {
                                send(&format!(r#"{{"type":"info","text":"line {i}"}}"#));
                            }
                        }
                        "late-1ms" | "just-in-time" => {
                            let limit = std::time::Duration::from_millis(t.clock.move_ms);
                            let wait = if kind == "late-1ms" {
                                limit + std::time::Duration::from_millis(1)
                            } else {
                                limit - std::time::Duration::from_millis(2)
                            };
                            while read_at.elapsed() < wait {
                                std::hint::spin_loop();
                            }
                            let m = t.legal_moves[0];
                            send(&format!(r#"{{"type":"move","move":"{m}"}}"#));
                            continue;
                        }
                        "close-stdin" => {
                            // SAFETY: closing our own stdin descriptor.
                            unsafe {
                                libc::close(0);
                            }
                            let m = t.legal_moves[0];
                            send(&format!(r#"{{"type":"move","move":"{m}"}}"#));
                            hang();
                        }
                        "setsid-escape" => {
                            #[allow(clippy::zombie_processes)]
                            let child =
                                std::process::Command::new("setsid").args(["sleep", "1000"]).spawn().expect("setsid");
                            std::thread::sleep(std::time::Duration::from_millis(100));
                            if let Some(p) = opt("--pidfile") {
                                // setsid(1) forks when it leads a group: record the sleep's pid too.
                                let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
                                append_line(&mut f, &child.id().to_string());
                                for pid in children_of(child.id()) {
                                    append_line(&mut f, &pid.to_string());
                                }
                            }
                            send(r#"{"type":"move","move":"a1-a1"}"#);
                            hang();
                        }
                        "stderr-flood" => {
                            let mut err = std::io::stderr().lock();
                            let chunk = vec![b'e'; 1 << 20];
                            for _ in 0..200 {
                                let _ = err.write_all(&chunk);
                            }
                        }
                        "alloc" => {
                            let mut hoard: Vec<Vec<u8>> = Vec::new();
                            loop {
                                let mut v = vec![0u8; 16 << 20];
                                for i in (0..v.len()).step_by(4096) {
                                    v[i] = 1;
                                }
                                hoard.push(v);
                            }
                        }
                        "burn-cpu" => loop {
                            std::hint::spin_loop();
                        },
                        "grandchild" => {
                            // Deliberately never waited for: it must outlive this bot unless the host kills its group.
                            #[allow(clippy::zombie_processes)]
                            let child = std::process::Command::new("sleep").arg("1000").spawn().expect("sleep");
                            if let Some(p) = opt("--pidfile") {
                                let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
                                append_line(&mut f, &child.id().to_string());
                            }
                            send(r#"{"type":"move","move":"a1-a1"}"#);
                            hang();
                        }
                        _ => {}
                    }
                    if matches!(
                        kind.as_str(),
                        "unparsable-move"
                            | "malformed-json"
                            | "malformed-message"
                            | "line-too-long"
                            | "invalid-utf8"
                            | "unexpected-message"
                            | "unknown-type"
                            | "resign"
                            | "wrong-shape"
                            | "double-move"
                    ) {
                        continue;
                    }
                }
                let m = t.legal_moves[rng.below(t.legal_moves.len())];
                if let Some(think) = think {
                    // Busy-wait: a sleep could oversleep and blur the measurement.
                    let cpu_at_read = thread_cpu_time();
                    while if on_cpu { thread_cpu_time() - cpu_at_read < think } else { read_at.elapsed() < think } {
                        std::hint::spin_loop();
                    }
                    let answer = format!("{{\"type\":\"move\",\"move\":\"{m}\"}}\n");
                    let took = read_at.elapsed();
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(answer.as_bytes());
                    let _ = out.flush();
                    if let Some(f) = times.as_mut() {
                        append_line(f, &took.as_micros().to_string());
                    }
                    if let Some(delay) = read_delay {
                        // Nothing else is buffered after a move: the next message is the
                        // next turn (or the game's end), written once the opponent moved.
                        let mut p = libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 };
                        // SAFETY: one valid pollfd on our stdin.
                        unsafe { libc::poll(&mut p, 1, 10_000) };
                        std::thread::sleep(delay);
                    }
                    continue;
                }
                send(r#"{"type":"info","text":"thinking"}"#);
                send(&format!(r#"{{"type":"move","move":"{m}","extra":[1,2,3]}}"#));
                if let Some(p) = ponder {
                    let t0 = std::time::Instant::now();
                    while t0.elapsed() < p {
                        std::hint::spin_loop();
                    }
                }
            }
            HostMessage::Quit(_) if kind == "ignore-sigterm" => hang(),
            HostMessage::Quit(_) if kind == "quit-stderr-flood" => {
                let mut err = std::io::stderr().lock();
                let chunk = vec![b'q'; 1 << 20];
                for _ in 0..2 {
                    let _ = err.write_all(&chunk);
                }
                return;
            }
            HostMessage::Quit(_) => return,
            HostMessage::GameOver(_) if one_game => return,
            HostMessage::GameOver(_) => board.game_over = true,
            HostMessage::Ply(_) => {}
        }
    }
}

/// What a `--view-moves` bot knows of the board: the squares of its pieces and of the
/// opponent's, and how many plies it has heard of.
#[derive(Default)]
struct OwnBoard {
    own: std::collections::HashSet<stratego_rules::Square>,
    opponent: std::collections::HashSet<stratego_rules::Square>,
    plies: u32,
    /// It has had its first turn of the game (with `opponent_squares`).
    started: bool,
    /// The game is over (`game_over` came).
    game_over: bool,
}

impl OwnBoard {
    /// Takes in a turn's news and checks the board against its legal moves.
    fn follow(&mut self, t: &stratego_protocol::Turn) -> Result<(), String> {
        use stratego_rules::CombatResult;
        match (&t.opponent_squares, self.started) {
            (Some(sq), false) => self.opponent = sq.iter().copied().collect(),
            (None, false) => return Err("no opponent_squares in my first turn".to_owned()),
            (Some(_), true) => return Err("opponent_squares again after my first turn".to_owned()),
            (None, true) => {}
        }
        self.started = true;
        if self.own.is_empty() {
            return Err("I have no setup of my own (no setup_request since hello)".to_owned());
        }
        for p in &t.plies {
            let (mover, other) = if p.color == t.color {
                (&mut self.own, &mut self.opponent)
            } else {
                (&mut self.opponent, &mut self.own)
            };
            if !mover.remove(&p.mv.from) {
                return Err(format!("ply {}: {} moves from a square where I know no piece", self.plies, p.mv));
            }
            match p.combat.map(|c| c.result) {
                None => {
                    mover.insert(p.mv.to);
                }
                Some(CombatResult::AttackerWins) => {
                    other.remove(&p.mv.to);
                    mover.insert(p.mv.to);
                }
                Some(CombatResult::DefenderWins) => {}
                Some(CombatResult::BothRemoved) => {
                    other.remove(&p.mv.to);
                }
            }
            self.plies += 1;
        }
        if self.plies != t.ply {
            return Err(format!("I heard of {} plies, the turn is ply {}", self.plies, t.ply));
        }
        for m in &t.legal_moves {
            if !self.own.contains(&m.from) || self.own.contains(&m.to) {
                return Err(format!("the legal move {m} does not fit my board"));
            }
        }
        Ok(())
    }
}
