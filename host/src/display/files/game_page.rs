//! One game viewer page: the games' data as JSON in the page, and the viewer's script
//! (its code, its style and the rules crate as WebAssembly) that replays them in the
//! browser. The index pages that link these pages are [`crate::display::files::viewer`],
//! which re-exports what is public here.

use serde::Serialize;
use stratego_protocol::reason::Reason;
use stratego_protocol::record::{BotInfo, GameRecord};
use stratego_rules::{ByColor, Color, Deployment, Game, Ruleset, RulesetSpec};

use crate::text::html_escape;

const TEMPLATE: &str = include_str!("viewer.html");
const STYLE: &str = include_str!("viewer.css");
const SCRIPT: &str = include_str!("viewer.js");
/// The `host/viewer-wasm` module, base64 (made by the build script).
pub(crate) const WASM_BASE64: &str = include_str!(concat!(env!("OUT_DIR"), "/viewer.wasm.b64"));

/// The file name of the viewer's script beside the game pages of an index (in `games/`).
pub const ASSET_NAME: &str = "viewer.js";

/// Everything the page shows, serialized into it.
#[derive(Serialize)]
struct PageData {
    title: String,
    games: Vec<GameData>,
}

/// One game as the page carries it: its facts and its moves (the script computes the
/// positions).
#[derive(Serialize)]
struct GameData {
    id: String,
    index: u32,
    /// The ruleset's name.
    ruleset: String,
    /// The ruleset, for the rules in the browser.
    rules: RulesetSpec,
    bots: ByColor<BotData>,
    time_control: TimeData,
    result: ResultData,
    /// Why the game has no board (a setup was missing), else `None`.
    no_board: Option<String>,
    /// As a string: a JavaScript number holds 53 bits, and a seed has 64 (…242422 shown as
    /// …242000).
    #[serde(serialize_with = "as_string")]
    seed: u64,
    started_unix_ms: u64,
    duration_ms: u64,
    host_version: String,
    /// Both setups as recorded, when the game started.
    setups: Option<ByColor<String>>,
    /// The moves, `e4-e5`, separated by spaces.
    moves: String,
    /// Each ply's think time, microseconds.
    times: Vec<u64>,
    /// `[ply, microseconds]` of the plies with machine stalls credited (1-based plies).
    stalls: Vec<(u32, u64)>,
    /// The faults forgiven under `--strikes`: a move played for the bot.
    strikes: Vec<StrikeData>,
}

#[derive(Serialize)]
struct BotData {
    name: String,
    command: String,
    reported_name: Option<String>,
    version: Option<String>,
    author: Option<String>,
    info: Vec<String>,
    info_plies: Vec<u32>,
    info_dropped: u64,
    stderr_tail: String,
    think_us: u64,
    clock_ms: Option<u64>,
    strikes: usize,
    exit: Option<String>,
}

#[derive(Serialize)]
struct TimeData {
    move_ms: Option<u64>,
    bank_ms: Option<u64>,
    increment_ms: u64,
}

#[derive(Serialize)]
struct ResultData {
    winner: Option<Color>,
    reason: String,
    message: String,
    faulty: Option<Color>,
    /// One line for people: `Blue wins (flag captured)`.
    headline: String,
}

#[derive(Serialize)]
struct StrikeData {
    /// The ply (1-based).
    ply: u32,
    /// A move timeout: the bank is left the increment (as the host's clock does).
    timeout: bool,
    /// What happened, for people.
    text: String,
}

/// How a game page gets the viewer's script.
enum Script<'a> {
    /// Inlined: one self-contained file.
    Inline,
    /// `<script src>` of this relative URL.
    Shared(&'a str),
}

