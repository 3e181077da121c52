//! A test bot that plays random legal moves but first tries to cheat and to harm the
//! machine, for the sandbox's tests (`tests/tests/sandbox.rs`).
//!
//! At its first setup request (both bots have started by then) it makes every attempt its
//! environment names and writes one line per attempt to stderr:
//! `HOSTILE <attempt>: MANAGED <what>` or `HOSTILE <attempt>: blocked <why>`, then
//! `HOSTILE done`. Then it plays. With `--attack-now` it makes them at once and exits (no
//! host: what a process started the same way manages).
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
//! - `HOSTILE_OOM=1`: at its first turn, allocate memory until something stops it;
//! - `HOSTILE_SYSCTL=1`: write a kernel setting (`kernel.printk_ratelimit`, its own value
//!   back) and open `kernel.core_pattern` for writing (nothing written);
//! - always: `root`, managed when its user id in the parent of its user namespace is 0
//!   (the machine's root when that is the first namespace; a sandbox of a host that is not
//!   root nests two, whose middle one maps the bot to 0 without making it root);
//! - always: `fds`, managed when it holds a descriptor from 3 up that it did not open (an
//!   inherited one): it reads from each and releases any `flock` on it;
//! - `HOSTILE_KEYRING=DESC`: read the key DESC of its session keyring (`keyring`); leave a key
//!   of that name with `-left` in its user keyring for 60 s (`keyring-leave`);
//!   `HOSTILE_KEYRING_FIND=DESC`: find such a key left by an earlier bot (`keyring-find`);
//! - `HOSTILE_READ=FILE[:FILE…]`: read each file (`read:FILE`);
//! - `HOSTILE_UNPIN=1`: widen its CPU affinity to every CPU (`unpin`, managed when it then
//!   may run on more than one);
//! - `HOSTILE_SPIN=N`: start N busy processes in new sessions (`spin`), left running;
//! - `HOSTILE_FLOCK=FILE`: take an exclusive `flock` on FILE (`flock`: the covert channel
//!   between sandboxes that see the same file);
//! - `HOSTILE_UNIX=PATH`: connect to the Unix socket PATH (`unix`);
//! - always: `tee`, managed when `tee(2)` may be called on its stdin (it peeks at a turn
//!   without reading it);
//! - always: `uring-tee`, the same through io_uring (`IORING_OP_TEE` on its stdin), and
//!   `peek`, `recv(MSG_PEEK)` on its stdin (managed when the call is allowed: it answers
//!   data or `EAGAIN`);
//! - `HOSTILE_UNIX_DGRAM=PATH`: send a datagram to the Unix datagram socket PATH from a
//!   `socketpair(AF_UNIX, SOCK_DGRAM)` socket, by `sendto(PATH)` (`unix-sendto`),
//!   `sendmsg` with PATH as its address (`unix-sendmsg`) and `connect(PATH)` then `send`
//!   (`unix-connect`), and from a connected stream pair by `connect(PATH)`
//!   (`unix-pair-connect`);
//! - `HOSTILE_URING_UNIX=PATH`: connect to the Unix stream socket PATH with io_uring's
//!   `IORING_OP_SOCKET` and `IORING_OP_CONNECT` (`uring-connect`);
//! - `HOSTILE_DNOTIFY=DIR`: arm `fcntl(F_NOTIFY, DN_ACCESS|DN_MULTISHOT)` on DIR, read a
//!   file in it, and wait a second for the notification's signal (`dnotify`: another
//!   sandbox that reads a file there would signal it the same way);
//! - always: `lease` and `getlease`, `fcntl(F_SETLEASE, F_RDLCK)` and `F_GETLEASE` on a
//!   file of its own `/tmp` (a lease breaks when another process opens the file: a
//!   signal); `inotify` (`inotify_init1` and a watch on `/etc`) and `fanotify`
//!   (`fanotify_init`, unprivileged flags);
//! - `HOSTILE_TOUCH_MIB=N`: map and touch N MiB, 64 MiB at a time, then give it back
//!   (`touch`, managed when all N were touched).

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

/// Descriptors open when the process started (from 3 up): inherited ones.
static INHERITED: std::sync::OnceLock<Vec<i32>> = std::sync::OnceLock::new();

