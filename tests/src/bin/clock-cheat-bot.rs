//! A test bot for the clock's honesty and the whole-line rule (issue #41 items 0 and 1): it
//! plays random legal moves, reads its input in one of several ways, and thinks in one of
//! several ways.
//!
//! `clock-cheat-bot [--read whole|partial|slow] [--think spin|sleep|child] [--think-ms X]
//! [--log FILE]`
//!
//! `--read whole` (the default) reads each line as a plain buffered reader does.
//! `--read partial` reads each `turn` except its last byte (the line's `\n`: the JSON is
//! complete without it), thinks, then reads the `\n` and answers: a bot that tries to think
//! before the host counts its request as read.
//! `--read tee` peeks at each `turn` with `tee(2)` (which copies a pipe's bytes into
//! another pipe without taking them: what io_uring's `IORING_OP_TEE` does too), thinks,
//! then reads the turn and answers: a bot that tries to think before its read is seen.
//! `--read slow` reads one byte per `read(2)` call, pausing 2 ms after every 700 bytes and
//! 1 ms after each line, and checks that every line it gets is one whole, valid JSON
//! message of the protocol: a line that is not (a message cut, or one written into the
//! middle of another) makes it say so on stderr and exit with status 5.
//!
//! `--late-ms X`: before reading each message after its first `setup_request`'s answer,
//! waits until something is in its stdin pipe, then sleeps X ms (a bot that reads its
//! turns late: it loses on time, and must still get every line whole).
//!
//! `--think-ms X` (at each turn, default 0): `spin` busy-waits X ms of wall time, `cpu`
//! spins until it has used X ms of CPU time (an honest bot that computes: on a busy machine
//! it answers later, and is charged the same), `sleep` sleeps X ms, `child` has a child process spin X ms while
//! the bot waits for it.
//!
//! `--waits FILE` appends, for each move, how long the bot waited for a CPU from its
//! previous answer to this move's (`/proc/self/schedstat`'s run delay, in microseconds; its
//! child's waits are not its own): the most stall credit the move may get.
//! `--log FILE` appends every line received. Its `ready` asks for the full view (every
//! piece in every turn: turns of 5–6 KB).

use std::io::Write;
use std::time::{Duration, Instant};

use stratego_protocol::{HostMessage, Rng};
use stratego_rules::{Deployment, Ruleset};

fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// Reads from fd 0 without buffering ahead of what it is asked for.
struct RawInput {
    /// Bytes read but not yet returned as a line.
    pending: Vec<u8>,
}

impl RawInput {
    /// One `read(2)` of at most `max` bytes; `None` at the end of input.
    fn read_some(&mut self, max: usize) -> Option<usize> {
        let mut buf = vec![0u8; max.max(1)];
        loop {
            // SAFETY: reads at most `buf.len()` bytes into our buffer.
            let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if n <= 0 {
                return None;
            }
            let n = n as usize;
            self.pending.extend_from_slice(&buf[..n]);
            return Some(n);
        }
    }

    /// Bytes waiting in the stdin pipe (`FIONREAD`), after waiting until there is some.
    fn available(&self) -> usize {
        let mut p = libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd on our stdin.
        unsafe { libc::poll(&mut p, 1, -1) };
        let mut n: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int.
        unsafe { libc::ioctl(0, libc::FIONREAD, &mut n) };
        usize::try_from(n).unwrap_or(0)
    }

    /// A whole line taken from `pending`, if it holds one.
    fn take_line(&mut self) -> Option<Vec<u8>> {
        let end = self.pending.iter().position(|&b| b == b'\n')?;
        let rest = self.pending.split_off(end + 1);
        let mut line = std::mem::replace(&mut self.pending, rest);
        line.pop();
        Some(line)
    }

