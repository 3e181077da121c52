//! Which program a bot is: a command line, or a small JSON spec.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How to start a bot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotSpec {
    /// Name shown in reports (defaults to the program's file name).
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
}

impl Limits {
    /// These limits, with unset ones taken from `defaults`.
    pub fn or(self, defaults: Limits) -> Limits {
        Limits {
            memory_bytes: self.memory_bytes.or(defaults.memory_bytes),
            cpu_seconds: self.cpu_seconds.or(defaults.cpu_seconds),
            output_bytes: self.output_bytes.or(defaults.output_bytes),
            nice: self.nice.or(defaults.nice),
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    name: Option<String>,
    command: CommandForm,
    dir: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    memory: Option<String>,
    cpu_seconds: Option<u64>,
    output: Option<String>,
    nice: Option<i32>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CommandForm {
    Line(String),
    Args(Vec<String>),
}

/// The word that names the built-in sample bot when no program of that name is on PATH.
pub const SAMPLE_BOT: &str = "sample-bot";

impl BotSpec {
    /// Parses a bot argument: a JSON object (`{"name": …, "command": "prog args" or
    /// [..], "dir": …, "env": {…}}`), `@FILE` holding such an object, or a command line
    /// quoted as one string (`"python3 bot.py --fast"`).
    ///
    /// # Errors
    /// A message naming what is wrong with the argument.
    pub fn parse(arg: &str) -> Result<BotSpec, String> {
        let arg = arg.trim();
        let (json, source) = if let Some(path) = arg.strip_prefix('@') {
            (std::fs::read_to_string(path).map_err(|e| format!("bot spec file {path}: {e}"))?, path.to_owned())
        } else if arg.starts_with('{') {
            (arg.to_owned(), "bot spec".to_owned())
        } else {
            let command = shell_words::split(arg).map_err(|e| format!("bot command {arg:?}: {e}"))?;
            if command.is_empty() {
                return Err("empty bot command".to_owned());
            }
            return Ok(BotSpec {
                name: default_name(&command),
                command,
                dir: None,
                env: BTreeMap::new(),
                limits: Limits::default(),
            });
        };
        let raw: RawSpec = serde_json::from_str(&json).map_err(|e| format!("{source}: {e}"))?;
        let command = match raw.command {
            CommandForm::Line(l) => shell_words::split(&l).map_err(|e| format!("{source}: command: {e}"))?,
            CommandForm::Args(a) => a,
        };
        if command.is_empty() {
            return Err(format!("{source}: command: empty"));
        }
        let size = |field: &str, v: &Option<String>| -> Result<Option<u64>, String> {
            v.as_deref().map(|t| parse_size(t).map_err(|e| format!("{source}: {field}: {e}"))).transpose()
        };
        let limits = Limits {
            memory_bytes: size("memory", &raw.memory)?,
            cpu_seconds: raw.cpu_seconds,
            output_bytes: size("output", &raw.output)?,
            nice: raw.nice,
        };
        Ok(BotSpec {
            name: raw.name.unwrap_or_else(|| default_name(&command)),
            command,
            dir: raw.dir,
            env: raw.env,
            limits,
        })
    }

    /// The built-in sample bot (this executable's `sample-bot` subcommand) with `args`.
    pub fn sample_bot(args: &[&str]) -> BotSpec {
        let exe = std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_else(|_| "stratego-host".into());
        let mut command = vec![exe, SAMPLE_BOT.to_owned()];
        command.extend(args.iter().map(|s| s.to_string()));
        BotSpec { name: SAMPLE_BOT.to_owned(), command, dir: None, env: BTreeMap::new(), limits: Limits::default() }
    }

    /// Replaces a program named `sample-bot` that is not on PATH by the built-in one.
    pub fn resolve_builtin(self) -> BotSpec {
        if self.command[0] == SAMPLE_BOT && find_program(SAMPLE_BOT, self.dir.as_deref()).is_err() {
            let args: Vec<&str> = self.command[1..].iter().map(String::as_str).collect();
            let mut builtin = BotSpec::sample_bot(&args);
            builtin.name = self.name;
            builtin.dir = self.dir;
            builtin.env = self.env;
            builtin.limits = self.limits;
            return builtin;
        }
        self
    }

    /// Checks that the program exists and is executable, before any game starts.
    ///
    /// # Errors
    /// What is wrong, naming the program.
    pub fn check_startable(&self) -> Result<PathBuf, String> {
        if let Some(dir) = &self.dir {
            if !dir.is_dir() {
                return Err(format!("bot {}: working directory {} does not exist", self.name, dir.display()));
            }
        }
        find_program(&self.command[0], self.dir.as_deref()).map_err(|e| format!("bot {}: {e}", self.name))
    }
}

/// The program's file name; for an interpreter (`python3 bot.py`), the script's.
fn default_name(command: &[String]) -> String {
    let file_name =
        |p: &str| Path::new(p).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_else(|| p.to_owned());
    let program = file_name(&command[0]);
    let interpreter =
        ["python", "python3", "node", "nodejs", "ruby", "perl", "php", "bash", "sh", "java", "deno", "bun", "lua"]
            .contains(&program.as_str());
    match command[1..].iter().find(|a| !a.starts_with('-')) {
        Some(script) if interpreter => file_name(script),
        _ => program,
    }
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
        assert_eq!(s.name, "my bot.py", "an interpreter's script names the bot");
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
            Limits { memory_bytes: Some(512 << 20), cpu_seconds: Some(60), output_bytes: Some(1 << 30), nice: Some(5) }
        );
        assert!(
            BotSpec::parse(r#"{"command": "x", "memory": "lots"}"#)
                .unwrap_err()
                .contains("memory: \"lots\" is not a size")
        );
    }

    #[test]
    fn missing_programs_are_reported_before_any_game() {
        let s = BotSpec::parse("/nonexistent/bot").unwrap();
        assert_eq!(s.check_startable().unwrap_err(), "bot bot: program /nonexistent/bot does not exist");
        let s = BotSpec::parse("no-such-program-xyz").unwrap();
        assert!(s.check_startable().unwrap_err().contains("not found on PATH"));
    }
}