fn open_fds() -> Vec<i32> {
    // Read with a raw getdents-free approach: try each descriptor below 256.
    (3..256).filter(|&fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } >= 0).collect()
}

fn errno_text() -> String {
    std::io::Error::last_os_error().to_string()
}

fn sysctl() {
    let path = "/proc/sys/kernel/printk_ratelimit";
    let value = std::fs::read_to_string(path).unwrap_or_default();
    match std::fs::write(path, value.trim()) {
        Ok(()) => report("sysctl", true, &format!("wrote {} to {path}", value.trim())),
        Err(e) => report("sysctl", false, &format!("{path}: {e}")),
    }
    match std::fs::OpenOptions::new().write(true).open("/proc/sys/kernel/core_pattern") {
        Ok(_) => report("core-pattern", true, "opened kernel.core_pattern for writing"),
        Err(e) => report("core-pattern", false, &format!("kernel.core_pattern: {e}")),
    }
}

fn outside_uid() {
    let uid = unsafe { libc::getuid() };
    let map = std::fs::read_to_string("/proc/self/uid_map").unwrap_or_default();
    let outside = map.lines().find_map(|l| {
        let f: Vec<u64> = l.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        (f.len() == 3 && (f[0]..f[0] + f[2]).contains(&u64::from(uid))).then(|| f[1] + (u64::from(uid) - f[0]))
    });
    match outside {
        Some(0) => report(
            "root",
            true,
            &format!("uid {uid} here is uid 0 in the parent user namespace (uid_map {})", map.trim()),
        ),
        Some(o) => report("root", false, &format!("uid {uid} here is {o} in the parent user namespace")),
        None => report("root", false, &format!("uid {uid} is not mapped outside")),
    }
}

fn inherited_fds() {
    let fds = INHERITED.get().cloned().unwrap_or_default();
    if fds.is_empty() {
        return report("fds", false, "no descriptor from 3 up at start");
    }
    let mut what = Vec::new();
    for fd in fds {
        let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).map(|p| p.display().to_string());
        let mut buf = [0u8; 64];
        let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
        let read = if n > 0 { String::from_utf8_lossy(&buf[..n as usize]).trim().to_owned() } else { String::new() };
        let unlocked = unsafe { libc::flock(fd, libc::LOCK_UN) } == 0;
        what.push(format!("fd {fd} -> {target:?} read {read:?} unlocked {unlocked}"));
    }
    report("fds", true, &what.join("; "))
}

// keyctl(2)'s operations and special keyring ids (linux/keyctl.h).
const KEYCTL_SEARCH: libc::c_long = 10;
const KEYCTL_READ: libc::c_long = 11;
const KEYCTL_SET_TIMEOUT: libc::c_long = 15;
const SESSION: libc::c_long = -3;
const USER: libc::c_long = -4;

fn keyring(desc: &str) {
    let c = |s: &str| std::ffi::CString::new(s).unwrap();
    let (ty, d) = (c("user"), c(desc));
    let id = unsafe { libc::syscall(libc::SYS_keyctl, KEYCTL_SEARCH, SESSION, ty.as_ptr(), d.as_ptr(), 0) };
    if id < 0 {
        report("keyring", false, &format!("search {desc}: {}", errno_text()));
    } else {
        let mut buf = [0u8; 256];
        let n = unsafe { libc::syscall(libc::SYS_keyctl, KEYCTL_READ, id, buf.as_mut_ptr(), buf.len(), 0) };
        if n > 0 {
            let v = String::from_utf8_lossy(&buf[..(n as usize).min(buf.len())]).into_owned();
            report("keyring", true, &format!("read key {desc}: {v}"));
        } else {
            report("keyring", false, &format!("read {desc}: {}", errno_text()));
        }
    }
    let left = c(&format!("{desc}-left"));
    let value = b"left by a hostile bot";
    let id = unsafe { libc::syscall(libc::SYS_add_key, ty.as_ptr(), left.as_ptr(), value.as_ptr(), value.len(), USER) };
    if id < 0 {
        report("keyring-leave", false, &format!("add_key: {}", errno_text()));
    } else {
        unsafe { libc::syscall(libc::SYS_keyctl, KEYCTL_SET_TIMEOUT, id, 60) };
        report("keyring-leave", true, &format!("left key {desc}-left ({id}) in its user keyring"));
    }
}

