//! The line protocol of the UCC Programming Competition 2012 (ucc2012.md), as a
//! [`BotSession`] over a [`Process`]: the bots of that competition play through this host
//! against any JSON bot, with the host's clocks, forfeits, records and replays.
//!
//! The legacy protocol, as its referee spoke it:
//!
//! ```text
//! > RED opponent 10 10        (or BLUE …)
//! < FB8sB479B8                four rows of the setup, top row first
//! < …
//! > START                     RED's first turn only
//! > FB8sB479B8                ten board rows, top first: own pieces, # enemy, + lake, . empty
//! > …
//! < 0 3 DOWN                  X Y DIRECTION [N]   (or SURRENDER)
//! > 0 3 DOWN OK               the move echoed to both bots, with its outcome
//! > 9 6 UP 3 BOTHDIE 9 9      the opponent's move, then the board again
//! > …
//! > QUIT [result]             the end
//! ```
//!
//! The coordinates are the host's squares unchanged: `x` is the file (0 = `a`) and `y` the
//! rank index (0 = rank 1), for both colours; RED (ranks 1–4) is at the top of the legacy
//! board, `UP` is towards rank 1. A 2012 bot plays one game per process, chooses its own
//! setup, and knows no clock and no repetition rule (see [`stratego_rules::Ruleset::ucc2012`]).

use std::time::{Duration, Instant};

use stratego_rules::{
    Color, CombatResult, EndReason, Game, IllegalMove, Move, PieceCounts, Ply, Rank, Ruleset, Square,
};

use crate::reason::{Fault, Reason};
use crate::session::SessionOptions;
use crate::session::protocol_log::{Direction, ProtocolLog};
use crate::session::{BotSession, Decision, GameEnd, GameStart, SessionError, SessionReport, Timed, TurnRequest};
use crate::supervise::bot_spec::BotSpec;
use crate::supervise::process::{Process, RecvError};
use crate::supervise::stopwatch::Stopwatch;
use crate::supervise::supervisor::Supervisor;
use crate::text::clip;

/// The legacy board's side: the 2012 protocol knows only the 10x10 board.
const SIDE: u8 = 10;

/// A bot process spoken to in the 2012 line protocol.
pub struct UccSession {
    spec: BotSpec,
    log: Option<std::sync::Arc<ProtocolLog>>,
    read_grace: Duration,
    proc: Process,
    color: Color,
    game_id: String,
    /// A game was started: a 2012 bot plays one game per process.
    started: bool,
    /// RED's `START` was sent.
    sent_start: bool,
    /// Its setup came back: the legacy protocol's counterpart of `ready`.
    answered: bool,
    /// Its last move line, refused as illegal: echoed with `ILLEGAL` if that ends the game.
    illegal: Option<String>,
    /// The process is gone or unusable: nothing more is sent to it.
    dead: bool,
    /// A timed-out answer may still arrive: drop waiting lines before the next turn.
    maybe_stale: bool,
    /// How long a notice may wait for the bot to read it.
    notice_timeout: Duration,
}

/// The piece of the old numbering (`1` Marshal … `9` Scout, `s` Spy, `B` Bomb, `F` Flag).
pub fn old_char(rank: Rank) -> char {
    match rank {
        Rank::Marshal => '1',
        Rank::General => '2',
        Rank::Colonel => '3',
        Rank::Major => '4',
        Rank::Captain => '5',
        Rank::Lieutenant => '6',
        Rank::Sergeant => '7',
        Rank::Miner => '8',
        Rank::Scout => '9',
        Rank::Spy => 's',
        Rank::Bomb => 'B',
        Rank::Flag => 'F',
    }
}

/// The rank for a character of the old numbering (exactly as the 2012 referee read them).
pub fn from_old_char(c: char) -> Option<Rank> {
    Rank::ALL.into_iter().find(|&r| old_char(r) == c)
}

