//! Platform code (Linux): process groups, the parent-death signal, priorities, pinning,
//! signals, pipes, resource usage. No state: the live bots are the supervisor's.

mod account;
pub use account::{
    OwnAccount, has_child_processes, has_children, is_single_threaded, main_thread_account, main_thread_cpu,
    main_thread_reads_input, own_account, own_account_rechecked_later, voluntary_switches,
};
use account::{pread_all, status_number};

/// Sends `signal` to the process group `pgid`.
pub fn kill_group(pgid: i32, signal: i32) {
    if pgid > 0 {
        // SAFETY: killpg has no memory-safety preconditions; a stale group id fails with ESRCH.
        unsafe {
            libc::killpg(pgid, signal);
        }
    }
}

/// Run in the child between fork and exec: no descriptor but the three standard ones
/// survives the exec (see [`close_inherited_at_exec`]), die with the host (SIGKILL when the
/// host's thread that spawned it exits), close the race where the host died before prctl,
/// and pin to `cpu` when asked.
///
/// # Safety
/// Only async-signal-safe calls (close_range, fcntl, getrlimit, prctl, getppid, kill,
/// sched_setaffinity, setrlimit) are made.
pub unsafe fn child_pre_exec(
    host_pid: i32,
    cpu: Option<usize>,
    limits: crate::supervise::bot_spec::Limits,
) -> std::io::Result<()> {
    close_inherited_at_exec();
    // SAFETY: the caller's promise: this runs in the child between fork and exec.
    unsafe { die_with_parent(host_pid)? };
    if let Some(cpu) = cpu {
        pin_current(cpu)?;
    }
    // Bots run with the normal policy and priority even when the host raised its own.
    // SAFETY: setpriority and setrlimit take plain integers and a stack struct.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_OTHER, &param);
        libc::setpriority(libc::PRIO_PROCESS, 0, limits.nice.unwrap_or(0));
        if let Some(bytes) = limits.memory_bytes {
            let lim = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        if let Some(secs) = limits.cpu_seconds {
            let lim = libc::rlimit { rlim_cur: secs, rlim_max: secs + 1 };
            if libc::setrlimit(libc::RLIMIT_CPU, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Run in a child between fork and exec: it gets SIGKILL when its parent dies (strictly,
/// when the parent's thread that forked it exits), and dies at once when `parent_pid` is
/// already gone (it was re-parented before the prctl: the race this check closes).
///
/// # Safety
/// Only async-signal-safe calls (prctl, getppid, getpid, kill) are made.
pub unsafe fn die_with_parent(parent_pid: i32) -> std::io::Result<()> {
    // SAFETY: prctl with PR_SET_PDEATHSIG, getppid, getpid and kill take plain integers.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::getppid() != parent_pid {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
    Ok(())
}

/// Marks every descriptor from 3 up close-on-exec, in a child before exec: files, locks,
/// sockets and pipes the host inherited from whatever started it (an organiser's shell
/// with `exec 8<secret`, a script holding an `flock`) must not reach a bot. Descriptors the
/// child needs past the exec are opened to it again after this (`sandbox::inherit_fd`).
fn close_inherited_at_exec() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range with plain integers (Linux 5.11+); the fallback marks each
    // descriptor below the process's limit with fcntl.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 3 as libc::c_uint, libc::c_uint::MAX, CLOSE_RANGE_CLOEXEC) == 0 {
            return;
        }
        let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 { lim.rlim_cur.min(1 << 20) } else { 1024 };
        for fd in 3..top as libc::c_int {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
}

/// Makes the host a child subreaper: bot descendants that escape their process group
/// (setsid) and outlive their parent are re-parented to the host instead of init, so
/// [`kill_escaped_descendants`] can find them.
pub fn become_subreaper() -> bool {
    // SAFETY: prctl with plain integers.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
}

/// The host's direct children, found at a low priority: scanning /proc can take
/// milliseconds, which must not be taken from a thinking bot at the host's raised priority.
pub fn host_children_lowered() -> Vec<i32> {
    with_background_priority(host_children)
}

/// Kills and reaps those of `pids` that are still children of the host (a pid found by an
/// earlier scan may have been reaped and reused since). Returns how many it killed.
pub fn kill_and_reap_children(pids: impl IntoIterator<Item = i32>) -> usize {
    let host = std::process::id() as i32;
    let mut killed = Vec::new();
    for pid in pids.into_iter().filter(|&pid| parent_of(pid) == Some(host)) {
        // SAFETY: signalling our own child.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
        killed.push(pid);
    }
    for &pid in &killed {
        // SAFETY: reaping our own child.
        unsafe {
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
    killed.len()
}

/// Fields of `/proc/PID/stat` numbered as in proc(5) (1: pid), from the third on: those
/// after the command name, which may hold spaces and parentheses.
fn proc_stat(pid: impl std::fmt::Display) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(stat_fields(&stat)?.map(str::to_owned).collect())
}

/// The fields of a `/proc/PID/stat` text from the third on (see [`proc_stat`]).
fn stat_fields(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    Some(stat.rsplit_once(')')?.1.split_whitespace())
}

/// Time waited on a run queue (ns) and times given a CPU, from a `schedstat` text.
fn schedstat_waits(text: &str) -> Option<(u64, u64)> {
    let mut it = text.split_whitespace().skip(1).map(|f| f.parse::<u64>().ok());
    Some((it.next()??, it.next()??))
}

/// Field `n` (as numbered in proc(5), 3 or more) of what [`proc_stat`] returned.
fn stat_field<T: std::str::FromStr>(fields: &[String], n: usize) -> Option<T> {
    fields.get(n - 3)?.parse().ok()
}

/// The parent of a process, from `/proc/PID/stat`.
fn parent_of(pid: i32) -> Option<i32> {
    stat_field(&proc_stat(pid)?, 4)
}

/// The host's direct children: from each thread's `/proc/self/task/TID/children` where the
/// kernel provides it (a few small reads), else by scanning every process's parent.
fn host_children() -> Vec<i32> {
    let mut children = Vec::new();
    let mut have_lists = false;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
                have_lists = true;
                children.extend(list.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
            }
        }
    }
    if have_lists {
        return children;
    }
    let host = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else { return children };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        if parent_of(pid) == Some(host) {
            children.push(pid);
        }
    }
    children
}

/// The host's scheduling priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum HostPriority {
    /// Unchanged.
    Normal,
    /// Nice -10.
    Nice,
    /// Real-time (`SCHED_FIFO`, priority 1): woken ahead of any normal process.
    Realtime,
    /// Nice -10, real-time while a bot thinks (see [`crate::supervise::tempo`]); needs the right to
    /// use real-time priorities, like `Realtime`.
    Auto,
}

/// Raises the host's scheduling priority up to `wanted`, so that it sees a bot's read and
/// answer as soon as they happen even when busy bots fill every CPU: real-time `SCHED_FIFO`
/// at the lowest real-time priority, else nice -10 (each needs `CAP_SYS_NICE` or root).
/// The host sleeps between events and uses microseconds of CPU per ply, and the kernel
/// keeps 5 % of each second for normal processes whatever real-time ones do. Bots are set
/// back to the normal policy and nice 0 before exec. Call it before any other thread
/// starts: threads inherit it. Returns what it got.
pub fn raise_host_priority(wanted: HostPriority) -> HostPriority {
    if wanted >= HostPriority::Realtime && make_current_thread_realtime(1).is_ok() {
        if wanted == HostPriority::Auto {
            // Allowed: start calm; the tempo raises the event loop while a bot thinks.
            calm_current_thread();
            return HostPriority::Auto;
        }
        return HostPriority::Realtime;
    }
    // SAFETY: setpriority takes plain integers.
    if wanted >= HostPriority::Nice && unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, -10) } == 0 {
        return HostPriority::Nice;
    }
    HostPriority::Normal
}

