//! A process's scheduler account from `/proc` (run, waits for a CPU, times given one,
//! whether it is runnable), its threads and children, read through files kept open.

use super::{process_cpu_time, schedstat_waits, stat_fields};

/// What the scheduler says of a single-threaded process at one moment (see
/// [`own_account`]).
#[derive(Clone, Copy, Debug)]
pub struct OwnAccount {
    /// CPU time used so far (the process's CPU-time clock). For a process running on
    /// another CPU than the caller's, the kernel brings it up to date only at scheduler
    /// events: up to a tick behind (4 ms at 250 Hz).
    pub cpu: std::time::Duration,
    /// Time spent runnable but waiting for a CPU, waits that have ended
    /// (`/proc/PID/schedstat`).
    pub waited: std::time::Duration,
    /// Times it was given a CPU.
    pub slices: u64,
    /// Runnable or running (state `R`), rather than asleep.
    pub runnable: bool,
    /// Its minor and major page faults so far, as of the last read of its
    /// `/proc/PID/stat` from this thread (for diagnostics).
    pub faults: (u64, u64),
    /// The CPU time of its child processes that it has waited for, in clock ticks
    /// (`cutime` + `cstime` of `/proc/PID/stat`), as of the last read of that file from
    /// this thread: when it grows, the bot had a child process compute.
    pub children_ticks: u64,
}

/// The scheduler's account of process `pid`, when it has one thread and a normal
/// scheduling policy (otherwise `None`: its time cannot be told apart this way). Keeps the
/// process's two files open on this thread between calls (one read each, no allocation).
pub fn own_account(pid: u32) -> Option<OwnAccount> {
    read_account(pid, true)
}

/// The scheduler's account of process `pid`'s main thread, whatever its other threads,
/// when that thread has a normal scheduling policy: its waits, times given a CPU and state
/// (`/proc/PID/schedstat` and `stat` are the main thread's), with the CPU time of the whole
/// process (all its threads). Keeps the files open like [`own_account`].
pub fn main_thread_account(pid: u32) -> Option<OwnAccount> {
    read_account(pid, false)
}

/// [`own_account`] (`one_thread`) or [`main_thread_account`]: one read of `stat` and of
/// `schedstat`, and the process's CPU-time clock.
pub(super) fn read_account(pid: u32, one_thread: bool) -> Option<OwnAccount> {
    let mut stat = [0u8; 1024];
    let mut sched = [0u8; 128];
    let (runnable, m, faults, children) = with_proc_files(pid, |files| {
        let n = pread_all(&files.stat, &mut stat)?;
        let m = pread_all(&files.schedstat, &mut sched)?;
        let facts = stat_facts(files, &stat[..n])?;
        let countable = facts.normal_policy && (facts.one_thread || !one_thread);
        Some(countable.then_some((facts.runnable, m, files.faults.get(), files.children_ticks.get())))
    })??;
    let mut account = account(pid, &sched[..m], runnable, faults)?;
    account.children_ticks = children;
    Some(account)
}

/// What [`read_account`] needs of `/proc/PID/stat`.
pub(super) struct StatFacts {
    /// One thread (field 20).
    one_thread: bool,
    /// `SCHED_OTHER`, `SCHED_BATCH` or `SCHED_IDLE` (field 41) for its main thread.
    normal_policy: bool,
    /// State `R` (field 3): runnable or running, rather than asleep.
    runnable: bool,
}

impl StatFacts {
    /// One thread and a normal policy: what [`own_account`] can tell apart.
    fn single(&self) -> bool {
        self.one_thread && self.normal_policy
    }
}

/// Reads [`StatFacts`] from `/proc/PID/stat`'s text, and notes in `files` whether the
/// process is single-threaded with a normal policy (see [`own_account_rechecked_later`])
/// and its page faults.
pub(super) fn stat_facts(files: &ProcFiles, stat: &[u8]) -> Option<StatFacts> {
    let stat = std::str::from_utf8(stat).ok()?;
    // Numbered as in proc(5), 3 or more.
    let field = |k: usize| stat_fields(stat)?.nth(k - 3);
    let threads: u32 = field(20)?.parse().ok()?;
    let policy: i32 = field(41)?.parse().ok()?;
    let facts = StatFacts {
        one_thread: threads == 1,
        normal_policy: matches!(policy, libc::SCHED_OTHER | libc::SCHED_BATCH | libc::SCHED_IDLE),
        runnable: field(3)? == "R",
    };
    files.checked.set(facts.single());
    let count = |k: usize| field(k).and_then(|f| f.parse().ok()).unwrap_or(0);
    files.faults.set((count(10), count(12)));
    files.children_ticks.set(count(16) + count(17));
    Some(facts)
}

