//! The command line: every clap type of the host, and the flags validated once into what a
//! command runs (a [`crate::run::plan::EventPlan`], a [`crate::commands::check::CheckPlan`], a
//! [`crate::commands::ladder::LadderPlan`], a command's options); nothing downstream re-checks
//! flags. The tournament file ([`config`]) is the other way in.
//!
//! Module structure:
//! - `mod.rs`: [`Cli`], [`Command`], `match`, `tournament` and `sprt`'s flags, and the
//!   flags every playing command shares ([`RunFlags`]).
//! - [`check`]: `check`'s flags.
//! - [`config`]: the tournament file (TOML).
//! - [`each`]: `--each KEY=VALUE`, options given to every bot.
//! - [`ladder`]: `ladder`'s flags.
//! - [`arena`]: `arena`'s flags.
//! - [`remote`]: `--listen` and its limits, `token`'s and `connect`'s flags.
//! - [`records`]: `merge`, `export`, `replay` and `convert`'s flags.
//!
//! May import every layer below it; prints nothing, blocks on nothing but reading the files
//! its flags name, spawns nothing.

pub mod arena;
pub mod check;
pub mod config;
pub mod each;
pub mod ladder;
pub mod records;
pub mod remote;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use stratego_rules::Ruleset;

use crate::game::clock::{TimeControl, parse_seconds};
use crate::run::plan::{
    ConfigError, DEFAULT_READ_GRACE_MS, DEFAULT_TIME_MARGIN_MS, EventKind, EventPlan, FileDefaults, ProgressMode,
    RunConfig, entrant, load_rules, parse_anchor, usage,
};
use crate::run::referee::GameSettings;
use crate::supervise::bot_spec::BotSpec;

pub use check::CheckArgs;

