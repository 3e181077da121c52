//! The JSON protocol of protocol.md, as a [`BotSession`] over a [`Process`]: encodes each
//! request as one line, decodes each answer line, classifies what is wrong with a bad one,
//! keeps `info` lines, and times each answer with the request's [`Stopwatch`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use stratego_protocol::{
    BotMessage, GameOver, GameResult, Hello, HostMessage, Info, Placement, PlyNotice, Quit, Ready, SetupRequest, Turn,
};
use stratego_rules::{Game, Move, Ply};

use crate::reason::{Fault, Reason};
use crate::session::protocol_log::{Direction, ProtocolLog};
use crate::session::{
    BotSession, Decision, GameEnd, GameStart, PostGame, SessionError, SessionReport, Timed, TurnRequest,
};
use crate::supervise::bot_spec::BotSpec;
use crate::supervise::process::{Process, RecvError};
use crate::supervise::stopwatch::Stopwatch;
use crate::supervise::supervisor::Supervisor;

/// `info` lines kept per game and bot.
pub const MAX_INFO_LINES: usize = 200;
/// Characters kept of one `info` line.
pub const MAX_INFO_CHARS: usize = 1000;

/// How a session starts (and restarts) its bot's process.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// Longest line the bot may send.
    pub max_line: usize,
    /// Pin the process to this CPU.
    pub cpu: Option<usize>,
    /// See [`crate::run::referee::GameSettings::read_grace`].
    pub read_grace: Duration,
    /// Time a bot has to exit after `quit`, and to take `game_over`.
    pub grace: Duration,
    /// `--log-protocol`.
    pub log: Option<Arc<ProtocolLog>>,
}

/// A bot process spoken to in the JSON protocol.
pub struct JsonSession {
    spec: BotSpec,
    options: SessionOptions,
    supervisor: Supervisor,
    proc: Process,
    /// Games started in this session (over its processes).
    games: u32,
    /// Set when this game needed a fresh process; reported in the record.
    process_note: Option<String>,
    /// Whether this game's first `turn` was sent.
    sent_turn: bool,
    /// Its `ready` answer, once given.
    ready: Option<Ready>,
    /// `info` lines of the current game.
    infos: Vec<String>,
    /// Plies not yet told to the bot.
    pending: Vec<Ply>,
    /// A request of this game went wrong: the process is not handed another game.
    failed: bool,
    /// The process is gone or unusable (crash, closed output, a resource limit): nothing
    /// more is sent to it.
    dead: bool,
    /// A timed-out answer may still arrive: drop buffered moves before the next turn.
    maybe_stale: bool,
    /// Add an unknown field to every message (the conformance check's forward-compatibility
    /// probe).
    probe_unknown_fields: bool,
    /// Where to send what the bot writes after `game_over` (see [`PostGame`]), when the
    /// process is kept for another game; and how many of `infos` came before `game_over`.
    post_game: Option<tokio::sync::oneshot::Sender<PostGame>>,
    infos_at_game_over: usize,
    /// Answers of this game that no request asked for, in words.
    unrequested: Vec<String>,
    /// The game in progress, and how long a `ply` notice may wait for the bot to read.
    game_id: String,
    notice_timeout: Duration,
    write_buf: Vec<u8>,
    legal: Vec<Move>,
    /// The turn's pieces, kept between turns for its allocation.
    pieces: Vec<stratego_rules::ViewPiece>,
    /// The CPU it shares with its opponent (see [`BotSession::share_cpu`]), and all the
    /// run's CPUs.
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
/// more (see [`JsonSession::check_other_threads`]).
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
/// its read (see [`Observed`]): with 5 matches at once on 2 CPUs, a bot that answers at once
/// was not back in its read for 5 of its first 9 turns.
const INFER_ABSENT: u32 = 16;

/// CPU such a bot may use outside its turns while it is watched (the tail of each answer:
/// writing it, going back to its read) and still count as idle off its turns; and CPU the
/// other threads of a bot with more than one may use while it is watched.
const INFER_OFF_TURN_CPU: Duration = Duration::from_millis(2);

/// CPU the other threads of a bot run as single-threaded with more threads may use (beyond
/// [`INFER_OFF_TURN_CPU`]), as a share of the time since it was seen so, before it is let go
/// (see [`JsonSession::check_other_threads`]).
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

impl JsonSession {
    /// Starts the bot's process (see [`Process::spawn`]).
    ///
    /// # Errors
    /// The operating system's error when the program cannot be started.
    pub fn spawn(spec: &BotSpec, options: &SessionOptions, supervisor: &Supervisor) -> std::io::Result<JsonSession> {
        let proc = Process::spawn(spec, options.max_line, options.cpu, !options.read_grace.is_zero(), supervisor)?;
        Ok(JsonSession {
            spec: spec.clone(),
            options: options.clone(),
            supervisor: supervisor.clone(),
            proc,
            games: 0,
            process_note: None,
            sent_turn: false,
            ready: None,
            infos: Vec::new(),
            pending: Vec::new(),
            failed: false,
            dead: false,
            maybe_stale: false,
            probe_unknown_fields: false,
            post_game: None,
            infos_at_game_over: 0,
            unrequested: Vec::new(),
            game_id: String::new(),
            notice_timeout: Duration::from_secs(10),
            write_buf: Vec::with_capacity(8 * 1024),
            legal: Vec::with_capacity(128),
            pieces: Vec::new(),
            shared_cpu: None,
            run_cpus: Vec::new(),
            off_turn: OffTurn::default(),
            observed: Observed::START,
            not_single_seen: false,
            read_delay: None,
            blocked_in_read: false,
            turn_start: None,
            threads_mark: None,
        })
    }

