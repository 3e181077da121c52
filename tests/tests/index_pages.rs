//! Index pages: `tournament --out DIR` and `match --out DIR` write `DIR/index.html` with
//! the ranking (and crosstable) and a link per game to its viewer page in `DIR/games/`;
//! `ladder table --html OUT.html` does the same for the ladder's latest games. Through the
//! real binary and real bots; the page is read back and compared with the JSON summary.

use std::path::Path;
use std::process::Command;

use stratego_tests::read_records;
use stratego_tests::{CALM_CLOCK, CALM_MOVE_TIME, TempDir, host_bin};

/// Every `href="…"` of a page.
fn links(page: &str) -> Vec<String> {
    page.split("href=\"").skip(1).map(|rest| rest[..rest.find('"').unwrap()].to_owned()).collect()
}

/// The text of `<td … data-cell="i,j">TEXT</td>`.
fn cell(page: &str, i: usize, j: usize) -> String {
    let key = format!("data-cell=\"{i},{j}\">");
    let at = page.find(&key).unwrap_or_else(|| panic!("no cell {i},{j}")) + key.len();
    page[at..at + page[at..].find("</td>").unwrap()].to_owned()
}

/// The `data-bot` names of the ranking table, in order.
fn ranking(page: &str) -> Vec<String> {
    let table = &page[page.find("<table id=\"ranking\">").expect("a ranking table")..];
    let table = &table[..table.find("</table>").unwrap()];
    table.split("data-bot=\"").skip(1).map(|r| r[..r.find('"').unwrap()].to_owned()).collect()
}

/// Checks that every game of `records` is listed once and links an existing viewer page
/// holding that game.
fn check_games_linked(dir: &Path, page: &str, ids: &[String]) {
    let hrefs: Vec<String> = links(page).into_iter().filter(|h| h.starts_with("games/")).collect();
    assert_eq!(hrefs.len(), ids.len(), "a link per game");
    for id in ids {
        assert_eq!(page.matches(&format!("data-game=\"{id}\"")).count(), 1, "{id} listed once");
        let href = hrefs.iter().find(|h| h.contains(id.as_str())).unwrap_or_else(|| panic!("no link for {id}"));
        let viewer = std::fs::read_to_string(dir.join(href)).unwrap_or_else(|e| panic!("{href}: {e}"));
        assert!(viewer.contains("<script type=\"application/json\" id=\"data\">"), "{href} is a viewer page");
        assert!(viewer.contains(&format!("\"id\":\"{id}\"")), "{href} shows game {id}");
        // It loads the viewer's one script beside it (the rules as WebAssembly).
        assert!(viewer.contains("<script src=\"viewer.js\"></script>"), "{href} loads the shared script");
    }
    let script = std::fs::read_to_string(dir.join("games/viewer.js")).expect("games/viewer.js beside the pages");
    assert!(script.contains("WebAssembly.instantiate"), "the viewer's script");
}

