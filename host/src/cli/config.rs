//! The tournament file: a TOML file listing the bots of a tournament and its settings.
//!
//! ```toml
//! format = "gauntlet"            # "round-robin" (the default) or "knockout"
//! games = 4                      # per pairing, even: colour-swapped pairs (default 2)
//! seeds = ["new-build"]          # gauntlet: the bots that play all the others
//! rules = "classic"              # classic, isf, barrage, ucc2012 or a JSON rules file
//! move_time = 0.1                # seconds; also tc = "60+0.5", setup_time, startup_time
//! time_margin_ms = 2             # how far past a limit an answer is still in time
//! event = "Winter Cup"           # and every other flag of the run: max_plies, setups_order,
//! compress = true                # setups_start, no_html, report_every, recover, anchor,
//! names_from_commands = true     # names_from_commands, …: bots named by their commands only
//!
//! [each]                         # every bot's options, as --each: a bot's own table wins
//! memory = "1G"
//! env = { OMP_NUM_THREADS = "1" }
//!
//! [[bot]]
//! name = "new-build"             # default: derived from the command (bot_spec::default_name)
//! command = "./target/release/my-bot --fast"    # or ["./target/release/my-bot", "--fast"]
//!
//! [[bot]]
//! command = "sample-bot --strategy random"
//! move_time = 0.05               # this bot's own limits (time odds), memory = "1G", …
//! ```
//!
//! Every key is optional except the bots (at least two); each setting key is the flag of
//! the same name (`max_plies` is `--max-plies`), and a flag given on the command line
//! overrides the file; a key this module does not know
//! is an error, so that a typo does not silently leave a default in place. Settings are
//! `Option`s in [`TournamentConfig::settings`] (the run's [`FileDefaults`]) so that
//! command-line flags can override them: the caller merges, and applies the defaults (a move time of 1 second when there is neither
//! `move_time` nor `tc`, …).
//!
//! Relative paths in the file (`dir`, `setups`, `out`, a `rules` file) are relative to the
//! directory of the file, and are turned into paths that work from the host's working
//! directory. A bot without `dir` runs in the file's directory, so the paths in its command
//! (`python3 bots/my_bot.py`) are relative to the file too; as on the command line, a
//! relative program path (`./bots/alpha`) is relative to the bot's `dir`.
//!
//! Errors name the file, the line when it is known, the key and the problem:
//! `tournament.toml: line 14, bot[2].move_time: "fast" is not a number of seconds`. Bots are
//! counted from 1 in file order (`bot[1]` is the first `[[bot]]` table).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use crate::run::plan::FileDefaults;
use crate::supervise::bot_spec::{BotSpec, NumOrText, RawSpec};

mod check;
mod locations;

use locations::{Locations, Node, known_keys_hint, line_at, plain_types};

