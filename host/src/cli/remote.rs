//! Flags of remote bots: the organiser's `--listen` and its limits (shared by `match`,
//! `tournament`, `sprt` and `ladder play`), and the `token` and `connect` commands.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::remote::hub::ListenOptions;
use crate::run::plan::{ConfigError, usage};

/// Where remote bots connect (see README, "Remote bots").
#[derive(Args, Debug, Clone, Default)]
pub struct RemoteFlags {
    /// Listen for remote bots (`remote = true` in their spec) on ADDR, e.g. 0.0.0.0:9443,
    /// or 127.0.0.1:0 for any free port (printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// With --listen: the TLS certificate chain (PEM); bots then connect with wss://.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// With --listen: the TLS private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// How long a game waits for a remote bot that is not connected; then it forfeits with
    /// `not_connected`.
    #[arg(long, value_name = "SECONDS", default_value = "60")]
    pub connect_timeout: String,
    /// A remote bot's time away in one game: how long, summed over the game, it may be
    /// without its connection while the game waits for it to come back (its clock paused
    /// meanwhile, in every time control); past it, it forfeits with `disconnected`.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub reconnect_s: String,
    /// A remote bot's time away summed over all its games of the event (see
    /// --reconnect-s); past it, a game it is away from forfeits with `disconnected`.
    #[arg(long, value_name = "SECONDS", default_value = "60")]
    pub reconnect_event_s: String,
    /// The TLS and WebSocket handshake (token included) must be done within this.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub handshake_timeout_ms: u64,
    /// Connections at once (authenticated or not); when they are taken, a new one gets the
    /// place of the oldest still in its handshake from the address with the most.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_connections: usize,
    /// Connections per address (an IPv4 address, an IPv6 /64) still in their handshake;
    /// more are closed at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_unauthenticated: usize,
    /// A ping to each remote bot this often; a connection silent for 5 of these is gone.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub heartbeat_ms: u64,
}

impl RemoteFlags {
    /// The listener's options, when `--listen` is given (`max_line`: the run's `--max-line`).
    ///
    /// # Errors
    /// A flag's bad value, or TLS files that cannot be used.
    pub fn validate(&self, max_line: usize) -> Result<Option<Arc<ListenOptions>>, ConfigError> {
        let Some(addr) = &self.listen else {
            if self.tls_cert.is_some() {
                return Err(usage("--tls-cert/--tls-key: only with --listen"));
            }
            return Ok(None);
        };
        let secs =
            |flag: &str, text: &str| crate::game::clock::parse_seconds(text).map_err(|e| usage(format!("{flag}: {e}")));
        let connect_timeout = secs("--connect-timeout", &self.connect_timeout)?;
        let reconnect = secs("--reconnect-s", &self.reconnect_s)?;
        let reconnect_event = secs("--reconnect-event-s", &self.reconnect_event_s)?;
        if self.heartbeat_ms < 10 {
            return Err(usage("--heartbeat-ms: at least 10"));
        }
        if self.handshake_timeout_ms == 0 || self.max_connections == 0 || self.max_unauthenticated == 0 {
            return Err(usage("--handshake-timeout-ms, --max-connections, --max-unauthenticated: at least 1"));
        }
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(c), Some(k)) => Some(Arc::new(crate::remote::hub::load_tls(c, k).map_err(usage)?)),
            _ => None,
        };
        let heartbeat = Duration::from_millis(self.heartbeat_ms);
        Ok(Some(Arc::new(ListenOptions {
            addr: addr.clone(),
            tls,
            connect_timeout,
            reconnect,
            reconnect_event,
            handshake_timeout: Duration::from_millis(self.handshake_timeout_ms),
            max_connections: self.max_connections,
            max_unauthenticated_per_ip: self.max_unauthenticated,
            heartbeat,
            silence: heartbeat * 5,
            max_line,
            page: Arc::default(),
        })))
    }
}

/// `token` options.
#[derive(Args, Debug)]
pub struct TokenArgs {
    /// Write the token to FILE (created with mode 0600; an existing file is never
    /// replaced) instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// `connect` options.
#[derive(Args, Debug)]
#[command(after_help = "\
Output: a line per game on stderr as it ends (opponent, colour, result, reason), and at the
end a summary of the games on stdout.

Exit codes:
  0  the event is over; the bot lost no game by a fault of its own and saw every result
  1  no connection could be made within --retry-s
  2  the host refused the token (or --ca, --log-protocol or --bot-stderr could not be used)
  3  the event is over, and the bot forfeited a game (crash, timeout, illegal move, its
     connection lost too long, ...) or a game's result never reached it")]
pub struct ConnectArgs {
    /// The host's address: wss://HOST:PORT (or ws:// on a trusted network, e.g. loopback).
    pub url: String,
    /// The file holding the bot's token (from `stratego-host token --out FILE`).
    #[arg(long, value_name = "FILE")]
    pub token_file: PathBuf,
    /// Trust this certificate (PEM) too, e.g. the organiser's self-signed one.
    #[arg(long, value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// Give up after this many seconds without a connection.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub retry_s: u64,
    /// Longest line the bot may write.
    #[arg(long, value_name = "BYTES", default_value_t = stratego_protocol::DEFAULT_MAX_LINE_BYTES)]
    pub max_line: usize,
    /// A ping to the host this often; silence for 5 of these: connect again.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub heartbeat_ms: u64,
    /// Append every protocol line both ways (`host>bot`, `bot>host`, each with its time)
    /// and what connect did (`connect`: connected, lost, …) to FILE.
    #[arg(long, value_name = "FILE")]
    pub log_protocol: Option<PathBuf>,
    /// Append the bot's stderr to FILE (else it goes to connect's own stderr).
    #[arg(long, value_name = "FILE")]
    pub bot_stderr: Option<PathBuf>,
    /// Send the last 4 KiB the bot wrote to stderr in each game to the organiser, for
    /// that game's record (`stderr_tail`); without it, nothing of its stderr leaves this
    /// machine.
    #[arg(long)]
    pub share_stderr_tail: bool,
    /// The bot's command and arguments (after `--`).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl ConnectArgs {
    /// The client's options.
    ///
    /// # Errors
    /// The token file cannot be read or holds no token.
    pub fn into_options(self) -> Result<crate::remote::client::ConnectOptions, ConfigError> {
        let token = crate::remote::token::read_token_file(&self.token_file).map_err(usage)?;
        if self.heartbeat_ms < 10 {
            return Err(usage("--heartbeat-ms: at least 10"));
        }
        let heartbeat = Duration::from_millis(self.heartbeat_ms);
        Ok(crate::remote::client::ConnectOptions {
            url: self.url,
            token,
            ca: self.ca,
            command: self.command,
            retry_for: Duration::from_secs(self.retry_s),
            max_line: self.max_line,
            heartbeat,
            silence: heartbeat * 5,
            log_protocol: self.log_protocol,
            bot_stderr: self.bot_stderr,
            share_stderr_tail: self.share_stderr_tail,
        })
    }
}
