//! What the host sees of a bot's process between and during its turns (its threads, its CPU
//! time, its reads of its input), whatever protocol it speaks: a bot that did not say it is
//! single-threaded is watched over its first turns and, when seen so, run as if it had said
//! so (see [`Observer`]); a bot run as single-threaded that shares a CPU with its opponent is
//! let off that CPU when it thinks on its opponent's time or its other threads compute.
//!
//! A session calls [`Observer::ready`] when the bot has said whether it is single-threaded,
//! [`Observer::before_turn`] before it writes a turn, [`Observer::watched`] with each
//! request's stopwatch, [`Observer::after_turn`] after a turn's answer (or its failure), and
//! [`Observer::share_cpu`] and [`Observer::fresh_process`] as their names say. What the host
//! decided (a bot inferred single-threaded, or let go) comes back as a note for the record.

use std::time::{Duration, Instant};

use crate::supervise::process::Process;
use crate::supervise::stopwatch::Stopwatch;

/// What the host has seen of a bot that did not say `single_threaded` (protocol.md): one
/// seen over [`INFER_TURNS`] answered turns with one thread, no child process, a normal
/// scheduling policy, idle off its turns, and reading each turn within [`PROMPT_READ`] of
/// its write (but once; a late read by a bot that was blocked in its read when the turn was
/// written is the machine's doing, and does not count) is run as if it had said so (it may
/// share a CPU with its opponent, and its reads are not watched once it thinks), until it
/// is seen otherwise. So is one with more threads whose main thread was blocked in its read
/// when its counted turns came (see [`INFER_ABSENT`]) and did all its computing: its other threads used no more
/// than [`INFER_OFF_TURN_CPU`] in all (an idle helper thread, a runtime's or a math
/// library's idle pool); all its threads then share the CPU, and it is let go once they use
/// more (see [`Observer::check_other_threads`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Observed {
    /// Still watched: answered turns seen with one thread (or with more, their main thread
    /// blocked in its read when the turn came) and read promptly, turns read late, turns
    /// that came while the main thread of a bot with more threads was not in its read (not
    /// counted either way, up to [`INFER_ABSENT`]: on a busy machine it may not be back at
    /// its read yet), CPU used outside its turns so far, whether it was seen with more than
    /// one thread, and its CPU time when its last turn began with that turn's wall time (to
    /// its answer).
    Watching {
        turns: u32,
        late_reads: u32,
        absent: u32,
        off_turn: Duration,
        threads: bool,
        mark: Option<(Duration, Duration)>,
    },
    /// Seen computing on one thread and idle off its turns; `threads`: it has other threads,
    /// seen idle.
    SingleThreaded { threads: bool },
    /// Not inferred: it said so itself, or it was seen with more than one thread, a child
    /// process, a real-time policy, or using CPU outside its turns.
    Not,
}

impl Observed {
    const START: Observed =
        Observed::Watching { turns: 0, late_reads: 0, absent: 0, off_turn: Duration::ZERO, threads: false, mark: None };

    /// Run as single-threaded (seen so).
    fn single(self) -> bool {
        matches!(self, Observed::SingleThreaded { .. })
    }
}

/// Answered turns over which a bot that did not say `single_threaded` is watched (see
/// [`Observed`]).
pub const INFER_TURNS: u32 = 4;

/// Turns that may come while the main thread of a watched bot with more threads is not in
/// its read (see [`Observed`]): on a busy machine a bot that answers at once is often not
/// back in its read when its next turn comes (BENCHMARKS.md).
const INFER_ABSENT: u32 = 16;

/// CPU such a bot may use outside its turns while it is watched (the tail of each answer:
/// writing it, going back to its read) and still count as idle off its turns; and CPU the
/// other threads of a bot with more than one may use while it is watched.
const INFER_OFF_TURN_CPU: Duration = Duration::from_millis(2);

/// CPU the other threads of a bot run as single-threaded with more threads may use (beyond
/// [`INFER_OFF_TURN_CPU`]), as a share of the time since it was seen so, before it is let go
/// (see [`Observer::check_other_threads`]).
const OTHER_THREADS_SHARE: u32 = 50;

