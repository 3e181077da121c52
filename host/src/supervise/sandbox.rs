//! The opt-in sandbox for untrusted bots (`--sandbox`, or `"sandbox": true` in a bot spec):
//! each bot process runs under bubblewrap (`bwrap`) in new user, PID, IPC, UTS and network
//! namespaces, sees the system read-only and its own directory read-only, writes only to a
//! private size-limited `/tmp`, and runs in its own cgroups (memory, pids) where the machine
//! lets the host create them, with rlimits otherwise.
//!
//! What a sandboxed bot sees:
//!
//! - `/usr` (and the `/bin`, `/lib*` links or directories), `/etc` and `/opt`, read-only;
//!   entries of `/etc` that not every user may read (`/etc/shadow`, private keys) are
//!   masked, because a host run as root stays root's user id outside the user namespace;
//! - its own paths, read-only, at the same place as on the host: its `dir`, the directory
//!   of its program (the host's executable alone for the built-in sample bot), the
//!   directory of every file its command names (`python3 bots/me/bot.py`), and for a
//!   program found on PATH outside the system directories, that PATH directory (a
//!   `shims` directory brings its parent: pyenv, rbenv, asdf);
//! - nothing else of the host: the records directory, the setup book, the tournament file
//!   and every other bot's program, directory and files are masked (an unreadable empty
//!   file or directory) when they lie inside one of its paths;
//! - `/proc` of its own PID namespace (it is pid 2; bwrap's reaper is pid 1), a minimal
//!   `/dev`, `/tmp` and `/dev/shm` as private tmpfs of the disk limit each; no network but
//!   its own loopback unless `--sandbox-net`; an environment of `PATH`, `HOME=/tmp`,
//!   `TMPDIR=/tmp`, the locale variables, `TZ`, `PYENV_VERSION`, `JAVA_HOME` and the spec's
//!   `env`; no capabilities, no new
//!   privileges, no nested user namespaces, a new session (no terminal to inject into).
//!
//! The host keeps talking to it over the same pipes, the same clocks apply, and the kill
//! sequence kills bwrap's process group: bwrap's reaper dies with it (`--die-with-parent`),
//! and the kernel kills every process of a PID namespace whose first process dies, so
//! nothing the bot started survives, whatever session or group it moved to.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::supervise::bot_spec::{BotSpec, Limits};
use crate::supervise::sandbox_paths::*;
pub use crate::supervise::sandbox_paths::{Masks, SANDBOX_GID, SANDBOX_UID};

mod cgroup;
pub use cgroup::{BotCgroup, CgroupVersion};
use cgroup::{cgroups, make_cgroup};

/// Processes and threads a sandboxed bot may have at once when its spec sets no `pids`.
pub const DEFAULT_PIDS: u32 = 128;
/// Size of a sandboxed bot's `/tmp` (and of its `/dev/shm`) when its spec sets no `disk`.
pub const DEFAULT_DISK_BYTES: u64 = 64 << 20;
/// Memory of a sandboxed bot's cgroup when its spec sets no `memory`.
pub const DEFAULT_MEMORY_BYTES: u64 = 2 << 30;

/// Mount points every sandbox makes of its own (never remade by the directories above a
/// bot's paths).
const SANDBOX_MOUNTS: &[&str] = &["/tmp", "/dev", "/dev/shm", "/proc"];
/// Environment variables a sandboxed bot keeps from the host (besides its spec's `env`).
const KEPT_ENV: &[&str] = &["PATH", "LANG", "LANGUAGE", "TZ", "PYENV_VERSION", "JAVA_HOME"];

/// bubblewrap as found on this machine, checked once.
#[derive(Debug)]
struct Bwrap {
    path: PathBuf,
    version: String,
}

/// Finds `bwrap` on PATH and checks that it can create the sandbox's namespaces here, once
/// per run.
fn bwrap() -> Result<&'static Bwrap, String> {
    static BWRAP: OnceLock<Result<Bwrap, String>> = OnceLock::new();
    BWRAP.get_or_init(find_and_probe_bwrap).as_ref().map_err(Clone::clone)
}

