//! Setup books: lists of human setups, so that both games of a colour-swapped pair can start
//! from the same two deployments.
//!
//! A book stores each setup as its owner sees it, independent of colour, and places it for
//! either side on demand ([`SetupBook::deployment`]). [`SetupBook::load`] reads three kinds
//! of file, told apart by their content:
//!
//! - the plain text format below;
//! - the Gravon setups database as distributed: a zip archive holding an entry whose name
//!   ends with `setups database.txt` (`Gravon Setups/Gravon setups database.txt`);
//! - that database entry unpacked, as a `.txt` file.
//!
//! # The plain text format
//!
//! - UTF-8 text, one setup a line. `#` starts a comment that runs to the end of the line, on
//!   a line of its own or after a setup. Blank lines and comment lines are ignored.
//! - A setup is written as its owner sees it from behind its own pieces: the rows of the
//!   setup area from the front row (the one facing the enemy) to the back row, separated by
//!   `/`, each row from the owner's left to the owner's right, one character per square:
//!   `F` Flag, `S` Spy, `2` to `9` Scout to General, `X` Marshal (10), `B` Bomb, `.` an empty
//!   square (only for rulesets that let a side place fewer pieces than its setup area holds),
//!   `~` a lake square inside the setup area (read as empty). Lowercase letters and `1` for
//!   the Spy are accepted too. Spaces may stand around a `/`, not inside a row.
//! - A classic setup is four rows of ten, like
//!   `B32222222S/6655554444/BX98877766/FB3B333B2B  # Flag in the back-left corner`.
//!   Written this way a setup is exactly Red's rows form of the rules crate (Red's setup area
//!   from its top rank down, files a to j): the first row is rank 4, the last row rank 1, the
//!   `F` above stands on a1. Blue gets the same setup turned by 180 degrees: the front row on
//!   rank 7 from j7 to a7, the back row on rank 10 from j10 to a10, the `F` on j10.
//! - Every setup is checked against the tournament's ruleset when the book is loaded, placed
//!   for Red and for Blue; the first wrong line stops the load with an error that names the
//!   file and the line. Messages about squares and ranks refer to the setup placed for Red,
//!   unless they start with `placed for Blue`. A book without any setup is an error too.
//! - A line that repeats an earlier setup is kept as a separate entry, so that entry `i` is
//!   always the `i`-th setup line of the file (from 0).
//!
//! # The Gravon format
//!
//! One setup a line, 42 comma-separated numbers: the setup's id, a field this module ignores
//! (whether the Flag is enclosed by Bombs), then the 40 pieces from the front row to the back
//! row, each row from the owner's left, in the old numbering: 1 Marshal, 2 General …
//! 9 Scout, 10 Spy, 11 Flag, 12 Bomb. (The notes shipped with the database say "back to
//! front", but 87 % of the Flags stand in the last ten fields, so the last row is the back
//! row.) These are classic setups: loading them for a ruleset with another army or setup
//! area is an error. Blank lines and `#` comments are skipped as in the plain format.

use std::fmt;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use stratego_rules::{Color, Deployment, PieceCounts, Rank, Ruleset, Square};

/// The zip entry holding the Gravon database ends with this (compared ignoring case).
const GRAVON_ENTRY_SUFFIX: &str = "setups database.txt";

/// Fields per Gravon line: id, Flag-protection field, 40 pieces.
const GRAVON_FIELDS: usize = 42;

/// A list of setups, each stored as its owner sees it and placed for either colour on demand.
///
/// Entries are numbered from 0 in the order of the file's setup lines. All of them were
/// checked against the ruleset given to [`SetupBook::load`], for both colours.
#[derive(Clone)]
pub struct SetupBook {
    rules: Ruleset,
    geometry: Geometry,
    /// `geometry.cells()` bytes per entry, front row first, each row from the owner's left:
    /// 0 for no piece, else 1 + [`Rank::index`]. A flat vector keeps the 160,951-setup
    /// Gravon database at 6.4 MB without one allocation per setup.
    cells: Vec<u8>,
    /// Per cell, how the text form shows it empty: `~` on a lake of Red's area, else `.`
    /// (Red's rows form, which the text form equals).
    blanks: Vec<u8>,
}