fn keyring_find(desc: &str) {
    let (ty, d) = (std::ffi::CString::new("user").unwrap(), std::ffi::CString::new(desc).unwrap());
    let id = unsafe { libc::syscall(libc::SYS_keyctl, KEYCTL_SEARCH, USER, ty.as_ptr(), d.as_ptr(), 0) };
    if id < 0 {
        report("keyring-find", false, &format!("search {desc}: {}", errno_text()));
    } else {
        report("keyring-find", true, &format!("found key {desc} ({id}) left by an earlier bot"));
    }
}

fn unpin() {
    let before = cpus_allowed();
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for c in 0..libc::CPU_SETSIZE as usize {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
    let after = cpus_allowed();
    let many = after.contains(',') || after.contains('-');
    report("unpin", many, &format!("Cpus_allowed_list {before} before, {after} after sched_setaffinity(all)"));
}

fn cpus_allowed() -> String {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:").map(|v| v.trim().to_owned()))
        .unwrap_or_default()
}

fn spin(n: u32) {
    let mut started = 0;
    for _ in 0..n {
        let ok = std::process::Command::new("setsid")
            .args(["-f", "sh", "-c", "while :; do :; done"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        started += u32::from(ok);
    }
    report("spin", started == n, &format!("started {started} of {n} busy processes in new sessions"));
}

fn flock(path: &str) {
    match std::fs::File::open(path) {
        Err(e) => report("flock", false, &format!("{path}: {e}")),
        Ok(f) => {
            use std::os::fd::AsRawFd;
            if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_UN) };
                report("flock", true, &format!("locked {path} (a signal every other process that sees it can read)"));
            } else {
                report("flock", false, &format!("flock {path}: {}", errno_text()));
            }
        }
    }
}

fn unix_socket(path: &str) {
    match std::os::unix::net::UnixStream::connect(path) {
        Ok(_) => report("unix", true, &format!("connected to {path}")),
        Err(e) => report("unix", false, &format!("{path}: {e}")),
    }
}

fn tee_stdin() {
    let mut pipe = [0; 2];
    unsafe { libc::pipe(pipe.as_mut_ptr()) };
    let r = unsafe { libc::tee(0, pipe[1], 1, libc::SPLICE_F_NONBLOCK) };
    let e = std::io::Error::last_os_error();
    unsafe {
        libc::close(pipe[0]);
        libc::close(pipe[1]);
    }
    if r >= 0 || e.raw_os_error() == Some(libc::EAGAIN) {
        report("tee", true, &format!("tee(2) on stdin is allowed (returned {r}, {e})"));
    } else {
        report("tee", false, &format!("tee(2) on stdin: {e}"));
    }
}

/// A one-operation io_uring: set up, submit one entry, wait for its completion.
mod uring {
    const IORING_OFF_SQ_RING: i64 = 0;
    const IORING_OFF_CQ_RING: i64 = 0x800_0000;
    const IORING_OFF_SQES: i64 = 0x1000_0000;
    const IORING_ENTER_GETEVENTS: u32 = 1;
    /// `IORING_OP_CONNECT`, `IORING_OP_TEE`, `IORING_OP_SOCKET` (linux/io_uring.h).
    pub const OP_CONNECT: u8 = 16;
    pub const OP_TEE: u8 = 33;
    pub const OP_SOCKET: u8 = 45;

    /// `struct io_uring_params` as 30 words: sq_entries 0, cq_entries 1, flags 2, …,
    /// sq_off from word 10 (head, tail, ring_mask, ring_entries, flags, dropped, array),
    /// cq_off from word 20 (head, tail, ring_mask, ring_entries, overflow, cqes).
    #[repr(C)]
    struct Params([u32; 30]);

    /// One submission entry (64 bytes), filled by offset.
    #[derive(Default)]
    pub struct Sqe {
        pub opcode: u8,
        pub fd: i32,
        /// `off` / `addr2`.
        pub off: u64,
        pub addr: u64,
        pub len: u32,
        /// `rw_flags` / `splice_flags`.
        pub op_flags: u32,
        pub splice_fd_in: i32,
    }