/// The opponent's name as a 2012 bot is told it: `./NAME`, one word with no other `/`.
/// The 2012 referee gave the opponent's path (`../../agents/vixen/vixen.py`); ramen needs a
/// `/` in it (it crashes without one) and makes the name of its learning file of what
/// follows the last one.
pub fn legacy_name(name: Option<&str>) -> String {
    let cleaned: String = name
        .unwrap_or("unknown")
        .chars()
        .map(|c| if c.is_whitespace() || c == '/' || c.is_control() { '_' } else { c })
        .collect();
    if cleaned.is_empty() { "./unknown".to_owned() } else { format!("./{cleaned}") }
}

/// Why a 2012 bot cannot play under these rules, if it cannot: it knows only the classic
/// board, lakes, setup areas and army.
pub fn unplayable(rules: &Ruleset) -> Option<String> {
    let classic = Ruleset::classic();
    let (s, c) = (rules.spec(), classic.spec());
    let differs = if (s.width, s.height) != (c.width, c.height) {
        Some("board size")
    } else if s.lakes.iter().collect::<std::collections::BTreeSet<_>>()
        != c.lakes.iter().collect::<std::collections::BTreeSet<_>>()
    {
        Some("lakes")
    } else if s.setup_ranks != c.setup_ranks {
        Some("setup areas")
    } else if s.pieces != PieceCounts::classic() || !s.exact_counts {
        Some("army")
    } else {
        None
    };
    differs.map(|what| {
        format!(
            "a ucc2012 bot plays only the classic 10x10 board with 40 pieces a side; the ruleset {:?} has another {what}",
            rules.name()
        )
    })
}

