//! The host's layers, enforced: `host/src/lib.rs` declares the folders in order, top to
//! bottom, as a numbered list (`//! 1. [`cli`]: …`), and names the modules beside the layers
//! (`[`record`]`, `[`exit`]`, `[`reason`]`). This test reads every source file of the host and
//! fails when code in one folder names (`crate::…`) a folder above it, when two folders name
//! each other, when a module beside the layers names a folder, or when a folder is missing
//! from the list. Comments are not read (a doc link may point anywhere); test modules are.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn host_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/src")
}

/// The declared layers (top first) and the modules beside them, from lib.rs's docs.
fn declared() -> (Vec<String>, BTreeSet<String>) {
    let lib = std::fs::read_to_string(host_src().join("lib.rs")).expect("host/src/lib.rs");
    let docs: Vec<&str> = lib.lines().filter_map(|l| l.strip_prefix("//!")).map(str::trim).collect();
    let mut layers = Vec::new();
    for line in &docs {
        if let Some((number, rest)) = line.split_once(". [`")
            && let Ok(number) = number.parse::<usize>()
        {
            let name = rest.split('`').next().unwrap_or_default();
            assert_eq!(number, layers.len() + 1, "lib.rs: layer {name} out of sequence");
            layers.push(name.to_owned());
        }
    }
    // The paragraph that starts "Beside the layers", up to the next empty doc line.
    let paragraph: Vec<&str> = docs
        .iter()
        .skip_while(|l| !l.starts_with("Beside the layers"))
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    let beside =
        paragraph.join(" ").split("[`").skip(1).map(|p| p.split('`').next().unwrap_or_default().to_owned()).collect();
    (layers, beside)
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments (line comments and `/* … */`), string contents kept.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            out.push('\n');
            continue;
        }
        // A trailing comment: cut at `//` outside a string (good enough for this source).
        let mut in_str = false;
        let mut cut = line.len();
        let bytes = line.as_bytes();
        for i in 0..bytes.len() {
            match bytes[i] {
                b'"' if i == 0 || bytes[i - 1] != b'\\' => in_str = !in_str,
                b'/' if !in_str && bytes.get(i + 1) == Some(&b'/') => {
                    cut = i;
                    break;
                }
                _ => {}
            }
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The first path segment of every `crate::…` path in `code`, with the whole path for the
/// message; `crate::{a::x, b}` gives `a` and `b`.
fn crate_paths(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `stratego_crate::`, not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut end = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let mut depth = 0;
            let mut start = 0;
            let body = &group[..end];
            let mut items = Vec::new();
            for (i, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&body[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            items.push(&body[start..]);
            for item in items.into_iter().map(str::trim).filter(|i| !i.is_empty()) {
                let first = item.split("::").next().unwrap_or(item).trim().to_owned();
                out.push((first, format!("crate::{{… {} …}}", item.split_whitespace().collect::<Vec<_>>().join(" "))));
            }
        } else {
            let path: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            let first = path.split("::").next().unwrap_or_default().to_owned();
            out.push((first, format!("crate::{path}")));
        }
    }
    out
}

#[test]
fn every_folder_of_the_host_uses_only_the_folders_below_it() {
    let (layers, beside) = declared();
    assert!(layers.len() >= 5, "lib.rs declares the layers as a numbered list; found {layers:?}");
    assert!(beside.contains("record"), "lib.rs names the modules beside the layers; found {beside:?}");
    let rank = |name: &str| layers.iter().position(|l| l == name);
    let root = host_src();
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();

    let mut problems = Vec::new();
    let mut edges: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut folders_seen = BTreeSet::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap();
        let (from, from_rank) = match rel.split_once('/') {
            Some((folder, _)) => {
                folders_seen.insert(folder.to_owned());
                match rank(folder) {
                    Some(r) => (folder.to_owned(), Some(r)),
                    None => {
                        problems.push(format!("{rel}: folder {folder}/ is not in lib.rs's list of layers"));
                        continue;
                    }
                }
            }
            None if rel == "lib.rs" || rel == "main.rs" => continue,
            None => {
                let module = rel.trim_end_matches(".rs").to_owned();
                if !beside.contains(&module) {
                    problems.push(format!(
                        "{rel}: a module at the top of host/src must be a layer's folder or named beside them in lib.rs"
                    ));
                }
                (module, None)
            }
        };
        for (first, path) in crate_paths(&code(&text)) {
            if first == from || beside.contains(&first) || first == "self" || first == "super" {
                continue;
            }
            let Some(to_rank) = rank(&first) else {
                problems.push(format!("{rel}: {path} names {first}, which is neither a layer nor beside them"));
                continue;
            };
            match from_rank {
                None => problems.push(format!("{rel}: {path}: a module beside the layers uses none of them")),
                Some(r) if to_rank < r => problems.push(format!(
                    "{rel}: {path} points up, from layer {} ({from}) to layer {} ({first})",
                    r + 1,
                    to_rank + 1
                )),
                Some(_) => {}
            }
            edges.entry((from.clone(), first.clone())).or_insert_with(|| format!("{rel}: {path}"));
        }
    }
    for ((a, b), at) in &edges {
        if a < b
            && let Some(back) = edges.get(&(b.clone(), a.clone()))
        {
            problems.push(format!("{a}/ and {b}/ import each other: {at}; {back}"));
        }
    }
    for layer in &layers {
        if !folders_seen.contains(layer) {
            problems.push(format!("lib.rs lists layer {layer}, but host/src/{layer}/ has no source"));
        }
    }
    assert!(problems.is_empty(), "{} problem(s) with the host's layers:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_checker_sees_grouped_and_nested_paths_and_skips_comments() {
    let text = "use crate::{run::plan::{A, B}, game::clock};\n// crate::cli::X\nlet x = crate::session::f(); /* */\nlet s = \"a//b\"; crate::exit::OK";
    let found: Vec<String> = crate_paths(&code(text)).into_iter().map(|(f, _)| f).collect();
    assert_eq!(found, ["run", "game", "session", "exit"]);
}

/// A file's module path under host/src: `compete/sinks.rs` → `compete/sinks`,
/// `display/terminal/mod.rs` → `display/terminal`.
fn module_of(rel: &str) -> String {
    let m = rel.trim_end_matches(".rs");
    m.strip_suffix("/mod").unwrap_or(m).to_owned()
}

/// `a::{b::X, c::{d, e}}` → `a::b::X`, `a::c::d`, `a::c::e`.
fn expand(path: &str) -> Vec<String> {
    let Some(open) = path.find('{') else { return vec![path.trim().to_owned()] };
    let prefix = &path[..open];
    let body = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&body[start..]);
    items.into_iter().map(str::trim).filter(|i| !i.is_empty()).flat_map(|i| expand(&format!("{prefix}{i}"))).collect()
}

