//! `stratego-host check BOT`: a scripted battery a bot author runs in their own CI.
//!
//! Each check plays real games through the same referee as `match`, against the built-in
//! random sample bot, and reads the outcome from the game records. A check that an earlier
//! failure made impossible (no setup can be checked when the bot never answered `hello`) is
//! reported as not run, naming the failure it depends on, so that one root cause is reported
//! once; and a failure says only what the record shows was sent.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use stratego_rules::{ByColor, Color, Deployment, Game, Ruleset};

use crate::commands::CommandOutput;
use crate::game::clock::TimeControl;
use crate::reason::Reason;
use crate::record::GameRecord;
use crate::run::referee::{GameSettings, Seat, play_game};
use crate::run::schedule::GameSpec;
use crate::session::BotSession;
use crate::session::json_session::JsonSession;
use crate::supervise::bot_spec::BotSpec;
use crate::supervise::supervisor::Supervisor;
use crate::text::clip;

/// Most stderr a bot may write in one game before the check calls it a flood.
pub const STDERR_BUDGET: u64 = 1 << 20;

/// Lines of a bot's stderr shown under a failure (its last ones).
pub const STDERR_LINES: usize = 10;

/// Legal moves listed when a turn's answer failed.
pub const SHOWN_MOVES: usize = 10;

/// Time a bot has to exit after `quit`.
const GRACE: Duration = Duration::from_millis(1000);

/// The first check: every other one needs a bot that answers `hello`.
const HELLO: &str = "starts and answers hello with ready and a name";

/// The forward-compatibility check.
const PROBE: &str = "tolerates unknown fields in host messages";

/// The check of a bot that says it plays several games in one process.
const MULTI: &str = "plays several games in one process (ready.multi_game)";

/// How `one_game` words a bot that could not be started, so that the report does not claim
/// a `hello` was sent to it.
const SPAWN_FAILED: &str = "the program could not be started";

/// The outcome of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It passed.
    Pass,
    /// It failed.
    Fail,
    /// It could not be made, because a check it depends on failed.
    NotRun,
}

/// One line of the report.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    /// What was checked.
    pub name: String,
    /// Whether it passed (false when it was not run; kept for readers of older reports).
    pub passed: bool,
    /// Passed, failed or not run.
    pub status: Status,
    /// What happened: for a failure, what was sent, what came back, what was expected; for a
    /// check not run, why.
    pub detail: String,
    /// For a check not run: the failed check it depends on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<String>,
    /// For a failure: the last lines the bot wrote to stderr (at most [`STDERR_LINES`], each
    /// clipped to 200 characters).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
}

/// What to check.
pub struct CheckPlan {
    /// The bot under test.
    pub bot: BotSpec,
    /// Presets or files to play.
    pub rulesets: Vec<Ruleset>,
    /// Clocks.
    pub time_control: TimeControl,
    /// Longest line.
    pub max_line: usize,
    /// Seed.
    pub seed: u64,
    /// Where to log every protocol line (`--log-protocol`).
    pub protocol_log: Option<Arc<crate::session::protocol_log::ProtocolLog>>,
    /// `--json`: the results as JSON on stdout.
    pub json: bool,
    /// What the bot's sandbox masks (the protocol log), when it runs in one.
    pub masks: crate::supervise::sandbox::Masks,
}

/// `stratego-host check`: runs the battery, kills what is left of the bot, and gives the
/// report (text, or JSON) with exit code 0 when every check passed, 3 when the bot could
/// not be started (it never answered its first `hello` with `ready`: as `match`'s start-up
/// check), 4 when a check failed.
pub fn run(plan: &CheckPlan) -> CommandOutput {
    let supervisor = Supervisor::plain().with_masks(plan.masks.clone());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let (results, never_ready) = runtime.block_on(run_battery(plan, &supervisor));
    drop(runtime);
    let stdout = if plan.json { crate::compete::report::json(&results) } else { render(&plan.bot, &results) };
    supervisor.kill_all();
    let failed = results.iter().any(|r| r.status != Status::Pass);
    let code = if never_ready {
        crate::exit::BOT_NOT_STARTABLE
    } else if failed {
        crate::exit::CHECK_FAILED
    } else {
        crate::exit::OK
    };
    CommandOutput { stdout, code }
}

