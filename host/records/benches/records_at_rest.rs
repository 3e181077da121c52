//! Records at rest: bytes per game in the plain and the compact form, and the time to
//! encode and decode them.
//!
//! `cargo bench -p stratego-records --bench records_at_rest [-- FILE.jsonl …]`
//!
//! Without files it makes synthetic records (random setups, random legal moves, the
//! classic rules) of 100, 1,000 and 3,000 plies and prints, per length: the plain line's
//! bytes, the compact frame's bytes (at the crate's level), bytes per 1,000 plies, and the
//! time to encode and to decode one record in each form. With files (real `games.jsonl`
//! files from `stratego-host match --out`), it prints for each file the bytes per 1,000
//! plies plain and compact at several zstd levels, the encode time per game at each
//! level, and a fit of the compact size to `fixed + per-ply × plies`, which gives the size
//! of a 1,000-ply game.

#[path = "../tests/support/synthetic.rs"]
mod synthetic;

use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use stratego_records::{Encoder, Form, GameRecord, LEVEL, RecordReader};
use synthetic::Times;

/// The median of `runs` timings of `f`, each long enough (several calls) to time.
fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut calls = 1u32;
    loop {
        let t = Instant::now();
        for _ in 0..calls {
            f();
        }
        if t.elapsed() >= Duration::from_millis(20) || calls >= 1 << 16 {
            break;
        }
        calls *= 2;
    }
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            t.elapsed() / calls
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn decode(bytes: &[u8], form: Form) -> Vec<GameRecord> {
    RecordReader::new(bytes, form, std::path::Path::new("bench"))
        .expect("a reader")
        .collect::<Result<Vec<_>, _>>()
        .expect("records read back")
}

fn micros(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e6)
}

fn synthetic_table() {
    println!("Synthetic records (random legal moves, classic rules), compact at zstd level {LEVEL}:");
    println!(
        "{:>9} {:>6} {:>10} {:>10} {:>10} {:>7} {:>16} {:>11} {:>11} {:>11} {:>11}",
        "times",
        "plies",
        "plain B",
        "compact B",
        "level 19 B",
        "ratio",
        "compact B/1000p",
        "enc plain",
        "dec plain",
        "enc compact",
        "dec compact"
    );
    for (times, plies) in [Times::Fast, Times::Thinking].into_iter().flat_map(|t| [(t, 100u32), (t, 1_000), (t, 3_000)])
    {
        // The mean over a few games of each length.
        let records: Vec<GameRecord> = (1..=5).map(|seed| synthetic::record(plies, seed, times)).collect();
        let mut plain = Encoder::new(Form::Plain).expect("encoder");
        let mut compact = Encoder::new(Form::Compact).expect("encoder");
        let lines: Vec<Vec<u8>> = records.iter().map(|r| plain.encode(r).expect("plain")).collect();
        let frames: Vec<Vec<u8>> = records.iter().map(|r| compact.encode(r).expect("compact")).collect();
        let n = records.len();
        let plain_bytes = lines.iter().map(Vec::len).sum::<usize>() / n;
        let compact_bytes = frames.iter().map(Vec::len).sum::<usize>() / n;
        let mut best = Encoder::with_level(Form::Compact, 19).expect("encoder");
        let best_bytes = records.iter().map(|r| best.encode(r).expect("compact").len()).sum::<usize>() / n;
        let r = &records[0];
        let enc_plain = time(5, || drop(std::hint::black_box(plain.encode(r).expect("plain"))));
        let enc_compact = time(5, || drop(std::hint::black_box(compact.encode(r).expect("compact"))));
        let dec_plain = time(5, || drop(std::hint::black_box(decode(&lines[0], Form::Plain))));
        let dec_compact = time(5, || drop(std::hint::black_box(decode(&frames[0], Form::Compact))));
        println!(
            "{:>9} {:>6} {:>10} {:>10} {:>10} {:>6.1}× {:>16.0} {:>8} µs {:>8} µs {:>8} µs {:>8} µs",
            format!("{times:?}").to_lowercase(),
            plies,
            plain_bytes,
            compact_bytes,
            best_bytes,
            plain_bytes as f64 / compact_bytes as f64,
            compact_bytes as f64 * 1000.0 / f64::from(plies),
            micros(enc_plain),
            micros(dec_plain),
            micros(enc_compact),
            micros(dec_compact),
        );
    }
}

/// Least squares fit of `bytes = fixed + per_ply × plies`.
fn fit(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let (sx, sy) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - slope * mx, slope)
}