impl fmt::Debug for SetupBook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The entries themselves would flood any log that prints a book.
        f.debug_struct("SetupBook").field("entries", &self.len()).field("ruleset", &self.rules.name()).finish()
    }
}

/// Why a book cannot be loaded. Its message starts with the file's path as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BookError {
    /// The file cannot be read, is not UTF-8 text, or is a zip without the database entry.
    Read {
        /// The book's path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// One setup line is wrong.
    Line {
        /// The book's path.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// The setup's id, for the Gravon format.
        gravon_id: Option<String>,
        /// What is wrong with the line.
        message: String,
    },
    /// The book as a whole does not serve the ruleset: it is empty, or its setups are of
    /// another size.
    Book {
        /// The book's path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Read { path, message } | BookError::Book { path, message } => {
                write!(f, "{}: {message}", path.display())
            }
            BookError::Line { path, line, gravon_id: None, message } => {
                write!(f, "{}:{line}: {message}", path.display())
            }
            BookError::Line { path, line, gravon_id: Some(id), message } => {
                write!(f, "{}: setup on line {line} (id {id}): {message}", path.display())
            }
        }
    }
}

impl std::error::Error for BookError {}

/// Where the owner-view cells of a setup stand on the board for each colour.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    width: u8,
    depth: u8,
    /// 0-based rank of Red's front row (the top rank of its area).
    red_front: u8,
    /// 0-based rank of Blue's front row (the bottom rank of its area).
    blue_front: u8,
}

impl Geometry {
    fn of(rules: &Ruleset) -> Result<Geometry, String> {
        let ranks = rules.spec().setup_ranks;
        let [red_lo, red_hi] = ranks[Color::Red];
        let [blue_lo, blue_hi] = ranks[Color::Blue];
        let (red_depth, blue_depth) = (red_hi - red_lo + 1, blue_hi - blue_lo + 1);
        if red_depth != blue_depth {
            return Err(format!(
                "ruleset {} gives Red {red_depth} setup rows and Blue {blue_depth}; a book's setup must fit both sides",
                rules.name()
            ));
        }
        Ok(Geometry { width: rules.width(), depth: red_depth, red_front: red_hi - 1, blue_front: blue_lo - 1 })
    }

    fn cells(self) -> usize {
        usize::from(self.width) * usize::from(self.depth)
    }

    /// The square of owner-view cell `cell` (row from the front, then file from the owner's
    /// left) for `color`: Red faces up the board, so its left is file a; Blue faces down, so
    /// its left is the last file and its rows count up from its front rank.
    fn square(self, color: Color, cell: usize) -> Square {
        let (row, file) = ((cell / usize::from(self.width)) as u8, (cell % usize::from(self.width)) as u8);
        let sq = match color {
            Color::Red => Square::new(file, self.red_front - row),
            Color::Blue => Square::new(self.width - 1 - file, self.blue_front + row),
        };
        sq.expect("setup ranks lie on the board")
    }
}

/// The checks of [`Deployment::new`] for both colours, done on owner-view cells without
/// building deployments: at 2 µs a deployment, building two per setup took most of the time
/// of loading the Gravon database. Whatever this refuses goes to [`check_both`], whose
/// deployments decide and explain.
struct QuickCheck {
    /// Per cell: whether its square is in Red's and in Blue's setup area.
    in_both_areas: Vec<bool>,
    pieces: PieceCounts,
    exact: bool,
}

impl QuickCheck {
    fn new(rules: &Ruleset, geometry: Geometry) -> QuickCheck {
        let in_both_areas = (0..geometry.cells())
            .map(|i| Color::ALL.iter().all(|&c| rules.in_setup_area(c, geometry.square(c, i))))
            .collect();
        QuickCheck { in_both_areas, pieces: *rules.pieces(), exact: rules.exact_counts() }
    }

    fn accepts(&self, cells: &[u8]) -> bool {
        let mut counts = [0u16; 12];
        for (&cell, &in_area) in cells.iter().zip(&self.in_both_areas) {
            if cell != 0 {
                if !in_area {
                    return false;
                }
                counts[usize::from(cell - 1)] += 1;
            }
        }
        let counts_fit = Rank::ALL.iter().all(|&r| {
            let (placed, allowed) = (counts[r.index()], self.pieces[r]);
            placed == allowed || (!self.exact && r != Rank::Flag && placed < allowed)
        });
        counts_fit && counts.iter().any(|&n| n > 0)
    }
}