fn find_and_probe_bwrap() -> Result<Bwrap, String> {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::split_paths(&path_var).map(|d| d.join("bwrap")).find(|p| is_executable(p)).ok_or_else(|| {
            "--sandbox needs bubblewrap, and `bwrap` is not on PATH: install it (Debian/Ubuntu: `apt-get install \
         bubblewrap`; Fedora: `dnf install bubblewrap`; Arch: `pacman -S bubblewrap`)"
                .to_owned()
        })?;
    let version = std::process::Command::new(&path)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    // The same namespaces as a bot's sandbox, around `true`.
    let mut probe = std::process::Command::new(&path);
    probe.args(namespace_args(false));
    probe.args(system_args());
    probe.args(["--proc", "/proc", "--dev", "/dev", "--"]);
    if host_is_root() && !is_executable(Path::new(SETPRIV)) {
        return Err(format!(
            "--sandbox: the host runs as root, so its bots run as uid {SANDBOX_UID} (nobody), which needs {SETPRIV} \
             (util-linux): install it (Debian/Ubuntu: `apt-get install util-linux`), or run the host as an \
             ordinary user"
        ));
    }
    probe.args(drop_to_sandbox_user());
    probe.arg("true");
    let out = probe.output().map_err(|e| format!("--sandbox: could not run {}: {e}", path.display()))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        return Err(format!(
            "--sandbox: bubblewrap ({}) cannot create the sandbox's namespaces on this machine: {said}. {}",
            path.display(),
            userns_diagnosis()
        ));
    }
    Ok(Bwrap { path, version: if version.is_empty() { "bwrap".to_owned() } else { version } })
}

/// Why user namespaces may be unavailable, with the fix, from the kernel's settings.
fn userns_diagnosis() -> String {
    let read = |p: &str| std::fs::read_to_string(p).ok().map(|s| s.trim().to_owned());
    let mut causes = Vec::new();
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        causes.push("user namespaces are disabled (user.max_user_namespaces = 0; fix: `sysctl -w user.max_user_namespaces=10000`)");
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        causes.push(
            "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0; fix: `sysctl -w kernel.unprivileged_userns_clone=1`)",
        );
    }
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        causes.push(
            "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1; fix: an AppArmor profile for bwrap, or `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`)",
        );
    }
    if causes.is_empty() {
        "The sandbox needs user namespaces, and this machine (or the container the host runs in) does not let it \
         create one. Fix: allow them: `sysctl -w user.max_user_namespaces=10000`; on older Debian \
         `sysctl -w kernel.unprivileged_userns_clone=1`; on Ubuntu 23.10 and later an AppArmor profile for bwrap or \
         `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; in a container, a seccomp profile that allows \
         unshare/clone with user namespaces (docker: --security-opt seccomp=unconfined)"
            .to_owned()
    } else {
        causes.join("; ")
    }
}

/// The program that drops to [`SANDBOX_UID`] inside the sandbox (util-linux).
const SETPRIV: &str = "/usr/bin/setpriv";

