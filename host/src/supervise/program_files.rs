//! What a bot's command loads that its author writes, when that is not one script argument:
//! the main class and class path of `java`, a `-jar`, `python -m`'s module, a .NET or Mono
//! assembly, a script folder; for the manifest, which hashes those files to tell a bot's
//! new version (`run::manifest::executable_hash`). Reads the command's words (and, for a
//! main class, the directory); uses `bot_spec`'s reading of a command, and nothing uses it
//! from there. Prints nothing, spawns nothing.

use std::path::Path;

use crate::supervise::bot_spec::script_index;

/// What a command's program loads that its author writes, when that is not one script
/// argument (see [`program_files`]): the files and directories, and how to name them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramFiles {
    /// How a manifest names the program: the main class, jar, module or assembly as written
    /// (`java -cp out Bot`: `Bot`).
    pub label: String,
    /// The files and directories it is loaded from, as written (relative to the bot's
    /// working directory): a class path's entries, a `-jar` file, a module's file or folder.
    pub paths: Vec<String>,
    /// In a directory of `paths`, the file name extensions that count (`class`, `jar`):
    /// what the interpreter or VM loads, not the files it writes (`__pycache__`, records).
    pub extensions: &'static [&'static str],
    /// The index in the command of the first argument after the program's own (the bot's
    /// arguments, which may name data files).
    pub rest: usize,
}

/// The file name extensions that each interpreter or VM loads from a directory.
const LOADED_EXTENSIONS: &[(&str, &[&str])] = &[
    ("java", &["class", "jar"]),
    ("python", &["py"]),
    ("pypy", &["py"]),
    ("node", &["js", "mjs", "cjs", "json"]),
    ("nodejs", &["js", "mjs", "cjs", "json"]),
    ("deno", &["js", "mjs", "ts", "json"]),
    ("bun", &["js", "mjs", "ts", "json"]),
    ("ruby", &["rb"]),
    ("perl", &["pl", "pm"]),
    ("php", &["php"]),
    ("lua", &["lua"]),
    ("luajit", &["lua"]),
    ("julia", &["jl"]),
    ("dotnet", &["dll", "json"]),
    ("mono", &["exe", "dll"]),
];

/// The interpreter's name without path or version suffix (`/usr/bin/python3.12`: `python`).
fn interpreter_name(program: &str) -> String {
    let name = Path::new(program).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.').to_owned()
}