/// Whether process `pid` has one thread and a normal scheduling policy now (one read of
/// its `/proc/PID/stat`, kept open like [`own_account`]'s); `None` when it is gone.
pub fn is_single_threaded(pid: u32) -> Option<bool> {
    let mut stat = [0u8; 1024];
    with_proc_files(pid, |files| {
        let n = pread_all(&files.stat, &mut stat)?;
        Some(stat_facts(files, &stat[..n])?.single())
    })
}

/// The CPU time of process `pid`'s main thread alone (the first field of its
/// `/proc/PID/schedstat`): up to a tick behind while it runs on another CPU, up to date
/// while it sleeps.
pub fn main_thread_cpu(pid: u32) -> Option<std::time::Duration> {
    let mut sched = [0u8; 128];
    let n = with_proc_files(pid, |files| pread_all(&files.schedstat, &mut sched))?;
    let ns = std::str::from_utf8(&sched[..n]).ok()?.split_whitespace().next()?.parse().ok()?;
    Some(std::time::Duration::from_nanos(ns))
}

/// Whether process `pid` (its main thread) has started child processes that are still
/// there (`/proc/PID/task/PID/children`); `None` when that cannot be told.
pub fn has_children(pid: u32) -> Option<bool> {
    let text = std::fs::read(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    Some(text.iter().any(u8::is_ascii_digit))
}

/// The account of `pid` from its `schedstat` text and its CPU-time clock.
pub(super) fn account(pid: u32, schedstat: &[u8], runnable: bool, faults: (u64, u64)) -> Option<OwnAccount> {
    let (waited, slices) = schedstat_waits(std::str::from_utf8(schedstat).ok()?)?;
    let cpu = process_cpu_time(pid)?;
    Some(OwnAccount {
        cpu,
        waited: std::time::Duration::from_nanos(waited),
        slices,
        runnable,
        faults,
        children_ticks: 0,
    })
}

/// Whether the main thread of process `pid` is blocked reading a pipe (its standard input,
/// which the host made a pipe: the kernel function it waits in, `/proc/PID/wchan`, is
/// `anon_pipe_read` or `pipe_read`), and the process has no child processes
/// (`/proc/PID/task/PID/children`): the thread that a request written now wakes. Both
/// files are kept open like [`own_account`]'s; neither read waits for the process (unlike
/// `/proc/PID/syscall`, whose read waits until a thread that is going to sleep is off its
/// CPU: up to a tick). `false` when that cannot be told (the wait channel is shown only to
/// a process allowed to trace the bot: the host is its parent).
pub fn main_thread_reads_input(pid: u32) -> bool {
    let mut buf = [0u8; 256];
    with_proc_files(pid, |files| {
        let wchan = files.wchan.get_or_init(|| std::fs::File::open(format!("/proc/{pid}/wchan")).ok());
        let Some(wchan) = wchan.as_ref() else { return Some(false) };
        let n = pread_all(wchan, &mut buf)?;
        if !matches!(&buf[..n], b"anon_pipe_read" | b"pipe_read") {
            return Some(false);
        }
        Some(!has_children_in(pid, files)?)
    })
    .unwrap_or(false)
}

/// Whether process `pid` (its main thread) has child processes now, from its
/// `/proc/PID/task/PID/children` kept open like [`own_account`]'s files; `None` when that
/// cannot be told.
pub fn has_child_processes(pid: u32) -> Option<bool> {
    with_proc_files(pid, |files| has_children_in(pid, files))
}

/// [`has_child_processes`] on `pid`'s open files.
pub(super) fn has_children_in(pid: u32, files: &ProcFiles) -> Option<bool> {
    let children = files.children.get_or_init(|| std::fs::File::open(format!("/proc/{pid}/task/{pid}/children")).ok());
    let children = children.as_ref()?;
    let mut buf = [0u8; 256];
    // Empty when it has none (a read of 0 bytes, which `pread_all` calls a failure).
    use std::os::unix::fs::FileExt;
    let n = children.read_at(&mut buf, 0).ok()?;
    Some(buf[..n].iter().any(u8::is_ascii_digit))
}

/// [`own_account`] without reading `/proc/PID/stat` (a third of the cost) when the last
/// [`own_account`] of `pid` from this thread found it single-threaded with a normal policy:
/// for the opening of an account, whose `runnable` is not used (reported `false`). The
/// account's close calls [`own_account`], which checks again: a bot that has started a
/// thread meanwhile is credited nothing.
pub fn own_account_rechecked_later(pid: u32) -> Option<OwnAccount> {
    let mut sched = [0u8; 128];
    let quick = with_proc_files(pid, |files| {
        if !files.checked.get() {
            return Some(None);
        }
        Some(Some((pread_all(&files.schedstat, &mut sched)?, files.faults.get())))
    })?;
    match quick {
        // The children's CPU as of the last read of `stat`: a child that computed since
        // then shows as a change at the next look (it is never missed, only noticed early).
        Some((m, faults)) => account(pid, &sched[..m], false, faults).map(|mut a| {
            a.children_ticks = with_proc_files(pid, |files| Some(files.children_ticks.get())).unwrap_or(0);
            a
        }),
        None => own_account(pid),
    }
}

/// How many times process `pid` (its main thread) gave up its CPU of its own accord
/// (`voluntary_ctxt_switches` of `/proc/PID/status`, kept open like [`own_account`]'s).
pub fn voluntary_switches(pid: u32) -> Option<u64> {
    let mut buf = [0u8; 4096];
    let n = with_proc_files(pid, |files| pread_all(&files.status, &mut buf))?;
    status_number(std::str::from_utf8(&buf[..n]).ok()?, "voluntary_ctxt_switches:")
}

/// The number after `key` (`VmHWM:`, `voluntary_ctxt_switches:`) in the text of
/// `/proc/PID/status` (a unit after it, `kB`, is left out).
pub(super) fn status_number(status: &str, key: &str) -> Option<u64> {
    status.lines().find_map(|l| l.strip_prefix(key))?.split_whitespace().next()?.parse().ok()
}

thread_local! {
    /// `/proc/PID/stat`, `schedstat` and `status` of the processes [`own_account`] looked at
    /// last from this thread (a game's two bots).
    static PROC_FILES: std::cell::RefCell<Vec<(u32, ProcFiles)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A process's open `stat`, `schedstat` and `status` files.
pub(super) struct ProcFiles {
    stat: std::fs::File,
    schedstat: std::fs::File,
    status: std::fs::File,
    /// `/proc/PID/wchan` and `/proc/PID/task/PID/children`, opened on first use (see
    /// [`main_thread_reads_input`]).
    wchan: std::cell::OnceCell<Option<std::fs::File>>,
    children: std::cell::OnceCell<Option<std::fs::File>>,
    /// The last [`own_account`] found the process single-threaded with a normal policy.
    checked: std::cell::Cell<bool>,
    /// Minor and major page faults at the last read of `stat`.
    faults: std::cell::Cell<(u64, u64)>,
    /// `cutime` + `cstime` at the last read of `stat`.
    children_ticks: std::cell::Cell<u64>,
}

/// Runs `f` on `pid`'s open stat files, opening them if needed; a failed read (the process
/// is gone, or the files were of an earlier process with that pid) opens them again once.
pub(super) fn with_proc_files<T>(pid: u32, mut f: impl FnMut(&ProcFiles) -> Option<T>) -> Option<T> {
    PROC_FILES.with_borrow_mut(|cache| {
        if let Some(i) = cache.iter().position(|(p, _)| *p == pid) {
            if let Some(v) = f(&cache[i].1) {
                return Some(v);
            }
            cache.swap_remove(i);
        }
        let files = ProcFiles {
            stat: std::fs::File::open(format!("/proc/{pid}/stat")).ok()?,
            schedstat: std::fs::File::open(format!("/proc/{pid}/schedstat")).ok()?,
            status: std::fs::File::open(format!("/proc/{pid}/status")).ok()?,
            wchan: std::cell::OnceCell::new(),
            children: std::cell::OnceCell::new(),
            checked: std::cell::Cell::new(false),
            faults: std::cell::Cell::new((0, 0)),
            children_ticks: std::cell::Cell::new(0),
        };
        let v = f(&files)?;
        if cache.len() >= 4 {
            cache.remove(0);
        }
        cache.push((pid, files));
        Some(v)
    })
}

/// Reads a small file from its start in one call; the byte count.
pub(super) fn pread_all(file: &std::fs::File, buf: &mut [u8]) -> Option<usize> {
    use std::os::unix::fs::FileExt;
    file.read_at(buf, 0).ok().filter(|&n| n > 0 && n < buf.len())
}
