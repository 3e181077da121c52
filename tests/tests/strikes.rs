//! The strike policy (`--strikes K`): a timeout or an illegal move is replaced by a random
//! legal move, recorded, and told to the bot, up to K times per game.

use stratego_tests::{TempDir, calm_bot, misbehaving, play_against, play_against_sample_bot};

#[test]
fn a_forgiven_illegal_move_is_replaced_recorded_and_told() {
    let logs = TempDir::new("strikes-log");
    let log = logs.join("red.log");
    let bot = misbehaving(&format!("--misbehave unparsable-move --at 2 --log {}", log.display()));
    let r = &play_against_sample_bot("strikes", &bot, 1, &["--seed", "4", "--strikes", "1"])[0];
    assert!(r["result"]["faulty"].is_null(), "the game went on: {}", r["result"]);
    let strikes = r["bots"]["red"]["strikes"].as_array().expect("strikes recorded");
    assert_eq!(strikes.len(), 1);
    assert_eq!(strikes[0]["reason"], "illegal_move");
    assert_eq!(strikes[0]["ply"], 3, "Red's second move is ply 3");
    let replaced = strikes[0]["replaced_by"].as_str().unwrap();
    assert_eq!(r["plies"][2]["move"], replaced, "the replacement was played");
    // The bot's next turn said so.
    let told = std::fs::read_to_string(&log).unwrap().lines().any(|l| {
        l.contains("\"strike\":{\"reason\":\"illegal_move\"")
            && l.contains(replaced)
            && l.contains("\"strikes_left\":0")
    });
    assert!(told, "the next turn carries the strike");
}

#[test]
fn faults_past_the_strikes_lose() {
    // Hangs after its illegal move: the next turn times out, which is one fault too many.
    // Its first move must come within the limit too: 5 s, which no load delays it by; the
    // sample bot keeps a calm clock of its own.
    let bot = misbehaving("--misbehave illegal-move --at 2");
    let extra = ["--seed", "4", "--strikes", "1", "--move-time", "5"];
    let r = &play_against("strikes-out", &bot, &calm_bot("sample-bot"), 1, &extra)[0];
    assert_eq!(r["result"]["reason"], "move_timeout", "{}", r["result"]);
    assert_eq!(r["result"]["faulty"], "red");
    assert_eq!(r["bots"]["red"]["strikes"].as_array().unwrap().len(), 1);
}

#[test]
fn crashes_are_never_forgiven() {
    let bot = misbehaving("--misbehave exit-1 --at 2");
    let r = &play_against_sample_bot("strikes-crash", &bot, 1, &["--seed", "4", "--strikes", "5"])[0];
    assert_eq!(r["result"]["reason"], "crash");
}