    /// The next line as a plain reader reads it (everything available at each read).
    fn whole_line(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(line) = self.take_line() {
                return Some(line);
            }
            self.read_some(64 * 1024)?;
        }
    }

    /// The next line, one byte a read, pausing 2 ms after every 700 bytes.
    fn slow_line(&mut self) -> Option<Vec<u8>> {
        let mut count = 0u32;
        loop {
            if let Some(line) = self.take_line() {
                return Some(line);
            }
            self.read_some(1)?;
            count += 1;
            if count % 700 == 0 {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }

    /// Copies the next line into `peek` with `tee(2)`, leaving it unread in stdin, when all
    /// of it is in the pipe already: `Some(text)`. Otherwise `None`, having taken nothing.
    fn peek_line(&mut self, peek: &(i32, i32)) -> Option<Vec<u8>> {
        if !self.pending.is_empty() {
            return None;
        }
        let n = self.available();
        // SAFETY: tee between two pipes we own; no pointers.
        let copied = unsafe { libc::tee(0, peek.1, n, 0) };
        let copied = usize::try_from(copied).ok().filter(|&c| c > 0)?;
        let mut text = vec![0u8; copied];
        // SAFETY: reads at most `copied` bytes into our buffer from our own pipe.
        let got = unsafe { libc::read(peek.0, text.as_mut_ptr().cast(), copied) };
        text.truncate(usize::try_from(got).unwrap_or(0));
        text.contains(&b'\n').then_some(text)
    }

    /// Reads the next line but its last byte, when all of it is in the pipe already (and it
    /// is the only thing there): `Some(text)` with the line's `\n` still unread. Otherwise
    /// (more or less than one line waiting) `None`, having read nothing.
    fn all_but_the_newline(&mut self) -> Option<Vec<u8>> {
        if !self.pending.is_empty() {
            return None;
        }
        let n = self.available();
        if n < 2 {
            return None;
        }
        self.read_some(n - 1)?;
        if self.pending.contains(&b'\n') {
            // More than one line was waiting: not the case this bot is about.
            return None;
        }
        Some(self.pending.clone())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let read = opt("--read").unwrap_or_else(|| "whole".into());
    let think = opt("--think").unwrap_or_else(|| "spin".into());
    let think_for = Duration::from_secs_f64(opt("--think-ms").and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0) / 1e3);
    let mut log =
        opt("--log").map(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).expect("log file"));
    let mut waits =
        opt("--waits").map(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).expect("waits file"));
    let mut waited_before = run_delay();
    let late = opt("--late-ms").and_then(|s| s.parse::<u64>().ok()).map(Duration::from_millis);
    let mut set_up = false;
    let mut peek_pipe: Option<(i32, i32)> = None;
    let mut input = RawInput { pending: Vec::new() };
    let mut rng = Rng::new(1);
    let mut rules = None;
    let mut color = stratego_rules::Color::Red;
    loop {
        // A partial reader thinks before it has read the turn's last byte.
        let mut thought = false;
        if let Some(late) = late.filter(|_| set_up && input.pending.is_empty()) {
            input.available();
            std::thread::sleep(late);
        }
        let line = match read.as_str() {
            "partial" => match input.all_but_the_newline() {
                Some(text) if text.starts_with(br#"{"type":"turn""#) => {
                    think_now(&think, think_for);
                    thought = true;
                    input.whole_line()
                }
                _ => input.whole_line(),
            },
            "tee" => {
                let peek = *peek_pipe.get_or_insert_with(|| {
                    let mut fds = [0i32; 2];
                    // SAFETY: pipe2 writes two descriptors into our array.
                    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
                    // SAFETY: fcntl on our own pipe; room for any turn.
                    unsafe { libc::fcntl(fds[1], libc::F_SETPIPE_SZ, 1 << 20) };
                    (fds[0], fds[1])
                });
                if input.peek_line(&peek).is_some_and(|t| t.starts_with(br#"{"type":"turn""#)) {
                    think_now(&think, think_for);
                    thought = true;
                }
                input.whole_line()
            }
            "slow" => {
                let line = input.slow_line();
                std::thread::sleep(Duration::from_millis(1));
                line
            }
            _ => input.whole_line(),
        };
        let Some(line) = line else { return };
        if let Some(f) = log.as_mut() {
            let mut entry = line.clone();
            entry.push(b'\n');
            f.write_all(&entry).expect("append a line");
        }
        let msg: HostMessage = match std::str::from_utf8(&line).ok().and_then(|l| serde_json::from_str(l).ok()) {
            Some(m) => m,
            None => {
                eprintln!(
                    "clock-cheat-bot: a line that is not one whole message ({} bytes): {}",
                    line.len(),
                    String::from_utf8_lossy(&line)
                );
                std::process::exit(5);
            }
        };
        match msg {
            HostMessage::Hello(h) => {
                rng = Rng::new(h.seed);
                rules = Some(Ruleset::try_from(h.ruleset).unwrap());
                color = h.color;
                send(r#"{"type":"ready","name":"clock-cheat-bot","view":"full","multi_game":true}"#);
            }
            HostMessage::SetupRequest(r) => {
                let rules = rules.as_ref().expect("hello before setup_request");
                let d = match &r.fixed {
                    Some(rows) => Deployment::parse(rules, color, rows).expect("a valid fixed setup"),
                    None => Deployment::random(rules, color, &mut || rng.next_u64()),
                };
                send(&format!(r#"{{"type":"setup","deployment":"{}"}}"#, d.to_rows(rules)));
                set_up = true;
                waited_before = run_delay();
            }
            HostMessage::Turn(t) => {
                if !thought {
                    think_now(&think, think_for);
                }
                let m = t.legal_moves[(rng.next_u64() % t.legal_moves.len() as u64) as usize];
                send(&format!(r#"{{"type":"move","move":"{m}","ply":{}}}"#, t.ply));
                let waited = run_delay();
                if let Some(f) = waits.as_mut() {
                    f.write_all(format!("{}\n", waited.saturating_sub(waited_before).as_micros()).as_bytes())
                        .expect("append a line");
                }
                waited_before = waited;
            }
            HostMessage::Quit(_) => return,
            HostMessage::GameOver(_) | HostMessage::Ply(_) => {}
        }
    }
}

/// How long this process (its one thread) has waited for a CPU so far.
fn run_delay() -> Duration {
    let text = std::fs::read_to_string("/proc/self/schedstat").unwrap_or_default();
    Duration::from_nanos(text.split_whitespace().nth(1).and_then(|f| f.parse().ok()).unwrap_or(0))
}

/// Thinks `how` for `long`.
fn think_now(how: &str, long: Duration) {
    if long.is_zero() {
        return;
    }
    match how {
        "sleep" => std::thread::sleep(long),
        "cpu" => {
            let cpu = || {
                let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
                // SAFETY: clock_gettime writes into the timespec we pass.
                unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
                Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
            };
            let t0 = cpu();
            while cpu() - t0 < long {
                std::hint::spin_loop();
            }
        }
        "child" => {
            // SAFETY: this process has one thread; the child only spins and exits.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                spin(long);
                // SAFETY: ends the child without running the parent's exit handlers.
                unsafe { libc::_exit(0) };
            }
            let mut status = 0;
            // SAFETY: waits for our own child.
            unsafe { libc::waitpid(pid, &mut status, 0) };
        }
        _ => spin(long),
    }
}

fn spin(long: Duration) {
    let t0 = Instant::now();
    while t0.elapsed() < long {
        std::hint::spin_loop();
    }
}
