//! The transport under a bot session: one bot process, spawned in its own process group,
//! written to in whole messages, read line by line through a bounded decoder, its stderr
//! drained into a bounded tail, and killed with its group. Bytes and supervision only: what
//! the lines mean is the protocol adapter's business ([`crate::session::json_session`]).

use std::os::fd::AsRawFd;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::{Child, ChildStdout};
use tokio_util::codec::{FramedRead, LinesCodec, LinesCodecError};

use crate::reason::{Fault, Reason};
use crate::supervise::bot_spec::BotSpec;
use crate::supervise::os;
use crate::supervise::pipe_wait::*;
pub use crate::supervise::stderr_tail::{STDERR_TAIL_BYTES, StderrSink, StderrTail};
use crate::supervise::stopwatch::Stopwatch;
use crate::supervise::supervisor::Supervisor;

mod exit;
pub use exit::describe_exit;
use exit::describe_sandbox_exit;

/// A running bot process.
pub struct Process {
    /// How it was started.
    pub spec: BotSpec,
    child: Child,
    pgid: i32,
    stdin: Option<pipe::Sender>,
    /// Its stdin pipe can be resized, so the host can size it to each request and see when
    /// the bot has read one.
    sees_reads: bool,
    /// Its stdin pipe is sized to each request now, the fewest pages that hold it (one for
    /// most), so that the bot's read of it is seen (see [`wait_until_read`]); otherwise (a
    /// calm host, see [`crate::supervise::tempo`]) it holds 64 KiB, or more for a longer
    /// message. Either way a message goes into the pipe whole, in one write.
    stdin_small: bool,
    /// The capacity of its stdin pipe, in bytes.
    stdin_capacity: usize,
    /// Bytes unread in its stdin pipe just after the current request was written: the
    /// bot has begun reading it once the pipe holds fewer.
    request_unread: usize,
    /// The current request filled its stdin pipe (every page of it), so that the pipe turns
    /// writable the moment the bot has read its first page.
    read_edge: bool,
    /// The rest of a message whose write did not end (its deadline passed first): written
    /// before anything else, so that no message ever starts inside another.
    unfinished: Vec<u8>,
    /// Its last request ran long (it thinks): its own scheduler account opens with the next
    /// request (see [`Stopwatch::open_own_account`]).
    thought: bool,
    /// Its last request had run long when this one started (see [`DeadlineTimer`]).
    thinks: bool,
    /// It said it computes on one thread and only on its own turn
    /// (`ready.single_threaded`), and has not been caught thinking off its turn.
    idle_off_turn: bool,
    /// It runs only on the CPU of its game's thread (see [`Stopwatch::set_shares_cpu`]).
    shares_cpu: bool,
    lines: FramedRead<ChildStdout, LinesCodec>,
    stderr: Arc<Mutex<StderrTail>>,
    /// The task draining stderr: it ends at the pipe's end, after the process (and any
    /// child holding the pipe) is gone.
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    /// Bytes sent to it in the current game.
    pub bytes_sent: u64,
    /// Bytes received from it in the current game.
    pub bytes_received: u64,
    supervisor: Supervisor,
    /// In the sandbox: the bot's cgroups (memory, pids), removed after it is gone.
    cgroup: Option<crate::supervise::sandbox::BotCgroup>,
    /// In the sandbox: the host pid of the bot itself (bwrap's grandchild), once found.
    bot_pid: std::sync::OnceLock<u32>,
    /// The timer of its answers' deadlines (made at the first read, in the game's runtime).
    deadline_timer: std::sync::OnceLock<DeadlineTimer>,
}

/// Drains a bot's `stderr` all the time, so a chatty bot never blocks on a full pipe: its
/// tail, and the task that keeps it (it ends at the pipe's end).
fn drain_stderr(mut stderr: tokio::process::ChildStderr) -> (Arc<Mutex<StderrTail>>, tokio::task::JoinHandle<()>) {
    let tail = Arc::new(Mutex::new(StderrTail::default()));
    let tail2 = tail.clone();
    let task = tokio::spawn(async move {
        let mut buf = vec![0u8; 16 * 1024];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            tail2.lock().unwrap_or_else(|e| e.into_inner()).push(&buf[..n]);
        }
        tail2.lock().unwrap_or_else(|e| e.into_inner()).finish();
    });
    (tail, task)
}