/// The viewer's script: its code, its style and its WebAssembly module (base64) in one
/// file, which a page runs after its data element. It starts with a comment holding
/// [`crate::run::output_file::PAGE_MARKER`], so that the host knows it as its own; it holds
/// neither `</script` nor `<!--`, so it can also be inlined in a page.
pub fn viewer_asset() -> String {
    let style = serde_json::to_string(STYLE).expect("a string serializes");
    let mut out = String::with_capacity(SCRIPT.len() + style.len() + WASM_BASE64.len() + 256);
    out.push_str("/* ");
    out.push_str(crate::run::output_file::PAGE_MARKER);
    out.push_str(" The stratego-host game viewer: its script, style and rules (WebAssembly). */\n");
    out.push_str("(function (STYLE, WASM_BASE64) {\n");
    out.push_str(SCRIPT);
    out.push_str("\n})(");
    out.push_str(&escape_script_json(&style));
    out.push_str(", \"");
    out.push_str(WASM_BASE64);
    out.push_str("\");\n");
    out
}

/// Exports `records` as one self-contained HTML page titled `title` (the viewer's script
/// inlined): a board with playback controls, the move list, captured pieces, think times
/// and clocks, each game's result, the spectator's view and each bot's own view, and a game
/// selector when there are several games. A record without both setups (a forfeit before
/// the game) shows its result only.
///
/// # Errors
/// No records, or a record that does not replay (a bad ruleset or setup, or a ply that is
/// illegal or differs from the rules' fight).
pub fn export_html(records: &[GameRecord], title: &str) -> Result<String, String> {
    page_html(records, title, &Script::Inline)
}

/// [`export_html`] of a page that loads the viewer's script from `script_src` (a relative
/// URL of the file [`viewer_asset`] makes) instead of holding it.
///
/// # Errors
/// As [`export_html`]'s.
pub fn game_page_html(records: &[GameRecord], title: &str, script_src: &str) -> Result<String, String> {
    page_html(records, title, &Script::Shared(script_src))
}

fn page_html(records: &[GameRecord], title: &str, script: &Script<'_>) -> Result<String, String> {
    if records.is_empty() {
        return Err("no games to show".into());
    }
    let games = records
        .iter()
        .map(|r| game_data(r).map_err(|e| format!("game {}: {e}", r.game_id)))
        .collect::<Result<Vec<_>, _>>()?;
    let data = PageData { title: title.to_owned(), games };
    let json = serde_json::to_string(&data).map_err(|e| e.to_string())?;
    let script = match script {
        Script::Inline => format!("<script>\n{}</script>", viewer_asset()),
        Script::Shared(src) => format!("<script src=\"{}\"></script>", html_escape(src)),
    };
    Ok(fill_template(
        TEMPLATE,
        &[("TITLE", &html_escape(title)), ("SCRIPT", &script), ("DATA", &escape_script_json(&json))],
    ))
}

/// Makes JSON safe inside a `<script>` element: `<`, `>`, `&` and the JavaScript line
/// separators become `\uXXXX` escapes. They can occur only inside JSON strings, where the
/// escapes mean the same characters, so the JSON still parses to the same value.
fn escape_script_json(json: &str) -> String {
    let bytes = json.as_bytes();
    // `<`, `>`, `&` are ASCII; U+2028/U+2029 are E2 80 A8/A9 in UTF-8 (an E2 byte never
    // occurs inside another character's encoding, so a cut there is at a character
    // boundary). Found with SIMD byte searches; the runs between are copied whole.
    let mut hits: Vec<usize> =
        memchr::memchr3_iter(b'<', b'>', b'&', bytes).chain(memchr::memchr_iter(0xE2, bytes)).collect();
    hits.sort_unstable();
    let mut out = String::with_capacity(json.len() + hits.len() * 6);
    let mut copied = 0;
    for i in hits {
        let escape = match &bytes[i..bytes.len().min(i + 3)] {
            [b'<', ..] => "\\u003c",
            [b'>', ..] => "\\u003e",
            [b'&', ..] => "\\u0026",
            [0xE2, 0x80, 0xA8] => "\\u2028",
            [0xE2, 0x80, 0xA9] => "\\u2029",
            _ => continue,
        };
        out.push_str(&json[copied..i]);
        out.push_str(escape);
        copied = i + if bytes[i] == 0xE2 { 3 } else { 1 };
    }
    out.push_str(&json[copied..]);
    out
}