/// Runs Stratego bots against each other.
#[derive(Parser, Debug)]
#[command(name = "stratego-host", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Longest record read from a records file, a ladder or a Gravon game, in bytes (a
    /// line, a zstd frame's content, an XML game): what is longer is refused without being
    /// held (a decompression bomb is a few kilobytes that decompress to gigabytes).
    #[arg(long, global = true, value_name = "BYTES", default_value_t = stratego_records::DEFAULT_MAX_RECORD_BYTES)]
    pub max_record_bytes: usize,
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
    /// Play a tournament between any number of bots: round-robin or gauntlet, in
    /// colour-swapped pairs, optionally with a setup book; prints a crosstable and a
    /// ranking with Bradley-Terry ratings and error bars.
    ///
    /// Bots come from a TOML config file (CONFIG; see the README for a complete example)
    /// and/or --bot flags. Flags given on the command line override the file.
    Tournament(Box<TournamentArgs>),
    /// Sequential probability ratio test: play NEW against BASE in colour-swapped pairs
    /// until the test decides whether NEW is better (by at least ELO1) or not (at most
    /// ELO0), or --max-games is reached.
    ///
    /// Exit codes for CI: 0 H1 accepted (NEW is better), 10 H0 accepted (not better),
    /// 11 inconclusive at --max-games; errors keep their codes (2 usage, 3 a bot cannot be
    /// started, 130 interrupted).
    Sprt(Box<SprtArgs>),
    /// Combine the --out directories of a plan's shards (--shard I/N) into one report: the
    /// same tables, JSON, statistics and ratings as a single run. Directories of different
    /// plans are refused; missing or duplicated games are named (exit 1).
    Merge(crate::cli::records::MergeArgs),
    /// Export recorded games as one self-contained HTML viewer (board, play/pause, steps, a
    /// ply slider, the move list with fights, captures, think times and clocks, the result,
    /// and spectator, Red's and Blue's views). No network needed to open it.
    Export(crate::cli::records::ExportArgs),
    /// Replay a recorded game on the terminal: a board you step through with the arrow
    /// keys (r, b, s switch to Red's, Blue's or the spectator's view; q quits), or, when not
    /// on a terminal, the whole game printed as text.
    Replay(crate::cli::records::ReplayArgs),
    /// Convert between game records (games.jsonl) and Gravon XML, both ways: the direction
    /// comes from IN (or --to). Every game is replayed by the rules; games that cannot be
    /// converted are named on stderr and counted in the summary.
    Convert(crate::cli::records::ConvertArgs),
    /// A persistent rating ladder in one SQLite file, for CI pipelines: add and retire bots,
    /// play the pairings that most reduce the ratings' uncertainty, print the table.
    Ladder(Box<ladder::LadderArgs>),
    /// An always-on arena in one SQLite file (a ladder file): `arena add|retire|token FILE
    /// NAME` admin its entrants; `arena run FILE` pairs whoever is idle and present (local
    /// entrants sandboxed, remote ones while connected), plays until SIGINT/SIGTERM, saves
    /// each game as it finishes and rates by Bradley–Terry.
    Arena(Box<arena::ArenaArgs>),
    /// Check that a bot follows the protocol: a pass/fail report and an exit code for the
    /// bot author's CI (0 all passed, 4 a check failed, 3 the bot cannot be started: no
    /// such program, or it ended or was silent before its first `ready`).
    ///
    /// Plays the built-in random sample bot with each ruleset as Red and as Blue, then
    /// probes forward compatibility (unknown fields in every host message) and, if the bot
    /// says it can, two games in one process. Each failure says what was sent, what came
    /// back and what was expected.
    Check(Box<CheckArgs>),
    /// Make a token for a remote bot: 256 random bits, printed once (or written to --out
    /// FILE, mode 0600), and its SHA-256 for the bot's spec (`token_sha256 = "…"`), which
    /// is all the host keeps.
    Token(remote::TokenArgs),
    /// Run a bot on this machine for an event on another: connect out to the host's
    /// --listen address with the bot's token and carry its protocol lines over the
    /// WebSocket (one line per text frame): `stratego-host connect wss://HOST:PORT
    /// --token-file F -- ./my-bot --args`.
    Connect(Box<remote::ConnectArgs>),
    /// Run the built-in sample bot on stdin/stdout (what `sample-bot` starts); `--help`
    /// shows the bot's own options.
    #[command(disable_help_flag = true)]
    SampleBot {
        /// Arguments of the sample bot (see `stratego-host sample-bot --help`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// Flags shared by `match`, `tournament` and `sprt`.
#[derive(Args, Debug)]
pub struct RunFlags {
    /// Ruleset: classic, isf, barrage, ucc2012, or a JSON file [default: classic].
    #[arg(long)]
    pub rules: Option<String>,
    /// Master seed (default: from the clock; printed in the summary).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Game bank and increment in seconds, BANK+INC (e.g. 60+0.5).
    #[arg(long, value_name = "BANK+INC")]
    pub tc: Option<String>,
    /// Limit per move in seconds (default 1 when there is no --tc).
    #[arg(long, value_name = "SECONDS")]
    pub move_time: Option<String>,
    /// Limit for the setup in seconds [default: 10].
    #[arg(long, value_name = "SECONDS")]
    pub setup_time: Option<String>,
    /// Limit from start to `ready` in seconds [default: 10].
    #[arg(long, value_name = "SECONDS")]
    pub startup_time: Option<String>,
    /// Games played at once [default: 1].
    #[arg(short = 'j', long)]
    pub concurrency: Option<usize>,
    /// Directory for game records (appended to DIR/games.jsonl).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Setup book: both games of a colour-swapped pair play the same two setups, seats
    /// swapped. A plain text file (one deployment a line, see the README) or the Gravon
    /// setups database (gravon-setups.zip).
    #[arg(long, value_name = "FILE")]
    pub setups: Option<PathBuf>,
    /// Do not tell bots their opponent's name (`hello.opponent`).
    #[arg(long)]
    pub blind: bool,
    /// Play only shard I of N of the plan (its colour-swapped pairs p with p mod N = I-1),
    /// e.g. from a Slurm array task or a CI matrix job; `stratego-host merge` combines the
    /// shards' --out directories into one report.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Write every protocol line each way, with a timestamp and the direction, to FILE (all
    /// bots) or DIR/ (a file per bot: an existing directory or a path ending with /).
    #[arg(long, value_name = "FILE|DIR")]
    pub log_protocol: Option<PathBuf>,
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
    /// Safety margin in milliseconds: an answer that comes up to this much after its limit
    /// (move, bank, setup, start-up) is still in time; a move that uses it is marked in the
    /// records (`over_us`) and counted in the summary. The same for every bot; bots are told
    /// it (`time_control.margin_ms`). Default 3; 0 for none.
    #[arg(long, value_name = "MS")]
    pub time_margin_ms: Option<u64>,
    /// Memory limit of each bot process (address space, setrlimit RLIMIT_AS), e.g. 512M.
    /// A bot spec's "memory" overrides it.
    #[arg(long, value_name = "SIZE")]
    pub bot_memory: Option<String>,
    /// CPU-time limit of each bot process in seconds (RLIMIT_CPU). A bot spec's
    /// "cpu_seconds" overrides it.
    #[arg(long, value_name = "SECONDS")]
    pub bot_cpu: Option<u64>,
    /// Most bytes a bot may write to its standard output in one game [default: 64M].
    #[arg(long, value_name = "SIZE")]
    pub bot_output: Option<String>,
    /// Niceness of bot processes (0 to 19).
    #[arg(long, value_name = "N")]
    pub bot_nice: Option<i32>,
    /// Run every bot in a sandbox (bubblewrap): its own user, PID, IPC, UTS and network
    /// namespaces, the system and its own directory read-only, a private size-limited /tmp,
    /// no records, no other bot's files, memory and process limits in cgroups (rlimits
    /// where there are none). A bot spec's "sandbox": false opts one out. Says at start
    /// what is enforced and what could not be.
    #[arg(long)]
    pub sandbox: bool,
    /// With --sandbox: keep the host's network (by default a sandbox has none).
    #[arg(long)]
    pub sandbox_net: bool,
    /// With --sandbox: most processes and threads a bot may have at once [default: 128].
    #[arg(long, value_name = "N")]
    pub bot_pids: Option<u32>,
    /// With --sandbox: size of a bot's private /tmp (and /dev/shm) [default: 64M].
    #[arg(long, value_name = "SIZE")]
    pub bot_disk: Option<String>,
    /// Fault policy for ladders of unreliable bots: forgive up to K timeouts or illegal
    /// moves per bot and game by playing a random legal move instead (recorded, and told to
    /// the bot in its next turn's "strike" field) [default: 0: every fault loses].
    #[arg(long, value_name = "K")]
    pub strikes: Option<u32>,
    /// Pin the bots of each concurrent game to one CPU (game slot i on CPU i mod cores),
    /// and with -j 1 the host too. Faster hand-overs; but a bot that thinks on its
    /// opponent's time then shares that CPU with it.
    #[arg(long)]
    pub pin: bool,
    /// Do not put a game's two bots on one CPU when both say they are single-threaded
    /// (`ready.single_threaded`; done by default when there are no more games at once than
    /// CPUs, and with -j 1 the host joins them: cheap hand-overs).
    #[arg(long)]
    pub no_auto_pin: bool,
    /// The host's scheduling priority: auto (nice -10, and real-time SCHED_FIFO with read
    /// watch and stall credit while a bot thinks for over 2 ms: fair clocks for bots that
    /// think, no cost for bots that answer in microseconds), realtime (always), nice (-10)
    /// or normal. Falls back when not allowed.
    #[arg(long, value_enum, value_name = "PRIORITY", default_value = "auto")]
    pub host_priority: crate::supervise::os::HostPriority,
    /// Charge bots for time the machine took from them too. By default, with a real-time
    /// host, a single-threaded bot's long move is credited from its own scheduler account
    /// (time it waited for a CPU or had it taken away, and the host's wait to see its
    /// answer; never time it slept), and other bots' from watchdogs on their CPUs that log
    /// when a CPU could not run anything; at most the move's limit, or 250 ms if that is more
    /// ("stall_us" in records).
    #[arg(long)]
    pub no_stall_credit: bool,
    /// More logging (-v, -vv).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// No line per game; only the summary and errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// Draw one running game live on the terminal (stderr, or /dev/tty), move by move; with
    /// several games at once, the first running, then the next.
    #[arg(long)]
    pub watch: bool,
    /// Write the records of a new --out directory compressed: `games.jsonl.zst`, one zstd
    /// frame per game (about 5 KB for a 1,000-ply game, against about 50 KB plain);
    /// `zstd -dc DIR/games.jsonl.zst` gives the plain JSON Lines. A directory keeps the
    /// form it was started with.
    #[arg(long)]
    pub compress: bool,
    /// Serve a live page of the event at ADDR (e.g. 127.0.0.1:8080; port 0 picks one, the
    /// address is printed on stderr): standings, the games in progress on live boards, the
    /// finished games in the viewer, crashes and disconnects.
    #[arg(long, value_name = "ADDR")]
    pub serve: Option<String>,
    /// With --serve: show each running game this many plies behind (for broadcasts).
    #[arg(long, value_name = "PLIES")]
    pub serve_delay: Option<u32>,
    /// With --serve: most connections open at once from one address (default 8; behind a
    /// reverse proxy every spectator has the proxy's address: raise it, up to 32).
    #[arg(long, value_name = "N")]
    pub serve_per_address: Option<usize>,
    /// The event's name: the title of the HTML pages, and `event` in the JSON summary and
    /// the manifest.
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Every game is a draw (`ply_limit`) after N plies: overrides the ruleset's `ply_limit`.
    #[arg(long, value_name = "N")]
    pub max_plies: Option<u32>,
    /// Adjudication: a game is a draw (`adjudicated_no_capture`) once no piece has been
    /// captured for N plies in a row.
    #[arg(long, value_name = "N")]
    pub draw_after_no_capture: Option<u32>,
    /// Adjudication: a game is won (`adjudicated_material`) by the side that has had more
    /// movable pieces (all but the Flag and Bombs) than the other for N plies in a row.
    #[arg(long, value_name = "N")]
    pub adjudicate_material: Option<u32>,
    /// With --setups: how the colour-swapped pairs take their book entries: random (drawn
    /// from the seed) or sequential (pair p plays entries start+2p and start+2p+1, wrapping
    /// around) [default: random].
    #[arg(long, value_enum, value_name = "ORDER")]
    pub setups_order: Option<crate::run::schedule::BookOrder>,
    /// With --setups-order sequential: the book entry of the first pair's first setup,
    /// numbered from 1 in file order [default: 1].
    #[arg(long, value_name = "N")]
    pub setups_start: Option<u32>,
    /// Write no viewer pages and no index.html into the --out directory (records and
    /// manifest only; `stratego-host export` makes pages later).
    #[arg(long)]
    pub no_html: bool,
    /// Name every bot not given a name after its command (`bot`, `StarterBot`) only; by
    /// default a new event asks each such bot its `ready.name` and takes it when it is free.
    #[arg(long)]
    pub names_from_commands: bool,
    /// Every N finished games, print an interim report to stdout: the score (match), the
    /// standings (tournament), the LLR and its bounds (sprt); for logs off a terminal.
    #[arg(long, value_name = "N")]
    pub report_every: Option<u64>,
    /// A bot that passed the start-up check before the first game but fails to start for a
    /// game later loses that game (its record says why) and is started again for its next
    /// game; without, the event stops there (exit 3).
    #[arg(long)]
    pub recover: bool,
    /// An option of every bot, as a bot spec's key (move_time, tc, setup_time, memory,
    /// cpu_seconds, nice, …) or env.NAME for an environment variable: --each move_time=0.5
    /// --each env.THREADS=1 (repeat). A bot's own spec wins; --each wins over the run's flags.
    #[arg(long, value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// Remote bots: --listen and its limits.
    #[command(flatten)]
    pub remote: remote::RemoteFlags,
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
    /// Flags shared with `tournament` and `sprt`.
    #[command(flatten)]
    pub run: RunFlags,
}

/// `tournament` options.
#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// The tournament's config file (TOML): bots, format, games, clocks, setup book.
    #[arg(value_name = "CONFIG")]
    pub config: Option<PathBuf>,
    /// A bot (repeat): a command line, a JSON spec or @FILE, as for `match`. Added after
    /// the config file's bots.
    #[arg(long = "bot", value_name = "BOT")]
    pub bots: Vec<String>,
    /// round-robin (every bot plays every other), gauntlet (the --seed-bot bots play the
    /// rest) or knockout (single elimination seeded by entry order, each tie --games games,
    /// level ties settled by extra pairs, then by seed; needs --out) [default: round-robin].
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// For a gauntlet: a bot (by name) that plays every other bot (repeat for several).
    #[arg(long = "seed-bot", value_name = "NAME")]
    pub seed_bots: Vec<String>,
    /// Games per pairing, an even number: colour-swapped pairs [default: 2].
    #[arg(short = 'n', long)]
    pub games: Option<u32>,
    /// Fix one bot's rating (NAME, at 0, or NAME=ELO) instead of averaging the ratings to 0.
    #[arg(long, value_name = "NAME[=ELO]")]
    pub anchor: Option<String>,
    /// Flags shared with `match` and `sprt` (they override the config file).
    #[command(flatten)]
    pub run: RunFlags,
}

