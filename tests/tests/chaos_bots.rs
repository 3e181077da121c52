//! Bots' identities, their ends and their words, for real (issue #41, items 5, 6 and 7;
//! issue #42, item 10): a program loaded by a VM is hashed from what the VM loads, a crash
//! under a memory limit is a crash unless memory ran out, a flood of output does not drive
//! the host's memory, and no text from a bot, a record, a ladder file or a remote host
//! reaches a terminal with its control characters.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use stratego_tests::{CALM_CLOCK, TempDir, bin, host_bin, misbehaving, records, run_match};

/// What terminal controls look like: an OSC 52 clipboard write, a window title, a clear
/// screen, a bidi override.
const HOSTILE_TEXT: &str = "evil\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b[2J\u{202e}gnp.exe";

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Neither stream holds ESC, BEL or a bidi override as it is, and `stream` shows the escapes
/// (`\x1b]52`) instead: what was sent is shown, not obeyed.
fn assert_shown_not_obeyed(what: &str, out: &Output, shown_on_stderr: bool) {
    assert_no_raw_controls(what, out);
    let shown = String::from_utf8_lossy(if shown_on_stderr { &out.stderr } else { &out.stdout }).into_owned();
    assert!(shown.contains("\\x1b]52;c;cHduZWQ=\\x07"), "{what}: the escapes are not shown:\n{shown}");
}

/// Neither stream holds ESC, BEL or a bidi override as it is.
fn assert_no_raw_controls(what: &str, out: &Output) {
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !bytes.iter().any(|&b| b == 0x1b || b == 0x07) && !text.contains('\u{202e}'),
            "{what}: raw terminal controls on {name}:\n{text}"
        );
    }
}

/// Cuts the last line of `dir`'s games.jsonl (a game to play again on resume).
fn drop_last_record(dir: &Path) {
    let path = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "{text}");
    lines.pop();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

// ---- #41.5: what a VM loads is what is hashed ----

/// `java -cp classes Bot` (a stand-in `java` on PATH that runs the sample bot: the host
/// hashes what the command names, whichever JVM runs it): editing a class file in the class
/// path is noticed on resume, as editing `bot.py` is for `python3 bot.py`.
#[test]
fn a_changed_class_file_in_the_class_path_is_noticed() {
    let tmp = TempDir::new("chaos-bots-java");
    let bin_dir = tmp.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let java = bin_dir.join("java");
    std::fs::write(&java, format!("#!/bin/sh\nexec '{}' sample-bot --strategy random\n", host_bin().display()))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(tmp.join("classes/bot")).unwrap();
    std::fs::write(tmp.join("classes/Bot.class"), b"\xca\xfe\xba\xbe version 1").unwrap();
    std::fs::write(tmp.join("classes/bot/Helper.class"), b"\xca\xfe\xba\xbe helper").unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let out = tmp.join("run");
    let play = || {
        Command::new(host_bin())
            // About the bot named Bot (its command's name; as the sample bot, its ready.name
            // is sample-bot-random).
            .args(["match", "java -cp classes Bot", "sample-bot", "--games", "2", "--seed", "5", "-q"])
            .args(["--names-from-commands", "--out"])
            .arg(&out)
            .args(["--max-plies", "40"])
            .args(CALM_CLOCK)
            .current_dir(&tmp.0)
            .env("PATH", &path)
            .output()
            .expect("run stratego-host")
    };
    let first = play();
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["executables"][0][0], "Bot", "the main class names the program: {manifest}");
    // A class the main class uses is edited; one game is to be played again.
    std::fs::write(tmp.join("classes/bot/Helper.class"), b"\xca\xfe\xba\xbe helper, tuned").unwrap();
    drop_last_record(&out);
    let resumed = play();
    let err = stderr(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{err}");
    assert!(err.contains("stratego-host: warning: bot Bot: Bot changed since the run in "), "{err}");
}

// ---- #41.6: a crash is a crash, a memory fault needs evidence ----

