//! Which program a bot is (a command line, or a small JSON spec) and the name it goes by.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::game::clock::{TimeControl, parse_seconds};
pub mod naming;
pub use naming::{DuplicateName, assign_unique_names, default_name, is_builtin, script_index};

/// How to start a bot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotSpec {
    /// Name shown in reports and records: the spec's own, or else [`default_name`] of the
    /// command, made unique by [`assign_unique_names`] when several bots play.
    pub name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Working directory (default: the host's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Resource limits.
    #[serde(default)]
    pub limits: Limits,
    /// This bot's own time limits (time odds), applied to the event's time control with
    /// [`TimeControlOverride::apply`].
    #[serde(default, skip_serializing_if = "TimeControlOverride::is_empty")]
    pub tc_override: TimeControlOverride,
    /// In an event with a setup book, this bot chooses its own setup instead of playing the
    /// book's.
    #[serde(default, skip_serializing_if = "is_false")]
    pub own_setup: bool,
    /// The protocol it speaks: the JSON protocol of protocol.md (the default), or the
    /// line protocol of the UCC Programming Competition 2012 (see ucc2012.md).
    #[serde(default, skip_serializing_if = "Protocol::is_json")]
    pub protocol: Protocol,
    /// A remote bot: it runs on its entrant's machine and connects to the host's
    /// `--listen` address with one of `tokens` (see [`crate::remote`]); its `command` is
    /// `remote:NAME`, for the records.
    #[serde(default, skip_serializing_if = "is_false")]
    pub remote: bool,
    /// A remote bot's token hashes (SHA-256: a ladder keeps them with the bot; plans and
    /// records name no token).
    #[serde(default, rename = "token_sha256", skip_serializing_if = "Vec::is_empty", with = "hex_hashes")]
    pub tokens: Vec<crate::remote::token::TokenHash>,
    /// Whether the name was given (a spec's `name`) rather than derived from the command:
    /// a bot named by its command may be named by its own `ready.name` instead (see
    /// [`crate::supervise::bot_spec::naming::ready_name`]).
    #[serde(skip)]
    pub name_given: NameGiven,
}

/// Whether a bot's name was given ([`BotSpec::name_given`]). Not part of what a bot is:
/// two specs that differ only in it are equal, and it is not saved.
#[derive(Clone, Copy, Debug, Default)]
pub struct NameGiven(pub bool);

impl PartialEq for NameGiven {
    fn eq(&self, _other: &NameGiven) -> bool {
        true
    }
}

impl Eq for NameGiven {}

/// Token hashes as lists of hex strings.
mod hex_hashes {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::remote::token::{TokenHash, hex, parse_hash};

    pub fn serialize<S: Serializer>(hashes: &[TokenHash], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(hashes.iter().map(|h| hex(h)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TokenHash>, D::Error> {
        let texts = Vec::<String>::deserialize(d)?;
        texts.iter().map(|t| parse_hash(t).map_err(serde::de::Error::custom)).collect()
    }
}

/// The command a remote bot's spec records: `remote:NAME`.
pub const REMOTE_PREFIX: &str = "remote:";

/// The protocol a bot speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// The JSON protocol of protocol.md.
    #[default]
    Json,
    /// The line protocol of the UCC Programming Competition 2012 (one game per process,
    /// no clocks, the bot chooses its own setup); see ucc2012.md.
    Ucc2012,
}

impl Protocol {
    /// True for the JSON protocol (the default, not written out in specs and records).
    pub fn is_json(&self) -> bool {
        *self == Protocol::Json
    }
}

/// The prefix of a command-line bot argument that speaks the 2012 protocol:
/// `ucc2012:./agents/ramen/ramen`.
pub const UCC2012_PREFIX: &str = "ucc2012:";

fn is_false(b: &bool) -> bool {
    !*b
}

/// A bot's changes to the event's time control.
///
/// An override rather than a whole [`TimeControl`] because the event's time control is only
/// known once the command line and the tournament file are merged, and because a bot that
/// changes only its move time should still follow the event's setup and start-up limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControlOverride {
    /// Limit for each move (`move_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_time: Option<Duration>,
    /// Bank and increment (`tc`, `BANK+INC`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank: Option<(Duration, Duration)>,
    /// Limit for the setup (`setup_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<Duration>,
    /// Limit from start to `ready` (`startup_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup: Option<Duration>,
}

impl TimeControlOverride {
    /// True when the bot plays with the event's time control unchanged.
    pub fn is_empty(&self) -> bool {
        *self == TimeControlOverride::default()
    }