/// A watched bot reads its turns within this of the start of the write (it waits in its read
/// when a turn comes, as a bot that says `single_threaded` does), but once: one that reads
/// later (it polls, or sleeps before reading) keeps its reads watched.
const PROMPT_READ: Duration = Duration::from_millis(2);

/// CPU used by a single-threaded bot outside its own turns, while it shares a CPU:
/// measured over one opponent's turn in [`OFF_TURN_SAMPLE`] (reading a process's CPU clock
/// is a system call; sums of CPU and wall time over the same turns keep their ratio).
#[derive(Clone, Copy, Debug, Default)]
struct OffTurn {
    /// Its process's CPU time and the time at the end of its last answer, when the
    /// opponent's turn that follows is measured.
    mark: Option<(Duration, Instant)>,
    /// Its answers so far.
    answers: u32,
    /// CPU time and wall time of the measured opponent's turns so far.
    cpu: Duration,
    wall: Duration,
}

/// One opponent's turn in this many is measured for [`OffTurn`].
const OFF_TURN_SAMPLE: u32 = 4;

/// CPU time a bot that shares its CPU may use during its opponent's turns in a game before
/// it is moved off that CPU (when that is also over a tenth of those turns' wall time).
const OFF_TURN_CPU: Duration = Duration::from_millis(20);

/// What the host sees of one bot's process, for its session: whether it runs as
/// single-threaded (said or seen), the CPU it shares with its opponent, and the watch that
/// lets it go when it is found otherwise.
#[derive(Clone, Debug)]
pub struct Observer {
    /// The bot's name, for the log.
    name: String,
    /// The CPU it shares with its opponent (see [`Observer::share_cpu`]), and all the run's
    /// CPUs.
    shared_cpu: Option<usize>,
    run_cpus: Vec<usize>,
    /// While it shares a CPU: the CPU time it used outside its own turns.
    off_turn: OffTurn,
    /// What the host has seen of a bot that did not say it is single-threaded.
    observed: Observed,
    /// The last request's stopwatch found the bot with more than one thread (see
    /// [`Stopwatch::found_not_single_threaded`]).
    not_single_seen: bool,
    /// How long after the write the bot read the last request (see
    /// [`Stopwatch::read_delay`]).
    read_delay: Option<Duration>,
    /// While it is watched: it was blocked reading its input when the last turn was
    /// written (see [`Observed`]), and its CPU time and the time then.
    blocked_in_read: bool,
    turn_start: Option<(Duration, Instant)>,
    /// While it is watched, and while it is run as single-threaded with other threads: its
    /// CPU time, its main thread's and the time when that began (see [`Observed`]).
    threads_mark: Option<(Duration, Duration, Instant)>,
}

/// Two notes for the record as one, in order (`; ` between them).
fn join(first: Option<String>, then: Option<String>) -> Option<String> {
    match (first, then) {
        (Some(mut a), Some(b)) => {
            a.push_str("; ");
            a.push_str(&b);
            Some(a)
        }
        (a, b) => a.or(b),
    }
}

impl Observer {
    /// An observer of the bot named `name` (for the log), watching it from its first turn.
    pub fn new(name: &str) -> Observer {
        Observer {
            name: name.to_owned(),
            shared_cpu: None,
            run_cpus: Vec::new(),
            off_turn: OffTurn::default(),
            observed: Observed::START,
            not_single_seen: false,
            read_delay: None,
            blocked_in_read: false,
            turn_start: None,
            threads_mark: None,
        }
    }

    /// Whether the bot is run as single-threaded because the host has seen it so (a bot that
    /// said so is the session's to know).
    pub fn seen_single_threaded(&self) -> bool {
        self.observed.single()
    }

    /// The bot has said whether it is single-threaded (its `ready`): one that said so is not
    /// watched (nothing to infer); its process is told whether it is idle off its turns.
    pub fn ready(&mut self, proc: &mut Process, said_single_threaded: bool) {
        if said_single_threaded {
            self.observed = Observed::Not;
        }
        proc.set_idle_off_turn(said_single_threaded || self.observed.single());
    }