/// The modules of the same folder (its files and sub-folders, at any depth) that a file's
/// code names, as `crate::folder::…` or `super::…` paths: the longest known module each
/// path starts with. A `super::` path that ends in the file's own folder (`use super::*`
/// in a test module, which names the file itself) is not counted.
fn sibling_uses(module: &str, code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let folder = module.split('/').next().unwrap_or_default();
    let mut out = BTreeSet::new();
    let mut resolve = |path: &str, skip: Option<&str>| {
        for path in expand(path) {
            let segments: Vec<&str> = path.split("::").map(str::trim).filter(|s| !s.is_empty()).collect();
            for n in (1..=segments.len()).rev() {
                let candidate = segments[..n].join("/");
                if modules.contains(&candidate) {
                    if candidate != module
                        && Some(candidate.as_str()) != skip
                        && candidate.split('/').next() == Some(folder)
                    {
                        out.insert(candidate);
                    }
                    break;
                }
            }
        }
    };
    // `crate::…`, a group whole (crate_paths splits only its first level).
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        resolve(&path_at(rest), None);
    }
    // `super::x` and `super::super::x`.
    let mut rest = code;
    while let Some(at) = rest.find("super::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            rest = &rest["super::".len()..];
            continue;
        }
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            up += 1;
            rest = r;
        }
        let mut base: Vec<&str> = module.split('/').collect();
        base.truncate(base.len().saturating_sub(up));
        if !base.is_empty() {
            let base = base.join("::");
            resolve(&format!("{base}::{}", path_at(rest)), Some(&base.replace("::", "/")));
        }
    }
    out
}

/// The path that starts `text`: `a::b::C`, or `a::{b, c::{d}}` with its braces.
fn path_at(text: &str) -> String {
    let mut depth = 0;
    let mut end = text.len();
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
            c if depth == 0 && !(c.is_alphanumeric() || c == '_' || c == ':') => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    text[..end].to_owned()
}

/// The circles among `edges` (strongly connected components of more than one module), each
/// sorted.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Two modules are in one circle when each reaches the other.
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(m) = todo.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> = edges.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut placed = BTreeSet::new();
    for (m, r) in &reached {
        if placed.contains(*m) || !r.contains(*m) {
            continue;
        }
        let circle: Vec<String> =
            r.iter().filter(|o| reached.get(o).is_some_and(|back| back.contains(*m))).cloned().collect();
        placed.extend(circle.iter().cloned());
        out.push(circle);
    }
    out
}