/// Whether the host runs as root (its sandboxed bots then run as [`SANDBOX_UID`]).
fn host_is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The namespace and privilege flags of every sandbox. A host that is not root needs a
/// user namespace to make the others, and the bot keeps the host's user id outside it; a
/// host run as root makes them without one and keeps only the capabilities `setpriv`
/// needs to drop to [`SANDBOX_UID`] (see [`launch`]).
fn namespace_args(net: bool) -> Vec<&'static str> {
    let mut args = vec![
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ];
    if host_is_root() {
        args.extend(["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]);
    } else {
        args.extend(["--unshare-user", "--disable-userns"]);
    }
    if !net {
        args.push("--unshare-net");
    }
    args
}

/// The command that runs the bot's command as [`SANDBOX_UID`] with no capabilities, no
/// supplementary groups and no new privileges (empty when the host is not root).
fn drop_to_sandbox_user() -> Vec<OsString> {
    if !host_is_root() {
        return Vec::new();
    }
    [
        SETPRIV.to_owned(),
        format!("--reuid={SANDBOX_UID}"),
        format!("--regid={SANDBOX_GID}"),
        "--clear-groups".to_owned(),
        "--bounding-set=-all".to_owned(),
        "--inh-caps=-all".to_owned(),
        "--no-new-privs".to_owned(),
        "--".to_owned(),
    ]
    .into_iter()
    .map(OsString::from)
    .collect()
}

/// The read-only system: `/usr`, `/etc`, `/opt` and the top-level links or directories.
fn system_args() -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    for dir in SYSTEM_DIRS {
        if Path::new(dir).is_dir() {
            args.extend(["--ro-bind".into(), (*dir).into(), (*dir).into()]);
        }
    }
    for name in SYSTEM_LINKS {
        let p = Path::new(name);
        match std::fs::read_link(p) {
            Ok(target) => args.extend(["--symlink".into(), target.into_os_string(), (*name).into()]),
            Err(_) if p.is_dir() => args.extend(["--ro-bind".into(), (*name).into(), (*name).into()]),
            Err(_) => {}
        }
    }
    args
}

/// How a resource limit is (or is not) enforced in a sandbox.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Enforced {
    Cgroup(CgroupVersion),
    Rlimit,
    Not(String),
}

/// The sandbox settings of one bot, with what is enforced how.
#[derive(Clone, Debug)]
pub struct Settings {
    net: bool,
    memory: (u64, Enforced),
    pids: (u32, Enforced),
    disk: u64,
    cpu_seconds: Option<u64>,
    /// How a pinned bot is held to its CPU.
    cpuset: Enforced,
    /// How its CPU share is lowered off its turns.
    cpu_share: Enforced,
}

impl Settings {
    /// The sandbox of a bot with these (merged) limits on this machine.
    fn of(limits: &Limits) -> Settings {
        let cg = cgroups();
        let memory = limits.memory_bytes.unwrap_or(DEFAULT_MEMORY_BYTES);
        // Without a memory cgroup (an ordinary user's host on cgroup v1, or v2 without
        // delegation), the limit, given or the default, is an address-space limit.
        let memory_by = match &cg.memory {
            Ok(c) => Enforced::Cgroup(c.version),
            Err(_) => Enforced::Rlimit,
        };
        let pids = limits.pids.unwrap_or(DEFAULT_PIDS);
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let pids_by = match &cg.pids {
            Ok(c) => Enforced::Cgroup(c.version),
            Err(_) if !root && prlimit().is_some() => Enforced::Rlimit,
            Err(why) if root => Enforced::Not(format!("{why}; RLIMIT_NPROC does not bind a host run as root")),
            Err(why) => Enforced::Not(format!("{why}; and prlimit (util-linux) is not on PATH for RLIMIT_NPROC")),
        };
        Settings {
            net: limits.sandbox_net.unwrap_or(false),
            memory: (memory, memory_by),
            pids: (pids, pids_by),
            disk: limits.disk_bytes.unwrap_or(DEFAULT_DISK_BYTES),
            cpu_seconds: limits.cpu_seconds,
            cpuset: match &cg.cpuset {
                Ok(c) => Enforced::Cgroup(c.version),
                Err(why) => Enforced::Not(why.clone()),
            },
            cpu_share: match &cg.cpu {
                Ok(c) => Enforced::Cgroup(c.version),
                Err(why) => Enforced::Not(why.clone()),
            },
        }
    }

