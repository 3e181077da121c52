//! Waiting on a bot's pipes and deadlines, below [`crate::supervise::process`]: the stdin
//! pipe sized to each request and whether the bot has begun reading it, whole writes of a
//! message, and the `timerfd` of a bot's deadlines in the game's event loop. Uses the raw
//! system calls ([`crate::supervise::os`]); nothing of the process uses it back. Prints
//! nothing; blocks only in the waits named.

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use tokio::net::unix::pipe;

use crate::supervise::os;

/// A page: the unit of a pipe's capacity.
pub(crate) const PAGE: usize = 4096;

/// The stdin pipe of a bot whose reads are not watched (the kernel's default size).
pub(crate) const LARGE_PIPE: usize = 64 * 1024;

/// How often the host looks whether the bot has begun reading a request that has not
/// filled its pipe, or that it reads in part (see [`wait_until_read`]).
pub(crate) const READ_POLL: Duration = Duration::from_millis(1);

/// Whether the bot has begun reading its request: its stdin pipe (`fd`) holds fewer than
/// the `unread` bytes it held just after the request was written, or no one will ever read
/// it (the read end is closed: the bot exited; `FIONREAD` still counts the bytes then), or
/// the host cannot tell. Not when it is empty: a bot that leaves a request's last byte
/// unread has read the request all the same (and could think on the house if it counted as
/// unread).
pub(crate) fn begun_reading(fd: std::os::fd::RawFd, unread: usize) -> bool {
    reader_gone(fd) || os::pipe_unread(fd).is_none_or(|n| n < unread)
}

/// Whether the read end of the pipe whose write end is `fd` is closed (the kernel reports
/// `POLLERR` on the write end then), so that a wait for the bot's read would never end.
pub(crate) fn reader_gone(fd: std::os::fd::RawFd) -> bool {
    let mut p = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
    // SAFETY: poll on one pollfd we own, with no wait.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    r > 0 && p.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
}

/// Waits until the bot has begun reading its request (see [`begun_reading`]), or the pipe
/// broke. When the request filled its pipe (`edge`), the pipe turns writable the moment
/// the bot has read a page of it, which wakes the host at once; otherwise, and for a bot
/// that reads less than a page, the host looks every [`READ_POLL`].
pub(crate) async fn wait_until_read(stdin: &pipe::Sender, unread: usize, edge: bool) {
    let fd = stdin.as_raw_fd();
    loop {
        if begun_reading(fd, unread) {
            return;
        }
        let writable = async { if edge { stdin.writable().await } else { std::future::pending().await } };
        tokio::select! {
            biased;
            r = writable => {
                if r.is_err() {
                    return;
                }
                // tokio still believes the pipe writable after a write that filled it: ask
                // the kernel, and clear tokio's readiness when the bot has not read yet, so
                // that the next wait is for the edge that comes when it reads.
                let seen = || if begun_reading(fd, unread) { Ok(()) } else { Err(std::io::ErrorKind::WouldBlock.into()) };
                match stdin.try_io(seen) {
                    Ok(()) => return,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(_) => return,
                }
            }
            () = tokio::time::sleep(READ_POLL) => {}
        }
    }
}