/// Replaces each `{{NAME}}` of `template` in one pass, so an inserted value is never scanned
/// for further markers.
pub(crate) fn fill_template(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}").and_then(|end| values.iter().find(|(k, _)| *k == &after[..end]).map(|(_, v)| (end, v))) {
            Some((end, value)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A game's data for its page. The host replays the record here too, so that a record that
/// does not replay (a bad setup, an illegal ply, a fight other than the rules') gets no
/// page rather than a page that stops short.
fn game_data(r: &GameRecord) -> Result<GameData, String> {
    let rules = Ruleset::try_from(r.ruleset.clone()).map_err(|e| e.to_string())?;
    let mut data = GameData {
        id: r.game_id.clone(),
        index: r.index,
        ruleset: rules.name().to_owned(),
        rules: r.ruleset.clone(),
        bots: ByColor::new_with(|c| bot_data(&r.bots[c])),
        time_control: TimeData {
            move_ms: r.time_control.move_ms,
            bank_ms: r.time_control.bank_ms,
            increment_ms: r.time_control.increment_ms,
        },
        result: ResultData {
            winner: r.result.winner,
            reason: r.result.reason.code().to_owned(),
            message: r.result.message.clone(),
            faulty: r.result.faulty,
            headline: headline(r.result.winner, r.result.reason),
        },
        no_board: None,
        seed: r.seed,
        started_unix_ms: r.started_unix_ms,
        duration_ms: r.duration_ms,
        host_version: r.host_version.clone(),
        setups: None,
        moves: String::with_capacity(r.plies.len() * 6),
        times: Vec::with_capacity(r.plies.len()),
        stalls: Vec::new(),
        strikes: Vec::new(),
    };
    let (Some(red_text), Some(blue_text)) = (&r.deployments.red, &r.deployments.blue) else {
        if !r.plies.is_empty() {
            return Err("plies without both setups".into());
        }
        let missing: Vec<&str> =
            Color::ALL.iter().filter(|&&c| r.deployments[c].is_none()).map(|&c| c.name()).collect();
        data.no_board = Some(format!("The game did not start: no valid setup from {}.", missing.join(" and ")));
        return Ok(data);
    };
    let red = Deployment::parse(&rules, Color::Red, red_text).map_err(|e| format!("Red's setup: {e}"))?;
    let blue = Deployment::parse(&rules, Color::Blue, blue_text).map_err(|e| format!("Blue's setup: {e}"))?;
    let mut game = Game::new(rules, &red, &blue).map_err(|e| e.to_string())?;
    data.setups = Some(ByColor::new(red_text.clone(), blue_text.clone()));
    for (i, p) in r.plies.iter().enumerate() {
        let n = i as u32 + 1;
        let played = game.play(p.ply.mv).map_err(|e| format!("ply {n} {}: {e}", p.ply.mv))?;
        if played != p.ply {
            return Err(format!("ply {n}: recorded {:?}, replayed {:?}", p.ply, played));
        }
        if i > 0 {
            data.moves.push(' ');
        }
        data.moves.push_str(&played.mv.to_string());
        data.times.push(p.time_us);
        if p.stall_us > 0 {
            data.stalls.push((n, p.stall_us));
        }
        if let Some(s) = r.bots[played.color].strikes.iter().find(|s| s.ply == n) {
            data.strikes.push(StrikeData {
                ply: n,
                timeout: s.reason == Reason::MoveTimeout,
                text: format!("{}: {}; the host played {} instead", s.reason.code(), s.message, s.replaced_by),
            });
        }
    }
    Ok(data)
}

fn bot_data(b: &BotInfo) -> BotData {
    BotData {
        name: b.name.clone(),
        command: b.command.join(" "),
        reported_name: b.reported_name.clone(),
        version: b.version.clone(),
        author: b.author.clone(),
        info: b.info.clone(),
        info_plies: b.info_plies.clone(),
        info_dropped: b.info_dropped,
        stderr_tail: b.stderr_tail.clone(),
        think_us: b.think_us,
        clock_ms: b.clock_ms,
        strikes: b.strikes.len(),
        exit: b.exit.clone(),
    }
}

fn headline(winner: Option<Color>, reason: Reason) -> String {
    let why = reason.code().replace('_', " ");
    match winner {
        Some(c) => format!("{c} wins ({why})"),
        None => format!("Draw ({why})"),
    }
}

/// A 64-bit value as a JSON string, exact in the page's JavaScript.
pub(crate) fn as_string<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use stratego_protocol::record::{RecordPly, RecordResult};

    use stratego_rules::{CombatResult, Move, RulesetSpec};

    const RED: &str = "B32222222S/6655554444/BX98877766/FB3B333B2B";
    const BLUE: &str = "FB3B333B2B/BX98877766/6655554444/B32222222S";

    /// A record of `plies` plies chosen deterministically from the legal moves (or fewer,
    /// if the game ends first), with a 10 s bank and 0.1 s increment.
    pub(crate) fn played_record(plies: usize) -> GameRecord {
        let rules = Ruleset::classic();
        let red = Deployment::parse(&rules, Color::Red, RED).unwrap();
        let blue = Deployment::parse(&rules, Color::Blue, BLUE).unwrap();
        let mut game = Game::new(rules.clone(), &red, &blue).unwrap();
        let mut moves = Vec::new();
        let mut recorded = Vec::new();
        let mut seed = 7u64;
        while !game.is_over() && recorded.len() < plies {
            game.legal_moves(&mut moves);
            // Prefer attacks, so that the game has fights to reveal ranks.
            let attacks: Vec<Move> = moves.iter().copied().filter(|m| game.piece_at(m.to).is_some()).collect();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let pool = if !attacks.is_empty() && seed >> 62 != 0 { &attacks } else { &moves };
            let mv = pool[(seed >> 33) as usize % pool.len()];
            let ply = game.play(mv).unwrap();
            recorded.push(RecordPly {
                ply,
                time_us: 1000 + recorded.len() as u64,
                stall_us: 0,
                over_us: 0,
                lag_us: None,
                lag_credit_us: 0,
            });
        }
        let result = match game.outcome() {
            Some(o) => {
                RecordResult { winner: o.winner, reason: Reason::from(o.reason), message: format!("{o}"), faulty: None }
            }
            None => RecordResult {
                winner: Some(Color::Red),
                reason: Reason::Resignation,
                message: "Blue resigned".into(),
                faulty: None,
            },
        };
        // Built through JSON, as a record file is read, so that optional fields keep their defaults.
        let bot = |name: &str| {
            serde_json::json!({"name": name, "command": [name], "stderr_tail": "", "stderr_bytes": 0,
                "bytes_to_bot": 0, "bytes_from_bot": 0, "think_us": 0})
        };
        serde_json::from_value(serde_json::json!({
            "game_id": "0000000000000007-1", "index": 0, "match_seed": 7, "seed": 7, "host_version": "0.1.0",
            "started_unix_ms": 0, "duration_ms": 1, "ruleset": RulesetSpec::from(rules),
            "time_control": {"startup_ms": 1000, "setup_ms": 1000, "move_ms": null, "bank_ms": 10_000, "increment_ms": 100},
            "bots": {"red": bot("red-bot"), "blue": bot("blue-bot")},
            "deployments": {"red": RED, "blue": BLUE},
            "plies": recorded,
            "result": result,
        }))
        .expect("a record")
    }

    /// The JSON embedded in a page.
    fn embedded(page: &str) -> serde_json::Value {
        let open = "<script type=\"application/json\" id=\"data\">";
        let start = page.find(open).expect("the data element") + open.len();
        let end = start + page[start..].find("</script>").expect("its end");
        serde_json::from_str(&page[start..end]).expect("the data is JSON")
    }

    /// A page's data is the record's moves, times and setups; no position is in it (the
    /// browser computes them).
    #[test]
    fn a_page_carries_the_moves_not_the_positions() {
        let mut record = played_record(300);
        record.plies[4].stall_us = 777;
        let n = record.plies.len();
        assert!(n > 50, "the test game is long enough: {n}");
        let page = export_html(std::slice::from_ref(&record), "test").unwrap();
        assert!(page.contains(crate::run::output_file::PAGE_MARKER), "the host knows its own pages");
        let data = embedded(&page);
        let g = &data["games"][0];
        assert!(g.get("states").is_none() && g.get("plies").is_none());
        let moves: Vec<String> = record.plies.iter().map(|p| p.ply.mv.to_string()).collect();
        assert_eq!(g["moves"], moves.join(" "));
        let times: Vec<u64> = record.plies.iter().map(|p| p.time_us).collect();
        assert_eq!(g["times"], serde_json::json!(times));
        assert_eq!(g["stalls"], serde_json::json!([[5, 777]]));
        assert_eq!(g["setups"]["red"], RED);
        assert_eq!(g["setups"]["blue"], BLUE);
        assert_eq!(g["rules"], serde_json::to_value(&record.ruleset).unwrap());
        // The inlined script holds the module.
        assert!(page.contains(WASM_BASE64) && WASM_BASE64.len() > 10_000);
        // A page beside its script holds neither.
        let shared = game_page_html(std::slice::from_ref(&record), "test", ASSET_NAME).unwrap();
        assert!(!shared.contains(WASM_BASE64) && !shared.contains(SCRIPT));
        assert!(shared.contains("<script src=\"viewer.js\"></script>"));
        assert_eq!(embedded(&shared), data);
    }

    /// A record of `plies` plies from the start position, attacking only when nothing else
    /// is legal, so that it lasts (a game of a thousand plies), with think times of a few
    /// milliseconds, as a fast bot's.
    pub(crate) fn long_record(plies: usize) -> GameRecord {
        let mut record = played_record(0);
        let rules = Ruleset::classic();
        let red = Deployment::parse(&rules, Color::Red, RED).unwrap();
        let blue = Deployment::parse(&rules, Color::Blue, BLUE).unwrap();
        let mut game = Game::new(rules, &red, &blue).unwrap();
        let mut moves = Vec::new();
        let mut seed = 11u64;
        while !game.is_over() && record.plies.len() < plies {
            game.legal_moves(&mut moves);
            let quiet: Vec<Move> = moves.iter().copied().filter(|m| game.piece_at(m.to).is_none()).collect();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let pool = if quiet.is_empty() { &moves } else { &quiet };
            let mv = pool[(seed >> 33) as usize % pool.len()];
            let ply = game.play(mv).unwrap();
            record.plies.push(RecordPly {
                ply,
                time_us: 1000 + (seed >> 40) % 20_000,
                stall_us: 0,
                over_us: 0,
                lag_us: None,
                lag_credit_us: 0,
            });
        }
        record
    }

    /// The issue's target: a 1,000-ply game's page beside its script is at most 30 KB.
    #[test]
    fn a_thousand_ply_page_is_at_most_30_kb() {
        let record = long_record(1000);
        assert_eq!(record.plies.len(), 1000, "the test game lasts");
        let page = game_page_html(std::slice::from_ref(&record), "a long game", ASSET_NAME).unwrap();
        assert!(page.len() <= 30_000, "{} bytes", page.len());
        assert!(page.len() > 10_000, "it does carry the moves: {} bytes", page.len());
    }

    /// The script can be inlined, and the host knows it as its own file.
    #[test]
    fn the_viewer_script_is_one_file_the_host_knows() {
        let asset = viewer_asset();
        let lower = asset.to_ascii_lowercase();
        assert!(!lower.contains("</script") && !lower.contains("<!--"));
        assert!(asset.contains(WASM_BASE64));
        let dir = std::env::temp_dir().join(format!("stratego-viewer-asset-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(ASSET_NAME);
        std::fs::write(&path, &asset).unwrap();
        assert_eq!(crate::run::output_file::existing(&path), crate::run::output_file::Existing::HostPage);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn record_text_cannot_break_out_of_the_page() {
        let nasty = "</script><script>alert(1)</script><!--";
        let mut record = played_record(20);
        record.bots.red.name = nasty.into();
        record.bots.blue.info = vec![format!("info {nasty} & \u{2028}\u{2029} end")];
        record.result.message = format!("<!-- {nasty}");
        let page = export_html(&[record], &format!("title {nasty}")).unwrap();
        // The page's own script elements only: the data, the code.
        assert_eq!(page.matches("<script").count(), 2, "{page}");
        assert_eq!(page.matches("</script>").count(), 2);
        assert!(!page.contains("<!--"));
        assert!(!page.contains("alert(1)</"));
        assert!(!page.contains('\u{2028}') && !page.contains('\u{2029}'));
        assert!(page.contains("<title>title &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--</title>"));
        assert!(page.contains(r#"\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e\u003c!--"#));
        // And the JSON still carries the exact text.
        let data = embedded(&page);
        assert_eq!(data["games"][0]["bots"]["red"]["name"], nasty);
        assert_eq!(data["games"][0]["bots"]["blue"]["info"][0], format!("info {nasty} & \u{2028}\u{2029} end"));
        assert_eq!(data["title"], format!("title {nasty}"));
    }

    #[test]
    fn script_json_escapes_only_what_could_end_the_element() {
        // Other characters that start with the byte E2 (U+2027, the euro sign) stay.
        let json = "{\"a\":\"é<b>&\u{2028}\u{2029}\u{2027}€\",\"z\":1}";
        let out = escape_script_json(json);
        assert_eq!(out, "{\"a\":\"é\\u003cb\\u003e\\u0026\\u2028\\u2029\u{2027}€\",\"z\":1}");
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, serde_json::from_str::<serde_json::Value>(json).unwrap());
        assert_eq!(escape_script_json(""), "");
        assert_eq!(escape_script_json("\u{2028}"), "\\u2028");
    }

    #[test]
    fn a_forfeit_before_the_game_shows_its_result() {
        let mut record = played_record(0);
        record.deployments.blue = None;
        record.result = RecordResult {
            winner: Some(Color::Red),
            reason: Reason::InvalidSetup,
            message: "blue-bot (Blue) forfeits: invalid setup".into(),
            faulty: Some(Color::Blue),
        };
        let page = export_html(&[record.clone()], "forfeit").unwrap();
        let data = embedded(&page);
        let g = &data["games"][0];
        assert_eq!(g["setups"], serde_json::Value::Null);
        assert_eq!(g["moves"], "");
        assert_eq!(g["result"]["reason"], "invalid_setup");
        assert_eq!(g["result"]["headline"], "Red wins (invalid setup)");
        assert!(g["no_board"].as_str().unwrap().contains("blue"));
        // Plies without setups do not replay.
        record.plies = played_record(1).plies;
        assert!(export_html(&[record], "bad").unwrap_err().contains("plies without both setups"));
        assert!(export_html(&[], "none").is_err());
    }

    #[test]
    fn a_wrong_fight_is_an_error() {
        let mut record = played_record(300);
        let i = record.plies.iter().position(|p| p.ply.combat.is_some()).expect("a fight");
        let c = record.plies[i].ply.combat.as_mut().unwrap();
        c.result =
            if c.result == CombatResult::BothRemoved { CombatResult::AttackerWins } else { CombatResult::BothRemoved };
        let err = export_html(&[record], "bad").unwrap_err();
        assert!(err.contains(&format!("ply {}: recorded", i + 1)), "{err}");
    }

    #[test]
    fn the_template_is_filled_in_one_pass() {
        let out = fill_template("a{{X}}b{{Y}}c{{Z}}", &[("X", "{{Y}}"), ("Y", "<y>")]);
        assert_eq!(out, "a{{Y}}b<y>c{{Z}}");
        // A title that looks like a marker stays text.
        assert!(export_html(&[played_record(2)], "{{SCRIPT}}").unwrap().contains("<title>{{SCRIPT}}</title>"));
    }
}