    /// One line for the start of a run: what the sandbox contains and every limit, how it
    /// is enforced, or why it could not be.
    pub fn describe(&self, spec: &BotSpec) -> String {
        let bwrap_version = bwrap().map(|b| b.version.clone()).unwrap_or_default();
        let mut s = format!(
            "{bwrap_version}; {}; namespaces {}pid, ipc, uts, {}",
            if host_is_root() {
                format!("runs as uid {SANDBOX_UID} (nobody; the host is root)")
            } else {
                // SAFETY: geteuid has no preconditions.
                format!("runs as the host's uid {} (not root)", unsafe { libc::geteuid() })
            },
            if host_is_root() { "" } else { "user, " },
            if self.net { "network shared with the host (--sandbox-net)" } else { "net (no network)" }
        );
        s.push_str(
            "; system calls filtered (no namespaces, keyrings, file locks, Unix sockets by path or sockets of \
             families other than Internet and netlink, io_uring, tee, file notifications or leases)",
        );
        let binds = own_binds(spec);
        let _ = write!(s, "; read-only: the system");
        for b in &binds {
            let _ = write!(s, ", {}", b.display());
        }
        let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
        let _ = write!(s, "; private /tmp and /dev/shm of {:.0} MiB each (tmpfs)", mib(self.disk));
        let how = |e: &Enforced| match e {
            Enforced::Cgroup(v) => format!("{v}"),
            Enforced::Rlimit => "rlimit".to_owned(),
            Enforced::Not(why) => format!("NOT APPLIED: {why}"),
        };
        let _ = write!(
            s,
            "; memory {:.0} MiB ({})",
            mib(self.memory.0),
            match &self.memory.1 {
                Enforced::Rlimit => "RLIMIT_AS per process, no memory cgroup".to_owned(),
                e => how(e),
            }
        );
        let _ = write!(
            s,
            "; processes and threads {} ({})",
            self.pids.0,
            match &self.pids.1 {
                Enforced::Rlimit => "RLIMIT_NPROC in its user namespace, no pids cgroup".to_owned(),
                e => how(e),
            }
        );
        match self.cpu_seconds {
            Some(secs) => {
                let _ = write!(s, "; cpu time {secs} s per process (RLIMIT_CPU)");
            }
            None => s.push_str("; cpu time: no limit (--bot-cpu or \"cpu_seconds\" sets one)"),
        }
        match &self.cpuset {
            Enforced::Cgroup(v) => {
                let _ = write!(s, "; CPU placement: enforced when pinned (--pin; {v} cpuset)");
            }
            e => {
                let _ = write!(s, "; CPU placement: NOT ENFORCED (a pinned bot can undo its pin): {}", how(e));
            }
        }
        match &self.cpu_share {
            Enforced::Cgroup(v) => {
                let _ = write!(s, "; CPU share: lowest off its turns ({v} cpu)");
            }
            e => {
                let _ = write!(s, "; CPU share off its turns: NOT LOWERED: {}", how(e));
            }
        }
        let (_, outside) = split_argument_paths(spec, &bot_cwd(spec));
        if !outside.is_empty() {
            let list: Vec<String> = outside.iter().map(|p| p.display().to_string()).collect();
            let _ = write!(s, "; not shown, outside its own directory: {}", list.join(", "));
        }
        s
    }

    /// The limits that could not be applied, with why.
    pub fn not_applied(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Enforced::Not(why) = &self.memory.1 {
            out.push(format!("memory limit: {why}"));
        }
        if let Enforced::Not(why) = &self.pids.1 {
            out.push(format!("process limit: {why}"));
        }
        out
    }
}

/// How a sandbox started by this process would limit a bot's processes (`cgroup v1`,
/// `cgroup v2`, `RLIMIT_NPROC`), or why it could not.
///
/// # Errors
/// Why no process limit would be in force.
pub fn process_limit() -> Result<String, String> {
    match Settings::of(&Limits::default()).pids.1 {
        Enforced::Cgroup(v) => Ok(v.to_string()),
        Enforced::Rlimit => Ok("RLIMIT_NPROC".to_owned()),
        Enforced::Not(why) => Err(why),
    }
}

fn prlimit() -> Option<PathBuf> {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path_var).map(|d| d.join("prlimit")).find(|p| is_executable(p))
}

