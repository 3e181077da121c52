//! The sandbox's cgroups: which controllers (memory, pids, cpuset, cpu) this host can
//! create cgroups with, in which hierarchy (v1 or v2), and one bot's cgroups with its limits.

use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Enforced, Settings};

/// A cgroup hierarchy the host can create cgroups in, for one controller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Controller {
    pub(super) version: CgroupVersion,
    /// The host's own cgroup in that hierarchy (bots' cgroups are made inside it).
    pub(super) dir: PathBuf,
}

/// cgroup v1 (a hierarchy per controller) or v2 (the unified hierarchy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CgroupVersion {
    /// A v1 hierarchy (`/sys/fs/cgroup/memory`, …).
    V1,
    /// The v2 unified hierarchy.
    V2,
}

impl std::fmt::Display for CgroupVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CgroupVersion::V1 => "cgroup v1",
            CgroupVersion::V2 => "cgroup v2",
        })
    }
}

/// The memory and pids controllers this host can use, or why not.
pub(super) struct Cgroups {
    pub(super) memory: Result<Controller, String>,
    pub(super) pids: Result<Controller, String>,
    /// Holds a pinned bot to its CPU (`sched_setaffinity` cannot undo it).
    pub(super) cpuset: Result<Controller, String>,
    /// Gives a bot a CPU share that is low off its turn.
    pub(super) cpu: Result<Controller, String>,
}

pub(super) fn cgroups() -> &'static Cgroups {
    static CGROUPS: OnceLock<Cgroups> = OnceLock::new();
    CGROUPS.get_or_init(|| {
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        Cgroups {
            memory: find_controller("memory", &mounts, &own),
            pids: find_controller("pids", &mounts, &own),
            cpuset: find_controller("cpuset", &mounts, &own),
            cpu: find_controller("cpu", &mounts, &own),
        }
    })
}

/// A place to create cgroups with `controller`: the host's own cgroup in the v1 hierarchy
/// of that controller, else in the v2 hierarchy when the controller is delegated to it.
pub(super) fn find_controller(controller: &str, mountinfo: &str, own: &str) -> Result<Controller, String> {
    let mut v2_mount = None;
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else { continue };
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        if left.len() < 5 || right.len() < 3 {
            continue;
        }
        let (root, mount_point) = (left[3], PathBuf::from(unescape_mount(left[4])));
        match right[0] {
            "cgroup" if right[2].split(',').any(|o| o == controller) => {
                let path = own
                    .lines()
                    .filter_map(|l| l.splitn(3, ':').collect::<Vec<_>>().try_into().ok())
                    .find(|[_, ctrls, _]: &[&str; 3]| ctrls.split(',').any(|c| c == controller))
                    .map(|[_, _, p]| p.to_owned());
                let Some(path) = path else {
                    return Err(format!("the host is in no {controller} cgroup (/proc/self/cgroup)"));
                };
                let dir = join_cgroup(&mount_point, root, &path);
                return probe_dir(controller, CgroupVersion::V1, dir);
            }
            "cgroup2" => v2_mount = Some((mount_point, root.to_owned())),
            _ => {}
        }
    }
    let Some((mount_point, root)) = v2_mount else {
        return Err(format!("no cgroup hierarchy has the {controller} controller"));
    };
    let path = own.lines().find_map(|l| l.strip_prefix("0::")).unwrap_or("/").to_owned();
    let dir = join_cgroup(&mount_point, &root, &path);
    let available = std::fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
    if !available.split_whitespace().any(|c| c == controller) {
        return Err(format!(
            "the {controller} controller is not delegated to the host's cgroup {} (start the host in a delegated \
             scope: `systemd-run --user --scope -p Delegate=yes stratego-host …`)",
            dir.display()
        ));
    }
    enable_v2(&dir, controller)?;
    probe_dir(controller, CgroupVersion::V2, dir)
}

pub(super) fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
}

pub(super) fn join_cgroup(mount_point: &Path, root: &str, path: &str) -> PathBuf {
    let rel = path.strip_prefix(root).unwrap_or(path).trim_start_matches('/');
    if rel.is_empty() { mount_point.to_owned() } else { mount_point.join(rel) }
}