fn settings(plan: &CheckPlan, rules: &Ruleset) -> GameSettings {
    GameSettings {
        rules: Arc::new(rules.clone()),
        time_control: plan.time_control,
        max_line: plan.max_line,
        grace: GRACE,
        read_grace: Duration::from_millis(crate::run::plan::DEFAULT_READ_GRACE_MS),
        match_seed: plan.seed,
        strikes: 0,
        blind: false,
        protocol_log: plan.protocol_log.clone(),
        listen: None,
        adjudication: Default::default(),
    }
}

/// The bot every check plays against.
fn opponent() -> BotSpec {
    let mut s = BotSpec::sample_bot(&["--strategy", "random"]);
    s.name = "sample-bot-random".into();
    s
}

/// Whether the record blames `color` for the end of the game.
fn faulted(rec: &GameRecord, color: Color) -> bool {
    rec.result.faulty == Some(color) || (rec.result.faulty.is_none() && rec.result.reason.is_fault())
}

/// What came back, in the record's words: `reason: message`, without the "NAME (Color)
/// forfeits: " the record puts in front (the report is about that bot already).
fn got(rec: &GameRecord, color: Color) -> String {
    let prefix = format!("{} ({color}) forfeits: ", rec.bots[color].name);
    let message = rec.result.message.strip_prefix(&prefix).unwrap_or(&rec.result.message);
    format!("{}: {message}", rec.result.reason)
}

/// Whether the bot answered `hello` in time in this game. For a process that played an
/// earlier game the record's `reported_name` is the earlier `ready`'s, so the answer then
/// comes from what went wrong, and is `None` when that does not tell.
fn became_ready(rec: &GameRecord, color: Color, reused: bool) -> Option<bool> {
    let mine = faulted(rec, color);
    let late_ready = mine && rec.result.reason == Reason::StartupTimeout;
    if !reused {
        return Some(rec.bots[color].reported_name.is_some() && !late_ready);
    }
    let message = &rec.result.message;
    if rec.deployments[color].is_some() {
        Some(true)
    } else if late_ready || (mine && message.contains("\"ready\" was expected")) {
        Some(false)
    } else if mine
        && (matches!(rec.result.reason, Reason::SetupTimeout | Reason::InvalidSetup)
            || message.contains("\"setup\" was expected"))
    {
        Some(true)
    } else {
        None
    }
}

/// The last request the host sent the bot before its game stopped, as far as the record
/// tells: the referee asks for setups only once both bots are ready, and for moves only
/// once both setups are valid.
#[derive(Clone, Debug, PartialEq)]
enum Stage {
    /// Nothing: the program could not be started.
    Nothing,
    /// `hello`, not answered in time.
    Hello,
    /// `hello` and perhaps `setup_request`: the record cannot tell which went unanswered.
    HelloOrSetup,
    /// `setup_request`.
    Setup,
    /// A turn, described.
    Turn(String),
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stage::Nothing => f.write_str("nothing (the program could not be started)"),
            Stage::Hello => f.write_str("hello"),
            Stage::HelloOrSetup => f.write_str("hello, then setup_request if it answered ready"),
            Stage::Setup => f.write_str("setup_request"),
            Stage::Turn(t) => f.write_str(t),
        }
    }
}

fn stage_of(rec: &GameRecord, color: Color, reused: bool) -> Stage {
    if faulted(rec, color) && rec.result.reason == Reason::Crash && rec.result.message.contains(SPAWN_FAILED) {
        return Stage::Nothing;
    }
    match became_ready(rec, color, reused) {
        Some(false) => Stage::Hello,
        None => Stage::HelloOrSetup,
        Some(true) if rec.deployments.red.is_some() && rec.deployments.blue.is_some() => Stage::Turn(turn_sent(rec)),
        Some(true) => Stage::Setup,
    }
}

/// The game the record ends on, rebuilt with the rules crate (as `GameRecord::play_through` does).
fn play_through_to_end(rec: &GameRecord) -> Option<Game> {
    let rules = Ruleset::try_from(rec.ruleset.clone()).ok()?;
    let (Some(red), Some(blue)) = (&rec.deployments.red, &rec.deployments.blue) else { return None };
    let red = Deployment::parse(&rules, Color::Red, red).ok()?;
    let blue = Deployment::parse(&rules, Color::Blue, blue).ok()?;
    let mut game = Game::new(rules, &red, &blue).ok()?;
    for p in &rec.plies {
        game.play(p.ply.mv).ok()?;
    }
    Some(game)
}