/// What the program of `command` loads from files its author writes, for the commands whose
/// program is not one script argument (issue #41, item 5):
///
/// - `java [-cp|-classpath|--class-path PATH] [-jar FILE] [-p|--module-path PATH] MAIN`: the
///   class path's entries (`a.jar:classes`, a `dir/*` wildcard as `dir`), the jar, the
///   module path; with none of them, the host's `CLASSPATH` or `.` (the JVM's default);
/// - `python -m MODULE` (and pypy): the module's file (`MODULE.py`) or package folder;
/// - `dotnet FILE.dll`, `mono FILE.exe`: the assembly;
/// - an interpreter whose script is a folder (`node app/`, `python3 pkg/`): the folder;
/// - `env [VAR=VALUE…] COMMAND`: what `COMMAND` loads.
///
/// `None` for every other command (a plain script or program, hashed as it is). `dir` is
/// the bot's working directory, for telling a script folder from a file.
pub fn program_files(command: &[String], dir: Option<&Path>) -> Option<ProgramFiles> {
    let program = interpreter_name(command.first()?);
    if program == "env" {
        let skip = command[1..].iter().take_while(|a| a.contains('=') || a.starts_with('-')).count();
        let inner = program_files(&command[1 + skip..], dir)?;
        return Some(ProgramFiles { rest: inner.rest + 1 + skip, ..inner });
    }
    let extensions = LOADED_EXTENSIONS.iter().find(|(name, _)| *name == program).map(|(_, e)| *e)?;
    let value_of = |i: usize, flag: &str| -> Option<(String, usize)> {
        let a = &command[i];
        if a == flag {
            return command.get(i + 1).map(|v| (v.clone(), i + 2));
        }
        a.strip_prefix(flag).and_then(|v| v.strip_prefix('=')).map(|v| (v.to_owned(), i + 1))
    };
    match program.as_str() {
        "java" => {
            let mut paths = Vec::new();
            let mut i = 1;
            let mut has_path = false;
            while i < command.len() {
                let a = command[i].as_str();
                let flagged = ["-cp", "-classpath", "--class-path", "-p", "--module-path"]
                    .iter()
                    .find_map(|f| value_of(i, f).map(|(v, next)| (*f, v, next)));
                if let Some((_, value, next)) = flagged {
                    has_path = true;
                    paths.extend(class_path_entries(&value));
                    i = next;
                } else if a == "-jar" {
                    let jar = command.get(i + 1)?;
                    paths.push(jar.clone());
                    return Some(ProgramFiles { label: jar.clone(), paths, extensions, rest: i + 2 });
                } else if let Some((module, next)) = value_of(i, "-m").or_else(|| value_of(i, "--module")) {
                    return Some(ProgramFiles { label: module, paths, extensions, rest: next });
                } else if JAVA_OPTIONS_WITH_VALUE.contains(&a) {
                    // `--add-modules X`: X is the option's, not the main class.
                    i += 2;
                } else if a.starts_with('-') {
                    i += 1;
                } else {
                    // The main class (a source file, `Bot.java`, is a script: hashed as one).
                    if a.ends_with(".java") {
                        return None;
                    }
                    if !has_path {
                        match std::env::var("CLASSPATH") {
                            Ok(cp) => paths.extend(class_path_entries(&cp)),
                            // The JVM's default class path is the bot's working directory:
                            // the main class's own files there, not every class below it.
                            Err(_) => paths.extend(main_class_files(dir, a).unwrap_or_else(|| vec![".".to_owned()])),
                        }
                    }
                    return Some(ProgramFiles { label: a.to_owned(), paths, extensions, rest: i + 1 });
                }
            }
            None
        }
        "python" | "pypy" => {
            // Without `-m` (before the script), `python3 pkg/` runs a folder's `__main__.py`.
            let Some(i) =
                command.iter().position(|a| a == "-m").filter(|&i| script_index(command).is_none_or(|s| s > i))
            else {
                let i = script_index(command)?;
                return resolves_to(dir, &command[i], Path::is_dir).then(|| ProgramFiles {
                    label: command[i].clone(),
                    paths: vec![command[i].clone()],
                    extensions,
                    rest: i + 1,
                });
            };
            let module = command.get(i + 1)?;
            let base = module.replace('.', "/");
            let path = if resolves_to(dir, &format!("{base}.py"), Path::is_file) { format!("{base}.py") } else { base };
            Some(ProgramFiles { label: module.clone(), paths: vec![path], extensions, rest: i + 2 })
        }
        "dotnet" | "mono" => {
            let i = command.iter().skip(1).position(|a| !a.starts_with('-'))? + 1;
            Some(ProgramFiles { label: command[i].clone(), paths: vec![command[i].clone()], extensions, rest: i + 1 })
        }
        _ => {
            let i = script_index(command)?;
            resolves_to(dir, &command[i], Path::is_dir).then(|| ProgramFiles {
                label: command[i].clone(),
                paths: vec![command[i].clone()],
                extensions,
                rest: i + 1,
            })
        }
    }
}

/// A class path's entries (`:`-separated), a `dir/*` wildcard as its folder.
/// The `java` launcher's options whose value is the next argument (`--add-modules X`);
/// options written with their value (`-Xss1m`, `-Dk=v`, `--add-modules=X`) are one argument.
const JAVA_OPTIONS_WITH_VALUE: &[&str] = &[
    "--add-modules",
    "--add-opens",
    "--add-exports",
    "--add-reads",
    "--limit-modules",
    "--upgrade-module-path",
    "--patch-module",
    "--source",
    "--describe-module",
    "-d",
    "--enable-native-access",
];

