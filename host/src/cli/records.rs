//! Flags of the commands that read records rather than play: `merge`, `export`, `replay`
//! and `convert`, each turned into its command's options (`commands::<name>`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::commands::convert::{ConvertOptions, RecordFormat};
use crate::commands::export::ExportOptions;
use crate::commands::merge::MergeOptions;
use crate::commands::replay::ReplayOptions;

/// `merge` options.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The `--out` directories of the shards (each with its manifest.json and games.jsonl).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Write the merged report's index page (DIR/index.html) and a viewer page per game
    /// (DIR/games/), as a run's --out directory has.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// For a tournament: fix one bot's rating (NAME, at 0, or NAME=ELO) instead of
    /// averaging the ratings to 0, as `tournament --anchor`.
    #[arg(long, value_name = "NAME[=ELO]")]
    pub anchor: Option<String>,
    /// Merge even when a bot's program differs between the directories (or changed in the
    /// middle of one): by default that is refused, as the report would mix two versions.
    #[arg(long)]
    pub mixed_versions: bool,
    /// Skip the lines of the records files that are not game records (a corrupted line),
    /// saying how many, instead of refusing the directory (the games on those lines are
    /// then missing from the report, and named as such).
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Write the ids of the missing games to FILE, one a line (stderr names only a few).
    #[arg(long, value_name = "FILE")]
    pub missing_list: Option<PathBuf>,
    /// With --out: games listed on each index page (index.html, then index-2.html…).
    #[arg(long, value_name = "N", default_value_t = crate::display::files::viewer::GAMES_PER_PAGE,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub games_per_page: usize,
}

impl MergeArgs {
    /// The options of `merge`, as given.
    pub fn into_options(self) -> MergeOptions {
        MergeOptions {
            dirs: self.dirs,
            json: self.json,
            out: self.out,
            anchor: self.anchor,
            mixed_versions: self.mixed_versions,
            skip_bad_lines: self.skip_bad_lines,
            missing_list: self.missing_list,
            games_per_page: self.games_per_page,
        }
    }
}

/// `export` options.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A records file (games.jsonl) or a run's --out directory; with --pgn, any number
    /// (the shards of a plan, several runs).
    #[arg(value_name = "RECORDS", required = true)]
    pub records: Vec<PathBuf>,
    /// Only this game (its id); default: every game of the file, with a game selector.
    #[arg(long, value_name = "ID")]
    pub game: Vec<String>,
    /// The HTML file to write: one self-contained page (no network).
    #[arg(long, value_name = "OUT.html", required_unless_present = "pgn", conflicts_with = "pgn")]
    pub html: Option<PathBuf>,
    /// Write the results as PGN headers instead (no moves), for Ordo and BayesElo: one
    /// game a block of tags (Event, Site, Date, Round, White = Red, Black = Blue, Result,
    /// GameId, Termination) and its result (1-0, 0-1, 1/2-1/2).
    #[arg(long, value_name = "OUT.pgn")]
    pub pgn: Option<PathBuf>,
    /// The page's title (default: the records file's name).
    #[arg(long)]
    pub title: Option<String>,
    /// Replace OUT.html even if it is not a page this host wrote (never a records file, a
    /// manifest or a database).
    #[arg(long)]
    pub force: bool,
    /// Skip the lines of the records file that are not game records (a corrupted line),
    /// saying how many, instead of refusing the file.
    #[arg(long)]
    pub skip_bad_lines: bool,
}

impl ExportArgs {
    /// The options of `export`, as given.
    pub fn into_options(self) -> ExportOptions {
        ExportOptions {
            records: self.records,
            game: self.game,
            html: self.html,
            pgn: self.pgn,
            title: self.title,
            force: self.force,
            skip_bad_lines: self.skip_bad_lines,
        }
    }
}

/// `replay` options.
#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    /// The records: a games.jsonl file, or a directory holding one (an `--out` directory).
    #[arg(value_name = "RECORDS")]
    pub records: PathBuf,
    /// The game to show, by its game_id [default: the first game of the file].
    #[arg(long, value_name = "ID")]
    pub game: Option<String>,
    /// The ply to show (0: the setups). On a terminal the viewer starts there [default: 0];
    /// otherwise only the board at this ply is printed [default: every ply and the final
    /// board].
    #[arg(long, value_name = "N")]
    pub ply: Option<u32>,
    /// Whose eyes: red or blue (exactly what that side's bot was told: the opponent's ranks
    /// only once revealed) or spectator (everything).
    #[arg(long = "as", value_enum, value_name = "VIEW", default_value = "spectator")]
    pub view: crate::display::terminal::replay::Viewer,
    /// Skip the lines of the records file that are not game records (a corrupted line),
    /// saying how many, instead of refusing the file.
    #[arg(long)]
    pub skip_bad_lines: bool,
}

impl ReplayArgs {
    /// The options of `replay`, as given.
    pub fn into_options(self) -> ReplayOptions {
        ReplayOptions {
            records: self.records,
            game: self.game,
            ply: self.ply,
            view: self.view,
            skip_bad_lines: self.skip_bad_lines,
        }
    }
}

/// `convert` options.
#[derive(Args, Debug, Clone)]
pub struct ConvertArgs {
    /// Input: game records (a games.jsonl file, or an --out directory holding one), or
    /// Gravon XML (an .xml file, a .zip of them, or a directory of .xml and .zip files).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Output: records are written to OUT.jsonl or OUT/games.jsonl; Gravon XML to OUT.xml
    /// (one game), OUT.zip, or a directory OUT of <game id>.xml files. It must not exist
    /// yet (a directory may exist if empty).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// The output format, when IN does not tell (a directory holding both kinds, or a
    /// file without a telling extension or content).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub to: Option<FormatArg>,
    /// Only these games (by game id; repeat), for records → Gravon.
    #[arg(long, value_name = "ID")]
    pub game: Vec<String>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

impl ConvertArgs {
    /// The options of `convert`, as given.
    pub fn into_options(self) -> ConvertOptions {
        ConvertOptions {
            input: self.input,
            output: self.output,
            to: self.to.map(RecordFormat::from),
            game: self.game,
            json: self.json,
        }
    }
}

/// `convert --to`: a game file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// The arena's game records (JSON Lines, RECORDS.md).
    Records,
    /// Gravon (StraDoS2) XML.
    Gravon,
}

impl From<FormatArg> for RecordFormat {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Records => RecordFormat::Records,
            FormatArg::Gravon => RecordFormat::Gravon,
        }
    }
}
