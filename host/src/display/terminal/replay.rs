//! A recorded game on the terminal: the board at any ply, as text or in an interactive viewer.
//!
//! [`Replay`] holds one checked [`GameRecord`] and draws any ply of it as lines of text
//! ([`Replay::frame`]): the board as the spectator, Red or Blue saw it, and under it the
//! ply's move, think times, clocks, captured pieces and, at the end, the result. [`tui::run`]
//! shows those frames in a small interactive viewer (crossterm: alternate screen, raw mode,
//! restored on exit and on panic); [`Replay::text`] prints the game as plain text. The
//! command is [`crate::commands::replay`].

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use clap::ValueEnum;
use stratego_protocol::record::GameRecord;
use stratego_rules::{ByColor, Color, CombatResult, Deployment, Game, Rank, Ruleset, Square};

/// Whose view of the board is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Viewer {
    /// What Red's bot was told (`Game::view_pieces(Red)`), from Red's seat.
    Red,
    /// What Blue's bot was told, from Blue's seat (the board turned around).
    Blue,
    /// Every piece's rank.
    #[default]
    Spectator,
}

impl Viewer {
    /// The side whose view this is, if any.
    pub fn color(self) -> Option<Color> {
        match self {
            Viewer::Red => Some(Color::Red),
            Viewer::Blue => Some(Color::Blue),
            Viewer::Spectator => None,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Viewer::Red => "Red (what Red's bot was told)",
            Viewer::Blue => "Blue (what Blue's bot was told)",
            Viewer::Spectator => "spectator (every rank)",
        }
    }
}

/// A piece as drawn: its side and, when the viewer knows it, its rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The square.
    pub square: Square,
    /// Whose piece.
    pub color: Color,
    /// Its rank, `None` for an enemy piece the viewer has not seen revealed.
    pub rank: Option<Rank>,
}

/// One recorded game, checked to replay, ready to draw at any ply.
#[derive(Clone, Debug)]
pub struct Replay {
    record: GameRecord,
    rules: Arc<Ruleset>,
    setups: ByColor<Option<Deployment>>,
    /// A game still being played ([`Replay::running`]): no result to show yet.
    running: bool,
}

impl Replay {
    /// Checks that the record plays through the rules ([`GameRecord::play_through`]).
    ///
    /// # Errors
    /// An invalid ruleset or setup, or the first ply that does not replay (its number, its
    /// move and why).
    pub fn new(record: GameRecord) -> Result<Replay, String> {
        Replay::build(record, false)
    }

    /// A game still being played, as far as it has gone: `record` holds its setups and
    /// plies so far (its result is not shown). The plies are the referee's own, so they
    /// are not checked again.
    ///
    /// # Errors
    /// An invalid ruleset or setup.
    pub fn running(record: GameRecord) -> Result<Replay, String> {
        Replay::build(record, true)
    }

    fn build(record: GameRecord, running: bool) -> Result<Replay, String> {
        let id = record.game_id.clone();
        let fail = |e: String| format!("game {id} does not replay: {e}");
        let rules = Arc::new(Ruleset::try_from(record.ruleset.clone()).map_err(|e| fail(e.to_string()))?);
        let mut setups = ByColor::new(None, None);
        for color in Color::ALL {
            if let Some(text) = &record.deployments[color] {
                let d = Deployment::parse(&rules, color, text).map_err(|e| fail(format!("{color}'s setup: {e}")))?;
                setups[color] = Some(d);
            }
        }
        if setups.red.is_none() || setups.blue.is_none() {
            if !record.plies.is_empty() {
                return Err(fail("plies without both setups".into()));
            }
        } else if !running {
            record.play_through().map_err(fail)?;
        }
        let mut record = record;
        for_terminal(&mut record);
        Ok(Replay { record, rules, setups, running })
    }

    /// The record.
    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    /// Number of plies of the game (the last ply to show).
    pub fn plies(&self) -> u32 {
        self.record.plies.len() as u32
    }

    /// The game after `ply` plies (clamped to the end); `None` when a side gave no setup.
    pub fn game_at(&self, ply: u32) -> Option<Game> {
        let (red, blue) = (self.setups.red.as_ref()?, self.setups.blue.as_ref()?);
        let mut game = Game::new(self.rules.clone(), red, blue).expect("checked in Replay::new");
        for p in self.record.plies.iter().take(ply as usize) {
            game.play_unchecked(p.ply.mv);
        }
        Some(game)
    }