    /// The time control this bot plays with in an event played at `base`.
    ///
    /// The clock (move limit, bank, increment) is replaced as a whole when the bot sets a
    /// move time or a bank: a bot given only `tc = "60+1"` plays with that bank and no
    /// per-move limit, whatever the event's `move_time`, because a mix of the event's clock
    /// and the bot's is seldom what was meant. Setup and start-up limits replace the event's
    /// one by one.
    pub fn apply(&self, base: TimeControl) -> TimeControl {
        let mut tc = base;
        if self.move_time.is_some() || self.bank.is_some() {
            tc.move_limit = self.move_time;
            (tc.bank, tc.increment) = match self.bank {
                Some((bank, inc)) => (Some(bank), inc),
                None => (None, Duration::ZERO),
            };
        }
        tc.setup = self.setup.unwrap_or(tc.setup);
        tc.startup = self.startup.unwrap_or(tc.startup);
        tc
    }
}

/// Resource limits of a bot process, applied with setrlimit before exec (memory, CPU) or
/// counted by the host (output).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Address-space limit in bytes (`RLIMIT_AS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    /// CPU-time limit in seconds for the process (`RLIMIT_CPU`; SIGXCPU, then SIGKILL one
    /// second later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<u64>,
    /// Most bytes the bot may write to its standard output in one game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_bytes: Option<u64>,
    /// Niceness of the bot process (0 by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nice: Option<i32>,
    /// Run the bot in the sandbox ([`crate::supervise::sandbox`]: bubblewrap namespaces, cgroups).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<bool>,
    /// In the sandbox, keep the host's network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_net: Option<bool>,
    /// In the sandbox, most processes and threads at once (pids cgroup, else RLIMIT_NPROC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pids: Option<u32>,
    /// In the sandbox, the size of its private `/tmp` (and `/dev/shm`) in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_bytes: Option<u64>,
}

impl Limits {
    /// These limits, with unset ones taken from `defaults`.
    pub fn or(self, defaults: Limits) -> Limits {
        Limits {
            memory_bytes: self.memory_bytes.or(defaults.memory_bytes),
            cpu_seconds: self.cpu_seconds.or(defaults.cpu_seconds),
            output_bytes: self.output_bytes.or(defaults.output_bytes),
            nice: self.nice.or(defaults.nice),
            sandbox: self.sandbox.or(defaults.sandbox),
            sandbox_net: self.sandbox_net.or(defaults.sandbox_net),
            pids: self.pids.or(defaults.pids),
            disk_bytes: self.disk_bytes.or(defaults.disk_bytes),
        }
    }
}

/// Parses a size: bytes, or with a K, M or G suffix (powers of 1024): `512M`.
///
/// # Errors
/// A message quoting the text.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (num, mult) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = num.trim().parse().map_err(|_| format!("{text:?} is not a size like 512M"))?;
    n.checked_mul(mult).filter(|&v| v > 0).ok_or_else(|| format!("{text:?} is not a size like 512M"))
}