/// The last turn of the record (the one whose answer ended the game): its ply (the turn's
/// `ply` field), the side to move and the first of its legal moves.
fn turn_sent(rec: &GameRecord) -> String {
    let ply = rec.plies.len();
    let Some(game) = play_through_to_end(rec).filter(|g| !g.is_over()) else { return format!("turn at ply {ply}") };
    let mut legal = Vec::new();
    game.legal_moves(&mut legal);
    let shown: Vec<String> = legal.iter().take(SHOWN_MOVES).map(ToString::to_string).collect();
    let more = match legal.len().saturating_sub(SHOWN_MOVES) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!("turn at ply {ply} ({} to move, {} legal moves: {}{more})", game.to_move(), legal.len(), shown.join(", "))
}

/// What the bot should have done: from the reason when it says, else from the request.
fn expected(stage: &Stage, reason: Reason) -> &'static str {
    use crate::reason::Reason::*;
    match reason {
        StartupTimeout => "expected a \"ready\" line within the startup time",
        SetupTimeout => "expected a \"setup\" line within the setup time",
        MoveTimeout => "expected a \"move\" within clock.move_ms of each turn",
        IllegalMove => "expected one of the turn's legal_moves",
        InvalidSetup => "expected a setup placing exactly the requested pieces on the requested squares",
        MalformedJson | MalformedMessage | UnexpectedMessage | InvalidUtf8 | LineTooLong => {
            "expected one JSON message per line, of the type the host asked for (protocol.md)"
        }
        _ => match stage {
            Stage::Nothing => "expected a program that can be started",
            Stage::Hello => "expected a \"ready\" line",
            Stage::Setup => "expected a \"setup\" line",
            Stage::HelloOrSetup | Stage::Turn(_) => "expected the bot to keep playing until game_over",
        },
    }
}

/// "sent: …; got: …; expected …" for a game `color` lost by its fault.
fn failure(rec: &GameRecord, color: Color, reused: bool) -> String {
    let stage = stage_of(rec, color, reused);
    let sent = if reused { "sent, in the same process after game_over" } else { "sent" };
    // A bot that stopped at hello may have misread its seed: the report says which it was.
    let seed = match stage {
        Stage::Hello | Stage::HelloOrSetup => format!(" (its seed {})", bot_seed(rec.seed, color)),
        _ => String::new(),
    };
    format!("{sent}: {stage}{seed}; got: {}; {}", got(rec, color), expected(&stage, rec.result.reason))
}

/// The last lines of a stderr tail, bounded for the report: blank lines dropped (they would
/// use up the few lines shown), control characters shown as escapes by
/// [`crate::text::clean`] (the bot's output must not drive the reader's terminal),
/// each line clipped.
fn stderr_lines(tail: &str) -> Vec<String> {
    let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(STDERR_LINES)..].iter().map(|l| clip(&crate::text::clean(l))).collect()
}

/// The results so far, with what a new check needs to know of the earlier ones.
#[derive(Default)]
struct Battery {
    results: Vec<CheckResult>,
}

impl Battery {
    fn passed(&self, name: &str) -> bool {
        self.results.iter().any(|r| r.name == name && r.status == Status::Pass)
    }

    fn failed(&self, name: &str) -> bool {
        self.results.iter().any(|r| r.name == name && r.status == Status::Fail)
    }

    fn push(&mut self, name: &str, status: Status, detail: String, depends_on: Option<String>, stderr: Vec<String>) {
        let passed = status == Status::Pass;
        self.results.push(CheckResult { name: name.to_owned(), passed, status, detail, depends_on, stderr });
    }

    fn pass(&mut self, name: &str, detail: String) {
        self.push(name, Status::Pass, detail, None, Vec::new());
    }

    fn fail(&mut self, name: &str, detail: String, stderr_tail: &str) {
        self.push(name, Status::Fail, detail, None, stderr_lines(stderr_tail));
    }

    fn check(&mut self, name: &str, outcome: Result<String, String>, stderr_tail: &str) {
        match outcome {
            Ok(d) => self.pass(name, d),
            Err(d) => self.fail(name, d, stderr_tail),
        }
    }