    /// Runs the bot on `cpu` only (shared with its opponent), or with `None` on `all` the
    /// CPUs of the run again (see [`crate::session::BotSession::share_cpu`]). Its CPU use
    /// off its turns is counted afresh.
    pub fn share_cpu(&mut self, proc: &mut Process, cpu: Option<usize>, all: &[usize]) {
        self.off_turn = OffTurn::default();
        if self.shared_cpu == cpu {
            return;
        }
        if let Some(pid) = proc.thinking_pid() {
            crate::supervise::os::set_process_cpus(pid, cpu, all);
        }
        self.shared_cpu = cpu;
        proc.set_shares_cpu(cpu.is_some());
        all.clone_into(&mut self.run_cpus);
    }

    /// The bot got a fresh process: it runs on every CPU and is watched from its first turn
    /// again.
    pub fn fresh_process(&mut self) {
        self.shared_cpu = None;
        self.observed = Observed::START;
        self.threads_mark = None;
    }

    /// Notes what a request's stopwatch saw of the bot (call it with every request's, once
    /// the request is over).
    pub fn watched(&mut self, watch: &Stopwatch) {
        self.not_single_seen = watch.found_not_single_threaded();
        self.read_delay = watch.read_delay();
    }

    /// Before a turn is written: a bot that shares its CPU is let off it if it thought on its
    /// opponent's time (see [`Observer::check_off_turn`]); a watched bot is looked at (see
    /// [`Observer::observe_before_turn`]). Returns a note for the record when the host
    /// decided something about the bot.
    pub fn before_turn(&mut self, proc: &mut Process) -> Option<String> {
        let off_turn = self.check_off_turn(proc);
        let seen = self.observe_before_turn(proc);
        join(off_turn, seen)
    }

    /// After a turn, `answered` or not: a watched bot that answered is checked for its
    /// threads (see [`Observer::observe_after_answer`]); a bot that shares its CPU has its
    /// CPU time marked at one answer in [`OFF_TURN_SAMPLE`], to measure the opponent's turn
    /// that follows. Returns a note for the record when the bot was let go.
    pub fn after_turn(&mut self, proc: &mut Process, answered: bool) -> Option<String> {
        let note = if answered { self.observe_after_answer(proc) } else { None };
        if self.shared_cpu.is_some() {
            self.off_turn.answers += 1;
            if self.off_turn.answers % OFF_TURN_SAMPLE == 1 {
                self.off_turn.mark =
                    proc.thinking_pid().and_then(crate::supervise::os::process_cpu_time).map(|c| (c, Instant::now()));
            }
        }
        note
    }