    /// Before a turn is written: the CPU the watched bot used since its last answer (see
    /// [`Observed`]); after [`INFER_TURNS`] answers without any, it counts as
    /// single-threaded.
    fn observe_before_turn(&mut self) {
        // A bot blocked in its read as the turn is written can read it late only because the
        // machine kept it from a CPU: such a late read does not count against it.
        self.blocked_in_read = matches!(self.observed, Observed::Watching { .. })
            && self.proc.thinking_pid().is_some_and(crate::supervise::os::main_thread_reads_input);
        if self.observed == (Observed::SingleThreaded { threads: true }) {
            self.check_other_threads();
            return;
        }
        let Observed::Watching { turns, late_reads, absent, off_turn, threads, mark } = self.observed else { return };
        let Some(pid) = self.proc.thinking_pid() else { return };
        let Some(now) = crate::supervise::os::process_cpu_time(pid) else { return };
        let main = crate::supervise::os::main_thread_cpu(pid);
        self.turn_start = Some((now, Instant::now()));
        if let (None, Some(main)) = (self.threads_mark, main) {
            self.threads_mark = Some((now, main, Instant::now()));
        }
        let Some((at_start, wall)) = mark else { return };
        // Its CPU time since the last turn began, less all that turn could use (one thread,
        // from before its write to its answer): the process's CPU clock lags up to a tick
        // behind for a bot still running on another CPU as its answer is read, so a count
        // from the answer would take the end of its own turn for time off it. Taken here,
        // with the bot back in its read, the count is up to date.
        let off_turn = off_turn + now.saturating_sub(at_start).saturating_sub(wall);
        if off_turn > INFER_OFF_TURN_CPU {
            tracing::debug!("{}: {off_turn:?} of CPU outside its turns: not run as single-threaded", self.spec.name);
            self.observed = Observed::Not;
            return;
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
            tracing::debug!("{}: its other threads used {others:?} of CPU: not run as single-threaded", self.spec.name);
            self.observed = Observed::Not;
            return;
        }
        // A bot with more threads is inferred only at a turn that finds its main thread in
        // its read (its account, by which it is then credited, needs that).
        if turns < INFER_TURNS || (threads && !self.blocked_in_read) {
            self.observed = Observed::Watching { turns, late_reads, absent, off_turn, threads, mark: None };
            return;
        }
        if crate::supervise::os::has_children(pid) != Some(false) {
            tracing::debug!("{}: child processes (or unknown): not run as single-threaded", self.spec.name);
            self.observed = Observed::Not;
            return;
        }
        self.observed = Observed::SingleThreaded { threads };
        self.proc.set_idle_off_turn(true);
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
        tracing::debug!("{}: {note}", self.spec.name);
        self.add_note(note);
    }

    /// Before each turn of a bot run as single-threaded with more threads (see [`Observed`]):
    /// it is let go once its other threads have used more than [`INFER_OFF_TURN_CPU`] and a
    /// [`OTHER_THREADS_SHARE`]th of the time since it was seen so (they compute: confined to
    /// one CPU, they would only slow it). Its main thread shares the CPU of the game's
    /// thread, which reads it here, so its count is up to date.
    fn check_other_threads(&mut self) {
        let Some(pid) = self.proc.thinking_pid() else { return };
        let (Some((_, _, since)), Some(now), Some(main)) = (
            self.threads_mark,
            crate::supervise::os::process_cpu_time(pid),
            crate::supervise::os::main_thread_cpu(pid),
        ) else {
            return;
        };
        let Some(others) = self.other_threads_cpu(now, main) else { return };
        if others > INFER_OFF_TURN_CPU && others * OTHER_THREADS_SHARE > since.elapsed() {
            let used = others.as_secs_f64() * 1000.0;
            self.let_go(&format!(
                "it was run as single-threaded (its main thread seen doing its computing), but its other threads then used {used:.0} ms of CPU"
            ));
        }
    }

