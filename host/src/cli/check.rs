//! `check`'s flags, validated into a [`crate::commands::check::CheckPlan`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::game::clock::{TimeControl, parse_seconds};
use crate::run::plan::{ConfigError, load_rules, not_startable, usage};
use crate::supervise::bot_spec::BotSpec;

/// `check` options.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The bot: a command line, a JSON spec or @FILE, as for `match`.
    pub bot: String,
    /// Rulesets to check (repeat the flag); default classic, isf and barrage.
    #[arg(long = "rules", value_name = "RULES")]
    pub rules: Vec<String>,
    /// Limit per move in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "1")]
    pub move_time: String,
    /// Limit for the setup in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub setup_time: String,
    /// Limit from start to `ready` in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub startup_time: String,
    /// Longest line the bot may send, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = stratego_protocol::DEFAULT_MAX_LINE_BYTES)]
    pub max_line: usize,
    /// Seed of the games. Whatever it is, the bot's own `hello.seed` is below 2^53 in the
    /// first game, 2^63 or above (more than a signed 64-bit integer holds) in the second, and
    /// above 2^53 (more than a double holds exactly) but below 2^63 in the third.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the results as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Write every protocol line each way, with a timestamp and the direction, to FILE (both
    /// bots of every check game) or DIR/ (a file per bot), as `match --log-protocol`.
    #[arg(long, value_name = "FILE|DIR")]
    pub log_protocol: Option<PathBuf>,
}

impl CheckArgs {
    /// Validates the flags into a plan.
    ///
    /// # Errors
    /// The first problem, with exit code 2 (usage) or 3 (the bot cannot be started).
    pub fn into_plan(self) -> Result<crate::commands::check::CheckPlan, ConfigError> {
        let names =
            if self.rules.is_empty() { vec!["classic".into(), "isf".into(), "barrage".into()] } else { self.rules };
        let rulesets = names.iter().map(|r| load_rules(r).map_err(usage)).collect::<Result<Vec<_>, _>>()?;
        let secs = |flag: &str, t: &str| parse_seconds(t).map_err(|e| usage(format!("{flag}: {e}")));
        let time_control = TimeControl {
            startup: secs("--startup-time", &self.startup_time)?,
            setup: secs("--setup-time", &self.setup_time)?,
            move_limit: Some(secs("--move-time", &self.move_time)?),
            bank: None,
            increment: Duration::ZERO,
            margin: Duration::ZERO,
        };
        let bot = BotSpec::parse(&self.bot).map_err(usage)?.resolve_builtin();
        if bot.protocol == crate::supervise::bot_spec::Protocol::Ucc2012 {
            return Err(usage(
                "check tests bots of the JSON protocol only; a ucc2012 bot is tried by playing it, e.g. \
                 `stratego-host match 'ucc2012:./agent' sample-bot --rules ucc2012 --games 2`"
                    .to_owned(),
            ));
        }
        bot.check_startable().map_err(not_startable)?;
        let mut masks = crate::supervise::sandbox::Masks::default();
        let protocol_log = match &self.log_protocol {
            None => None,
            Some(path) => {
                masks.hide(path);
                let log = crate::session::protocol_log::ProtocolLog::open(path)
                    .map_err(|e| usage(format!("--log-protocol {}: {e}", path.display())))?;
                Some(Arc::new(log))
            }
        };
        Ok(crate::commands::check::CheckPlan {
            bot,
            rulesets,
            time_control,
            max_line: self.max_line,
            seed: self.seed,
            protocol_log,
            json: self.json,
            masks,
        })
    }
}