/// The tournament file as written, before its values are checked (see [`parse`]).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentFile {
    /// `format`: `"round-robin"` or `"gauntlet"`.
    pub format: Option<String>,
    /// `games`: games per pairing.
    pub games: Option<i64>,
    /// `seeds`: a gauntlet's seed bots, by name (one name or a list).
    pub seeds: Option<Names>,
    /// `rules`: a preset or a JSON rules file.
    pub rules: Option<String>,
    /// `seed`: the master seed (a string for seeds above 2^63, which TOML cannot hold).
    pub seed: Option<NumOrText>,
    /// `concurrency`: games played at once.
    pub concurrency: Option<i64>,
    /// `move_time`: seconds a move.
    pub move_time: Option<NumOrText>,
    /// `tc`: `"BANK+INC"` in seconds, or just the bank.
    pub tc: Option<NumOrText>,
    /// `setup_time`: seconds for the setup.
    pub setup_time: Option<NumOrText>,
    /// `startup_time`: seconds from start to `ready`.
    pub startup_time: Option<NumOrText>,
    /// `setups`: the setup book.
    pub setups: Option<PathBuf>,
    /// `out`: the records directory.
    pub out: Option<PathBuf>,
    /// `strikes`: faults forgiven per bot and game.
    pub strikes: Option<i64>,
    /// `time_margin_ms`: how far past a limit an answer is still in time.
    pub time_margin_ms: Option<i64>,
    /// `event`: the event's name (`--event`).
    pub event: Option<String>,
    /// `max_plies`: every game a draw after this many plies (`--max-plies`).
    pub max_plies: Option<i64>,
    /// `setups_order`: `"random"` or `"sequential"` (`--setups-order`).
    pub setups_order: Option<String>,
    /// `setups_start`: the first pair's book entry, from 1 (`--setups-start`).
    pub setups_start: Option<i64>,
    /// `no_html`: no viewer pages in the records directory (`--no-html`).
    pub no_html: Option<bool>,
    /// `compress`: compressed records (`--compress`).
    pub compress: Option<bool>,
    /// `report_every`: an interim report every N games (`--report-every`).
    pub report_every: Option<i64>,
    /// `recover`: a bot that fails to start for a game loses it and is tried again (`--recover`).
    pub recover: Option<bool>,
    /// `anchor`: the bot whose rating is fixed, `NAME` or `NAME=ELO` (`--anchor`).
    pub anchor: Option<String>,
    /// `draw_after_no_capture`: a draw after N plies without a capture
    /// (`--draw-after-no-capture`).
    pub draw_after_no_capture: Option<i64>,
    /// `adjudicate_material`: a win for a material lead held N plies (`--adjudicate-material`).
    pub adjudicate_material: Option<i64>,
    /// `names_from_commands`: every bot not given a name is named after its command, not
    /// after its `ready.name` (`--names-from-commands`).
    pub names_from_commands: Option<bool>,
    /// `[each]`: options of every bot, as a bot's keys (`--each`; see [`crate::cli::each`]).
    pub each: Option<RawSpec>,
    /// The `[[bot]]` tables.
    #[serde(default)]
    pub bot: Vec<RawSpec>,
}

/// One name or a list of names (`seeds = "a"` or `seeds = ["a", "b"]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names(pub Vec<String>);

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Names;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a bot name or a list of bot names")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Names, E> {
                Ok(Names(vec![v.to_owned()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Names, A::Error> {
                let mut names = Vec::new();
                while let Some(n) = seq.next_element::<String>()? {
                    names.push(n);
                }
                Ok(Names(names))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// Who plays whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every bot plays every other.
    RoundRobin,
    /// Single elimination, seeded by file order ([`crate::commands::knockout`]).
    Knockout,
    /// Each seed plays every bot that is not a seed; the others do not play each other.
    Gauntlet {
        /// Names of the seed bots, as in [`TournamentConfig::bots`], in the file's order.
        seeds: Vec<String>,
    },
}

/// A checked tournament file. `None` means the file does not set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentConfig {
    /// The bots, in file order: names unique and stable, the sample bot resolved
    /// ([`BotSpec::resolve_builtin`]), limits parsed, `dir` usable from the host's working
    /// directory. Not yet checked to be startable ([`BotSpec::check_startable`]).
    pub bots: Vec<BotSpec>,
    /// Who plays whom (default round-robin).
    pub format: Format,
    /// Games per pairing: even, at least 2 (default 2).
    pub games_per_pairing: u32,
    /// The run's settings the file gives, checked: `rules` a preset name or the path of a JSON
    /// rules file that loads, `concurrency` at least 1, `move_time` more than zero, `setups`
    /// an existing file, `time_margin` at most 60 s.
    pub settings: FileDefaults,
    /// The file's values of the other flags (`event`, `max_plies`, …), checked.
    pub flags: FileFlags,
}

/// The values a tournament file gives for flags that are not clocks, rules or paths: each
/// stands for its flag (`event` for `--event`, …) when the command line does not give it
/// (a flag given on the command line overrides the file; a switch such as `--no-html` can
/// only turn the behaviour on). `None` or `false`: the file does not set it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFlags {
    /// `event`: not empty.
    pub event: Option<String>,
    /// `max_plies`: at least 1.
    pub max_plies: Option<u32>,
    /// `setups_order`.
    pub setups_order: Option<crate::run::schedule::BookOrder>,
    /// `setups_start`: at least 1 (book entries are numbered from 1).
    pub setups_start: Option<u32>,
    /// `no_html = true`.
    pub no_html: bool,
    /// `compress = true`.
    pub compress: bool,
    /// `report_every`: at least 1.
    pub report_every: Option<u64>,
    /// `recover = true`.
    pub recover: bool,
    /// `anchor`, as written (checked against the bots with the flag's rules).
    pub anchor: Option<String>,
    /// `draw_after_no_capture`: at least 1.
    pub draw_after_no_capture: Option<u32>,
    /// `adjudicate_material`: at least 1.
    pub adjudicate_material: Option<u32>,
    /// `names_from_commands = true`.
    pub names_from_commands: bool,
    /// `[each]`: what every bot gets when its `[[bot]]` table does not say.
    pub each: Option<crate::cli::each::Each>,
}

/// What is wrong with a tournament file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigFileError {
    /// The file, as given.
    pub file: String,
    /// Line number (from 1), when known.
    pub line: Option<usize>,
    /// The key (`games`, `bot[2].move_time`), when the problem is with one.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The file's other problems, in file order: a file is checked whole, so that every
    /// bad key is named at once rather than one per run.
    pub also: Vec<ConfigFileError>,
}

