//! A bot of the UCC 2012 line protocol (ucc2012.md) for the end-to-end tests: random legal
//! moves, with its own board kept from the host's echoes only (it uses nothing of the rules
//! crate), and checks of everything the host tells it. Any line it does not expect, a board
//! that differs from its own, or an echo that names a rank its piece does not have makes it
//! write the problem to stderr and exit with status 3, so an adapter fault shows as a crash.
//!
//! `ucc-bot [--seed N] [--prefer-long] [--attack] [--shuttle] [--MODE-at N] [--transcript FILE]`
//!
//! - `--prefer-long`: when a Scout can move several squares, do (half of the time).
//! - `--attack`: attack an adjacent enemy whenever it can.
//! - `--shuttle`: move one piece back and forth for ever (breaks a two-square rule).
//! - `--surrender-at N`, `--garbage-at N`, `--exit-at N`, `--illegal-at N`: at its N-th
//!   turn answer SURRENDER, a line that is not a move, exit without answering, or a move of
//!   its Flag.
//! - `--transcript FILE`: appends every line received.

use std::io::{BufRead, Write};

/// A square's content as this bot knows it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Empty,
    Lake,
    Own(char),
    /// An enemy piece, with its rank once a fight has shown it.
    Enemy(Option<char>),
}

struct Bot {
    board: [[Cell; 10]; 10],
    red: bool,
    rng: u64,
    prefer_long: bool,
    attack: bool,
    shuttle: Option<(usize, usize)>,
    transcript: Option<std::fs::File>,
    input: std::io::StdinLock<'static>,
}

fn die(why: &str) -> ! {
    eprintln!("ucc-bot: {why}");
    std::process::exit(3)
}

fn bad_echo(line: &str) -> ! {
    die(&format!("cannot read the echo {line:?}"))
}

fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

const DIRS: [(&str, i32, i32); 4] = [("UP", 0, -1), ("DOWN", 0, 1), ("LEFT", -1, 0), ("RIGHT", 1, 0)];