    /// The CPU time the bot's other threads used since [`JsonSession::threads_mark`], from
    /// its process's CPU time now and its main thread's.
    fn other_threads_cpu(&self, now: Duration, main: Duration) -> Option<Duration> {
        let (cpu_then, main_then, _) = self.threads_mark?;
        Some(now.saturating_sub(cpu_then).saturating_sub(main.saturating_sub(main_then)))
    }

    /// Adds to this game's note on the bot's process (after any earlier one).
    fn add_note(&mut self, note: String) {
        match &mut self.process_note {
            Some(before) => {
                before.push_str("; ");
                before.push_str(&note);
            }
            None => self.process_note = Some(note),
        }
    }

    /// After a turn's answer: a watched bot is checked for its threads and its CPU time
    /// noted; one run as single-threaded that was found with more threads is let go.
    fn observe_after_answer(&mut self) {
        match self.observed {
            Observed::Watching { turns, late_reads, absent, off_turn, threads, .. } => {
                let Some(pid) = self.proc.thinking_pid() else { return };
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
                            self.spec.name,
                            self.read_delay
                        );
                        Observed::Not
                    }
                };
            }
            Observed::SingleThreaded { threads: false } if self.not_single_seen => {
                self.let_go("it was run as single-threaded (seen so), but then had more than one thread");
            }
            _ => {}
        }
    }

    /// Kept for another game: what the bot writes from now (after `game_over`) until it
    /// answers the next `hello` is sent to `to` then, for the game that ended (its stderr
    /// tail too, and the exit of a process found gone before that `hello`).
    pub fn send_post_game_to(&mut self, to: tokio::sync::oneshot::Sender<PostGame>) {
        self.post_game = Some(to);
    }

    /// Sends what came after `game_over` (see [`JsonSession::send_post_game_to`]): the
    /// `info` lines since then, the stderr tail and count since the ended game began.
    /// Returns the bytes of the `info` lines sent.
    fn send_post_game(&mut self, exit: Option<String>, stderr: Option<(String, u64)>) -> u64 {
        let Some(to) = self.post_game.take() else { return 0 };
        let info: Vec<String> = self.infos.drain(self.infos_at_game_over.min(self.infos.len())..).collect();
        // The lines as they came: {"type":"info","text":…} (an estimate for escaped text).
        let bytes_from_bot = info.iter().map(|l| l.len() as u64 + 29).sum();
        let (stderr_tail, stderr_bytes) = stderr.unwrap_or_else(|| self.proc.stderr_tail());
        let _ = to.send(PostGame { info, stderr_tail, stderr_bytes, bytes_from_bot, exit });
        bytes_from_bot
    }

    /// Adds an unknown field to every message from now on (`check`'s forward-compatibility
    /// probe).
    pub fn probe_unknown_fields(&mut self) {
        self.probe_unknown_fields = true;
    }

    /// A bot that shares its CPU with its opponent but used more than [`OFF_TURN_CPU`] (and
    /// a tenth of the time) during its opponent's measured turns is let off that CPU: it said it
    /// was single-threaded, yet it thinks on its opponent's time, which would take that
    /// CPU from the opponent. Noted in the record.
    fn check_off_turn(&mut self) {
        let (Some(_), Some((mark, at))) = (self.shared_cpu, self.off_turn.mark.take()) else { return };
        let Some(now) = self.proc.thinking_pid().and_then(crate::supervise::os::process_cpu_time) else { return };
        self.off_turn.cpu += now.saturating_sub(mark);
        self.off_turn.wall += at.elapsed();
        tracing::trace!("{}: off-turn CPU {:?} in {:?}", self.spec.name, self.off_turn.cpu, self.off_turn.wall);
        if self.off_turn.cpu > OFF_TURN_CPU && self.off_turn.cpu * 10 > self.off_turn.wall {
            let said = if self.observed.single() {
                "it was run as single-threaded (seen so)"
            } else {
                "it said it was single-threaded"
            };
            let used = self.off_turn.cpu.as_secs_f64() * 1000.0;
            self.let_go(&format!("{said} but used {used:.0} ms of CPU during its opponent's turns"));
        }
    }

    /// No longer runs the bot as single-threaded (it was found otherwise, `why`): off the
    /// CPU it shared with its opponent, its reads watched again; noted in the record.
    fn let_go(&mut self, why: &str) {
        self.observed = Observed::Not;
        self.proc.set_idle_off_turn(false);
        let note = match self.shared_cpu.take() {
            Some(cpu) => {
                if let Some(pid) = self.proc.thinking_pid() {
                    crate::supervise::os::set_process_cpus(pid, None, &self.run_cpus);
                }
                self.proc.set_shares_cpu(false);
                format!("{why}: it no longer shares CPU {cpu} with its opponent")
            }
            None => why.to_owned(),
        };
        tracing::warn!("{}: {note}", self.spec.name);
        self.add_note(note);
    }

    /// The process id.
    pub fn pid(&self) -> i32 {
        self.proc.pid()
    }

    fn log(&self, direction: Direction, text: &[u8]) {
        if let Some(log) = &self.options.log {
            log.line(&self.spec.name, &self.game_id, direction, text);
        }
    }

    fn encode(&mut self, msg: &HostMessage) {
        self.write_buf.clear();
        stratego_protocol::write_host_message(&mut self.write_buf, msg);
        if self.probe_unknown_fields {
            // `…}\n` becomes `…,"x_future_field":{…}}\n`.
            let end = self.write_buf.len() - 2;
            self.write_buf.truncate(end);
            self.write_buf.extend_from_slice(br#","x_future_field":{"nested":[1,"two",null]}}"#);
            self.write_buf.push(b'\n');
        }
    }

    /// Sends a message that expects no answer.
    async fn tell(&mut self, msg: &HostMessage, deadline: Instant) -> Result<(), SessionError> {
        if self.dead {
            return Ok(());
        }
        self.encode(msg);
        self.log(Direction::ToBot, &self.write_buf);
        let buf = std::mem::take(&mut self.write_buf);
        let r = self.proc.write(&buf, deadline).await;
        self.write_buf = buf;
        r.map(|_| ()).map_err(|e| self.failure(e, Duration::ZERO, Instant::now(), None))
    }

    /// Sends `msg` and waits for the answer within `limit` from the moment the bot has read
    /// it. A `move` naming another ply than `expect_ply` is a late answer to an earlier turn
    /// and is skipped.
    async fn ask(
        &mut self,
        msg: &HostMessage,
        limit: Duration,
        expect_ply: Option<u32>,
    ) -> Result<Timed<BotMessage>, SessionError> {
        if self.dead {
            return Err(SessionError::Fault(Fault::new(Reason::Crash, "the process is no longer running")));
        }
        self.encode(msg);
        self.log(Direction::ToBot, &self.write_buf);
        let received_before = self.proc.bytes_received;
        let mut watch = self.proc.stopwatch(Instant::now(), limit, self.options.read_grace, expect_ply.is_some());
        self.not_single_seen = false;
        let buf = std::mem::take(&mut self.write_buf);
        let written = self.proc.write_request(&buf, &mut watch).await;
        self.write_buf = buf;
        let mut note = None;
        let result = match written {
            Err(e) => Err(e),
            Ok(()) => {
                loop {
                    match self.next_message(&mut watch).await {
                        Ok((BotMessage::Move(m), _))
                            if m.ply.is_some() && expect_ply.is_some() && m.ply != expect_ply =>
                        {
                            let what = format!(
                                "it sent a move for ply {} (\"ply\" must echo the turn's ply, {}); that move was ignored",
                                m.ply.unwrap_or_default(),
                                expect_ply.unwrap_or_default()
                            );
                            self.unrequested_answer(&format!("{} for ply {}", m.mv, m.ply.unwrap_or_default()));
                            note = Some(what);
                        }
                        Ok((answer, at)) => {
                            // A late answer is judged with the stall log; an answer in time is
                            // credited only when a stall was logged meanwhile.
                            let raw = at.saturating_duration_since(watch.start());
                            let credit = watch.credit_stalls(at, raw > limit, true);
                            break Ok(Timed { value: answer, took: raw.saturating_sub(credit), stall_credit: credit });
                        }
                        Err(e) => break Err(e),
                    }
                }
            }
        };
        self.not_single_seen = watch.found_not_single_threaded();
        self.read_delay = watch.read_delay();
        if note.is_none() && self.proc.bytes_received == received_before {
            // Not even an `info` line since the request: often an answer stuck in the
            // bot's output buffer.
            note = Some("nothing at all came back: did the bot flush its output?".to_owned());
        }
        result.map_err(|e| self.failure(e, watch.credit(), watch.deadline(), note))
    }

    /// Notes an answer no request asked for (for the record and on the console); it is not
    /// played.
    fn unrequested_answer(&mut self, what: &str) {
        let text = format!("an answer no request asked for was ignored: {what}");
        tracing::warn!("{}: game {}: {text}", self.spec.name, self.game_id);
        if self.unrequested.len() < MAX_INFO_LINES {
            self.unrequested.push(text);
        }
    }

    /// Takes the `move` and `resign` lines already waiting before a turn is sent: no
    /// request asked for them (a second answer to the previous turn); `info` lines are kept.
    fn take_unrequested_answers(&mut self) -> Result<(), SessionError> {
        for line in self.proc.buffered_lines() {
            self.log(Direction::FromBot, line.as_bytes());
            match parse_bot_message(&line) {
                Ok(BotMessage::Info(Info { text })) => self.keep_info(&text),
                Ok(BotMessage::Move(m)) => match m.ply {
                    Some(p) => self.unrequested_answer(&format!("{} for ply {p}", m.mv)),
                    None => self.unrequested_answer(&format!("{} (a second move before this turn)", m.mv)),
                },
                Ok(BotMessage::Resign(_)) => self.unrequested_answer("resign (before this turn)"),
                // What would have been a fault as the turn's answer still is one.
                Ok(other) => {
                    self.failed = true;
                    return Err(unexpected(&other, "\"move\" or \"resign\""));
                }
                Err(f) => {
                    self.failed = true;
                    return Err(SessionError::Fault(f));
                }
            }
        }
        Ok(())
    }

    /// The next message that is not `info` (those are kept for the record).
    async fn next_message(&mut self, watch: &mut Stopwatch) -> Result<(BotMessage, Instant), RecvError> {
        loop {
            let (line, at) = self.proc.read_line(watch).await?;
            self.log(Direction::FromBot, line.as_bytes());
            match parse_bot_message(&line) {
                Ok(BotMessage::Info(Info { text })) => self.keep_info(&text),
                Ok(msg) => return Ok((msg, at)),
                Err(f) => return Err(RecvError::Fault(f)),
            }
        }
    }

    fn failure(
        &mut self,
        e: RecvError,
        stall_credit: Duration,
        deadline: Instant,
        note: Option<String>,
    ) -> SessionError {
        self.failed = true;
        match e {
            RecvError::Timeout => {
                self.maybe_stale = true;
                SessionError::Timeout { stall_credit, late: Instant::now().saturating_duration_since(deadline), note }
            }
            RecvError::Fault(f) => {
                if matches!(f.reason, Reason::Crash | Reason::ClosedOutput | Reason::MemoryLimit | Reason::CpuLimit) {
                    self.dead = true;
                }
                SessionError::Fault(f)
            }
        }
    }

    /// Records an `info` line, within the per-game bounds.
    fn keep_info(&mut self, text: &str) {
        if self.infos.len() < MAX_INFO_LINES {
            self.infos.push(text.chars().take(MAX_INFO_CHARS).collect());
        }
    }

    /// Drops `move` and `resign` lines that are already waiting (late answers to a turn
    /// that timed out under the strike policy); keeps `info` lines.
    fn discard_buffered_moves(&mut self) {
        for line in self.proc.buffered_lines() {
            self.log(Direction::FromBot, line.as_bytes());
            if let Ok(BotMessage::Info(Info { text })) = parse_bot_message(&line) {
                self.keep_info(&text);
            }
        }
    }

    /// Starts a game in the current process: hello, then ready.
    async fn hello(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
        // What the bot writes from this hello on belongs to this game; for a process kept
        // from a game, what it writes until its answer still belongs to that game (it wrote
        // it after game_over, before it read this hello).
        let carry = self.post_game.is_some();
        let before = (self.proc.bytes_sent, self.proc.bytes_received);
        if !carry {
            self.infos.clear();
            self.proc.begin_game();
        }
        self.pending.clear();
        self.failed = false;
        self.dead = false;
        self.maybe_stale = false;
        self.sent_turn = false;
        self.game_id = start.game_id.to_owned();
        self.notice_timeout = start.time_control.startup;
        let hello = HostMessage::Hello(Hello {
            protocol: stratego_protocol::PROTOCOL_VERSION,
            game_id: start.game_id.to_owned(),
            color: start.color,
            ruleset: start.rules.spec().clone(),
            time_control: start.time_control.to_wire(),
            seed: start.seed,
            max_line_bytes: start.max_line,
            opponent: start.opponent.map(str::to_owned),
        });
        let answer = self.ask(&hello, start.time_control.allowed(start.time_control.startup), None).await;
        if carry {
            // Its stderr is read by a task of its own: what it wrote before its answer is
            // in the pipe already, and one turn of the event loop (a park, which polls the
            // pipes) takes it in.
            tokio::time::sleep(Duration::from_millis(1)).await;
            let carried = self.send_post_game(None, None);
            // This game's counts: the hello and its answer.
            let sent = self.proc.bytes_sent.saturating_sub(before.0);
            let received = self.proc.bytes_received.saturating_sub(before.1).saturating_sub(carried);
            self.infos.clear();
            self.proc.begin_game();
            self.proc.bytes_sent = sent;
            self.proc.bytes_received = received;
        }
        let answer = match answer {
            Ok(a) => a,
            Err(e) => return Err(e),
        };
        match answer.value {
            BotMessage::Ready(r) => {
                if r.single_threaded {
                    self.observed = Observed::Not; // it said so: nothing to infer
                }
                self.proc.set_idle_off_turn(r.single_threaded || self.observed.single());
                self.ready = Some(r);
                Ok(Timed { value: (), took: answer.took, stall_credit: answer.stall_credit })
            }
            other => {
                self.failed = true;
                Err(unexpected(&other, "\"ready\""))
            }
        }
    }

    /// Replaces the process by a fresh one, noting why for the record.
    async fn restart(&mut self, why: &str) -> Result<(), SessionError> {
        let fresh = Process::spawn(
            &self.spec,
            self.options.max_line,
            self.options.cpu,
            !self.options.read_grace.is_zero(),
            &self.supervisor,
        )
        .map_err(|e| {
            SessionError::Fault(Fault::new(Reason::Crash, format!("the program could not be started again: {e}")))
        })?;
        let old = std::mem::replace(&mut self.proc, fresh);
        self.shared_cpu = None; // a fresh process runs on every CPU
        self.observed = Observed::START;
        self.threads_mark = None;
        let mut old = old;
        let last = old.drain_lines(Instant::now() + self.options.grace).await;
        for line in last {
            self.log(Direction::FromBot, line.as_bytes());
            if let Ok(BotMessage::Info(Info { text })) = parse_bot_message(&line) {
                self.keep_info(&text);
            }
        }
        let (how, tail, bytes) = old.shutdown_with_tail(self.options.grace).await;
        // Its last words and its exit belong to the game it played.
        self.send_post_game(Some(how.clone()), Some((tail, bytes)));
        self.infos.clear();
        self.ready = None;
        self.process_note = Some(format!("a fresh process: the previous one ({how}) could not go on: {why}"));
        Ok(())
    }

    fn full_view(&self) -> bool {
        self.ready.as_ref().is_none_or(|r| r.view.is_full())
    }

    fn immediate(&self) -> bool {
        self.ready.as_ref().is_some_and(|r| r.immediate_plies)
    }
}

