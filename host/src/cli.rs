//! The command line: raw flags (clap), validated once into a [`MatchPlan`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use stratego_rules::Ruleset;

use crate::bot_spec::BotSpec;
use crate::clock::{TimeControl, parse_seconds};
use crate::record::RecordWriter;
use crate::referee::GameSettings;
use crate::runner::MatchPlan;

/// Default of `--read-grace-ms`: the longest wait for a bot to read its turn that is not
/// charged to its clock.
pub const DEFAULT_READ_GRACE_MS: u64 = 10;

/// Runs Stratego bots against each other.
#[derive(Parser, Debug)]
#[command(name = "stratego-host", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play a match of one or more games between two bots.
    ///
    /// A bot is a command line quoted as one string ("python3 bot.py --fast"), a JSON
    /// spec ('{"name": "b", "command": ["./bot"], "dir": "bots", "env": {"K": "V"}}') or
    /// @FILE holding one. The word sample-bot names the built-in sample bot when no
    /// program of that name is on PATH. With no bots, the sample bot plays itself.
    Match(Box<MatchArgs>),
    /// Check that a bot follows the protocol: a pass/fail report and an exit code for the
    /// bot author's CI (0 all passed, 4 a check failed, 3 the bot cannot be started).
    ///
    /// Plays the built-in random sample bot with each ruleset as Red and as Blue, then
    /// probes forward compatibility (unknown fields in every host message) and, if the bot
    /// says it can, two games in one process. Each failure says what was sent, what came
    /// back and what was expected.
    Check(Box<CheckArgs>),
    /// Run the built-in sample bot on stdin/stdout (what `sample-bot` starts).
    SampleBot {
        /// Arguments of the sample bot (see `stratego-host sample-bot --help`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

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
    /// Seed of the games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the results as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

impl CheckArgs {
    /// Validates the flags into a plan.
    ///
    /// # Errors
    /// The first problem, with exit code 2 (usage) or 3 (the bot cannot be started).
    pub fn into_plan(self) -> Result<crate::check::CheckPlan, ConfigError> {
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
        };
        let bot = BotSpec::parse(&self.bot).map_err(usage)?.resolve_builtin();
        bot.check_startable().map_err(|m| ConfigError { message: m, code: crate::exit::BOT_NOT_STARTABLE })?;
        Ok(crate::check::CheckPlan { bot, rulesets, time_control, max_line: self.max_line, seed: self.seed })
    }
}

