//! The name a bot goes by when its spec gives none ([`default_name`], from its command),
//! and names made unique among an event's bots ([`assign_unique_names`]).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use super::{BotSpec, SAMPLE_BOT};

/// Interpreters, without version suffix (`python3.12` is `python`): for these the script,
/// not the interpreter, names the bot.
const INTERPRETERS: &[&str] = &[
    "python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "luajit", "bash", "sh", "dash",
    "zsh", "java", "julia", "Rscript",
];

/// Interpreter flags whose value is the next argument, which is not the script.
const FLAGS_WITH_VALUE: &[&str] = &["-cp", "-classpath", "--class-path", "-X", "-W"];

/// The name a bot goes by when its spec gives none. It depends only on the command, so a
/// bot keeps its name whatever it plays against:
///
/// - the sample bot (`sample-bot …`, or this host's `sample-bot` subcommand as
///   [`BotSpec::resolve_builtin`] makes it): `sample-bot-STRATEGY`, with the `--strategy`
///   argument or the sample bot's default (`sample-bot --strategy random` is
///   `sample-bot-random`, `sample-bot` is `sample-bot-heuristic`);
/// - an interpreter (python, python3, pypy, node, deno, bun, ruby, perl, php, lua, bash,
///   sh, java, …): the file stem of its first argument that is not a flag, the script
///   (`python3 bots/my_bot.py` is `my_bot`, `java -jar alpha.jar` is `alpha`);
/// - any other program: its file name (`./engines/alpha -t 2` is `alpha`);
/// - `env [VAR=VALUE…] COMMAND`: the name of `COMMAND` (`env GOMAXPROCS=1 bots/go` is `go`).
///
/// # Panics
/// If `command` is empty.
pub fn default_name(command: &[String]) -> String {
    let command = without_env(command);
    let file_name =
        |p: &str| Path::new(p).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_else(|| p.to_owned());
    let program = file_name(&command[0]);
    let sample_args = if program == SAMPLE_BOT {
        Some(&command[1..])
    } else if command.get(1).is_some_and(|a| a == SAMPLE_BOT) && is_this_host(&command[0]) {
        Some(&command[2..])
    } else {
        None
    };
    if let Some(args) = sample_args {
        if let Some(strategy) = sample_bot_strategy(args) {
            return format!("{SAMPLE_BOT}-{strategy}");
        }
        return SAMPLE_BOT.to_owned();
    }
    match script_index(command) {
        Some(i) => {
            let a = &command[i];
            Path::new(a).file_stem().map(|f| f.to_string_lossy().into_owned()).unwrap_or_else(|| a.clone())
        }
        None => program,
    }
}

/// `command` without a leading `env [-FLAG…] [VAR=VALUE…]` (`env GOMAXPROCS=1 bots/go` is
/// `bots/go`), so that the program `env` runs names the bot; the whole command when that
/// leaves nothing.
fn without_env(command: &[String]) -> &[String] {
    if command.len() < 2 || Path::new(&command[0]).file_name().is_none_or(|f| f != "env") {
        return command;
    }
    let skip = command[1..].iter().take_while(|a| a.contains('=') || a.starts_with('-')).count();
    if 1 + skip < command.len() { &command[1 + skip..] } else { command }
}

/// When `command` starts with a known interpreter (python, node, java, …): the index of its
/// script, the first argument that is not a flag (`java -jar alpha.jar`: `alpha.jar`).
pub fn script_index(command: &[String]) -> Option<usize> {
    let program = Path::new(&command[0]).file_name()?.to_string_lossy().into_owned();
    let interpreter = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !INTERPRETERS.contains(&interpreter) {
        return None;
    }
    let mut i = 1;
    while i < command.len() {
        let a = command[i].as_str();
        if FLAGS_WITH_VALUE.contains(&a) {
            i += 1;
        } else if !(a.starts_with('-') || (a == "run" && matches!(interpreter, "deno" | "bun"))) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Whether `program` is this executable (what [`BotSpec::sample_bot`] runs).
fn is_this_host(program: &str) -> bool {
    Path::new(program).file_name().is_some_and(|f| f == "stratego-host")
        || std::env::current_exe().is_ok_and(|exe| exe == Path::new(program))
}

/// Whether `command` runs this executable's `sample-bot` subcommand (what
/// [`BotSpec::sample_bot`] makes).
pub fn is_builtin(command: &[String]) -> bool {
    command.len() > 1
        && command[1] == SAMPLE_BOT
        && std::env::current_exe().is_ok_and(|exe| exe == Path::new(&command[0]))
}

/// The strategy the sample bot plays with these arguments, as the sample bot itself parses
/// them (so its default strategy is not repeated here); `None` when they do not parse.
fn sample_bot_strategy(args: &[String]) -> Option<String> {
    use clap::{Parser, ValueEnum};
    let argv = std::iter::once(SAMPLE_BOT).chain(args.iter().map(String::as_str));
    let parsed = stratego_sample_bot::Args::try_parse_from(argv).ok()?;
    parsed.strategy.to_possible_value().map(|v| v.get_name().to_owned())
}

/// Two bots were given the same name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateName {
    /// The name.
    pub name: String,
    /// Index of the first bot with that name.
    pub first: usize,
    /// Index of the second.
    pub second: usize,
}

impl fmt::Display for DuplicateName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "two bots are named {:?} (bots {} and {})", self.name, self.first + 1, self.second + 1)
    }
}