/// In cgroup v2 a cgroup with processes cannot give controllers to its children (except
/// the root): move the host into a leaf `stratego-host-PID` first, then enable the
/// controller for the children.
pub(super) fn enable_v2(dir: &Path, controller: &str) -> Result<(), String> {
    let subtree = dir.join("cgroup.subtree_control");
    let enabled = std::fs::read_to_string(&subtree).unwrap_or_default();
    if enabled.split_whitespace().any(|c| c == controller) {
        return Ok(());
    }
    let leaf = dir.join(format!("stratego-host-{}", std::process::id()));
    let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
    if !procs.trim().is_empty() && dir.parent().is_some() {
        std::fs::create_dir_all(&leaf)
            .and_then(|()| std::fs::write(leaf.join("cgroup.procs"), std::process::id().to_string()))
            .map_err(|e| format!("cannot move the host into a leaf cgroup {}: {e}", leaf.display()))?;
    }
    std::fs::write(&subtree, format!("+{controller}"))
        .map_err(|e| format!("cannot enable the {controller} controller in {}: {e}", subtree.display()))
}

/// Checks that the host may create (and remove) a cgroup in `dir`.
pub(super) fn probe_dir(controller: &str, version: CgroupVersion, dir: PathBuf) -> Result<Controller, String> {
    remove_stale(&dir);
    let probe = dir.join(format!("stratego-{}-probe", std::process::id()));
    match std::fs::create_dir(&probe) {
        Ok(()) => {
            let _ = std::fs::remove_dir(&probe);
            Ok(Controller { version, dir })
        }
        Err(e) => Err(format!("cannot create a {controller} cgroup in {} ({version}): {e}", dir.display())),
    }
}

/// Removes cgroups left by hosts that died (`stratego-PID-N` whose PID is gone and which
/// hold no process).
pub(super) fn remove_stale(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("stratego-").and_then(|r| r.split('-').next()) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(e.path());
        }
    }
}

/// The cgroups of one sandboxed process (memory and/or pids), removed when it is gone.
pub struct BotCgroup {
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each, open for writing: the child writes "0" (itself) to each.
    procs: Vec<File>,
    memory: Option<(PathBuf, CgroupVersion)>,
    /// Its CPU weight (`cpu.shares` or `cpu.weight`), open for writing, with the values on
    /// and off its turns.
    weight: Option<(File, &'static str, &'static str)>,
    /// The weight last written: on its turn or not.
    on_turn: std::sync::atomic::AtomicBool,
}

/// CPU weights of a sandboxed bot: cgroup v1's `cpu.shares` (1024 is a process's default,
/// 2 the least) and v2's `cpu.weight` (100 and 1). From its answer until the host next
/// writes to it (its opponent's turn) all its processes together get a CPU only when
/// nothing else wants it, so processes it leaves spinning cannot starve the opponent that
/// is thinking; whenever the host writes to it (a turn, a move played, the end of a game,
/// `quit`) it has its full share again.
pub(super) const WEIGHTS_V1: (&str, &str) = ("1024", "2");
pub(super) const WEIGHTS_V2: (&str, &str) = ("100", "1");

impl BotCgroup {
    /// Sets its CPU weight for its turn (`true`: full) or off it (the least). Two small
    /// writes a turn, only when the weight changes; nothing without a cpu cgroup.
    pub fn set_on_turn(&self, on: bool) {
        let Some((file, high, low)) = &self.weight else { return };
        if self.on_turn.swap(on, Ordering::Relaxed) == on {
            return;
        }
        use std::os::unix::fs::FileExt;
        let _ = file.write_at(if on { high.as_bytes() } else { low.as_bytes() }, 0);
    }

    /// The descriptors the child writes "0" to between fork and exec.
    pub fn join_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// Whether the kernel's OOM killer killed a process of this sandbox (its memory limit).
    pub fn oom_killed(&self) -> bool {
        let Some((dir, version)) = &self.memory else { return false };
        let file = match version {
            CgroupVersion::V1 => "memory.oom_control",
            CgroupVersion::V2 => "memory.events",
        };
        std::fs::read_to_string(dir.join(file))
            .ok()
            .and_then(|t| t.lines().find_map(|l| l.strip_prefix("oom_kill ").map(|n| n.trim().parse::<u64>())))
            .is_some_and(|n| n.is_ok_and(|n| n > 0))
    }

    /// Removes the cgroups once their processes are gone (retrying while the kernel
    /// finishes the exits). Blocking: call it off the runtime's threads.
    pub fn remove(mut self) {
        self.procs.clear();
        for dir in std::mem::take(&mut self.dirs) {
            for _ in 0..50 {
                match std::fs::remove_dir(&dir) {
                    Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                        std::thread::sleep(std::time::Duration::from_millis(10))
                    }
                    _ => break,
                }
            }
        }
    }
}

