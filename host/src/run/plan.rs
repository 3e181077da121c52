//! A validated plan: what `match`, `tournament` and `sprt` run, made once from the command
//! line or a tournament file ([`crate::cli`]) and read by everything below; nothing
//! downstream re-checks flags. Also what every plan shares: the configuration error and its
//! exit code, the rulesets by name, and how a bot spec becomes an entrant.

use std::path::PathBuf;
use std::time::Duration;

use stratego_rules::Ruleset;

use crate::run::executor::Entrant;
use crate::run::referee::GameSettings;
use crate::run::schedule::{BotId, EventSpec, Format};
use crate::supervise::bot_spec::BotSpec;

/// Default of `--read-grace-ms`: the longest wait for a bot to read its turn that is not
/// charged to its clock.
pub const DEFAULT_READ_GRACE_MS: u64 = 10;

/// Default of `--time-margin-ms`: how far past a limit an answer may come and still be in
/// time. See the README ("Clocks") for the measurement behind the figure.
pub const DEFAULT_TIME_MARGIN_MS: u64 = 3;

/// How much the progress on stderr shows (not the live page of `--serve`, which "live"
/// names): nothing, or a line per finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// Nothing (`-q`).
    Quiet,
    /// A line per finished game; on a terminal, a progress bar below them too.
    Lines,
}

/// Why a command cannot go on, and the exit code it maps to: a run's
/// [`crate::run::happenings::Failure`] under the name the commands use.
pub type ConfigError = crate::run::happenings::Failure;

pub(crate) fn usage(message: impl Into<String>) -> ConfigError {
    ConfigError { message: message.into(), code: crate::exit::USAGE }
}

pub(crate) fn not_startable(message: impl Into<String>) -> ConfigError {
    ConfigError { message: message.into(), code: crate::exit::BOT_NOT_STARTABLE }
}

/// Loads `classic`, `isf`, `barrage` or a JSON file.
///
/// # Errors
/// An unknown name or an invalid file, naming the file and the field.
pub fn load_rules(arg: &str) -> Result<Ruleset, String> {
    if let Ok(r) = Ruleset::preset(arg) {
        return Ok(r);
    }
    let text = std::fs::read_to_string(arg).map_err(|e| {
        format!("--rules {arg:?}: not a preset (classic, isf, barrage, ucc2012) and not a readable file: {e}")
    })?;
    Ruleset::from_json(&text).map_err(|e| format!("--rules {arg}: {e}"))
}

/// The run-wide part of a validated command line.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Settings shared by every game.
    pub settings: GameSettings,
    /// Limits of bots that set none of their own.
    pub default_limits: crate::supervise::bot_spec::Limits,
    /// Games at once.
    pub concurrency: usize,
    /// `--pin`.
    pub pin: bool,
    /// Not `--no-auto-pin`.
    pub auto_pin: bool,
    /// `--host-priority`.
    pub host_priority: crate::supervise::os::HostPriority,
    /// Credit machine stalls.
    pub stall_credit: bool,
    /// Records directory.
    pub out: Option<PathBuf>,
    /// Setup book file.
    pub setups: Option<PathBuf>,
    /// Summary as JSON.
    pub json: bool,
    /// How much the progress on stderr shows (`-q`).
    pub progress: ProgressMode,
    /// Log level for tracing (`warn`, `info`, `debug`, `error`).
    pub log_level: &'static str,
    /// Whether `--seed` (or the config file) gave the seed: a resumed run takes its
    /// directory's seed otherwise.
    pub seed_given: bool,
    /// `--shard I/N`.
    pub shard: Option<crate::run::manifest::Shard>,
    /// `--watch`: draw a running game live.
    pub watch: bool,
    /// `--compress`: a new records directory's records in the compact form.
    pub compress: bool,
    /// `--serve ADDR`: serve a live page of the event.
    pub serve: Option<String>,
    /// `--serve-delay PLIES`: the live page shows running games this many plies behind.
    pub serve_delay: u32,
    /// `--serve-per-address N`: the live page's limit of connections from one address.
    pub serve_per_address: usize,
    /// `--event NAME`.
    pub event: Option<String>,
    /// `--no-html`.
    pub no_html: bool,
    /// `--names-from-commands`: a new event does not ask its bots their `ready.name`
    /// ([`crate::supervise::bot_spec::naming::names_from_answers`]).
    pub names_from_commands: bool,
    /// `--setups-order`.
    pub book_order: crate::run::schedule::BookOrder,
    /// `--setups-start`, 0-based.
    pub book_start: u32,
    /// `--report-every N` (0: none).
    pub report_every: u64,
    /// `--recover`.
    pub recover: bool,
    /// Other files of the run that no sandbox may show: the protocol log, the tournament
    /// file, the ladder's file and its journals (`--out` and `--setups` are hidden too; see
    /// [`RunConfig::masks`]).
    pub hidden: Vec<PathBuf>,
}