impl std::error::Error for DuplicateName {}

/// Makes the names of `bots` unique. `explicit[i]` says whether bot `i`'s name was given
/// by its spec rather than derived from its command ([`default_name`]); bots past the end
/// of `explicit` count as not named.
///
/// Given names and derived names that no other bot has are kept. When several bots derive
/// the same name, the first keeps it and each other one is named after the directory of its
/// script or program that tells it apart from the first (`python3 examples/python/bot.py`
/// and `node examples/javascript/bot.js` are `bot` and `bot-javascript`), else after the
/// arguments that do (`sample-bot --strategy search --worlds 4` and `… --worlds
/// 8` are `sample-bot-search` and `sample-bot-search-worlds-8`), or, when none do (the same
/// command twice) or that name is taken, gets `-2`, `-3`, … in order (`bot`, `bot-2`,
/// `bot-3`), skipping names already used; a derived name that equals a given one
/// is suffixed the same way. So a bot's name depends only on the list of bots, never on
/// which of them play a given game.
///
/// # Errors
/// Two bots given the same name: that is a mistake in the bot list, not something to guess
/// around.
pub fn assign_unique_names(bots: &mut [BotSpec], explicit: &[bool]) -> Result<(), DuplicateName> {
    let is_explicit = |i: usize| explicit.get(i).copied().unwrap_or(false);
    let mut given: HashMap<String, usize> = HashMap::new();
    for (i, bot) in bots.iter().enumerate().filter(|&(i, _)| is_explicit(i)) {
        if let Some(&first) = given.get(&bot.name) {
            return Err(DuplicateName { name: bot.name.clone(), first, second: i });
        }
        given.insert(bot.name.clone(), i);
    }
    // Every derived name is kept by one bot, so no suffixed name may take it.
    let mut taken: HashSet<String> = bots.iter().map(|b| b.name.clone()).collect();
    let mut kept: HashSet<String> = HashSet::new();
    let mut next_suffix: HashMap<String, u32> = HashMap::new();
    let mut first_command: HashMap<String, Vec<String>> = HashMap::new();
    for (i, bot) in bots.iter_mut().enumerate() {
        if is_explicit(i) || (!given.contains_key(&bot.name) && kept.insert(bot.name.clone())) {
            first_command.entry(bot.name.clone()).or_insert_with(|| bot.command.clone());
            continue;
        }
        // Named after what tells it apart from the first bot of that name, when its
        // arguments do (`--worlds 8`: `sample-bot-search-worlds-8`); else numbered.
        if let Some(words) = first_command.get(&bot.name).map(|first| distinguishing_words(first, &bot.command)) {
            let candidate = format!("{}-{words}", bot.name);
            if !words.is_empty() && taken.insert(candidate.clone()) {
                bot.name = candidate;
                continue;
            }
        }
        let k = next_suffix.entry(bot.name.clone()).or_insert(2);
        loop {
            let candidate = format!("{}-{k}", bot.name);
            *k += 1;
            if taken.insert(candidate.clone()) {
                bot.name = candidate;
                break;
            }
        }
    }
    Ok(())
}

/// The arguments of `command` that `first` does not have at the same place, each value with
/// the flag before it, as one name-safe word (`--worlds 8` against `--worlds 4`:
/// `worlds-8`); empty when nothing differs or the result would be long.
fn distinguishing_words(first: &[String], command: &[String]) -> String {
    let mut words: Vec<&str> = Vec::new();
    if let Some(dir) = differing_dir(named_path(first), named_path(command)) {
        words.push(dir);
    }
    let from = if words.is_empty() { 1 } else { command.len() };
    for (i, a) in command.iter().enumerate().skip(from) {
        if first.get(i) == Some(a) {
            continue;
        }
        if !a.starts_with('-')
            && i > 1
            && command[i - 1].starts_with('-')
            && words.last() != Some(&command[i - 1].as_str())
        {
            words.push(&command[i - 1]);
        }
        words.push(a);
    }
    let word: String = words
        .iter()
        .map(|w| w.trim_start_matches('-'))
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '_' { c } else { '-' })
        .collect();
    if word.len() > 32 { String::new() } else { word }
}

