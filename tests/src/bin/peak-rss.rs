//! `peak-rss OUT CMD ARGS...`: runs CMD and writes its peak resident memory (KiB, the
//! `ru_maxrss` that `wait4` gives for it) and its exit code (or `signal N`) to OUT, then
//! exits with CMD's code. A test measures a command through it rather than itself: a
//! process made by a big test process and exec'ed keeps that process's peak as its own
//! (Linux carries the peak across `exec`), while this small program's child starts clean.

use std::process::Command;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, cmd, rest @ ..] = args.as_slice() else {
        eprintln!("usage: peak-rss OUT CMD ARGS...");
        std::process::exit(2);
    };
    let child = Command::new(cmd).args(rest).spawn().unwrap_or_else(|e| {
        eprintln!("peak-rss: {cmd}: {e}");
        std::process::exit(2);
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not waited for; both pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    std::mem::forget(child); // Waited for above.
    let (line, code) = if libc::WIFEXITED(status) {
        (format!("{} {}", usage.ru_maxrss, libc::WEXITSTATUS(status)), libc::WEXITSTATUS(status))
    } else {
        (format!("{} signal {}", usage.ru_maxrss, libc::WTERMSIG(status)), 125)
    };
    std::fs::write(out, line).expect("write OUT");
    std::process::exit(code);
}