impl Bot {
    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn read(&mut self) -> String {
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) | Err(_) => die("end of input without QUIT"),
            Ok(_) => {}
        }
        if let Some(t) = self.transcript.as_mut() {
            let _ = t.write_all(line.as_bytes());
        }
        let line = line.trim_end().to_owned();
        if line.starts_with("QUIT") {
            std::process::exit(0);
        }
        line
    }

    fn setup(&mut self) -> Vec<String> {
        let mut army: Vec<char> = "12334445555666677778888899999999sBBBBBBF".chars().collect();
        for i in (1..army.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            army.swap(i, j);
        }
        let top = if self.red { 0 } else { 6 };
        let rows: Vec<String> = army.chunks(10).map(|c| c.iter().collect()).collect();
        for (i, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                self.board[x][top + i] = Cell::Own(c);
            }
        }
        for &(x, y) in &[(2, 4), (3, 4), (6, 4), (7, 4), (2, 5), (3, 5), (6, 5), (7, 5)] {
            self.board[x][y] = Cell::Lake;
        }
        let enemy = if self.red { 6 } else { 0 };
        for y in enemy..enemy + 4 {
            for x in 0..10 {
                self.board[x][y] = Cell::Enemy(None);
            }
        }
        rows
    }

    /// Reads the ten board rows and checks them against its own board.
    fn check_board(&mut self) {
        for y in 0..10 {
            let row = self.read();
            if row.chars().count() != 10 {
                die(&format!("board row {y} {row:?} is not 10 wide"));
            }
            for (x, c) in row.chars().enumerate() {
                let want = match self.board[x][y] {
                    Cell::Empty => '.',
                    Cell::Lake => '+',
                    Cell::Own(r) => r,
                    Cell::Enemy(_) => '#',
                };
                if c != want {
                    die(&format!("board square ({x},{y}) shows {c:?}, expected {want:?}, row {row:?}"));
                }
            }
        }
    }

    /// Applies an echo `X Y DIR [N] OUTCOME [A D]`.
    fn apply(&mut self, line: &str) {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() < 4 {
            bad_echo(line);
        }
        let x: i32 = w[0].parse().unwrap_or_else(|_| bad_echo(line));
        let y: i32 = w[1].parse().unwrap_or_else(|_| bad_echo(line));
        let (_, dx, dy) = *DIRS.iter().find(|d| d.0 == w[2]).unwrap_or_else(|| bad_echo(line));
        let (n, rest) = match w[3].parse::<i32>() {
            Ok(n) => (n, &w[4..]),
            Err(_) => (1, &w[3..]),
        };
        if rest.is_empty() {
            bad_echo(line);
        }
        let (tx, ty) = ((x + n * dx) as usize, (y + n * dy) as usize);
        let (x, y) = (x as usize, y as usize);
        let mover = self.board[x][y];
        let ranks = || {
            if rest.len() != 3 {
                bad_echo(line);
            }
            (rest[1].chars().next().unwrap(), rest[2].chars().next().unwrap())
        };
        // A rank the host names for one of this bot's pieces must be that piece's.
        let check = |cell: Cell, told: char| {
            if let Cell::Own(r) = cell {
                if r != told {
                    die(&format!("the echo {line:?} names {told:?} for its piece {r:?}"));
                }
            }
        };
        let revealed = |cell: Cell, told: char| match cell {
            Cell::Enemy(_) => Cell::Enemy(Some(told)),
            other => other,
        };
        match rest[0] {
            "OK" => {
                if self.board[tx][ty] != Cell::Empty {
                    die(&format!("the echo {line:?} says OK but ({tx},{ty}) is not empty"));
                }
                self.board[tx][ty] = mover;
                self.board[x][y] = Cell::Empty;
            }
            "KILLS" => {
                let (a, d) = ranks();
                check(mover, a);
                check(self.board[tx][ty], d);
                self.board[tx][ty] = revealed(mover, a);
                self.board[x][y] = Cell::Empty;
            }
            "DIES" => {
                let (a, d) = ranks();
                check(mover, a);
                check(self.board[tx][ty], d);
                self.board[tx][ty] = revealed(self.board[tx][ty], d);
                self.board[x][y] = Cell::Empty;
            }
            "BOTHDIE" => {
                let (a, d) = ranks();
                check(mover, a);
                check(self.board[tx][ty], d);
                if a != d {
                    die(&format!("the echo {line:?} has both die with different ranks"));
                }
                self.board[tx][ty] = Cell::Empty;
                self.board[x][y] = Cell::Empty;
            }
            "VICTORY_FLAG" | "VICTORY_ATTRITION" | "ILLEGAL" => {}
            other => die(&format!("unknown outcome {other:?} in {line:?}")),
        }
    }

    /// Every move it can make, with the Scout's longer ones.
    fn moves(&self) -> Vec<(usize, usize, &'static str, i32, bool)> {
        let mut out = Vec::new();
        for x in 0..10 {
            for y in 0..10 {
                let Cell::Own(r) = self.board[x][y] else { continue };
                if r == 'B' || r == 'F' {
                    continue;
                }
                for &(name, dx, dy) in &DIRS {
                    let mut n = 1;
                    loop {
                        let (tx, ty) = (x as i32 + n * dx, y as i32 + n * dy);
                        if !(0..10).contains(&tx) || !(0..10).contains(&ty) {
                            break;
                        }
                        match self.board[tx as usize][ty as usize] {
                            Cell::Empty => out.push((x, y, name, n, false)),
                            Cell::Enemy(_) => {
                                out.push((x, y, name, n, true));
                                break;
                            }
                            _ => break,
                        }
                        if r != '9' {
                            break;
                        }
                        n += 1;
                    }
                }
            }
        }
        out
    }

    fn choose(&mut self) -> String {
        let moves = self.moves();
        if moves.is_empty() {
            return "SURRENDER".to_owned();
        }
        if let Some((x, y)) = self.shuttle {
            if let Some(m) = moves.iter().find(|m| (m.0, m.1) == (x, y) && !m.4 && m.3 == 1) {
                let (dx, dy) = DIRS.iter().find(|d| d.0 == m.2).map(|d| (d.1, d.2)).unwrap();
                self.shuttle = Some(((x as i32 + dx) as usize, (y as i32 + dy) as usize));
                return format!("{} {} {}", m.0, m.1, m.2);
            }
            // Pick the first piece that can step to an empty square and shuttle it.
            if let Some(m) = moves.iter().find(|m| !m.4 && m.3 == 1) {
                let (dx, dy) = DIRS.iter().find(|d| d.0 == m.2).map(|d| (d.1, d.2)).unwrap();
                self.shuttle = Some(((m.0 as i32 + dx) as usize, (m.1 as i32 + dy) as usize));
                return format!("{} {} {}", m.0, m.1, m.2);
            }
        }
        let pool: Vec<_> = if self.attack && moves.iter().any(|m| m.4) {
            moves.iter().copied().filter(|m| m.4).collect()
        } else if self.prefer_long && moves.iter().any(|m| m.3 > 1) && self.next() % 2 == 0 {
            moves.iter().copied().filter(|m| m.3 > 1).collect()
        } else {
            moves
        };
        let m = pool[(self.next() % pool.len() as u64) as usize];
        if m.3 > 1 { format!("{} {} {} {}", m.0, m.1, m.2, m.3) } else { format!("{} {} {}", m.0, m.1, m.2) }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let at = |flag: &str| value(flag).and_then(|v| v.parse::<u32>().ok());
    let seed: u64 = value("--seed").and_then(|v| v.parse().ok()).unwrap_or(1);
    let transcript = value("--transcript")
        .map(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).expect("transcript file"));
    let mut bot = Bot {
        board: [[Cell::Empty; 10]; 10],
        red: false,
        rng: 0,
        prefer_long: args.iter().any(|a| a == "--prefer-long"),
        attack: args.iter().any(|a| a == "--attack"),
        shuttle: args.iter().any(|a| a == "--shuttle").then_some((99, 99)),
        transcript,
        input: std::io::stdin().lock(),
    };
    let first = bot.read();
    let w: Vec<&str> = first.split_whitespace().collect();
    if w.len() != 4
        || !["RED", "BLUE"].contains(&w[0])
        || w[2] != "10"
        || w[3] != "10"
        || !w[1].starts_with("./")
        || w[1][2..].contains('/')
    {
        die(&format!("the first line {first:?} is not \"RED|BLUE ./opponent 10 10\""));
    }
    bot.red = w[0] == "RED";
    bot.rng = (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(bot.red)) | 1;
    for row in bot.setup() {
        send(&row);
    }
    let mut turn = 0u32;
    loop {
        // The opponent's move (or START), then the board.
        let line = bot.read();
        if line == "START" {
            if !bot.red || turn > 0 {
                die("START sent to Blue or after the first turn");
            }
        } else {
            if bot.red && turn == 0 {
                die(&format!("Red's first turn must start with START, got {line:?}"));
            }
            bot.apply(&line);
        }
        bot.check_board();
        turn += 1;
        let answer = if at("--surrender-at") == Some(turn) {
            "SURRENDER".to_owned()
        } else if at("--garbage-at") == Some(turn) {
            "hello there".to_owned()
        } else if at("--exit-at") == Some(turn) {
            std::process::exit(0);
        } else if at("--illegal-at") == Some(turn) {
            let flag = (0..100).map(|i| (i % 10, i / 10)).find(|&(x, y)| bot.board[x][y] == Cell::Own('F'));
            let (x, y) = flag.unwrap_or_else(|| die("no Flag"));
            format!("{x} {y} {}", if y > 0 { "UP" } else { "DOWN" })
        } else {
            bot.choose()
        };
        send(&answer);
        // The echo of its own move.
        let echo = bot.read();
        let want_prefix = answer.clone();
        if !echo.starts_with(&want_prefix) {
            die(&format!("the echo {echo:?} is not of its move {answer:?}"));
        }
        bot.apply(&echo);
    }
}
