//! The Gravon (StraDoS2) XML game format of the human game archive.
//!
//! A file holds one game: `<game type="…">`, a `<field content="…"/>` of 100 characters
//! (index `i` is rank `i / 10 + 1`, file `i % 10`; Red's pieces `B`–`M`, Blue's `N`–`Y`,
//! `A` empty, `_` lake), `<move id source target/>` elements and a `<result type winner/>`.
//! Squares use files `A`–`K` without `J`, and rank 10 is written `:`.
//!
//! ```
//! use stratego_rules::gravon::{GravonGame, GravonResult};
//! let xml = r#"<stratego><game type="barrage">
//!   <field content="MBLKEDDCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA__AA__AAAA__AA__AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYNXWQPPOAA"/>
//!   <move id="1" source="D1" target="D2"/>
//!   <result type="3" winner="2"/></game></stratego>"#;
//! let g = GravonGame::parse(xml).unwrap();
//! assert_eq!(g.game_type, "barrage");
//! assert_eq!(g.moves[0].to_string(), "d1-d2");
//! assert_eq!(g.result, Some(GravonResult { kind: 3, winner: 2 }));
//! let (red, blue) = g.deployments(&g.ruleset().unwrap()).unwrap();
//! assert_eq!(red.pieces().len(), 8);
//! assert_eq!(GravonGame::parse(&g.to_xml()).unwrap(), g);
//! ```

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::{Color, Deployment, DeploymentError, Game, Move, Outcome, PieceCounts, Rank, Ruleset, RulesetSpec, Square};

/// One Gravon game, as written in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GravonGame {
    /// `classic`, `barrage`, `duell`, `classicfree` or `ultimate lightning`.
    pub game_type: String,
    /// The 100-character field string.
    pub field: String,
    /// The moves in order.
    pub moves: Vec<Move>,
    /// The recorded result.
    pub result: Option<GravonResult>,
}

/// The `<result type winner/>` element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GravonResult {
    /// 0 the loser could not move, 1 flag captured, 2 neither could move, 3 resignation,
    /// 4 agreed draw, 10–14 absence or clock.
    pub kind: u8,
    /// 1 Red, 2 Blue, 3 draw.
    pub winner: u8,
}

/// Why a Gravon file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GravonError {
    /// Not well-formed XML.
    #[error("XML error at byte {position}: {message}")]
    Xml {
        /// Byte offset.
        position: u64,
        /// What the parser said.
        message: String,
    },
    /// A required element or attribute is missing or malformed.
    #[error("{0}")]
    Format(String),
    /// The field string gives an invalid deployment.
    #[error("field: {0}")]
    Deployment(#[from] DeploymentError),
}

/// Parses a Gravon square name (`A1` … `K:`).
pub fn parse_square(s: &str) -> Option<Square> {
    let b = s.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let file = match b[0].to_ascii_uppercase() {
        c @ b'A'..=b'I' => c - b'A',
        b'K' => 9,
        _ => return None,
    };
    let rank = match b[1] {
        c @ b'1'..=b'9' => c - b'1',
        b':' => 9,
        _ => return None,
    };
    Square::new(file, rank)
}

/// Writes a square in Gravon notation (10×10 boards only).
pub fn square_name(sq: Square) -> String {
    let file = if sq.file() == 9 { 'K' } else { (b'A' + sq.file()) as char };
    let rank = if sq.rank() == 9 { ':' } else { (b'1' + sq.rank()) as char };
    format!("{file}{rank}")
}

const RED_LETTERS: &[u8; 12] = b"BCDEFGHIJKLM";
const LETTER_RANKS: [Rank; 12] = [
    Rank::Bomb,
    Rank::Spy,
    Rank::Scout,
    Rank::Miner,
    Rank::Sergeant,
    Rank::Lieutenant,
    Rank::Captain,
    Rank::Major,
    Rank::Colonel,
    Rank::General,
    Rank::Marshal,
    Rank::Flag,
];

