//! The system-call filter of a sandboxed bot (classic BPF, loaded by bubblewrap with
//! `--seccomp FD` just before it runs the bot's command).
//!
//! It closes what the namespaces leave open between sandboxes and towards the host:
//!
//! - new namespaces (`unshare`, `setns`, `clone` with a `CLONE_NEW*` flag; `clone3`, whose
//!   flags a filter cannot read, answers `ENOSYS` so that the C library falls back to
//!   `clone`): a bot of a host run as root has no user namespace of its own to stop them;
//! - the kernel's keyrings (`add_key`, `request_key`, `keyctl`): they are not namespaced, so
//!   a key left by one sandbox could be read by the next one of the same user;
//! - file locks (`flock`, and `fcntl`'s lock commands): every sandbox shares the inodes of the
//!   system's files, and a lock on `/etc/hostname` is seen by every other sandbox — a
//!   covert channel between bots. Locks answer `ENOLCK` ("no locks available");
//! - sockets that reach past the network namespace: `socket` makes only Internet
//!   (`AF_INET`, `AF_INET6`) and netlink sockets, whose reach the network namespace decides
//!   (no `AF_UNIX`, whose socket files in a directory a bot can see lead outside; no
//!   `AF_VSOCK`, which reaches the hypervisor and other VMs; no other family), and
//!   `socketpair` makes only connected Unix stream and seqpacket pairs: a datagram pair
//!   could `connect` or `sendto`/`sendmsg` any socket path, while a stream or seqpacket
//!   socket that is already connected cannot be connected again, and the kernel refuses
//!   (stream) or ignores (seqpacket) a destination address on it;
//! - `io_uring` (`io_uring_setup`, `io_uring_enter`, `io_uring_register` answer `ENOSYS`,
//!   so runtimes fall back to ordinary calls): its operations (`IORING_OP_SOCKET`,
//!   `IORING_OP_CONNECT`, `IORING_OP_TEE`, …) are made by the kernel without passing this
//!   filter;
//! - `tee` (it copies a pipe without consuming it: a bot could read its turn while the host
//!   still sees it unread), `inotify`/`fanotify`, and `fcntl`'s directory notifications
//!   (`F_NOTIFY`, dnotify) and leases (`F_SETLEASE`, `F_GETLEASE`): they see other
//!   sandboxes open shared files, a channel between bots; `perf_event_open` (the machine's
//!   hardware counters);
//! - any other architecture's system calls (32-bit calls on a 64-bit kernel) and x32 calls.
//!
//! Everything else is allowed: the filter is a deny list of things no bot needs.

use std::fs::File;

/// `AUDIT_ARCH_X86_64` (linux/audit.h): EM_X86_64 | 64-bit | little-endian.
#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xC000_003E;
/// `AUDIT_ARCH_AARCH64`.
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xC000_00B7;

/// Flags of `clone` that make a new namespace (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC,
/// NEWUSER, NEWPID, NEWNET, NEWTIME).
const CLONE_NEW_ANY: u32 =
    0x0002_0000 | 0x0200_0000 | 0x0400_0000 | 0x0800_0000 | 0x1000_0000 | 0x2000_0000 | 0x4000_0000 | 0x0000_0080;

const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;

// Offsets in `struct seccomp_data`: nr (u32), arch (u32), instruction_pointer (u64),
// args[6] (u64 each; the low half first on a little-endian machine).
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const fn off_arg_low(i: u32) -> u32 {
    16 + 8 * i
}

/// What a denied call returns.
#[derive(Clone, Copy)]
enum Deny {
    Errno(i32),
}

impl Deny {
    fn ret(self) -> u32 {
        match self {
            Deny::Errno(e) => SECCOMP_RET_ERRNO | (e as u32 & 0xffff),
        }
    }
}