impl Drop for BotCgroup {
    fn drop(&mut self) {
        for dir in &self.dirs {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Makes the cgroups of one sandboxed process with its limits: memory, pids, a cpuset of
/// `cpu` when the bot is pinned to it, and a cpu cgroup for its weight.
pub(super) fn make_cgroup(settings: &Settings, cpu: Option<usize>) -> std::io::Result<Option<BotCgroup>> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let cg = cgroups();
    let name = format!("stratego-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let mut out = BotCgroup {
        dirs: Vec::new(),
        procs: Vec::new(),
        memory: None,
        weight: None,
        on_turn: std::sync::atomic::AtomicBool::new(true),
    };
    let write = |p: PathBuf, v: String| {
        std::fs::write(&p, &v).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))
    };
    // The bot's cgroup in a controller's hierarchy (one directory per hierarchy; v2 has one
    // for all), made at its first use. `setup` runs before the bot's process may join it.
    let ensure = |out: &mut BotCgroup,
                  c: &Controller,
                  setup: &dyn Fn(&Path) -> std::io::Result<()>|
     -> std::io::Result<PathBuf> {
        let dir = c.dir.join(&name);
        if !out.dirs.contains(&dir) {
            std::fs::create_dir(&dir)?;
            out.dirs.push(dir.clone());
            setup(&dir)?;
            out.procs.push(std::fs::OpenOptions::new().write(true).open(dir.join("cgroup.procs"))?);
        } else {
            setup(&dir)?;
        }
        Ok(dir)
    };
    if let (Ok(c), Enforced::Cgroup(_)) = (&cg.memory, &settings.memory.1) {
        let bytes = settings.memory.0;
        let dir = ensure(&mut out, c, &|dir| match c.version {
            CgroupVersion::V1 => {
                write(dir.join("memory.limit_in_bytes"), bytes.to_string())?;
                // With swap accounting, swap counts too (the file is absent without it).
                let _ = std::fs::write(dir.join("memory.memsw.limit_in_bytes"), bytes.to_string());
                Ok(())
            }
            CgroupVersion::V2 => {
                write(dir.join("memory.max"), bytes.to_string())?;
                let _ = std::fs::write(dir.join("memory.swap.max"), "0");
                Ok(())
            }
        })?;
        out.memory = Some((dir, c.version));
    }
    if let (Ok(c), Enforced::Cgroup(_)) = (&cg.pids, &settings.pids.1) {
        // bwrap's own two processes (its monitor and the namespace's reaper) count too.
        let max = (settings.pids.0 + 2).to_string();
        ensure(&mut out, c, &|dir| write(dir.join("pids.max"), max.clone()))?;
    }
    if let (Some(cpu), Ok(c)) = (cpu, &cg.cpuset) {
        ensure(&mut out, c, &|dir| {
            if c.version == CgroupVersion::V1 {
                // A v1 cpuset takes no process before it has memory nodes: the parent's.
                let mems = std::fs::read_to_string(c.dir.join("cpuset.mems")).unwrap_or_default();
                write(dir.join("cpuset.mems"), mems.trim().to_owned())?;
            }
            write(dir.join("cpuset.cpus"), cpu.to_string())
        })?;
    }
    if let Ok(c) = &cg.cpu {
        let (file, (high, low)) = match c.version {
            CgroupVersion::V1 => ("cpu.shares", WEIGHTS_V1),
            CgroupVersion::V2 => ("cpu.weight", WEIGHTS_V2),
        };
        let dir = ensure(&mut out, c, &|_| Ok(()))?;
        out.weight = Some((std::fs::OpenOptions::new().write(true).open(dir.join(file))?, high, low));
    }
    Ok(if out.dirs.is_empty() { None } else { Some(out) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_paths_join_the_mount_and_the_hosts_own_cgroup() {
        let mountinfo = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n\
                         35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
                         41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw";
        let own = "4:memory:/a/b\n0::/\n";
        assert_eq!(
            join_cgroup(Path::new("/sys/fs/cgroup/memory"), "/", "/a/b"),
            Path::new("/sys/fs/cgroup/memory/a/b")
        );
        assert_eq!(join_cgroup(Path::new("/sys/fs/cgroup/memory"), "/a", "/a/b"), Path::new("/sys/fs/cgroup/memory/b"));
        assert_eq!(join_cgroup(Path::new("/m"), "/", "/"), Path::new("/m"));
        // Not writable here (the test need not be root): the error names the directory.
        match find_controller("memory", mountinfo, own) {
            Ok(c) => assert_eq!(c.dir, Path::new("/sys/fs/cgroup/memory/a/b")),
            Err(e) => assert!(e.contains("/sys/fs/cgroup/memory/a/b"), "{e}"),
        }
        let e = find_controller("pids", "", own).unwrap_err();
        assert!(e.contains("no cgroup hierarchy has the pids controller"), "{e}");
    }
}