    /// The pieces on the board after `ply` plies as `viewer` sees them, by square.
    pub fn cells(&self, ply: u32, viewer: Viewer) -> Vec<Cell> {
        let Some(game) = self.game_at(ply) else {
            // A side gave no setup: the board shows the setup that was given.
            let mut cells: Vec<Cell> = Color::ALL
                .into_iter()
                .filter_map(|c| self.setups[c].as_ref())
                .flat_map(|d| d.pieces().iter().map(|&(square, rank)| (d.color(), square, rank)))
                .map(|(color, square, rank)| {
                    let known = viewer.color().is_none_or(|v| v == color);
                    Cell { square, color, rank: known.then_some(rank) }
                })
                .collect();
            cells.sort_by_key(|c| c.square);
            return cells;
        };
        match viewer.color() {
            None => game.board_pieces().map(|(square, color, rank)| Cell { square, color, rank: Some(rank) }).collect(),
            Some(v) => game
                .view_pieces(v)
                .into_iter()
                .map(|p| Cell { square: p.square, color: p.color, rank: p.rank })
                .collect(),
        }
    }

    /// The screen at `ply` (clamped to the end) as lines: a title, the board, the ply's
    /// move, think times and clocks, captured pieces, and at the end the result. With
    /// `color`, pieces are ANSI-coloured; without, plain text (`rX` a Red Marshal, `b?` a
    /// Blue piece the viewer does not know).
    pub fn frame(&self, ply: u32, viewer: Viewer, color: bool) -> Vec<String> {
        let ply = ply.min(self.plies());
        let r = &self.record;
        let paint = Paint(color);
        let mut lines = vec![
            format!(
                "Game {} ({}): {} {} vs {} {}",
                r.game_id,
                r.ruleset.name,
                paint.side(Color::Red, "Red"),
                r.bots.red.name,
                paint.side(Color::Blue, "Blue"),
                r.bots.blue.name
            ),
            format!("View: {}", viewer.describe()),
            String::new(),
        ];
        lines.extend(self.board(ply, viewer, paint));
        lines.push(String::new());
        lines.push(self.ply_line(ply, paint));
        lines.push(self.time_line(ply));
        if let Some(bank) = self.bank_line(ply) {
            lines.push(bank);
        }
        lines.extend(self.captured_lines(ply, paint));
        for c in Color::ALL {
            if self.setups[c].is_none() {
                lines.push(format!("{c} gave no valid setup."));
            }
        }
        if ply == self.plies() {
            lines.push(if self.running { "Playing…".to_owned() } else { self.result_line() });
        }
        lines
    }

    /// The text printed when not on a terminal: with `ply`, the frame at that ply; without,
    /// every ply's line and the final frame. The result ends both.
    pub fn text(&self, ply: Option<u32>, viewer: Viewer, color: bool) -> String {
        let paint = Paint(color);
        let mut out = String::new();
        let at = match ply {
            Some(n) => n.min(self.plies()),
            None => {
                for n in 1..=self.plies() {
                    let _ = writeln!(out, "{}", self.ply_line(n, paint));
                }
                if self.plies() > 0 {
                    out.push('\n');
                }
                self.plies()
            }
        };
        for line in self.frame(at, viewer, color) {
            let _ = writeln!(out, "{line}");
        }
        if at != self.plies() {
            let _ = writeln!(out, "{}", self.result_line());
        }
        out
    }

    /// The board: file letters above and below, rank numbers on both sides, lakes `~`.
    /// Red's and the spectator's view have rank 1 at the bottom; Blue's is turned around.
    fn board(&self, ply: u32, viewer: Viewer, paint: Paint) -> Vec<String> {
        let (w, h) = (self.rules.width(), self.rules.height());
        let cells = self.cells(ply, viewer);
        let last = ply.checked_sub(1).and_then(|i| self.record.plies.get(i as usize)).map(|p| p.ply.mv);
        let flipped = viewer == Viewer::Blue;
        let files: Vec<u8> = if flipped { (0..w).rev().collect() } else { (0..w).collect() };
        let ranks: Vec<u8> = if flipped { (0..h).collect() } else { (0..h).rev().collect() };
        // Cells are 2 columns plain (`rX`), 3 coloured (` X `), a space between; the file
        // letter stands over the rank code.
        let pad = if paint.0 { "   " } else { "  " };
        let header = {
            let letters: Vec<String> = files.iter().map(|&f| ((b'a' + f) as char).to_string()).collect();
            format!("    {}", letters.join(pad))
        };
        let mut lines = vec![header.clone()];
        for &rank in &ranks {
            let mut s = format!("{:>2} ", rank + 1);
            for (i, &file) in files.iter().enumerate() {
                let sq = Square::new(file, rank).expect("on the board");
                let piece = cells.binary_search_by_key(&sq, |c| c.square).ok().map(|i| cells[i]);
                let mark = last.is_some_and(|m| m.from == sq || m.to == sq);
                if i > 0 {
                    s.push(' ');
                }
                s.push_str(&paint.cell(piece, self.rules.is_lake(sq), mark));
            }
            let _ = write!(s, " {}", rank + 1);
            lines.push(s);
        }
        lines.push(header);
        lines
    }