fn attr(e: &quick_xml::events::BytesStart<'_>, name: &str) -> Result<Option<String>, GravonError> {
    for a in e.attributes() {
        let a = a.map_err(|err| GravonError::Format(format!("bad attribute: {err}")))?;
        if a.key.as_ref() == name.as_bytes() {
            let v = a.unescape_value().map_err(|err| GravonError::Format(format!("bad attribute value: {err}")))?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

fn need(e: &quick_xml::events::BytesStart<'_>, name: &str) -> Result<String, GravonError> {
    attr(e, name)?.ok_or_else(|| {
        GravonError::Format(format!("<{}> has no {name} attribute", String::from_utf8_lossy(e.name().as_ref())))
    })
}

impl GravonGame {
    /// Parses one game file.
    ///
    /// # Errors
    /// Malformed XML, or a missing game, field or move attribute.
    pub fn parse(xml: &str) -> Result<GravonGame, GravonError> {
        let mut reader = Reader::from_str(xml);
        let mut game_type = None;
        let mut field = None;
        let mut moves = Vec::new();
        let mut result = None;
        loop {
            let event = reader
                .read_event()
                .map_err(|e| GravonError::Xml { position: reader.buffer_position(), message: e.to_string() })?;
            match event {
                Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                    b"game" => game_type = Some(need(&e, "type")?),
                    b"field" => field = Some(need(&e, "content")?),
                    b"move" => {
                        let (src, dst) = (need(&e, "source")?, need(&e, "target")?);
                        let sq = |s: &str| {
                            parse_square(s).ok_or_else(|| {
                                GravonError::Format(format!("move {}: bad square {s:?}", moves.len() + 1))
                            })
                        };
                        moves.push(Move::new(sq(&src)?, sq(&dst)?));
                    }
                    b"result" => {
                        let num = |name: &str| -> Result<u8, GravonError> {
                            let v = need(&e, name)?;
                            v.trim()
                                .parse()
                                .map_err(|_| GravonError::Format(format!("result {name} {v:?} is not a number")))
                        };
                        result = Some(GravonResult { kind: num("type")?, winner: num("winner")? });
                    }
                    _ => {}
                },
                Event::Eof => break,
                _ => {}
            }
        }
        let game_type = game_type.ok_or_else(|| GravonError::Format("no <game type> element".into()))?;
        let field = field.ok_or_else(|| GravonError::Format("no <field content> element".into()))?;
        if field.len() != 100 || !field.is_ascii() {
            return Err(GravonError::Format(format!(
                "field content has {} characters; expected 100",
                field.chars().count()
            )));
        }
        Ok(GravonGame { game_type, field, moves, result })
    }

    /// The ruleset a game type is played under: `classic` and `barrage` presets; `duell`
    /// (10 pieces anywhere in the four setup ranks); `classicfree` (at most the classic
    /// army, anywhere on the board). `None` for `ultimate lightning` and unknown types.
    pub fn ruleset(&self) -> Option<Ruleset> {
        ruleset_for_type(&self.game_type)
    }

    /// The two deployments encoded in the field string.
    ///
    /// They are checked as by [`Deployment::new`], except that in a `classicfree` game a side
    /// may lack its Flag: Gravon's free training games allowed that (one game of the archive,
    /// `classicfree-2005.5-4228`, a board set up and resigned without a move), while every
    /// deployment of an arena game must place its Flag.
    ///
    /// # Errors
    /// An unknown letter, or a deployment invalid under `rules`.
    pub fn deployments(&self, rules: &Ruleset) -> Result<(Deployment, Deployment), GravonError> {
        let mut red = Vec::new();
        let mut blue = Vec::new();
        for (i, c) in self.field.bytes().enumerate() {
            let sq = Square::new((i % 10) as u8, (i / 10) as u8).expect("10x10");
            match c {
                b'A' | b'_' => {}
                b'B'..=b'M' => red.push((sq, LETTER_RANKS[(c - b'B') as usize])),
                b'N'..=b'Y' => blue.push((sq, LETTER_RANKS[(c - b'N') as usize])),
                _ => return Err(GravonError::Format(format!("field: unknown letter {:?} at {sq}", c as char))),
            }
        }
        let flag_required = self.game_type != "classicfree";
        Ok((
            Deployment::checked(rules, Color::Red, red, flag_required)?,
            Deployment::checked(rules, Color::Blue, blue, flag_required)?,
        ))
    }

    /// Builds a Gravon game from a played game (10×10 boards).
    pub fn from_game(game_type: &str, game: &Game, result: Option<GravonResult>) -> GravonGame {
        let mut field: Vec<u8> = (0..100)
            .map(|i| {
                let sq = Square::new(i % 10, i / 10).expect("10x10");
                if game.rules().is_lake(sq) { b'_' } else { b'A' }
            })
            .collect();
        for color in Color::ALL {
            for &(sq, rank) in game.deployments()[color].pieces() {
                let k = LETTER_RANKS.iter().position(|&r| r == rank).expect("every rank has a letter");
                let base = if color == Color::Red { 0 } else { 12 };
                field[sq.rank() as usize * 10 + sq.file() as usize] = RED_LETTERS[0] + base + k as u8;
            }
        }
        GravonGame {
            game_type: game_type.to_owned(),
            field: String::from_utf8(field).expect("ASCII"),
            moves: game.history().iter().map(|p| p.mv).collect(),
            result,
        }
    }

    /// Writes the game as Gravon XML.
    pub fn to_xml(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<stratego>\n <game type=\"");
        out.push_str(&quick_xml::escape::escape(self.game_type.as_str()));
        out.push_str("\">\n  <field content=\"");
        out.push_str(&quick_xml::escape::escape(self.field.as_str()));
        out.push_str("\"/>\n");
        for (i, m) in self.moves.iter().enumerate() {
            out.push_str(&format!(
                "  <move id=\"{}\" source=\"{}\" target=\"{}\"/>\n",
                i + 1,
                square_name(m.from),
                square_name(m.to)
            ));
        }
        if let Some(r) = self.result {
            out.push_str(&format!("  <result type=\"{}\" winner=\"{}\"/>\n", r.kind, r.winner));
        }
        out.push_str(" </game>\n</stratego>\n");
        out
    }
}

/// The ruleset for a Gravon game type (see [`GravonGame::ruleset`]).
pub fn ruleset_for_type(game_type: &str) -> Option<Ruleset> {
    match game_type {
        "classic" => Some(Ruleset::classic()),
        "barrage" => Some(Ruleset::barrage()),
        "duell" => {
            let mut pieces = PieceCounts::default();
            for (r, n) in [
                (Rank::Marshal, 1),
                (Rank::General, 1),
                (Rank::Miner, 2),
                (Rank::Scout, 2),
                (Rank::Spy, 1),
                (Rank::Bomb, 2),
                (Rank::Flag, 1),
            ] {
                pieces[r] = n;
            }
            Ruleset::try_from(RulesetSpec { name: "duell".into(), pieces, ..RulesetSpec::default() }).ok()
        }
        "classicfree" => Ruleset::try_from(RulesetSpec {
            name: "classicfree".into(),
            exact_counts: false,
            setup_ranks: crate::ByColor::new([1, 10], [1, 10]),
            ..RulesetSpec::default()
        })
        .ok(),
        _ => None,
    }
}

/// How a playthrough of a Gravon game went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Playthrough {
    /// Plies played through without error.
    pub plies: usize,
    /// The first illegal move: ply number (1-based), the move and why.
    pub illegal: Option<(usize, Move, crate::IllegalMove)>,
    /// How the rules ended the game, if they did.
    pub outcome: Option<Outcome>,
    /// Whether the recorded result agrees with the playthrough (see [`Playthrough::agrees`]).
    pub agrees: bool,
}