/// The argument of `command` that [`default_name`] names the bot after: the script of an
/// interpreter, else the program (after a leading `env …`).
fn named_path(command: &[String]) -> &str {
    let command = without_env(command);
    script_index(command).map_or(command[0].as_str(), |i| command[i].as_str())
}

/// The last directory of `path` that `other` does not have at the same place counted from
/// the file (`examples/javascript/bot.js` against `examples/python/bot.py`: `javascript`),
/// when there is one: what tells two bots of one file name apart (issue #44, item 14).
fn differing_dir<'a>(other: &str, path: &'a str) -> Option<&'a str> {
    let mut theirs = other.rsplit('/').skip(1);
    path.rsplit('/').skip(1).find(|d| theirs.next() != Some(*d)).filter(|d| !d.is_empty() && !d.starts_with('.'))
}

/// Most characters of a name a bot gives itself (`ready.name`) that the host takes for it.
pub const MAX_READY_NAME: usize = 40;

/// A bot's `ready.name` as its name in an event: trimmed; refused, saying why, when it is
/// empty, longer than [`MAX_READY_NAME`] characters, or holds a character that
/// [`crate::text::clean`] (the one sanitiser of text from bots) would escape: a control
/// character, DEL, a bidirectional override.
///
/// # Errors
/// Why the name is refused.
pub fn ready_name(answer: &str) -> Result<String, String> {
    let name = answer.trim();
    let length = name.chars().count();
    if name.is_empty() {
        return Err("it is empty".to_owned());
    }
    if length > MAX_READY_NAME {
        return Err(format!("{length} characters, more than {MAX_READY_NAME}"));
    }
    if crate::text::clean(name) != name {
        return Err("it holds control or bidirectional characters".to_owned());
    }
    Ok(name.to_owned())
}