    pub struct Ring {
        fd: i32,
        sq: *mut u8,
        cq: *mut u8,
        sqes: *mut u8,
        p: Params,
    }

    impl Ring {
        /// A ring of 4 entries, or the error of `io_uring_setup`.
        pub fn new() -> Result<Ring, std::io::Error> {
            let mut p = Params([0; 30]);
            // SAFETY: io_uring_setup writes into the params struct we own; mmap of its rings.
            unsafe {
                let fd = libc::syscall(libc::SYS_io_uring_setup, 4u32, &mut p as *mut Params) as i32;
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let w = &p.0;
                let sq_len = w[16] as usize + w[0] as usize * 4;
                let cq_len = w[25] as usize + w[1] as usize * 16;
                let map = |len: usize, off: i64| {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_SHARED | libc::MAP_POPULATE,
                        fd,
                        off,
                    )
                };
                let sq = map(sq_len, IORING_OFF_SQ_RING);
                let cq = map(cq_len, IORING_OFF_CQ_RING);
                let sqes = map(w[0] as usize * 64, IORING_OFF_SQES);
                if [sq, cq, sqes].contains(&libc::MAP_FAILED) {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(Ring { fd, sq: sq.cast(), cq: cq.cast(), sqes: sqes.cast(), p })
            }
        }

        /// Submits `e` and waits for its result (`res`: a value, or minus an errno).
        pub fn run(&mut self, e: &Sqe) -> Result<i32, std::io::Error> {
            use std::sync::atomic::{AtomicU32, Ordering};
            let w = &self.p.0;
            // SAFETY: the offsets come from the kernel's params; the rings are mapped.
            unsafe {
                let at = |base: *mut u8, off: u32| &*(base.add(off as usize) as *const AtomicU32);
                let sq_tail = at(self.sq, w[11]);
                let mask = at(self.sq, w[12]).load(Ordering::Relaxed);
                let tail = sq_tail.load(Ordering::Acquire);
                let idx = tail & mask;
                let sqe = self.sqes.add(idx as usize * 64);
                std::ptr::write_bytes(sqe, 0, 64);
                *sqe = e.opcode;
                (sqe.add(4) as *mut i32).write_unaligned(e.fd);
                (sqe.add(8) as *mut u64).write_unaligned(e.off);
                (sqe.add(16) as *mut u64).write_unaligned(e.addr);
                (sqe.add(24) as *mut u32).write_unaligned(e.len);
                (sqe.add(28) as *mut u32).write_unaligned(e.op_flags);
                (sqe.add(32) as *mut u64).write_unaligned(7);
                (sqe.add(44) as *mut i32).write_unaligned(e.splice_fd_in);
                at(self.sq, w[16] + 4 * idx).store(idx, Ordering::Relaxed);
                sq_tail.store(tail.wrapping_add(1), Ordering::Release);
                let n = libc::syscall(
                    libc::SYS_io_uring_enter,
                    self.fd,
                    1u32,
                    1u32,
                    IORING_ENTER_GETEVENTS,
                    0usize,
                    0usize,
                );
                if n < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let cq_head = at(self.cq, w[20]);
                let head = cq_head.load(Ordering::Acquire);
                if head == at(self.cq, w[21]).load(Ordering::Acquire) {
                    return Err(std::io::Error::other("no completion"));
                }
                let cmask = at(self.cq, w[22]).load(Ordering::Relaxed);
                let cqe = self.cq.add(w[25] as usize + (head & cmask) as usize * 16);
                let res = (cqe.add(8) as *const i32).read_unaligned();
                cq_head.store(head.wrapping_add(1), Ordering::Release);
                Ok(res)
            }
        }
    }

    impl Drop for Ring {
        fn drop(&mut self) {
            // SAFETY: our own descriptor (the mappings go with the process).
            unsafe { libc::close(self.fd) };
        }
    }
}

fn sockaddr_un(path: &str) -> (libc::sockaddr_un, libc::socklen_t) {
    // SAFETY: an all-zero sockaddr_un is valid.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (d, s) in addr.sun_path.iter_mut().zip(path.as_bytes()) {
        *d = *s as libc::c_char;
    }
    (addr, std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t)
}

