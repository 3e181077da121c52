//! A bot's session in whichever protocol it speaks: one type for the executor's pools of
//! sessions, whatever the wire.

use stratego_rules::Deployment;

use crate::session::json_session::JsonSession;
use crate::session::remote_session::RemoteSession;
use crate::session::ucc_session::UccSession;
use crate::session::{
    BotSession, Decision, GameEnd, GameStart, PostGame, SessionError, SessionOptions, SessionReport, Timed, TurnRequest,
};
use crate::supervise::bot_spec::{BotSpec, Protocol};
use crate::supervise::supervisor::Supervisor;

/// A session in the protocol its bot speaks (its spec's `protocol`).
#[allow(clippy::large_enum_variant)] // a handful per worker, moved once per game
pub enum AnySession {
    /// The JSON protocol of protocol.md.
    Json(JsonSession),
    /// The 2012 line protocol (ucc2012.md).
    Ucc(UccSession),
    /// The JSON protocol over a remote bot's connection.
    Remote(RemoteSession),
}

impl AnySession {
    /// See [`JsonSession::send_post_game_to`] (a legacy-protocol process plays one game).
    pub fn send_post_game_to(&mut self, to: tokio::sync::oneshot::Sender<PostGame>) {
        if let AnySession::Json(s) = self {
            s.send_post_game_to(to);
        }
    }

    /// Starts the bot's process, to be spoken to in its protocol.
    ///
    /// # Errors
    /// The operating system's error when the program cannot be started.
    pub fn spawn(spec: &BotSpec, options: &SessionOptions, supervisor: &Supervisor) -> std::io::Result<AnySession> {
        Ok(match spec.protocol {
            Protocol::Json => AnySession::Json(JsonSession::spawn(spec, options, supervisor)?),
            Protocol::Ucc2012 => AnySession::Ucc(UccSession::spawn(spec, options, supervisor)?),
        })
    }
}

impl BotSession for AnySession {
    fn single_threaded(&self) -> bool {
        match self {
            AnySession::Json(s) => s.single_threaded(),
            AnySession::Ucc(s) => s.single_threaded(),
            AnySession::Remote(s) => s.single_threaded(),
        }
    }

    fn share_cpu(&mut self, cpu: Option<usize>, all: &[usize]) {
        match self {
            AnySession::Json(s) => s.share_cpu(cpu, all),
            AnySession::Ucc(s) => s.share_cpu(cpu, all),
            AnySession::Remote(s) => s.share_cpu(cpu, all),
        }
    }

    async fn start_game(&mut self, start: &GameStart<'_>) -> Result<Timed<()>, SessionError> {
        match self {
            AnySession::Json(s) => s.start_game(start).await,
            AnySession::Ucc(s) => s.start_game(start).await,
            AnySession::Remote(s) => s.start_game(start).await,
        }
    }

    async fn setup(
        &mut self,
        start: &GameStart<'_>,
        fixed: Option<&Deployment>,
    ) -> Result<Timed<String>, SessionError> {
        match self {
            AnySession::Json(s) => s.setup(start, fixed).await,
            AnySession::Ucc(s) => s.setup(start, fixed).await,
            AnySession::Remote(s) => s.setup(start, fixed).await,
        }
    }

    async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Timed<Decision>, SessionError> {
        match self {
            AnySession::Json(s) => s.turn(req).await,
            AnySession::Ucc(s) => s.turn(req).await,
            AnySession::Remote(s) => s.turn(req).await,
        }
    }

    async fn played(&mut self, game: &stratego_rules::Game, ply: &stratego_rules::Ply) {
        match self {
            AnySession::Json(s) => s.played(game, ply).await,
            AnySession::Ucc(s) => s.played(game, ply).await,
            AnySession::Remote(s) => s.played(game, ply).await,
        }
    }

    async fn game_over(&mut self, end: &GameEnd<'_>) {
        match self {
            AnySession::Json(s) => s.game_over(end).await,
            AnySession::Ucc(s) => s.game_over(end).await,
            AnySession::Remote(s) => s.game_over(end).await,
        }
    }

    fn report(&self) -> SessionReport {
        match self {
            AnySession::Json(s) => s.report(),
            AnySession::Ucc(s) => s.report(),
            AnySession::Remote(s) => s.report(),
        }
    }

    fn reusable(&self) -> bool {
        match self {
            AnySession::Json(s) => s.reusable(),
            AnySession::Ucc(s) => s.reusable(),
            AnySession::Remote(s) => s.reusable(),
        }
    }

    async fn shutdown(self, grace: std::time::Duration) -> String {
        match self {
            AnySession::Json(s) => s.shutdown(grace).await,
            AnySession::Ucc(s) => s.shutdown(grace).await,
            AnySession::Remote(s) => s.shutdown(grace).await,
        }
    }

    async fn close(self, grace: std::time::Duration) -> (String, SessionReport) {
        match self {
            AnySession::Json(s) => s.close(grace).await,
            AnySession::Ucc(s) => s.close(grace).await,
            AnySession::Remote(s) => s.close(grace).await,
        }
    }
}