/// Checks, before the first game, that `spec` (limits already merged with the run's) can
/// run in the sandbox on this machine, and describes it: the line to print at start, and
/// the limits that could not be applied.
///
/// # Errors
/// What is missing (bwrap, user namespaces), with the fix; or a bad combination of keys.
pub fn prepare(spec: &BotSpec) -> Result<Settings, String> {
    bwrap().map_err(|e| format!("bot {}: {e}", spec.name))?;
    mask_sources().map_err(|e| format!("bot {}: --sandbox: {e}", spec.name))?;
    if host_is_root() {
        let unreadable = unreadable_by_sandbox_user(spec);
        if let Some(first) = unreadable.first() {
            let list: Vec<String> = unreadable.iter().map(|p| p.display().to_string()).collect();
            return Err(format!(
                "bot {}: the host runs as root, so its sandboxed bots run as uid {SANDBOX_UID} (nobody), and that user \
                 cannot read {}: make it readable by others (`chmod o+rX {}`), or run the host as an ordinary user",
                spec.name,
                list.join(", "),
                first.display()
            ));
        }
    }
    Ok(Settings::of(&spec.limits))
}

/// Checks the sandbox keys of a bot (`l`: its spec's own limits) that does not run in the
/// sandbox.
///
/// # Errors
/// A sandbox-only key (`sandbox_net`, `pids`, `disk`) set without the sandbox.
pub fn check_unsandboxed(name: &str, l: &Limits) -> Result<(), String> {
    let set: Vec<&str> =
        [("sandbox_net", l.sandbox_net == Some(true)), ("pids", l.pids.is_some()), ("disk", l.disk_bytes.is_some())]
            .into_iter()
            .filter_map(|(k, on)| on.then_some(k))
            .collect();
    if set.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "bot {name}: {} only apply in the sandbox (--sandbox, or \"sandbox\": true in its spec)",
            set.join(", ")
        ))
    }
}

/// How to start one sandboxed bot process: bwrap's command line and environment, the
/// cgroups it joins before exec, and the rlimits it keeps.
pub struct Launch {
    /// bwrap.
    pub program: PathBuf,
    /// bwrap's arguments, ending with `--` and the bot's command.
    pub args: Vec<OsString>,
    /// The whole environment (the host's is cleared).
    pub env: Vec<(String, String)>,
    /// The bot's cgroups, joined between fork and exec.
    pub cgroup: Option<BotCgroup>,
    /// The rlimits to set before exec: `RLIMIT_AS` is left out when a memory cgroup limits
    /// the sandbox (an address-space limit breaks runtimes that reserve address space, and
    /// the cgroup counts what the bot really uses, in all its processes and its /tmp).
    pub limits: Limits,
    /// bwrap's options (`--args FD`) and the system-call filter (`--seccomp FD`):
    /// inherited by bwrap only (see [`inherit_fd`]).
    pub inherited: Vec<File>,
}