/// How a text book is written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Plain,
    Gravon,
}

impl SetupBook {
    /// Reads a book and checks every setup against `rules` for both colours.
    ///
    /// The format is told from the content: a zip archive must hold an entry whose name ends
    /// with `setups database.txt` (the Gravon database); a text file whose first setup line
    /// contains a comma is in the Gravon format; any other text is the plain format (see the
    /// module docs).
    ///
    /// # Errors
    /// A [`BookError`] naming the file and, for a wrong setup, the line (from 1) and what is
    /// wrong with it, as in `book.txt:7: row 2 (rank 3) has 9 squares; the board is 10 wide`
    /// or `gravon-setups.zip: setup on line 1203 (id 55123): 41 fields, expected 42`. Also an
    /// error: an unreadable file, a book without setups, Gravon setups for a ruleset that
    /// does not deploy the classic 40 pieces in four rows of ten.
    pub fn load(path: &Path, rules: &Ruleset) -> Result<SetupBook, BookError> {
        let bytes = std::fs::read(path)
            .map_err(|e| BookError::Read { path: path.to_owned(), message: format!("cannot read the book: {e}") })?;
        SetupBook::from_bytes(path, &bytes, rules)
    }

    /// [`SetupBook::load`] on bytes already read; `path` only names the book in errors.
    fn from_bytes(path: &Path, bytes: &[u8], rules: &Ruleset) -> Result<SetupBook, BookError> {
        let read_err = |message: String| BookError::Read { path: path.to_owned(), message };
        let is_zip = bytes.starts_with(b"PK\x03\x04")
            || bytes.starts_with(b"PK\x05\x06")
            || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"));
        let unzipped;
        let text_bytes = if is_zip {
            unzipped = unzip_database(bytes).map_err(read_err)?;
            &unzipped[..]
        } else {
            bytes
        };
        let text = std::str::from_utf8(text_bytes).map_err(|e| {
            let line = 1 + text_bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count();
            read_err(format!("line {line} is not UTF-8 text"))
        })?;
        // Editors on Windows may start UTF-8 files with a byte-order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);

        let book_err = |message: String| BookError::Book { path: path.to_owned(), message };
        let geometry = Geometry::of(rules).map_err(book_err)?;
        let mut lines =
            text.lines().enumerate().map(|(i, l)| (i + 1, strip_comment(l).trim())).filter(|(_, l)| !l.is_empty());
        let format = match lines.clone().next() {
            Some((_, first)) if first.contains(',') => Format::Gravon,
            _ => Format::Plain,
        };
        if format == Format::Gravon {
            gravon_fits(rules, geometry).map_err(book_err)?;
        }
        let quick = QuickCheck::new(rules, geometry);
        let blanks = (0..geometry.cells())
            .map(|i| if rules.is_lake(geometry.square(Color::Red, i)) { b'~' } else { b'.' })
            .collect();
        let mut book = SetupBook { rules: rules.clone(), geometry, cells: Vec::new(), blanks };
        for (line, setup) in &mut lines {
            let start = book.cells.len();
            book.cells.resize(start + geometry.cells(), 0);
            let cells = &mut book.cells[start..];
            let parsed = match format {
                Format::Plain => parse_plain(rules, geometry, setup, cells),
                Format::Gravon => parse_gravon(setup, cells),
            };
            let checked =
                parsed.and_then(|()| if quick.accepts(cells) { Ok(()) } else { check_both(rules, geometry, cells) });
            checked.map_err(|message| BookError::Line {
                path: path.to_owned(),
                line,
                gravon_id: (format == Format::Gravon).then(|| setup.split(',').next().unwrap_or("").trim().to_owned()),
                message,
            })?;
        }
        if book.is_empty() {
            return Err(book_err("the book holds no setup".to_owned()));
        }
        Ok(book)
    }

    /// Number of setups.
    pub fn len(&self) -> usize {
        self.cells.len() / self.geometry.cells()
    }