/// Moves the calling thread to the normal policy at nice -10 (the calm host of
/// [`crate::supervise::tempo`]; needs the right that raised it).
pub fn calm_current_thread() {
    normal_policy_current_thread(-10);
}

/// Moves the calling thread to `SCHED_OTHER` at `nice`.
fn normal_policy_current_thread(nice: i32) {
    // SAFETY: plain integers and a stack struct; these calls only affect the calling thread.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_OTHER, &param);
        libc::setpriority(libc::PRIO_PROCESS, 0, nice);
    }
}

/// Moves the calling thread to the normal policy at nice 10 (always allowed), for host work
/// that may take milliseconds (scanning /proc, encoding and writing records) and must not
/// preempt thinking bots.
pub fn lower_current_thread() {
    normal_policy_current_thread(10);
}

/// Runs `f` with the calling thread lowered as by [`lower_current_thread`], then restores
/// its policy and nice value (allowed: a raised thread has the capability that raised it).
/// A thread that was not raised runs `f` as it is.
pub fn with_background_priority<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: plain integers and stack structs; only the calling thread is affected.
    let (policy, param, nice) = unsafe {
        let mut param = libc::sched_param { sched_priority: 0 };
        libc::sched_getparam(0, &mut param);
        (libc::sched_getscheduler(0), param, libc::getpriority(libc::PRIO_PROCESS, 0))
    };
    if policy == libc::SCHED_OTHER && nice >= 0 {
        // Not raised (no CAP_SYS_NICE): nothing to lower, and a lowered nice value could
        // not be taken back.
        return f();
    }
    lower_current_thread();
    let out = f();
    // SAFETY: as above.
    unsafe {
        libc::sched_setscheduler(0, policy, &param);
        libc::setpriority(libc::PRIO_PROCESS, 0, nice);
    }
    out
}