/// Clears close-on-exec on `fd`, in the child between fork and exec, so that bwrap (and
/// only this child) inherits it.
///
/// # Safety
/// Only `fcntl`, which is async-signal-safe.
///
/// # Errors
/// The operating system's error.
pub unsafe fn inherit_fd(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl on a descriptor the parent opened, with an integer argument.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// bwrap's command line, environment and cgroups for one process of `spec`, pinned to
/// `cpu` when given, with what `reg` says no sandbox may show masked.
///
/// # Errors
/// The sandbox cannot be used here (see [`prepare`]), or its cgroups cannot be made.
pub fn launch(spec: &BotSpec, cpu: Option<usize>, reg: &Masks) -> std::io::Result<Launch> {
    let bwrap = bwrap().map_err(std::io::Error::other)?;
    let settings = Settings::of(&spec.limits);
    let (mask_file, mask_dir) = mask_sources()?;
    let mut args: Vec<OsString> = namespace_args(settings.net).into_iter().map(OsString::from).collect();
    args.extend(system_args());
    let bind = |args: &mut Vec<OsString>, flag: &str, src: &Path, dest: &Path| {
        args.extend([flag.into(), src.as_os_str().to_owned(), dest.as_os_str().to_owned()]);
    };
    for p in etc_masks() {
        bind(&mut args, "--ro-bind", if p.is_dir() { mask_dir } else { mask_file }, p);
    }
    let disk = settings.disk.to_string();
    args.extend(
        ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", &disk, "--tmpfs", "/dev/shm"]
            .map(OsString::from),
    );
    // The kernel's settings read-only, whoever the bot runs as.
    args.extend(["--ro-bind", "/proc/sys", "/proc/sys"].map(OsString::from));
    args.extend(["--remount-ro", "/dev", "--perms", "1777", "--size", &disk, "--tmpfs", "/tmp"].map(OsString::from));
    let binds = own_binds(spec);
    let cwd = bot_cwd(spec);
    if spec.dir.is_some() {
        no_other_bot_in(&cwd, spec, reg)?;
    }
    // The directories above its own paths, made in the sandbox's root and open to every
    // user (bwrap would copy the modes of the host's: `/root` is closed to `nobody`).
    let mut above: BTreeSet<PathBuf> = BTreeSet::new();
    for b in binds.iter().chain([&cwd]) {
        above.extend(
            b.ancestors()
                .skip(1)
                .filter(|a| {
                    a.parent().is_some() && !is_system_path(a) && !SANDBOX_MOUNTS.contains(&a.to_str().unwrap_or(""))
                })
                .map(Path::to_owned),
        );
    }
    for a in above.iter().filter(|a| !binds.iter().any(|b| a.starts_with(b))) {
        args.extend(["--perms".into(), "0755".into(), "--dir".into(), a.as_os_str().to_owned()]);
    }
    if !binds.iter().any(|b| cwd.starts_with(b)) {
        args.extend(["--perms".into(), "0755".into(), "--dir".into(), cwd.as_os_str().to_owned()]);
    }
    for b in &binds {
        bind(&mut args, "--ro-bind", b, b);
    }
    // Mask what lies inside its own paths but is not its own: the records (this run's and
    // earlier runs' in its directory), the book, the ladder, other bots. Paths that do not
    // exist (yet) need no mask.
    let own = identity_paths(spec);
    let mut masks: BTreeSet<PathBuf> = reg.hidden.iter().map(|p| absolute(p)).collect();
    for (name, paths) in &reg.bots {
        if name != &spec.name {
            masks.extend(paths.iter().cloned());
        }
    }
    for b in binds.iter().filter(|b| b.is_dir() && !is_host_exe(&b.to_string_lossy())) {
        masks.extend(records_within(b, &own));
    }
    for m in masks {
        let inside = binds.iter().any(|b| m.starts_with(b));
        let its_own = own.iter().any(|o| o.starts_with(&m));
        if inside && !its_own && m.exists() {
            bind(&mut args, "--ro-bind", if m.is_dir() { mask_dir } else { mask_file }, &m);
        }
    }
    args.extend(["--chdir".into(), cwd.as_os_str().to_owned(), "--remount-ro".into(), "/".into()]);
    // The system-call filter, applied by bwrap just before it runs the command.
    let seccomp_file = crate::supervise::seccomp::program_file()?;
    args.extend(["--seccomp".into(), seccomp_file.as_raw_fd().to_string().into()]);
    // The options go through a file descriptor, so that bwrap's command line (pid 1 in the
    // sandbox, readable by the bot) does not show the masked paths.
    let args_file = args_memfd(&args)?;
    let mut args: Vec<OsString> = vec!["--args".into(), args_file.as_raw_fd().to_string().into(), "--".into()];
    args.extend(drop_to_sandbox_user());
    if settings.pids.1 == Enforced::Rlimit {
        // Without a pids cgroup: RLIMIT_NPROC set inside the sandbox counts the processes
        // of its own user namespace only (bwrap's reaper included).
        let prlimit = prlimit().ok_or_else(|| std::io::Error::other("prlimit is not on PATH"))?;
        let n = settings.pids.0 + 1;
        args.extend([prlimit.into_os_string(), format!("--nproc={n}:{n}").into(), "--".into()]);
    }
    args.extend(spec.command.iter().map(OsString::from));
    let env = sandbox_env(spec);
    let cgroup = make_cgroup(&settings, cpu)?;
    let mut limits = spec.limits;
    limits.memory_bytes = match settings.memory.1 {
        Enforced::Cgroup(_) => None,
        _ => Some(settings.memory.0),
    };
    Ok(Launch { program: bwrap.path.clone(), args, env, cgroup, limits, inherited: vec![args_file, seccomp_file] })
}

/// A bot sees its whole dir (`cwd`): one that holds another bot would show that bot's files
/// beside its program (its notes, its setups), which no mask can know of.
fn no_other_bot_in(cwd: &Path, spec: &BotSpec, reg: &Masks) -> std::io::Result<()> {
    for (name, paths) in reg.bots.iter().filter(|(n, _)| n != &spec.name) {
        if let Some(p) = paths.iter().find(|p| p.starts_with(cwd)) {
            return Err(std::io::Error::other(format!(
                "--sandbox: the dir of bot {} ({}) holds bot {name}'s {}: in the sandbox a bot sees its whole dir, \
                 so each bot needs a directory of its own",
                spec.name,
                cwd.display(),
                p.display()
            )));
        }
    }
    Ok(())
}

/// A sandboxed bot's environment: the host's variables it keeps ([`KEPT_ENV`], the locale),
/// `HOME` and `TMPDIR` in its `/tmp`, and its spec's `env`.
fn sandbox_env(spec: &BotSpec) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    for (k, v) in std::env::vars() {
        if KEPT_ENV.contains(&k.as_str()) || k.starts_with("LC_") {
            env.push((k, v));
        }
    }
    env.push(("HOME".into(), "/tmp".into()));
    env.push(("TMPDIR".into(), "/tmp".into()));
    env.extend(spec.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

/// bwrap's options, NUL-separated, in an anonymous file read from its start.
fn args_memfd(args: &[OsString]) -> std::io::Result<File> {
    use std::io::{Seek, Write};
    use std::os::unix::ffi::OsStrExt;
    let mut file = crate::supervise::os::memfd(c"stratego-bwrap-args")?;
    let mut bytes = Vec::new();
    for a in args {
        bytes.extend_from_slice(a.as_bytes());
        bytes.push(0);
    }
    file.write_all(&bytes)?;
    file.rewind()?;
    Ok(file)
}

/// Writes "0" (the calling process) to each cgroup's `cgroup.procs`: run in the child
/// between fork and exec, so that bwrap and everything it starts are in the cgroups.
///
/// # Safety
/// Only `write`, which is async-signal-safe.
///
/// # Errors
/// The operating system's error.
pub unsafe fn join_cgroups(fds: &[RawFd]) -> std::io::Result<()> {
    for &fd in fds {
        // SAFETY: writing two bytes from a static buffer to a descriptor the parent opened.
        if unsafe { libc::write(fd, b"0\n".as_ptr().cast(), 2) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The process of a sandbox that runs the bot (its host pid), found from bwrap's: bwrap's
/// child is the namespace's reaper, whose child is the bot.
pub fn bot_pid(bwrap_pid: u32) -> Option<u32> {
    let child = |pid: u32| -> Option<u32> {
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .ok()?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    child(child(bwrap_pid)?)
}

/// An exit status of bwrap as the bot's own: bwrap exits with 128 + N when the bot was
/// killed by signal N. Returns (exit code, signal).
pub fn bot_exit(code: Option<i32>, signal: Option<i32>) -> (Option<i32>, Option<i32>) {
    match (code, signal) {
        (Some(c), None) if (129..=128 + 64).contains(&c) => (None, Some(c - 128)),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bwrap_exit_codes_above_128_are_the_bots_signals() {
        assert_eq!(bot_exit(Some(137), None), (None, Some(9)));
        assert_eq!(bot_exit(Some(152), None), (None, Some(24)));
        assert_eq!(bot_exit(Some(1), None), (Some(1), None));
        assert_eq!(bot_exit(None, Some(9)), (None, Some(9)));
    }
}