    /// `name` could not be checked because `on` did not pass; names the root cause, which is
    /// what `on` itself depended on when it was not run either.
    fn not_run(&mut self, name: &str, on: &str) {
        let root = self.results.iter().find(|r| r.name == on).and_then(|r| r.depends_on.clone());
        let root = root.unwrap_or_else(|| on.to_owned());
        self.push(name, Status::NotRun, format!("depends on {root:?}"), Some(root), Vec::new());
    }

    /// `name` could not be checked because the opponent failed first: not the bot's doing.
    fn opponent_failed(&mut self, name: &str, rec: &GameRecord, color: Color) {
        let detail = format!("the opponent {} failed first: {}", rec.bots[!color].name, got(rec, !color));
        self.push(name, Status::NotRun, detail, None, Vec::new());
    }
}

/// Plays one game with the bot as `color`; returns the record and the kept session.
/// `seed_index` picks the game's seeds, so that two games can be the same game.
#[allow(clippy::too_many_arguments)] // private; every caller names what differs
async fn one_game(
    plan: &CheckPlan,
    sup: &Supervisor,
    rules: &Ruleset,
    color: Color,
    index: u32,
    seed_index: u32,
    reuse: Option<JsonSession>,
    probe: bool,
) -> (GameRecord, Option<JsonSession>) {
    let settings = settings(plan, rules);
    let spec = GameSpec {
        index,
        game_id: format!("check-{}", index + 1),
        pair: index / 2,
        seed: game_seed(plan.seed, seed_index, color),
        seats: ByColor::new(0, 0),
        setups: ByColor::new(None, None),
    };
    let mut reuse = reuse;
    let seats = ByColor::new_with(|c| {
        let spec = if c == color { plan.bot.clone() } else { opponent() };
        let session = match (c == color).then(|| reuse.take()).flatten() {
            Some(s) => Ok(s),
            None => JsonSession::spawn(&spec, &settings.session_options(None), sup)
                .map(|mut s| {
                    if probe && c == color {
                        s.probe_unknown_fields();
                    }
                    s
                })
                .map_err(|e| crate::reason::Fault::new(Reason::Crash, format!("{SPAWN_FAILED}: {e}"))),
        };
        Seat {
            name: spec.name.clone(),
            command: spec.command.clone(),
            session,
            time_control: plan.time_control,
            fixed_setup: None,
            share_cpu: None,
        }
    });
    let (record, kept) = play_game(&settings, &spec, seats, None).await;
    let ByColor { red, blue } = kept;
    let (mine, other) = if color == Color::Red { (red, blue) } else { (blue, red) };
    if let Some(other) = other {
        other.shutdown(Duration::from_millis(200)).await;
    }
    (record, mine)
}

/// The smallest `hello.seed` that a JSON library reading numbers as doubles cannot hold
/// exactly: 2^53 + 1.
pub const ABOVE_DOUBLES: u64 = (1 << 53) + 1;

/// The seed `hello` gives the bot under test, playing `color`, in a game of seed `game`
/// (as the referee derives it).
fn bot_seed(game: u64, color: Color) -> u64 {
    stratego_protocol::Rng::derive(game, color.index() as u64 + 1)
}

/// The seed of the check's game `seed_index`, where the bot plays `color`: derived from
/// `--seed`, and for the first three games chosen so that the bot's own `hello.seed` is,
/// whatever `--seed` says, one every language reads (below 2^53) in the first, whose `hello`
/// tells whether the bot starts at all; 2^63 or above in the second (more than a signed
/// 64-bit integer or a double holds); above 2^53 and below 2^63 in the third (more than a
/// double holds exactly): the ways a bot misreads its seed, on half or more of all games.
fn game_seed(seed: u64, seed_index: u32, color: Color) -> u64 {
    let wanted = |s: u64| match seed_index {
        0 => s < ABOVE_DOUBLES,
        1 => s >= 1 << 63,
        2 => (ABOVE_DOUBLES..1 << 63).contains(&s),
        _ => true,
    };
    let first = stratego_protocol::Rng::derive(seed, u64::from(seed_index));
    // A candidate does with odds of 1 in 2 (1 in 2048 for the first game's): this ends
    // within a few thousand tries at most.
    (0..)
        .map(|k| if k == 0 { first } else { stratego_protocol::Rng::derive(first, k) })
        .find(|&game| wanted(bot_seed(game, color)))
        .expect("an endless search")
}

/// The names of the checks one game makes.
struct GameChecks {
    hello: String,
    setup: String,
    game: String,
    quit: String,
    stderr: String,
}

