//! The guardian of `connect`'s bot groups: a process forked before anything else that
//! kills every group it was told of once `connect` is gone, however it ended.

/// The watcher of `connect`'s bot groups: a process forked by [`Guardian::start`] that kills
/// every group it was told of ([`Guardian::watch`]) once `connect` is gone (the end of a
/// pipe whose writing end only `connect` holds), whatever ended it.
#[derive(Debug)]
pub struct Guardian {
    pub(super) pipe: std::os::fd::OwnedFd,
}

/// The most bot groups a guardian keeps (`connect` runs one bot at a time).
const GUARDED: usize = 64;

impl Guardian {
    /// Forks the guardian. Must be called while the process has one thread (before a
    /// runtime starts): the child runs only async-signal-safe calls anyway.
    ///
    /// # Errors
    /// No pipe or no fork.
    pub fn start() -> std::io::Result<Guardian> {
        use std::os::fd::FromRawFd;
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 writes two descriptors into the array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let [read_end, write_end] = fds;
        // SAFETY: the child makes only async-signal-safe calls (signal, close, read, kill,
        // _exit) and never returns.
        match unsafe { libc::fork() } {
            -1 => {
                let e = std::io::Error::last_os_error();
                // SAFETY: both descriptors are ours.
                unsafe {
                    libc::close(read_end);
                    libc::close(write_end);
                }
                Err(e)
            }
            // SAFETY: see above.
            0 => unsafe { guard(read_end, write_end) },
            _ => {
                // SAFETY: the read end is ours, and closed once; the write end is owned.
                unsafe { libc::close(read_end) };
                Ok(Guardian { pipe: unsafe { std::os::fd::OwnedFd::from_raw_fd(write_end) } })
            }
        }
    }

    /// The group `pgid` is to be killed when `connect` ends (positive), or no more
    /// (negative: it is gone).
    pub(super) fn tell(&self, pgid: i32) {
        use std::os::fd::AsRawFd;
        let bytes = pgid.to_ne_bytes();
        // SAFETY: writes 4 bytes from a live array to a descriptor we own (a pipe: 4 bytes
        // go whole).
        let _ = unsafe { libc::write(self.pipe.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
    }
}

/// The guardian's life: remembers the groups it is told of until the pipe ends, then kills
/// them all.
///
/// # Safety
/// Only in the child of a fork, with the pipe's two ends.
unsafe fn guard(read_end: i32, write_end: i32) -> ! {
    // SAFETY: async-signal-safe calls on plain integers and a stack array.
    unsafe {
        libc::close(write_end);
        // It writes nothing: it holds no one's output open.
        for fd in 0..=2 {
            libc::close(fd);
        }
        // A Ctrl-C or a kill of connect's process group must not end the guardian first.
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
        let mut groups = [0i32; GUARDED];
        let mut buf = [0u8; 4];
        loop {
            let n = libc::read(read_end, buf.as_mut_ptr().cast(), 4);
            if n == 4 {
                let g = i32::from_ne_bytes(buf);
                if g > 0 {
                    if let Some(slot) = groups.iter_mut().find(|s| **s == 0) {
                        *slot = g;
                    }
                } else if let Some(slot) = groups.iter_mut().find(|s| **s == -g) {
                    *slot = 0;
                }
                continue;
            }
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            break;
        }
        for g in groups {
            if g > 0 {
                libc::kill(-g, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }
}