/// The message type of a bot message, for "it sent X when Y was expected".
fn unexpected(got: &BotMessage, wanted: &str) -> SessionError {
    let ty = match got {
        BotMessage::Ready(_) => "ready",
        BotMessage::Setup(_) => "setup",
        BotMessage::Move(_) => "move",
        BotMessage::Resign(_) => "resign",
        BotMessage::Info(_) => "info",
    };
    SessionError::Fault(Fault::new(Reason::UnexpectedMessage, format!("it sent {ty:?} when {wanted} was expected")))
}

impl BotSession for JsonSession {
    fn single_threaded(&self) -> bool {
        !self.dead && (self.observed.single() || self.ready.as_ref().is_some_and(|r| r.single_threaded))
    }

    fn share_cpu(&mut self, cpu: Option<usize>, all: &[usize]) {
        self.off_turn = OffTurn::default();
        if self.shared_cpu == cpu {
            return;
        }
        if let Some(pid) = self.proc.thinking_pid() {
            crate::supervise::os::set_process_cpus(pid, cpu, all);
            self.shared_cpu = cpu;
            self.proc.set_shares_cpu(cpu.is_some());
            all.clone_into(&mut self.run_cpus);
        }
    }
    async fn start_game(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
        self.process_note = None;
        self.unrequested.clear();
        if self.games > 0 && self.proc.has_exited() {
            // A multi-game bot that exits after game_over does not forfeit its next game:
            // it gets a fresh process, as chess hosts do (-recover).
            self.restart("it had exited after its previous game").await?;
        }
        self.games += 1;
        match self.hello(start).await {
            Err(SessionError::Fault(f))
                if self.games > 1
                    && self.process_note.is_none()
                    && matches!(f.reason, Reason::Crash | Reason::ClosedOutput) =>
            {
                // It exited between the previous game's end and this hello.
                self.restart(&format!("it had ended after its previous game ({})", f.message)).await?;
                self.hello(start).await
            }
            other => other,
        }
    }