impl GameChecks {
    fn new(rules: &Ruleset, color: Color) -> GameChecks {
        let r = rules.name();
        GameChecks {
            hello: format!("{r}: starts and answers hello as {color}"),
            setup: format!("{r}: a valid setup as {color}"),
            game: format!("{r}: a whole game as {color} with legal moves in time"),
            quit: format!("{r}: exits on quit ({color})"),
            stderr: format!("{r}: stderr within {} KiB a game ({color})", STDERR_BUDGET >> 10),
        }
    }
}

fn hello_outcome(rec: &GameRecord, color: Color) -> Result<String, String> {
    let bot = &rec.bots[color];
    match (&bot.reported_name, became_ready(rec, color, false)) {
        (Some(n), Some(true)) if !n.trim().is_empty() => {
            Ok(format!("name {n:?}, version {:?}", bot.version.as_deref().unwrap_or("-")))
        }
        (Some(_), Some(true)) => Err("sent: hello; got: ready with an empty name; expected: a non-empty name".into()),
        _ => Err(failure(rec, color, false)),
    }
}

/// The checks of one game of the battery; `kept` is the bot's session when it is fit for
/// another game (it is shut down here, and its exit checked).
async fn check_game(b: &mut Battery, names: &GameChecks, rec: &GameRecord, color: Color, kept: Option<JsonSession>) {
    let bot = &rec.bots[color];
    let tail = bot.stderr_tail.as_str();
    let ready = became_ready(rec, color, false) == Some(true);
    // The setup: asked only of a bot that answered hello, and only once the opponent had too.
    match &rec.deployments[color] {
        Some(d) => b.pass(&names.setup, d.clone()),
        // The first game's hello check says it already.
        None if !ready && b.failed(HELLO) => b.not_run(&names.setup, HELLO),
        // It never got a setup request: the check that failed is this game's hello.
        None if !ready && faulted(rec, color) => {
            b.fail(&names.hello, failure(rec, color, false), tail);
            b.not_run(&names.setup, &names.hello);
        }
        None if faulted(rec, color) => b.fail(&names.setup, failure(rec, color, false), tail),
        None => b.opponent_failed(&names.setup, rec, color),
    }
    // The game: moves are asked for only once both setups are valid.
    if rec.deployments[color].is_none() {
        b.not_run(&names.game, &names.setup);
    } else if rec.deployments[!color].is_none() {
        b.opponent_failed(&names.game, rec, color);
    } else if faulted(rec, color) {
        b.fail(&names.game, failure(rec, color, false), tail);
    } else {
        let max_us = rec.plies.iter().filter(|p| p.ply.color == color).map(|p| p.time_us).max().unwrap_or(0);
        let detail =
            format!("{} plies, {}, slowest move {:.1} ms", rec.plies.len(), rec.result.reason, max_us as f64 / 1000.0);
        b.pass(&names.game, detail);
    }
    // A process kept for another game is told quit now; one that was not was told at the
    // end of the game, and the record says how it ended.
    // Its stderr is counted until its process has ended: what a kept process writes after
    // game_over and on quit belongs to this game too.
    let mut stderr_bytes = bot.stderr_bytes;
    let mut tail = tail;
    let closed;
    let exit = match kept {
        Some(p) => {
            let (how, report) = p.close(GRACE).await;
            stderr_bytes = stderr_bytes.max(report.stderr_bytes);
            closed = report.stderr_tail;
            tail = closed.as_str();
            Some(how)
        }
        None => bot.exit.clone(),
    };
    if b.passed(&names.game) {
        let exit = exit.unwrap_or_else(|| "no exit status".into());
        let outcome = if exit.contains("exited with status") {
            Ok(exit)
        } else {
            Err(format!(
                "sent: game_over, then quit; got: {exit}; expected: the process exits by itself within {} s",
                GRACE.as_secs_f64()
            ))
        };
        b.check(&names.quit, outcome, tail);
    } else {
        b.not_run(&names.quit, &names.game);
    }
    // Stderr: too much is a failure whatever happened; within the budget means something
    // only when the bot got past hello (a crash at start writes little).
    if stderr_bytes > STDERR_BUDGET {
        let detail = format!(
            "got: {stderr_bytes} bytes on stderr in one game (until its process ended); expected at most {STDERR_BUDGET}"
        );
        b.fail(&names.stderr, detail, tail);
    } else if ready {
        b.pass(&names.stderr, format!("{stderr_bytes} bytes"));
    } else if b.failed(HELLO) {
        b.not_run(&names.stderr, HELLO);
    } else if b.failed(&names.hello) {
        b.not_run(&names.stderr, &names.hello);
    } else {
        b.not_run(&names.stderr, &names.setup);
    }
}

