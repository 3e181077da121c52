//! The referee through the seam, with in-memory bots: no processes, no clocks.

use std::sync::{Arc, Mutex};

use stratego_protocol::Rng;

use super::*;
use crate::session::SessionReport;

/// How a scripted bot plays.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Script {
    /// Random legal moves.
    Random,
    /// An illegal move at the given ply (a move of an empty square).
    IllegalAt(u32),
    /// Its answer at the given ply takes longer than the budget.
    SlowAt(u32),
    /// No answer at the given ply (the host's deadline passes).
    SilentAt(u32),
    /// Resigns at the given ply.
    ResignAt(u32),
    /// An invalid setup.
    BadSetup,
}

/// What a scripted bot saw, for the tests to check.
#[derive(Default, Debug)]
struct Seen {
    opponent: Option<Option<String>>,
    fixed: Option<String>,
    played: u32,
    over: Option<RecordResult>,
    stopped: bool,
}

struct MemBot {
    script: Script,
    rng: Rng,
    multi_game: bool,
    seen: Arc<Mutex<Seen>>,
}

fn bot(script: Script, seed: u64) -> (MemBot, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    (MemBot { script, rng: Rng::new(seed), multi_game: false, seen: seen.clone() }, seen)
}

fn answer<T>(value: T) -> Result<Timed<T>, SessionError> {
    Ok(Timed { value, took: Duration::from_micros(5), stall_credit: Duration::ZERO, lag: None })
}

impl BotSession for MemBot {
    async fn start_game(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
        self.seen.lock().unwrap().opponent = Some(start.opponent.map(str::to_owned));
        answer(())
    }

    async fn setup(
        &mut self,
        start: &GameStart<'_>,
        fixed: Option<&Deployment>,
    ) -> Result<Timed<String>, SessionError> {
        self.seen.lock().unwrap().fixed = fixed.map(|d| d.to_rows(start.rules));
        if self.script == Script::BadSetup {
            return answer("FFFF".to_owned());
        }
        let mut next = || self.rng.next_u64();
        answer(Deployment::random(start.rules, start.color, &mut next).to_rows(start.rules))
    }

    async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Timed<Decision>, SessionError> {
        let ply = req.game.ply_count();
        match self.script {
            Script::IllegalAt(p) if p <= ply => return answer(Decision::Move("e5-e6".into())),
            Script::SlowAt(p) if p <= ply => {
                return Ok(Timed {
                    value: Decision::Move("a1-a2".into()),
                    took: req.budget + Duration::from_millis(3),
                    stall_credit: Duration::from_millis(2),
                    lag: None,
                });
            }
            Script::SilentAt(p) if p <= ply => {
                return Err(SessionError::Timeout {
                    stall_credit: Duration::ZERO,
                    late: Duration::from_micros(40),
                    note: Some("it sent a move for ply 3".into()),
                });
            }
            Script::ResignAt(p) if p <= ply => return answer(Decision::Resign),
            _ => {}
        }
        let mut legal = Vec::new();
        req.game.legal_moves(&mut legal);
        let mv = legal[self.rng.below(legal.len())];
        answer(Decision::Move(mv.to_string()))
    }

    async fn played(&mut self, _game: &Game, _ply: &stratego_rules::Ply) {
        self.seen.lock().unwrap().played += 1;
    }

    async fn game_over(&mut self, end: &GameEnd<'_>) {
        self.seen.lock().unwrap().over = Some(end.result.clone());
    }

    fn report(&self) -> SessionReport {
        SessionReport { reported_name: Some("mem".into()), ..SessionReport::default() }
    }

    fn reusable(&self) -> bool {
        self.multi_game
    }

    async fn shutdown(self, _grace: Duration) -> String {
        self.seen.lock().unwrap().stopped = true;
        "stopped".into()
    }
}

fn settings(strikes: u32) -> GameSettings {
    GameSettings {
        rules: Arc::new(Ruleset::classic()),
        time_control: TimeControl {
            startup: Duration::from_secs(1),
            setup: Duration::from_secs(1),
            move_limit: Some(Duration::from_millis(100)),
            bank: None,
            increment: Duration::ZERO,
            margin: Duration::ZERO,
        },
        max_line: 1 << 20,
        grace: Duration::from_millis(10),
        read_grace: Duration::ZERO,
        match_seed: 1,
        strikes,
        blind: false,
        protocol_log: None,
        listen: None,
        adjudication: Default::default(),
    }
}