/// `sprt` options.
#[derive(Args, Debug)]
pub struct SprtArgs {
    /// The new bot (a command line, a JSON spec or @FILE).
    pub new: String,
    /// The base bot it must beat.
    pub base: String,
    /// Elo difference of H0 (NEW is not better than this).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub elo0: f64,
    /// Elo difference of H1 (NEW is at least this much better).
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    pub elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// False-negative rate (accepting H0 when H1 holds).
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// Elo model of the bounds: normalized (nElo, as fishtest) or logistic.
    #[arg(long, value_name = "MODEL", default_value = "normalized")]
    pub model: String,
    /// Stop after this many games (an even number) if the test has not decided: exit 11.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_games: u32,
    /// Flags shared with `match` and `tournament`.
    #[command(flatten)]
    pub run: RunFlags,
}

impl RunFlags {
    /// The tracing level the flags ask for (`-q`, `-v`, `-vv`).
    pub fn log_level(&self) -> &'static str {
        match (self.quiet, self.verbose) {
            (true, _) => "error",
            (false, 0) => "warn",
            (false, 1) => "info",
            (false, _) => "debug",
        }
    }

    /// Validates the shared flags, with `file` giving values the flags leave unset.
    ///
    /// # Errors
    /// The first problem, naming the flag.
    pub fn validate(&self, file: &FileDefaults) -> Result<RunConfig, ConfigError> {
        let rules = self.ruleset(file)?;
        let (book_order, book_start) = self.book(file)?;
        if self.event.as_deref().is_some_and(|e| e.trim().is_empty()) {
            return Err(usage("--event: the name must not be empty"));
        }
        let time_control = self.time_control(file)?;
        let concurrency = self.concurrency.or(file.concurrency).unwrap_or(1);
        if concurrency == 0 {
            return Err(usage("--concurrency: must be at least 1"));
        }
        if self.max_line < 1024 {
            return Err(usage("--max-line: must be at least 1024 bytes"));
        }
        let default_limits = self.bot_limits()?;
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        if concurrency > cores {
            crate::notice::warn(format_args!(
                "--concurrency {concurrency} is more than the {cores} CPU cores: bots will compete for CPU and may lose on time"
            ));
        }
        let mut hidden = Vec::new();
        let protocol_log = self.protocol_log(&mut hidden)?;
        let shard = self.shard()?;
        if self.serve_delay.is_some() && self.serve.is_none() {
            return Err(usage("--serve-delay: only with --serve ADDR"));
        }
        if self.serve_per_address.is_some() && self.serve.is_none() {
            return Err(usage("--serve-per-address: only with --serve ADDR"));
        }
        if self.serve_per_address.is_some_and(|n| !(1..=crate::display::web::live_page::MAX_CONNECTIONS).contains(&n)) {
            return Err(usage(format!(
                "--serve-per-address: 1 to {}",
                crate::display::web::live_page::MAX_CONNECTIONS
            )));
        }
        let seed_given = self.seed.or(file.seed).is_some();
        let seed = self.seed.or(file.seed).unwrap_or_else(|| {
            let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            stratego_protocol::Rng::derive(t.as_nanos() as u64, u64::from(std::process::id()))
        });
        Ok(RunConfig {
            settings: GameSettings {
                rules: Arc::new(rules),
                time_control,
                max_line: self.max_line,
                grace: Duration::from_millis(self.grace_ms),
                read_grace: Duration::from_millis(self.read_grace_ms),
                match_seed: seed,
                strikes: self.strikes.or(file.strikes).unwrap_or(0),
                blind: self.blind,
                protocol_log,
                listen: self.remote.validate(self.max_line)?,
                adjudication: self.adjudication()?,
            },
            default_limits,
            concurrency,
            pin: self.pin,
            auto_pin: !self.no_auto_pin,
            host_priority: self.host_priority,
            stall_credit: !self.no_stall_credit,
            out: self.out.clone().or_else(|| file.out.clone()),
            setups: self.setups.clone().or_else(|| file.setups.clone()),
            json: self.json,
            progress: if self.quiet { ProgressMode::Quiet } else { ProgressMode::Lines },
            log_level: self.log_level(),
            seed_given,
            shard,
            watch: self.watch,
            serve: self.serve.clone(),
            serve_delay: self.serve_delay.unwrap_or(0),
            serve_per_address: self.serve_per_address.unwrap_or(crate::display::web::live_page::MAX_PER_ADDRESS),
            compress: self.compress,
            event: self.event.clone(),
            no_html: self.no_html,
            names_from_commands: self.names_from_commands,
            book_order,
            book_start,
            report_every: match self.report_every {
                Some(0) => return Err(usage("--report-every: must be at least 1")),
                n => n.unwrap_or(0),
            },
            recover: self.recover,
            hidden,
        })
    }

    /// `--rules` (or the file's), with `--max-plies`.
    fn ruleset(&self, file: &FileDefaults) -> Result<Ruleset, ConfigError> {
        let rules_arg = self.rules.clone().or_else(|| file.rules.clone()).unwrap_or_else(|| "classic".into());
        let rules = load_rules(&rules_arg).map_err(usage)?;
        let rules = match self.max_plies {
            None => rules,
            Some(0) => return Err(usage("--max-plies: must be at least 1")),
            Some(n) => {
                let mut spec = rules.spec().clone();
                spec.ply_limit = Some(n);
                Ruleset::try_from(spec).map_err(|e| usage(format!("--max-plies: {e}")))?
            }
        };
        Ok(rules)
    }

    /// `--draw-after-no-capture` and `--adjudicate-material`: at least 1 when given.
    fn adjudication(&self) -> Result<crate::run::adjudicate::Adjudication, ConfigError> {
        for (flag, n) in [
            ("--draw-after-no-capture", self.draw_after_no_capture),
            ("--adjudicate-material", self.adjudicate_material),
        ] {
            if n == Some(0) {
                return Err(usage(format!("{flag}: must be at least 1 (a number of plies)")));
            }
        }
        Ok(crate::run::adjudicate::Adjudication {
            draw_after_no_capture: self.draw_after_no_capture,
            material_plies: self.adjudicate_material,
        })
    }

    /// `--setups-order` and `--setups-start` (0-based), which need a setup book.
    fn book(&self, file: &FileDefaults) -> Result<(crate::run::schedule::BookOrder, u32), ConfigError> {
        let setups_given = self.setups.is_some() || file.setups.is_some();
        if !setups_given && (self.setups_order.is_some() || self.setups_start.is_some()) {
            return Err(usage("--setups-order and --setups-start: only with --setups FILE"));
        }
        let book_order = self.setups_order.unwrap_or_default();
        let book_start = match self.setups_start {
            None => 0,
            Some(0) => return Err(usage("--setups-start: book entries are numbered from 1")),
            Some(_) if book_order != crate::run::schedule::BookOrder::Sequential => {
                return Err(usage("--setups-start: only with --setups-order sequential"));
            }
            Some(n) => n - 1,
        };
        Ok((book_order, book_start))
    }

    /// The clocks: `--startup-time`, `--setup-time`, `--move-time`, `--tc` and `--time-margin-ms` (or the file's).
    fn time_control(&self, file: &FileDefaults) -> Result<TimeControl, ConfigError> {
        let secs = |flag: &str, t: &Option<String>, from_file: Option<Duration>, default: Duration| match t {
            Some(t) => parse_seconds(t).map_err(|e| usage(format!("{flag}: {e}"))),
            None => Ok(from_file.unwrap_or(default)),
        };
        let startup = secs("--startup-time", &self.startup_time, file.startup_time, Duration::from_secs(10))?;
        let setup = secs("--setup-time", &self.setup_time, file.setup_time, Duration::from_secs(10))?;
        let move_limit = match &self.move_time {
            Some(t) => Some(parse_seconds(t).map_err(|e| usage(format!("--move-time: {e}")))?),
            None => file.move_time,
        };
        let (bank, increment) = match (&self.tc, file.tc) {
            (Some(tc), _) => {
                let (b, i) = TimeControl::parse_bank(tc).map_err(usage)?;
                (Some(b), i)
            }
            (None, Some((b, i))) => (Some(b), i),
            (None, None) => (None, Duration::ZERO),
        };
        let move_limit = if move_limit.is_none() && bank.is_none() { Some(Duration::from_secs(1)) } else { move_limit };
        if move_limit.is_some_and(|m| m.is_zero()) {
            return Err(usage("--move-time: must be more than zero"));
        }
        let margin = match self.time_margin_ms {
            Some(ms) => Duration::from_millis(ms),
            None => file.time_margin.unwrap_or(Duration::from_millis(DEFAULT_TIME_MARGIN_MS)),
        };
        if margin > Duration::from_secs(60) {
            return Err(usage("--time-margin-ms: at most 60000".to_owned()));
        }
        Ok(TimeControl { startup, setup, move_limit, bank, increment, margin })
    }

    /// The limits of bots whose spec sets none: `--bot-*`, `--sandbox`, `--sandbox-net`.
    fn bot_limits(&self) -> Result<crate::supervise::bot_spec::Limits, ConfigError> {
        if self.bot_nice.is_some_and(|n| !(0..=19).contains(&n)) {
            return Err(usage("--bot-nice: must be 0 to 19"));
        }
        let default_limits = crate::supervise::bot_spec::Limits {
            memory_bytes: self
                .bot_memory
                .as_deref()
                .map(|m| crate::supervise::bot_spec::parse_size(m).map_err(|e| usage(format!("--bot-memory: {e}"))))
                .transpose()?,
            cpu_seconds: self.bot_cpu,
            output_bytes: Some(
                crate::supervise::bot_spec::parse_size(self.bot_output.as_deref().unwrap_or("64M"))
                    .map_err(|e| usage(format!("--bot-output: {e}")))?,
            ),
            nice: self.bot_nice,
            sandbox: self.sandbox.then_some(true),
            sandbox_net: self.sandbox_net.then_some(true),
            pids: self.bot_pids,
            disk_bytes: self
                .bot_disk
                .as_deref()
                .map(|m| crate::supervise::bot_spec::parse_size(m).map_err(|e| usage(format!("--bot-disk: {e}"))))
                .transpose()?,
        };
        for (flag, given) in [
            ("--sandbox-net", self.sandbox_net),
            ("--bot-pids", self.bot_pids.is_some()),
            ("--bot-disk", self.bot_disk.is_some()),
        ] {
            if given && !self.sandbox {
                return Err(usage(format!("{flag}: only with --sandbox")));
            }
        }
        if self.bot_pids == Some(0) {
            return Err(usage("--bot-pids: must be at least 1"));
        }
        Ok(default_limits)
    }

    /// `--log-protocol`: the log, opened; its path joins `hidden` (no sandbox shows it).
    fn protocol_log(
        &self,
        hidden: &mut Vec<PathBuf>,
    ) -> Result<Option<Arc<crate::session::protocol_log::ProtocolLog>>, ConfigError> {
        let protocol_log = match &self.log_protocol {
            None => None,
            Some(path) => {
                hidden.push(path.clone());
                let log = crate::session::protocol_log::ProtocolLog::open(path)
                    .map_err(|e| usage(format!("--log-protocol {}: {e}", path.display())))?;
                Some(Arc::new(log))
            }
        };
        Ok(protocol_log)
    }

    /// `--shard I/N`.
    fn shard(&self) -> Result<Option<crate::run::manifest::Shard>, ConfigError> {
        let shard = match &self.shard {
            None => None,
            Some(text) => {
                let parsed = text
                    .split_once('/')
                    .and_then(|(i, n)| Some((i.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?)));
                match parsed {
                    Some((index, count)) if count >= 1 && (1..=count).contains(&index) => {
                        Some(crate::run::manifest::Shard { index, count })
                    }
                    _ => return Err(usage(format!("--shard {text:?}: expected I/N with 1 <= I <= N, e.g. 2/8"))),
                }
            }
        };
        Ok(shard)
    }
}