/// Pins the calling thread (or, before exec, the process) to one CPU.
///
/// # Errors
/// The operating system's error (for instance a CPU outside the allowed set).
pub fn pin_current(cpu: usize) -> std::io::Result<()> {
    set_affinity(0, &cpu_set(&[cpu]))
}

/// A CPU set holding `cpus`.
fn cpu_set(cpus: &[usize]) -> libc::cpu_set_t {
    // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET writes into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        cpus.iter().for_each(|&c| libc::CPU_SET(c, &mut set));
        set
    }
}

/// Restricts thread `tid` (0: the calling thread) to `set`.
fn set_affinity(tid: i32, set: &libc::cpu_set_t) -> std::io::Result<()> {
    // SAFETY: sched_setaffinity only reads the set we pass.
    let r = unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), set) };
    if r == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// Restricts every thread of process `pid` to `cpu`, or with `None` lets them run on
/// `allowed` again. Threads it starts later inherit it; processes it started before are
/// not moved. Returns how many threads could not be moved (they may have just ended).
pub fn set_process_cpus(pid: u32, cpu: Option<usize>, allowed: &[usize]) -> usize {
    let set = match cpu {
        Some(c) => cpu_set(&[c]),
        None => cpu_set(allowed),
    };
    let tids: Vec<i32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| d.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect())
        .unwrap_or_else(|_| vec![pid as i32]);
    // A thread that has gone just fails.
    tids.iter().filter(|&&tid| set_affinity(tid, &set).is_err()).count()
}

/// How long the calling thread has waited for a CPU so far (waits that have ended), and
/// how many times it was given one (`/proc/thread-self/schedstat`, kept open per thread).
pub fn thread_waited() -> Option<(std::time::Duration, u64)> {
    thread_local! {
        static OWN: Option<std::fs::File> = std::fs::File::open("/proc/thread-self/schedstat").ok();
    }
    let mut buf = [0u8; 128];
    let n = OWN.with(|f| pread_all(f.as_ref()?, &mut buf))?;
    let (ns, slices) = schedstat_waits(std::str::from_utf8(&buf[..n]).ok()?)?;
    Some((std::time::Duration::from_nanos(ns), slices))
}