/// One rule: a system call, denied always or when one argument matches.
#[derive(Clone, Copy)]
enum Rule {
    /// The call is denied.
    Always(libc::c_long, Deny),
    /// Denied when the low 32 bits of argument `arg` equal one of `values`.
    ArgIn(libc::c_long, u32, &'static [u32], Deny),
    /// Denied when the low 32 bits of argument `arg` have any bit of `mask`.
    ArgAnyBit(libc::c_long, u32, u32, Deny),
    /// Denied unless the low 32 bits of argument `arg`, masked with the `u32`, equal one of
    /// `values` (an allow list).
    ArgMaskedNotIn(libc::c_long, u32, u32, &'static [u32], Deny),
}

/// fcntl's lock commands: F_GETLK, F_SETLK, F_SETLKW and the open-file-description ones.
const LOCK_COMMANDS: &[u32] = &[5, 6, 7, 36, 37, 38];
/// fcntl's lease and directory-notification commands: F_SETLEASE, F_GETLEASE, F_NOTIFY.
const NOTIFY_COMMANDS: &[u32] = &[1024, 1025, 1026];
/// The socket families a bot may make: Internet (its network namespace decides where they
/// reach) and netlink (the C library asks it for the interfaces' addresses).
const SOCKET_FAMILIES: &[u32] = &[libc::AF_INET as u32, libc::AF_INET6 as u32, libc::AF_NETLINK as u32];
/// The socket types `socketpair` may make (the low four bits of its type; the flags
/// `SOCK_NONBLOCK` and `SOCK_CLOEXEC` are above them): connected pairs that no address
/// reaches past.
const PAIR_TYPES: &[u32] = &[libc::SOCK_STREAM as u32, libc::SOCK_SEQPACKET as u32];

fn rules() -> Vec<Rule> {
    use Deny::Errno;
    let mut rules = vec![
        Rule::Always(libc::SYS_unshare, Errno(libc::EPERM)),
        Rule::Always(libc::SYS_setns, Errno(libc::EPERM)),
        Rule::Always(libc::SYS_clone3, Errno(libc::ENOSYS)),
        Rule::ArgAnyBit(libc::SYS_clone, 0, CLONE_NEW_ANY, Errno(libc::EPERM)),
        Rule::Always(libc::SYS_add_key, Errno(libc::ENOSYS)),
        Rule::Always(libc::SYS_request_key, Errno(libc::ENOSYS)),
        Rule::Always(libc::SYS_keyctl, Errno(libc::ENOSYS)),
        Rule::Always(libc::SYS_flock, Errno(libc::ENOLCK)),
        Rule::ArgIn(libc::SYS_fcntl, 1, LOCK_COMMANDS, Errno(libc::ENOLCK)),
        Rule::ArgIn(libc::SYS_fcntl, 1, NOTIFY_COMMANDS, Errno(libc::EPERM)),
        Rule::ArgMaskedNotIn(libc::SYS_socket, 0, u32::MAX, SOCKET_FAMILIES, Errno(libc::EPERM)),
        Rule::ArgMaskedNotIn(libc::SYS_socketpair, 0, u32::MAX, &[libc::AF_UNIX as u32], Errno(libc::EPERM)),
        Rule::ArgMaskedNotIn(libc::SYS_socketpair, 1, 0xf, PAIR_TYPES, Errno(libc::EPERM)),
        Rule::Always(libc::SYS_io_uring_setup, Errno(libc::ENOSYS)),
        Rule::Always(libc::SYS_io_uring_enter, Errno(libc::ENOSYS)),
        Rule::Always(libc::SYS_io_uring_register, Errno(libc::ENOSYS)),
        Rule::Always(libc::SYS_tee, Errno(libc::EPERM)),
        Rule::Always(libc::SYS_inotify_init1, Errno(libc::ENOSYS)),
        Rule::Always(libc::SYS_fanotify_init, Errno(libc::EPERM)),
        Rule::Always(libc::SYS_perf_event_open, Errno(libc::EACCES)),
    ];
    #[cfg(target_arch = "x86_64")]
    rules.push(Rule::Always(libc::SYS_inotify_init, Errno(libc::ENOSYS)));
    rules
}

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt: 0, jf: 0, k }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const JSET_K: u16 = (libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K) as u16;
const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
const AND_K: u16 = (libc::BPF_ALU | libc::BPF_AND | libc::BPF_K) as u16;
const JA: u16 = (libc::BPF_JMP | libc::BPF_JA) as u16;

/// The filter program: check the architecture, then each rule in turn (each rule's block
/// reloads the call number, so blocks are independent), then allow.
pub fn program() -> Vec<libc::sock_filter> {
    let mut p = vec![
        stmt(LD_W_ABS, OFF_ARCH),
        jump(JEQ_K, ARCH, 1, 0),
        stmt(RET_K, Deny::Errno(libc::ENOSYS).ret()),
        stmt(LD_W_ABS, OFF_NR),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        // x32 system calls (bit 30) run the same code under other numbers.
        p.push(jump(JGE_K, 0x4000_0000, 0, 1));
        p.push(stmt(RET_K, Deny::Errno(libc::ENOSYS).ret()));
    }
    for rule in rules() {
        match rule {
            Rule::Always(nr, deny) => {
                p.push(stmt(LD_W_ABS, OFF_NR));
                p.push(jump(JEQ_K, nr as u32, 0, 1));
                p.push(stmt(RET_K, deny.ret()));
            }
            Rule::ArgIn(nr, arg, values, deny) => {
                // Another call: skip the block (the load, a compare per value, the jump
                // past the return, the return).
                let block = values.len() as u8 + 3;
                p.push(stmt(LD_W_ABS, OFF_NR));
                p.push(jump(JEQ_K, nr as u32, 0, block));
                p.push(stmt(LD_W_ABS, off_arg_low(arg)));
                for (i, v) in values.iter().enumerate() {
                    // Equal: jump over the remaining compares and the jump, to the return.
                    let to_ret = (values.len() - i) as u8;
                    p.push(jump(JEQ_K, *v, to_ret, 0));
                }
                // No value matched: past the return.
                p.push(stmt(JA, 1));
                p.push(stmt(RET_K, deny.ret()));
            }
            Rule::ArgMaskedNotIn(nr, arg, mask, values, deny) => {
                // Another call: skip the block (the load, the mask, a compare per value, the
                // return).
                let block = values.len() as u8 + 3;
                p.push(stmt(LD_W_ABS, OFF_NR));
                p.push(jump(JEQ_K, nr as u32, 0, block));
                p.push(stmt(LD_W_ABS, off_arg_low(arg)));
                p.push(stmt(AND_K, mask));
                for (i, v) in values.iter().enumerate() {
                    // Allowed: jump over the remaining compares and the return.
                    let past_ret = (values.len() - i) as u8;
                    p.push(jump(JEQ_K, *v, past_ret, 0));
                }
                p.push(stmt(RET_K, deny.ret()));
            }
            Rule::ArgAnyBit(nr, arg, mask, deny) => {
                p.push(stmt(LD_W_ABS, OFF_NR));
                p.push(jump(JEQ_K, nr as u32, 0, 3));
                p.push(stmt(LD_W_ABS, off_arg_low(arg)));
                p.push(jump(JSET_K, mask, 0, 1));
                p.push(stmt(RET_K, deny.ret()));
            }
        }
    }
    p.push(stmt(RET_K, SECCOMP_RET_ALLOW));
    p
}

/// The program as bubblewrap reads it from `--seccomp FD`: the raw `sock_filter` array, in
/// an anonymous file read from its start (close-on-exec: see `sandbox::inherit_fd`).
///
/// # Errors
/// The operating system's error.
pub fn program_file() -> std::io::Result<File> {
    use std::io::{Seek, Write};
    let mut bytes = Vec::new();
    for f in program() {
        bytes.extend_from_slice(&f.code.to_ne_bytes());
        bytes.push(f.jt);
        bytes.push(f.jf);
        bytes.extend_from_slice(&f.k.to_ne_bytes());
    }
    let mut file = crate::supervise::os::memfd(c"stratego-seccomp")?;
    file.write_all(&bytes)?;
    file.rewind()?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loads the filter on the calling thread only (no TSYNC), as bwrap does for the bot.
    fn load_on_this_thread() {
        let prog = program();
        let fprog = libc::sock_fprog { len: prog.len() as u16, filter: prog.as_ptr() as *mut _ };
        // SAFETY: prctl with plain integers, then with a pointer to a valid program.
        unsafe {
            assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
            let r = libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &fprog as *const _ as libc::c_ulong);
            assert_eq!(r, 0, "{}", std::io::Error::last_os_error());
        }
    }