    async fn setup(
        &mut self,
        start: &GameStart<'_>,
        fixed: Option<&stratego_rules::Deployment>,
    ) -> Result<Timed<String>, SessionError> {
        let request = HostMessage::SetupRequest(SetupRequest {
            game_id: start.game_id.to_owned(),
            color: start.color,
            squares: start.rules.setup_squares(start.color).collect(),
            pieces: *start.rules.pieces(),
            exact_counts: start.rules.exact_counts(),
            time_ms: crate::game::clock::ms(start.time_control.setup),
            fixed: fixed.map(|d| d.to_rows(start.rules)),
        });
        let answer = self.ask(&request, start.time_control.allowed(start.time_control.setup), None).await?;
        match answer.value {
            BotMessage::Setup(s) => {
                Ok(Timed { value: s.deployment, took: answer.took, stall_credit: answer.stall_credit })
            }
            other => {
                self.failed = true;
                Err(unexpected(&other, "\"setup\""))
            }
        }
    }

    async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Timed<Decision>, SessionError> {
        if self.maybe_stale {
            self.discard_buffered_moves();
            self.maybe_stale = false;
        } else {
            self.take_unrequested_answers()?;
        }
        let game = req.game;
        let color = game.to_move();
        let full_view = self.full_view();
        let mut legal = std::mem::take(&mut self.legal);
        game.legal_moves(&mut legal);
        let turn = HostMessage::Turn(Turn {
            game_id: req.game_id.to_owned(),
            ply: game.ply_count(),
            color,
            plies: std::mem::take(&mut self.pending),
            pieces: {
                let mut pieces = std::mem::take(&mut self.pieces);
                if full_view {
                    game.view_pieces_into(color, &mut pieces);
                } else {
                    pieces.clear();
                }
                pieces
            },
            captured: full_view.then(|| *game.captured()),
            legal_moves: legal,
            clock: req.clock,
            strike: req.strike.cloned(),
            opponent_squares: (!full_view && !self.sent_turn).then(|| req.opponent_setup.to_vec()),
        });
        self.sent_turn = true;
        self.check_off_turn();
        self.observe_before_turn();
        let answer = self.ask(&turn, req.budget, Some(game.ply_count())).await;
        if answer.is_ok() {
            self.observe_after_answer();
        }
        if self.shared_cpu.is_some() {
            self.off_turn.answers += 1;
            if self.off_turn.answers % OFF_TURN_SAMPLE == 1 {
                self.off_turn.mark = self
                    .proc
                    .thinking_pid()
                    .and_then(crate::supervise::os::process_cpu_time)
                    .map(|c| (c, Instant::now()));
            }
        }
        if let HostMessage::Turn(t) = turn {
            self.legal = t.legal_moves; // keep the buffers
            self.pieces = t.pieces;
            self.pending = t.plies;
            self.pending.clear();
        }
        let answer = answer?;
        let value = match answer.value {
            BotMessage::Move(m) => Decision::Move(m.mv),
            BotMessage::Resign(_) => Decision::Resign,
            other => {
                self.failed = true;
                return Err(unexpected(&other, "\"move\" or \"resign\""));
            }
        };
        Ok(Timed { value, took: answer.took, stall_credit: answer.stall_credit })
    }