/// Runs the battery.
pub async fn run_check(plan: &CheckPlan, sup: &Supervisor) -> Vec<CheckResult> {
    run_battery(plan, sup).await.0
}

/// Runs the battery; also whether the bot never answered its first `hello` with `ready`
/// (it could not be started, or it ended or timed out before its `ready`).
async fn run_battery(plan: &CheckPlan, sup: &Supervisor) -> (Vec<CheckResult>, bool) {
    let mut b = Battery::default();
    let mut index = 0;
    let mut multi_game = false;
    // The bot never answered the first hello: every later game would stop at the same point
    // (and a bot that never answers would cost the startup time each), so none is played.
    let mut never_ready = false;
    for (i, rules) in plan.rulesets.iter().enumerate() {
        for color in Color::ALL {
            let names = GameChecks::new(rules, color);
            if never_ready {
                for name in [&names.setup, &names.game, &names.quit, &names.stderr] {
                    b.not_run(name, HELLO);
                }
                continue;
            }
            let (rec, kept) = one_game(plan, sup, rules, color, index, index, None, false).await;
            index += 1;
            if i == 0 && color == Color::Red {
                b.check(HELLO, hello_outcome(&rec, color), &rec.bots[color].stderr_tail);
                multi_game = kept.is_some();
                never_ready = became_ready(&rec, color, false) != Some(true);
            }
            check_game(&mut b, &names, &rec, color, kept).await;
        }
    }
    let Some(rules) = plan.rulesets.first() else { return (b.results, never_ready) };
    let basic = GameChecks::new(rules, Color::Red).game;
    probe_unknown_fields(plan, sup, &mut b, rules, &basic, &mut index).await;
    if multi_game {
        several_games(plan, sup, &mut b, rules, index).await;
    }
    (b.results, never_ready)
}

/// Forward compatibility: the first game again (same seeds) with an unknown field in every
/// host message. It says something only of a bot that played that game without the field;
/// and when it fails, the game is played once more without the field, to be sure the field
/// is the cause.
async fn probe_unknown_fields(
    plan: &CheckPlan,
    sup: &Supervisor,
    b: &mut Battery,
    rules: &Ruleset,
    basic: &str,
    index: &mut u32,
) {
    if !b.passed(basic) {
        b.not_run(PROBE, basic);
        return;
    }
    let (rec, kept) = one_game(plan, sup, rules, Color::Red, *index, 0, None, true).await;
    *index += 1;
    if let Some(p) = kept {
        p.shutdown(GRACE).await;
    }
    if !faulted(&rec, Color::Red) {
        b.pass(PROBE, "every message carried \"x_future_field\"; the game went on".into());
        return;
    }
    let (again, kept) = one_game(plan, sup, rules, Color::Red, *index, 0, None, false).await;
    *index += 1;
    if let Some(p) = kept {
        p.shutdown(GRACE).await;
    }
    if faulted(&again, Color::Red) {
        // Not the field's doing: the bot fails this game either way.
        let name = format!("{}: the same game as Red again, without unknown fields", rules.name());
        b.fail(&name, failure(&again, Color::Red, false), &again.bots.red.stderr_tail);
        b.not_run(PROBE, &name);
    } else {
        let stage = stage_of(&rec, Color::Red, false);
        let detail = format!(
            "sent: {stage}, every message with an extra field \"x_future_field\"; got: {}; \
             expected: unknown fields ignored (the same game without the field went on)",
            got(&rec, Color::Red)
        );
        b.fail(PROBE, detail, &rec.bots.red.stderr_tail);
    }
}