fn spec() -> GameSpec {
    GameSpec {
        index: 0,
        game_id: "g-1".into(),
        pair: 0,
        seed: 42,
        seats: ByColor::new(0, 1),
        setups: ByColor::new(None, None),
    }
}

fn seat(name: &str, bot: MemBot, settings: &GameSettings) -> Seat<MemBot> {
    Seat {
        name: name.into(),
        command: vec![name.into()],
        session: Ok(bot),
        time_control: settings.time_control,
        fixed_setup: None,
        share_cpu: None,
    }
}

async fn play(settings: &GameSettings, red: MemBot, blue: MemBot) -> (GameRecord, ByColor<Option<MemBot>>) {
    let seats = ByColor::new(seat("r", red, settings), seat("b", blue, settings));
    play_game(settings, &spec(), seats, None).await
}

#[tokio::test]
async fn a_game_between_legal_movers_ends_by_the_rules_and_plays_through() {
    let s = settings(0);
    let ((red, rs), (blue, bs)) = (bot(Script::Random, 1), bot(Script::Random, 2));
    let (rec, kept) = play(&s, red, blue).await;
    let outcome = rec.play_through().expect("the record plays through").expect("the rules ended the game");
    assert_eq!(rec.result.winner, outcome.winner);
    assert_eq!(rec.result.reason, Reason::from(outcome.reason));
    // Both bots were told every ply and the result, then stopped (not multi-game).
    for seen in [&rs, &bs] {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.played as usize, rec.plies.len());
        assert_eq!(seen.over.as_ref(), Some(&rec.result));
        assert!(seen.stopped);
    }
    assert!(kept.red.is_none() && kept.blue.is_none());
    assert_eq!(rec.bots.red.exit.as_deref(), Some("stopped"));
    assert_eq!(rs.lock().unwrap().opponent, Some(Some("b".into())));
}

#[tokio::test]
async fn an_illegal_move_forfeits_and_says_which_move() {
    let s = settings(0);
    let (rec, _) = play(&s, bot(Script::Random, 1).0, bot(Script::IllegalAt(5), 2).0).await;
    assert_eq!(rec.result.reason, Reason::IllegalMove);
    assert_eq!(rec.result.faulty, Some(Color::Blue));
    assert_eq!(rec.result.winner, Some(Color::Red));
    assert!(rec.result.message.starts_with("b (Blue) forfeits: e5-e6 is illegal"), "{}", rec.result.message);
    assert_eq!(rec.plies.len(), 5);
}

#[tokio::test]
async fn a_late_answer_and_a_missing_answer_are_move_timeouts_with_the_figures() {
    let s = settings(0);
    let (rec, _) = play(&s, bot(Script::SlowAt(2), 1).0, bot(Script::Random, 2).0).await;
    assert_eq!(rec.result.reason, Reason::MoveTimeout);
    assert_eq!(
        rec.result.message,
        "r (Red) forfeits: move took 0.103 s; the limit was 0.100 s (not counting 0.002 s of machine stalls)"
    );
    let (rec, _) = play(&s, bot(Script::Random, 1).0, bot(Script::SilentAt(3), 2).0).await;
    assert_eq!(rec.result.reason, Reason::MoveTimeout);
    assert_eq!(rec.result.message, "b (Blue) forfeits: no move within 0.100 s; it sent a move for ply 3");
    assert_eq!(rec.bots.blue.timeout_late_us, Some(40));
}

#[tokio::test]
async fn strikes_replace_a_forgivable_fault_by_a_random_legal_move() {
    let s = settings(1);
    let (rec, _) = play(&s, bot(Script::Random, 1).0, bot(Script::IllegalAt(5), 2).0).await;
    // The first illegal move is forgiven; the second (at the next turn) is not.
    assert_eq!(rec.bots.blue.strikes.len(), 1);
    assert_eq!(rec.bots.blue.strikes[0].ply, 6);
    assert_eq!(rec.plies[5].ply.mv, rec.bots.blue.strikes[0].replaced_by);
    assert_eq!(rec.result.reason, Reason::IllegalMove);
    assert_eq!(rec.plies.len(), 7);
}

