//! Replays every Gravon game in the zip and XML files under a directory and reports, per
//! game type, the games read, illegal moves (file, ply, reason) and how many recorded
//! results agree with the replay.
//!
//! `cargo run --release -p stratego-rules --example gravon-check -- DIR [--verbose]`

#[path = "../tests/support/archive.rs"]
mod archive;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "--verbose" || a == "-v");
    let Some(dir) = args.iter().find(|a| !a.starts_with('-')) else {
        eprintln!("usage: gravon-check DIR [--verbose]   (DIR holds Gravon .zip or .xml files)");
        std::process::exit(2);
    };
    let games = match archive::read_games(std::path::Path::new(dir)) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("gravon-check: cannot read {dir}: {e}");
            std::process::exit(2);
        }
    };
    let report = archive::check(&games);
    print!("{}", report.render(verbose));
    let illegal: usize = report.types.values().map(|t| t.illegal.len()).sum();
    std::process::exit(if illegal > 0 { 1 } else { 0 });
}