    async fn played(&mut self, game: &Game, ply: &Ply) {
        if self.immediate() {
            let notice =
                HostMessage::Ply(PlyNotice { game_id: self.game_id.clone(), ply: game.ply_count(), played: *ply });
            // A failure here shows up at this bot's next turn.
            let _ = self.tell(&notice, Instant::now() + self.notice_timeout).await;
        } else {
            self.pending.push(*ply);
        }
    }

    async fn game_over(&mut self, end: &GameEnd<'_>) {
        let over = HostMessage::GameOver(GameOver {
            game_id: end.game_id.to_owned(),
            result: match end.result.winner {
                None => GameResult::Draw,
                Some(w) if w == end.color => GameResult::Win,
                Some(_) => GameResult::Loss,
            },
            winner: end.result.winner,
            reason: end.result.reason.code().to_owned(),
            message: end.result.message.clone(),
            plies: std::mem::take(&mut self.pending),
            total_plies: end.total_plies,
            opponent_setup: end
                .opponent_setup
                .map(|d| d.pieces().iter().map(|&(square, rank)| Placement { square, rank }).collect())
                .unwrap_or_default(),
        });
        let _ = self.tell(&over, Instant::now() + self.options.grace).await;
        self.infos_at_game_over = self.infos.len();
    }