/// What went wrong when reading a message.
#[derive(Debug)]
pub enum RecvError {
    /// The deadline passed.
    Timeout,
    /// A protocol fault (not a timeout).
    Fault(Fault),
}

impl Process {
    /// Starts the bot.
    ///
    /// # Errors
    /// The operating system's error when the program cannot be started.
    /// With `watch_reads`, its stdin pipe is sized to each request so that the host sees
    /// when it has begun reading one (see [`Stopwatch`]).
    pub fn spawn(
        spec: &BotSpec,
        max_line: usize,
        cpu: Option<usize>,
        watch_reads: bool,
        supervisor: &Supervisor,
    ) -> std::io::Result<Process> {
        // In the sandbox, bwrap runs the command (see `crate::supervise::sandbox`).
        let launch = if spec.limits.sandbox == Some(true) {
            Some(crate::supervise::sandbox::launch(spec, cpu, &supervisor.masks())?)
        } else {
            None
        };
        let mut cmd = match &launch {
            Some(l) => {
                let mut cmd = tokio::process::Command::new(&l.program);
                cmd.args(&l.args).env_clear().envs(l.env.iter().map(|(k, v)| (k, v)));
                cmd
            }
            None => {
                let mut cmd = tokio::process::Command::new(&spec.command[0]);
                cmd.args(&spec.command[1..]).envs(&spec.env);
                cmd
            }
        };
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).kill_on_drop(true);
        if let Some(dir) = &spec.dir {
            cmd.current_dir(dir);
        }
        let host_pid = std::process::id() as i32;
        let limits = launch.as_ref().map_or(spec.limits, |l| l.limits);
        let cgroup_fds = launch.as_ref().and_then(|l| l.cgroup.as_ref()).map(|c| c.join_fds()).unwrap_or_default();
        let inherited: Vec<i32> =
            launch.as_ref().map(|l| l.inherited.iter().map(AsRawFd::as_raw_fd).collect()).unwrap_or_default();
        // SAFETY: the closure only makes async-signal-safe calls (see `child_pre_exec`,
        // `join_cgroups` and `inherit_fd`).
        unsafe {
            cmd.pre_exec(move || {
                os::child_pre_exec(host_pid, cpu, limits)?;
                crate::supervise::sandbox::join_cgroups(&cgroup_fds)?;
                inherited.iter().try_for_each(|&fd| crate::supervise::sandbox::inherit_fd(fd))
            });
        }
        let spawning = supervisor.spawn_guard();
        let mut child = cmd.spawn()?;
        let pgid = child.id().map(|p| p as i32).unwrap_or(0);
        supervisor.register_group(pgid);
        drop(spawning);
        // A stdin pipe sized to each request (one page for most): the host then sees the
        // moment the bot begins reading it, which is when its clock starts.
        let stdin = child.stdin.take().expect("piped stdin").into_owned_fd()?;
        let sees_reads = watch_reads && os::set_pipe_size(stdin.as_raw_fd(), PAGE as i32).is_ok();
        let stdin_capacity = os::pipe_size(stdin.as_raw_fd()).unwrap_or(PAGE);
        let stdin = pipe::Sender::from_owned_fd(stdin)?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tail, stderr_task) = drain_stderr(child.stderr.take().expect("piped stderr"));
        // The limits in force: a sandbox without a memory cgroup applies its memory limit (the
        // default one too) as RLIMIT_AS, which the fault of a process that ran into it names.
        let mut spec = spec.clone();
        if let Some(bytes) = launch.as_ref().and_then(|l| l.limits.memory_bytes) {
            spec.limits.memory_bytes = Some(bytes);
        }
        Ok(Process {
            spec,
            child,
            pgid,
            thought: false,
            thinks: false,
            idle_off_turn: false,
            // `--pin` with one game at a time: the host's thread is pinned to the same CPU.
            shares_cpu: cpu.is_some_and(|c| os::allowed_cpus().is_ok_and(|here| here == [c])),
            stdin: Some(stdin),
            sees_reads,
            stdin_small: sees_reads,
            stdin_capacity,
            request_unread: 0,
            read_edge: false,
            unfinished: Vec::new(),
            lines: FramedRead::with_capacity(stdout, LinesCodec::new_with_max_length(max_line), 64 * 1024),
            stderr: tail,
            stderr_task: Some(stderr_task),
            bytes_sent: 0,
            bytes_received: 0,
            supervisor: supervisor.clone(),
            cgroup: launch.and_then(|l| l.cgroup),
            bot_pid: std::sync::OnceLock::new(),
            deadline_timer: std::sync::OnceLock::new(),
        })
    }

    /// The process id (also its process group id).
    pub fn pid(&self) -> i32 {
        self.pgid
    }

    /// The stderr tail and the total bytes written to stderr.
    pub fn stderr_tail(&self) -> (String, u64) {
        let t = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        (t.text(), t.game_bytes())
    }

    /// Closes the bot's stdin (end of input tells a bot that ignores `quit` to stop).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Gives every line the bot writes to stderr from now on to `sink` too, as it comes.
    pub fn stderr_to(&self, sink: StderrSink) {
        self.stderr.lock().unwrap_or_else(|e| e.into_inner()).sink = Some((sink, Vec::new()));
    }

    /// The stderr tail, readable after the process is gone.
    pub fn stderr_handle(&self) -> Arc<Mutex<StderrTail>> {
        self.stderr.clone()
    }

    /// Starts a new game's stderr: what the bot writes from now on belongs to it.
    pub fn begin_game(&mut self) {
        let mut t = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        t.game_start = t.total;
        drop(t);
        self.bytes_sent = 0;
        self.bytes_received = 0;
    }

    /// Whether the process has ended (without waiting).
    pub fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// The next line until the bot closes its output or `deadline` passes (what it says
    /// after the game is over), without judging it; `None` then, or once the bot has written
    /// more than its output limit in this game.
    ///
    /// One line at a time, so that the host holds at most one line of a bot's output
    /// whatever the bot writes (issue #41, item 7: a flood collected into a list before it
    /// was looked at raised the host's memory by hundreds of MB).
    pub async fn drain_line(&mut self, deadline: Instant) -> Option<String> {
        if self.over_output_limit() {
            return None;
        }
        match tokio::time::timeout_at(deadline.into(), self.lines.next()).await {
            Ok(Some(Ok(line))) => {
                self.bytes_received += line.len() as u64 + 1;
                Some(line)
            }
            _ => None,
        }
    }

    /// Whether the bot has written more than its output limit in this game.
    fn over_output_limit(&self) -> bool {
        self.output_limit_fault().is_some()
    }

    /// The fault of a bot that has written more than its output limit in this game.
    fn output_limit_fault(&self) -> Option<Fault> {
        let max = self.spec.limits.output_bytes.filter(|&m| self.bytes_received > m)?;
        Some(Fault::new(
            Reason::OutputLimit,
            format!("it wrote more than its output limit of {max} bytes in this game"),
        ))
    }

    /// Writes one whole message (`bytes`, ending in a newline), waiting at most until
    /// `deadline`. Returns the moment its last bytes went into the pipe (see
    /// [`Process::write_request`]).
    ///
    /// # Errors
    /// A crash fault when the bot's stdin is closed, or a timeout when the bot does not
    /// read its input.
    pub async fn write(&mut self, bytes: &[u8], deadline: Instant) -> Result<Instant, RecvError> {
        self.write_at(bytes, deadline).await
    }

    /// Writes a request (`bytes`, ending in a newline) timed by `watch`, within its
    /// deadline, and tells it when the request was written: the moment its last bytes went
    /// into the pipe, taken just before the write call that put them there, not after the
    /// call returns, since the bot, woken by that write, may take the CPU from the host
    /// before the call returns (on a shared CPU, for a whole time slice: the bot would think
    /// that long off the clock).
    ///
    /// # Errors
    /// As [`Process::write`].
    ///
    /// The pipe is first sized to hold the whole request besides what it holds unread (see
    /// [`Process::fit_stdin`]), so the request goes in with one write call, before the
    /// bot's clock can start; the rest of an earlier message left half-written goes first
    /// (see [`Process::finish_unfinished`]). A request that has still not gone into the
    /// pipe by the time it counts as long (a pipe that could not grow so far, its reader
    /// slow to read) goes long then, in the middle of the write (see
    /// [`Stopwatch::went_long`]): the CPU watchdogs of a bot that reads on another thread
    /// must see a stall that holds the bot off its CPU meanwhile.
    pub async fn write_request(&mut self, bytes: &[u8], watch: &mut Stopwatch) -> Result<(), RecvError> {
        self.full_cpu_share();
        let deadline = watch.deadline();
        if self.stdin.is_none() {
            return Err(RecvError::Fault(self.crash_fault("its input is closed").await));
        }
        self.finish_unfinished(deadline).await?;
        let unread_before = self.fit_stdin(bytes.len());
        self.request_unread = unread_before + bytes.len();
        self.read_edge =
            self.stdin_small && unread_before == 0 && bytes.len().div_ceil(PAGE) * PAGE == self.stdin_capacity;
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(RecvError::Fault(self.crash_fault("its input is closed").await));
        };
        let mut done = 0;
        let written = {
            let write = tokio::time::timeout_at(deadline.into(), write_all(stdin, bytes, &mut done));
            tokio::pin!(write);
            loop {
                let goes_long = async {
                    match watch.goes_long_at() {
                        Some(at) => tokio::time::sleep_until(at.into()).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    biased;
                    r = &mut write => break r,
                    () = goes_long => {
                        watch.went_long(true);
                        self.thought = true;
                    }
                }
            }
        };
        self.keep_unfinished(bytes, done, written.is_err());
        let at = self.wrote(bytes, written).await?;
        watch.written(at);
        Ok(())
    }

    async fn write_at(&mut self, bytes: &[u8], deadline: Instant) -> Result<Instant, RecvError> {
        // Whatever the host tells a bot (a move played, the end of a game, `quit`) gives it
        // its full CPU share back: only its opponent's turn keeps it at the least.
        self.full_cpu_share();
        if self.stdin.is_none() {
            return Err(RecvError::Fault(self.crash_fault("its input is closed").await));
        }
        self.finish_unfinished(deadline).await?;
        self.fit_stdin(bytes.len());
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(RecvError::Fault(self.crash_fault("its input is closed").await));
        };
        let mut done = 0;
        let written = tokio::time::timeout_at(deadline.into(), write_all(stdin, bytes, &mut done)).await;
        self.keep_unfinished(bytes, done, written.is_err());
        self.wrote(bytes, written).await
    }

    /// Gives the bot's stdin pipe the room to take `len` more bytes in one write, besides
    /// what it holds unread: in the pipe's request-sized mode the fewest pages (a power of
    /// two, the kernel's rule) that hold them, otherwise 64 KiB or more. Returns the bytes
    /// it held unread. A pipe that cannot be resized (a message beyond the system's
    /// `pipe-max-size`) keeps its size, and the message is written in parts.
    fn fit_stdin(&mut self, len: usize) -> usize {
        let Some(fd) = self.stdin.as_ref().map(AsRawFd::as_raw_fd) else { return 0 };
        let unread = os::pipe_unread(fd).unwrap_or(0);
        let need = (unread + len).max(1).div_ceil(PAGE).next_power_of_two() * PAGE;
        let want = if self.stdin_small { need } else { need.max(LARGE_PIPE) };
        if want != self.stdin_capacity && (self.sees_reads || want > self.stdin_capacity) {
            // A pipe holding more than `want` refuses to shrink (EBUSY): it keeps its size.
            if os::set_pipe_size(fd, i32::try_from(want).unwrap_or(i32::MAX)).is_ok() {
                self.stdin_capacity = os::pipe_size(fd).unwrap_or(want);
            } else {
                tracing::debug!(want, capacity = self.stdin_capacity, "the bot's stdin pipe keeps its size");
            }
        }
        unread
    }

    /// Notes the rest of `bytes` that a write did not put into the pipe, `done` of them
    /// written, when it `stopped` at its deadline: that rest goes first into the pipe
    /// before any later message (see [`Process::finish_unfinished`]).
    fn keep_unfinished(&mut self, bytes: &[u8], done: usize, stopped: bool) {
        if stopped && done > 0 && done < bytes.len() {
            tracing::debug!(
                written = done,
                of = bytes.len(),
                "a message to the bot was left half-written at its deadline"
            );
            self.unfinished = bytes[done..].to_vec();
        }
    }

    /// Writes the rest of a message left half-written (see [`Process::keep_unfinished`]),
    /// by `deadline`: a later message may then follow it. When it cannot, nothing more is
    /// written to the bot (a timeout): a message never starts inside another.
    async fn finish_unfinished(&mut self, deadline: Instant) -> Result<(), RecvError> {
        if self.unfinished.is_empty() {
            return Ok(());
        }
        let rest = std::mem::take(&mut self.unfinished);
        self.fit_stdin(rest.len());
        let Some(stdin) = self.stdin.as_mut() else { return Ok(()) };
        let mut done = 0;
        let written = tokio::time::timeout_at(deadline.into(), write_all(stdin, &rest, &mut done)).await;
        match written {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => {
                self.stdin = None;
                Err(RecvError::Fault(self.crash_fault(&format!("writing to it failed: {e}")).await))
            }
            Err(_) => {
                self.unfinished = rest[done..].to_vec();
                Err(RecvError::Timeout)
            }
        }
    }

    /// What a write of `bytes` came to: the moment before its last write call, or the
    /// fault or timeout.
    async fn wrote(
        &mut self,
        bytes: &[u8],
        written: Result<std::io::Result<Instant>, tokio::time::error::Elapsed>,
    ) -> Result<Instant, RecvError> {
        match written {
            Ok(Ok(written)) => {
                self.bytes_sent += bytes.len() as u64;
                Ok(written)
            }
            Ok(Err(e)) => {
                self.stdin = None;
                Err(RecvError::Fault(self.crash_fault(&format!("writing to it failed: {e}")).await))
            }
            Err(_) => Err(RecvError::Timeout),
        }
    }

    /// The stopwatch for a request the host starts writing at `begun`, to be answered within
    /// `limit` of the moment the bot has read it, which counts as `read_grace` after `begun`
    /// at the latest. A `paced` request (a turn) follows the run's tempo (see
    /// [`crate::supervise::tempo`]); start-up and setup requests are always timed the same way.
    pub fn stopwatch(&mut self, begun: Instant, limit: Duration, read_grace: Duration, paced: bool) -> Stopwatch {
        let tempo = self.supervisor.tempo().clone();
        let calm = paced && tempo.is_adaptive() && {
            tempo.request_starts(begun);
            !tempo.escalated()
        };
        let mut w =
            Stopwatch::new(begun, limit, read_grace, false, self.thinking_pid(), self.supervisor.stalls().cloned())
                .with_output(self.lines.get_ref().as_raw_fd());
        if paced {
            w = w.with_tempo(&tempo);
        }
        w.set_shares_cpu(self.shares_cpu);
        self.thinks = self.thought;
        let thought = paced && std::mem::take(&mut self.thought);
        // A bot idle off its turn that thought last turn: its scheduler account, open from
        // the end of the write, credits the time it then waits for a CPU before it reads,
        // which is all the read watch would spare it. So its read is not watched: one
        // wake-up of the host less a turn, and a large pipe (a full turn in one write).
        if thought && self.idle_off_turn && w.open_own_account_now() {
            self.set_stdin_small(false);
            return w;
        }
        // Any other bot that thought last turn and whose main thread is back at reading its
        // input: that thread's account, open from now, does the same for it, and a move that
        // wakes it credits the time the machine kept the process from a CPU: no read watch,
        // no CPU watchdogs (see [`Stopwatch::open_main_thread_account_now`]).
        if thought && w.open_main_thread_account_now() {
            self.set_stdin_small(false);
            return w;
        }
        if self.sees_reads && !read_grace.is_zero() {
            // Calm: a large pipe (no read watch); else one sized to each request.
            self.set_stdin_small(!calm);
        }
        w.watch_reads(self.sees_reads && self.stdin_small && !read_grace.is_zero());
        if thought {
            w.open_own_account_at_start();
        }
        w
    }

    /// Sizes the bot's stdin pipe to each request from now on (`small`: the host sees when
    /// the bot has read a request), or gives it 64 KiB (or more, for a longer message); the
    /// size is set as each message is written (see [`Process::fit_stdin`]).
    fn set_stdin_small(&mut self, small: bool) {
        self.stdin_small = small && self.sees_reads;
    }

    /// Whether the bot computes on one thread and only on its own turn, as it said
    /// (`ready.single_threaded`) and as the host has seen: its reads need not be watched
    /// once it thinks (see [`Process::stopwatch`]).
    pub fn set_idle_off_turn(&mut self, idle: bool) {
        self.idle_off_turn = idle;
    }

    /// Whether the bot now runs only on the CPU of its game's thread (see
    /// [`Stopwatch::set_shares_cpu`]).
    pub fn set_shares_cpu(&mut self, shares: bool) {
        self.shares_cpu = shares;
    }

    /// The process that thinks, whose CPU the stall credit watches: the bot's own, or in the
    /// sandbox the bot inside bwrap (bwrap's own process only waits) once it is found.
    pub fn thinking_pid(&self) -> Option<u32> {
        let pid = self.child.id()?;
        if self.cgroup.is_none() && self.spec.limits.sandbox != Some(true) {
            return Some(pid);
        }
        if let Some(&p) = self.bot_pid.get() {
            return Some(p);
        }
        match crate::supervise::sandbox::bot_pid(pid) {
            Some(p) => Some(*self.bot_pid.get_or_init(|| p)),
            None => Some(pid),
        }
    }

    /// Reads the next line (without its line ending) until the stopwatch's deadline;
    /// meanwhile notes on the stopwatch when the bot has read the request. Returns the line
    /// with the moment it was complete.
    ///
    /// # Errors
    /// Timeout, or the fault: line too long, invalid UTF-8, output limit, end of output
    /// (crash or closed output).
    pub async fn read_line(&mut self, watch: &mut Stopwatch) -> Result<(String, Instant), RecvError> {
        // A sandboxed bot has its full CPU share while a request of the host's waits for
        // its answer, and the least from its answer until the host next writes to it: its
        // opponent's turn (see `sandbox::BotCgroup::set_on_turn`).
        self.full_cpu_share();
        let line = self.read_line_on_turn(watch).await;
        if let Some(c) = &self.cgroup {
            c.set_on_turn(false);
        }
        line
    }

    /// A sandboxed bot's full CPU share (nothing for a bot without a cpu cgroup).
    fn full_cpu_share(&self) {
        if let Some(c) = &self.cgroup {
            c.set_on_turn(true);
        }
    }

    async fn read_line_on_turn(&mut self, watch: &mut Stopwatch) -> Result<(String, Instant), RecvError> {
        // Past the limit already (lines read while none was asked for: see
        // `buffered_line`): no more is read.
        if let Some(fault) = self.output_limit_fault() {
            return Err(RecvError::Fault(fault));
        }
        let mut output_checked = false;
        watch.follow_tempo();
        let deadline_timer = self.deadline_timer.get_or_init(DeadlineTimer::new);
        loop {
            let thinks = self.thinks || self.thought;
            let seen_read = async {
                match self.stdin.as_ref() {
                    Some(stdin) if watch.waits_for_read() => {
                        wait_until_read(stdin, self.request_unread, self.read_edge).await
                    }
                    _ => std::future::pending().await,
                }
            };
            let goes_long = async {
                match watch.goes_long_at() {
                    Some(at) => tokio::time::sleep_until(at.into()).await,
                    None => std::future::pending().await,
                }
            };
            let next = tokio::select! {
                biased;
                () = seen_read => {
                    watch.seen_read(Instant::now());
                    continue;
                }
                n = self.lines.next() => n,
                () = goes_long => {
                    // The bot thinks: fair-clock machinery on (see crate::supervise::tempo), and its
                    // read watched if it has not read the request yet.
                    let unread = self.stdin_small
                        && self.stdin.as_ref().is_some_and(|s| !begun_reading(s.as_raw_fd(), self.request_unread));
                    watch.went_long(unread);
                    self.thought = true;
                    continue;
                }
                () = deadline_timer.sleep_until(watch.deadline(), thinks) => {
                    // An answer that came as the deadline woke the host is read and judged
                    // as such (with the credit of an answer).
                    // (Once: output that is not a line must not hold the deadline off.)
                    if !output_checked && os::has_input(self.lines.get_ref().as_raw_fd()) {
                        output_checked = true;
                        continue;
                    }
                    // Time the machine took from the bot (or from the host) moves the
                    // deadline; the bot may still answer in time. Judged at the moment of
                    // the look: a stall of the host during the look itself must not end the
                    // move before the bot has been looked at again, with that stall in its
                    // account.
                    let until = Instant::now();
                    watch.credit_stalls(until, true, false);
                    if until < watch.deadline() {
                        continue;
                    }
                    return Err(RecvError::Timeout);
                }
            };
            let at = Instant::now();
            // A request answered after the escalation time: the bot thinks (its next
            // request opens its account from the start; `went_long` does not fire for a
            // request that counted as long from its start).
            if at.saturating_duration_since(watch.start()) >= crate::supervise::tempo::ESCALATE_AFTER {
                self.thought = true;
            }
            let line = match next {
                Some(Ok(line)) => line,
                Some(Err(LinesCodecError::MaxLineLengthExceeded)) => {
                    let max = self.lines.decoder().max_length();
                    return Err(RecvError::Fault(Fault::new(
                        Reason::LineTooLong,
                        format!("it sent a line longer than the limit of {max} bytes"),
                    )));
                }
                Some(Err(LinesCodecError::Io(e))) if e.kind() == std::io::ErrorKind::InvalidData => {
                    return Err(RecvError::Fault(Fault::new(
                        Reason::InvalidUtf8,
                        "it sent a line that is not valid UTF-8",
                    )));
                }
                Some(Err(LinesCodecError::Io(e))) => {
                    return Err(RecvError::Fault(self.crash_fault(&format!("reading its output failed: {e}")).await));
                }
                None => return Err(RecvError::Fault(self.eof_fault().await)),
            };
            self.bytes_received += line.len() as u64 + 1;
            if let Some(fault) = self.output_limit_fault() {
                return Err(RecvError::Fault(fault));
            }
            let line = match line.strip_suffix('\r') {
                Some(l) => l.to_owned(),
                None => line,
            };
            return Ok((line, at));
        }
    }

    /// The next line already waiting, without waiting for more (late answers to a turn that
    /// timed out under the strike policy); `None` when none is, or once the bot has written
    /// more than its output limit in this game (its next [`Process::read_line`] then fails
    /// with that fault).
    ///
    /// One line at a time, as [`Process::drain_line`]: a bot that writes as fast as the host
    /// reads never lets its pipe run empty, and the lines of a loop that collected them all
    /// before looking at them grew without bound (issue #41, item 7); the output limit ends
    /// such a loop.
    pub fn buffered_line(&mut self) -> Option<String> {
        use futures_util::FutureExt;
        if self.over_output_limit() {
            return None;
        }
        match self.lines.next().now_or_never() {
            Some(Some(Ok(line))) => {
                self.bytes_received += line.len() as u64 + 1;
                Some(line)
            }
            _ => None,
        }
    }

    /// [`Process::shutdown`] without a goodbye, then the bot's last words: how it ended, its
    /// stderr tail and the stderr bytes of this game (read once it has ended).
    pub async fn shutdown_with_tail(self, grace: Duration) -> (String, String, u64) {
        let stderr = self.stderr_handle();
        let how = self.shutdown(grace, None).await;
        let tail = stderr.lock().unwrap_or_else(|e| e.into_inner());
        (how, tail.text(), tail.game_bytes())
    }

    /// Ends the process: the protocol's goodbye (`quit`, when given), a grace period to
    /// exit by itself, then SIGKILL to its whole process group, then reaping. Returns how it
    /// ended.
    pub async fn shutdown(mut self, grace: Duration, goodbye: Option<&[u8]>) -> String {
        self.full_cpu_share();
        if let Some(bytes) = goodbye.filter(|_| self.stdin.is_some()) {
            let deadline = Instant::now() + grace;
            let _ = self.write(bytes, deadline).await;
        }
        self.stdin = None; // closing stdin tells a bot that ignores quit to stop
        let status = tokio::time::timeout(grace, self.child.wait()).await;
        // Kill the group even after a clean exit: grandchildren may still hold on.
        os::kill_group(self.pgid, libc::SIGKILL);
        let how = match status {
            Ok(Ok(s)) if self.spec.limits.sandbox == Some(true) => describe_sandbox_exit(s),
            Ok(Ok(s)) => describe_exit(s),
            _ => {
                let _ = self.child.start_kill();
                match self.child.wait().await {
                    Ok(_) => "killed after the grace period".to_owned(),
                    Err(e) => format!("could not be reaped: {e}"),
                }
            }
        };
        self.supervisor.unregister_group(self.pgid);
        // Let the drain read the last words (a traceback written just before the exit).
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_millis(100), task).await;
        }
        // Descendants that left the group (setsid) were re-parented to the host when the
        // bot died: kill them too, off the runtime's thread (finding them may mean reading
        // every process's stat file, and reaping waits).
        let sup = self.supervisor.clone();
        let cgroup = self.cgroup.take();
        let _ = tokio::task::spawn_blocking(move || {
            sup.kill_escaped_descendants();
            if let Some(cg) = cgroup {
                cg.remove();
            }
        })
        .await;
        how
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time left on timer `fd` (zero when disarmed).
    fn armed_for(fd: std::os::fd::RawFd) -> Duration {
        let mut spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec { tv_sec: 0, tv_nsec: 0 },
        };
        // SAFETY: writes the spec we pass.
        assert_eq!(unsafe { libc::timerfd_gettime(fd, &mut spec) }, 0);
        Duration::new(spec.it_value.tv_sec as u64, spec.it_value.tv_nsec as u32)
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn the_deadline_timer_wakes_no_earlier_than_the_deadline_and_is_disarmed_after() {
        runtime().block_on(async {
            let timer = DeadlineTimer::new();
            let fd = timer.0.as_ref().expect("a timerfd").as_raw_fd();
            for thinks in [true, false] {
                let deadline = Instant::now() + Duration::from_millis(5);
                timer.sleep_until(deadline, thinks).await;
                assert!(Instant::now() >= deadline, "woke before the deadline (thinks: {thinks})");
                assert_eq!(armed_for(fd), Duration::ZERO, "left armed after its deadline");
            }
        });
    }

    #[test]
    fn an_abandoned_wait_leaves_the_deadline_timer_disarmed() {
        runtime().block_on(async {
            let timer = DeadlineTimer::new();
            let fd = timer.0.as_ref().expect("a timerfd").as_raw_fd();
            let deadline = Instant::now() + Duration::from_secs(5);
            let mut wait = Box::pin(timer.sleep_until(deadline, true));
            // The answer comes first: the wait is dropped with the timer armed.
            tokio::select! {
                () = &mut wait => panic!("the 5 s deadline passed"),
                () = tokio::time::sleep(Duration::from_millis(2)) => {}
            }
            assert!(armed_for(fd) > Duration::from_secs(4), "armed for the deadline while waiting");
            drop(wait);
            assert_eq!(armed_for(fd), Duration::ZERO, "an expiry nobody waits for would wake the loop");
            // A deadline already past returns at once, without arming the timer.
            let before = Instant::now();
            timer.sleep_until(before - Duration::from_millis(1), true).await;
            assert_eq!(armed_for(fd), Duration::ZERO);
        });
    }

    #[test]
    fn a_wait_after_an_unread_expiry_still_waits_for_its_own_deadline() {
        runtime().block_on(async {
            let timer = DeadlineTimer::new();
            let fd = timer.0.as_ref().expect("a timerfd").as_raw_fd();
            // An expiry left unread in the timer and readiness left in tokio.
            assert!(set_timer(fd, Duration::from_millis(1)));
            std::thread::sleep(Duration::from_millis(3));
            let deadline = Instant::now() + Duration::from_millis(20);
            timer.sleep_until(deadline, true).await;
            assert!(Instant::now() >= deadline, "woke at the stale expiry");
        });
    }
}