fn socket_pair(ty: i32) -> Result<[i32; 2], String> {
    let mut pair = [0; 2];
    // SAFETY: socketpair writes two descriptors into the array.
    if unsafe { libc::socketpair(libc::AF_UNIX, ty | libc::SOCK_CLOEXEC, 0, pair.as_mut_ptr()) } != 0 {
        return Err(format!("socketpair: {}", errno_text()));
    }
    Ok(pair)
}

/// A datagram to the Unix socket `path` by every call that takes an address, from a
/// socket made by `socketpair` (the one route `socket(AF_UNIX)` leaves).
fn unix_datagrams(path: &str) {
    let (addr, len) = sockaddr_un(path);
    let sa = &addr as *const libc::sockaddr_un as *const libc::sockaddr;
    let attempt = |name: &str, f: &dyn Fn(i32) -> isize| match socket_pair(libc::SOCK_DGRAM) {
        Err(e) => report(name, false, &format!("{path}: {e}")),
        Ok(pair) => {
            let r = f(pair[0]);
            let what = if r >= 0 { format!("sent {r} bytes to {path}") } else { format!("{path}: {}", errno_text()) };
            report(name, r >= 0, &what);
            // SAFETY: our own descriptors.
            unsafe {
                libc::close(pair[0]);
                libc::close(pair[1]);
            }
        }
    };
    // SAFETY (the three closures): system calls with valid pointers and lengths.
    attempt("unix-sendto", &|fd| unsafe { libc::sendto(fd, b"sendto".as_ptr().cast(), 6, 0, sa, len) });
    attempt("unix-sendmsg", &|fd| unsafe {
        let mut iov = libc::iovec { iov_base: b"sendmsg".as_ptr() as *mut _, iov_len: 7 };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_name = sa as *mut _;
        msg.msg_namelen = len;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        libc::sendmsg(fd, &msg, 0)
    });
    attempt("unix-connect", &|fd| unsafe {
        if libc::connect(fd, sa, len) != 0 {
            return -1;
        }
        libc::send(fd, b"connect".as_ptr().cast(), 7, 0)
    });
    match socket_pair(libc::SOCK_STREAM) {
        Err(e) => report("unix-pair-connect", false, &e),
        Ok(pair) => {
            // SAFETY: connect with a valid address; our own descriptors.
            let r = unsafe { libc::connect(pair[0], sa, len) };
            let what = if r == 0 { format!("connected a stream pair to {path}") } else { errno_text() };
            report("unix-pair-connect", r == 0, &what);
            unsafe {
                libc::close(pair[0]);
                libc::close(pair[1]);
            }
        }
    }
}

/// io_uring's own socket and connect: calls the kernel makes without the system-call filter.
fn uring_connect(path: &str) {
    let mut ring = match uring::Ring::new() {
        Ok(r) => r,
        Err(e) => return report("uring-connect", false, &format!("io_uring_setup: {e}")),
    };
    let socket = uring::Sqe {
        opcode: uring::OP_SOCKET,
        fd: libc::AF_UNIX,
        off: (libc::SOCK_STREAM | libc::SOCK_CLOEXEC) as u64,
        ..uring::Sqe::default()
    };
    let fd = match ring.run(&socket) {
        Ok(fd) if fd >= 0 => fd,
        Ok(e) => return report("uring-connect", false, &format!("IORING_OP_SOCKET: errno {}", -e)),
        Err(e) => return report("uring-connect", false, &format!("io_uring_enter: {e}")),
    };
    let (addr, len) = sockaddr_un(path);
    let connect = uring::Sqe {
        opcode: uring::OP_CONNECT,
        fd,
        off: u64::from(len),
        addr: &addr as *const libc::sockaddr_un as u64,
        ..uring::Sqe::default()
    };
    match ring.run(&connect) {
        Ok(0) => report("uring-connect", true, &format!("IORING_OP_SOCKET and IORING_OP_CONNECT reached {path}")),
        Ok(e) => report("uring-connect", false, &format!("IORING_OP_CONNECT {path}: errno {}", -e)),
        Err(e) => report("uring-connect", false, &format!("io_uring_enter: {e}")),
    }
    // SAFETY: the socket io_uring made for us.
    unsafe { libc::close(fd) };
}