    /// Whether the record has think times: a game converted from Gravon XML has none
    /// (every time zero, no time control).
    fn timed(&self) -> bool {
        let tc = &self.record.time_control;
        self.record.plies.iter().any(|p| p.time_us > 0)
            || tc.move_ms.is_some()
            || tc.bank_ms.is_some()
            || tc.startup_ms > 0
            || self.running
    }

    /// `Ply N/M: Red e4-e5 …` for ply `n` (1-based), or the start for 0.
    fn ply_line(&self, n: u32, paint: Paint) -> String {
        let total = self.plies();
        let Some(rp) = n.checked_sub(1).and_then(|i| self.record.plies.get(i as usize)) else {
            let first = self.game_at(0).map_or(Color::Red, |g| g.to_move());
            return format!("Ply 0/{total}: the setups; {} to move", paint.side(first, &first.to_string()));
        };
        let p = &rp.ply;
        let mut s = format!("Ply {n}/{total}: {} {}", paint.side(p.color, &p.color.to_string()), p.mv);
        if let Some(c) = p.combat {
            let outcome = match c.result {
                CombatResult::AttackerWins => format!("{} wins", c.attacker),
                CombatResult::DefenderWins => format!("{} wins", c.defender),
                CombatResult::BothRemoved => "both removed".to_owned(),
            };
            let _ = write!(
                s,
                ", {} ({}) attacks {} ({}): {outcome}",
                c.attacker,
                c.attacker.code(),
                c.defender,
                c.defender.code()
            );
        }
        if self.timed() {
            let _ = write!(s, "; thought {}", micros(rp.time_us));
        }
        if rp.stall_us > 0 {
            let _ = write!(s, " (+{} stall credited)", micros(rp.stall_us));
        }
        s
    }

    /// Each side's total think time and moves up to ply `n`.
    fn time_line(&self, n: u32) -> String {
        if !self.timed() {
            return "Think time: not recorded (a game converted from Gravon XML)".to_owned();
        }
        let mut total = ByColor::new((0u64, 0u32), (0u64, 0u32));
        for rp in self.record.plies.iter().take(n as usize) {
            total[rp.ply.color].0 += rp.time_us;
            total[rp.ply.color].1 += 1;
        }
        let side = |c: Color| {
            let (us, moves) = total[c];
            format!("{c} {} in {moves} move{}", micros(us), if moves == 1 { "" } else { "s" })
        };
        format!("Think time: {}, {}", side(Color::Red), side(Color::Blue))
    }

    /// With a bank: what each side had left after ply `n`.
    fn bank_line(&self, n: u32) -> Option<String> {
        let tc = &self.record.time_control;
        let bank_us = tc.bank_ms? as i64 * 1000;
        let mut left = ByColor::new(bank_us, bank_us);
        for rp in self.record.plies.iter().take(n as usize) {
            left[rp.ply.color] += tc.increment_ms as i64 * 1000 - rp.time_us as i64;
        }
        let show = |us: i64| if us < 0 { format!("-{}", micros(us.unsigned_abs())) } else { micros(us as u64) };
        Some(format!("Clocks (bank left): Red {}, Blue {}", show(left.red), show(left.blue)))
    }