    /// Whether the book has no setup (never true for a loaded book).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    fn entry(&self, index: usize) -> &[u8] {
        let n = self.geometry.cells();
        assert!(index < self.len(), "setup {index} of a book of {}", self.len());
        &self.cells[index * n..(index + 1) * n]
    }

    /// Setup `index` placed for `color` under the ruleset the book was loaded for. For Red
    /// the owner's left is file a and its back row rank 1; Blue's placement is Red's turned
    /// by 180 degrees (in classic, a Flag in the owner's back-left corner stands on a1 for
    /// Red and on j10 for Blue).
    ///
    /// # Panics
    /// If `index` is not below [`SetupBook::len`].
    pub fn deployment(&self, index: usize, color: Color) -> Deployment {
        placed(&self.rules, self.geometry, self.entry(index), color).expect("every setup was checked when loading")
    }

    /// Setup `index` in the plain text format (without a comment): the rows from the owner's
    /// front row to its back row, which is Red's rows form.
    ///
    /// # Panics
    /// If `index` is not below [`SetupBook::len`].
    pub fn text(&self, index: usize) -> String {
        let mut out = Vec::with_capacity(self.geometry.cells() + usize::from(self.geometry.depth));
        self.write_text(index, &mut out);
        String::from_utf8(out).expect("piece codes are ASCII")
    }

    fn write_text(&self, index: usize, out: &mut Vec<u8>) {
        let width = usize::from(self.geometry.width);
        for (i, (&cell, &blank)) in self.entry(index).iter().zip(&self.blanks).enumerate() {
            if i > 0 && i % width == 0 {
                out.push(b'/');
            }
            out.push(if cell == 0 { blank } else { Rank::ALL[usize::from(cell - 1)].code() as u8 });
        }
    }

    /// A content hash that tells books apart: 64-bit FNV-1a (offset basis
    /// `0xcbf29ce484222325`, prime `0x100000001b3`) over every setup's [`SetupBook::text`]
    /// followed by a line feed, in book order.
    ///
    /// It depends on the setups and their order only: comments, blank lines, spelling
    /// (`s` or `1` for `S`) and the file format (a Gravon zip and its plain text conversion)
    /// do not change it.
    pub fn fingerprint(&self) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut text = Vec::new();
        for i in 0..self.len() {
            text.clear();
            self.write_text(i, &mut text);
            text.push(b'\n');
            for &b in &text {
                hash ^= u64::from(b);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
        }
        hash
    }
}

/// The text of the one zip entry whose name ends with [`GRAVON_ENTRY_SUFFIX`].
fn unzip_database(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("not a readable zip archive: {e}"))?;
    let names: Vec<String> = zip.file_names().map(str::to_owned).collect();
    let matching: Vec<&String> =
        names.iter().filter(|n| n.to_ascii_lowercase().ends_with(GRAVON_ENTRY_SUFFIX)).collect();
    let name = match matching[..] {
        [one] => one,
        [] => {
            return Err(format!(
                "the zip has no entry named \"…{GRAVON_ENTRY_SUFFIX}\" (it holds: {})",
                if names.is_empty() { "nothing".to_owned() } else { names.join(", ") }
            ));
        }
        _ => {
            let list: Vec<&str> = matching.iter().map(|s| s.as_str()).collect();
            return Err(format!("the zip has several entries named \"…{GRAVON_ENTRY_SUFFIX}\": {}", list.join(", ")));
        }
    };
    let mut entry = zip.by_name(name).map_err(|e| format!("cannot read {name:?} in the zip: {e}"))?;
    let mut out = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0));
    entry.read_to_end(&mut out).map_err(|e| format!("cannot unpack {name:?} from the zip: {e}"))?;
    Ok(out)
}

fn strip_comment(line: &str) -> &str {
    line.split_once('#').map_or(line, |(setup, _)| setup)
}