/// The CPU time process `pid` has used so far, all its threads (its CPU-time clock).
pub fn process_cpu_time(pid: u32) -> Option<std::time::Duration> {
    // The process's CPU-time clock, as clock_getcpuclockid(3) makes it (without the
    // clock_getres call glibc adds to check the process exists): CPUCLOCK_SCHED of the
    // whole process, `(~pid << 3) | 2`.
    let clock: libc::clockid_t = (!(pid as i32) << 3) | 2;
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        if libc::clock_gettime(clock, &mut ts) != 0 {
            return None;
        }
        Some(std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }
}

/// Lets the calling thread run on `allowed` again (undoes [`pin_current`]).
pub fn unpin_current(allowed: &[usize]) {
    let _ = set_affinity(0, &cpu_set(allowed));
}

/// The CPUs process `pid` (its main thread) may run on.
///
/// # Errors
/// The operating system's error (the process is gone).
pub fn process_cpus(pid: u32) -> std::io::Result<Vec<usize>> {
    cpus_of(pid as i32)
}

/// The CPUs the calling thread may run on.
///
/// # Errors
/// The operating system's error.
pub fn allowed_cpus() -> std::io::Result<Vec<usize>> {
    cpus_of(0)
}

/// The CPUs thread `tid` (0: the calling thread) may run on.
fn cpus_of(tid: i32) -> std::io::Result<Vec<usize>> {
    // SAFETY: sched_getaffinity writes into the zeroed set we pass; CPU_ISSET only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect())
    }
}

/// Moves the calling thread to `SCHED_FIFO` at `priority`.
///
/// # Errors
/// The operating system's error (`EPERM` without `CAP_SYS_NICE`).
pub fn make_current_thread_realtime(priority: i32) -> std::io::Result<()> {
    // SAFETY: a plain integer and a stack struct; only the calling thread is affected.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &libc::sched_param { sched_priority: priority }) };
    if r == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// The CPU the calling thread runs on.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: no arguments.
    let c = unsafe { libc::sched_getcpu() };
    usize::try_from(c).ok()
}

/// The CPU process `pid` last ran on, and whether it runs under a normal scheduling policy
/// (`SCHED_OTHER`, `SCHED_BATCH` or `SCHED_IDLE`), from `/proc/PID/stat`.
pub fn last_cpu(pid: u32) -> Option<(usize, bool)> {
    let fields = proc_stat(pid)?;
    let cpu = stat_field(&fields, 39)?;
    let policy: i32 = stat_field(&fields, 41)?;
    Some((cpu, matches!(policy, libc::SCHED_OTHER | libc::SCHED_BATCH | libc::SCHED_IDLE)))
}

/// The process's CPU time when [`mark_start`] was called (see [`self_usage`]).
static START_CPU_US: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Notes this process's CPU time so far, before any work of its own: what a process that
/// `exec`ed the host had used (`cargo run` compiling, a wrapper script) is then not counted
/// as the host's (see [`self_usage`]). Called first thing in `main`.
pub fn mark_start() {
    let _ = START_CPU_US.get_or_init(|| rusage_self().0);
}

/// CPU time (user + system) and `ru_maxrss` (KiB) of this process, both of which `exec`
/// keeps from the program it replaced.
fn rusage_self() -> (u64, u64) {
    // SAFETY: getrusage writes into the zeroed struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe {
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
    }
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    (us(ru.ru_utime) + us(ru.ru_stime), ru.ru_maxrss as u64)
}

/// CPU time (user + system) of the host since [`mark_start`], in microseconds, and its peak
/// RSS in KiB: `VmHWM` of `/proc/self/status`, which starts anew at `exec` (`ru_maxrss` does
/// not: run by `cargo run`, the host reported cargo's 72 MiB as its own), or `ru_maxrss`
/// when that file cannot be read.
pub fn self_usage() -> (u64, u64) {
    let (cpu, maxrss) = rusage_self();
    let cpu = cpu.saturating_sub(START_CPU_US.get().copied().unwrap_or(0));
    let hwm = std::fs::read_to_string("/proc/self/status").ok().and_then(|t| status_number(&t, "VmHWM:"));
    (cpu, hwm.unwrap_or(maxrss))
}

/// A readable name for a signal number.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        _ => return format!("signal {sig}"),
    };
    format!("signal {sig} ({name})")
}

