//! How a bot's process ended, as the fault it loses with: waited for and reaped, its peak
//! memory read before, a crash told from a resource limit it ran into.

use std::time::{Duration, Instant};

use super::Process;
use crate::reason::{Fault, Reason};
use crate::supervise::os;

impl Process {
    pub(super) async fn eof_fault(&mut self) -> Fault {
        // Give an exiting process a moment to be reaped, to tell a crash from a closed pipe.
        match self.wait_exit(Duration::from_millis(100)).await {
            Some((status, peak)) => self.exit_fault(status, peak),
            None => Fault::new(Reason::ClosedOutput, "it closed its standard output but kept running"),
        }
    }

    pub(super) async fn crash_fault(&mut self, what: &str) -> Fault {
        match self.wait_exit(Duration::from_millis(100)).await {
            Some((status, peak)) => self.exit_fault(status, peak),
            None => Fault::new(Reason::Crash, format!("{what} (the process is still running)")),
        }
    }

    /// Waits up to `within` for the process to end, then reaps it: its exit status, and its
    /// peak resident memory in KiB (of it and the children it waited for), read before it
    /// is reaped (see [`exited_peak_rss_kib`]); `None` while it runs.
    pub(super) async fn wait_exit(&mut self, within: Duration) -> Option<(std::process::ExitStatus, Option<u64>)> {
        let until = Instant::now() + within;
        let pid = self.child.id();
        let mut peak = None;
        while let Some(pid) = pid {
            match exited_peak_rss_kib(pid) {
                Ok(Some(kib)) => {
                    peak = Some(kib);
                    break;
                }
                // Not a child to wait for (already reaped): the status says the rest.
                Err(_) => break,
                Ok(None) if Instant::now() >= until => return None,
                Ok(None) => tokio::time::sleep(Duration::from_millis(1)).await,
            }
        }
        let rest = until.saturating_duration_since(Instant::now()).max(Duration::from_millis(10));
        match tokio::time::timeout(rest, self.child.wait()).await {
            Ok(Ok(status)) => Some((status, peak)),
            _ => None,
        }
    }

    /// The fault for a process that ended: a crash, or a resource limit it ran into. A
    /// memory fault only on evidence (issue #41, item 6): the sandbox's OOM killer, or
    /// under `RLIMIT_AS` an abnormal end with a peak (`peak_kib`) of at least three quarters
    /// of the limit or an allocation failure in its last words; a signal alone is a crash
    /// (a bot that kills itself with SIGSEGV after a few bytes did not run out of memory).
    pub(super) fn exit_fault(&self, status: std::process::ExitStatus, peak_kib: Option<u64>) -> Fault {
        use std::os::unix::process::ExitStatusExt;
        let sandboxed = self.spec.limits.sandbox == Some(true);
        let how = if sandboxed { describe_sandbox_exit(status) } else { describe_exit(status) };
        let limits = self.spec.limits;
        let signal = if sandboxed {
            crate::supervise::sandbox::bot_exit(status.code(), status.signal()).1
        } else {
            status.signal()
        };
        if self.cgroup.as_ref().is_some_and(|c| c.oom_killed()) {
            let bytes = limits.memory_bytes.unwrap_or(crate::supervise::sandbox::DEFAULT_MEMORY_BYTES);
            return Fault::new(
                Reason::MemoryLimit,
                format!(
                    "it ran out of its sandbox's memory limit of {} MiB ({how}; the kernel's OOM killer)",
                    bytes >> 20
                ),
            );
        }
        if let Some(secs) = limits.cpu_seconds {
            // RLIMIT_CPU sends SIGXCPU at the soft limit and SIGKILL at the hard one.
            if matches!(signal, Some(libc::SIGXCPU) | Some(libc::SIGKILL)) {
                return Fault::new(Reason::CpuLimit, format!("it used up its CPU-time limit of {secs} s ({how})"));
            }
        }
        let abnormal = signal.is_some() || !status.success();
        if let Some(bytes) = limits.memory_bytes.filter(|_| abnormal) {
            let (tail, _) = self.stderr_tail();
            let mib = bytes >> 20;
            let near_limit = peak_kib.is_some_and(|kib| kib.saturating_mul(1024) >= bytes / 4 * 3);
            if let Some(words) = allocation_failure(&tail) {
                return Fault::new(
                    Reason::MemoryLimit,
                    format!("it ran out of its memory limit of {mib} MiB ({how}; its stderr says {words:?})"),
                );
            }
            if near_limit {
                let peak = peak_kib.unwrap_or(0) >> 10;
                return Fault::new(
                    Reason::MemoryLimit,
                    format!("it ran out of its memory limit of {mib} MiB ({how}; its peak was {peak} MiB)"),
                );
            }
            // An allocation refused under RLIMIT_AS may end a C program in a segfault with
            // no words: the peak tells the reader how far it was from the limit. The peak is
            // resident memory and the limit is on address space (which can be two or three
            // times larger), so this is only the absence of evidence, said so.
            if let (Some(kib), Some(libc::SIGSEGV | libc::SIGABRT | libc::SIGBUS)) = (peak_kib, signal) {
                let peak = kib.div_ceil(1024);
                return Fault::new(
                    Reason::Crash,
                    format!(
                        "{how} (its resident memory peaked at {peak} MiB, its address-space limit is {mib} MiB: \
                         no evidence of a memory fault)"
                    ),
                );
            }
        }
        Fault::new(Reason::Crash, how)
    }
}

