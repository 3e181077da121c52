//! `stratego-host replay` on a real terminal: the viewer runs under tmux, keys are sent to
//! it, and the board is read back from the screen and compared with the rules crate's
//! position. Needs tmux (`.ci/run` installs it).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use stratego_protocol::record::GameRecord;
use stratego_rules::{Color, Deployment, Game, Rank, Ruleset, Square};
use stratego_tests::{CALM_MOVE_TIME, TempDir, host_bin, misbehaving, run_match};

/// What a board shows: by square, the side and the rank (`None`: an unknown enemy piece).
type Board = BTreeMap<Square, (Color, Option<Rank>)>;

/// A tmux server of its own (`tmux -L NAME`), so parallel tests never share one; killed
/// on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new(test: &str) -> Tmux {
        match Command::new("tmux").arg("-V").output() {
            Ok(o) if o.status.success() => {}
            _ => panic!("this test needs tmux (tests/run.sh, the README's test command, installs it)"),
        }
        Tmux { socket: format!("stratego-replay-{test}-{}", std::process::id()) }
    }

    fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).env_remove("TMUX").output().expect("run tmux")
    }

    /// Starts `shell_command` in a detached 100x40 session named `main`.
    fn start(&self, shell_command: &str) {
        let out = self.cmd(&["new-session", "-d", "-x", "100", "-y", "40", "-s", "main", shell_command]);
        assert!(out.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&out.stderr));
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        let out = self.cmd(&args);
        assert!(out.status.success(), "tmux send-keys: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// The screen, with its colours as escape sequences.
    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-e", "-t", "main"]).stdout).into_owned()
    }

    /// Waits for the screen to show `text` (up to 30 s: a loaded machine may take seconds
    /// to redraw); returns the screen.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if visible(&screen).contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the screen never showed {text:?}:\n{}",
                visible(&screen)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn session_alive(&self) -> bool {
        self.cmd(&["has-session", "-t", "main"]).status.success()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// Splits captured text into characters, each with the background colour it was drawn
/// on (SGR 41 red, 44 blue), by following the escape sequences.
fn styled(screen: &str) -> Vec<Vec<(char, Option<Color>)>> {
    screen
        .lines()
        .map(|line| {
            let mut out = Vec::new();
            let mut bg = None;
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                if c != '\x1b' {
                    out.push((c, bg));
                    continue;
                }
                if chars.peek() != Some(&'[') {
                    continue;
                }
                chars.next();
                let mut params = String::new();
                let mut end = ' ';
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        end = c;
                        break;
                    }
                    params.push(c);
                }
                if end != 'm' {
                    continue;
                }
                for p in params.split(';') {
                    match p {
                        "" | "0" | "49" => bg = None,
                        "41" => bg = Some(Color::Red),
                        "44" => bg = Some(Color::Blue),
                        _ => {}
                    }
                }
            }
            out
        })
        .collect()
}

/// The screen as text, without escape sequences.
fn visible(screen: &str) -> String {
    styled(screen).iter().map(|l| l.iter().map(|&(c, _)| c).collect::<String>() + "\n").collect()
}

/// Reads the board off a screen, from its file letters and rank numbers. `colour`: pieces
/// are ` X ` on a red or blue background; else plain `rX`, `b?`.
fn parse_board(screen: &str, colour: bool) -> Board {
    let lines = styled(screen);
    let text: Vec<String> = lines.iter().map(|l| l.iter().map(|&(c, _)| c).collect()).collect();
    let header = text
        .iter()
        .position(|l| {
            l.starts_with("    ") && !l.trim().is_empty() && l.split_whitespace().all(|w| w.len() == 1 && w <= "j")
        })
        .unwrap_or_else(|| panic!("no file letters on the screen:\n{}", text.join("\n")));
    // Column of each file letter: the rank code stands under it.
    let files: Vec<(usize, u8)> =
        text[header].char_indices().filter(|(_, c)| c.is_ascii_lowercase()).map(|(i, c)| (i, c as u8 - b'a')).collect();
    assert_eq!(files.len(), 10, "{}", text[header]);
    let mut board = Board::new();
    let mut rows = 0;
    for (l, line) in lines.iter().zip(&text).skip(header + 1) {
        let Ok(rank) = line.get(..2).unwrap_or("").trim().parse::<u8>() else { break };
        rows += 1;
        for &(col, file) in &files {
            let sq = Square::new(file, rank - 1).unwrap();
            let (code, bg) = l[col];
            let color = if colour {
                match bg {
                    Some(c) => c,
                    None => continue,
                }
            } else {
                match l[col - 1].0 {
                    'r' => Color::Red,
                    'b' => Color::Blue,
                    _ => continue,
                }
            };
            let rank = if code == '?' { None } else { Some(Rank::from_code(code).expect("a rank code")) };
            board.insert(sq, (color, rank));
        }
    }
    assert_eq!(rows, 10, "ten ranks on the screen:\n{}", text.join("\n"));
    board
}