    /// Before a turn is written: the CPU the watched bot used since its last answer (see
    /// [`Observed`]); after [`INFER_TURNS`] answers without any, it counts as
    /// single-threaded.
    fn observe_before_turn(&mut self, proc: &mut Process) -> Option<String> {
        // A bot blocked in its read as the turn is written can read it late only because the
        // machine kept it from a CPU: such a late read does not count against it.
        self.blocked_in_read = matches!(self.observed, Observed::Watching { .. })
            && proc.thinking_pid().is_some_and(crate::supervise::os::main_thread_reads_input);
        if self.observed == (Observed::SingleThreaded { threads: true }) {
            return self.check_other_threads(proc);
        }
        let Observed::Watching { turns, late_reads, absent, off_turn, threads, mark } = self.observed else {
            return None;
        };
        let pid = proc.thinking_pid()?;
        let now = crate::supervise::os::process_cpu_time(pid)?;
        let main = crate::supervise::os::main_thread_cpu(pid);
        self.turn_start = Some((now, Instant::now()));
        if let (None, Some(main)) = (self.threads_mark, main) {
            self.threads_mark = Some((now, main, Instant::now()));
        }
        let (at_start, wall) = mark?;
        // Its CPU time since the last turn began, less all that turn could use (one thread,
        // from before its write to its answer): the process's CPU clock lags up to a tick
        // behind for a bot still running on another CPU as its answer is read, so a count
        // from the answer would take the end of its own turn for time off it. Taken here,
        // with the bot back in its read, the count is up to date.
        let off_turn = off_turn + now.saturating_sub(at_start).saturating_sub(wall);
        if off_turn > INFER_OFF_TURN_CPU {
            tracing::debug!("{}: {off_turn:?} of CPU outside its turns: not run as single-threaded", self.name);
            self.observed = Observed::Not;
            return None;
        }
        // Its other threads' CPU time so far, at a turn that finds its main thread blocked
        // in its read (its count is then up to date; a thread running on another CPU is
        // counted up to a tick late): one with more threads whose others compute is not
        // inferred.
        let others = main
            .filter(|_| threads && self.blocked_in_read)
            .and_then(|main| self.other_threads_cpu(now, main))
            .unwrap_or_default();
        if others > INFER_OFF_TURN_CPU {
            tracing::debug!("{}: its other threads used {others:?} of CPU: not run as single-threaded", self.name);
            self.observed = Observed::Not;
            return None;
        }
        // A bot with more threads is inferred only at a turn that finds its main thread in
        // its read (its account, by which it is then credited, needs that).
        if turns < INFER_TURNS || (threads && !self.blocked_in_read) {
            self.observed = Observed::Watching { turns, late_reads, absent, off_turn, threads, mark: None };
            return None;
        }
        if crate::supervise::os::has_children(pid) != Some(false) {
            tracing::debug!("{}: child processes (or unknown): not run as single-threaded", self.name);
            self.observed = Observed::Not;
            return None;
        }
        self.observed = Observed::SingleThreaded { threads };
        proc.set_idle_off_turn(true);
        let note = if threads {
            self.threads_mark = main.map(|main| (now, main, Instant::now()));
            format!(
                "it did not say single_threaded, but over its first {INFER_TURNS} turns its main thread did its computing (its other threads used {:.1} ms of CPU), it had no child process and used {:.1} ms of CPU outside its turns: it is run as if it had said so",
                others.as_secs_f64() * 1000.0,
                off_turn.as_secs_f64() * 1000.0
            )
        } else {
            format!(
                "it did not say single_threaded, but over its first {INFER_TURNS} turns it had one thread and no child process and used {:.1} ms of CPU outside its turns: it is run as if it had said so",
                off_turn.as_secs_f64() * 1000.0
            )
        };
        tracing::debug!("{}: {note}", self.name);
        Some(note)
    }

    /// Before each turn of a bot run as single-threaded with more threads (see [`Observed`]):
    /// it is let go once its other threads have used more than [`INFER_OFF_TURN_CPU`] and a
    /// [`OTHER_THREADS_SHARE`]th of the time since it was seen so (they compute: confined to
    /// one CPU, they would only slow it). Its main thread shares the CPU of the game's
    /// thread, which reads it here, so its count is up to date.
    fn check_other_threads(&mut self, proc: &mut Process) -> Option<String> {
        let pid = proc.thinking_pid()?;
        let (Some((_, _, since)), Some(now), Some(main)) = (
            self.threads_mark,
            crate::supervise::os::process_cpu_time(pid),
            crate::supervise::os::main_thread_cpu(pid),
        ) else {
            return None;
        };
        let others = self.other_threads_cpu(now, main)?;
        if others > INFER_OFF_TURN_CPU && others * OTHER_THREADS_SHARE > since.elapsed() {
            let used = others.as_secs_f64() * 1000.0;
            return Some(self.let_go(
                proc,
                &format!(
                    "it was run as single-threaded (its main thread seen doing its computing), but its other threads then used {used:.0} ms of CPU"
                ),
            ));
        }
        None
    }

    /// The CPU time the bot's other threads used since [`Observer::threads_mark`], from
    /// its process's CPU time now and its main thread's.
    fn other_threads_cpu(&self, now: Duration, main: Duration) -> Option<Duration> {
        let (cpu_then, main_then, _) = self.threads_mark?;
        Some(now.saturating_sub(cpu_then).saturating_sub(main.saturating_sub(main_then)))
    }

