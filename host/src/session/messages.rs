//! The protocol's messages to a bot (protocol.md), built in one place for every session
//! that speaks the JSON protocol: a local process ([`crate::session::json_session`]) and a
//! remote connection ([`crate::session::remote_session`]) send the same bytes for the same
//! game; and the one reader of a bot's line ([`parse_bot_message`]), so that both judge the
//! same line alike. Also what both sessions say of a wrong answer and keep of `info` lines.

use stratego_protocol::{
    BotMessage, GameOver, GameResult, Hello, HostMessage, Placement, PlyNotice, SetupRequest, Turn,
};
use stratego_rules::{Deployment, Game, Move, Ply, ViewPiece};

use crate::reason::{Fault, Reason};
use crate::session::{Decision, GameEnd, GameStart, SessionError, TurnRequest};
use crate::text::clip;

pub use crate::session::info::{InfoLines, MAX_INFO_LINES};

/// The `hello` that starts a game.
pub fn hello(start: &GameStart<'_>) -> HostMessage {
    HostMessage::Hello(Hello {
        protocol: stratego_protocol::PROTOCOL_VERSION,
        game_id: start.game_id.to_owned(),
        color: start.color,
        ruleset: start.rules.spec().clone(),
        time_control: start.time_control.to_wire(),
        seed: start.seed,
        max_line_bytes: start.max_line,
        opponent: start.opponent.map(str::to_owned),
    })
}

/// The `setup_request`; with `fixed`, the setup the bot is told it plays.
pub fn setup_request(start: &GameStart<'_>, fixed: Option<&Deployment>) -> SetupRequest {
    SetupRequest {
        game_id: start.game_id.to_owned(),
        color: start.color,
        squares: start.rules.setup_squares(start.color).collect(),
        pieces: *start.rules.pieces(),
        exact_counts: start.rules.exact_counts(),
        time_ms: crate::game::clock::ms(start.time_control.setup),
        fixed: fixed.map(|d| d.to_rows(start.rules)),
    }
}

/// Buffers a `turn` is built in, so a session that keeps them between turns allocates
/// nothing (see [`TurnBuffers::take_back`]); `Default` for one that does not.
#[derive(Debug, Default)]
pub struct TurnBuffers {
    /// The plies since the bot's last turn (sent as they are).
    pub plies: Vec<Ply>,
    /// Filled with the bot's view of the pieces (emptied without the full view).
    pub pieces: Vec<ViewPiece>,
    /// Filled with the legal moves.
    pub legal: Vec<Move>,
}

impl TurnBuffers {
    /// The buffers of a `turn` built by [`turn`], back for the next one (emptied).
    pub fn take_back(msg: HostMessage) -> TurnBuffers {
        match msg {
            HostMessage::Turn(mut t) => {
                t.plies.clear();
                TurnBuffers { plies: t.plies, pieces: t.pieces, legal: t.legal_moves }
            }
            _ => TurnBuffers::default(),
        }
    }
}

/// The `turn` for `req`, built in `buffers`: the bot's view of the pieces and the captures
/// with the full view; without it, the opponent's setup squares on its `first` turn.
pub fn turn(req: &TurnRequest<'_>, full_view: bool, first: bool, buffers: TurnBuffers) -> HostMessage {
    let TurnBuffers { plies, mut pieces, mut legal } = buffers;
    let game = req.game;
    let color = game.to_move();
    game.legal_moves(&mut legal);
    if full_view {
        game.view_pieces_into(color, &mut pieces);
    } else {
        pieces.clear();
    }
    HostMessage::Turn(Turn {
        game_id: req.game_id.to_owned(),
        ply: game.ply_count(),
        color,
        plies,
        pieces,
        captured: full_view.then(|| *game.captured()),
        legal_moves: legal,
        clock: req.clock,
        strike: req.strike.cloned(),
        opponent_squares: (!full_view && first).then(|| req.opponent_setup.to_vec()),
    })
}

/// The `ply` notice of `ply`, played in game `game_id`; `game` is the game after it.
pub fn ply_notice(game_id: &str, game: &Game, ply: &Ply) -> HostMessage {
    HostMessage::Ply(PlyNotice { game_id: game_id.to_owned(), ply: game.ply_count(), played: *ply })
}