/// Plays one real game (random sample bot against the sample bot) into `dir`; returns
/// its record.
fn play_game(dir: &Path) -> GameRecord {
    let out = run_match(&[
        "sample-bot --strategy random",
        "sample-bot",
        "--games",
        "1",
        "--seed",
        "3",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let mut records = stratego_tests::read_records(&dir.join("games.jsonl")).unwrap();
    assert_eq!(records.len(), 1);
    let record = records.remove(0);
    assert!(record.plies.len() > 10, "the game is long enough to step through");
    record
}

/// The rules crate's game after `ply` plies of `record`.
fn position(record: &GameRecord, ply: usize) -> Game {
    let rules = Ruleset::try_from(record.ruleset.clone()).unwrap();
    let setup = |c: Color| Deployment::parse(&rules, c, record.deployments[c].as_deref().unwrap()).unwrap();
    let (red, blue) = (setup(Color::Red), setup(Color::Blue));
    let mut game = Game::new(rules, &red, &blue).unwrap();
    for p in &record.plies[..ply] {
        game.play(p.ply.mv).unwrap();
    }
    game
}

fn spectator(game: &Game) -> Board {
    game.board_pieces().map(|(sq, c, r)| (sq, (c, Some(r)))).collect()
}

fn view(game: &Game, color: Color) -> Board {
    game.view_pieces(color).into_iter().map(|p| (p.square, (p.color, p.rank))).collect()
}

/// A shell command that runs the viewer, then writes its exit status and the terminal's
/// settings (raw mode must be off again) to `dir`.
fn viewer_command(dir: &Path, env: &str, args: &str) -> String {
    let d = dir.display();
    format!("{env} {} replay {d}/games.jsonl {args}; echo $? > {d}/rc; stty -a > {d}/stty", host_bin().display())
}

/// Waits for the viewer to be quit: the session ends, the exit status is 0, the terminal
/// is back in cooked mode.
fn assert_quits_cleanly(tmux: &Tmux, dir: &Path) {
    let start = Instant::now();
    while tmux.session_alive() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the session did not end after q:\n{}",
            visible(&tmux.capture())
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let rc = std::fs::read_to_string(dir.join("rc")).expect("the exit status was written");
    assert_eq!(rc.trim(), "0", "exit status of the viewer");
    let stty = std::fs::read_to_string(dir.join("stty")).expect("stty output");
    let flags: Vec<&str> = stty.split_whitespace().collect();
    for flag in ["icanon", "echo", "isig"] {
        assert!(flags.contains(&flag), "raw mode left on ({flag} is off):\n{stty}");
    }
}

#[test]
fn tui_steps_through_a_real_game_and_switches_views() {
    let t0 = Instant::now();
    let tmux = Tmux::new("colour");
    let dir = TempDir::new("replay-tui");
    let record = play_game(&dir.0);
    tmux.start(&viewer_command(&dir.0, "env -u NO_COLOR TERM=xterm-256color", &format!("--game {}", record.game_id)));
    let total = record.plies.len();
    tmux.wait_for(&format!("Ply 0/{total}: "));
    // Ten plies forward with each of the forward keys, then one back and forward again.
    tmux.keys(&["Right", "Right", "Right", "l", "l", "l", "Space", "Space", "Space", "Space"]);
    tmux.wait_for(&format!("Ply 10/{total}: "));
    tmux.keys(&["h"]);
    tmux.wait_for(&format!("Ply 9/{total}: "));
    tmux.keys(&["Right"]);
    let screen = tmux.wait_for(&format!("Ply 10/{total}: "));
    let game = position(&record, 10);
    assert!(visible(&screen).contains("View: spectator"));
    assert_eq!(parse_board(&screen, true), spectator(&game), "spectator view at ply 10:\n{}", visible(&screen));
    // Red's view: exactly what Red's bot was told.
    tmux.keys(&["r"]);
    let screen = tmux.wait_for("View: Red");
    let red = parse_board(&screen, true);
    assert_eq!(red, view(&game, Color::Red), "Red's view at ply 10:\n{}", visible(&screen));
    assert!(red.values().filter(|(c, r)| *c == Color::Blue && r.is_none()).count() >= 30, "Blue's ranks are hidden");
    // The end shows the result; Home goes back to the start.
    tmux.keys(&["s", "End"]);
    let screen = tmux.wait_for(&format!("Ply {total}/{total}: "));
    assert!(visible(&screen).contains("Result: "), "{}", visible(&screen));
    assert_eq!(parse_board(&screen, true), spectator(&position(&record, total)));
    tmux.keys(&["g"]);
    tmux.wait_for(&format!("Ply 0/{total}: "));
    tmux.keys(&["q"]);
    assert_quits_cleanly(&tmux, &dir.0);
    eprintln!("tui_steps_through_a_real_game_and_switches_views: {:.2} s", t0.elapsed().as_secs_f64());
}

#[test]
fn tui_without_colour_under_no_color() {
    let t0 = Instant::now();
    let tmux = Tmux::new("plain");
    let dir = TempDir::new("replay-tui-plain");
    let record = play_game(&dir.0);
    tmux.start(&viewer_command(&dir.0, "env NO_COLOR=1 TERM=xterm-256color", "--ply 10 --as blue"));
    let total = record.plies.len();
    let screen = tmux.wait_for(&format!("Ply 10/{total}: "));
    assert!(!screen.contains('\x1b'), "no colour under NO_COLOR:\n{screen}");
    let game = position(&record, 10);
    assert_eq!(parse_board(&screen, false), view(&game, Color::Blue), "Blue's view at ply 10:\n{screen}");
    tmux.keys(&["s"]);
    let screen = tmux.wait_for("View: spectator");
    assert_eq!(parse_board(&screen, false), spectator(&game), "{screen}");
    tmux.keys(&["Escape"]);
    assert_quits_cleanly(&tmux, &dir.0);
    eprintln!("tui_without_colour_under_no_color: {:.2} s", t0.elapsed().as_secs_f64());
}

#[test]
fn replay_without_a_terminal_prints_text_and_errors_exit_2() {
    let dir = TempDir::new("replay-text");
    let record = play_game(&dir.0);
    let run = |args: &[&str]| {
        Command::new(host_bin()).arg("replay").args(args).env("NO_COLOR", "1").output().expect("run stratego-host")
    };
    let d = dir.0.to_str().unwrap();
    let out = run(&[d, "--ply", "10", "--as", "red"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(parse_board(&text, false), view(&position(&record, 10), Color::Red), "{text}");
    assert!(text.contains("Result: "), "{text}");
    // Without --ply: every ply, the final board and the result.
    let out = run(&[d]);
    let text = String::from_utf8(out.stdout).unwrap();
    let total = record.plies.len();
    assert!((1..=total).all(|n| text.contains(&format!("Ply {n}/{total}: "))));
    assert_eq!(parse_board(&text, false), spectator(&position(&record, total)));
    assert!(text.trim_end().ends_with(&record.result.message), "{text}");
    // Errors: exit 2 and a message saying what is wrong.
    let out = run(&[d, "--game", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--game nope") && err.contains(&record.game_id), "{err}");
    let out = run(&[dir.join("missing.jsonl").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let mut broken = record.clone();
    broken.plies[4].ply.mv = "a1-a2".parse().unwrap();
    std::fs::write(dir.join("broken.jsonl"), serde_json::to_string(&broken).unwrap() + "\n").unwrap();
    let out = run(&[dir.join("broken.jsonl").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ply 5 a1-a2"), "{err}");
}

/// The ply count a live frame shows: `Ply N/N: …`.
fn shown_ply(screen: &str) -> Option<usize> {
    let text = visible(screen);
    let line = text.lines().find(|l| l.starts_with("Ply "))?;
    line[4..line.find('/')?].parse().ok()
}

#[test]
fn match_watch_draws_the_running_game_live_on_the_terminal() {
    let t0 = Instant::now();
    let tmux = Tmux::new("watch");
    let dir = TempDir::new("watch-live");
    let d = dir.0.display();
    // One game of a bot that thinks 3 ms a move (random legal moves) against random: about
    // two seconds, long enough to be seen while it is played (a game of the sample bot's
    // search lasts a few tenths of a second: too short to capture reliably). stdout (the summary, as JSON) goes to a file: the board is
    // drawn on the terminal only.
    let command = format!(
        "env -u NO_COLOR TERM=xterm-256color {} match '{}' 'sample-bot --strategy random' \
         --games 1 --seed 3 --watch --json --move-time {CALM_MOVE_TIME} --out {d}/run > {d}/summary.json; \
         echo $? > {d}/rc; sleep 60",
        host_bin().display(),
        misbehaving("--think-ms 3"),
    );
    tmux.start(&command);
    // While the game runs: a frame says "Playing…" and shows the position of its ply.
    tmux.wait_for("Playing…");
    let mut live = Vec::new();
    let start = Instant::now();
    while !dir.join("rc").exists() && start.elapsed() < Duration::from_secs(120) {
        let screen = tmux.capture();
        if visible(&screen).contains("Playing…")
            && let Some(n) = shown_ply(&screen)
        {
            live.push((n, screen));
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    let rc = std::fs::read_to_string(dir.join("rc")).expect("the match ended");
    assert_eq!(rc.trim(), "0");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).expect("stdout is the JSON");
    assert_eq!(summary["games"], 1);
    let record = stratego_tests::read_records(&dir.join("run/games.jsonl")).unwrap().remove(0);
    let total = record.plies.len();
    // Live frames at several plies, each the rules' position at the ply it says (a capture
    // taken in the middle of a redraw could mix two frames: those are allowed to differ,
    // but most must match, and at least two different plies).
    let matched: Vec<usize> = live
        .iter()
        .filter(|(n, screen)| *n <= total && parse_board(screen, true) == spectator(&position(&record, *n)))
        .map(|(n, _)| *n)
        .collect();
    let distinct: std::collections::BTreeSet<usize> = matched.iter().copied().collect();
    assert!(matched.len() * 10 >= live.len() * 8, "{} of {} live frames match their ply", matched.len(), live.len());
    // Captured while it was played: at least two plies before the last. (The last ply's
    // frame is drawn before the result's, so a capture between the two shows `Playing…` at
    // ply TOTAL/TOTAL: so it was once on a loaded machine.)
    let before_the_end = distinct.iter().filter(|&&n| n < total).count();
    assert!(
        before_the_end >= 2,
        "live frames matching their ply: {distinct:?} of {} captures, {total} plies",
        live.len()
    );
    // After the run the last frame stays: the final position and the result.
    let screen = tmux.capture();
    let text = visible(&screen);
    assert!(text.contains(&format!("Ply {total}/{total}: ")), "{text}");
    assert!(text.contains("Result: ") && text.contains("1 of 1 finished"), "{text}");
    assert_eq!(parse_board(&screen, true), spectator(&position(&record, total)), "{text}");
    eprintln!(
        "match_watch_draws_the_running_game_live_on_the_terminal: {} live frames, plies {distinct:?}, {:.2} s",
        live.len(),
        t0.elapsed().as_secs_f64()
    );
}