/// How many of the last non-blank lines of a bot's stderr [`allocation_failure`] reads: a
/// program's last words are at its end, and an earlier log line that mentions memory
/// ("out of memory budget, pruning") says nothing about how it ended.
pub(super) const LAST_WORDS_LINES: usize = 5;

/// What an allocation refused under `RLIMIT_AS` makes a program say on its way out, by
/// language: Rust (`memory allocation of N bytes failed`), C++ (`std::bad_alloc`), Python
/// (`MemoryError`), Java (`OutOfMemoryError`, `insufficient memory`, and a JVM that cannot
/// start: `Could not reserve enough space for … object heap`, `Native memory allocation
/// (mmap) failed`), Node (`heap out of memory`), Go and C (`out of memory`, `Cannot allocate
/// memory`). The first found in the last [`LAST_WORDS_LINES`] non-blank lines of `stderr`
/// (case ignored), as written there.
pub(super) fn allocation_failure(stderr: &str) -> Option<&'static str> {
    const WORDS: [&str; 9] = [
        "memory allocation of",
        "out of memory",
        "outofmemoryerror",
        "memoryerror",
        "bad_alloc",
        "cannot allocate",
        "insufficient memory",
        "could not reserve enough space",
        "native memory allocation",
    ];
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let last = lines[lines.len().saturating_sub(LAST_WORDS_LINES)..].join("\n").to_ascii_lowercase();
    WORDS.into_iter().find(|w| last.contains(w))
}

/// The peak resident memory in KiB of child `pid` (and of the children it waited for) once
/// it has ended, without reaping it: `Ok(None)` while it runs.
///
/// The `waitid` system call with `WNOWAIT` (the C library's wrapper has no place for the
/// resource usage; the kernel fills it for a child left to be reaped), so that the reaper
/// (tokio's `Child::wait`) still gets the exit status.
///
/// # Errors
/// `pid` is not a child of this process that can be waited for.
pub(super) fn exited_peak_rss_kib(pid: u32) -> std::io::Result<Option<u64>> {
    // SAFETY: both structures are plain data that the kernel fills; zeroed is valid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waitid with pointers to our own structures; WNOWAIT leaves the child as it is.
    let r = unsafe {
        libc::syscall(
            libc::SYS_waitid,
            libc::P_PID,
            pid as libc::id_t,
            &mut info as *mut libc::siginfo_t,
            libc::WEXITED | libc::WNOWAIT | libc::WNOHANG,
            &mut usage as *mut libc::rusage,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: reading the pid field of a siginfo the kernel filled (zero: no child ended).
    if unsafe { info.si_pid() } == 0 {
        return Ok(None);
    }
    Ok(Some(u64::try_from(usage.ru_maxrss).unwrap_or(0)))
}

/// Describes the exit of a sandboxed bot from bwrap's status (128 + N when the bot was
/// killed by signal N).
pub(super) fn describe_sandbox_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match crate::supervise::sandbox::bot_exit(status.code(), status.signal()) {
        (Some(c), _) => format!("the process exited with status {c}"),
        (None, Some(s)) => format!("the process was killed by {}", os::signal_name(s)),
        _ => "the process ended".to_owned(),
    }
}

/// Describes an exit status: `exited with status 1`, `killed by signal 11 (SIGSEGV)`.
pub fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("the process exited with status {c}"),
        (None, Some(s)) => format!("the process was killed by {}", os::signal_name(s)),
        _ => "the process ended".to_owned(),
    }
}