impl RunConfig {
    /// What this run's sandboxes must mask: its records directory, setup book and
    /// [`hidden`](RunConfig::hidden) files, and every bot's own paths (each bot's in the
    /// others' sandboxes). Given to the run's supervisor, which starts the bots.
    pub fn masks(&self, bots: &[Entrant]) -> crate::supervise::sandbox::Masks {
        let mut masks = crate::supervise::sandbox::Masks::default();
        for path in self.out.iter().chain(&self.setups).chain(&self.hidden) {
            masks.hide(path);
        }
        for bot in bots {
            masks.note_bot(&bot.spec);
        }
        masks
    }

    /// The schedule's input for a run of `bots` under `run`: how they meet (`format`) and
    /// `games_per_pairing` are the competition's, the rest (seed, book, own setups, bots that
    /// are the same program) the run's.
    pub fn schedule_event(
        &self,
        bots: &[Entrant],
        format: Format,
        games_per_pairing: u32,
        book_len: Option<u32>,
    ) -> EventSpec {
        let run = self;
        EventSpec {
            bots: bots.len(),
            format,
            games_per_pairing,
            seed: run.settings.match_seed,
            book_len,
            own_setup: bots.iter().map(|b| b.spec.own_setup).collect(),
            same_program: same_program(bots),
            book_order: run.book_order,
            book_start: run.book_start,
        }
    }
}

/// The pairs of `bots` (by id) that are the same program with the same arguments,
/// directory and environment: [`EventSpec::same_program`].
pub fn same_program(bots: &[Entrant]) -> Vec<(BotId, BotId)> {
    (0..bots.len())
        .flat_map(|a| (a + 1..bots.len()).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            let (x, y) = (&bots[a].spec, &bots[b].spec);
            x.command == y.command && x.dir == y.dir && x.env == y.env
        })
        .collect()
}

/// What a validated event command runs.
#[derive(Clone, Debug)]
pub enum EventKind {
    /// Two bots, N games.
    Match {
        /// Games.
        games: u32,
    },
    /// Many bots.
    Tournament {
        /// How they meet.
        format: crate::run::schedule::Format,
        /// Games per pairing.
        games_per_pairing: u32,
        /// A bot whose rating is fixed (id, Elo).
        anchor: Option<(usize, f64)>,
    },
    /// Single elimination in seed order, each tie a match ([`crate::commands::knockout`]).
    Knockout {
        /// Games per tie (even).
        games: u32,
    },
    /// New vs base until the test decides.
    Sprt {
        /// The test.
        sprt: stratego_stats::Sprt,
        /// Most games.
        max_games: u32,
    },
}

/// A validated `match`, `tournament` or `sprt`.
#[derive(Clone, Debug)]
pub struct EventPlan {
    /// Run-wide settings.
    pub run: RunConfig,
    /// The bots, by id (names unique and stable).
    pub bots: Vec<Entrant>,
    /// What to run.
    pub kind: EventKind,
}

