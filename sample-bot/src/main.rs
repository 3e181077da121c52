//! The `sample-bot` binary.
fn main() {
    std::process::exit(stratego_sample_bot::main_with_args(std::env::args().collect()));
}