/// Parses bot arguments (`None`: the sample bot) and gives them stable, unique names: a
/// name given in a spec is kept, a default name shared by two bots gets `-2`, `-3`….
/// `named` are bots from a config file, whose names are final. `each` fills what the specs
/// leave unset (`--each`).
fn name_bots(named: Vec<BotSpec>, args: &[Option<&str>], each: &each::Each) -> Result<Vec<BotSpec>, ConfigError> {
    let mut explicit = vec![true; named.len()];
    let mut specs = named;
    for arg in args {
        let (spec, given) = match arg {
            Some(a) => BotSpec::parse_with_name_given(a).map_err(usage)?,
            None => (BotSpec::sample_bot(&[]), false),
        };
        specs.push(spec);
        explicit.push(given);
    }
    crate::supervise::bot_spec::assign_unique_names(&mut specs, &explicit).map_err(|e| usage(e.to_string()))?;
    for spec in &mut specs {
        each.apply(spec);
    }
    Ok(specs)
}

impl MatchArgs {
    /// Validates the flags into a plan.
    ///
    /// # Errors
    /// The first problem, with exit code 2 (usage) or 3 (a bot cannot be started).
    pub fn into_plan(self) -> Result<EventPlan, ConfigError> {
        let run = self.run.validate(&FileDefaults::default())?;
        if self.games == 0 {
            return Err(usage("--games: must be at least 1"));
        }
        let each = each::Each::from_flags(&self.run.each).map_err(usage)?;
        let specs = name_bots(Vec::new(), &[self.bot_a.as_deref(), self.bot_b.as_deref()], &each)?;
        let bots = specs.into_iter().map(|s| entrant(s, &run)).collect::<Result<Vec<_>, _>>()?;
        Ok(EventPlan { run, bots, kind: EventKind::Match { games: self.games } })
    }
}