/// The optional settings of a run that a tournament file may give
/// ([`crate::cli::config::TournamentConfig::settings`]), overridden by flags; `None` means
/// not given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDefaults {
    /// Ruleset.
    pub rules: Option<String>,
    /// Master seed.
    pub seed: Option<u64>,
    /// Games at once.
    pub concurrency: Option<usize>,
    /// Per-move limit.
    pub move_time: Option<Duration>,
    /// Bank and increment.
    pub tc: Option<(Duration, Duration)>,
    /// Setup limit.
    pub setup_time: Option<Duration>,
    /// Start-up limit.
    pub startup_time: Option<Duration>,
    /// Setup book.
    pub setups: Option<PathBuf>,
    /// Records directory.
    pub out: Option<PathBuf>,
    /// Strikes.
    pub strikes: Option<u32>,
    /// Safety margin past the limits.
    pub time_margin: Option<Duration>,
}

/// `--anchor NAME[=ELO]` (ELO 0 when left out) as the index of the bot of that name among
/// `names` and the rating it is fixed at.
///
/// # Errors
/// No bot of that name, or an Elo that is not a finite number.
pub fn parse_anchor<'a>(text: &str, names: impl IntoIterator<Item = &'a str>) -> Result<(usize, f64), String> {
    let (name, elo) = text.split_once('=').unwrap_or((text, "0"));
    let id = names
        .into_iter()
        .position(|n| n == name.trim())
        .ok_or_else(|| format!("--anchor {name:?}: no bot of that name"))?;
    let elo: f64 = elo
        .trim()
        .parse()
        .ok()
        .filter(|e: &f64| e.is_finite())
        .ok_or_else(|| format!("--anchor {text:?}: the Elo after = is not a number"))?;
    Ok((id, elo))
}

/// Makes a bot an entrant: built-in sample bot resolved, default limits applied, its
/// program checked, its clocks settled.
///
/// # Errors
/// The program cannot be found (exit 3) or its clocks are invalid (exit 2).
pub fn entrant(spec: BotSpec, run: &RunConfig) -> Result<Entrant, ConfigError> {
    if spec.remote {
        if run.settings.listen.is_none() {
            return Err(usage(format!(
                "bot {} is remote (it connects to the host): give --listen ADDR (and --tls-cert/--tls-key off loopback)",
                spec.name
            )));
        }
        let time_control = spec.tc_override.apply(run.settings.time_control);
        return Ok(Entrant { time_control, spec, probe_unknown_fields: false });
    }
    let mut spec = spec.resolve_builtin();
    let own_limits = spec.limits;
    spec.limits = spec.limits.or(run.default_limits);
    spec.check_startable().map_err(not_startable)?;
    sandbox_entrant(&spec, own_limits, run)?;
    let time_control = spec.tc_override.apply(run.settings.time_control);
    if time_control.move_limit.is_some_and(|m| m.is_zero()) {
        return Err(usage(format!("bot {}: move_time must be more than zero", spec.name)));
    }
    Ok(Entrant { time_control, spec, probe_unknown_fields: false })
}

/// The sandbox's part of [`entrant`]: for a sandboxed bot, checks that the sandbox works
/// here and says on stderr what it contains, which limits are enforced and which could not
/// be (why). (What its sandbox masks is the run's: [`RunConfig::masks`].)
/// `own_limits` are the bot's spec's own, before the run's defaults: a sandbox-only key there
/// is an error for a bot that does not run in the sandbox.
fn sandbox_entrant(
    spec: &BotSpec,
    own_limits: crate::supervise::bot_spec::Limits,
    run: &RunConfig,
) -> Result<(), ConfigError> {
    if spec.limits.sandbox != Some(true) {
        return crate::supervise::sandbox::check_unsandboxed(&spec.name, &own_limits).map_err(usage);
    }
    let settings = crate::supervise::sandbox::prepare(spec).map_err(not_startable)?;
    if run.log_level != "error" {
        crate::notice::say(
            crate::notice::Level::Always,
            format!("stratego-host: sandbox for {}: {}", spec.name, settings.describe(spec)),
        );
    }
    for problem in settings.not_applied() {
        crate::notice::warn(format_args!("sandbox for {}: {problem}", spec.name));
    }
    Ok(())
}