/// Whether a classic Gravon setup (40 pieces, four rows of ten) is a legal deployment under
/// `rules`; checked once so that a wrong ruleset gives one clear message instead of an error
/// about the first line.
fn gravon_fits(rules: &Ruleset, geometry: Geometry) -> Result<(), String> {
    let classic = PieceCounts::classic();
    let army_fits = Rank::ALL.iter().all(|&r| {
        let (need, allowed) = (classic[r], rules.pieces()[r]);
        need == allowed || (!rules.exact_counts() && need < allowed)
    });
    let area = rules.setup_area_size(Color::Red);
    let area_fits = Color::ALL.iter().all(|&c| rules.setup_area_size(c) == 40);
    if army_fits && area_fits && geometry.width == 10 && geometry.depth == 4 {
        return Ok(());
    }
    Err(format!(
        "the book does not fit ruleset {}, which {} {} pieces in {area} squares ({} rows of {}); the book's Gravon \
         setups are classic: 40 pieces in 4 rows of 10",
        rules.name(),
        if rules.exact_counts() { "needs" } else { "takes up to" },
        rules.pieces().total(),
        geometry.depth,
        geometry.width,
    ))
}

/// Reads a plain-format setup into owner-view `cells`.
fn parse_plain(rules: &Ruleset, geometry: Geometry, setup: &str, cells: &mut [u8]) -> Result<(), String> {
    if setup.contains('=') {
        return Err(format!(
            "{setup:?} is not a book setup: write the rows from the front row to the back row, separated by '/'"
        ));
    }
    for (i, row) in setup.split('/').enumerate() {
        if row.trim().contains(char::is_whitespace) {
            return Err(format!("row {} has a space in it (a comment starts with '#')", i + 1));
        }
    }
    // Red's rows form is the owner's view, so the rules crate's parser (and its messages)
    // reads the setup as it is written.
    let red = Deployment::parse(rules, Color::Red, setup).map_err(|e| e.to_string())?;
    for (i, cell) in cells.iter_mut().enumerate() {
        *cell = red.rank_at(geometry.square(Color::Red, i)).map_or(0, |r| r.index() as u8 + 1);
    }
    Ok(())
}

/// Reads a Gravon line (42 numbers) into owner-view `cells`; the database's order is already
/// the owner's view, front row first.
fn parse_gravon(line: &str, cells: &mut [u8]) -> Result<(), String> {
    // Byte-level splitting: `str::split` spent a third of the database's load time
    // searching for commas.
    let count = 1 + line.bytes().filter(|&b| b == b',').count();
    if count != GRAVON_FIELDS {
        return Err(format!("{count} fields, expected {GRAVON_FIELDS}"));
    }
    for (k, (field, cell)) in line.as_bytes().split(|&b| b == b',').skip(2).zip(cells.iter_mut()).enumerate() {
        let n = k + 3;
        let old = match field.trim_ascii() {
            &[d] if d.is_ascii_digit() => d - b'0',
            &[d, e] if d.is_ascii_digit() && e.is_ascii_digit() => 10 * (d - b'0') + (e - b'0'),
            other => {
                return Err(format!("field {n} is {:?}, not a piece number", String::from_utf8_lossy(other)));
            }
        };
        let rank = match old {
            1..=9 => Rank::ALL[usize::from(11 - old)],
            10 => Rank::Spy,
            11 => Rank::Flag,
            12 => Rank::Bomb,
            _ => {
                return Err(format!(
                    "field {n}: unknown piece number {old} (1 Marshal … 9 Scout, 10 Spy, 11 Flag, 12 Bomb)"
                ));
            }
        };
        *cell = rank.index() as u8 + 1;
    }
    Ok(())
}

/// Owner-view `cells` placed and validated for `color`.
fn placed(
    rules: &Ruleset,
    geometry: Geometry,
    cells: &[u8],
    color: Color,
) -> Result<Deployment, stratego_rules::DeploymentError> {
    let pieces = cells
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c != 0)
        .map(|(i, &c)| (geometry.square(color, i), Rank::ALL[usize::from(c - 1)]));
    Deployment::new(rules, color, pieces)
}

