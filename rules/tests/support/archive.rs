//! Reading and checking Gravon game collections: shared by the `gravon-check` example and
//! the archive replay test.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

use stratego_rules::gravon::{GravonGame, Playthrough};

/// Every `.xml` game in the zip archives and XML files under `dir` (recursively), as
/// `(name, text)`, sorted by name.
pub fn read_games(dir: &Path) -> std::io::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            let name = path.display().to_string();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".zip") {
                let file = std::fs::File::open(&path)?;
                let mut zip = zip::ZipArchive::new(file).map_err(std::io::Error::other)?;
                for i in 0..zip.len() {
                    let mut f = zip.by_index(i).map_err(std::io::Error::other)?;
                    if f.name().ends_with(".xml") {
                        let mut text = String::new();
                        f.read_to_string(&mut text)?;
                        out.push((format!("{}:{}", path.file_name().unwrap().to_string_lossy(), f.name()), text));
                    }
                }
            } else if name.ends_with(".xml") {
                out.push((path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&path)?));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Counts for one game type.
#[derive(Default, Debug)]
pub struct TypeReport {
    pub games: usize,
    pub plies: usize,
    /// `file: ply N move: reason`.
    pub illegal: Vec<String>,
    /// Result type → (agreeing, total).
    pub results: BTreeMap<u8, (usize, usize)>,
    /// `file: result T winner W, replay says …`.
    pub disagreements: Vec<String>,
}

/// The whole collection's report, by game type.
#[derive(Default, Debug)]
pub struct Report {
    pub types: BTreeMap<String, TypeReport>,
    pub skipped: BTreeMap<String, usize>,
    pub unreadable: Vec<String>,
}

/// Replays every game.
pub fn check(games: &[(String, String)]) -> Report {
    let mut report = Report::default();
    for (name, xml) in games {
        let g = match GravonGame::parse(xml) {
            Ok(g) => g,
            // Ultimate lightning games use squares (file J) no other type has; they are
            // skipped whole, so a parse failure there is a skip too.
            Err(_) if xml.contains("type=\"ultimate lightning\"") => {
                *report.skipped.entry("ultimate lightning".to_owned()).or_default() += 1;
                continue;
            }
            Err(e) => {
                report.unreadable.push(format!("{name}: {e}"));
                continue;
            }
        };
        if g.ruleset().is_none() {
            *report.skipped.entry(g.game_type.clone()).or_default() += 1;
            continue;
        }
        let replay = match Playthrough::run(&g) {
            Ok(r) => r,
            Err(e) => {
                report.unreadable.push(format!("{name}: {e}"));
                continue;
            }
        };
        let t = report.types.entry(g.game_type.clone()).or_default();
        t.games += 1;
        t.plies += replay.plies;
        if let Some((ply, mv, why)) = replay.illegal {
            t.illegal.push(format!("{name}: ply {ply} {mv}: {why}"));
        }
        if let Some(r) = g.result {
            let e = t.results.entry(r.kind).or_default();
            e.1 += 1;
            if replay.agrees {
                e.0 += 1;
            } else {
                let said = replay.outcome.map_or("the game goes on".to_owned(), |o| o.to_string());
                t.disagreements.push(format!("{name}: result type {} winner {}, replay: {said}", r.kind, r.winner));
            }
        }
    }
    report
}

impl Report {
    /// A human summary.
    pub fn render(&self, verbose: bool) -> String {
        let mut s = String::new();
        for (ty, t) in &self.types {
            let _ = writeln!(s, "{ty}: {} games, {} plies, {} illegal moves", t.games, t.plies, t.illegal.len());
            for (kind, (ok, n)) in &t.results {
                let _ = writeln!(s, "  result type {kind:>2}: {ok}/{n} agree with the replay");
            }
            for line in t.illegal.iter().chain(if verbose { t.disagreements.iter() } else { [].iter() }) {
                let _ = writeln!(s, "  {line}");
            }
        }
        for (ty, n) in &self.skipped {
            let _ = writeln!(s, "skipped {n} {ty} games (no ruleset)");
        }
        for u in &self.unreadable {
            let _ = writeln!(s, "unreadable: {u}");
        }
        s
    }
}