/// `match` options.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Bot A (Red in odd-numbered games). Default: the sample bot.
    pub bot_a: Option<String>,
    /// Bot B. Default: the sample bot.
    pub bot_b: Option<String>,
    /// Number of games; colours alternate.
    #[arg(short = 'n', long, default_value_t = 2)]
    pub games: u32,
    /// Ruleset: classic, isf, barrage, or a JSON file.
    #[arg(long, default_value = "classic")]
    pub rules: String,
    /// Master seed (default: from the clock; printed in the summary).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Game bank and increment in seconds, BANK+INC (e.g. 60+0.5).
    #[arg(long, value_name = "BANK+INC")]
    pub tc: Option<String>,
    /// Limit per move in seconds (default 1 when there is no --tc).
    #[arg(long, value_name = "SECONDS")]
    pub move_time: Option<String>,
    /// Limit for the setup in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub setup_time: String,
    /// Limit from start to `ready` in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub startup_time: String,
    /// Games played at once.
    #[arg(short = 'j', long, default_value_t = 1)]
    pub concurrency: usize,
    /// Directory for game records (appended to DIR/games.jsonl).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Longest line a bot may send, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = stratego_protocol::DEFAULT_MAX_LINE_BYTES)]
    pub max_line: usize,
    /// Milliseconds a bot has to exit after `quit` before its process group is killed.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub grace_ms: u64,
    /// A bot's clock starts when it has read its turn from its stdin, but at the latest this
    /// many milliseconds after the host wrote it (0: the clock starts at the write).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_READ_GRACE_MS)]
    pub read_grace_ms: u64,
    /// Memory limit of each bot process (address space, setrlimit RLIMIT_AS), e.g. 512M.
    /// A bot spec's "memory" overrides it.
    #[arg(long, value_name = "SIZE")]
    pub bot_memory: Option<String>,
    /// CPU-time limit of each bot process in seconds (RLIMIT_CPU). A bot spec's
    /// "cpu_seconds" overrides it.
    #[arg(long, value_name = "SECONDS")]
    pub bot_cpu: Option<u64>,
    /// Most bytes a bot may write to its standard output in one game.
    #[arg(long, value_name = "SIZE", default_value = "64M")]
    pub bot_output: String,
    /// Niceness of bot processes (0 to 19).
    #[arg(long, value_name = "N")]
    pub bot_nice: Option<i32>,
    /// Fault policy for ladders of unreliable bots: forgive up to K timeouts or illegal
    /// moves per bot and game by playing a random legal move instead (recorded, and told to
    /// the bot in its next turn's "strike" field). 0: every fault loses.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub strikes: u32,
    /// Pin the bots of each concurrent game to one CPU (game slot i on CPU i mod cores),
    /// and with -j 1 the host too. Faster hand-overs; but a bot that thinks on its
    /// opponent's time then shares that CPU with it.
    #[arg(long)]
    pub pin: bool,
    /// The host's scheduling priority: realtime (SCHED_FIFO, the fairest clocks when bots
    /// fill every CPU), nice (-10) or normal. Falls back when not allowed. Unpinned matches
    /// of very fast bots run about a third faster with nice.
    #[arg(long, value_enum, value_name = "PRIORITY", default_value = "realtime")]
    pub host_priority: crate::os::HostPriority,
    /// Charge bots for time the machine was stalled too. By default, with a real-time host,
    /// a watchdog per CPU logs when the CPU could not run anything (a virtual machine's
    /// steal time, a long non-preemptible kernel call), and a move is credited with the
    /// stalls of the bot's and the host's CPUs, up to its limit ("stall_us" in records).
    #[arg(long)]
    pub no_stall_credit: bool,
    /// More logging (-v, -vv).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// No line per game; only the summary and errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// A configuration error, with the exit code it maps to.
#[derive(Debug)]
pub struct ConfigError {
    /// What is wrong.
    pub message: String,
    /// [`crate::exit::USAGE`] or [`crate::exit::BOT_NOT_STARTABLE`].
    pub code: i32,
}

fn usage(message: impl Into<String>) -> ConfigError {
    ConfigError { message: message.into(), code: crate::exit::USAGE }
}

/// Loads `classic`, `isf`, `barrage` or a JSON file.
///
/// # Errors
/// An unknown name or an invalid file, naming the file and the field.
pub fn load_rules(arg: &str) -> Result<Ruleset, String> {
    if let Ok(r) = Ruleset::preset(arg) {
        return Ok(r);
    }
    let text = std::fs::read_to_string(arg)
        .map_err(|e| format!("--rules {arg:?}: not a preset (classic, isf, barrage) and not a readable file: {e}"))?;
    Ruleset::from_json(&text).map_err(|e| format!("--rules {arg}: {e}"))
}

fn arg_given(a: &Option<String>) -> bool {
    a.is_some()
}