    fn errno() -> i32 {
        std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
    }

    #[test]
    fn the_filter_denies_what_it_names_and_allows_the_rest() {
        let dir = std::env::temp_dir().join(format!("stratego-seccomp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("lockme");
        std::fs::write(&file, b"x").unwrap();
        // A thread of its own: the filter stays with it.
        let file2 = file.clone();
        std::thread::spawn(move || {
            use std::os::fd::AsRawFd;
            let f = File::open(&file2).unwrap();
            let fd = f.as_raw_fd();
            // SAFETY (all calls below): system calls with plain integers or valid pointers.
            unsafe {
                // Before: a lock works.
                assert_eq!(libc::flock(fd, libc::LOCK_SH), 0);
                assert_eq!(libc::flock(fd, libc::LOCK_UN), 0);
                load_on_this_thread();
                assert_eq!(libc::flock(fd, libc::LOCK_EX), -1);
                assert_eq!(errno(), libc::ENOLCK);
                let mut lock: libc::flock = std::mem::zeroed();
                lock.l_type = libc::F_RDLCK as i16;
                assert_eq!(libc::fcntl(fd, libc::F_SETLK, &lock), -1);
                assert_eq!(errno(), libc::ENOLCK);
                assert_eq!(libc::fcntl(fd, libc::F_GETLK, &mut lock), -1);
                assert_eq!(errno(), libc::ENOLCK);
                // Other fcntl commands still work.
                assert!(libc::fcntl(fd, libc::F_GETFD) >= 0);
                assert_eq!(libc::unshare(libc::CLONE_NEWUSER), -1);
                assert_eq!(errno(), libc::EPERM);
                assert_eq!(libc::syscall(libc::SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0), -1);
                assert_eq!(errno(), libc::ENOSYS);
                assert_eq!(libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0), -1);
                assert_eq!(errno(), libc::EPERM);
                assert_eq!(libc::socket(libc::AF_UNIX, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0), -1);
                assert_eq!(errno(), libc::EPERM);
                assert_eq!(libc::socket(libc::AF_VSOCK, libc::SOCK_STREAM, 0), -1);
                assert_eq!(errno(), libc::EPERM);
                assert_eq!(libc::socket(libc::AF_PACKET, libc::SOCK_DGRAM, 0), -1);
                assert_eq!(errno(), libc::EPERM);
                let mut pair = [0; 2];
                for ty in [libc::SOCK_STREAM, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK] {
                    assert_eq!(libc::socketpair(libc::AF_UNIX, ty, 0, pair.as_mut_ptr()), 0, "type {ty:#x}");
                    libc::close(pair[0]);
                    libc::close(pair[1]);
                }
                for ty in [libc::SOCK_DGRAM, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, libc::SOCK_RAW] {
                    assert_eq!(libc::socketpair(libc::AF_UNIX, ty, 0, pair.as_mut_ptr()), -1, "type {ty:#x}");
                    assert_eq!(errno(), libc::EPERM);
                }
                for family in [libc::AF_INET, libc::AF_INET6] {
                    let s = libc::socket(family, libc::SOCK_STREAM, 0);
                    assert!(s >= 0, "an inet socket is allowed (the network namespace decides)");
                    libc::close(s);
                }
                let s = libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_ROUTE);
                assert!(s >= 0, "netlink is allowed: {}", std::io::Error::last_os_error());
                libc::close(s);
                let mut params = [0u8; 120];
                assert_eq!(libc::syscall(libc::SYS_io_uring_setup, 4, params.as_mut_ptr()), -1);
                assert_eq!(errno(), libc::ENOSYS);
                assert_eq!(libc::syscall(libc::SYS_io_uring_enter, 0, 1, 1, 0, 0, 0), -1);
                assert_eq!(errno(), libc::ENOSYS);
                assert_eq!(libc::syscall(libc::SYS_io_uring_register, 0, 0, 0, 0), -1);
                assert_eq!(errno(), libc::ENOSYS);
                // A connected stream pair refuses an address; a seqpacket pair ignores it
                // (its datagram goes to its peer): neither reaches a socket path.
                let (addr, len) = {
                    let mut a: libc::sockaddr_un = std::mem::zeroed();
                    a.sun_family = libc::AF_UNIX as libc::sa_family_t;
                    for (d, s) in a.sun_path.iter_mut().zip(b"/nonexistent/socket") {
                        *d = *s as libc::c_char;
                    }
                    (a, std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t)
                };
                let sa = &addr as *const libc::sockaddr_un as *const libc::sockaddr;
                assert_eq!(libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, pair.as_mut_ptr()), 0);
                assert_eq!(libc::sendto(pair[0], b"x".as_ptr().cast(), 1, 0, sa, len), -1);
                assert_eq!(errno(), libc::EISCONN);
                assert_eq!(libc::connect(pair[0], sa, len), -1, "a connected stream socket connects nowhere else");
                libc::close(pair[0]);
                libc::close(pair[1]);
                assert_eq!(libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, pair.as_mut_ptr()), 0);
                assert_eq!(libc::sendto(pair[0], b"x".as_ptr().cast(), 1, 0, sa, len), 1);
                let mut got = [0u8; 4];
                assert_eq!(libc::recv(pair[1], got.as_mut_ptr().cast(), 4, libc::MSG_DONTWAIT), 1, "to its peer");
                libc::close(pair[0]);
                libc::close(pair[1]);
                // New namespaces, perf_event_open, fanotify.
                assert_eq!(libc::syscall(libc::SYS_setns, 0, 0), -1);
                assert_eq!(errno(), libc::EPERM);
                assert_eq!(libc::syscall(libc::SYS_clone3, 0, 0), -1);
                assert_eq!(errno(), libc::ENOSYS);
                assert_eq!(libc::syscall(libc::SYS_clone, libc::CLONE_NEWNET | libc::SIGCHLD, 0, 0, 0, 0), -1);
                assert_eq!(errno(), libc::EPERM);
                assert_eq!(libc::syscall(libc::SYS_perf_event_open, 0, 0, -1, -1, 0), -1);
                assert_eq!(errno(), libc::EACCES);
                assert_eq!(libc::syscall(libc::SYS_fanotify_init, 0x200, libc::O_RDONLY), -1);
                assert_eq!(errno(), libc::EPERM);
                // x32 calls (bit 30 of the number: the same code under other numbers).
                #[cfg(target_arch = "x86_64")]
                {
                    assert_eq!(libc::syscall(libc::SYS_getpid | 0x4000_0000), -1);
                    assert_eq!(errno(), libc::ENOSYS);
                }
                // Directory notifications and leases (F_NOTIFY, F_SETLEASE, F_GETLEASE).
                for (cmd, arg) in [(1026, 1 | 0x8000_0000u32 as i32), (1024, libc::F_RDLCK), (1025, 0)] {
                    assert_eq!(libc::fcntl(fd, cmd, arg), -1, "fcntl command {cmd}");
                    assert_eq!(errno(), libc::EPERM);
                }
                assert_eq!(libc::tee(0, 1, 1, 0), -1);
                assert_eq!(errno(), libc::EPERM);
                assert_eq!(libc::inotify_init1(0), -1);
                assert_eq!(errno(), libc::ENOSYS);
            }
        })
        .join()
        .unwrap();
        // This thread has no filter.
        let f = File::open(&file).unwrap();
        use std::os::fd::AsRawFd;
        // SAFETY: flock on an open descriptor.
        assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) }, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