/// Lost by the misbehaving bot in both games with `reason`; the messages.
fn forfeits(dir: &TempDir, bot: &str, extra: &[&str], reason: &str) -> Vec<String> {
    let mut args = vec![bot, "sample-bot", "--games", "2", "--seed", "3", "-q", "--out", dir.0.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run_match(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let recs = records(&dir.0);
    assert_eq!(recs.len(), 2);
    recs.iter()
        .map(|r| {
            let res = &r["result"];
            assert_eq!(res["reason"], reason, "{res}");
            let faulty = res["faulty"].as_str().unwrap();
            assert_eq!(r["bots"][faulty]["name"], "misbehaving-bot", "{res}");
            res["message"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_bot_that_kills_itself_with_sigsegv_under_a_memory_limit_is_recorded_as_a_crash() {
    let dir = TempDir::new("chaos-bots-segv");
    let bot = misbehaving("--misbehave sigsegv --at 2");
    for message in forfeits(&dir, &bot, &["--bot-memory", "512M"], "crash") {
        assert!(message.contains("SIGSEGV") && message.contains("no evidence of a memory fault"), "{message}");
    }
}

#[test]
fn a_bot_that_really_allocates_past_its_limit_is_recorded_as_a_memory_fault() {
    let dir = TempDir::new("chaos-bots-alloc");
    let bot = misbehaving("--misbehave alloc --at 2");
    for message in forfeits(&dir, &bot, &["--bot-memory", "256M"], "memory_limit") {
        assert!(message.contains("memory limit of 256 MiB"), "{message}");
    }
}

/// A bot that logged "out of memory budget, pruning" (its own search's budget) early, then
/// more lines, then died by SIGSEGV: the earlier line is not its last words, so a crash.
#[test]
fn an_earlier_log_line_about_memory_does_not_make_a_later_sigsegv_a_memory_fault() {
    let dir = TempDir::new("chaos-bots-segv-log");
    let log = "info: out of memory budget, pruning|depth 7|depth 8|depth 9|depth 10|depth 11|depth 12";
    let bot = misbehaving(&format!("--misbehave sigsegv --at 2 --stderr-at '{log}'"));
    for message in forfeits(&dir, &bot, &["--bot-memory", "512M"], "crash") {
        assert!(message.contains("SIGSEGV") && message.contains("no evidence of a memory fault"), "{message}");
    }
}

/// A JVM that cannot reserve its heap under the limit says so and exits with status 1:
/// a memory fault, from its words.
#[test]
fn a_jvm_that_cannot_reserve_its_heap_is_recorded_as_a_memory_fault() {
    let dir = TempDir::new("chaos-bots-jvm-heap");
    let words = "Error occurred during initialization of VM|\
                 Could not reserve enough space for 2097152KB object heap";
    let bot = misbehaving(&format!("--misbehave exit-1 --at 2 --stderr-at '{words}'"));
    for message in forfeits(&dir, &bot, &["--bot-memory", "256M"], "memory_limit") {
        assert!(
            message.contains("memory limit of 256 MiB") && message.contains("\"could not reserve enough space\""),
            "{message}"
        );
    }
}

// ---- #41.7: the host's memory does not follow a bot's output ----

/// The bound on the host's peak RSS with one game at a time under a flood of `info` lines
/// (measured through the `peak-rss` helper: the host's own figure counts the test process's):
/// issue #41's goal, 32 MB. (Stop 42 measured 47-72 MiB here: `os::cpu_steal` read
/// `/proc/stat`'s totals line as a CPU number and zeroed a vector of millions of entries at
/// every look at a thinking bot; fixed, the flood runs at about 12-26 MiB.)
const HOST_RSS_GOAL_KIB: u64 = 32_000_000 / 1024;

/// Two games of `flood-bot --when WHEN` (Red, then Blue) against the sample bot with -j 1,
/// the calm clock and the default output limit of 64 MiB: the flood bot loses each on its
/// output limit, or (should a loaded machine leave the host too little CPU to read 64 MiB
/// within the 60 s move time) on time, the record saying which; the match's other game is
/// played all the same, and the host's peak RSS stays within the goal whatever the
/// flood's timing.
fn flood(when: &str) {
    let dir = TempDir::new(&format!("chaos-bots-flood-{when}"));
    let bot = format!("{} --when {when}", bin("flood-bot").display());
    let args = [bot.as_str(), "sample-bot", "--games", "2", "-j", "1", "--seed", "3", "--json", "-q", "--out"];
    let (out, rss) = stratego_tests::run_match_measured(&[&args[..], &[dir.0.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut recs = records(&dir.0);
    recs.sort_by_key(|r| r["index"].as_u64());
    assert_eq!(recs.len(), 2, "{when}: every game of the match is played");
    for r in &recs {
        let (flooder, label) = if r["index"] == 0 { ("red", "Red") } else { ("blue", "Blue") };
        let res = &r["result"];
        assert_eq!(res["faulty"], flooder, "{when}: {res}");
        let msg = res["message"].as_str().unwrap_or_default();
        assert!(msg.starts_with(&format!("flood-bot ({label}) forfeits: ")), "{when}: {res}");
        match res["reason"].as_str() {
            Some("output_limit") => assert!(
                msg.ends_with("it wrote more than its output limit of 67108864 bytes in this game"),
                "{when}: {res}"
            ),
            // Not seen on an idle machine (the 64 MiB are read in well under a second).
            Some("move_timeout") => assert!(msg.contains("no move within 60.000 s"), "{when}: {res}"),
            _ => panic!("{when}: the flood bot must lose on its output limit (or on time under load): {res}"),
        }
    }
    assert!(rss <= HOST_RSS_GOAL_KIB, "{when}: host peak RSS {rss} KiB under a 64 MiB flood of info lines");
}

#[test]
fn a_flood_of_info_lines_between_turns_leaves_the_host_small() {
    flood("between");
}

#[test]
fn a_flood_of_info_lines_as_the_answer_to_a_turn_leaves_the_host_small() {
    flood("turn");
}

// ---- #42.10: no terminal controls from untrusted text ----

/// A local bot that fails its start-up, its stderr full of terminal controls: the host's
/// report of it shows them escaped.
#[test]
fn a_bots_start_up_stderr_reaches_the_terminal_escaped() {
    let tmp = TempDir::new("chaos-bots-startup-stderr");
    let script = tmp.join("noisy.sh");
    std::fs::write(&script, format!("#!/bin/sh\nprintf '%s\\n' '{HOSTILE_TEXT}' >&2\nexit 1\n")).unwrap();
    let out = run_match(&[&format!("sh {}", script.display()), "sample-bot", "--games", "2"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot start"), "{}", stderr(&out));
    assert_shown_not_obeyed("start-up stderr", &out, true);
}

/// A records file whose game id and names hold terminal controls, replayed as text.
#[test]
fn replay_shows_a_records_names_and_game_id_escaped() {
    let dir = TempDir::new("chaos-bots-replay");
    let out = run_match(&[
        "sample-bot",
        "sample-bot --strategy random",
        "--games",
        "1",
        "--max-plies",
        "20",
        "-q",
        "--out",
        dir.0.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut rec = records(&dir.0).remove(0);
    rec["game_id"] = HOSTILE_TEXT.into();
    rec["bots"]["red"]["name"] = HOSTILE_TEXT.into();
    rec["bots"]["blue"]["name"] = format!("blue {HOSTILE_TEXT}").into();
    rec["result"]["message"] = format!("message {HOSTILE_TEXT}").into();
    let file = dir.join("hostile.jsonl");
    std::fs::write(&file, serde_json::to_string(&rec).unwrap() + "\n").unwrap();
    let shown = Command::new(host_bin()).arg("replay").arg(&file).output().unwrap();
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    assert_shown_not_obeyed("replay", &shown, false);
    // An unknown game: the error lists the file's ids.
    let missing = Command::new(host_bin()).arg("replay").arg(&file).args(["--game", "nope"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert_shown_not_obeyed("replay --game", &missing, true);
}

/// A ladder file whose bot name holds terminal controls (`ladder add` refuses such a name;
/// the file was edited by other means): `ladder play` shows it escaped.
#[test]
fn ladder_play_shows_a_stored_bots_name_escaped() {
    let dir = TempDir::new("chaos-bots-ladder");
    let db = dir.join("ladder.sqlite");
    let refused = stratego_tests::ladder(&db, &["add", HOSTILE_TEXT, "sample-bot"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    // Refused, and quoted with Rust's escapes (`\u{1b}`).
    assert_no_raw_controls("ladder add", &refused);
    for (name, command) in [("alpha", "sample-bot"), ("beta", "sample-bot --strategy random")] {
        let added = stratego_tests::ladder(&db, &["add", name, command]);
        assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE bots SET name = ?1 WHERE name = 'alpha'", [HOSTILE_TEXT]).unwrap();
    drop(conn);
    let played = stratego_tests::ladder(&db, &["play", "--games", "2", "--max-plies", "20"]);
    assert_eq!(played.status.code(), Some(0), "{}", stderr(&played));
    assert_shown_not_obeyed("ladder play", &played, true);
}

/// A stand-in host on 127.0.0.1 that answers every connection with `response` (bytes), then
/// closes; its address.
fn fake_host(response: Vec<u8>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && s.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let _ = s.write_all(&response);
        }
    });
    format!("ws://{addr}")
}

/// `connect` to `url` with a bot that never needs to start; its output once it ends.
fn connect(dir: &TempDir, url: &str) -> Output {
    let token = dir.join("token");
    std::fs::write(&token, "stt_for-a-test-0123456789abcdef\n").unwrap();
    let mut child = Command::new(host_bin())
        .args(["connect", url, "--retry-s", "1", "--token-file"])
        .arg(&token)
        .args(["--", "sample-bot"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let limit = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < limit, "connect did not end");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A host that refuses `connect` with a 401 whose body holds terminal controls.
#[test]
fn connect_shows_a_hosts_refusal_escaped() {
    let dir = TempDir::new("chaos-bots-connect-401");
    let body = HOSTILE_TEXT.as_bytes();
    let mut response =
        format!("HTTP/1.1 401 Unauthorized\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())
            .into_bytes();
    response.extend_from_slice(body);
    let out = connect(&dir, &fake_host(response));
    assert!(stderr(&out).contains("refused the connection"), "{}", stderr(&out));
    assert_shown_not_obeyed("connect, 401", &out, true);
}

/// A host that accepts the WebSocket and closes it at once with a close reason that holds
/// terminal controls (then is gone: `connect` gives up after its retry time).
#[test]
fn connect_shows_a_hosts_close_reason_escaped() {
    let dir = TempDir::new("chaos-bots-connect-close");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            use futures_util::SinkExt;
            use tokio_tungstenite::tungstenite::protocol::CloseFrame;
            use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
            listener.set_nonblocking(true).unwrap();
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            // The first connection: accepted, then closed with the reason. Later ones: refused.
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            let frame = CloseFrame { code: CloseCode::Policy, reason: HOSTILE_TEXT.into() };
            let _ = ws.close(Some(frame)).await;
            let _ = ws.flush().await;
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            drop(ws);
            drop(listener);
        });
    });
    let out = connect(&dir, &url);
    assert!(stderr(&out).contains("connection lost"), "{}", stderr(&out));
    assert_shown_not_obeyed("connect, close reason", &out, true);
}

/// A remote bot whose side closes its connection at its setup request with `connect`'s
/// crash code and a reason full of terminal controls: the host's forfeit line and its
/// record's message show them escaped.
#[test]
fn a_remote_bots_close_reason_reaches_the_hosts_terminal_escaped() {
    use std::io::BufRead;
    let dir = TempDir::new("chaos-bots-remote-close");
    let token_file = dir.join("far.token");
    let made = Command::new(host_bin()).args(["token", "--out"]).arg(&token_file).output().unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    let sha = String::from_utf8(made.stdout).unwrap().split('"').nth(1).unwrap().to_owned();
    let token = std::fs::read_to_string(&token_file).unwrap().trim().to_owned();
    let spec = format!(r#"{{"name":"far","remote":true,"token_sha256":"{sha}"}}"#);
    let out_dir = dir.join("out");
    let mut host = Command::new(host_bin())
        .args(["match", "sample-bot", &spec, "--games", "1", "--listen", "127.0.0.1:0", "--out"])
        .arg(&out_dir)
        .args(CALM_CLOCK)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let pipe = host.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let mut lines = std::io::BufReader::new(pipe);
        let mut line = Vec::new();
        while lines.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            let text = String::from_utf8_lossy(&line).into_owned();
            if let Some(port) = text.split("on ws://127.0.0.1:").nth(1) {
                let _ = tx.send(port.trim().parse::<u16>().unwrap_or(0));
            }
            all.append(&mut line);
        }
        all
    });
    let port = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the host listens");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async move {
        use futures_util::{SinkExt, StreamExt};
        use tokio_tungstenite::tungstenite::Message;
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::protocol::CloseFrame;
        let mut req = format!("ws://127.0.0.1:{port}").into_client_request().unwrap();
        req.headers_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
        let mut ws = tokio_tungstenite::connect_async(req).await.expect("connected").0;
        while let Some(Ok(msg)) = ws.next().await {
            let Message::Text(t) = msg else { continue };
            if t.contains(r#""type":"hello""#) {
                ws.send(Message::text(r#"{"type":"ready","name":"far"}"#)).await.unwrap();
            } else if t.contains(r#""type":"setup_request""#) {
                let frame = CloseFrame { code: 4000.into(), reason: HOSTILE_TEXT.into() };
                let _ = ws.close(Some(frame)).await;
            }
        }
    });
    let status = host.wait().unwrap();
    let mut stdout = Vec::new();
    host.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
    let output = Output { status, stdout, stderr: reader.join().unwrap() };
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let recs = records(&out_dir);
    assert_eq!(recs[0]["result"]["reason"], "crash", "{}", recs[0]["result"]);
    let message = recs[0]["result"]["message"].as_str().unwrap();
    assert!(message.contains("\\x1b]52;c;cHduZWQ=\\x07") && !message.contains('\u{202e}'), "{message}");
    assert_no_raw_controls("a remote bot's close reason", &output);
}

/// A bot that writes an OSC 52 clipboard write and a clear screen on stdout before its
/// `ready` (then would play as the sample bot): the host's fault message quotes the line.
fn stdout_before_ready_bot(tmp: &TempDir) -> String {
    let script = tmp.join("loud.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nprintf '\\033]52;c;aGk=\\007\\033[2J\\n'\nexec '{}' sample-bot\n", host_bin().display()),
    )
    .unwrap();
    format!("sh {}", script.display())
}

/// Neither stream holds ESC or BEL as it is, and one of them shows the line's escapes.
fn assert_stdout_line_shown_escaped(what: &str, out: &Output) {
    assert_no_raw_controls(what, out);
    let both = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(out));
    assert!(both.contains("\\x1b]52;c;aGk=\\x07\\x1b[2J"), "{what}: the escapes are not shown:\n{both}");
}

/// `match` with a bot whose first stdout line is terminal controls: its start-up fails, and
/// the host's report of the fault (which quotes the line) shows them escaped.
#[test]
fn a_bots_stdout_before_ready_reaches_the_terminal_escaped_in_a_match() {
    let tmp = TempDir::new("chaos-bots-stdout-match");
    let out = run_match(&[&stdout_before_ready_bot(&tmp), "sample-bot", "--games", "2"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("not JSON"), "{}", stderr(&out));
    assert_stdout_line_shown_escaped("match", &out);
}

/// `check` with the same bot: the failed `hello` check quotes the line, escaped.
#[test]
fn a_bots_stdout_before_ready_reaches_the_terminal_escaped_in_check() {
    let tmp = TempDir::new("chaos-bots-stdout-check");
    let out = Command::new(host_bin())
        .arg("check")
        .arg(stdout_before_ready_bot(&tmp))
        .args(CALM_CLOCK)
        .output()
        .expect("run stratego-host check");
    // It never says `ready`: a bot that cannot start (exit 3), as the match above.
    assert_eq!(out.status.code(), Some(3), "a bot that cannot start: {}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("not JSON"), "{}", String::from_utf8_lossy(&out.stdout));
    assert_stdout_line_shown_escaped("check", &out);
}

/// A records directory holding, besides its one game, a game of another plan recorded
/// twice whose id holds terminal controls (records come from anywhere): `merge` names it
/// (not of this plan, recorded more than once), a resumed `match` warns of it (recorded
/// twice) and `convert` notes it, each escaped.
#[test]
fn game_ids_of_a_records_directory_reach_the_terminal_escaped() {
    let dir = TempDir::new("chaos-bots-ids");
    let play = || {
        run_match(&[
            "sample-bot",
            "sample-bot --strategy random",
            "--games",
            "1",
            "--max-plies",
            "20",
            // A seed whose game reaches the ply limit (convert names only such games below).
            "--seed",
            "1",
            "-q",
            "--out",
            dir.0.to_str().unwrap(),
        ])
    };
    let first = play();
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let mut rec = records(&dir.0).remove(0);
    assert_eq!(rec["result"]["reason"], "ply_limit", "the game must reach the ply limit: {}", rec["result"]);
    rec["game_id"] = HOSTILE_TEXT.into();
    let line = serde_json::to_string(&rec).unwrap() + "\n";
    let mut file = std::fs::OpenOptions::new().append(true).open(dir.join("games.jsonl")).unwrap();
    file.write_all(format!("{line}{line}").as_bytes()).unwrap();
    drop(file);
    let merged = Command::new(host_bin()).arg("merge").arg(&dir.0).output().unwrap();
    assert_eq!(merged.status.code(), Some(1), "{}", stderr(&merged));
    assert!(stderr(&merged).contains("not of this plan"), "{}", stderr(&merged));
    assert_shown_not_obeyed("merge", &merged, true);
    let resumed = play();
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(stderr(&resumed).contains("games recorded twice"), "{}", stderr(&resumed));
    assert_shown_not_obeyed("match, resumed", &resumed, true);
    let zip = dir.join("games.zip");
    let converted = Command::new(host_bin()).arg("convert").arg(dir.join("games.jsonl")).arg(&zip).output().unwrap();
    // The ids reach the terminal in convert's per-game notes (a ply-limit game converts
    // as an agreed draw since issue #41 item 9).
    assert!(stderr(&converted).contains(": game evil"), "{}", stderr(&converted));
    assert_shown_not_obeyed("convert", &converted, true);
}

/// `python3 pkg/` (a folder with `__main__.py`, which here runs the sample bot): editing
/// a module of the folder is noticed on resume.
#[test]
fn a_changed_module_of_a_python_folder_is_noticed() {
    let tmp = TempDir::new("chaos-bots-python-folder");
    std::fs::create_dir_all(tmp.join("pkg")).unwrap();
    let main = format!("import os\nos.execv({0:?}, [{0:?}, 'sample-bot'])\n", host_bin().display().to_string());
    std::fs::write(tmp.join("pkg/__main__.py"), main).unwrap();
    std::fs::write(tmp.join("pkg/helper.py"), "X = 1\n").unwrap();
    let out = tmp.join("run");
    let play = || {
        Command::new(host_bin())
            .args(["match", "python3 pkg/", "sample-bot", "--games", "2", "--seed", "5", "-q", "--out"])
            .arg(&out)
            .args(["--max-plies", "40"])
            .args(CALM_CLOCK)
            .current_dir(&tmp.0)
            .output()
            .expect("run stratego-host")
    };
    let first = play();
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    std::fs::write(tmp.join("pkg/helper.py"), "X = 2\n").unwrap();
    drop_last_record(&out);
    let resumed = play();
    let err = stderr(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{err}");
    assert!(err.contains("changed since the run in "), "{err}");
}