/// Sets the capacity of a pipe (`F_SETPIPE_SZ`, rounded up by the kernel to a power of two
/// pages). A pipe whose every page holds data is "full": it becomes writable again the
/// moment its reader has taken a page.
///
/// # Errors
/// The operating system's error (not a pipe, or a kernel without `F_SETPIPE_SZ`).
pub fn set_pipe_size(fd: std::os::fd::RawFd, bytes: i32) -> std::io::Result<()> {
    // SAFETY: fcntl on a descriptor we own, with an integer argument.
    let r = unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, bytes) };
    if r < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
}

/// Whether something waits to be read from `fd` (or its writer is gone): a poll that does
/// not wait.
pub fn has_input(fd: std::os::fd::RawFd) -> bool {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd, no waiting.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    r > 0 && p.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
}

/// How many bytes wait unread in pipe `fd` (`FIONREAD`; on the write end of a pipe it
/// counts the same bytes as on the read end): the host counts a request as read as soon as
/// the pipe holds fewer bytes than it wrote. `None` when that cannot be told.
pub fn pipe_unread(fd: std::os::fd::RawFd) -> Option<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int into the variable we pass.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    if r < 0 { None } else { usize::try_from(n).ok() }
}

/// The capacity of pipe `fd` in bytes (`F_GETPIPE_SZ`).
pub fn pipe_size(fd: std::os::fd::RawFd) -> Option<usize> {
    // SAFETY: fcntl on a descriptor we own, no pointer.
    let r = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    usize::try_from(r).ok()
}

/// The steal time of every CPU so far, by CPU number (`/proc/stat`'s eighth field of each
/// `cpuN` line: time the hypervisor ran something else while that virtual CPU wanted to
/// run). The kernel counts it in nanoseconds but shows it in clock ticks (10 ms at the
/// usual `USER_HZ` of 100), so a difference of two readings can be up to one tick more or
/// less than the steal between them. Empty when the file cannot be read.
pub fn cpu_steal() -> Vec<std::time::Duration> {
    // SAFETY: sysconf takes no pointers.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let tick =
        std::time::Duration::from_nanos(1_000_000_000 / u64::try_from(hz).ok().filter(|&h| h > 0).unwrap_or(100));
    let Ok(text) = std::fs::read_to_string("/proc/stat") else { return Vec::new() };
    steal_by_cpu(&text, tick)
}

/// [`cpu_steal`] from the text of `/proc/stat`, a tick being `tick`: the `cpuN` lines only
/// (the first line, `cpu` alone, totals every CPU), CPUs numbered below [`MAX_CPUS`].
fn steal_by_cpu(text: &str, tick: std::time::Duration) -> Vec<std::time::Duration> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("cpu") else { break };
        // The CPU's number is written against `cpu`; the totals' line has a space there.
        if rest.starts_with(char::is_whitespace) {
            continue;
        }
        let mut fields = rest.split_whitespace();
        let Some(Ok(cpu)) = fields.next().map(str::parse::<usize>) else { continue };
        if cpu >= MAX_CPUS {
            continue;
        }
        let steal: u32 = fields.nth(7).and_then(|f| f.parse().ok()).unwrap_or(0);
        if out.len() <= cpu {
            out.resize(cpu + 1, std::time::Duration::ZERO);
        }
        out[cpu] = tick * steal;
    }
    out
}

/// The CPUs [`cpu_steal`] reads at most (Linux's own limit is 8,192).
const MAX_CPUS: usize = 8192;

/// Whether this machine is a virtual machine (x86's `hypervisor` CPU flag in
/// `/proc/cpuinfo`), read once: only a hypervisor pauses a CPU without the kernel knowing
/// (see [`crate::supervise::stall_watch::StallWatch::checkpoints`]).
pub fn under_hypervisor() -> bool {
    static UNDER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *UNDER.get_or_init(|| {
        std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|text| {
            text.lines()
                .filter(|l| l.starts_with("flags"))
                .any(|l| l.split_whitespace().any(|flag| flag == "hypervisor"))
        })
    })
}

