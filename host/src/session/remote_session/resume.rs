//! A remote bot's connection lost mid-game: waited for within its time away, then the game
//! resumed where its process stopped reading, or greeted again for a fresh process.

use std::time::{Duration, Instant};

use stratego_protocol::BotMessage;

use super::RemoteSession;
use crate::reason::{Fault, Reason};
use crate::remote::client::RESUME;
use crate::remote::hub::Answer;
use crate::session::SessionError;
use crate::session::messages::unexpected;
use crate::session::protocol_log::Direction;

impl RemoteSession {
    /// The connection was lost: waits for the bot to come back, at most the time away it
    /// has left (in this game, `--reconnect-s`, and in the event, `--reconnect-event-s`),
    /// then takes up the game again: when its `connect` client still runs the process that
    /// played it and says how many of the game's lines that process has read (its
    /// `X-Stratego-Resume` header), the connection is resumed (a `resume` line to the
    /// client, then the lines it has not read, sent again as they were: the process keeps
    /// its state); else the bot is greeted again for this game (`hello`, as for a fresh
    /// process). Returns when the time away ends (the deadline of what follows) and, for a
    /// resumed connection, the number of the game's lines the process had read; or the
    /// fault when it does not come back.
    pub(super) async fn resume(
        &mut self,
        why: String,
        lost_at: Instant,
        request: Option<u64>,
    ) -> Result<(Instant, Option<u64>), SessionError> {
        let game_left = self.hub.options().reconnect.saturating_sub(self.away);
        let event_left = self.hub.away_left(self.bot);
        let until = lost_at + game_left.min(event_left);
        let old = self.link.take().map(|l| l.id).unwrap_or(0);
        crate::notice::say(
            crate::notice::Level::Info,
            format!(
                "stratego-host: game {}: remote bot {} lost its connection ({why}); waiting {:.1} s for it to come back (its time away)",
                self.game_id,
                self.name,
                until.saturating_duration_since(lost_at).as_secs_f64()
            ),
        );
        let Some(link) = self.hub.relink(self.bot, old, until).await else {
            self.failed = true;
            self.charge_away(lost_at);
            return Err(self.not_back(&why, game_left <= event_left, until.saturating_duration_since(lost_at)));
        };
        // Its process still runs, in this game, and has read every line up to the first it
        // may not have read (those kept): resumed.
        let kept = link.resume.as_ref().and_then(|(game, read)| {
            let first = self.unanswered.first().map_or(self.sent_lines + 1, |(i, _)| *i);
            (*game == self.game_id && *read + 1 >= first && *read <= self.sent_lines).then_some(*read)
        });
        self.link = Some(link);
        self.lost = None;
        if let Some(read) = kept {
            self.notes.push(format!(
                "connection lost ({why}); back after {:.2} s, its process kept: resumed after its line {read}, {} line(s) sent again",
                lost_at.elapsed().as_secs_f64(),
                self.sent_lines - read
            ));
            // A request its process had read is waited for: its answer, if it was on its
            // way when the connection went, is sent again by the client.
            let waiting = request.is_some_and(|i| i <= read);
            // Its `type` first, as in every host line (the client reads it from the start).
            let game = serde_json::Value::String(self.game_id.clone());
            let resume = format!(r#"{{"type":"{RESUME}","game_id":{game},"read":{read},"resend_answer":{waiting}}}"#);
            let unread: Vec<String> =
                self.unanswered.iter().filter(|(i, _)| *i > read).map(|(_, l)| l.clone()).collect();
            for line in std::iter::once(resume).chain(unread) {
                self.log(Direction::ToBot, line.as_bytes());
                if self.write_line(line, until).await.is_none() {
                    self.lost.get_or_insert_with(|| "writing to it failed".to_owned());
                    self.charge_away(lost_at);
                    return Err(self.gone_error("writing to it failed"));
                }
            }
            return Ok((until, Some(read)));
        }
        self.notes.push(format!(
            "connection lost ({why}); back after {:.2} s (time away, not on its clock), game state and request sent again",
            lost_at.elapsed().as_secs_f64()
        ));
        // Greet it again for this game (a fresh process behind it knows nothing), then the
        // pending request follows.
        self.sent_lines = 0;
        self.unanswered.clear();
        if let Some(hello) = self.hello.clone() {
            let mut d = Some(until);
            let r = self.exchange(Some(&hello), &mut d, Duration::ZERO, (Answer::Ready, None), true).await;
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    self.charge_away(lost_at);
                    return Err(e);
                }
            };
            if let BotMessage::Ready(r) = r.0 {
                self.ready = Some(r);
            } else {
                self.failed = true;
                self.charge_away(lost_at);
                return Err(unexpected(&r.0, "\"ready\""));
            }
        }
        Ok((until, None))
    }

    /// The fault of a bot whose connection, lost (`why`), did not come back within the
    /// time `left` it had away: the game's (`in_game`) or the event's.
    fn not_back(&self, why: &str, in_game: bool, left: Duration) -> SessionError {
        let what = if in_game {
            format!("its time away in this game (--reconnect-s {:.1} s)", self.hub.options().reconnect.as_secs_f64())
        } else {
            format!(
                "its time away in the event (--reconnect-event-s {:.1} s)",
                self.hub.options().reconnect_event.as_secs_f64()
            )
        };
        SessionError::Fault(Fault::new(
            Reason::Disconnected,
            format!(
                "its connection was lost ({why}) and it did not come back within {what}: {:.1} s were left",
                left.as_secs_f64()
            ),
        ))
    }

    /// The time since `lost_at` was time away: taken from the game's and the event's.
    pub(super) fn charge_away(&mut self, lost_at: Instant) {
        let away = lost_at.elapsed();
        self.away += away;
        self.hub.charge_away(self.bot, away);
    }
}