/// The move a legacy answer names: `X Y DIRECTION [N]`.
///
/// # Errors
/// A message quoting the line when it is not of that form or leaves the board.
pub fn parse_legacy_move(line: &str) -> Result<Move, Fault> {
    let malformed = || {
        Fault::new(
            Reason::MalformedMessage,
            format!("it answered {:?}, which is not a move \"X Y DIRECTION [N]\" nor SURRENDER", clip(line)),
        )
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    if !(3..=4).contains(&words.len()) {
        return Err(malformed());
    }
    let num = |w: &str| w.parse::<i32>().map_err(|_| malformed());
    let (x, y) = (num(words[0])?, num(words[1])?);
    let n = match words.get(3) {
        Some(w) => num(w)?,
        None => 1,
    };
    let (dx, dy) = match words[2] {
        "UP" => (0, -1),
        "DOWN" => (0, 1),
        "LEFT" => (-1, 0),
        "RIGHT" => (1, 0),
        _ => return Err(malformed()),
    };
    let side = i32::from(SIDE);
    let on = |v: i32| (0..side).contains(&v);
    let (tx, ty) = (x + n * dx, y + n * dy);
    if n < 1 || !on(x) || !on(y) || !on(tx) || !on(ty) {
        return Err(Fault::new(
            Reason::IllegalMove,
            format!("its move {:?} starts or ends off the board (x and y are 0 to 9, N at least 1)", clip(line)),
        ));
    }
    let sq = |x: i32, y: i32| Square::new(x as u8, y as u8).expect("on the 10x10 board");
    Ok(Move::new(sq(x, y), sq(tx, ty)))
}

/// A move in the legacy form, `X Y DIRECTION [N]` (N only for more than one square).
pub fn legacy_move(mv: Move) -> String {
    let (from, to) = (mv.from, mv.to);
    let dir = if to.rank() < from.rank() {
        "UP"
    } else if to.rank() > from.rank() {
        "DOWN"
    } else if to.file() < from.file() {
        "LEFT"
    } else {
        "RIGHT"
    };
    let n = from.distance(to);
    let mut s = format!("{} {} {dir}", from.file(), from.rank());
    if n > 1 {
        s.push_str(&format!(" {n}"));
    }
    s
}

/// A ply as the 2012 referee echoed it: the move and its outcome (`OK`, `KILLS a d`,
/// `DIES a d`, `BOTHDIE a d`, `VICTORY_FLAG`, `VICTORY_ATTRITION`), with `game` the game
/// after it.
pub fn echo(ply: &Ply, game: &Game) -> String {
    let outcome = match ply.combat {
        Some(c) if c.flag_captured() => "VICTORY_FLAG".to_owned(),
        _ if game.outcome().is_some_and(|o| o.winner == Some(ply.color) && o.reason == EndReason::NoLegalMoves) => {
            "VICTORY_ATTRITION".to_owned()
        }
        None => "OK".to_owned(),
        Some(c) => {
            let word = match c.result {
                CombatResult::AttackerWins => "KILLS",
                CombatResult::DefenderWins => "DIES",
                CombatResult::BothRemoved => "BOTHDIE",
            };
            format!("{word} {} {}", old_char(c.attacker), old_char(c.defender))
        }
    };
    format!("{} {outcome}", legacy_move(ply.mv))
}

/// The ten board rows as `color` is shown them: its own pieces in the old numbering, `#`
/// enemy pieces, `+` lakes, `.` empty squares; row 0 (rank 1) first.
pub fn board_rows(game: &Game, color: Color) -> String {
    let mut out = String::with_capacity(usize::from(SIDE) * (usize::from(SIDE) + 1));
    for y in 0..SIDE {
        for x in 0..SIDE {
            let sq = Square::new(x, y).expect("on the board");
            out.push(match game.piece_at(sq) {
                Some((c, r)) if c == color => old_char(r),
                Some(_) => '#',
                None if game.rules().is_lake(sq) => '+',
                None => '.',
            });
        }
        out.push('\n');
    }
    out
}

/// Converts the four setup rows of a 2012 bot (top row first) into the pairs form of a
/// deployment (`a1=F b1=B …`).
///
/// # Errors
/// An `invalid_setup` fault naming the row and the character.
pub fn setup_pairs(color: Color, rows: &[String]) -> Result<String, Fault> {
    let top: u8 = match color {
        Color::Red => 0,
        Color::Blue => SIDE - 4,
    };
    let mut pairs = Vec::with_capacity(40);
    for (i, row) in rows.iter().enumerate() {
        let row = row.trim_end();
        let n = row.chars().count();
        if n != usize::from(SIDE) {
            return Err(Fault::new(
                Reason::InvalidSetup,
                format!("setup row {} ({:?}) has {n} characters; the board is 10 wide", i + 1, clip(row)),
            ));
        }
        for (x, c) in row.chars().enumerate() {
            if c == '.' {
                continue;
            }
            let rank = from_old_char(c).ok_or_else(|| {
                Fault::new(
                    Reason::InvalidSetup,
                    format!(
                        "setup row {} ({:?}): unknown piece {c:?} (the 2012 pieces are 1-9, s, B, F, and . for empty)",
                        i + 1,
                        clip(row)
                    ),
                )
            })?;
            let sq = Square::new(x as u8, top + i as u8).expect("on the board");
            pairs.push(format!("{sq}={}", rank.code()));
        }
    }
    Ok(pairs.join(" "))
}

impl UccSession {
    /// Starts the bot's process (see [`Process::spawn`]).
    ///
    /// # Errors
    /// The operating system's error when the program cannot be started.
    pub fn spawn(spec: &BotSpec, options: &SessionOptions, supervisor: &Supervisor) -> std::io::Result<UccSession> {
        let proc = Process::spawn(spec, options.max_line, options.cpu, !options.read_grace.is_zero(), supervisor)?;
        Ok(UccSession {
            spec: spec.clone(),
            log: options.log.clone(),
            read_grace: options.read_grace,
            proc,
            color: Color::Red,
            game_id: String::new(),
            started: false,
            sent_start: false,
            answered: false,
            illegal: None,
            dead: false,
            maybe_stale: false,
            notice_timeout: Duration::from_secs(10),
        })
    }

    fn log(&self, direction: Direction, text: &str) {
        if let Some(log) = &self.log {
            for line in text.lines() {
                log.line(&self.spec.name, &self.game_id, direction, line.as_bytes());
            }
        }
    }

    /// Sends lines that expect no answer.
    async fn tell(&mut self, text: &str) {
        if self.dead {
            return;
        }
        self.log(Direction::ToBot, text);
        let deadline = Instant::now() + self.notice_timeout;
        if let Err(e) = self.proc.write(text.as_bytes(), deadline).await {
            // It shows at the bot's next request.
            let _ = self.failure(e, Duration::ZERO, Instant::now());
        }
    }

    /// Sends `text` and waits for `lines` answer lines within `limit` from the moment the
    /// bot has read it.
    async fn ask(&mut self, text: &str, limit: Duration, lines: usize) -> Result<Timed<Vec<String>>, SessionError> {
        if self.dead {
            return Err(SessionError::Fault(Fault::new(Reason::Crash, "the process is no longer running")));
        }
        self.log(Direction::ToBot, text);
        // A turn (one answer line) follows the run's tempo; the setup (four lines) does not.
        let mut watch = self.proc.stopwatch(Instant::now(), limit, self.read_grace, lines == 1);
        let result = match self.proc.write_request(text.as_bytes(), &mut watch).await {
            Err(e) => Err(e),
            Ok(()) => self.read_lines(&mut watch, lines).await.map(|(got, at)| {
                let raw = at.saturating_duration_since(watch.start());
                let credit = watch.credit_stalls(at, raw > limit, true);
                Timed { value: got, took: raw.saturating_sub(credit), stall_credit: credit, lag: None }
            }),
        };
        result.map_err(|e| self.failure(e, watch.credit(), watch.deadline()))
    }

    async fn read_lines(&mut self, watch: &mut Stopwatch, n: usize) -> Result<(Vec<String>, Instant), RecvError> {
        let mut got = Vec::with_capacity(n);
        let mut last = Instant::now();
        while got.len() < n {
            let (line, at) = self.proc.read_line(watch).await?;
            self.log(Direction::FromBot, &line);
            got.push(line);
            last = at;
        }
        Ok((got, last))
    }

    fn failure(&mut self, e: RecvError, stall_credit: Duration, deadline: Instant) -> SessionError {
        match e {
            RecvError::Timeout => {
                self.maybe_stale = true;
                SessionError::Timeout {
                    stall_credit,
                    late: Instant::now().saturating_duration_since(deadline),
                    note: (self.proc.bytes_received == 0).then(|| {
                        "nothing at all came back: does the bot flush its output (python2 -u, setbuf(stdout, NULL))?"
                            .to_owned()
                    }),
                }
            }
            RecvError::Fault(f) => {
                if matches!(f.reason, Reason::Crash | Reason::ClosedOutput | Reason::MemoryLimit | Reason::CpuLimit) {
                    self.dead = true;
                }
                SessionError::Fault(f)
            }
        }
    }
}

fn fault(f: Fault) -> SessionError {
    SessionError::Fault(f)
}

/// The message for a move the rules refuse; says so when the rule is one the 2012 protocol
/// does not know.
fn illegal_message(line: &str, mv: Move, e: &IllegalMove) -> String {
    let unknown = match e {
        IllegalMove::TwoSquareRule { .. } => Some("the two-square rule"),
        IllegalMove::ChasingRule => Some("the more-squares rule"),
        IllegalMove::ScoutMoveAndAttack => Some("this Scout rule"),
        _ => None,
    };
    match unknown {
        Some(rule) => format!(
            "its move {:?} ({mv}) is illegal: {e}; a ucc2012 bot cannot know {rule} (the 2012 referee had no such \
             rule): play it under --rules ucc2012",
            clip(line)
        ),
        None => format!("its move {:?} ({mv}) is illegal: {e}", clip(line)),
    }
}

impl BotSession for UccSession {
    async fn start_game(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
        if self.started {
            return Err(fault(Fault::new(Reason::Crash, "a ucc2012 bot plays one game per process")));
        }
        self.started = true;
        self.proc.begin_game();
        self.color = start.color;
        self.game_id = start.game_id.to_owned();
        self.notice_timeout = start.time_control.startup.max(Duration::from_secs(1));
        if let Some(why) = unplayable(start.rules) {
            return Err(fault(Fault::new(Reason::InvalidSetup, why)));
        }
        // The legacy protocol has no greeting: the bot is asked for its setup at once.
        Ok(Timed { value: (), took: Duration::ZERO, stall_credit: Duration::ZERO, lag: None })
    }

    async fn setup(
        &mut self,
        start: &GameStart<'_>,
        fixed: Option<&stratego_rules::Deployment>,
    ) -> Result<Timed<String>, SessionError> {
        if fixed.is_some() {
            return Err(fault(Fault::new(
                Reason::InvalidSetup,
                "a ucc2012 bot cannot be told a setup from a setup book; it always chooses its own",
            )));
        }
        let colour = match start.color {
            Color::Red => "RED",
            Color::Blue => "BLUE",
        };
        let request = format!("{colour} {} {SIDE} {SIDE}\n", legacy_name(start.opponent));
        let answer = self.ask(&request, start.time_control.allowed(start.time_control.setup), 4).await?;
        self.answered = true;
        match setup_pairs(start.color, &answer.value) {
            Ok(pairs) => Ok(Timed { value: pairs, took: answer.took, stall_credit: answer.stall_credit, lag: None }),
            Err(f) => Err(fault(f)),
        }
    }

    async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Timed<Decision>, SessionError> {
        if self.maybe_stale {
            // A late answer to a turn that timed out (under --strikes) is dropped.
            while let Some(line) = self.proc.buffered_line() {
                self.log(Direction::FromBot, &line);
            }
            self.maybe_stale = false;
        }
        let game = req.game;
        let mut request = String::with_capacity(128);
        if self.color == Color::Red && !self.sent_start {
            request.push_str("START\n");
        }
        self.sent_start = true;
        request.push_str(&board_rows(game, self.color));
        let answer = self.ask(&request, req.budget, 1).await?;
        let line = answer.value[0].trim();
        let timed = |value| Timed { value, took: answer.took, stall_credit: answer.stall_credit, lag: None };
        if line == "SURRENDER" {
            return Ok(timed(Decision::Resign));
        }
        let mv = match parse_legacy_move(line) {
            Ok(mv) => mv,
            Err(f) => {
                self.illegal = Some(line.to_owned());
                return Err(fault(f));
            }
        };
        match game.check_move(mv) {
            Ok(()) => Ok(timed(Decision::Move(mv.to_string()))),
            Err(e) => {
                self.illegal = Some(line.to_owned());
                Err(fault(Fault::new(Reason::IllegalMove, illegal_message(line, mv, &e))))
            }
        }
    }

    async fn played(&mut self, game: &Game, ply: &Ply) {
        let mine = ply.color == self.color;
        if mine {
            // Its move was played (or, under --strikes, the move that replaced it).
            self.illegal = None;
        }
        // Like the 2012 referee, a move that ends the game is echoed to its mover only;
        // both then get QUIT.
        if game.is_over() && !mine {
            return;
        }
        let mut line = echo(ply, game);
        line.push('\n');
        self.tell(&line).await;
    }

    async fn game_over(&mut self, end: &GameEnd<'_>) {
        if let Some(line) = self.illegal.take() {
            if end.result.faulty == Some(self.color) && end.result.reason == Reason::IllegalMove {
                self.tell(&format!("{line} ILLEGAL\n")).await;
            }
        }
        let outcome = match end.result.winner {
            None => "DRAW",
            Some(w) if w == self.color => "VICTORY",
            Some(_) if end.result.reason == Reason::Resignation => "SURRENDER",
            Some(_) => "DEFEAT",
        };
        let quit = format!("QUIT {outcome} {} {}\n", end.result.reason.code(), end.total_plies);
        self.tell(&quit).await;
    }

    fn report(&self) -> SessionReport {
        let (stderr_tail, stderr_bytes) = self.proc.stderr_tail();
        SessionReport {
            // The legacy protocol has no `ready`: a bot that answered with its setup has
            // started, and goes by its spec's name.
            reported_name: self.answered.then(|| self.spec.name.clone()),
            stderr_tail,
            stderr_bytes,
            bytes_to_bot: self.proc.bytes_sent,
            bytes_from_bot: self.proc.bytes_received,
            ..SessionReport::default()
        }
    }

    fn reusable(&self) -> bool {
        // One game per process: the next game starts a fresh one.
        false
    }

    async fn shutdown(self, grace: Duration) -> String {
        self.close(grace).await.0
    }

    async fn close(mut self, grace: Duration) -> (String, SessionReport) {
        let deadline = Instant::now() + grace;
        if !self.dead {
            // After QUIT the bot exits; end of input tells one that does not.
            self.proc.close_stdin();
            while let Some(line) = self.proc.drain_line(deadline).await {
                self.log(Direction::FromBot, &line);
            }
        }
        let mut report = self.report();
        let rest = deadline.saturating_duration_since(Instant::now());
        let how;
        (how, report.stderr_tail, report.stderr_bytes) = self.proc.shutdown_with_tail(rest).await;
        (how, report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_moves_map_to_squares_for_both_colours() {
        // x is the file, y the rank index: (0, 3) is a4; UP is towards rank 1.
        let m = parse_legacy_move("0 3 DOWN").unwrap();
        assert_eq!(m.to_string(), "a4-a5");
        assert_eq!(parse_legacy_move("9 6 UP 3").unwrap().to_string(), "j7-j4");
        assert_eq!(parse_legacy_move("4 9 LEFT").unwrap().to_string(), "e10-d10");
        assert_eq!(parse_legacy_move(" 4 0 RIGHT 5 ").unwrap().to_string(), "e1-j1");
        for m in ["a4-a5", "j7-j4", "e10-d10", "e1-j1", "b2-b1"] {
            let mv: Move = m.parse().unwrap();
            assert_eq!(parse_legacy_move(&legacy_move(mv)).unwrap(), mv, "{m}");
        }
        assert_eq!(legacy_move("j7-j4".parse().unwrap()), "9 6 UP 3");
        assert_eq!(legacy_move("a4-a5".parse().unwrap()), "0 3 DOWN");
        for bad in ["", "0 3", "0 3 NORTH", "a b UP", "0 3 DOWN x", "0 3 DOWN 1 2"] {
            assert_eq!(parse_legacy_move(bad).unwrap_err().reason, Reason::MalformedMessage, "{bad:?}");
        }
        for off in ["0 0 UP", "9 3 RIGHT", "0 3 DOWN 0", "10 3 DOWN", "0 8 DOWN 2"] {
            let f = parse_legacy_move(off).unwrap_err();
            assert_eq!(f.reason, Reason::IllegalMove, "{off:?}");
            assert!(f.message.contains("off the board"), "{}", f.message);
        }
    }

    #[test]
    fn setups_and_boards_use_the_old_numbering_top_row_first() {
        let red: Vec<String> = ["FB8sB479B8", "BB31555583", "6724898974", "967B669999"].map(String::from).to_vec();
        let pairs = setup_pairs(Color::Red, &red).unwrap();
        let rules = Ruleset::ucc2012();
        let d = stratego_rules::Deployment::parse(&rules, Color::Red, &pairs).unwrap();
        assert_eq!(d.rank_at("a1".parse().unwrap()), Some(Rank::Flag));
        assert_eq!(d.rank_at("d1".parse().unwrap()), Some(Rank::Spy));
        assert_eq!(d.rank_at("c2".parse().unwrap()), Some(Rank::Colonel));
        assert_eq!(d.rank_at("d2".parse().unwrap()), Some(Rank::Marshal));
        assert_eq!(d.rank_at("a4".parse().unwrap()), Some(Rank::Scout));
        // Blue's rows are y = 6..9: ranks 7 to 10, the first row is its front row.
        let blue: Vec<String> = red.iter().rev().cloned().collect();
        let pairs = setup_pairs(Color::Blue, &blue).unwrap();
        let b = stratego_rules::Deployment::parse(&rules, Color::Blue, &pairs).unwrap();
        assert_eq!(b.rank_at("a7".parse().unwrap()), Some(Rank::Scout));
        assert_eq!(b.rank_at("a10".parse().unwrap()), Some(Rank::Flag));
        let game = Game::new(rules, &d, &b).unwrap();
        let rows = board_rows(&game, Color::Red);
        let lines: Vec<&str> = rows.lines().collect();
        assert_eq!(lines[0], "FB8sB479B8");
        assert_eq!(lines[3], "967B669999");
        assert_eq!(lines[4], "..++..++..");
        assert_eq!(lines[6], "##########");
        let rows = board_rows(&game, Color::Blue);
        assert_eq!(rows.lines().nth(9), Some("FB8sB479B8"));
        assert_eq!(rows.lines().next(), Some("##########"));
        let bad = setup_pairs(Color::Red, &["FB8SB479B8".into()]).unwrap_err();
        assert_eq!(bad.reason, Reason::InvalidSetup);
        assert!(bad.message.contains("unknown piece 'S'"), "{}", bad.message);
        let short = setup_pairs(Color::Red, &["FB8".into()]).unwrap_err();
        assert!(short.message.contains("has 3 characters"), "{}", short.message);
    }

    #[test]
    fn echoes_name_the_outcome_in_the_old_numbering() {
        let rules = Ruleset::ucc2012();
        let ply = |m: &str, combat| Ply { color: Color::Red, mv: m.parse().unwrap(), combat };
        let g = {
            let mut n = 7u64;
            let mut rng = || {
                n ^= n << 13;
                n ^= n >> 7;
                n ^= n << 17;
                n
            };
            let r = stratego_rules::Deployment::random(&rules, Color::Red, &mut rng);
            let b = stratego_rules::Deployment::random(&rules, Color::Blue, &mut rng);
            Game::new(rules.clone(), &r, &b).unwrap()
        };
        let fight = |a, d| Some(stratego_rules::Combat::resolve(a, d));
        assert_eq!(echo(&ply("a4-a5", None), &g), "0 3 DOWN OK");
        assert_eq!(echo(&ply("j4-j7", fight(Rank::Scout, Rank::Scout)), &g), "9 3 DOWN 3 BOTHDIE 9 9");
        assert_eq!(echo(&ply("e4-e5", fight(Rank::Spy, Rank::Marshal)), &g), "4 3 DOWN KILLS s 1");
        assert_eq!(echo(&ply("e4-e5", fight(Rank::General, Rank::Bomb)), &g), "4 3 DOWN DIES 2 B");
        assert_eq!(echo(&ply("e4-e5", fight(Rank::Miner, Rank::Flag)), &g), "4 3 DOWN VICTORY_FLAG");
    }

    #[test]
    fn opponent_names_are_one_word_with_one_slash() {
        assert_eq!(legacy_name(Some("../agents/vixen/vixen.py")), "./.._agents_vixen_vixen.py");
        assert_eq!(legacy_name(Some("sample bot")), "./sample_bot");
        assert_eq!(legacy_name(None), "./unknown");
        assert_eq!(legacy_name(Some("")), "./unknown");
    }

    #[test]
    fn only_the_classic_geometry_and_army_are_playable() {
        assert_eq!(unplayable(&Ruleset::ucc2012()), None);
        assert_eq!(unplayable(&Ruleset::classic()), None);
        assert_eq!(unplayable(&Ruleset::isf()), None);
        let b = unplayable(&Ruleset::barrage()).unwrap();
        assert!(b.contains("\"barrage\" has another army"), "{b}");
    }
}