/// The `game_over` for `end`, with `plies` not yet told to the bot.
pub fn game_over(end: &GameEnd<'_>, plies: Vec<Ply>) -> HostMessage {
    HostMessage::GameOver(GameOver {
        game_id: end.game_id.to_owned(),
        result: match end.result.winner {
            None => GameResult::Draw,
            Some(w) if w == end.color => GameResult::Win,
            Some(_) => GameResult::Loss,
        },
        winner: end.result.winner,
        reason: end.result.reason.code().to_owned(),
        message: end.result.message.clone(),
        plies,
        total_plies: end.total_plies,
        opponent_setup: end
            .opponent_setup
            .map(|d| d.pieces().iter().map(|&(square, rank)| Placement { square, rank }).collect())
            .unwrap_or_default(),
    })
}

/// What a turn's answer decides: a `move` or `resign`; anything else is the bot's fault.
///
/// # Errors
/// `unexpected_message` for another message.
pub fn decision(answer: BotMessage) -> Result<Decision, SessionError> {
    match answer {
        BotMessage::Move(m) => Ok(Decision::Move(m.mv)),
        BotMessage::Resign(_) => Ok(Decision::Resign),
        other => Err(unexpected(&other, "\"move\" or \"resign\"")),
    }
}

/// The fault of a bot that sent `got` when `wanted` (in words) was expected.
pub fn unexpected(got: &BotMessage, wanted: &str) -> SessionError {
    let ty = match got {
        BotMessage::Ready(_) => "ready",
        BotMessage::Setup(_) => "setup",
        BotMessage::Move(_) => "move",
        BotMessage::Resign(_) => "resign",
        BotMessage::Info(_) => "info",
    };
    SessionError::Fault(Fault::new(Reason::UnexpectedMessage, format!("it sent {ty:?} when {wanted} was expected")))
}

/// Keeps an `info` line's text in `infos`, that came when `ply` plies had been played.
pub fn keep_info(infos: &mut InfoLines, ply: u32, text: &str) {
    infos.keep(ply, text);
}