impl TournamentArgs {
    /// Validates the config file and flags into a plan.
    ///
    /// # Errors
    /// The first problem, with exit code 2 (usage) or 3 (a bot cannot be started).
    pub fn into_plan(mut self) -> Result<EventPlan, ConfigError> {
        let config = match &self.config {
            Some(path) => Some(crate::cli::config::load(path).map_err(ConfigError::from)?),
            None => None,
        };
        if let Some(c) = &config {
            self.take_file_flags(&c.flags);
        }
        let file = config.as_ref().map_or_else(FileDefaults::default, |c| c.settings.clone());
        let mut run = self.run.validate(&file)?;
        if let Some(path) = &self.config {
            // The file may hold every bot's command and environment: no sandbox shows it.
            run.hidden.push(path.clone());
        }
        let named = config.as_ref().map(|c| c.bots.clone()).unwrap_or_default();
        let args: Vec<Option<&str>> = self.bots.iter().map(|b| Some(b.as_str())).collect();
        let file_each = config.as_ref().and_then(|c| c.flags.each.clone()).unwrap_or_default();
        let each = each::Each::from_flags(&self.run.each).map_err(usage)?.or(&file_each);
        let specs = name_bots(named, &args, &each)?;
        if specs.len() < 2 {
            return Err(usage("a tournament needs at least two bots (--bot, or [[bot]] tables in a config file)"));
        }
        let games_per_pairing = self.games.or(config.as_ref().map(|c| c.games_per_pairing)).unwrap_or(2);
        let (format_arg, seed_bots) = match (&self.format, &config) {
            (Some(f), _) => (f.clone(), self.seed_bots.clone()),
            (None, Some(c)) => match &c.format {
                crate::cli::config::Format::RoundRobin => ("round-robin".to_owned(), self.seed_bots.clone()),
                crate::cli::config::Format::Knockout => ("knockout".to_owned(), self.seed_bots.clone()),
                crate::cli::config::Format::Gauntlet { seeds } => {
                    let mut all = seeds.clone();
                    all.extend(self.seed_bots.iter().cloned());
                    ("gauntlet".to_owned(), all)
                }
            },
            (None, None) => ("round-robin".to_owned(), self.seed_bots.clone()),
        };
        if games_per_pairing == 0 || games_per_pairing % 2 == 1 {
            return Err(usage("--games: must be a positive even number (games are played in colour-swapped pairs)"));
        }
        let format = match format_arg.as_str() {
            "round-robin" | "roundrobin" => {
                if !seed_bots.is_empty() {
                    return Err(usage("--seed-bot: only a gauntlet has seeds (--format gauntlet)"));
                }
                crate::run::schedule::Format::RoundRobin
            }
            "gauntlet" => {
                let mut seeds = Vec::new();
                for name in &seed_bots {
                    let id = specs
                        .iter()
                        .position(|s| &s.name == name)
                        .ok_or_else(|| usage(format!("--seed-bot {name:?}: no bot of that name")))?;
                    seeds.push(id);
                }
                if seeds.is_empty() {
                    return Err(usage("--format gauntlet: name its seed bots with --seed-bot NAME"));
                }
                if seeds.len() == specs.len() {
                    return Err(usage("--seed-bot: every bot is a seed; a gauntlet needs opponents"));
                }
                crate::run::schedule::Format::Gauntlet { seeds }
            }
            "knockout" => {
                if !seed_bots.is_empty() {
                    return Err(usage("--seed-bot: a knockout is seeded by entry order (the first bot is seed 1)"));
                }
                let anchor = self.anchor.take();
                if anchor.is_some() {
                    return Err(usage("--anchor: a knockout reports its bracket, not ratings"));
                }
                let bots = specs.into_iter().map(|s| entrant(s, &run)).collect::<Result<Vec<_>, _>>()?;
                return Ok(EventPlan { run, bots, kind: EventKind::Knockout { games: games_per_pairing } });
            }
            other => return Err(usage(format!("--format {other:?}: expected round-robin, gauntlet or knockout"))),
        };
        let bots = specs.into_iter().map(|s| entrant(s, &run)).collect::<Result<Vec<_>, _>>()?;
        let anchor = match &self.anchor {
            None => None,
            Some(text) => Some(parse_anchor(text, bots.iter().map(|b| b.spec.name.as_str())).map_err(usage)?),
        };
        Ok(EventPlan { run, bots, kind: EventKind::Tournament { format, games_per_pairing, anchor } })
    }
}