impl MatchArgs {
    /// Validates the flags into a plan.
    ///
    /// # Errors
    /// The first problem, with exit code 2 (usage) or 3 (a bot cannot be started).
    pub fn into_plan(self) -> Result<MatchPlan, ConfigError> {
        let rules = load_rules(&self.rules).map_err(usage)?;
        let startup = parse_seconds(&self.startup_time).map_err(|e| usage(format!("--startup-time: {e}")))?;
        let setup = parse_seconds(&self.setup_time).map_err(|e| usage(format!("--setup-time: {e}")))?;
        let move_limit = self
            .move_time
            .as_deref()
            .map(|t| parse_seconds(t).map_err(|e| usage(format!("--move-time: {e}"))))
            .transpose()?;
        let (bank, increment) = match &self.tc {
            Some(tc) => {
                let (b, i) = TimeControl::parse_bank(tc).map_err(usage)?;
                (Some(b), i)
            }
            None => (None, Duration::ZERO),
        };
        let move_limit = if move_limit.is_none() && bank.is_none() { Some(Duration::from_secs(1)) } else { move_limit };
        if move_limit.is_some_and(|m| m.is_zero()) {
            return Err(usage("--move-time: must be more than zero"));
        }
        if self.games == 0 {
            return Err(usage("--games: must be at least 1"));
        }
        if self.concurrency == 0 {
            return Err(usage("--concurrency: must be at least 1"));
        }
        if self.max_line < 1024 {
            return Err(usage("--max-line: must be at least 1024 bytes"));
        }
        let default_limits = crate::bot_spec::Limits {
            memory_bytes: self
                .bot_memory
                .as_deref()
                .map(|m| crate::bot_spec::parse_size(m).map_err(|e| usage(format!("--bot-memory: {e}"))))
                .transpose()?,
            cpu_seconds: self.bot_cpu,
            output_bytes: Some(
                crate::bot_spec::parse_size(&self.bot_output).map_err(|e| usage(format!("--bot-output: {e}")))?,
            ),
            nice: self.bot_nice,
        };
        if self.bot_nice.is_some_and(|n| !(0..=19).contains(&n)) {
            return Err(usage("--bot-nice: must be 0 to 19"));
        }
        let mut bots = Vec::new();
        for arg in [&self.bot_a, &self.bot_b] {
            let mut spec = match arg {
                Some(a) => BotSpec::parse(a).map_err(usage)?.resolve_builtin(),
                None => BotSpec::sample_bot(&[]),
            };
            spec.limits = spec.limits.or(default_limits);
            spec.check_startable().map_err(|m| ConfigError { message: m, code: crate::exit::BOT_NOT_STARTABLE })?;
            bots.push(spec);
        }
        if bots[0].name == bots[1].name && (arg_given(&self.bot_a) || arg_given(&self.bot_b)) {
            // Same program, different arguments: name each by its arguments.
            for (b, arg) in bots.iter_mut().zip([&self.bot_a, &self.bot_b]) {
                if let Some(a) = arg.as_deref().filter(|a| !a.trim_start().starts_with(['{', '@'])) {
                    b.name = a.trim().to_owned();
                }
            }
        }
        if bots[0].name == bots[1].name {
            bots[1].name.push_str("#2");
        }
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        if self.concurrency > cores {
            tracing::warn!(
                "--concurrency {} is more than the {cores} CPU cores: bots will compete for CPU and may lose on time",
                self.concurrency
            );
        }
        let records = match &self.out {
            Some(dir) => Some(RecordWriter::open(dir).map_err(|e| usage(format!("--out {}: {e}", dir.display())))?),
            None => None,
        };
        let seed = self.seed.unwrap_or_else(|| {
            let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            stratego_protocol::Rng::derive(t.as_nanos() as u64, u64::from(std::process::id()))
        });
        let bots: [BotSpec; 2] = bots.try_into().expect("two bots");
        Ok(MatchPlan {
            bots,
            games: self.games,
            concurrency: self.concurrency,
            settings: GameSettings {
                rules: Arc::new(rules),
                time_control: TimeControl { startup, setup, move_limit, bank, increment },
                max_line: self.max_line,
                grace: Duration::from_millis(self.grace_ms),
                read_grace: Duration::from_millis(self.read_grace_ms),
                match_seed: seed,
                pin: self.pin,
                host_priority: self.host_priority,
                stall_credit: !self.no_stall_credit,
                strikes: self.strikes,
            },
            records,
            live: !self.quiet,
        })
    }
}