/// Notes an answer no request asked for (it is not played): a warning on the console and,
/// within the per-game bound, a line in `unrequested` for the record.
pub fn note_unrequested(unrequested: &mut Vec<String>, bot: &str, game_id: &str, what: &str) {
    let text = format!("an answer no request asked for was ignored: {what}");
    tracing::warn!("{bot}: game {game_id}: {text}");
    if unrequested.len() < MAX_INFO_LINES {
        unrequested.push(text);
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
                        format!("it sent a line that is not JSON ({e}): {}", clip(&crate::text::clean(line))),
                    ));
                }
            };
            let ty = value.get("type").and_then(|t| t.as_str());
            match ty {
                Some(t @ ("ready" | "setup" | "move" | "resign" | "info")) => Err(Fault::new(
                    Reason::MalformedMessage,
                    format!("its {t:?} message is malformed ({e}): {}", clip(&crate::text::clean(line))),
                )),
                Some(t) => {
                    Err(Fault::new(Reason::UnexpectedMessage, format!("it sent a message of unknown type {t:?}")))
                }
                None => Err(Fault::new(
                    Reason::UnexpectedMessage,
                    format!("it sent a message without a \"type\": {}", clip(&crate::text::clean(line))),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::session::info::FIRST_INFO_LINES;

    use stratego_protocol::Clock as WireClock;
    use stratego_rules::{Color, Ruleset, Square};

    use super::*;

    #[test]
    fn info_lines_keep_the_first_and_the_last_with_their_plies_and_count_the_rest() {
        let mut lines = InfoLines::default();
        for i in 0..250u32 {
            lines.keep(i / 2, &format!("line {i}"));
        }
        let mut bot = stratego_protocol::record::BotInfo::new("b".into(), vec![]);
        lines.clone().into_record(&mut bot);
        assert_eq!(bot.info.len(), MAX_INFO_LINES);
        assert_eq!(bot.info[FIRST_INFO_LINES - 1], "line 99");
        assert_eq!(bot.info[FIRST_INFO_LINES], "line 150", "the last 100: 150 to 249");
        assert_eq!(bot.info[MAX_INFO_LINES - 1], "line 249");
        assert_eq!(bot.info_plies[MAX_INFO_LINES - 1], 124);
        assert_eq!(bot.info_dropped, 50);
        // After game_over (from line 250 on): those lines are split off with their count.
        let over = lines.received();
        for i in 250..260u32 {
            lines.keep(125, &format!("after {i}"));
        }
        let after = lines.split_off(over);
        assert_eq!(after.received(), 10);
        assert_eq!(after.lines.len(), 10);
        assert_eq!(after.dropped, 0);
        assert_eq!(lines.dropped, 60, "ten more game lines were pushed out of the ring");
        // A record's lines and more after them: the same bounds.
        let mut again = InfoLines::from_record(&bot);
        again.append(after);
        let mut merged = stratego_protocol::record::BotInfo::new("b".into(), vec![]);
        again.into_record(&mut merged);
        assert_eq!(merged.info.len(), MAX_INFO_LINES);
        assert_eq!(merged.info[MAX_INFO_LINES - 1], "after 259");
        assert_eq!(merged.info_dropped, 60);
    }

    /// A classic game from random setups, after `plies` plies of first legal moves.
    fn game(plies: usize) -> Game {
        let rules = Ruleset::classic();
        let mut n = 11u64;
        let mut next = || {
            n = n.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            n >> 11
        };
        let red = Deployment::random(&rules, Color::Red, &mut next);
        let blue = Deployment::random(&rules, Color::Blue, &mut next);
        let mut g = Game::new(rules, &red, &blue).unwrap();
        let mut moves = Vec::new();
        for _ in 0..plies {
            g.legal_moves(&mut moves);
            if g.is_over() || moves.is_empty() {
                break;
            }
            g.play_unchecked(moves[0]);
        }
        g
    }

    /// The setup squares of the side not to move.
    fn opponent_squares(g: &Game) -> Vec<Square> {
        g.rules().setup_squares(!g.to_move()).collect()
    }

    fn request<'a>(game: &'a Game, opponent_setup: &'a [Square]) -> TurnRequest<'a> {
        TurnRequest {
            game_id: "g-1",
            game,
            clock: WireClock { move_ms: 1000, remaining_ms: Some(5000), opponent_remaining_ms: Some(4000) },
            budget: Duration::from_secs(1),
            strike: None,
            opponent_setup,
        }
    }

    fn bytes(msg: &HostMessage) -> String {
        let mut buf = Vec::new();
        stratego_protocol::write_host_message(&mut buf, msg);
        String::from_utf8(buf).unwrap()
    }

    /// The local session builds each turn in the buffers of its previous one, the remote
    /// session in new ones: the bot must get the same bytes either way, whatever the
    /// buffers held, in each view and on its first turn or a later one.
    #[test]
    fn a_turn_built_in_used_buffers_is_byte_for_byte_the_turn_built_in_new_ones() {
        let (before, after) = (game(2), game(8));
        let (before_squares, after_squares) = (opponent_squares(&before), opponent_squares(&after));
        let old = request(&before, &before_squares);
        let now = request(&after, &after_squares);
        let plies = after.history()[6..].to_vec();
        assert_eq!(plies.len(), 2, "the game went on");
        for full_view in [true, false] {
            for first in [true, false] {
                let fresh =
                    turn(&now, full_view, first, TurnBuffers { plies: plies.clone(), ..TurnBuffers::default() });
                // Buffers that held another turn, in the other view (or the same one).
                for old_view in [true, false] {
                    let held = turn(
                        &old,
                        old_view,
                        true,
                        TurnBuffers { plies: before.history().to_vec(), ..TurnBuffers::default() },
                    );
                    let mut used = TurnBuffers::take_back(held);
                    assert!(used.plies.is_empty(), "the plies told are not told again");
                    used.plies.extend_from_slice(&plies);
                    let reused = turn(&now, full_view, first, used);
                    assert_eq!(bytes(&reused), bytes(&fresh), "full view {full_view}, first {first}, old {old_view}");
                }
                let HostMessage::Turn(t) = fresh else { panic!("a turn") };
                assert_eq!(t.pieces.is_empty(), !full_view);
                assert_eq!(t.captured.is_some(), full_view);
                assert_eq!(t.opponent_squares.is_some(), !full_view && first);
                assert_eq!((t.ply, t.plies), (8, plies.clone()));
            }
        }
    }

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