/// An anonymous file, close-on-exec.
///
/// # Errors
/// The operating system's error.
pub fn memfd(name: &std::ffi::CStr) -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: a valid C string and flags; the descriptor returned is ours to own.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor nothing else owns.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

#[cfg(test)]
mod steal_tests {
    #[test]
    fn the_peak_rss_is_read_from_vm_hwm() {
        let status = "Name:\tstratego-host\nVmPeak:\t  123456 kB\nVmHWM:\t   10240 kB\nVmRSS:\t 9000 kB\n";
        assert_eq!(super::status_number(status, "VmHWM:"), Some(10_240));
        assert_eq!(super::status_number("Name:\tx\n", "VmHWM:"), None);
        assert_eq!(super::status_number("voluntary_ctxt_switches:\t42\n", "voluntary_ctxt_switches:"), Some(42));
        let (_, rss) = super::self_usage();
        assert!(rss > 0);
    }

    #[test]
    fn steal_is_read_from_each_cpus_line_and_the_totals_line_is_left_out() {
        // The totals' line's first number (the user time of all CPUs, here 10,132,153
        // ticks) is no CPU number: read as one, it made a vector of 10 million entries at
        // every look at a bot (the host spent 33 ms of CPU a ply on it, at real-time
        // priority, on the CPU of the bot it was timing).
        let stat = "cpu  10132153 290696 3084719 46828483 16683 0 25195 175628 0 0\n\
                    cpu0 1393280 32966 572056 13343292 6130 0 17875 100 0 0\n\
                    cpu1 1335848 36225 527014 13427624 5390 0 4223 75528 0 0\n\
                    intr 1462898 0 0 0\n";
        let ms = std::time::Duration::from_millis;
        assert_eq!(super::steal_by_cpu(stat, ms(10)), vec![ms(1_000), ms(755_280)]);
        // A CPU number past any machine's is left out rather than allocated for.
        assert_eq!(super::steal_by_cpu("cpu99999999 1 2 3 4 5 6 7 8 0 0\n", ms(10)), Vec::new());
    }

    #[test]
    fn steal_is_read_for_every_cpu_of_this_machine() {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let steal = super::cpu_steal();
        assert!(steal.len() >= cpus && steal.len() <= 8192, "{} CPUs, {} read", cpus, steal.len());
    }
}

#[cfg(test)]
mod cpu_clock_tests {
    #[test]
    fn the_cpu_time_of_a_child_process_can_be_read() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 1"])
            .spawn()
            .unwrap();
        // Read until it has used 50 ms (on a loaded machine that may take seconds).
        let t0 = std::time::Instant::now();
        let t = loop {
            let t = super::process_cpu_time(child.id());
            if t.is_none_or(|t| t > std::time::Duration::from_millis(50)) || t0.elapsed().as_secs() > 60 {
                break t;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let _ = child.kill();
        let _ = child.wait();
        assert!(t.is_some_and(|t| t > std::time::Duration::from_millis(50)), "{t:?}");
    }

    #[test]
    fn the_own_account_of_a_single_threaded_process_follows_it() {
        // A shell that spins, then sleeps.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 5"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let spinning = super::own_account(child.id()).expect("one thread, normal policy");
        assert!(spinning.runnable, "spinning: {spinning:?}");
        // Wait for the loop to end (the shell then sleeps).
        let t0 = std::time::Instant::now();
        let asleep = loop {
            let a = super::own_account(child.id()).unwrap();
            if !a.runnable || t0.elapsed() > std::time::Duration::from_secs(60) {
                break a;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let _ = child.kill();
        let _ = child.wait();
        assert!(!asleep.runnable, "asleep: {asleep:?}");
        assert!(asleep.cpu > spinning.cpu, "{spinning:?} then {asleep:?}");
        assert!(asleep.slices >= spinning.slices && asleep.waited >= spinning.waited);
        // This test process has several threads: no account.
        let helper = std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_millis(200)));
        assert!(super::own_account(std::process::id()).is_none());
        helper.join().unwrap();
        assert!(super::thread_waited().is_some());
    }
}