/// A bot spec as written, before its values are checked: a JSON spec (see [`BotSpec::parse`])
/// or a `[[bot]]` table of a tournament file (see [`crate::cli::config`]). Unknown keys are an
/// error so that a typo is not silently ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    /// `name`: the name in reports (default: [`default_name`] of the command).
    pub name: Option<String>,
    /// `command`: one string split like a shell would, or a list of arguments.
    pub command: Option<CommandForm>,
    /// `dir`: the working directory.
    pub dir: Option<PathBuf>,
    /// `env`: extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// `memory`: address-space limit, bytes or a size like `"512M"`.
    pub memory: Option<NumOrText>,
    /// `cpu_seconds`: CPU-time limit of the process.
    pub cpu_seconds: Option<u64>,
    /// `output`: most bytes written to stdout in one game, bytes or a size like `"64M"`.
    pub output: Option<NumOrText>,
    /// `nice`: niceness, 0 to 19.
    pub nice: Option<i32>,
    /// `sandbox`: run in the sandbox (bubblewrap; see [`crate::supervise::sandbox`]).
    pub sandbox: Option<bool>,
    /// `sandbox_net`: in the sandbox, keep the host's network.
    pub sandbox_net: Option<bool>,
    /// `pids`: in the sandbox, most processes and threads at once.
    pub pids: Option<u32>,
    /// `disk`: in the sandbox, the size of its private `/tmp`, bytes or a size like `"64M"`.
    pub disk: Option<NumOrText>,
    /// `move_time`: seconds a move.
    pub move_time: Option<NumOrText>,
    /// `tc`: `"BANK+INC"` in seconds, or just the bank.
    pub tc: Option<NumOrText>,
    /// `setup_time`: seconds for the setup.
    pub setup_time: Option<NumOrText>,
    /// `startup_time`: seconds from start to `ready`.
    pub startup_time: Option<NumOrText>,
    /// `own_setup`: choose its own setup even when the event has a setup book.
    #[serde(default)]
    pub own_setup: bool,
    /// `protocol`: `"json"` (the default) or `"ucc2012"`.
    #[serde(default)]
    pub protocol: Protocol,
    /// `remote`: the bot connects to the host (`--listen`) instead of being started by it.
    #[serde(default)]
    pub remote: bool,
    /// `token_sha256`: a remote bot's token hash, or a list of them (from
    /// `stratego-host token`).
    pub token_sha256: Option<OneOrMany>,
    /// `token_file`: a file of token hashes (or tokens), one a line.
    pub token_file: Option<PathBuf>,
}

