//! `stratego-host check BOT`: a scripted battery a bot author runs in their own CI.
//!
//! Each check plays real games through the same referee as `match`, against the built-in
//! random sample bot, and reads the outcome from the game records.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use stratego_rules::{ByColor, Color, Ruleset};

use crate::bot_spec::BotSpec;
use crate::clock::TimeControl;
use crate::json_session::JsonSession;
use crate::record::GameRecord;
use crate::referee::{GameSettings, Seat, play_game};
use crate::schedule::GameSpec;
use crate::session::BotSession;
use crate::supervisor::Supervisor;

/// Most stderr a bot may write in one game before the check calls it a flood.
pub const STDERR_BUDGET: u64 = 1 << 20;

/// One line of the report.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    /// What was checked.
    pub name: String,
    /// Whether it passed.
    pub passed: bool,
    /// What happened: for a failure, what was sent, what came back, what was expected.
    pub detail: String,
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
}

fn settings(plan: &CheckPlan, rules: &Ruleset) -> GameSettings {
    GameSettings {
        rules: Arc::new(rules.clone()),
        time_control: plan.time_control,
        max_line: plan.max_line,
        grace: Duration::from_millis(1000),
        read_grace: Duration::from_millis(crate::cli::DEFAULT_READ_GRACE_MS),
        match_seed: plan.seed,
        strikes: 0,
        blind: false,
    }
}

fn opponent() -> BotSpec {
    let mut s = BotSpec::sample_bot(&["--strategy", "random"]);
    s.name = "sample-bot-random".into();
    s
}

/// What a record says went wrong for `color`, if anything: "after N plies: message".
fn fault_of(rec: &GameRecord, color: Color) -> Option<String> {
    (rec.result.faulty == Some(color) || (rec.result.faulty.is_none() && rec.result.reason.is_fault())).then(|| {
        format!("after {} plies, the host reported {}: {}", rec.plies.len(), rec.result.reason, rec.result.message)
    })
}

fn expected_for(reason: crate::reason::Reason) -> &'static str {
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
        _ => "expected the bot to keep playing until game_over",
    }
}