    fn report(&self) -> SessionReport {
        let (stderr_tail, stderr_bytes) = self.proc.stderr_tail();
        SessionReport {
            reported_name: self.ready.as_ref().map(|r| r.name.clone()),
            version: self.ready.as_ref().and_then(|r| r.version.clone()),
            author: self.ready.as_ref().and_then(|r| r.author.clone()),
            info: self.infos.clone(),
            stderr_tail,
            stderr_bytes,
            bytes_to_bot: self.proc.bytes_sent,
            bytes_from_bot: self.proc.bytes_received,
            process_note: self.process_note.clone(),
            unrequested: self.unrequested.clone(),
        }
    }

    fn reusable(&self) -> bool {
        !self.failed && !self.dead && self.ready.as_ref().is_some_and(|r| r.multi_game)
    }

    async fn shutdown(self, grace: Duration) -> String {
        self.close(grace).await.0
    }

    async fn close(mut self, grace: Duration) -> (String, SessionReport) {
        let deadline = Instant::now() + grace;
        if !self.dead {
            // quit, then whatever the bot says until it closes its output: its last info
            // lines belong to the game that just ended.
            self.encode(&HostMessage::Quit(Quit {}));
            self.log(Direction::ToBot, &self.write_buf);
            let buf = std::mem::take(&mut self.write_buf);
            let _ = self.proc.write(&buf, deadline).await;
            self.proc.close_stdin();
            for line in self.proc.drain_lines(deadline).await {
                self.log(Direction::FromBot, line.as_bytes());
                if let Ok(BotMessage::Info(Info { text })) = parse_bot_message(&line) {
                    self.keep_info(&text);
                }
            }
        }
        let mut report = self.report();
        let rest = deadline.saturating_duration_since(Instant::now());
        let how;
        (how, report.stderr_tail, report.stderr_bytes) = self.proc.shutdown_with_tail(rest).await;
        (how, report)
    }
}

