//! The games `connect` saw go by, as it tallies them, and its report at the end.

use super::{EXIT_CLEAN, EXIT_FAULTS};

/// How one game went for this bot, as `connect` saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSeen {
    /// The game's id.
    pub game_id: String,
    /// The opponent's name, when the host said it.
    pub opponent: Option<String>,
    /// The bot's colour.
    pub color: String,
    /// What came of it.
    pub ending: Ending,
}

/// The end of a game for this bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The host's `game_over`.
    Ended {
        /// `won`, `lost` or `draw`.
        result: &'static str,
        /// Its reason code.
        reason: String,
        /// The host's message (sanitised).
        message: String,
        /// The bot lost by a fault of its own (a forfeit).
        forfeit: bool,
    },
    /// Lost on this side: the bot's program ended mid-game, or wrote a line the protocol
    /// forbids (`connect` told the host so).
    FailedHere(String),
    /// No result came: the connection was lost and the game went on without it (the
    /// organiser's records have its result).
    Unseen,
}

impl GameSeen {
    /// The line `connect` says for it.
    pub fn line(&self) -> String {
        let vs = self.opponent.as_deref().map(|o| format!(" vs {o}")).unwrap_or_default();
        let what = match &self.ending {
            Ending::Ended { result, reason, message, forfeit } => {
                let how = if *forfeit && !message.is_empty() { format!(": {message}") } else { String::new() };
                format!("{result} ({reason}{how})")
            }
            Ending::FailedHere(why) => format!("lost on this side ({why})"),
            Ending::Unseen => {
                "no result seen (the connection was lost during it; the organiser's records have it)".to_owned()
            }
        };
        format!("game {}{vs} as {}: {what}", self.game_id, self.color)
    }

    /// Won, drawn, lost (by a fault or not), unseen.
    pub(super) fn counts(&self) -> (u32, u32, u32, u32, u32) {
        match &self.ending {
            Ending::Ended { result: "won", .. } => (1, 0, 0, 0, 0),
            Ending::Ended { result: "draw", .. } => (0, 1, 0, 0, 0),
            Ending::Ended { forfeit: true, .. } | Ending::FailedHere(_) => (0, 0, 1, 1, 0),
            Ending::Ended { .. } => (0, 0, 1, 0, 0),
            Ending::Unseen => (0, 0, 0, 0, 1),
        }
    }
}

/// What `connect` returns: its exit code and the games it saw.
#[derive(Clone, Debug)]
pub struct Report {
    /// The exit code ([`EXIT_CLEAN`], [`EXIT_FAULTS`], [`EXIT_UNREACHABLE`], [`EXIT_REFUSED`]).
    pub code: i32,
    /// The games, in the order they began.
    pub games: Vec<GameSeen>,
    /// Why `connect` ended, in words.
    pub ended: String,
}

impl Report {
    /// The summary at the end: the games and the tally.
    pub fn summary(&self) -> String {
        let (mut w, mut d, mut l, mut f, mut u) = (0, 0, 0, 0, 0);
        for g in &self.games {
            let c = g.counts();
            (w, d, l, f, u) = (w + c.0, d + c.1, l + c.2, f + c.3, u + c.4);
        }
        let mut s = format!(
            "{} games: {w} won, {d} drawn, {l} lost ({f} by a fault of the bot), {u} without a result seen; {}\n",
            self.games.len(),
            self.ended
        );
        for g in &self.games {
            s.push_str("  ");
            s.push_str(&g.line());
            s.push('\n');
        }
        s
    }
}

/// The games as `connect` sees them go by.
#[derive(Debug, Default)]
pub(super) struct Tally {
    games: Vec<GameSeen>,
    /// The current game has its end.
    ended: bool,
}

impl Tally {
    /// A `hello` from the host: a new game (the same game's again after a reconnection
    /// is not). The game before it, if no end came, is one without a result seen.
    pub(super) fn hello(&mut self, m: &serde_json::Value) {
        let id = m["game_id"].as_str().unwrap_or_default().to_owned();
        if self.games.last().is_some_and(|g| g.game_id == id) {
            return;
        }
        self.unseen();
        self.games.push(GameSeen {
            game_id: id,
            opponent: m["opponent"].as_str().map(|o| crate::text::clean(o).into_owned()),
            color: m["color"].as_str().unwrap_or("?").to_owned(),
            ending: Ending::Unseen,
        });
        self.ended = false;
    }

    /// The current game ended without a result seen (said once).
    pub(super) fn unseen(&mut self) {
        if !self.ended {
            if let Some(g) = self.games.last() {
                crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {}", g.line()));
            }
            self.ended = true;
        }
    }

    /// The host's `game_over` for the current game.
    pub(super) fn game_over(&mut self, m: &serde_json::Value) {
        let Some(g) = self.games.last_mut().filter(|g| m["game_id"] == g.game_id.as_str()) else { return };
        let reason = m["reason"].as_str().unwrap_or_default().to_owned();
        let result = match (m["winner"].as_str(), m["result"].as_str()) {
            (Some(w), _) if w == g.color => "won",
            (Some(_), _) => "lost",
            (None, _) => "draw",
        };
        let fault = serde_json::from_value::<crate::reason::Reason>(serde_json::Value::String(reason.clone()))
            .is_ok_and(crate::reason::Reason::is_fault);
        let message = crate::text::clean(m["message"].as_str().unwrap_or_default()).into_owned();
        g.ending = Ending::Ended { result, reason, message, forfeit: fault && result == "lost" };
        crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {}", g.line()));
        self.ended = true;
    }

    /// The id of the last game begun.
    pub(super) fn current(&self) -> Option<&str> {
        self.games.last().map(|g| g.game_id.as_str())
    }

    /// The bot lost its game on this side.
    pub(super) fn failed_here(&mut self, why: &str) {
        if self.ended {
            return;
        }
        if let Some(g) = self.games.last_mut() {
            g.ending = Ending::FailedHere(why.to_owned());
            crate::notice::say(crate::notice::Level::Always, format!("stratego-host connect: {}", g.line()));
        }
        self.ended = true;
    }

    pub(super) fn report(mut self, code: i32, ended: &str) -> Report {
        self.unseen();
        let faults = self.games.iter().any(|g| g.counts().3 > 0 || g.counts().4 > 0);
        let code = if code == EXIT_CLEAN && faults { EXIT_FAULTS } else { code };
        Report { code, games: self.games, ended: ended.to_owned() }
    }
}