/// Plays one game with the bot as `color`; returns the record and the kept session.
async fn one_game(
    plan: &CheckPlan,
    sup: &Supervisor,
    rules: &Ruleset,
    color: Color,
    index: u32,
    reuse: Option<JsonSession>,
    probe: bool,
) -> (GameRecord, Option<JsonSession>) {
    let settings = settings(plan, rules);
    let spec = GameSpec {
        index,
        game_id: format!("check-{}", index + 1),
        pair: index / 2,
        seed: stratego_protocol::Rng::derive(plan.seed, u64::from(index)),
        seats: ByColor::new(0, 0),
        setups: ByColor::new(None, None),
    };
    let mut reuse = reuse;
    let seats = ByColor::new_with(|c| {
        let spec = if c == color { plan.bot.clone() } else { opponent() };
        let session = match (c == color).then(|| reuse.take()).flatten() {
            Some(s) => Ok(s),
            None => JsonSession::spawn(&spec, plan.max_line, None, settings.read_grace, settings.grace, sup)
                .map(|mut s| {
                    if probe && c == color {
                        s.probe_unknown_fields();
                    }
                    s
                })
                .map_err(|e| {
                    crate::reason::Fault::new(
                        crate::reason::Reason::Crash,
                        format!("the program could not be started: {e}"),
                    )
                }),
        };
        Seat {
            name: spec.name.clone(),
            command: spec.command.clone(),
            session,
            time_control: plan.time_control,
            fixed_setup: None,
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

/// Runs the battery.
pub async fn run_check(plan: &CheckPlan, sup: &Supervisor) -> Vec<CheckResult> {
    let mut results = Vec::new();
    let mut push = |name: String, outcome: Result<String, String>| {
        let (passed, detail) = match outcome {
            Ok(d) => (true, d),
            Err(d) => (false, d),
        };
        results.push(CheckResult { name, passed, detail });
    };
    let mut index = 0;
    let mut multi_game = false;
    for (i, rules) in plan.rulesets.iter().enumerate() {
        for color in Color::ALL {
            let (rec, kept) = one_game(plan, sup, rules, color, index, None, false).await;
            index += 1;
            let bot = &rec.bots[color];
            if i == 0 && color == Color::Red {
                push(
                    "starts and answers hello with ready and a name".into(),
                    match (&bot.reported_name, &rec.result.faulty) {
                        (Some(n), _) if !n.trim().is_empty() => {
                            Ok(format!("name {n:?}, version {:?}", bot.version.as_deref().unwrap_or("-")))
                        }
                        (Some(_), _) => {
                            Err("sent: hello; got: ready with an empty name; expected: a non-empty name".into())
                        }
                        (None, _) => Err(format!(
                            "sent: hello; got: {}; {}",
                            fault_of(&rec, color).unwrap_or_else(|| "no ready".into()),
                            expected_for(rec.result.reason)
                        )),
                    },
                );
                multi_game = kept.is_some();
            }
            let name = format!("{}: a valid setup as {color}", rules.name());
            push(
                name,
                match (&rec.deployments[color], rec.result.reason) {
                    (Some(d), _) => Ok(d.clone()),
                    (None, r) => Err(format!(
                        "sent: setup_request; got: {}; {}",
                        fault_of(&rec, color).unwrap_or_else(|| "no setup".into()),
                        expected_for(r)
                    )),
                },
            );
            let max_us = rec.plies.iter().filter(|p| p.ply.color == color).map(|p| p.time_us).max().unwrap_or(0);
            push(
                format!("{}: a whole game as {color} with legal moves in time", rules.name()),
                match fault_of(&rec, color) {
                    None => Ok(format!(
                        "{} plies, {}, slowest move {:.1} ms",
                        rec.plies.len(),
                        rec.result.reason,
                        max_us as f64 / 1000.0
                    )),
                    Some(f) => Err(format!("sent: turn; got: {f}; {}", expected_for(rec.result.reason))),
                },
            );
            if let Some(p) = kept {
                p.shutdown(Duration::from_millis(1000)).await;
            } else if fault_of(&rec, color).is_none() {
                let exit = bot.exit.clone().unwrap_or_default();
                push(
                    format!("{}: exits on quit ({color})", rules.name()),
                    if exit.contains("exited with status") {
                        Ok(exit)
                    } else {
                        Err(format!(
                            "sent: game_over, then quit; got: {exit}; expected: the process exits by itself within 1 s"
                        ))
                    },
                );
            }
            push(
                format!("{}: stderr within {} KiB a game ({color})", rules.name(), STDERR_BUDGET >> 10),
                if bot.stderr_bytes <= STDERR_BUDGET {
                    Ok(format!("{} bytes", bot.stderr_bytes))
                } else {
                    Err(format!(
                        "got: {} bytes on stderr in one game; expected at most {STDERR_BUDGET}",
                        bot.stderr_bytes
                    ))
                },
            );
        }
    }
    let rules = &plan.rulesets[0];
    // Forward compatibility: every host message carries an unknown field.
    let (rec, kept) = one_game(plan, sup, rules, Color::Red, index, None, true).await;
    index += 1;
    push(
        "tolerates unknown fields in host messages".into(),
        match fault_of(&rec, Color::Red) {
            None => Ok("every message carried \"x_future_field\"; the game went on".into()),
            Some(f) => Err(format!(
                "sent: messages with an extra field \"x_future_field\"; got: {f}; expected: unknown fields ignored"
            )),
        },
    );
    if let Some(p) = kept {
        p.shutdown(Duration::from_millis(1000)).await;
    }
    // Several games in one process, when the bot says it can.
    if multi_game {
        let (first, kept) = one_game(plan, sup, rules, Color::Red, index, None, false).await;
        let outcome = match kept {
            None => Err(format!("the first game ended with {}; the process was not kept", first.result.reason)),
            Some(p) => {
                let (second, kept) = one_game(plan, sup, rules, Color::Blue, index + 1, Some(p), false).await;
                if let Some(p) = kept {
                    p.shutdown(Duration::from_millis(1000)).await;
                }
                match fault_of(&second, Color::Blue) {
                    None => {
                        Ok(format!("two games in one process ({} and {} plies)", first.plies.len(), second.plies.len()))
                    }
                    Some(f) => Err(format!(
                        "sent: a second hello after game_over; got: {f}; {}",
                        expected_for(second.result.reason)
                    )),
                }
            }
        };
        push("plays several games in one process (ready.multi_game)".into(), outcome);
    }
    results
}

/// The report for people.
pub fn render(bot: &BotSpec, results: &[CheckResult]) -> String {
    let mut s = format!("check: {} ({})\n", bot.name, bot.command.join(" "));
    for r in results {
        s.push_str(&format!("  {}  {}: {}\n", if r.passed { "PASS" } else { "FAIL" }, r.name, r.detail));
    }
    let failed = results.iter().filter(|r| !r.passed).count();
    s.push_str(&format!("{} passed, {} failed\n", results.len() - failed, failed));
    s
}