/// The names an event's bots take from their own `ready.name`: `current[i]` is bot `i`'s
/// name now (given or derived from its command, unique), `answers[i]` its `ready.name` when
/// it was asked and answered. For each bot: `None` when it gave no answer; `Some(Ok(name))`
/// when it takes its answer; `Some(Err(why))` when it keeps its name, because the answer is
/// refused by [`ready_name`], is also another bot's answer (each of them keeps its name), or
/// is another bot's name now. So a bot's name never depends on the order of the answers.
pub fn names_from_answers(current: &[String], answers: &[Option<String>]) -> Vec<Option<Result<String, String>>> {
    let checked: Vec<Option<Result<String, String>>> = answers.iter().map(|a| a.as_deref().map(ready_name)).collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for name in checked.iter().flatten().flatten() {
        *count.entry(name.as_str()).or_default() += 1;
    }
    let shown = |a: &Option<String>| crate::text::clip(&crate::text::clean(a.as_deref().unwrap_or_default()));
    checked
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Some(match c.as_ref()? {
                Err(why) => Err(format!("its ready.name \"{}\" is refused: {why}", shown(&answers[i]))),
                Ok(name) if count[name.as_str()] > 1 => {
                    Err(format!("its ready.name \"{name}\" is another bot's answer too"))
                }
                Ok(name) if current.iter().enumerate().any(|(j, n)| j != i && n == name) => {
                    Err(format!("its ready.name \"{name}\" is another bot's name"))
                }
                Ok(name) => Ok(name.clone()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        shell_words::split(line).unwrap()
    }

    #[test]
    fn default_names_depend_only_on_the_command() {
        for (command, name) in [
            ("sample-bot", "sample-bot-heuristic"),
            ("sample-bot --strategy random", "sample-bot-random"),
            ("sample-bot --strategy=search --worlds 8", "sample-bot-search"),
            ("sample-bot --worlds 8 --strategy search", "sample-bot-search"),
            ("/usr/local/bin/sample-bot --strategy random", "sample-bot-random"),
            ("sample-bot --strategy nonsense", "sample-bot"),
            ("/opt/arena/stratego-host sample-bot --strategy random", "sample-bot-random"),
            ("python3 my_bot.py", "my_bot"),
            ("python3 -u bots/my_bot.py --fast", "my_bot"),
            ("python3.12 -X dev my_bot.py", "my_bot"),
            ("/usr/bin/python bot.py", "bot"),
            ("node --max-old-space-size=512 examples/javascript/bot.js", "bot"),
            ("deno run --allow-read bot.ts", "bot"),
            ("java -jar alpha.jar", "alpha"),
            ("java -cp lib/beta.jar Beta", "Beta"),
            ("bash run.sh", "run"),
            ("python3", "python3"),
            ("./engines/alpha -t 2", "alpha"),
            ("./bot.sh", "bot.sh"),
        ] {
            assert_eq!(default_name(&words(command)), name, "{command}");
        }
        assert_eq!(BotSpec::sample_bot(&[]).name, "sample-bot-heuristic");
        assert_eq!(BotSpec::sample_bot(&["--strategy", "random"]).name, "sample-bot-random");
        let resolved = BotSpec::parse("sample-bot --strategy random").unwrap().resolve_builtin();
        assert_eq!(default_name(&resolved.command), "sample-bot-random", "{:?}", resolved.command);
        assert_eq!(resolved.name, "sample-bot-random");
    }

    fn named(names: &[&str]) -> Vec<BotSpec> {
        names.iter().map(|n| BotSpec { name: n.to_string(), ..BotSpec::parse("x").unwrap() }).collect()
    }

    fn unique(names: &[&str], explicit: &[bool]) -> Result<Vec<String>, DuplicateName> {
        let mut bots = named(names);
        assign_unique_names(&mut bots, explicit)?;
        Ok(bots.into_iter().map(|b| b.name).collect())
    }

    #[test]
    fn shared_default_names_get_numbered_suffixes() {
        assert_eq!(unique(&["a", "b"], &[]).unwrap(), ["a", "b"]);
        assert_eq!(unique(&["bot", "x", "bot", "bot"], &[]).unwrap(), ["bot", "x", "bot-2", "bot-3"]);
        let mut bots: Vec<BotSpec> =
            ["sample-bot --strategy search --worlds 4", "sample-bot --strategy search --worlds 8"]
                .iter()
                .map(|c| BotSpec::parse(c).unwrap())
                .collect();
        assign_unique_names(&mut bots, &[]).unwrap();
        assert_eq!([&bots[0].name, &bots[1].name], ["sample-bot-search", "sample-bot-search-worlds-8"]);
        // A suffix never takes a name that another bot has.
        assert_eq!(unique(&["bot", "bot", "bot-2"], &[]).unwrap(), ["bot", "bot-3", "bot-2"]);
        assert_eq!(unique(&["bot", "bot-2", "bot", "bot-2"], &[]).unwrap(), ["bot", "bot-2", "bot-3", "bot-2-2"]);
        // A given name wins over a derived one, wherever it is.
        assert_eq!(unique(&["bot", "bot"], &[false, true]).unwrap(), ["bot-2", "bot"]);
        assert_eq!(unique(&["bot-2", "bot", "bot"], &[true, false, false]).unwrap(), ["bot-2", "bot", "bot-3"]);
    }

    #[test]
    fn two_given_names_alike_are_an_error() {
        let e = unique(&["a", "bot", "c", "bot"], &[true, true, false, true]).unwrap_err();
        assert_eq!(e, DuplicateName { name: "bot".into(), first: 1, second: 3 });
        assert_eq!(e.to_string(), "two bots are named \"bot\" (bots 2 and 4)");
        let mut bots = named(&["a", "a"]);
        assert!(BotSpec::parse_with_name_given(r#"{"name": "a", "command": "x"}"#).unwrap().1);
        assert!(!BotSpec::parse_with_name_given("x").unwrap().1);
        assert!(assign_unique_names(&mut bots, &[true, true]).is_err());
    }

    #[test]
    fn ready_names_are_taken_when_free_and_valid() {
        let current: Vec<String> = ["bot", "bot-javascript", "sample-bot-random", "x"].map(String::from).to_vec();
        let answers = [Some("python-example".to_owned()), Some("  twin ".to_owned()), Some("twin".to_owned()), None];
        let got = names_from_answers(&current, &answers);
        assert_eq!(got[0], Some(Ok("python-example".to_owned())));
        assert!(got[1].as_ref().unwrap().as_ref().unwrap_err().contains("another bot's answer too"), "{got:?}");
        assert!(got[2].as_ref().unwrap().is_err());
        assert_eq!(got[3], None);
        let taken = names_from_answers(&current, &[None, Some("bot".to_owned()), None, None]);
        assert_eq!(taken[1], Some(Err("its ready.name \"bot\" is another bot's name".to_owned())));
        assert_eq!(ready_name("\u{1b}[2Jevil").unwrap_err(), "it holds control or bidirectional characters");
        assert_eq!(ready_name(&"x".repeat(41)).unwrap_err(), "41 characters, more than 40");
        assert_eq!(ready_name(" ").unwrap_err(), "it is empty");
        assert_eq!(ready_name(&"é".repeat(40)).unwrap(), "é".repeat(40));
    }
}