/// Two games in one process, for a bot that says it can.
async fn several_games(plan: &CheckPlan, sup: &Supervisor, b: &mut Battery, rules: &Ruleset, index: u32) {
    let (first, kept) = one_game(plan, sup, rules, Color::Red, index, index, None, false).await;
    let Some(p) = kept else {
        let detail =
            format!("the first game ended with {}; the process was not kept for a second", got(&first, Color::Red));
        b.fail(MULTI, detail, &first.bots.red.stderr_tail);
        return;
    };
    let (second, kept) = one_game(plan, sup, rules, Color::Blue, index + 1, index + 1, Some(p), false).await;
    if let Some(p) = kept {
        p.shutdown(GRACE).await;
    }
    if faulted(&second, Color::Blue) {
        b.fail(MULTI, failure(&second, Color::Blue, true), &second.bots.blue.stderr_tail);
    } else {
        b.pass(MULTI, format!("two games in one process ({} and {} plies)", first.plies.len(), second.plies.len()));
    }
}

/// The report for people: a line per check, the bot's last stderr lines under a failure,
/// and the counts.
pub fn render(bot: &BotSpec, results: &[CheckResult]) -> String {
    let mut s = format!("check: {} ({}) against {}\n", bot.name, bot.command.join(" "), opponent().name);
    for r in results {
        let status = match r.status {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::NotRun => "NOT RUN",
        };
        s.push_str(&format!("  {status}  {}: {}\n", r.name, r.detail));
        for line in &r.stderr {
            s.push_str(&format!("    | {line}\n"));
        }
    }
    let count = |status| results.iter().filter(|r| r.status == status).count();
    s.push_str(&format!(
        "{} passed, {} failed, {} not run\n",
        count(Status::Pass),
        count(Status::Fail),
        count(Status::NotRun)
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_not_run_names_the_root_failure_and_is_counted_apart() {
        let mut b = Battery::default();
        b.fail(HELLO, "sent: hello; got: crash".into(), "");
        b.not_run("setup", HELLO);
        b.not_run("game", "setup");
        b.pass("other", "fine".into());
        assert_eq!(b.results[2].depends_on.as_deref(), Some(HELLO), "the root, not the check in between");
        assert_eq!(b.results[2].detail, format!("depends on {HELLO:?}"));
        assert!(!b.results[2].passed);
        let report = render(&opponent(), &b.results);
        assert!(report.contains(&format!("\n  NOT RUN  game: depends on \"{HELLO}\"\n")), "{report}");
        assert!(report.ends_with("1 passed, 1 failed, 2 not run\n"), "{report}");
        let json = serde_json::to_value(&b.results).unwrap();
        assert_eq!(json[1]["status"], "not_run");
        assert_eq!(json[0]["status"], "fail");
        assert_eq!(json[3]["status"], "pass");
    }

    #[test]
    fn the_first_three_games_give_the_bot_its_seed_ranges_whatever_the_seed_option() {
        for seed in (0..200).chain([u64::MAX, 1 << 63, 4]) {
            for (index, color) in [(0, Color::Red), (1, Color::Blue), (2, Color::Red)] {
                let got = bot_seed(game_seed(seed, index, color), color);
                match index {
                    0 => assert!(got < ABOVE_DOUBLES, "--seed {seed}: {got}"),
                    1 => assert!(got >= 1 << 63, "--seed {seed}: {got}"),
                    _ => assert!((ABOVE_DOUBLES..1 << 63).contains(&got), "--seed {seed}: {got}"),
                }
            }
            // Later games keep the plain derivation; the same --seed gives the same games.
            assert_eq!(game_seed(seed, 5, Color::Blue), stratego_protocol::Rng::derive(seed, 5));
            assert_eq!(game_seed(seed, 1, Color::Blue), game_seed(seed, 1, Color::Blue));
        }
    }

    #[test]
    fn the_stderr_shown_is_the_last_ten_lines_clipped_and_without_control_characters() {
        let long = "y".repeat(300);
        let tail = format!(
            "partial line\n{}\n\n\x1b[31mred\x1b[0m\n{long}\n",
            (1..=12).map(|i| format!("line {i}\n")).collect::<String>()
        );
        let lines = stderr_lines(&tail);
        assert_eq!(lines.len(), STDERR_LINES);
        assert_eq!(lines[0], "line 5");
        assert_eq!(lines[8], "\\x1b[31mred\\x1b[0m");
        assert_eq!(lines[9].chars().count(), 201, "200 characters and an ellipsis");
        let mut b = Battery::default();
        b.fail("x", "bad".into(), "one\ntwo\n");
        let report = render(&opponent(), &b.results);
        assert!(report.contains("  FAIL  x: bad\n    | one\n    | two\n"), "{report}");
        assert!(stderr_lines("").is_empty());
    }
}