/// A setup must be legal for either colour, since a pair's games swap the colours; a
/// ruleset whose two setup areas differ (lakes in one of them) can refuse it for Blue only.
fn check_both(rules: &Ruleset, geometry: Geometry, cells: &[u8]) -> Result<(), String> {
    for color in Color::ALL {
        placed(rules, geometry, cells, color).map_err(|e| match color {
            Color::Red => e.to_string(),
            Color::Blue => format!("placed for Blue: {e}"),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
    }

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    fn from_text(text: &str, rules: &Ruleset) -> Result<SetupBook, BookError> {
        SetupBook::from_bytes(Path::new("book.txt"), text.as_bytes(), rules)
    }

    fn err(text: &str) -> String {
        from_text(text, &Ruleset::classic()).unwrap_err().to_string()
    }

    /// A lake in Blue's setup area only, so that some setups fit Red and not Blue.
    fn lopsided() -> Ruleset {
        let json = r#"{"name": "lopsided", "width": 4, "height": 4, "lakes": ["a4"],
            "setup_ranks": {"red": [1, 1], "blue": [4, 4]}, "pieces": {"flag": 1, "scout": 2}}"#;
        Ruleset::from_json(json).unwrap()
    }

    const SETUP: &str = "B32222222S/6655554444/BX98877766/FB3B333B2B";

    #[test]
    fn plain_sample_round_trips() {
        let rules = Ruleset::classic();
        let book = SetupBook::load(&data("setups-sample.txt"), &rules).unwrap();
        assert_eq!(book.len(), 20);
        let text: Vec<String> = (0..book.len()).map(|i| book.text(i)).collect();
        let again = from_text(&text.join("\n"), &rules).unwrap();
        assert_eq!(again.len(), book.len());
        for (i, text) in text.iter().enumerate() {
            assert_eq!(&again.text(i), text);
            for color in Color::ALL {
                assert_eq!(again.deployment(i, color), book.deployment(i, color));
            }
            // The plain format is Red's rows form.
            assert_eq!(&book.deployment(i, Color::Red).to_rows(&rules), text);
        }
        assert_eq!(again.fingerprint(), book.fingerprint());
    }

    #[test]
    fn red_and_blue_placements_are_turned_by_180_degrees() {
        let rules = Ruleset::classic();
        let book = from_text(&format!("{SETUP} # Flag back-left\n"), &rules).unwrap();
        let (red, blue) = (book.deployment(0, Color::Red), book.deployment(0, Color::Blue));
        // Back-left corner: Flag; front-left corner: Bomb; front-right corner: Spy.
        assert_eq!(red.rank_at(sq("a1")), Some(Rank::Flag));
        assert_eq!(blue.rank_at(sq("j10")), Some(Rank::Flag));
        assert_eq!(red.rank_at(sq("a4")), Some(Rank::Bomb));
        assert_eq!(blue.rank_at(sq("j7")), Some(Rank::Bomb));
        assert_eq!(red.rank_at(sq("j4")), Some(Rank::Spy));
        assert_eq!(blue.rank_at(sq("a7")), Some(Rank::Spy));
        assert_eq!(red.rank_at(sq("b2")), Some(Rank::Marshal));
        assert_eq!(blue.rank_at(sq("i9")), Some(Rank::Marshal));
        for &(s, r) in red.pieces() {
            let turned = Square::new(9 - s.file(), 9 - s.rank()).unwrap();
            assert_eq!(blue.rank_at(turned), Some(r));
        }
        assert_eq!(red.to_rows(&rules), SETUP);
        // Blue's rows form runs from rank 10 and file a: the setup read backwards.
        assert_eq!(blue.to_rows(&rules), SETUP.chars().rev().collect::<String>());
    }

    #[test]
    fn gravon_order_is_front_row_first_from_the_owners_left() {
        // Line 1 of the database: the first piece field (Bomb) is the front-left square,
        // the last (Major) the back-right one; the Flag is in the back-left corner.
        let line = "1,1,12,2,10,3,9,6,8,3,9,6,7,12,8,5,4,1,9,9,4,9,12,7,12,9,9,6,7,5,9,5,11,12,7,12,5,8,8,8,6,4";
        let rules = Ruleset::classic();
        let book = from_text(line, &rules).unwrap();
        assert_eq!(book.text(0), "B9S8253825/4B367X2272/B4B2254626/FB4B633357");
        let (red, blue) = (book.deployment(0, Color::Red), book.deployment(0, Color::Blue));
        for (red_sq, blue_sq, rank) in [
            ("a4", "j7", Rank::Bomb),
            ("j1", "a10", Rank::Major),
            ("a1", "j10", Rank::Flag),
            ("f3", "e8", Rank::Marshal),
        ] {
            assert_eq!(red.rank_at(sq(red_sq)), Some(rank));
            assert_eq!(blue.rank_at(sq(blue_sq)), Some(rank));
        }
    }

    #[test]
    fn comments_blank_lines_and_spelling() {
        let rules = Ruleset::classic();
        let text = format!(
            "\u{feff}# a book\n\n  {SETUP}   # first\n{}\n# the end\n",
            "b32222222s / 6655554444 / bx98877766 / fb3b333b2b"
        );
        let book = from_text(&text, &rules).unwrap();
        assert_eq!(book.len(), 2, "duplicates are kept");
        assert_eq!(book.text(0), SETUP);
        assert_eq!(book.text(1), SETUP);
        assert_eq!(format!("{book:?}"), "SetupBook { entries: 2, ruleset: \"classic\" }");
    }

    #[test]
    fn plain_errors_name_the_line() {
        let cases = [
            (
                format!("# rows\n{SETUP}\nB32222222S/6655554444/BX98877766\n"),
                "book.txt:3: 3 rows given; Red's setup area has 4 (ranks 4 down to 1, separated by '/')",
            ),
            (
                format!("{SETUP}\n\n\n# x\n\n\nB32222222S/665555444/BX98877766/FB3B333B2B # short\n"),
                "book.txt:7: row 2 (rank 3) has 9 squares; the board is 10 wide",
            ),
            (
                "B32222222S/6655554444/BX98877766/FB3B333B2Z\n".to_owned(),
                "book.txt:1: square j1: unknown piece code 'Z' (use F S 2-9 X B, or . for empty)",
            ),
            (
                "B32222222S/6655554444/BX98877766/FBBB333B2B\n".to_owned(),
                "book.txt:1: Red places 7 bombs; the ruleset allows 6",
            ),
            (
                "B32222222S/6655554444/BX98877766/F.3B333B2B\n".to_owned(),
                "book.txt:1: Red places 5 bombs; the ruleset requires 6",
            ),
            (format!("{SETUP} extra\n"), "book.txt:1: row 4 has a space in it (a comment starts with '#')"),
            (
                "a1=F b1=B\n".to_owned(),
                "book.txt:1: \"a1=F b1=B\" is not a book setup: write the rows from the front row to the back row, \
                 separated by '/'",
            ),
            ("# nothing\n\n".to_owned(), "book.txt: the book holds no setup"),
        ];
        for (text, want) in cases {
            assert_eq!(err(&text), want);
        }
        let bad = SetupBook::from_bytes(Path::new("book.txt"), b"# ok\n\xff\n", &Ruleset::classic()).unwrap_err();
        assert_eq!(bad.to_string(), "book.txt: line 2 is not UTF-8 text");
        let missing = SetupBook::load(Path::new("/nonexistent/book.txt"), &Ruleset::classic()).unwrap_err();
        assert!(missing.to_string().starts_with("/nonexistent/book.txt: cannot read the book: "), "{missing}");
    }

    #[test]
    fn gravon_errors_name_the_line_and_id() {
        let good = "1,1,12,2,10,3,9,6,8,3,9,6,7,12,8,5,4,1,9,9,4,9,12,7,12,9,9,6,7,5,9,5,11,12,7,12,5,8,8,8,6,4";
        let cases = [
            (format!("{good}\n55123,0,12,2,10\n"), "book.txt: setup on line 2 (id 55123): 5 fields, expected 42"),
            (
                format!("{good}\r\n{}\r\n", good.replacen("1,1,12,2", "7,1,13,2", 1)),
                "book.txt: setup on line 2 (id 7): field 3: unknown piece number 13 (1 Marshal … 9 Scout, 10 Spy, \
                 11 Flag, 12 Bomb)",
            ),
            (
                good.replacen(",11,", ",x,", 1),
                "book.txt: setup on line 1 (id 1): field 33 is \"x\", not a piece number",
            ),
            (
                good.replacen(",11,", ",12,", 1),
                "book.txt: setup on line 1 (id 1): Red places 7 bombs; the ruleset allows 6",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(err(&text), want);
        }
        let barrage = from_text(good, &Ruleset::barrage()).unwrap_err();
        assert_eq!(
            barrage.to_string(),
            "book.txt: the book does not fit ruleset barrage, which needs 8 pieces in 40 squares (4 rows of 10); the \
             book's Gravon setups are classic: 40 pieces in 4 rows of 10"
        );
    }

    #[test]
    fn setup_must_fit_blue_too() {
        // A lake in Blue's setup area only: the piece on Red's right-hand corner d1 would stand
        // in it when the setup is turned for Blue.
        let rules = lopsided();
        assert_eq!(
            from_text(".F22", &rules).unwrap_err().to_string(),
            "book.txt:1: placed for Blue: square a4 is outside Blue's setup area"
        );
    }

    #[test]
    fn quick_check_agrees_with_the_rules_crate() {
        let sample = SetupBook::load(&data("gravon-setups-sample.zip"), &Ruleset::classic()).unwrap();
        let free = Ruleset::from_json(r#"{"name": "free", "exact_counts": false}"#).unwrap();
        let lopsided = lopsided();
        let barrage_setup = "B........./...S....../..2..2..../F.X.9.3...";
        let books = [
            (Ruleset::classic(), sample.clone()),
            (free.clone(), sample),
            (free.clone(), from_text(barrage_setup, &free).unwrap()),
            (Ruleset::barrage(), from_text(barrage_setup, &Ruleset::barrage()).unwrap()),
            (lopsided.clone(), from_text("F22.", &lopsided).unwrap()),
        ];
        let mut compared = 0;
        for (rules, book) in &books {
            let geometry = Geometry::of(rules).unwrap();
            let quick = QuickCheck::new(rules, geometry);
            let empty = vec![0; geometry.cells()];
            assert!(!quick.accepts(&empty) && check_both(rules, geometry, &empty).is_err());
            for i in 0..book.len().min(20) {
                let base = book.entry(i).to_vec();
                for cell in 0..base.len() {
                    for code in 0..=12 {
                        let mut cells = base.clone();
                        cells[cell] = code;
                        let slow = check_both(rules, geometry, &cells);
                        assert_eq!(quick.accepts(&cells), slow.is_ok(), "{} {cells:?}: {slow:?}", rules.name());
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 20_000);
    }

    #[test]
    fn sample_zip_holds_200_legal_setups() {
        let rules = Ruleset::classic();
        let book = SetupBook::load(&data("gravon-setups-sample.zip"), &rules).unwrap();
        assert_eq!(book.len(), 200);
        for i in 0..book.len() {
            for color in Color::ALL {
                let d = book.deployment(i, color);
                assert_eq!(d.pieces().len(), 40);
                assert_eq!(Deployment::new(&rules, color, d.pieces().iter().copied()).unwrap(), d);
            }
        }
        let isf = SetupBook::load(&data("gravon-setups-sample.zip"), &Ruleset::isf()).unwrap();
        assert_eq!(isf.fingerprint(), book.fingerprint());
        // The plain sample was converted from the database's first lines.
        let plain = SetupBook::load(&data("setups-sample.txt"), &rules).unwrap();
        for i in 0..plain.len() {
            assert_eq!(plain.text(i), book.text(i));
        }
    }

    #[test]
    fn fingerprint_follows_the_setups_not_the_comments() {
        let rules = Ruleset::classic();
        let other = "B32222222S/6655554444/BX98877766/BF3B333B2B";
        let base = from_text(&format!("{SETUP}\n{other}\n"), &rules).unwrap().fingerprint();
        let commented = from_text(&format!("# mine\n{SETUP} # one\n\n{other}   # two\n"), &rules).unwrap();
        assert_eq!(commented.fingerprint(), base);
        let changed = from_text(&format!("{SETUP}\nB32222222S/6655554444/BX98877766/FB3B333BB2\n"), &rules).unwrap();
        assert_ne!(changed.fingerprint(), base);
        let swapped = from_text(&format!("{other}\n{SETUP}\n"), &rules).unwrap();
        assert_ne!(swapped.fingerprint(), base);
        let shorter = from_text(SETUP, &rules).unwrap();
        assert_ne!(shorter.fingerprint(), base);
    }

    #[test]
    #[ignore = "needs ../shared/data/gravon"]
    fn full_gravon_database() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/gravon/gravon-setups.zip");
        let book = SetupBook::load(&path, &Ruleset::classic()).unwrap();
        assert_eq!(book.len(), 160_951);
    }
}