/// `IORING_OP_TEE` from stdin (a peek at the turn, as `tee(2)`), and `recv(MSG_PEEK)`.
fn uring_tee_and_peek() {
    let mut pipe = [0; 2];
    // SAFETY: pipe writes two descriptors into the array.
    unsafe { libc::pipe(pipe.as_mut_ptr()) };
    match uring::Ring::new() {
        Err(e) => report("uring-tee", false, &format!("io_uring_setup: {e}")),
        Ok(mut ring) => {
            let tee = uring::Sqe {
                opcode: uring::OP_TEE,
                fd: pipe[1],
                len: 4096,
                op_flags: libc::SPLICE_F_NONBLOCK,
                splice_fd_in: 0,
                ..uring::Sqe::default()
            };
            match ring.run(&tee) {
                Ok(r) if r >= 0 || r == -libc::EAGAIN => {
                    report("uring-tee", true, &format!("IORING_OP_TEE on stdin is allowed (res {r})"))
                }
                Ok(e) => report("uring-tee", false, &format!("IORING_OP_TEE on stdin: errno {}", -e)),
                Err(e) => report("uring-tee", false, &format!("io_uring_enter: {e}")),
            }
        }
    }
    // SAFETY: our own descriptors; recv into a stack buffer.
    unsafe {
        libc::close(pipe[0]);
        libc::close(pipe[1]);
        let mut buf = [0u8; 64];
        let r = libc::recv(0, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_PEEK | libc::MSG_DONTWAIT);
        let e = std::io::Error::last_os_error();
        if r >= 0 || e.raw_os_error() == Some(libc::EAGAIN) {
            report("peek", true, &format!("recv(MSG_PEEK) on stdin is allowed (returned {r})"));
        } else {
            report("peek", false, &format!("recv(MSG_PEEK) on stdin: {e}"));
        }
    }
}

/// dnotify on `dir`: armed, then a read of a file in it must raise the signal.
fn dnotify(dir: &str) {
    const DN_ACCESS: i32 = 0x1;
    const DN_MULTISHOT: i32 = 0x8000_0000u32 as i32;
    let Some(file) = std::fs::read_dir(dir)
        .ok()
        .and_then(|d| d.flatten().map(|e| e.path()).find(|p| p.is_file() && std::fs::read(p).is_ok()))
    else {
        return report("dnotify", false, &format!("no readable file in {dir}"));
    };
    let Ok(d) = std::fs::File::open(dir) else { return report("dnotify", false, &format!("cannot open {dir}")) };
    use std::os::fd::AsRawFd;
    // SAFETY: signal-mask and fcntl calls with valid pointers and our own descriptor.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGIO);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        if libc::fcntl(d.as_raw_fd(), libc::F_NOTIFY, DN_ACCESS | DN_MULTISHOT) != 0 {
            return report("dnotify", false, &format!("F_NOTIFY on {dir}: {}", errno_text()));
        }
        let _ = std::fs::read(&file);
        let wait = libc::timespec { tv_sec: 1, tv_nsec: 0 };
        let got = libc::sigtimedwait(&set, std::ptr::null_mut(), &wait);
        libc::fcntl(d.as_raw_fd(), libc::F_NOTIFY, 0);
        let none = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        while libc::sigtimedwait(&set, std::ptr::null_mut(), &none) > 0 {}
        if got == libc::SIGIO {
            report("dnotify", true, &format!("a read of {} in {dir} raised SIGIO", file.display()));
        } else {
            report("dnotify", false, &format!("armed F_NOTIFY on {dir}, but no signal: {}", errno_text()));
        }
    }
}