/// For `java MAIN` with no class path: the files of class `main` in the bot's working
/// directory `dir` (`a.b.Bot`: `a/b/Bot.class` and its nested classes `a/b/Bot$*.class`,
/// relative to `dir`), or `None` when its class file is not there.
fn main_class_files(dir: Option<&Path>, main: &str) -> Option<Vec<String>> {
    let rel = main.replace('.', "/");
    let (package, class) = match rel.rsplit_once('/') {
        Some((p, c)) => (p.to_owned(), c.to_owned()),
        None => (String::new(), rel.clone()),
    };
    let base = dir.map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf);
    let folder = if package.is_empty() { base.clone() } else { base.join(&package) };
    if !folder.join(format!("{class}.class")).is_file() {
        return None;
    }
    let prefix = if package.is_empty() { String::new() } else { format!("{package}/") };
    let nested = format!("{class}$");
    let mut files = vec![format!("{prefix}{class}.class")];
    let mut others: Vec<String> = std::fs::read_dir(&folder)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(&nested) && n.ends_with(".class"))
        .take(10_000)
        .map(|n| format!("{prefix}{n}"))
        .collect();
    others.sort();
    files.extend(others);
    Some(files)
}

fn class_path_entries(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(':')
        .filter(|e| !e.is_empty())
        .map(|e| e.strip_suffix("/*").or_else(|| (e == "*").then_some(".")).unwrap_or(e).to_owned())
}

/// Whether `path`, relative to `dir` when given, is what `test` says.
fn resolves_to(dir: Option<&Path>, path: &str, test: fn(&Path) -> bool) -> bool {
    match dir {
        Some(d) if Path::new(path).is_relative() => test(&d.join(path)),
        _ => test(Path::new(path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        shell_words::split(line).unwrap()
    }

    #[test]
    fn java_with_no_class_path_hashes_its_main_class_files_not_the_whole_directory() {
        let dir = std::env::temp_dir().join(format!("stratego-java-main-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bots/alpha")).unwrap();
        for f in ["bots/alpha/Bot.class", "bots/alpha/Bot$Node.class", "bots/alpha/Other.class", "Unrelated.class"] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        let f = program_files(&words("java bots.alpha.Bot"), Some(&dir)).unwrap();
        assert_eq!(f.paths, ["bots/alpha/Bot.class", "bots/alpha/Bot$Node.class"]);
        // Not there: the working directory, as the JVM's default class path.
        let f = program_files(&words("java Missing"), Some(&dir)).unwrap();
        assert_eq!(f.paths, ["."]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn what_a_vm_loads_is_found_in_its_command() {
        let files = |line: &str| program_files(&words(line), None);
        let f = files("java -XX:+UseSerialGC -cp /tmp/out:lib/dep.jar:jars/* Bot --fast").unwrap();
        assert_eq!(
            (f.label.as_str(), f.paths.clone(), f.rest),
            ("Bot", vec!["/tmp/out".into(), "lib/dep.jar".into(), "jars".into()], 5)
        );
        assert_eq!(f.extensions, ["class", "jar"]);
        let f = files("java --class-path=out Main").unwrap();
        assert_eq!((f.label.as_str(), f.paths), ("Main", vec!["out".to_owned()]));
        let f = files("java -jar alpha.jar x").unwrap();
        assert_eq!((f.label.as_str(), f.paths, f.rest), ("alpha.jar", vec!["alpha.jar".to_owned()], 3));
        assert_eq!(files("java Bot.java"), None, "a source file is a script");
        // An option's separate value is not the main class (the class path after it is read).
        let f = files("java --add-modules jdk.incubator.vector -cp out Main").unwrap();
        assert_eq!((f.label.as_str(), f.paths, f.rest), ("Main", vec!["out".to_owned()], 6));
        let f = files("env GOMAXPROCS=1 MONO_GC_PARAMS=x mono /tmp/bot.exe").unwrap();
        assert_eq!((f.label.as_str(), f.rest), ("/tmp/bot.exe", 5));
        let f = files("python3 -u -m pkg.main --x").unwrap();
        assert_eq!((f.label.as_str(), f.paths, f.rest), ("pkg.main", vec!["pkg/main".to_owned()], 4));
        assert_eq!(f.extensions, ["py"]);
        assert_eq!(files("python3 bot.py -m x"), None, "a script: hashed as one");
        assert_eq!(files("node bot.js"), None);
        assert_eq!(files("./engine -t 2"), None);
        let f = program_files(&words("node /tmp"), None).unwrap();
        assert_eq!((f.label.as_str(), f.paths), ("/tmp", vec!["/tmp".to_owned()]), "a script folder");
    }
}