impl TournamentArgs {
    /// Fills the flags the command line leaves unset with the file's values (a flag given
    /// overrides the file; a switch set in either is on).
    fn take_file_flags(&mut self, file: &crate::cli::config::FileFlags) {
        let run = &mut self.run;
        run.event = run.event.take().or_else(|| file.event.clone());
        run.max_plies = run.max_plies.or(file.max_plies);
        run.draw_after_no_capture = run.draw_after_no_capture.or(file.draw_after_no_capture);
        run.adjudicate_material = run.adjudicate_material.or(file.adjudicate_material);
        run.setups_order = run.setups_order.or(file.setups_order);
        run.setups_start = run.setups_start.or(file.setups_start);
        run.no_html |= file.no_html;
        run.names_from_commands |= file.names_from_commands;
        run.compress |= file.compress;
        run.report_every = run.report_every.or(file.report_every);
        run.recover |= file.recover;
        self.anchor = self.anchor.take().or_else(|| file.anchor.clone());
    }
}

impl SprtArgs {
    /// Validates the flags into a plan.
    ///
    /// # Errors
    /// The first problem, with exit code 2 (usage) or 3 (a bot cannot be started).
    pub fn into_plan(self) -> Result<EventPlan, ConfigError> {
        let run = self.run.validate(&FileDefaults::default())?;
        let model = match self.model.as_str() {
            "normalized" | "normalised" => stratego_stats::EloModel::Normalized,
            "logistic" => stratego_stats::EloModel::Logistic,
            other => return Err(usage(format!("--model {other:?}: expected normalized or logistic"))),
        };
        if self.elo1 <= self.elo0 || self.elo0.is_nan() || self.elo1.is_nan() {
            return Err(usage(format!("--elo1 ({}) must be more than --elo0 ({})", self.elo1, self.elo0)));
        }
        for (flag, v) in [("--alpha", self.alpha), ("--beta", self.beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(usage(format!("{flag}: {v} must be between 0 and 0.5")));
            }
        }
        if self.max_games < 2 || self.max_games % 2 == 1 {
            return Err(usage("--max-games: must be an even number of at least 2 (colour-swapped pairs)"));
        }
        let each = each::Each::from_flags(&self.run.each).map_err(usage)?;
        let specs = name_bots(Vec::new(), &[Some(self.new.as_str()), Some(self.base.as_str())], &each)?;
        let bots = specs.into_iter().map(|s| entrant(s, &run)).collect::<Result<Vec<_>, _>>()?;
        let sprt = stratego_stats::Sprt { elo0: self.elo0, elo1: self.elo1, alpha: self.alpha, beta: self.beta, model };
        Ok(EventPlan { run, bots, kind: EventKind::Sprt { sprt, max_games: self.max_games } })
    }
}
