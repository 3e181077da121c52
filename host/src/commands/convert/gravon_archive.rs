//! The Gravon games of a path (an `.xml` file, a `.zip` archive, or a directory of them),
//! listed and read one at a time within a size limit, and their game ids: what `convert`
//! reads Gravon XML from.

use std::io::Read;
use std::path::{Path, PathBuf};

/// One Gravon game's place: an `.xml` file, or a member of a `.zip` archive.
#[derive(Clone, Debug)]
struct GravonEntry {
    /// `game.xml`, or `archive.zip:member.xml`.
    name: String,
    file: PathBuf,
    /// The member's index in the archive.
    member: Option<usize>,
}

/// The Gravon games of a path, read one at a time: see [`gravon_games`].
pub struct GravonGames {
    entries: std::vec::IntoIter<GravonEntry>,
    /// The archive last read from, kept open for its next member.
    open: Option<(PathBuf, zip::ZipArchive<std::fs::File>)>,
    max: usize,
}

impl GravonGames {
    /// How many games there are (left).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none (left).
    pub fn is_empty(&self) -> bool {
        self.entries.len() == 0
    }

    fn read(&mut self, entry: &GravonEntry) -> Result<String, String> {
        let max = self.max;
        let mut raw = Vec::new();
        let read = |r: &mut dyn Read, raw: &mut Vec<u8>| r.take(max as u64 + 1).read_to_end(raw).map(|_| ());
        match entry.member {
            None => {
                let mut f = std::fs::File::open(&entry.file).map_err(|e| e.to_string())?;
                read(&mut f, &mut raw).map_err(|e| e.to_string())?;
            }
            Some(i) => {
                if self.open.as_ref().is_none_or(|(p, _)| *p != entry.file) {
                    self.open = None;
                    self.open = Some((entry.file.clone(), open_zip(&entry.file)?));
                }
                let (_, zip) = self.open.as_mut().expect("just opened");
                let mut f = zip.by_index(i).map_err(|e| e.to_string())?;
                read(&mut f, &mut raw).map_err(|e| e.to_string())?;
            }
        }
        if raw.len() > max {
            return Err(format!(
                "longer than {max} bytes, the longest game read (a decompression bomb? --max-record-bytes raises the limit)"
            ));
        }
        Ok(String::from_utf8_lossy(&raw).into_owned())
    }
}

impl Iterator for GravonGames {
    /// A game's name and its text, or why it could not be read (too long, a damaged
    /// archive member).
    type Item = (String, Result<String, String>);

    fn next(&mut self) -> Option<Self::Item> {
        let entry = self.entries.next()?;
        let text = self.read(&entry);
        Some((entry.name, text))
    }
}

fn open_zip(path: &Path) -> Result<zip::ZipArchive<std::fs::File>, String> {
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    zip::ZipArchive::new(f).map_err(|e| e.to_string())
}

/// Every Gravon game in `path`: an `.xml` file, a `.zip` archive, or a directory of them
/// (recursively), sorted by name, where a zip member's name is `archive.zip:member.xml`;
/// read one at a time when iterated (an archive is read member by member, never whole),
/// each game's text at most `max` bytes (decompressed: what a zip header says is not
/// trusted), a longer one an error for that game.
///
/// # Errors
/// A file, directory or archive that cannot be listed.
pub fn gravon_games(path: &Path, max: usize) -> Result<GravonGames, String> {
    let mut entries = Vec::new();
    if path.is_dir() {
        let io = |p: &Path, e: &dyn std::fmt::Display| format!("{}: {e}", p.display());
        let mut stack = vec![path.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).map_err(|e| io(&d, &e))? {
                let p = entry.map_err(|e| io(&d, &e))?.path();
                if p.is_dir() {
                    stack.push(p);
                } else if has_ext(&p, "zip") || has_ext(&p, "xml") {
                    list_gravon_file(&p, &mut entries)?;
                }
            }
        }
    } else {
        list_gravon_file(path, &mut entries)?;
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(GravonGames { entries: entries.into_iter(), open: None, max })
}

/// Every Gravon game in `path` (as [`gravon_games`], with the limit
/// [`stratego_records::max_record_bytes`]), read whole, as `(name, xml)`.
///
/// # Errors
/// A file or archive that cannot be read, or a game longer than the limit.
pub fn read_gravon(path: &Path) -> Result<Vec<(String, String)>, String> {
    gravon_games(path, stratego_records::max_record_bytes())?
        .map(|(name, text)| text.map(|t| (name.clone(), t)).map_err(|e| format!("{name}: {e}")))
        .collect()
}

fn list_gravon_file(path: &Path, out: &mut Vec<GravonEntry>) -> Result<(), String> {
    let io = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let mut head = [0u8; 2];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).map_err(|e| io(&e))?;
    if head[..n] == *b"PK" {
        let mut zip = open_zip(path).map_err(|e| io(&e))?;
        for i in 0..zip.len() {
            let f = zip.by_index_raw(i).map_err(|e| io(&e))?;
            if f.is_dir() || !f.name().to_ascii_lowercase().ends_with(".xml") {
                continue;
            }
            out.push(GravonEntry { name: format!("{name}:{}", f.name()), file: path.to_owned(), member: Some(i) });
        }
    } else {
        out.push(GravonEntry { name, file: path.to_owned(), member: None });
    }
    Ok(())
}

pub(super) fn has_ext(p: &Path, ext: &str) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// The game id of a Gravon game named `name`: the file name without `.xml` (and without
/// the archive it came from).
pub fn gravon_game_id(name: &str) -> String {
    let file = name.rsplit([':', '/', '\\']).next().unwrap_or(name);
    file.strip_suffix(".xml").or_else(|| file.strip_suffix(".XML")).unwrap_or(file).to_owned()
}