/// Writes all of `bytes` into the bot's stdin, counting in `done` the bytes written so far
/// (what a write stopped at its deadline leaves: see [`Process::keep_unfinished`]): the
/// moment before the last write call.
pub(crate) async fn write_all(stdin: &mut pipe::Sender, bytes: &[u8], done: &mut usize) -> std::io::Result<Instant> {
    loop {
        let rest = &bytes[*done..];
        stdin.writable().await?;
        let before = Instant::now();
        match stdin.try_write(rest) {
            Ok(0) if !rest.is_empty() => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) if n == rest.len() => {
                *done += n;
                return Ok(before);
            }
            Ok(n) => *done += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
}

/// The timer of a bot's deadlines: a `timerfd` of the kernel's high-resolution timers in
/// the game's event loop, armed for each wait, which wakes the game's thread itself within
/// microseconds of the deadline (at its own priority: real-time while the host is
/// escalated, see [`crate::supervise::tempo`]).
///
/// Not tokio's timer for bots that think: its wheel counts whole milliseconds, and a timer
/// whose deadline lies past the next multiple of 64 ms on the wheel sits in a coarser level
/// until then; the event loop wakes at that boundary only to move it down, for nothing: a
/// move's deadline crosses one about a third of the time, and such a wake-up costs the host
/// tens of microseconds of CPU (BENCHMARKS.md, "One wake-up a ply"). Nor a sleeping thread of the blocking pool for
/// the last 1.5 ms, which woke the game's thread in turn (two wake-ups at a deadline
/// instead of one). Bots that answer in microseconds keep tokio's timer until the last
/// 1.5 ms, which they never reach: arming and disarming the timer would cost them two
/// system calls a move (a sixth of the host's CPU a ply).
pub(crate) struct DeadlineTimer(pub(crate) Option<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>>);

impl DeadlineTimer {
    /// A new timer; without one (no `timerfd`), waits use tokio's timer.
    pub(crate) fn new() -> DeadlineTimer {
        use std::os::fd::FromRawFd;
        // SAFETY: timerfd_create takes no pointers; it returns a new descriptor or -1.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if fd < 0 {
            tracing::debug!("no timerfd ({}): deadlines on tokio's timer", std::io::Error::last_os_error());
            return DeadlineTimer(None);
        }
        // SAFETY: `fd` is a new descriptor that nothing else owns.
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
        // SAFETY: the timer owns its descriptor, which it neither replaces nor closes while
        // registered.
        let fd = unsafe { tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) };
        DeadlineTimer(fd.ok())
    }

    /// Sleeps until `deadline` (`Instant` is `CLOCK_MONOTONIC`, the timer's clock). For a
    /// bot not known to think (`thinks` false), on tokio's timer until 1.5 ms before: a bot
    /// that answers in microseconds costs no system call to arm and disarm the timer.
    pub(crate) async fn sleep_until(&self, deadline: Instant, thinks: bool) {
        let Some(fd) = &self.0 else {
            return tokio::time::sleep_until(deadline.into()).await;
        };
        if !thinks {
            if let Some(coarse) = deadline.checked_sub(Duration::from_micros(1500)).filter(|&c| c > Instant::now()) {
                tokio::time::sleep_until(coarse.into()).await;
            }
        }
        loop {
            let rest = deadline.saturating_duration_since(Instant::now());
            if rest.is_zero() {
                return;
            }
            // Relative: it expires no earlier than `deadline`.
            if !set_timer(fd.as_raw_fd(), rest) {
                return tokio::time::sleep_until(deadline.into()).await;
            }
            // Disarmed when the wait ends, by the deadline or else (the answer came): an
            // expiry nobody waits for would wake the event loop for nothing.
            let _disarm = Disarm(fd.as_raw_fd());
            loop {
                let Ok(mut ready) = fd.readable().await else {
                    return tokio::time::sleep_until(deadline.into()).await;
                };
                let expired = ready.try_io(|fd| {
                    let mut count = [0u8; 8];
                    // SAFETY: reads at most 8 bytes into our buffer.
                    let n = unsafe { libc::read(fd.as_raw_fd(), count.as_mut_ptr().cast(), count.len()) };
                    if n < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
                });
                // Readiness left from an earlier wait: nothing to read; wait again.
                if expired.is_ok() {
                    // Read: the next expiry is a new edge.
                    ready.clear_ready();
                    break;
                }
            }
        }
    }
}

/// Disarms a deadline timer when dropped.
pub(crate) struct Disarm(std::os::fd::RawFd);

impl Drop for Disarm {
    fn drop(&mut self) {
        set_timer(self.0, Duration::ZERO);
    }
}

/// Arms timer `fd` to expire once `after` from now, or disarms it (`after` zero; that also
/// clears an expiry nobody read).
pub(crate) fn set_timer(fd: std::os::fd::RawFd, after: Duration) -> bool {
    let spec = libc::itimerspec {
        it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
        it_value: libc::timespec { tv_sec: after.as_secs() as libc::time_t, tv_nsec: after.subsec_nanos().into() },
    };
    // SAFETY: sets our own timer to the spec we pass; no old value is asked for.
    unsafe { libc::timerfd_settime(fd, 0, &spec, std::ptr::null_mut()) == 0 }
}