    /// The pieces each side has lost by ply `n`, a line per side, strongest first:
    /// `Red lost 4: X 2×2 B`.
    fn captured_lines(&self, n: u32, paint: Paint) -> Vec<String> {
        let lost = self.game_at(n).map(|g| *g.captured()).unwrap_or_default();
        Color::ALL
            .into_iter()
            .map(|c| {
                let items: Vec<String> = Rank::STRONGEST_FIRST
                    .into_iter()
                    .filter(|&r| lost[c][r] > 0)
                    .map(|r| match lost[c][r] {
                        1 => paint.rank(c, r),
                        k => format!("{}×{k}", paint.rank(c, r)),
                    })
                    .collect();
                let side = paint.side(c, &c.to_string());
                match lost[c].total() {
                    0 => format!("{side} lost nothing"),
                    k => format!("{side} lost {k}: {}", items.join(" ")),
                }
            })
            .collect()
    }

    /// `Result: Blue wins (flag_captured): <message>`.
    fn result_line(&self) -> String {
        let res = &self.record.result;
        let who = match res.winner {
            Some(c) => format!("{c} wins"),
            None => "draw".to_owned(),
        };
        let faulty = res.faulty.map(|c| format!(", {c} faulted")).unwrap_or_default();
        format!("Result: {who} ({}{faulty}): {}", res.reason, res.message)
    }
}

/// Think times as `0.073 ms`, `12.3 ms`, `1.25 s`.
fn micros(us: u64) -> String {
    if us < 10_000 {
        format!("{:.3} ms", us as f64 / 1000.0)
    } else if us < 10_000_000 {
        format!("{:.1} ms", us as f64 / 1000.0)
    } else {
        format!("{:.2} s", us as f64 / 1e6)
    }
}

/// Text with or without ANSI colour.
#[derive(Clone, Copy, Debug)]
struct Paint(bool);

impl Paint {
    const RESET: &'static str = "\x1b[0m";

    fn sgr(color: Color) -> &'static str {
        match color {
            Color::Red => "\x1b[1;97;41m",
            Color::Blue => "\x1b[1;97;44m",
        }
    }

    /// A side's name in its colour.
    fn side(self, color: Color, text: &str) -> String {
        if !self.0 {
            return text.to_owned();
        }
        let fg = match color {
            Color::Red => "\x1b[1;31m",
            Color::Blue => "\x1b[1;34m",
        };
        format!("{fg}{text}{}", Self::RESET)
    }

    /// A piece as in the captured list: ` X ` coloured, or `rX` plain.
    fn piece(self, color: Color, rank: Option<Rank>) -> String {
        let code = rank.map_or('?', Rank::code);
        if self.0 {
            format!("{} {code} {}", Self::sgr(color), Self::RESET)
        } else {
            let side = if color == Color::Red { 'r' } else { 'b' };
            format!("{side}{code}")
        }
    }

    /// A rank in a side's colour (the code alone, in plain text).
    fn rank(self, color: Color, rank: Rank) -> String {
        if self.0 { format!("{}{}{}", Self::sgr(color), rank.code(), Self::RESET) } else { rank.code().to_string() }
    }

    /// A board square: 3 columns coloured, 2 plain. `mark`: the last move's from or to
    /// square (underlined in colour).
    fn cell(self, piece: Option<Cell>, lake: bool, mark: bool) -> String {
        match (self.0, piece) {
            (true, Some(p)) => {
                let underline = if mark { "\x1b[4m" } else { "" };
                format!("{}{underline} {} {}", Self::sgr(p.color), p.rank.map_or('?', Rank::code), Self::RESET)
            }
            (true, None) if lake => format!("\x1b[36m ~ {}", Self::RESET),
            (true, None) if mark => format!("\x1b[33m * {}", Self::RESET),
            (true, None) => " . ".to_owned(),
            (false, Some(p)) => self.piece(p.color, p.rank),
            (false, None) if lake => "~~".to_owned(),
            (false, None) => " .".to_owned(),
        }
    }
}

/// The words of a record that a replay shows, made safe for a terminal by
/// [`crate::text::clean`] (a record is a file from anywhere: its names, game id
/// or message may hold terminal controls).
fn for_terminal(record: &mut GameRecord) {
    let clean = |s: &mut String| {
        if let std::borrow::Cow::Owned(c) = crate::text::clean(s) {
            *s = c;
        }
    };
    clean(&mut record.game_id);
    clean(&mut record.ruleset.name);
    clean(&mut record.result.message);
    for color in Color::ALL {
        clean(&mut record.bots[color].name);
    }
}