#[test]
fn no_two_files_of_a_folder_import_each_other_even_through_others() {
    let root = host_src();
    let mut files = Vec::new();
    sources(&root, &mut files);
    let rels: Vec<String> =
        files.iter().map(|f| f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/")).collect();
    let modules: BTreeSet<String> = rels.iter().map(|r| module_of(r)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, rel) in files.iter().zip(&rels) {
        if !rel.contains('/') {
            continue;
        }
        let module = module_of(rel);
        let uses = sibling_uses(&module, &code(&std::fs::read_to_string(file).unwrap()), &modules);
        edges.entry(module).or_default().extend(uses);
    }
    let found = circles(&edges);
    let described: Vec<String> = found.iter().map(|c| c.join(" ⇄ ")).collect();
    assert!(found.is_empty(), "{} circle(s) inside the host's folders:\n{}", found.len(), described.join("\n"));
}

#[test]
fn the_circle_finder_sees_a_circle_through_three_files_and_super_paths() {
    let modules: BTreeSet<String> =
        ["a", "a/x", "a/y", "a/z", "a/sub", "a/sub/w", "b"].into_iter().map(str::to_owned).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    edges.insert("a/x".into(), sibling_uses("a/x", "use crate::a::y::Thing;\nuse crate::b::Other;", &modules));
    edges.insert("a/y".into(), sibling_uses("a/y", "use super::z;", &modules));
    edges.insert("a/z".into(), sibling_uses("a/z", "use crate::{a::x::f, a::sub::w::g};", &modules));
    edges.insert("a/sub/w".into(), sibling_uses("a/sub/w", "use super::super::y::f;\nuse super::*;", &modules));
    assert_eq!(edges["a/x"], BTreeSet::from(["a/y".to_owned()]), "b is another folder");
    assert_eq!(edges["a/z"], BTreeSet::from(["a/x".to_owned(), "a/sub/w".to_owned()]));
    assert_eq!(edges["a/sub/w"], BTreeSet::from(["a/y".to_owned()]), "super::super::y; super::* is the file's own");
    assert_eq!(circles(&edges), [["a/sub/w", "a/x", "a/y", "a/z"].map(str::to_owned).to_vec()]);
    edges.remove("a/y");
    assert!(circles(&edges).is_empty());
}

/// The places lib.rs allows to write to the terminal: the paths in backquotes on its doc
/// line that starts `Only these write to the terminal:`.
fn allowed_to_print() -> Vec<String> {
    let lib = std::fs::read_to_string(host_src().join("lib.rs")).expect("host/src/lib.rs");
    let line = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(str::trim)
        .find(|l| l.starts_with("Only these write to the terminal:"))
        .expect("lib.rs says which modules write to the terminal (`Only these write to the terminal: …`)");
    line.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The ways `code` writes to the terminal: a print macro (`println!`, `eprintln!`,
/// `print!`, `eprint!`, `dbg!`) or a handle on stdout or stderr (`stdout()`, `stderr()`,
/// their file descriptors), each with its line number.
fn prints(code: &str) -> Vec<(usize, String)> {
    const MACROS: [&str; 5] = ["println", "eprintln", "print", "eprint", "dbg"];
    const STREAMS: [&str; 4] = ["stdout()", "stderr()", "STDOUT_FILENO", "STDERR_FILENO"];
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let bytes = line.as_bytes();
        for (i, _) in line.match_indices('!') {
            let start = line[..i].rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |p| p + 1);
            let name = &line[start..i];
            if MACROS.contains(&name) && bytes.get(i + 1).is_some_and(|&b| b == b'(' || b == b'[' || b == b'{') {
                out.push((n + 1, format!("{name}!")));
            }
        }
        for stream in STREAMS {
            for (i, _) in line.match_indices(stream) {
                if i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
                    out.push((n + 1, stream.to_owned()));
                }
            }
        }
    }
    out
}

#[test]
fn nothing_below_the_commands_writes_to_the_terminal() {
    let allowed = allowed_to_print();
    assert!(allowed.iter().any(|a| a == "commands/"), "lib.rs lets commands/ print; found {allowed:?}");
    let root = host_src();
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        if allowed.iter().any(|a| rel == *a || (a.ends_with('/') && rel.starts_with(a.as_str()))) {
            continue;
        }
        for (line, what) in prints(&code(&std::fs::read_to_string(file).unwrap())) {
            problems.push(format!("{rel}:{line}: {what} (say it through crate::notice, or return it)"));
        }
    }
    assert!(problems.is_empty(), "{} print(s) below the commands:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_print_finder_sees_each_way_to_the_terminal_and_not_lookalikes() {
    let text = "eprintln!(\"x\");\nprint!(\"y\");\nlet d = dbg!(v);\nstd::io::stdout().lock();\nio::stderr().is_terminal();\nlibc::write(libc::STDERR_FILENO, p, n);\nmy_println!(z);\nlet s = not_stdout();\nassert!(ok);";
    let found: Vec<String> = prints(text).into_iter().map(|(n, w)| format!("{n}:{w}")).collect();
    assert_eq!(found, ["1:eprintln!", "2:print!", "3:dbg!", "4:stdout()", "5:stderr()", "6:STDERR_FILENO"]);
}