fn real_table(files: &[PathBuf]) {
    println!("Real records, bytes per 1,000 plies (all games of the file), encode time per game:");
    for file in files {
        let records: Vec<GameRecord> =
            RecordReader::open(file).expect("open").collect::<Result<Vec<_>, _>>().unwrap_or_else(|e| panic!("{e}"));
        let games = records.len();
        let plies: usize = records.iter().map(|r| r.plies.len()).sum();
        let mut plain = Encoder::new(Form::Plain).expect("encoder");
        let lines: Vec<Vec<u8>> = records.iter().map(|r| plain.encode(r).expect("plain")).collect();
        let plain_bytes: usize = lines.iter().map(Vec::len).sum();
        println!(
            "{}: {games} games, {:.0} plies a game; plain {:.0} B/1000 plies ({:.0} B a game)",
            file.display(),
            plies as f64 / games as f64,
            plain_bytes as f64 * 1000.0 / plies as f64,
            plain_bytes as f64 / games as f64
        );
        println!(
            "  {:>5} {:>16} {:>14} {:>12} {:>18} {:>16}",
            "level", "compact B/1000p", "B a game", "enc µs/game", "fit: fixed+B/ply", "1,000-ply game"
        );
        for level in [3, 6, 9, 12, 15, 19] {
            let mut compact = Encoder::with_level(Form::Compact, level).expect("encoder");
            let t = Instant::now();
            let frames: Vec<Vec<u8>> = lines.iter().map(|l| compact.encode_line(l).expect("compact")).collect();
            let enc = t.elapsed() / games as u32;
            let bytes: usize = frames.iter().map(Vec::len).sum();
            let points: Vec<(f64, f64)> =
                records.iter().zip(&frames).map(|(r, f)| (r.plies.len() as f64, f.len() as f64)).collect();
            let (fixed, per_ply) = fit(&points);
            println!(
                "  {:>5} {:>16.0} {:>14.0} {:>12} {:>11.0}+{:>5.2} {:>14.0} B",
                level,
                bytes as f64 * 1000.0 / plies as f64,
                bytes as f64 / games as f64,
                micros(enc),
                fixed,
                per_ply,
                fixed + 1000.0 * per_ply
            );
        }
        // For comparison: a dictionary trained on the even games, used on the odd ones
        // (frames that `zstd -dc` cannot read without the dictionary file).
        let (train, test): (Vec<_>, Vec<_>) = lines.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let train: Vec<&[u8]> = train.into_iter().map(|(_, l)| &l[..]).collect();
        let test: Vec<&[u8]> = test.into_iter().map(|(_, l)| &l[..]).collect();
        let test_plies: usize = records.iter().skip(1).step_by(2).map(|r| r.plies.len()).sum();
        if let (Ok(dict), false) = (zstd::dict::from_samples(&train, 16 * 1024), test.is_empty()) {
            let mut with = zstd::bulk::Compressor::with_dictionary(LEVEL, &dict).expect("compressor");
            let mut without = zstd::bulk::Compressor::new(LEVEL).expect("compressor");
            let size = |c: &mut zstd::bulk::Compressor<'_>| {
                test.iter().map(|l| c.compress(l).expect("compress").len()).sum::<usize>() as f64 * 1000.0
                    / test_plies as f64
            };
            println!(
                "  a 16 KB dictionary trained on the even games, level {LEVEL}, odd games: {:.0} B/1000 plies (without: {:.0})",
                size(&mut with),
                size(&mut without)
            );
        }
        // Decoding the whole file in the compact form, at the crate's level.
        let mut compact = Encoder::new(Form::Compact).expect("encoder");
        let file_bytes: Vec<u8> = lines.iter().flat_map(|l| compact.encode_line(l).expect("compact")).collect();
        let mut check = Vec::new();
        zstd::stream::read::Decoder::new(&file_bytes[..]).expect("decoder").read_to_end(&mut check).expect("zstd -dc");
        assert_eq!(check, lines.concat(), "the frames decode to the plain lines");
        let t = Instant::now();
        let n = decode(&file_bytes, Form::Compact).len();
        let dec_compact = t.elapsed();
        let plain_file = lines.concat();
        let t = Instant::now();
        decode(&plain_file, Form::Plain);
        let dec_plain = t.elapsed();
        println!(
            "  read back: compact {n} records in {:.1} ms ({:.0} µs a game), plain {:.1} ms",
            dec_compact.as_secs_f64() * 1e3,
            dec_compact.as_secs_f64() * 1e6 / n as f64,
            dec_plain.as_secs_f64() * 1e3
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; the other arguments are files.
    let files: Vec<PathBuf> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).map(PathBuf::from).collect();
    if files.is_empty() {
        synthetic_table();
    } else {
        real_table(&files);
    }
}
