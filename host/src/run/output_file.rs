//! What a command may write over: never a file it did not write itself.
//!
//! `convert` writes only new files ([`must_be_new`]). The HTML pages (`export --html`,
//! `ladder table --html`, a run's `index.html` and viewer pages) carry a marker
//! ([`PAGE_MARKER`]) so that the host can tell its own pages from anything else: such a
//! page may be written again, any other existing file only with `--force`
//! ([`may_write_page`]), and a game records file, a run's manifest or a ladder database
//! never.

use std::io::Read;
use std::path::Path;

/// The line every HTML page of the host carries in its `<head>`: how the host knows a
/// page it may write again.
pub const PAGE_MARKER: &str = "<meta name=\"generator\" content=\"stratego-host\">";

/// Refuses an output that exists: a file, or a directory that is not empty. `what` says
/// what the command writes (e.g. "convert writes a new file or an empty directory").
///
/// # Errors
/// The output exists (naming it), or the directory cannot be read.
pub fn must_be_new(path: &Path, what: &str) -> Result<(), String> {
    let exists = if path.is_dir() {
        std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?.next().is_some()
    } else {
        path.exists()
    };
    if exists {
        return Err(format!("{}: already exists; {what}", path.display()));
    }
    Ok(())
}

/// What an existing file is, as far as overwriting it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Nothing there.
    Nothing,
    /// An HTML page this host wrote (it carries [`PAGE_MARKER`]).
    HostPage,
    /// Data the host keeps and never overwrites: game records, a manifest, a ladder
    /// database (the words say which).
    Protected(&'static str),
    /// A directory.
    Directory,
    /// Any other file.
    Other,
}

/// Looks at what is at `path`: by its name (`games.jsonl`, `games.jsonl.zst`, `manifest.json`) and its first
/// bytes (a JSON object, an SQLite database, a page with the host's marker).
pub fn existing(path: &Path) -> Existing {
    let Ok(meta) = std::fs::metadata(path) else {
        // A dangling symbolic link is still something that is not ours.
        return if std::fs::symlink_metadata(path).is_ok() { Existing::Other } else { Existing::Nothing };
    };
    if meta.is_dir() {
        return Existing::Directory;
    }
    match path.file_name().and_then(|n| n.to_str()) {
        Some("games.jsonl" | "games.jsonl.zst") => return Existing::Protected("a game records file"),
        Some("manifest.json") => return Existing::Protected("a run's manifest"),
        _ => {}
    }
    let mut head = vec![0u8; 4096];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    let head = &head[..n];
    if head.starts_with(b"SQLite format 3\0") {
        return Existing::Protected("an SQLite database (a ladder?)");
    }
    let text = String::from_utf8_lossy(head);
    if text.trim_start().starts_with('{') {
        return Existing::Protected("a JSON file (game records or a manifest?)");
    }
    if text.contains(PAGE_MARKER) {
        return Existing::HostPage;
    }
    Existing::Other
}

/// Whether an HTML page may be written at `path`: yes when nothing is there or a page this
/// host wrote; with `force: Some(true)` (`--force`), also over another file; never over a
/// directory, game records, a manifest or a database. `force: None`: the command has no
/// `--force`. `flag` names the option that chose the path (for messages).
///
/// # Errors
/// Why not, naming the file.
pub fn may_write_page(path: &Path, force: Option<bool>, flag: &str) -> Result<(), String> {
    match existing(path) {
        Existing::Nothing | Existing::HostPage => Ok(()),
        Existing::Other if force == Some(true) => Ok(()),
        Existing::Other => Err(format!(
            "{flag} {}: the file exists and is not a page this host wrote; it is left alone ({})",
            path.display(),
            if force.is_some() { "choose another file, or add --force to replace it" } else { "move it away" }
        )),
        Existing::Directory => Err(format!("{flag} {}: is a directory; give the HTML file to write", path.display())),
        Existing::Protected(what) => Err(format!(
            "{flag} {}: the file is {what}; it is never overwritten (not even with --force): choose another file",
            path.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_may_be_written_over() {
        let dir = std::env::temp_dir().join(format!("stratego-output-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let page = dir.join("page.html");
        std::fs::write(&page, format!("<!DOCTYPE html>\n<html>\n<head>\n{PAGE_MARKER}\n</head></html>")).unwrap();
        let notes = dir.join("notes.txt");
        std::fs::write(&notes, "my notes").unwrap();
        let records = dir.join("run.jsonl");
        std::fs::write(&records, "{\"game_id\":\"x\"}\n").unwrap();
        let named = dir.join("games.jsonl");
        std::fs::write(&named, "").unwrap();
        let compact = dir.join("games.jsonl.zst");
        std::fs::write(&compact, "").unwrap();
        assert_eq!(existing(&dir.join("none.html")), Existing::Nothing);
        assert_eq!(existing(&page), Existing::HostPage);
        assert_eq!(existing(&notes), Existing::Other);
        assert!(matches!(existing(&records), Existing::Protected(_)));
        assert!(matches!(existing(&named), Existing::Protected(_)));
        assert!(matches!(existing(&compact), Existing::Protected(_)));
        assert_eq!(existing(&dir), Existing::Directory);
        assert!(may_write_page(&page, Some(false), "--html").is_ok());
        assert!(may_write_page(&notes, Some(false), "--html").unwrap_err().contains("--force"));
        assert!(may_write_page(&notes, Some(true), "--html").is_ok());
        assert!(may_write_page(&records, Some(true), "--html").unwrap_err().contains("never overwritten"));
        assert!(must_be_new(&page, "x").unwrap_err().contains("already exists"));
        assert!(must_be_new(&dir.join("new"), "x").is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