/// Leases on a file of its own (a break is a signal), inotify and fanotify.
fn leases_and_watches() {
    use std::os::fd::AsRawFd;
    let dir = std::env::var("TMPDIR").unwrap_or_else(|_| "/tmp".into());
    let path = format!("{dir}/hostile-lease-{}", std::process::id());
    let _ = std::fs::write(&path, "lease");
    match std::fs::File::open(&path) {
        Err(e) => report("lease", false, &format!("{path}: {e}")),
        // SAFETY: fcntl with integers on our own descriptor.
        Ok(f) => unsafe {
            if libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) == 0 {
                report("lease", true, &format!("took a read lease on {path}"));
                libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK);
            } else {
                report("lease", false, &format!("F_SETLEASE {path}: {}", errno_text()));
            }
            let r = libc::fcntl(f.as_raw_fd(), libc::F_GETLEASE);
            let what =
                if r >= 0 { format!("F_GETLEASE answered {r}") } else { format!("F_GETLEASE: {}", errno_text()) };
            report("getlease", r >= 0, &what);
        },
    }
    let _ = std::fs::remove_file(&path);
    // SAFETY: plain integers and a valid C string; our own descriptors.
    unsafe {
        let fd = libc::inotify_init1(libc::IN_CLOEXEC);
        if fd < 0 {
            report("inotify", false, &format!("inotify_init1: {}", errno_text()));
        } else {
            let w = libc::inotify_add_watch(fd, c"/etc".as_ptr(), libc::IN_ACCESS | libc::IN_OPEN);
            report("inotify", w >= 0, &format!("inotify watch on /etc: {w}"));
            libc::close(fd);
        }
        const FAN_CLASS_NOTIF: u32 = 0;
        const FAN_REPORT_FID: u32 = 0x200;
        let fd = libc::syscall(libc::SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_REPORT_FID, libc::O_RDONLY);
        if fd < 0 {
            report("fanotify", false, &format!("fanotify_init: {}", errno_text()));
        } else {
            report("fanotify", true, "fanotify_init answered a descriptor");
            libc::close(fd as i32);
        }
    }
}

/// Maps and touches `mib` MiB, 64 MiB at a time, then gives it back.
fn touch(mib: u64) {
    const CHUNK: usize = 64 << 20;
    let mut maps = Vec::new();
    let mut error = None;
    while (maps.len() * CHUNK) < (mib << 20) as usize {
        // SAFETY: an anonymous private mapping, touched a byte a page, unmapped below.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                CHUNK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if p == libc::MAP_FAILED {
                error = Some(errno_text());
                break;
            }
            for i in (0..CHUNK).step_by(4096) {
                *(p as *mut u8).add(i) = 1;
            }
            maps.push(p);
        }
    }
    let touched = maps.len() * 64;
    for p in maps {
        // SAFETY: a mapping made above.
        unsafe { libc::munmap(p, CHUNK) };
    }
    match error {
        None => report("touch", true, &format!("touched {touched} MiB")),
        Some(e) => report("touch", false, &format!("touched {touched} of {mib} MiB: mmap: {e}")),
    }
}

fn attack() {
    outside_uid();
    inherited_fds();
    tee_stdin();
    uring_tee_and_peek();
    leases_and_watches();
    if let Some(p) = env("HOSTILE_UNIX_DGRAM") {
        unix_datagrams(&p);
    }
    if let Some(p) = env("HOSTILE_URING_UNIX") {
        uring_connect(&p);
    }
    if let Some(d) = env("HOSTILE_DNOTIFY") {
        dnotify(&d);
    }
    if let Some(n) = env("HOSTILE_TOUCH_MIB").and_then(|v| v.parse().ok()) {
        touch(n);
    }
    if env("HOSTILE_SYSCTL").is_some() {
        sysctl();
    }
    if let Some(desc) = env("HOSTILE_KEYRING") {
        keyring(&desc);
    }
    if let Some(desc) = env("HOSTILE_KEYRING_FIND") {
        keyring_find(&desc);
    }
    if let Some(list) = env("HOSTILE_READ") {
        for p in list.split(':') {
            read_file(&format!("read:{p}"), p);
        }
    }
    if env("HOSTILE_UNPIN").is_some() {
        unpin();
    }
    if let Some(p) = env("HOSTILE_FLOCK") {
        flock(&p);
    }
    if let Some(p) = env("HOSTILE_UNIX") {
        unix_socket(&p);
    }
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
    if let Some(n) = env("HOSTILE_SPIN").and_then(|v| v.parse().ok()) {
        spin(n);
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
    let _ = INHERITED.set(open_fds());
    if std::env::args().any(|a| a == "--attack-now") {
        // No host: the attempts at once (what a process started the same way manages).
        attack();
        return Ok(());
    }
    bot::run(Hostile { attacked: false, oom: env("HOSTILE_OOM").is_some() })
}