    /// After a turn's answer: a watched bot is checked for its threads and its CPU time
    /// noted; one run as single-threaded that was found with more threads is let go.
    fn observe_after_answer(&mut self, proc: &mut Process) -> Option<String> {
        match self.observed {
            Observed::Watching { turns, late_reads, absent, off_turn, threads, .. } => {
                let pid = proc.thinking_pid()?;
                let single = crate::supervise::os::is_single_threaded(pid);
                let threads = threads || single == Some(false);
                let late = self.read_delay.is_some_and(|d| d > PROMPT_READ) && !self.blocked_in_read;
                // With more threads, a turn that came while the main thread was not in its
                // read does not count: that thread may not be the one that reads.
                let (turns, late_reads, absent) = match (late, threads && !self.blocked_in_read) {
                    (true, _) => (turns, late_reads + 1, absent),
                    (false, true) => (turns, late_reads, absent + 1),
                    (false, false) => (turns + 1, late_reads, absent),
                };
                self.observed = match (single, self.turn_start.take()) {
                    (Some(_), Some((cpu, at))) if late_reads <= 1 && absent <= INFER_ABSENT => Observed::Watching {
                        turns,
                        late_reads,
                        absent,
                        off_turn,
                        threads,
                        mark: Some((cpu, at.elapsed())),
                    },
                    (single, _) => {
                        tracing::debug!(
                            "{}: not run as single-threaded: single-threaded {single:?}, {late_reads} late reads (the last {:?}), {absent} turns its main thread was not in its read for",
                            self.name,
                            self.read_delay
                        );
                        Observed::Not
                    }
                };
                None
            }
            Observed::SingleThreaded { threads: false } if self.not_single_seen => {
                Some(self.let_go(proc, "it was run as single-threaded (seen so), but then had more than one thread"))
            }
            _ => None,
        }
    }

    /// A bot that shares its CPU with its opponent but used more than [`OFF_TURN_CPU`] (and
    /// a tenth of the time) during its opponent's measured turns is let off that CPU: it said it
    /// was single-threaded, yet it thinks on its opponent's time, which would take that
    /// CPU from the opponent.
    fn check_off_turn(&mut self, proc: &mut Process) -> Option<String> {
        let (Some(_), Some((mark, at))) = (self.shared_cpu, self.off_turn.mark.take()) else { return None };
        let now = proc.thinking_pid().and_then(crate::supervise::os::process_cpu_time)?;
        self.off_turn.cpu += now.saturating_sub(mark);
        self.off_turn.wall += at.elapsed();
        tracing::trace!("{}: off-turn CPU {:?} in {:?}", self.name, self.off_turn.cpu, self.off_turn.wall);
        if self.off_turn.cpu > OFF_TURN_CPU && self.off_turn.cpu * 10 > self.off_turn.wall {
            let said = if self.observed.single() {
                "it was run as single-threaded (seen so)"
            } else {
                "it said it was single-threaded"
            };
            let used = self.off_turn.cpu.as_secs_f64() * 1000.0;
            return Some(
                self.let_go(proc, &format!("{said} but used {used:.0} ms of CPU during its opponent's turns")),
            );
        }
        None
    }

    /// No longer runs the bot as single-threaded (it was found otherwise, `why`): off the
    /// CPU it shared with its opponent, its reads watched again. Returns the note for the
    /// record.
    fn let_go(&mut self, proc: &mut Process, why: &str) -> String {
        self.observed = Observed::Not;
        proc.set_idle_off_turn(false);
        let note = match self.shared_cpu.take() {
            Some(cpu) => {
                if let Some(pid) = proc.thinking_pid() {
                    crate::supervise::os::set_process_cpus(pid, None, &self.run_cpus);
                }
                proc.set_shares_cpu(false);
                format!("{why}: it no longer shares CPU {cpu} with its opponent")
            }
            None => why.to_owned(),
        };
        crate::notice::warn(format_args!("{}: {note}", self.name));
        note
    }
}
