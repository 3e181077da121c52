//! Synthetic game records of a chosen length: random setups and random legal moves under
//! the classic rules, with a ply limit of that length, and think times like a fast bot's.
//! Shared by the tests and the benchmark (`#[path]`).

use stratego_protocol::TimeControl;
use stratego_protocol::reason::Reason;
use stratego_protocol::record::{BotInfo, GameRecord, RecordPly, RecordResult};
use stratego_rules::{ByColor, Color, Deployment, Game, Ruleset};

/// How long the synthetic bots think.
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)] // Each user of this file uses some of it.
pub enum Times {
    /// Like the sample bots: mostly 8-15 µs, one move in 50 a few ms (what real
    /// `sample-bot` games record).
    Fast,
    /// A bot that uses its clock: any time up to a second, every digit noise.
    Thinking,
}

/// A record of a game of exactly `plies` plies (a draw at the ply limit), made from
/// `seed`: the first seed from it whose random game lasts that long.
#[allow(dead_code)] // Each user of this file uses some of it.
pub fn record(plies: u32, seed: u64, times: Times) -> GameRecord {
    let mut spec = Ruleset::classic().spec().clone();
    spec.ply_limit = Some(plies);
    let rules = Ruleset::try_from(spec.clone()).expect("classic rules with a ply limit");
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut rng = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut moves = Vec::new();
    loop {
        let red = Deployment::random(&rules, Color::Red, &mut rng);
        let blue = Deployment::random(&rules, Color::Blue, &mut rng);
        let mut game = Game::new(rules.clone(), &red, &blue).expect("random deployments are valid");
        let mut record_plies = Vec::with_capacity(plies as usize);
        while game.outcome().is_none() {
            game.legal_moves(&mut moves);
            let mv = moves[(rng() % moves.len() as u64) as usize];
            let ply = game.play(mv).expect("a legal move");
            let time_us = match times {
                Times::Fast if rng() % 50 == 0 => 1_000 + rng() % 4_000,
                Times::Fast => 8 + rng() % 3 + rng() % 6,
                Times::Thinking => rng() % 1_000_000,
            };
            record_plies.push(RecordPly { ply, time_us, stall_us: 0, over_us: 0, lag_us: None, lag_credit_us: 0 });
        }
        if record_plies.len() != plies as usize {
            continue; // The game ended before the limit: another.
        }
        let bot = |name: &str, strategy: &str| BotInfo {
            reported_name: Some(format!("sample-bot-{strategy}")),
            version: Some("0.1.0".into()),
            author: Some("stratego-arena".into()),
            bytes_to_bot: 21 * u64::from(plies),
            bytes_from_bot: 5 * u64::from(plies),
            think_us: 10 * u64::from(plies) / 2,
            exit: Some("the process exited with status 0".into()),
            ..BotInfo::new(
                name.into(),
                vec!["stratego-host".into(), "sample-bot".into(), "--strategy".into(), strategy.into()],
            )
        };
        return GameRecord {
            game_id: format!("{seed:016x}-1"),
            index: 0,
            pair: 0,
            book_setups: ByColor::new(None, None),
            match_seed: seed,
            seed: rng(),
            host_version: "0.1.0".into(),
            started_unix_ms: 1_795_971_377_937 + seed,
            duration_ms: u64::from(plies) / 10,
            ruleset: spec,
            time_control: TimeControl {
                startup_ms: 10_000,
                setup_ms: 10_000,
                move_ms: Some(1_000),
                bank_ms: None,
                increment_ms: 0,
                margin_ms: 3,
            },
            time_controls: None,
            bots: ByColor::new(bot("sample-bot --strategy random", "random"), bot("sample-bot", "heuristic")),
            deployments: ByColor::new(Some(red.to_rows(&rules)), Some(blue.to_rows(&rules))),
            plies: record_plies,
            result: RecordResult {
                winner: None,
                reason: Reason::PlyLimit,
                message: format!("draw: ply limit ({plies} plies)"),
                faulty: None,
            },
        };
    }
}