impl fmt::Display for ConfigFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file)?;
        match (self.line, &self.key) {
            (Some(line), Some(key)) => write!(f, "line {line}, {key}: ")?,
            (Some(line), None) => write!(f, "line {line}: ")?,
            (None, Some(key)) => write!(f, "{key}: ")?,
            (None, None) => {}
        }
        f.write_str(&self.message)?;
        for other in &self.also {
            write!(f, "\n{other}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigFileError {}

impl From<ConfigFileError> for crate::run::plan::ConfigError {
    fn from(e: ConfigFileError) -> Self {
        crate::run::plan::ConfigError { message: e.to_string(), code: crate::exit::USAGE }
    }
}

/// Reads and checks a tournament file.
///
/// # Errors
/// The first problem: the file cannot be read, is not TOML, has an unknown key or a bad
/// value (see [`parse`]).
pub fn load(path: &Path) -> Result<TournamentConfig, ConfigFileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigFileError {
        file: file.clone(),
        line: None,
        key: None,
        message: format!("cannot read: {e}"),
        also: Vec::new(),
    })?;
    parse(&text, &file, path.parent().unwrap_or(Path::new("")))
}

/// Checks the text of a tournament file. `file` names it in errors; relative paths in it
/// are relative to `base` (the file's directory; `""` for the working directory).
///
/// # Errors
/// Every problem, in file order (the first, with the others in
/// [`ConfigFileError::also`]): an unknown key, a value of the wrong type or out of range,
/// an odd `games`, fewer than two bots, two bots given the same name, seeds that are not
/// bots of the file or that leave no bot to play, a rules or setup file that cannot be
/// read. A TOML syntax error stops the reading there: it is the only problem named.
pub fn parse(text: &str, file: &str, base: &Path) -> Result<TournamentConfig, ConfigFileError> {
    let ctx = Context { file, base, text, locations: Locations::of(text) };
    let mut errors = Vec::new();
    // serde stops at the first unknown key or value of the wrong type: that key is set
    // aside (blanked, so that every offset and line stays) and the rest read again, so
    // that every such key is named, up to MAX_ERRORS.
    let mut blanked = Vec::new();
    let mut current = text.to_owned();
    let raw = loop {
        let e = match toml::from_str::<TournamentFile>(&current) {
            Ok(raw) => break Some(raw),
            Err(e) => e,
        };
        let here = Context { file, base, text: &current, locations: Locations::of(&current) };
        errors.push(here.toml_error(&e));
        match here.without_entry_at(&e) {
            Some((path, next)) if errors.len() < MAX_ERRORS => {
                blanked.push(path);
                current = next;
            }
            _ => break None,
        }
    };
    let config = raw.and_then(|raw| {
        let mut more = Vec::new();
        let config = ctx.check(raw, &mut more);
        // A key set aside is not also reported missing.
        errors.extend(more.into_iter().filter(|e| !e.key.as_ref().is_some_and(|k| blanked.contains(k))));
        config
    });
    match config {
        Some(config) if errors.is_empty() => Ok(config),
        _ => Err(combine(errors)),
    }
}

/// Most problems one reading of a tournament file names.
const MAX_ERRORS: usize = 50;