/// Reads the records (`FILE` or `DIR/games.jsonl`, plain or compact) and picks a game: `id`,
/// else the first; skips the lines that are not records when `skip_bad_lines` (and says so
/// on stderr). Also returns how many games the file holds.
///
/// # Errors
/// The file cannot be read or holds no records, a line is not a record, or no game has
/// the id (the message lists the ids there are).
pub fn load_with(path: &Path, id: Option<&str>, skip_bad_lines: bool) -> Result<(GameRecord, usize), String> {
    let file = if path.is_dir() { crate::record::records_path(path)? } else { path.to_owned() };
    if path.is_dir() && !file.exists() {
        return Err(format!("{}: a directory without games.jsonl", path.display()));
    }
    let mut records = if skip_bad_lines {
        let (records, bad) = crate::record::read_records_skipping(&file)?;
        crate::record::report_skipped(&file, &bad);
        records
    } else {
        crate::record::read_records_file(&file).map_err(|e| crate::record::with_skip_hint(e, &file))?
    };
    if records.is_empty() {
        return Err(format!("{}: no game records", file.display()));
    }
    let total = records.len();
    let Some(id) = id else {
        if total > 1 {
            eprintln!(
                "stratego-host replay: showing game {}, the first of the {total} games in {}; --game ID shows another (next: --game {})",
                crate::text::clean(&records[0].game_id),
                file.display(),
                crate::text::clean(&records[1].game_id)
            );
        }
        return Ok((records.swap_remove(0), total));
    };
    if let Some(i) = records.iter().position(|r| r.game_id == id) {
        return Ok((records.swap_remove(i), total));
    }
    const SHOWN: usize = 20;
    let ids: Vec<&str> = records.iter().take(SHOWN).map(|r| r.game_id.as_str()).collect();
    let more = records.len().saturating_sub(SHOWN);
    let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
    Err(format!("--game {id}: no such game in {}; its games are: {}{tail}", file.display(), ids.join(", ")))
}

/// Colour on a terminal, unless `NO_COLOR` is set to anything non-empty (no-color.org).
pub(crate) fn colour_wanted(terminal: bool, no_color: Option<std::ffi::OsString>) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
}

/// The interactive viewer.
pub mod tui {
    use std::io::{self, Write};
    use std::sync::Arc;

    use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
    use crossterm::{cursor, queue, style, terminal};

    use super::{Replay, Viewer};

    const HELP: &str = "→/l/space next  ←/h back  PgDn/PgUp ±10  g/Home start  G/End end  r/b/s view  q/Esc quit";

    /// Puts the terminal back: main screen, cooked mode, cursor shown.
    fn restore() {
        let mut out = io::stdout();
        let _ = crossterm::execute!(out, style::ResetColor, cursor::Show, terminal::LeaveAlternateScreen);
        let _ = terminal::disable_raw_mode();
    }

    type PanicHook = dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static;

    /// Restores the terminal when dropped (a normal return, an error or a panic's unwinding).
    struct Guard;

    impl Drop for Guard {
        fn drop(&mut self) {
            restore();
        }
    }

    /// Shows `replay` from `ply` until the user quits.
    pub(crate) fn run(replay: &Replay, ply: u32, viewer: Viewer, color: bool) -> io::Result<()> {
        // A panic message must reach the normal screen, not vanish with the alternate one.
        let previous: Arc<PanicHook> = Arc::from(std::panic::take_hook());
        let chained = Arc::clone(&previous);
        std::panic::set_hook(Box::new(move |info| {
            restore();
            chained(info);
        }));
        let result = show(replay, ply, viewer, color);
        std::panic::set_hook(Box::new(move |info| previous(info)));
        result
    }

    fn show(replay: &Replay, mut ply: u32, mut viewer: Viewer, color: bool) -> io::Result<()> {
        terminal::enable_raw_mode()?;
        let _guard = Guard;
        let mut out = io::stdout();
        crossterm::execute!(out, terminal::EnterAlternateScreen, cursor::Hide)?;
        let last = replay.plies();
        loop {
            draw(&mut out, replay, ply, viewer, color)?;
            let key = match event::read()? {
                Event::Key(KeyEvent { code, modifiers, kind: KeyEventKind::Press | KeyEventKind::Repeat, .. }) => {
                    (code, modifiers)
                }
                _ => continue, // a resize redraws
            };
            match key {
                (KeyCode::Char('q') | KeyCode::Esc, _) => return Ok(()),
                (KeyCode::Char('c'), m) if m.contains(KeyModifiers::CONTROL) => return Ok(()),
                (KeyCode::Right | KeyCode::Char('l' | ' '), _) => ply = (ply + 1).min(last),
                (KeyCode::Left | KeyCode::Char('h'), _) => ply = ply.saturating_sub(1),
                (KeyCode::PageDown, _) => ply = (ply + 10).min(last),
                (KeyCode::PageUp, _) => ply = ply.saturating_sub(10),
                (KeyCode::Home | KeyCode::Char('g'), _) => ply = 0,
                (KeyCode::End | KeyCode::Char('G'), _) => ply = last,
                (KeyCode::Char('r'), _) => viewer = Viewer::Red,
                (KeyCode::Char('b'), _) => viewer = Viewer::Blue,
                (KeyCode::Char('s'), _) => viewer = Viewer::Spectator,
                _ => {}
            }
        }
    }