impl Playthrough {
    /// Plays `g` through its game type's ruleset (its moves checked, its result compared).
    ///
    /// Agreement: type 1 needs a flag capture by the recorded winner; type 0 the loser
    /// without a legal move; type 2 neither side able to move; every other type (resignation,
    /// agreed draw, absence, clock) needs a game the rules had not ended.
    ///
    /// # Errors
    /// An unknown game type or an invalid field.
    pub fn run(g: &GravonGame) -> Result<Playthrough, GravonError> {
        let rules =
            g.ruleset().ok_or_else(|| GravonError::Format(format!("no ruleset for game type {:?}", g.game_type)))?;
        let (red, blue) = g.deployments(&rules)?;
        // `Game::new` would check the deployments again, without the exception
        // `deployments` makes for free training games.
        let mut game = Game::start(rules.into(), crate::ByColor::new(red, blue))
            .map_err(|e| GravonError::Format(format!("field: {e}")))?;
        let mut illegal = None;
        let mut plies = 0;
        for (i, &m) in g.moves.iter().enumerate() {
            if let Err(e) = game.play(m) {
                illegal = Some((i + 1, m, e));
                break;
            }
            plies += 1;
        }
        let outcome = game.outcome();
        let winner = |w: u8| match w {
            1 => Some(Color::Red),
            2 => Some(Color::Blue),
            _ => None,
        };
        use crate::EndReason::*;
        let agrees = match (g.result, outcome) {
            (Some(r), Some(o)) if r.kind == 1 => o.reason == FlagCaptured && o.winner == winner(r.winner),
            (Some(r), Some(o)) if r.kind == 0 => o.reason == NoLegalMoves && o.winner == winner(r.winner),
            (Some(r), Some(o)) if r.kind == 2 => o.reason == NeitherCanMove,
            (Some(r), None) => !matches!(r.kind, 0..=2),
            (None, _) => true,
            (Some(_), Some(_)) => false,
        };
        Ok(Playthrough { plies, illegal, outcome, agrees })
    }
}
