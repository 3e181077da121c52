//! One game's `info` lines as the record keeps them ([`InfoLines`]): data that passes
//! through a session to the record (imports nothing of the session layer).

/// `info` lines kept per game and bot: the first [`FIRST_INFO_LINES`] and the last
/// [`LAST_INFO_LINES`] (the lines before a late crash are the ones an author needs).
pub const MAX_INFO_LINES: usize = FIRST_INFO_LINES + LAST_INFO_LINES;
/// `info` lines kept from the start of a game.
pub const FIRST_INFO_LINES: usize = 100;
/// `info` lines kept from the end of a game (a ring: each new line drops the oldest of these).
pub const LAST_INFO_LINES: usize = 100;
/// Characters kept of one `info` line.
pub const MAX_INFO_CHARS: usize = 1000;

/// One game's `info` lines, as the record keeps them: the first [`FIRST_INFO_LINES`] and the
/// last [`LAST_INFO_LINES`], each with the plies played when it came, and how many were
/// dropped between them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoLines {
    /// The lines kept, in order: their number among all received, the plies played when
    /// each came, its text (at most [`MAX_INFO_CHARS`]).
    pub(crate) lines: Vec<(u64, u32, String)>,
    /// Lines received in all.
    pub(crate) received: u64,
    /// Lines received but not kept.
    pub(crate) dropped: u64,
}

impl InfoLines {
    /// Keeps a line that came when `ply` plies had been played.
    pub fn keep(&mut self, ply: u32, text: &str) {
        let number = self.received;
        self.received += 1;
        if self.lines.len() >= MAX_INFO_LINES {
            self.lines.remove(FIRST_INFO_LINES);
            self.dropped += 1;
        }
        self.lines.push((number, ply, text.chars().take(MAX_INFO_CHARS).collect()));
    }

    /// Lines received in all (kept or not).
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Forgets every line (a new game).
    pub fn clear(&mut self) {
        *self = InfoLines::default();
    }

    /// Takes the lines received from number `from` on (those after `game_over`), with the
    /// count of them dropped.
    pub fn split_off(&mut self, from: u64) -> InfoLines {
        let at = self.lines.partition_point(|l| l.0 < from);
        let lines = self.lines.split_off(at);
        let after = self.received.saturating_sub(from);
        let dropped = after.saturating_sub(lines.len() as u64).min(self.dropped);
        self.dropped -= dropped;
        self.received = self.received.min(from);
        InfoLines { lines, received: after, dropped }
    }

    /// Adds `later`'s lines after these, within the same bounds.
    pub fn append(&mut self, later: InfoLines) {
        for (_, ply, text) in later.lines {
            self.keep(ply, &text);
        }
        self.dropped += later.dropped;
        self.received += later.dropped;
    }

    /// Bytes of the lines kept as the bot sent them, `{"type":"info","text":…}` (an
    /// estimate for escaped text).
    pub fn bytes(&self) -> u64 {
        self.lines.iter().map(|l| l.2.len() as u64 + 29).sum()
    }

    /// The lines as a record has them.
    pub fn from_record(bot: &stratego_protocol::record::BotInfo) -> InfoLines {
        let lines: Vec<(u64, u32, String)> = bot
            .info
            .iter()
            .enumerate()
            .map(|(i, t)| (i as u64, bot.info_plies.get(i).copied().unwrap_or(0), t.clone()))
            .collect();
        let received = lines.len() as u64 + bot.info_dropped;
        InfoLines { lines, received, dropped: bot.info_dropped }
    }

    /// Writes the lines into a record's `info`, `info_plies` and `info_dropped`.
    pub fn into_record(self, bot: &mut stratego_protocol::record::BotInfo) {
        bot.info_plies = self.lines.iter().map(|l| l.1).collect();
        bot.info = self.lines.into_iter().map(|l| l.2).collect();
        bot.info_dropped = self.dropped;
    }
}