    fn draw(out: &mut impl Write, replay: &Replay, ply: u32, viewer: Viewer, color: bool) -> io::Result<()> {
        let mut lines = replay.frame(ply, viewer, color);
        lines.push(String::new());
        lines.push(HELP.to_owned());
        for (row, line) in lines.iter().enumerate() {
            let row = u16::try_from(row).unwrap_or(u16::MAX);
            queue!(
                out,
                cursor::MoveTo(0, row),
                style::Print(line),
                terminal::Clear(terminal::ClearType::UntilNewLine)
            )?;
        }
        queue!(out, terminal::Clear(terminal::ClearType::FromCursorDown))?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use stratego_protocol::record::{BotInfo, RecordPly, RecordResult};
    use stratego_protocol::{TimeControl, reason::Reason};
    use stratego_rules::{Move, RulesetSpec};

    use super::*;

    fn bot(name: &str) -> BotInfo {
        BotInfo::new(name.into(), vec![name.into()])
    }

    const RED: &str = "B32222222S/6655554444/BX98877766/FB3B333B2B";
    const BLUE: &str = "FB3B333B2B/BX98877766/6655554444/B32222222S";

    /// A game of `plies` plies, each the first legal move in sorted order not undoing the
    /// last one, played by the rules crate.
    fn record(plies: usize, bank_ms: Option<u64>) -> GameRecord {
        let rules = Ruleset::classic();
        let red = Deployment::parse(&rules, Color::Red, RED).unwrap();
        let blue = Deployment::parse(&rules, Color::Blue, BLUE).unwrap();
        let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
        let mut recorded = Vec::new();
        let mut moves = Vec::new();
        let mut k = 0u64;
        while recorded.len() < plies && !game.is_over() {
            game.legal_moves(&mut moves);
            moves.sort();
            // Push forward: the move that goes furthest towards the enemy.
            let forward = |m: &Move| match game.to_move() {
                Color::Red => i32::from(m.to.rank()) - i32::from(m.from.rank()),
                Color::Blue => i32::from(m.from.rank()) - i32::from(m.to.rank()),
            };
            let mv = *moves.iter().max_by_key(|m| (forward(m), m.from.file() as i32 * ((k as i32 % 3) - 1))).unwrap();
            k += 1;
            let ply = game.play(mv).unwrap();
            recorded.push(RecordPly { ply, time_us: 100 * k, stall_us: 0, over_us: 0, lag_us: None, lag_credit_us: 0 });
        }
        GameRecord {
            game_id: "0000000000000007-1".into(),
            index: 0,
            pair: 0,
            book_setups: ByColor::new(None, None),
            match_seed: 7,
            seed: 7,
            host_version: "0.1.0".into(),
            started_unix_ms: 0,
            duration_ms: 0,
            ruleset: RulesetSpec::from(rules),
            time_control: TimeControl {
                startup_ms: 1,
                setup_ms: 1,
                move_ms: None,
                bank_ms,
                increment_ms: 10,
                margin_ms: 0,
            },
            time_controls: None,
            bots: ByColor::new(bot("alpha"), bot("beta")),
            deployments: ByColor::new(Some(RED.into()), Some(BLUE.into())),
            plies: recorded,
            result: RecordResult {
                winner: None,
                reason: Reason::Resignation,
                message: "alpha (Red) resigned".into(),
                faulty: None,
            },
        }
    }

    /// Parses a plain board: `(color, rank or None for '?')` by square, read from the
    /// labels (so Blue's turned board parses too).
    fn parse_plain(lines: &[String]) -> BTreeMap<Square, (Color, Option<Rank>)> {
        let header = lines.iter().find(|l| l.trim_start().starts_with('a') || l.trim_start().starts_with('j')).unwrap();
        let files: Vec<u8> = header.split_whitespace().map(|f| f.as_bytes()[0] - b'a').collect();
        let mut board = BTreeMap::new();
        for line in lines {
            let Some((label, rest)) = line.get(..3).zip(line.get(3..)) else { continue };
            let Ok(rank) = label.trim().parse::<u8>() else { continue };
            let cells: Vec<&str> = (0..files.len()).map(|i| &rest[i * 3..i * 3 + 2]).collect();
            for (cell, &file) in cells.iter().zip(&files) {
                let sq = Square::new(file, rank - 1).unwrap();
                let mut chars = cell.chars();
                let (side, code) = (chars.next().unwrap(), chars.next().unwrap());
                let color = match side {
                    'r' => Color::Red,
                    'b' => Color::Blue,
                    _ => continue,
                };
                board.insert(sq, (color, if code == '?' { None } else { Some(Rank::from_code(code).unwrap()) }));
            }
        }
        board
    }

    #[test]
    fn the_plain_board_at_each_ply_is_the_rules_position() {
        let rec = record(40, None);
        let replay = Replay::new(rec.clone()).unwrap();
        assert_eq!(replay.plies(), 40);
        let rules = Ruleset::classic();
        let mut game = Game::new(
            rules.clone(),
            &Deployment::parse(&rules, Color::Red, RED).unwrap(),
            &Deployment::parse(&rules, Color::Blue, BLUE).unwrap(),
        )
        .unwrap();
        for n in 0..=40u32 {
            if n > 0 {
                game.play(rec.plies[n as usize - 1].ply.mv).unwrap();
            }
            let frame = replay.frame(n, Viewer::Spectator, false);
            let expected: BTreeMap<_, _> = game.board_pieces().map(|(sq, c, r)| (sq, (c, Some(r)))).collect();
            assert_eq!(parse_plain(&frame), expected, "ply {n}");
            assert!(frame.iter().any(|l| l.starts_with(&format!("Ply {n}/40: "))), "ply {n}: {frame:#?}");
            // File letters stand over the rank codes.
            assert_eq!(frame[3], "    a  b  c  d  e  f  g  h  i  j");
            assert_eq!(frame[14], frame[3]);
            // Lakes are drawn where the rules put them: c5 is the third cell of rank 5.
            let rank5 = frame.iter().find(|l| l.starts_with(" 5 ")).unwrap();
            assert_eq!(&rank5[3 + 2 * 3..3 + 2 * 3 + 2], "~~", "{rank5}");
        }
        // Something was captured along the way, and the captured line says so.
        let end = replay.frame(40, Viewer::Spectator, false);
        assert!(game.captured().red.total() + game.captured().blue.total() > 0, "the test game has a fight");
        for (color, lost) in [("Red", game.captured().red), ("Blue", game.captured().blue)] {
            let line = end.iter().find(|l| l.starts_with(&format!("{color} lost "))).unwrap();
            assert!(line.contains(&format!(" lost {}", lost.total())), "{line}");
            for (rank, k) in lost.iter() {
                let item = if k == 1 { rank.code().to_string() } else { format!("{}×{k}", rank.code()) };
                assert!(line.split([' ', ':']).any(|w| w == item), "{line}: {item}");
            }
        }
        assert!(rec.plies.iter().any(|p| p.ply.combat.is_some()));
        let fight = rec.plies.iter().position(|p| p.ply.combat.is_some()).unwrap() + 1;
        let line = replay.frame(fight as u32, Viewer::Spectator, false);
        assert!(
            line.iter().any(|l| l.starts_with(&format!("Ply {fight}/40: ")) && l.contains(" attacks ")),
            "{line:#?}"
        );
    }

    #[test]
    fn red_view_hides_unrevealed_blue_ranks() {
        let rec = record(40, None);
        let replay = Replay::new(rec).unwrap();
        for n in [0u32, 10, 25, 40] {
            let game = replay.game_at(n).unwrap();
            for (viewer, color) in [(Viewer::Red, Color::Red), (Viewer::Blue, Color::Blue)] {
                let frame = replay.frame(n, viewer, false);
                let seen = parse_plain(&frame);
                let expected: BTreeMap<_, _> =
                    game.view_pieces(color).into_iter().map(|p| (p.square, (p.color, p.rank))).collect();
                assert_eq!(seen, expected, "ply {n} as {viewer:?}");
                // Own pieces all known, the enemy's mostly not.
                assert!(seen.values().filter(|(c, _)| *c == color).all(|(_, r)| r.is_some()));
                let hidden = seen.values().filter(|(c, r)| *c != color && r.is_none()).count();
                assert!(hidden >= 30, "ply {n} as {viewer:?}: {hidden} hidden");
            }
            // The spectator knows every rank.
            assert!(parse_plain(&replay.frame(n, Viewer::Spectator, false)).values().all(|(_, r)| r.is_some()));
        }
        // At the start Red sees 40 `b?` and no Blue rank.
        let start = replay.frame(0, Viewer::Red, false).join("\n");
        assert_eq!(start.matches("b?").count(), 40);
        assert!(!start.contains("bX") && !start.contains("bF"));
        // Blue's board is turned around: rank 1 is the last row, file j the first column.
        let blue = replay.frame(0, Viewer::Blue, false);
        assert!(blue[3].trim_start().starts_with('j'), "{blue:#?}");
        assert!(blue[4].starts_with(" 1 "), "{blue:#?}");
    }

    #[test]
    fn plain_text_has_no_escape_codes_and_colour_has() {
        let replay = Replay::new(record(12, Some(60_000))).unwrap();
        let plain = replay.text(None, Viewer::Spectator, false);
        assert!(!plain.contains('\x1b'), "{plain}");
        let colour = replay.text(None, Viewer::Spectator, true);
        assert!(colour.contains("\x1b[1;97;41m X \x1b[0m"), "a Red Marshal in red");
        assert!(colour.contains("\x1b[1;97;44m X \x1b[0m"), "a Blue Marshal in blue");
        assert!(colour.contains("\n    a   b   c   d   e   f   g   h   i   j\n"), "{colour}");
        // The whole game: every ply's line, then the final board, then the result.
        for n in 1..=12 {
            assert!(plain.contains(&format!("Ply {n}/12: ")), "{plain}");
        }
        assert!(plain.trim_end().ends_with("Result: draw (resignation): alpha (Red) resigned"), "{plain}");
        // Bank: 60 s, less the think times, plus 10 ms a move: Red moved plies 1, 3, … 11.
        let red_us: i64 = (1..=12).step_by(2).map(|k| 100 * k).sum();
        let left = 60_000_000 - red_us + 6 * 10_000;
        assert!(plain.contains(&format!("Clocks (bank left): Red {}", micros(left as u64))), "{plain}");
        // --ply N: that board, and the result after it.
        let at = replay.text(Some(3), Viewer::Red, false);
        assert!(at.contains("Ply 3/12: ") && !at.contains("Ply 2/12: "), "{at}");
        assert!(at.contains("Result: draw"), "{at}");
    }

    #[test]
    fn no_color_turns_colour_off() {
        assert!(colour_wanted(true, None));
        assert!(!colour_wanted(true, Some("1".into())));
        assert!(colour_wanted(true, Some("".into())), "an empty NO_COLOR counts as unset (no-color.org)");
        assert!(!colour_wanted(false, None), "no colour into a pipe or file");
    }

    #[test]
    fn errors_name_the_problem() {
        let dir = std::env::temp_dir().join(format!("stratego-replay-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("games.jsonl");
        let mut a = record(6, None);
        let mut b = record(8, None);
        b.game_id = "0000000000000007-2".into();
        let lines = format!("{}\n{}\n", serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        std::fs::write(&file, lines).unwrap();
        // A directory finds its games.jsonl; the default is the first game; --game picks.
        assert_eq!(load_with(&dir, None, false).unwrap().0.game_id, a.game_id);
        assert_eq!(load_with(&file, Some("0000000000000007-2"), false).unwrap().0.plies.len(), 8);
        let err = load_with(&file, Some("nope"), false).unwrap_err();
        assert!(err.contains("--game nope") && err.contains("0000000000000007-1, 0000000000000007-2"), "{err}");
        assert!(load_with(&dir.join("missing.jsonl"), None, false).unwrap_err().contains("missing.jsonl"));
        // A ply that does not replay: its number and move.
        a.plies[3].ply.mv = "a1-a2".parse().unwrap();
        let err = Replay::new(a).unwrap_err();
        assert!(err.contains("does not replay: ply 4 a1-a2"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
