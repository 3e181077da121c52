//! A test bot that is another bot declaring another version: `version-relay VERSION -- CMD
//! ARGS…` runs CMD, passes the host's lines to it unchanged, and passes its lines back with
//! the `version` of its `ready` replaced by VERSION (every other line as it is). The arena's
//! tests connect it as a remote entrant to see a declared version start a rating line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (version, command) = match args.iter().position(|a| a == "--") {
        Some(1) if args.len() > 2 => (args[0].clone(), args[2..].to_vec()),
        _ => {
            eprintln!("usage: version-relay VERSION -- COMMAND [ARGS…]");
            std::process::exit(2);
        }
    };
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the relayed bot starts");
    let mut to_bot = child.stdin.take().expect("its stdin");
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if writeln!(to_bot, "{line}").and_then(|()| to_bot.flush()).is_err() {
                break;
            }
        }
        // The host closed our stdin: so is the bot's (dropped here).
    });
    let mut out = std::io::stdout().lock();
    for line in BufReader::new(child.stdout.take().expect("its stdout")).lines().map_while(Result::ok) {
        let line = match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(mut v) if v["type"] == "ready" => {
                v["version"] = serde_json::Value::String(version.clone());
                v.to_string()
            }
            _ => line,
        };
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    let status = child.wait().expect("the relayed bot ends");
    std::process::exit(status.code().unwrap_or(1));
}