/// The first error in file order (lines unknown last), carrying the others.
fn combine(mut errors: Vec<ConfigFileError>) -> ConfigFileError {
    errors.sort_by_key(|e| e.line.unwrap_or(usize::MAX));
    let mut errors = errors.into_iter();
    let mut first = errors.next().unwrap_or_else(|| ConfigFileError {
        file: String::new(),
        line: None,
        key: None,
        message: "not a tournament file".to_owned(),
        also: Vec::new(),
    });
    first.also.extend(errors);
    first
}

/// The value of a check that failed is left out and its error kept, so that the checks go on.
fn keep<T>(errors: &mut Vec<ConfigFileError>, checked: Result<T, ConfigFileError>) -> Option<T> {
    checked.map_err(|e| errors.push(e)).ok()
}

struct Context<'a> {
    file: &'a str,
    base: &'a Path,
    text: &'a str,
    /// Empty when the text is not TOML: the error then comes from the typed parse.
    locations: Locations,
}

impl Context<'_> {
    fn error(&self, key: &str, message: impl Into<String>) -> ConfigFileError {
        self.error_at(key, self.locations.line_of(key, self.text), message)
    }

    fn error_at(&self, key: &str, line: Option<usize>, message: impl Into<String>) -> ConfigFileError {
        ConfigFileError {
            file: self.file.to_owned(),
            line,
            key: Some(key.to_owned()),
            message: message.into(),
            also: Vec::new(),
        }
    }

    /// A toml error, with the key its position falls in and serde's wording made plainer.
    fn toml_error(&self, e: &toml::de::Error) -> ConfigFileError {
        let offset = e.span().map(|s| s.start);
        let line = offset.map(|o| line_at(self.text, o));
        let message = e.message().trim().replace('\n', "; ");
        if let Some(field) = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next()) {
            // The error is at the unknown key itself; the key that matters is its table.
            let path = offset.and_then(|o| self.locations.key_at(o)).unwrap_or(field);
            let table = path.strip_suffix(field).and_then(|t| t.strip_suffix('.'));
            let message = format!("unknown key {field:?}{}", known_keys_hint(field, &message));
            return ConfigFileError {
                file: self.file.to_owned(),
                line,
                key: table.map(str::to_owned),
                message,
                also: Vec::new(),
            };
        }
        let key = offset.and_then(|o| self.locations.path_at(o)).map(str::to_owned);
        ConfigFileError { file: self.file.to_owned(), line, key, message: plain_types(&message), also: Vec::new() }
    }

    /// The text with the key that a typed parse refused (and its value) blanked out, and
    /// that key's path; `None` when it cannot be told or the rest would not be TOML.
    fn without_entry_at(&self, e: &toml::de::Error) -> Option<(String, String)> {
        let offset = e.span()?.start;
        let mut path = self.locations.key_at(offset).or_else(|| self.locations.path_at(offset))?;
        let (key, value) = loop {
            let location = self.locations.0.iter().find(|l| l.path == path)?;
            match &location.key {
                Some(key) => break (key.clone(), location.value.clone()),
                None => path = &path[..path.rfind('[')?],
            }
        };
        // Never a whole `[[bot]]` list.
        if path == "bot" || value.end <= key.start {
            return None;
        }
        let mut bytes = self.text.as_bytes().to_vec();
        for b in &mut bytes[key.start..value.end.min(self.text.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        let next = String::from_utf8(bytes).ok()?;
        (next != self.text && toml::from_str::<Node>(&next).is_ok()).then(|| (path.to_owned(), next))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::supervise::bot_spec::{Limits, TimeControlOverride};

    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> TempDir {
            static N: AtomicUsize = AtomicUsize::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("stratego-config-test-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const TWO_BOTS: &str = "[[bot]]\ncommand = \"sample-bot\"\n\n[[bot]]\ncommand = \"sample-bot --strategy random\"\n";

    fn error(text: &str) -> String {
        parse(text, "tournament.toml", Path::new("")).unwrap_err().to_string()
    }

    #[test]
    fn toml_errors_carry_the_line_and_the_key() {
        assert_eq!(
            error(&format!("games = 2\nformt = \"gauntlet\"\n{TWO_BOTS}")),
            "tournament.toml: line 2: unknown key \"formt\" (did you mean \"format\"?)"
        );
        assert_eq!(
            error(&format!("colour = \"red\"\n{TWO_BOTS}")),
            "tournament.toml: line 1: unknown key \"colour\" (known keys: format, games, seeds, rules, seed, \
             concurrency, move_time, tc, setup_time, startup_time, setups, out, strikes, time_margin_ms, event, \
             max_plies, setups_order, setups_start, no_html, compress, report_every, recover, anchor, \
             draw_after_no_capture, adjudicate_material, names_from_commands, each, bot)"
        );
        assert_eq!(
            error(&format!("{TWO_BOTS}\n[[bot]]\ncommand = \"x\"\nnmae = \"y\"\n")),
            "tournament.toml: line 9, bot[3]: unknown key \"nmae\" (did you mean \"name\"?)"
        );
        assert_eq!(
            error(&format!("games = \"two\"\n{TWO_BOTS}")),
            "tournament.toml: line 1, games: invalid type: string \"two\", expected a whole number"
        );
        assert_eq!(
            error(&format!("{TWO_BOTS}env = {{ K = 1 }}\n")),
            "tournament.toml: line 6, bot[2].env.K: invalid type: integer `1`, expected a string"
        );
        assert_eq!(
            error(&format!("{TWO_BOTS}command = [\"x\", 2]\n")),
            "tournament.toml: line 6: duplicate key `command` in table `bot`"
        );
        assert_eq!(
            error("[[bot]]\ncommand = [\"x\", 2]\n"),
            "tournament.toml: line 2, bot[1].command[2]: invalid type: integer `2`, expected a string\n\
             tournament.toml: a tournament needs at least 2 bots ([[bot]] tables); this file has 1"
        );
        assert_eq!(error("games = \n"), "tournament.toml: line 1: invalid string; expected `\"`, `'`");
    }

    #[test]
    fn bad_values_are_named_with_their_key_and_line() {
        assert_eq!(
            error(&format!("{TWO_BOTS}move_time = \"fast\"\n")),
            "tournament.toml: line 6, bot[2].move_time: \"fast\" is not a number of seconds"
        );
        assert_eq!(
            error(&format!("move_time = 0\n{TWO_BOTS}")),
            "tournament.toml: line 1, move_time: must be more than zero"
        );
        assert_eq!(
            error(&format!("tc = \"60+x\"\n{TWO_BOTS}")),
            "tournament.toml: line 1, tc: \"60+x\": increment: \"x\" is not a number of seconds"
        );
        assert_eq!(
            error(&format!("{TWO_BOTS}memory = \"lots\"\n")),
            "tournament.toml: line 6, bot[2].memory: \"lots\" is not a size like 512M"
        );
        assert_eq!(
            error(&format!("[[bot]]\ncommand = \"a\"\n\n[[bot]]\ndir = \"x\"\n{TWO_BOTS}")),
            "tournament.toml: line 4, bot[2].command: missing (the program to run and its arguments)"
        );
        assert_eq!(
            error(&format!("{TWO_BOTS}\n[[bot]]\ncommand = \"\"\n")),
            "tournament.toml: line 8, bot[3].command: empty"
        );
        assert_eq!(
            error(&format!("format = \"swiss\"\n{TWO_BOTS}")),
            "tournament.toml: line 1, format: \"swiss\" is not a format (round-robin, gauntlet or knockout)"
        );
        assert_eq!(
            error(&format!("games = 3\n{TWO_BOTS}")),
            "tournament.toml: line 1, games: must be even (games are played in colour-swapped pairs)"
        );
        assert_eq!(
            error(&format!("games = 0\n{TWO_BOTS}")),
            "tournament.toml: line 1, games: must be at least 2 (one colour-swapped pair)"
        );
        assert_eq!(
            error(&format!("concurrency = 0\n{TWO_BOTS}")),
            "tournament.toml: line 1, concurrency: must be at least 1"
        );
        assert_eq!(
            error(&format!("strikes = -1\n{TWO_BOTS}")),
            "tournament.toml: line 1, strikes: must be a whole number, 0 or more"
        );
        assert_eq!(
            error(&format!("event = \" \"\n{TWO_BOTS}")),
            "tournament.toml: line 1, event: the name must not be empty"
        );
        assert_eq!(
            error(&format!("max_plies = 0\n{TWO_BOTS}")),
            "tournament.toml: line 1, max_plies: must be at least 1"
        );
        assert_eq!(
            error(&format!("report_every = -2\n{TWO_BOTS}")),
            "tournament.toml: line 1, report_every: must be at least 1"
        );
        assert_eq!(
            error(&format!("setups_order = \"shuffled\"\n{TWO_BOTS}")),
            "tournament.toml: line 1, setups_order: \"shuffled\" is not an order (random or sequential)"
        );
        assert_eq!(
            error(&format!("no_html = \"yes\"\n{TWO_BOTS}")),
            "tournament.toml: line 1, no_html: invalid type: string \"yes\", expected a boolean"
        );
        assert_eq!(
            error(&format!("seed = \"x\"\n{TWO_BOTS}")),
            "tournament.toml: line 1, seed: \"x\" is not a whole number 0 or more"
        );
    }

    #[test]
    fn every_problem_of_a_file_is_named_at_once_in_file_order() {
        let text = format!(
            "games = 3\ncolour = \"red\"\nmove_time = \"fast\"\nno_html = \"yes\"\n{TWO_BOTS}memory = \"lots\"\nnmae = \"x\"\n"
        );
        assert_eq!(
            error(&text),
            "tournament.toml: line 1, games: must be even (games are played in colour-swapped pairs)\n\
             tournament.toml: line 2: unknown key \"colour\" (known keys: format, games, seeds, rules, seed, \
             concurrency, move_time, tc, setup_time, startup_time, setups, out, strikes, time_margin_ms, event, \
             max_plies, setups_order, setups_start, no_html, compress, report_every, recover, anchor, \
             draw_after_no_capture, adjudicate_material, names_from_commands, each, bot)\n\
             tournament.toml: line 3, move_time: \"fast\" is not a number of seconds\n\
             tournament.toml: line 4, no_html: invalid type: string \"yes\", expected a boolean\n\
             tournament.toml: line 10, bot[2].memory: \"lots\" is not a size like 512M\n\
             tournament.toml: line 11, bot[2]: unknown key \"nmae\" (did you mean \"name\"?)"
        );
        // A key of the wrong type inside a list is named once, not also as missing.
        assert_eq!(
            error("[[bot]]\ncommand = [\"x\", 2]\n\n[[bot]]\ncommand = \"y\"\n"),
            "tournament.toml: line 2, bot[1].command[2]: invalid type: integer `2`, expected a string"
        );
    }

    #[test]
    fn the_bot_list_must_make_a_tournament() {
        assert_eq!(
            error("games = 2\n"),
            "tournament.toml: a tournament needs at least 2 bots ([[bot]] tables); this file has none"
        );
        assert_eq!(
            error("[[bot]]\ncommand = \"sample-bot\"\n"),
            "tournament.toml: a tournament needs at least 2 bots ([[bot]] tables); this file has 1"
        );
        let four = "[[bot]]\nname = \"heuristic\"\ncommand = \"sample-bot\"\n\n[[bot]]\ncommand = \"sample-bot\"\n\n\
                    [[bot]]\ncommand = \"sample-bot\"\n\n[[bot]]\nname = \"heuristic\"\ncommand = \"./x\"\n";
        assert_eq!(error(four), "tournament.toml: line 12, bot[4].name: the name \"heuristic\" is used by bot[1] too");
        assert_eq!(
            error(&format!("format = \"gauntlet\"\nseeds = [\"sample-bot-random\", \"nope\"]\n{TWO_BOTS}")),
            "tournament.toml: line 2, seeds: \"nope\" is not a bot of this file (its bots: sample-bot-heuristic, \
             sample-bot-random)"
        );
        assert_eq!(
            error(&format!(
                "format = \"gauntlet\"\nseeds = [\"sample-bot-random\", \"sample-bot-random\"]\n{TWO_BOTS}"
            )),
            "tournament.toml: line 2, seeds: \"sample-bot-random\" is listed twice"
        );
        assert_eq!(
            error(&format!("format = \"gauntlet\"\n{TWO_BOTS}")),
            "tournament.toml: line 1, seeds: a gauntlet needs seeds, the bots that play all the others"
        );
        assert_eq!(
            error(&format!("format = \"gauntlet\"\nseeds = []\n{TWO_BOTS}")),
            "tournament.toml: line 2, seeds: a gauntlet needs seeds, the bots that play all the others"
        );
        assert_eq!(
            error(&format!(
                "format = \"gauntlet\"\nseeds = [\"sample-bot-heuristic\", \"sample-bot-random\"]\n{TWO_BOTS}"
            )),
            "tournament.toml: line 2, seeds: every bot is a seed; a gauntlet needs at least one bot that is not"
        );
        assert_eq!(
            error(&format!("seeds = \"sample-bot-random\"\n{TWO_BOTS}")),
            "tournament.toml: line 1, seeds: only a gauntlet has seeds (format = \"gauntlet\")"
        );
    }

    #[test]
    fn files_are_found_next_to_the_config_and_must_exist() {
        let tmp = TempDir::new();
        let dir = tmp.0.display();
        std::fs::write(tmp.0.join("t.toml"), format!("rules = \"mine.json\"\n{TWO_BOTS}")).unwrap();
        let e = load(&tmp.0.join("t.toml")).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "{dir}/t.toml: line 1, rules: \"mine.json\" is not a preset (classic, isf, barrage, ucc2012) nor a readable \
                 file: {dir}/mine.json: No such file or directory (os error 2)"
            )
        );
        std::fs::write(tmp.0.join("mine.json"), r#"{"name": ""}"#).unwrap();
        let e = load(&tmp.0.join("t.toml")).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (Some(1), Some("rules")));
        assert!(e.message.starts_with(&format!("{dir}/mine.json: ")), "{e}");
        std::fs::write(tmp.0.join("mine.json"), r#"{"name": "mine"}"#).unwrap();
        assert_eq!(load(&tmp.0.join("t.toml")).unwrap().settings.rules, Some(format!("{dir}/mine.json")));

        std::fs::write(tmp.0.join("t.toml"), format!("setups = \"book.txt\"\n{TWO_BOTS}")).unwrap();
        assert_eq!(
            load(&tmp.0.join("t.toml")).unwrap_err().to_string(),
            format!("{dir}/t.toml: line 1, setups: {dir}/book.txt: No such file or directory (os error 2)")
        );
        assert_eq!(
            load(&tmp.0.join("none.toml")).unwrap_err().to_string(),
            format!("{dir}/none.toml: cannot read: No such file or directory (os error 2)")
        );
    }

    /// A tournament file with every key.
    const COMPLETE_FILE: &str = r#"
            format = "gauntlet"
            games = 4
            seeds = ["new-build"]
            rules = "isf"
            seed = 1
            concurrency = 2
            move_time = 0.1
            tc = "60+0.5"
            setup_time = 10
            startup_time = "10"
            setups = "book.txt"
            out = "results"
            strikes = 1
            time_margin_ms = 5
            event = "Winter Cup"
            max_plies = 300
            setups_order = "sequential"
            setups_start = 3
            no_html = true
            compress = true
            report_every = 10
            recover = true
            anchor = "new-build=1500"
            names_from_commands = true

            [[bot]]
            name = "heuristic"
            command = "sample-bot --strategy heuristic"
            dir = "bots/heuristic"
            env = { KEY = "value" }
            move_time = 0.05
            memory = "1G"
            own_setup = true

            [[bot]]
            command = ["sample-bot", "--strategy", "random"]
            tc = "30+0.25"

            [[bot]]
            command = "sample-bot --strategy random"
            cpu_seconds = 600
            output = "16M"
            nice = 5
            setup_time = 5
            startup_time = "2.5"

            [[bot]]
            name = "new-build"
            command = "sample-bot --strategy search --worlds 8"
        "#;

    #[test]
    fn a_complete_file_loads_into_its_config() {
        let tmp = TempDir::new();
        std::fs::write(tmp.0.join("book.txt"), "").unwrap();
        let text = COMPLETE_FILE;
        std::fs::write(tmp.0.join("tournament.toml"), text).unwrap();
        let config = load(&tmp.0.join("tournament.toml")).unwrap();
        let secs = Duration::from_secs_f64;
        // "sample-bot" is the built-in bot unless a program of that name is on PATH (as when
        // target/debug is): the expected specs follow the same rule.
        let bot = |name: &str, args: &[&str]| {
            let command =
                std::iter::once(crate::supervise::bot_spec::SAMPLE_BOT).chain(args.iter().copied()).map(String::from);
            BotSpec {
                name: name.to_owned(),
                dir: Some(tmp.0.clone()),
                command: command.collect(),
                ..BotSpec::sample_bot(args)
            }
            .resolve_builtin()
        };
        let expected = TournamentConfig {
            bots: vec![
                BotSpec {
                    dir: Some(tmp.0.join("bots/heuristic")),
                    env: BTreeMap::from([("KEY".to_owned(), "value".to_owned())]),
                    limits: Limits { memory_bytes: Some(1 << 30), ..Limits::default() },
                    tc_override: TimeControlOverride { move_time: Some(secs(0.05)), ..Default::default() },
                    own_setup: true,
                    ..bot("heuristic", &["--strategy", "heuristic"])
                },
                BotSpec {
                    tc_override: TimeControlOverride { bank: Some((secs(30.0), secs(0.25))), ..Default::default() },
                    ..bot("sample-bot-random", &["--strategy", "random"])
                },
                BotSpec {
                    limits: Limits {
                        memory_bytes: None,
                        cpu_seconds: Some(600),
                        output_bytes: Some(16 << 20),
                        nice: Some(5),
                        ..Limits::default()
                    },
                    tc_override: TimeControlOverride {
                        setup: Some(secs(5.0)),
                        startup: Some(secs(2.5)),
                        ..Default::default()
                    },
                    ..bot("sample-bot-random-2", &["--strategy", "random"])
                },
                bot("new-build", &["--strategy", "search", "--worlds", "8"]),
            ],
            format: Format::Gauntlet { seeds: vec!["new-build".to_owned()] },
            games_per_pairing: 4,
            settings: FileDefaults {
                rules: Some("isf".to_owned()),
                seed: Some(1),
                concurrency: Some(2),
                move_time: Some(secs(0.1)),
                tc: Some((secs(60.0), secs(0.5))),
                setup_time: Some(secs(10.0)),
                startup_time: Some(secs(10.0)),
                setups: Some(tmp.0.join("book.txt")),
                out: Some(tmp.0.join("results")),
                strikes: Some(1),
                time_margin: Some(secs(0.005)),
            },
            flags: FileFlags {
                event: Some("Winter Cup".to_owned()),
                max_plies: Some(300),
                setups_order: Some(crate::run::schedule::BookOrder::Sequential),
                setups_start: Some(3),
                no_html: true,
                compress: true,
                report_every: Some(10),
                recover: true,
                anchor: Some("new-build=1500".to_owned()),
                names_from_commands: true,
                ..FileFlags::default()
            },
        };
        assert_eq!(config, expected);
        let minimal = parse(TWO_BOTS, "t.toml", Path::new("")).unwrap();
        assert_eq!(
            (minimal.format, minimal.games_per_pairing, minimal.settings.move_time),
            (Format::RoundRobin, 2, None)
        );
        assert_eq!(minimal.bots[0].dir, None, "with the file in the working directory, bots run there");
        // Seeds above 2^63 do not fit a TOML integer, so they may be written as strings.
        let big = parse(&format!("seed = \"18446744073709551615\"\n{TWO_BOTS}"), "t.toml", Path::new("")).unwrap();
        assert_eq!(big.settings.seed, Some(u64::MAX));
    }

    #[test]
    fn the_example_file_loads_when_it_sits_at_the_repository_root() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let text = include_str!("../../tests/data/tournament-example.toml");
        let config = parse(text, "tournament-example.toml", root).unwrap();
        let names: Vec<&str> = config.bots.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["sample-bot-random", "sample-bot-heuristic", "search", "bot"]);
        assert_eq!(config.format, Format::Gauntlet { seeds: vec!["search".to_owned()] });
        let python = &config.bots[3];
        assert_eq!(python.command, ["python3", "examples/python/bot.py"]);
        assert!(python.dir.as_ref().unwrap().join(&python.command[1]).is_file(), "{python:?}");
        for bot in &config.bots[..3] {
            bot.check_startable().unwrap();
        }
    }
}