#[test]
fn a_tournament_writes_an_index_with_its_crosstable_and_a_viewer_per_game() {
    let tmp = TempDir::new("index-tournament");
    let out_dir = tmp.join("t");
    let bots = 3;
    let out = Command::new(host_bin())
        .args(["tournament", "--bot", "sample-bot --strategy random", "--bot", "sample-bot", "--bot"])
        .arg("sample-bot --strategy search --worlds 2")
        .args(["--games", "2", "--seed", "5", "-j", "2", "--json", "--out"])
        .arg(&out_dir)
        .args(CALM_CLOCK)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("index.html") && stderr.contains("viewer pages"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let page = std::fs::read_to_string(out_dir.join("index.html")).expect("DIR/index.html");
    let records = read_records(&out_dir.join("games.jsonl")).unwrap();
    assert_eq!(records.len(), 3 * (bots - 1));
    let ids: Vec<String> = records.iter().map(|r| r.game_id.clone()).collect();
    check_games_linked(&out_dir, &page, &ids);
    // The ranking and crosstable are the JSON summary's.
    let names: Vec<String> =
        report["ranking"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(ranking(&page), names);
    let table = report["crosstable"].as_array().unwrap();
    assert_eq!(table.len(), bots);
    for (i, row) in table.iter().enumerate() {
        for (j, c) in row.as_array().unwrap().iter().enumerate() {
            let expected = if c.is_null() {
                "·".to_owned()
            } else {
                let p = c[0].as_f64().unwrap();
                let p = if p.fract() == 0.0 { format!("{p:.0}") } else { format!("{p:.1}") };
                format!("{p}/{}", c[1])
            };
            assert_eq!(cell(&page, i, j), expected, "crosstable {i},{j}");
        }
    }
    // Results in the games table are the records'.
    for r in &records {
        let row_at = page.find(&format!("data-game=\"{}\"", r.game_id)).unwrap();
        let row = &page[row_at..row_at + page[row_at..].find("</tr>").unwrap()];
        assert!(row.contains(r.result.reason.code()), "{row}");
        assert!(row.contains(&format!(">{}</td>", r.plies.len())), "{row}");
    }
}

#[test]
fn a_match_writes_an_index_too() {
    let tmp = TempDir::new("index-match");
    let out_dir = tmp.join("m");
    let out = Command::new(host_bin())
        .args(["match", "sample-bot --strategy random", "sample-bot", "--games", "2", "--seed", "2", "--json", "--out"])
        .arg(&out_dir)
        .args(CALM_CLOCK)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let page = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    let ids: Vec<String> = read_records(&out_dir.join("games.jsonl")).unwrap().into_iter().map(|r| r.game_id).collect();
    check_games_linked(&out_dir, &page, &ids);
    for b in summary["bots"].as_array().unwrap() {
        let name = b["name"].as_str().unwrap();
        let at = page.find(&format!("<tr data-bot=\"{name}\">")).unwrap_or_else(|| panic!("{name} in {page}"));
        let row = &page[at..at + page[at..].find("</tr>").unwrap()];
        for k in ["wins", "draws", "losses"] {
            assert!(row.contains(&format!("<td class=\"n\">{}</td>", b[k])), "{k} of {name}: {row}");
        }
    }
}

#[test]
fn a_ladder_table_html_links_its_games() {
    let tmp = TempDir::new("index-ladder");
    let db = tmp.join("ladder.db");
    let ladder = |args: &[&str]| {
        let out = Command::new(host_bin()).arg("ladder").arg("--db").arg(&db).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    };
    ladder(&["add", "random", "sample-bot --strategy random"]);
    ladder(&["add", "heuristic", "sample-bot"]);
    ladder(&["play", "-n", "4", "--seed", "9", "-q", "--move-time", CALM_MOVE_TIME]);
    let html = tmp.join("site/ladder.html");
    std::fs::create_dir_all(html.parent().unwrap()).unwrap();
    let out = ladder(&["table", "--html", html.to_str().unwrap()]);
    assert!(out.stdout.is_empty(), "written to the file, not stdout");
    let page = std::fs::read_to_string(&html).unwrap();
    let table: serde_json::Value = serde_json::from_slice(&ladder(&["table", "--json"]).stdout).unwrap();
    let names: Vec<String> =
        table["bots"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(ranking(&page), names);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut stmt = conn.prepare("SELECT game_id FROM games").unwrap();
    let ids: Vec<String> = stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert_eq!(ids.len(), 4);
    check_games_linked(html.parent().unwrap(), &page, &ids);
    // Without a file: the table page on stdout, as before.
    let page = String::from_utf8(ladder(&["table", "--html"]).stdout).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<td>heuristic</td>"), "{page}");
}

/// The `data-game` ids of a page's games table, in order.
fn listed(page: &str) -> Vec<String> {
    page.split("<tr data-game=\"").skip(1).map(|r| r[..r.find('"').unwrap()].to_owned()).collect()
}

#[test]
fn a_long_games_list_goes_on_over_pages_each_game_listed_once_in_schedule_order() {
    let tmp = TempDir::new("index-pages");
    let run_dir = tmp.join("t");
    let out = Command::new(host_bin())
        .args(["tournament", "--bot", "sample-bot --strategy random", "--bot", "sample-bot", "--bot"])
        .arg("sample-bot --strategy random --name r2")
        .args(["--games", "2", "--seed", "6", "-j", "2", "-q", "--no-html", "--out"])
        .arg(&run_dir)
        .args(CALM_CLOCK)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut records = read_records(&run_dir.join("games.jsonl")).unwrap();
    records.sort_by_key(|r| r.index);
    let ids: Vec<String> = records.iter().map(|r| r.game_id.clone()).collect();
    assert_eq!(ids.len(), 6);
    // merge --out with 4 games a page: index.html lists games 1-4, index-2.html 5-6.
    let site = tmp.join("site");
    let out = Command::new(host_bin())
        .arg("merge")
        .arg(&run_dir)
        .args(["--games-per-page", "4", "--out"])
        .arg(&site)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let first = std::fs::read_to_string(site.join("index.html")).unwrap();
    let second = std::fs::read_to_string(site.join("index-2.html")).unwrap();
    assert!(!site.join("index-3.html").exists());
    assert_eq!(listed(&first), ids[..4]);
    assert_eq!(listed(&second), ids[4..]);
    assert!(first.contains("<h2>Games (6; 1-4 here)</h2>"), "{first}");
    assert!(second.contains("<h2>Games (6; 5-6 here)</h2>"), "{second}");
    // Numbered on from page to page; each page links the other; the summary is on the first.
    assert!(second.contains("<td class=\"n\">5</td>"), "{second}");
    assert!(links(&first).contains(&"index-2.html".to_owned()), "{first}");
    assert!(links(&second).contains(&"index.html".to_owned()), "{second}");
    assert!(first.contains("<table id=\"ranking\">") && !second.contains("<table id=\"ranking\">"));
    // Every game still links its viewer page, wherever it is listed.
    let both = format!("{first}{second}");
    check_games_linked(&site, &both, &ids);
    // A bad count is refused.
    let out = Command::new(host_bin()).arg("merge").arg(&run_dir).args(["--games-per-page", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}