/// The move messages bots send most, exactly as `serde_json` writes them:
/// `{"type":"move","move":"X"}` and `{"type":"move","move":"X","ply":N}`, where X has no
/// quote or backslash and N is a `u32` without leading zeros. Anything else is left to
/// serde (same value for these lines, without its buffering of internally tagged enums).
fn plain_move(line: &str) -> Option<BotMessage> {
    let rest = line.strip_prefix(r#"{"type":"move","move":""#)?;
    let end = rest.find('"')?;
    let (mv, tail) = (&rest[..end], &rest[end + 1..]);
    if mv.contains('\\') {
        return None;
    }
    let ply = match tail {
        "}" => None,
        _ => {
            let digits = tail.strip_prefix(r#","ply":"#)?.strip_suffix('}')?;
            if digits.is_empty()
                || !digits.bytes().all(|b| b.is_ascii_digit())
                || (digits.len() > 1 && digits.starts_with('0'))
            {
                return None;
            }
            Some(digits.parse::<u32>().ok()?)
        }
    };
    Some(BotMessage::Move(stratego_protocol::MoveAnswer { mv: mv.to_owned(), ply }))
}

/// Decodes one line from a bot, classifying what is wrong with a bad one.
///
/// # Errors
/// `malformed_json` for text that is not JSON, `unexpected_message` for a message without
/// a known `type`, `malformed_message` for a known type with wrong fields.
pub fn parse_bot_message(line: &str) -> Result<BotMessage, Fault> {
    if let Some(m) = plain_move(line) {
        return Ok(m);
    }
    match serde_json::from_str::<BotMessage>(line) {
        Ok(m) => Ok(m),
        Err(e) => {
            let value: serde_json::Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(e) => {
                    return Err(Fault::new(
                        Reason::MalformedJson,
                        format!("it sent a line that is not JSON ({e}): {}", clip(line)),
                    ));
                }
            };
            let ty = value.get("type").and_then(|t| t.as_str());
            match ty {
                Some(t @ ("ready" | "setup" | "move" | "resign" | "info")) => Err(Fault::new(
                    Reason::MalformedMessage,
                    format!("its {t:?} message is malformed ({e}): {}", clip(line)),
                )),
                Some(t) => {
                    Err(Fault::new(Reason::UnexpectedMessage, format!("it sent a message of unknown type {t:?}")))
                }
                None => Err(Fault::new(
                    Reason::UnexpectedMessage,
                    format!("it sent a message without a \"type\": {}", clip(line)),
                )),
            }
        }
    }
}

/// At most 200 characters of a line, for messages.
pub fn clip(line: &str) -> String {
    if line.chars().count() <= 200 {
        line.to_owned()
    } else {
        format!("{}…", line.chars().take(200).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_moves_parse_as_serde_parses_them() {
        for line in [
            r#"{"type":"move","move":"e4-e5"}"#,
            r#"{"type":"move","move":"a10-a9","ply":0}"#,
            r#"{"type":"move","move":"b1-b2","ply":4294967295}"#,
            r#"{"type":"move","move":"","ply":12}"#,
            r#"{"type":"move","move":"not a move","ply":7}"#,
        ] {
            let fast = plain_move(line).unwrap_or_else(|| panic!("not taken: {line}"));
            assert_eq!(fast, serde_json::from_str::<BotMessage>(line).unwrap(), "{line}");
        }
        // Other shapes go to serde, which judges them (some are fine, some are faults).
        for line in [
            r#"{"type":"move","move":"e4-e5","ply":4294967296}"#,
            r#"{"type":"move","move":"e4-e5","ply":007}"#,
            r#"{"type":"move","move":"e4-e5","ply":-1}"#,
            r#"{"type":"move","move":"e4-e5","ply":}"#,
            r#"{"type":"move","move":"e4\"-e5"}"#,
            r#"{"type":"move","move":"e4\u002de5"}"#,
            r#"{"type":"move","move":"e4-e5"} "#,
            r#"{"type":"move","move":"e4-e5","extra":1}"#,
            r#"{"move":"e4-e5","type":"move"}"#,
            r#"{ "type": "move", "move": "e4-e5" }"#,
            r#"{"type":"move","move":"e4-e5""#,
        ] {
            assert!(plain_move(line).is_none(), "taken: {line}");
        }
        assert_eq!(
            parse_bot_message(r#"{"type":"move","move":"e4\u002de5"}"#).unwrap(),
            BotMessage::Move(stratego_protocol::MoveAnswer { mv: "e4-e5".into(), ply: None })
        );
    }
}