/// A string or a list of strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OneOrMany(pub Vec<String>);

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OneOrMany, E> {
                Ok(OneOrMany(vec![v.to_owned()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany, A::Error> {
                let mut all = Vec::new();
                while let Some(a) = seq.next_element::<String>()? {
                    all.push(a);
                }
                Ok(OneOrMany(all))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// The `command` of a [`RawSpec`]: a command line or a list of arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandForm {
    /// `"python3 bot.py --fast"`, split like a shell would.
    Line(String),
    /// `["python3", "bot.py", "--fast"]`.
    Args(Vec<String>),
}

impl<'de> Deserialize<'de> for CommandForm {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // By hand rather than `untagged`, whose error ("did not match any variant") does not
        // say what a command may look like.
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CommandForm;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a command line (a string) or a list of arguments")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CommandForm, E> {
                Ok(CommandForm::Line(v.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CommandForm, A::Error> {
                let mut args = Vec::new();
                while let Some(a) = seq.next_element::<String>()? {
                    args.push(a);
                }
                Ok(CommandForm::Args(args))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// A value that may be written as a number or as a string (`0.5`, `"0.5"`, `"512M"`), kept
/// as text for the parser of its key, so that both forms get the same checks and messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumOrText(pub String);

impl<'de> Deserialize<'de> for NumOrText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = NumOrText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<NumOrText, E> {
                Ok(NumOrText(v.to_owned()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<NumOrText, E> {
                Ok(NumOrText(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<NumOrText, E> {
                Ok(NumOrText(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<NumOrText, E> {
                Ok(NumOrText(v.to_string()))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// What is wrong with a [`RawSpec`]: the key, and the problem with its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The key, as written in the spec (`move_time`).
    pub key: &'static str,
    /// What is wrong (`"fast" is not a number of seconds`).
    pub message: String,
}

/// Parses a number of seconds that must be more than zero (a move limit).
pub(crate) fn parse_positive_seconds(text: &str) -> Result<Duration, String> {
    let d = parse_seconds(text)?;
    if d.is_zero() {
        return Err("must be more than zero".to_owned());
    }
    Ok(d)
}

/// Parses `BANK+INC` (or a bank alone), with messages that quote the text but name no flag.
pub(crate) fn parse_bank(text: &str) -> Result<(Duration, Duration), String> {
    // parse_bank's messages start with "--tc "; here the caller names the key instead.
    TimeControl::parse_bank(text).map_err(|e| e.strip_prefix("--tc ").map(str::to_owned).unwrap_or(e))
}

impl RawSpec {
    /// Checks every value and builds the spec. Also returns whether the name was given
    /// (the `explicit` flag of [`assign_unique_names`]).
    ///
    /// Paths (`dir`) are kept as written: the caller knows what they are relative to.
    ///
    /// # Errors
    /// The first bad value, with its key.
    pub fn build(self) -> Result<(BotSpec, bool), SpecError> {
        let err = |key, message: String| SpecError { key, message };
        let mut tokens = Vec::new();
        for h in self.token_sha256.iter().flat_map(|m| m.0.iter()) {
            tokens.push(crate::remote::token::parse_hash(h).map_err(|e| err("token_sha256", e))?);
        }
        if let Some(path) = &self.token_file {
            tokens.extend(crate::remote::token::read_hash_file(path).map_err(|e| err("token_file", e))?);
        }
        if !self.remote && (self.token_sha256.is_some() || self.token_file.is_some()) {
            return Err(err("remote", "a token is given but not remote = true".to_owned()));
        }
        if self.remote {
            return self.build_remote(tokens);
        }
        self.build_local()
    }

    /// [`RawSpec::build`] of a remote bot, with its token hashes `tokens`.
    fn build_remote(self, tokens: Vec<crate::remote::token::TokenHash>) -> Result<(BotSpec, bool), SpecError> {
        let err = |key, message: String| SpecError { key, message };
        let name = match &self.name {
            Some(n) if !n.trim().is_empty() => n.clone(),
            _ => {
                return Err(err(
                    "name",
                    "a remote bot needs a name (the host starts no program to name it by)".to_owned(),
                ));
            }
        };
        if self.command.is_some() {
            return Err(err(
                "command",
                "a remote bot has no command on the host (its entrant runs it with `stratego-host connect`)".to_owned(),
            ));
        }
        if tokens.is_empty() {
            return Err(err(
                "token_sha256",
                "a remote bot needs token_sha256 or token_file (made by `stratego-host token`)".to_owned(),
            ));
        }
        if self.protocol != Protocol::Json {
            return Err(err("protocol", "a remote bot speaks the JSON protocol".to_owned()));
        }
        let tc_override = time_override(self.move_time, self.tc, self.setup_time, self.startup_time)?;
        let spec = BotSpec {
            command: vec![format!("{REMOTE_PREFIX}{name}")],
            name,
            dir: None,
            env: BTreeMap::new(),
            limits: Limits::default(),
            tc_override,
            own_setup: self.own_setup,
            protocol: Protocol::Json,
            remote: true,
            tokens,
            name_given: NameGiven(true),
        };
        Ok((spec, true))
    }

    /// [`RawSpec::build`] of a bot the host starts.
    fn build_local(self) -> Result<(BotSpec, bool), SpecError> {
        let err = |key, message: String| SpecError { key, message };
        let command = match self.command {
            None => return Err(err("command", "missing (the program to run and its arguments)".to_owned())),
            Some(CommandForm::Line(line)) => shell_words::split(&line).map_err(|e| err("command", format!("{e}")))?,
            Some(CommandForm::Args(args)) => args,
        };
        if command.first().is_none_or(|p| p.is_empty()) {
            return Err(err("command", "empty".to_owned()));
        }
        let explicit = self.name.is_some();
        let name = match self.name {
            Some(n) if n.trim().is_empty() => return Err(err("name", "empty".to_owned())),
            Some(n) => n,
            None => default_name(&command),
        };
        let size = |key, v: Option<NumOrText>| v.map(|t| parse_size(&t.0).map_err(|e| err(key, e))).transpose();
        if self.cpu_seconds == Some(0) {
            return Err(err("cpu_seconds", "must be at least 1".to_owned()));
        }
        if self.nice.is_some_and(|n| !(0..=19).contains(&n)) {
            return Err(err("nice", "must be 0 to 19".to_owned()));
        }
        let limits = Limits {
            memory_bytes: size("memory", self.memory)?,
            cpu_seconds: self.cpu_seconds,
            output_bytes: size("output", self.output)?,
            nice: self.nice,
            sandbox: self.sandbox,
            sandbox_net: self.sandbox_net,
            pids: self.pids,
            disk_bytes: size("disk", self.disk)?,
        };
        if self.pids == Some(0) {
            return Err(err("pids", "must be at least 1".to_owned()));
        }
        let tc_override = time_override(self.move_time, self.tc, self.setup_time, self.startup_time)?;
        // A 2012 bot cannot be told a setup: it always chooses its own.
        let own_setup = self.own_setup || self.protocol == Protocol::Ucc2012;
        let spec = BotSpec {
            name,
            command,
            dir: self.dir,
            env: self.env,
            limits,
            tc_override,
            own_setup,
            protocol: self.protocol,
            remote: false,
            tokens: Vec::new(),
            name_given: NameGiven(explicit),
        };
        Ok((spec, explicit))
    }
}

/// A spec's own clocks (`move_time`, `tc`, `setup_time`, `startup_time`), each checked; a
/// bad one is named by its key. Local and remote bots alike.
fn time_override(
    move_time: Option<NumOrText>,
    tc: Option<NumOrText>,
    setup_time: Option<NumOrText>,
    startup_time: Option<NumOrText>,
) -> Result<TimeControlOverride, SpecError> {
    let err = |key, message: String| SpecError { key, message };
    let seconds = |key, v: Option<NumOrText>| v.map(|t| parse_seconds(&t.0).map_err(|e| err(key, e))).transpose();
    Ok(TimeControlOverride {
        move_time: move_time.map(|t| parse_positive_seconds(&t.0).map_err(|e| err("move_time", e))).transpose()?,
        bank: tc.map(|t| parse_bank(&t.0).map_err(|e| err("tc", e))).transpose()?,
        setup: seconds("setup_time", setup_time)?,
        startup: seconds("startup_time", startup_time)?,
    })
}

/// The word that names the built-in sample bot when no program of that name is on PATH.
pub const SAMPLE_BOT: &str = "sample-bot";

impl BotSpec {
    /// Parses a bot argument: a JSON object (`{"name": …, "command": "prog args" or
    /// [..], "dir": …, "env": {…}}`, and the other keys of [`RawSpec`]), `@FILE` holding such
    /// an object, or a command line quoted as one string (`"python3 bot.py --fast"`), which
    /// speaks the 2012 protocol when it starts with `ucc2012:` (`"ucc2012:./ramen"`).
    ///
    /// # Errors
    /// A message naming what is wrong with the argument.
    pub fn parse(arg: &str) -> Result<BotSpec, String> {
        BotSpec::parse_with_name_given(arg).map(|(spec, _)| spec)
    }

    /// [`BotSpec::parse`], also saying whether the argument gave the bot a name (a JSON
    /// spec's `"name"`), for [`assign_unique_names`].
    ///
    /// # Errors
    /// A message naming what is wrong with the argument.
    pub fn parse_with_name_given(arg: &str) -> Result<(BotSpec, bool), String> {
        let arg = arg.trim();
        let (json, source) = if let Some(path) = arg.strip_prefix('@') {
            (std::fs::read_to_string(path).map_err(|e| format!("bot spec file {path}: {e}"))?, path.to_owned())
        } else if arg.starts_with('{') {
            (arg.to_owned(), "bot spec".to_owned())
        } else {
            let (protocol, line) = match arg.strip_prefix(UCC2012_PREFIX) {
                Some(rest) => (Protocol::Ucc2012, rest.trim_start()),
                None => (Protocol::Json, arg),
            };
            let command = shell_words::split(line).map_err(|e| format!("bot command {arg:?}: {e}"))?;
            if command.is_empty() {
                return Err("empty bot command".to_owned());
            }
            let spec = BotSpec {
                name: default_name(&command),
                command,
                dir: None,
                env: BTreeMap::new(),
                limits: Limits::default(),
                tc_override: TimeControlOverride::default(),
                own_setup: protocol == Protocol::Ucc2012,
                protocol,
                remote: false,
                tokens: Vec::new(),
                name_given: NameGiven(false),
            };
            return Ok((spec, false));
        };
        let raw: RawSpec = serde_json::from_str(&json).map_err(|e| format!("{source}: {e}"))?;
        raw.build().map_err(|e| format!("{source}: {}: {}", e.key, e.message))
    }

    /// The built-in sample bot (this executable's `sample-bot` subcommand) with `args`.
    pub fn sample_bot(args: &[&str]) -> BotSpec {
        let exe = std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "stratego-host".into());
        let mut command = vec![exe, SAMPLE_BOT.to_owned()];
        command.extend(args.iter().map(|s| s.to_string()));
        BotSpec {
            name: default_name(&command),
            command,
            dir: None,
            env: BTreeMap::new(),
            limits: Limits::default(),
            tc_override: TimeControlOverride::default(),
            own_setup: false,
            protocol: Protocol::Json,
            remote: false,
            tokens: Vec::new(),
            name_given: NameGiven(false),
        }
    }

    /// The command as a saved plan names it: the built-in sample bot (this executable's
    /// `sample-bot` subcommand) is `sample-bot ARGS`, not this executable's path, so that a
    /// plan does not depend on where the host is installed (issue #32, item 5).
    pub fn plan_command(&self) -> Vec<String> {
        if is_builtin(&self.command) {
            return self.command[1..].to_vec();
        }
        self.command.clone()
    }

    /// Replaces a program named `sample-bot` that is not on PATH by the built-in one. When
    /// one is on PATH, it is the bot, and a warning says so (once per program), naming it
    /// and how to run the built-in one instead (issue #44, item 14).
    pub fn resolve_builtin(self) -> BotSpec {
        if self.remote {
            return self;
        }
        if self.command[0] == SAMPLE_BOT {
            match find_program(SAMPLE_BOT, self.dir.as_deref()) {
                Err(_) => {
                    let args: Vec<&str> = self.command[1..].iter().map(String::as_str).collect();
                    let builtin = BotSpec::sample_bot(&args);
                    return BotSpec { command: builtin.command, ..self };
                }
                Ok(path) => warn_sample_bot_on_path(&self.name, &path),
            }
        }
        self
    }

    /// Checks that the program exists and is executable, before any game starts.
    ///
    /// # Errors
    /// What is wrong, naming the program.
    pub fn check_startable(&self) -> Result<PathBuf, String> {
        if self.remote {
            // Started by its entrant, on its own machine.
            return Ok(PathBuf::from(&self.command[0]));
        }
        if let Some(dir) = &self.dir {
            if !dir.is_dir() {
                return Err(format!("bot {}: working directory {} does not exist", self.name, dir.display()));
            }
        }
        find_program(&self.command[0], self.dir.as_deref()).map_err(|e| format!("bot {}: {e}", self.name))
    }
}

/// Says once per program that bot `name`'s `sample-bot` is the program at `path`, not the
/// built-in sample bot.
fn warn_sample_bot_on_path(name: &str, path: &Path) {
    static WARNED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if warned.iter().any(|p| p == path) {
        return;
    }
    warned.push(path.to_owned());
    crate::notice::warn(format_args!(
        "bot {name}: `{SAMPLE_BOT}` is {} (found on PATH), not the built-in sample bot; to play the \
         built-in one, give the command `stratego-host {SAMPLE_BOT} …` with the host's path",
        path.display()
    ));
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

fn find_program(program: &str, dir: Option<&Path>) -> Result<PathBuf, String> {
    if program.contains('/') {
        let path = match dir {
            Some(d) if Path::new(program).is_relative() => d.join(program),
            _ => PathBuf::from(program),
        };
        if !path.exists() {
            return Err(format!("program {} does not exist", path.display()));
        }
        if !is_executable(&path) {
            return Err(format!("program {} is not executable", path.display()));
        }
        return Ok(path);
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    for d in std::env::split_paths(&path_var) {
        let candidate = d.join(program);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(format!("program {program:?} is not found on PATH"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_and_json_specs_parse() {
        let s = BotSpec::parse("python3 'my bot.py' --fast").unwrap();
        assert_eq!(s.command, ["python3", "my bot.py", "--fast"]);
        assert_eq!(s.name, "my bot", "an interpreter's script names the bot");
        assert_eq!(BotSpec::parse("./engines/alpha -t 2").unwrap().name, "alpha");
        let s =
            BotSpec::parse(r#"{"name": "b", "command": ["./x", "a b"], "dir": "/tmp", "env": {"K": "V"}}"#).unwrap();
        assert_eq!((s.name.as_str(), s.command.len(), s.env["K"].as_str()), ("b", 2, "V"));
        assert!(BotSpec::parse(r#"{"command": "x", "bogus": 1}"#).unwrap_err().contains("unknown field `bogus`"));
        assert!(BotSpec::parse("").is_err());
        let s = BotSpec::parse(r#"{"command": "x", "memory": "512M", "cpu_seconds": 60, "output": "1G", "nice": 5}"#)
            .unwrap();
        assert_eq!(
            s.limits,
            Limits {
                memory_bytes: Some(512 << 20),
                cpu_seconds: Some(60),
                output_bytes: Some(1 << 30),
                nice: Some(5),
                ..Limits::default()
            }
        );
        let s = BotSpec::parse(r#"{"command": "x", "sandbox": true, "sandbox_net": true, "pids": 64, "disk": "16M"}"#)
            .unwrap();
        let l = s.limits;
        assert_eq!(
            (l.sandbox, l.sandbox_net, l.pids, l.disk_bytes),
            (Some(true), Some(true), Some(64), Some(16 << 20))
        );
        assert_eq!(BotSpec::parse(r#"{"command": "x", "pids": 0}"#).unwrap_err(), "bot spec: pids: must be at least 1");
        assert!(
            BotSpec::parse(r#"{"command": "x", "disk": "big"}"#).unwrap_err().contains("disk: \"big\" is not a size")
        );
        assert!(
            BotSpec::parse(r#"{"command": "x", "memory": "lots"}"#)
                .unwrap_err()
                .contains("memory: \"lots\" is not a size")
        );
    }

    #[test]
    fn the_protocol_comes_from_a_prefix_or_the_spec_and_implies_own_setup() {
        let s = BotSpec::parse("ucc2012:python2 -u agents/vixen/vixen.py").unwrap();
        assert_eq!((s.protocol, s.own_setup, s.name.as_str()), (Protocol::Ucc2012, true, "vixen"));
        assert_eq!(s.command, ["python2", "-u", "agents/vixen/vixen.py"]);
        let s = BotSpec::parse(r#"{"command": "./ramen", "protocol": "ucc2012"}"#).unwrap();
        assert_eq!((s.protocol, s.own_setup), (Protocol::Ucc2012, true));
        let s = BotSpec::parse("./bot").unwrap();
        assert_eq!((s.protocol, s.own_setup), (Protocol::Json, false));
        let json = serde_json::to_string(&s).unwrap();
        assert!(!json.contains("protocol"), "the default is not written: {json}");
        let e = BotSpec::parse(r#"{"command": "x", "protocol": "uci"}"#).unwrap_err();
        assert!(e.contains("unknown variant `uci`, expected `json` or `ucc2012`"), "{e}");
        assert_eq!(BotSpec::parse("ucc2012:").unwrap_err(), "empty bot command");
    }

    #[test]
    fn missing_programs_are_reported_before_any_game() {
        let s = BotSpec::parse("/nonexistent/bot").unwrap();
        assert_eq!(s.check_startable().unwrap_err(), "bot bot: program /nonexistent/bot does not exist");
        let s = BotSpec::parse("no-such-program-xyz").unwrap();
        assert!(s.check_startable().unwrap_err().contains("not found on PATH"));
    }

    #[test]
    fn json_specs_carry_time_odds_and_own_setup() {
        let s = BotSpec::parse(
            r#"{"command": "x", "move_time": 0.05, "tc": "60+0.5", "setup_time": "5", "startup_time": 2,
                "own_setup": true}"#,
        )
        .unwrap();
        assert!(s.own_setup);
        let secs = Duration::from_secs_f64;
        assert_eq!(
            s.tc_override,
            TimeControlOverride {
                move_time: Some(secs(0.05)),
                bank: Some((secs(60.0), secs(0.5))),
                setup: Some(secs(5.0)),
                startup: Some(secs(2.0)),
            }
        );
        assert_eq!(
            BotSpec::parse(r#"{"command": "x", "move_time": "fast"}"#).unwrap_err(),
            "bot spec: move_time: \"fast\" is not a number of seconds"
        );
        assert_eq!(
            BotSpec::parse(r#"{"command": "x", "move_time": 0}"#).unwrap_err(),
            "bot spec: move_time: must be more than zero"
        );
        assert_eq!(
            BotSpec::parse(r#"{"command": "x", "tc": "x+1"}"#).unwrap_err(),
            "bot spec: tc: \"x+1\": bank: \"x\" is not a number of seconds"
        );
        assert_eq!(BotSpec::parse(r#"{"command": []}"#).unwrap_err(), "bot spec: command: empty");
        assert_eq!(BotSpec::parse(r#"{"command": "x", "nice": -5}"#).unwrap_err(), "bot spec: nice: must be 0 to 19");
        // Defaults are not written out, so records of bots without odds do not change.
        let json = serde_json::to_string(&BotSpec::parse("x").unwrap()).unwrap();
        assert!(!json.contains("tc_override") && !json.contains("own_setup"), "{json}");
        let back: BotSpec = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn a_bots_clock_replaces_the_events_and_other_limits_one_by_one() {
        let ms = Duration::from_millis;
        let event = TimeControl {
            startup: ms(10_000),
            setup: ms(10_000),
            move_limit: Some(ms(1000)),
            bank: None,
            increment: ms(0),
            margin: ms(3),
        };
        assert_eq!(TimeControlOverride::default().apply(event), event);
        let bank_only = TimeControlOverride { bank: Some((ms(60_000), ms(500))), ..Default::default() };
        assert_eq!(
            bank_only.apply(event),
            TimeControl { move_limit: None, bank: Some(ms(60_000)), increment: ms(500), ..event }
        );
        let fast = TimeControlOverride { move_time: Some(ms(50)), setup: Some(ms(1000)), ..Default::default() };
        let banked = TimeControl { bank: Some(ms(60_000)), increment: ms(100), ..event };
        assert_eq!(
            fast.apply(banked),
            TimeControl { move_limit: Some(ms(50)), bank: None, increment: ms(0), setup: ms(1000), ..event }
        );
    }
}