#[tokio::test]
async fn resignation_and_invalid_setups_decide_the_game() {
    let s = settings(0);
    let (rec, _) = play(&s, bot(Script::ResignAt(0), 1).0, bot(Script::Random, 2).0).await;
    assert_eq!((rec.result.reason, rec.result.winner), (Reason::Resignation, Some(Color::Blue)));
    assert!(rec.plies.is_empty());
    let (rec, _) = play(&s, bot(Script::Random, 1).0, bot(Script::BadSetup, 2).0).await;
    assert_eq!((rec.result.reason, rec.result.faulty), (Reason::InvalidSetup, Some(Color::Blue)));
    assert_eq!(rec.deployments.blue, None);
}

#[tokio::test]
async fn a_fixed_setup_is_told_and_played_whatever_the_bot_answers() {
    let s = settings(0);
    let rules = Ruleset::classic();
    let mut rng = Rng::new(9);
    let mut next = || rng.next_u64();
    let fixed = ByColor::new_with(|c| Deployment::random(&rules, c, &mut next));
    let ((red, rs), (blue, _)) = (bot(Script::Random, 1), bot(Script::BadSetup, 2));
    let mut seats = ByColor::new(seat("r", red, &s), seat("b", blue, &s));
    seats.red.fixed_setup = Some(fixed.red.clone());
    seats.blue.fixed_setup = Some(fixed.blue.clone());
    let (rec, _) = play_game(&s, &spec(), seats, None).await;
    assert_eq!(rs.lock().unwrap().fixed.as_deref(), Some(fixed.red.to_rows(&rules).as_str()));
    assert_eq!(rec.deployments.red.as_deref(), Some(fixed.red.to_rows(&rules).as_str()));
    assert_eq!(rec.deployments.blue.as_deref(), Some(fixed.blue.to_rows(&rules).as_str()));
    assert!(!rec.result.reason.is_fault(), "{:?}", rec.result);
}

#[tokio::test]
async fn a_multi_game_session_without_fault_is_kept_and_a_blind_event_hides_names() {
    let mut s = settings(0);
    s.blind = true;
    let ((mut red, rs), (mut blue, _)) = (bot(Script::Random, 1), bot(Script::IllegalAt(4), 2));
    red.multi_game = true;
    blue.multi_game = true;
    let (rec, kept) = play(&s, red, blue).await;
    assert_eq!(rec.result.faulty, Some(Color::Blue));
    assert!(kept.red.is_some(), "the faultless multi-game bot is kept");
    assert!(kept.blue.is_none(), "the faulty one is stopped");
    assert_eq!(rec.bots.red.exit, None);
    assert_eq!(rs.lock().unwrap().opponent, Some(None));
}

#[test]
fn judge_is_the_one_place_an_answer_is_found_late() {
    let mut late = None;
    let us = Duration::from_micros;
    let ok = judge::<()>(answer(()), us(5), Duration::ZERO, Reason::MoveTimeout, "move", &mut late);
    assert!(ok.is_ok(), "an answer exactly at the limit is in time");
    let slow = judge::<()>(answer(()), us(4), Duration::ZERO, Reason::SetupTimeout, "setup", &mut late);
    assert_eq!(slow.unwrap_err().message, "setup took 0.000 s; the limit was 0.000 s");
    // The answer took 5 µs: 1 µs past a 4 µs limit is within a 1 µs margin, 2 µs is not.
    assert!(judge::<()>(answer(()), us(4), us(1), Reason::MoveTimeout, "move", &mut late).is_ok());
    let over = judge::<()>(answer(()), us(3), us(1), Reason::MoveTimeout, "move", &mut late);
    assert_eq!(over.unwrap_err().message, "move took 0.000 s; the limit was 0.000 s (+0.000 s margin)");
    // A credit at its cap (250 ms for a 20 ms move) says so; one below it does not.
    let mut message_with_credit = |credit_ms: u64| {
        let answer = Ok(Timed {
            value: (),
            took: Duration::from_millis(30),
            stall_credit: Duration::from_millis(credit_ms),
            lag: None,
        });
        let ms = Duration::from_millis;
        judge::<()>(answer, ms(20), ms(3), Reason::MoveTimeout, "move", &mut late).unwrap_err().message
    };
    assert_eq!(
        message_with_credit(23),
        "move took 0.030 s; the limit was 0.020 s (+0.003 s margin) (not counting 0.023 s of machine stalls)"
    );
    assert_eq!(
        message_with_credit(250),
        "move took 0.030 s; the limit was 0.020 s (+0.003 s margin) (not counting 0.250 s of machine stalls, the most \
         a move is credited)"
    );
    assert_eq!(late, None);
}
