//! The values of a tournament file checked, each problem named with its key and line:
//! the part of [`super::parse`] after the TOML is read.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use stratego_rules::Ruleset;

use super::{ConfigFileError, Context, FileFlags, Format, Names, TournamentConfig, TournamentFile, keep};
use crate::game::clock::parse_seconds;
use crate::run::plan::FileDefaults;
use crate::supervise::bot_spec::{
    BotSpec, NumOrText, RawSpec, assign_unique_names, parse_bank, parse_positive_seconds,
};

impl Context<'_> {
    fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() || self.base.as_os_str().is_empty() { path.to_owned() } else { self.base.join(path) }
    }

    /// Checks every value, pushing each problem onto `errors`; `None` when there was one.
    pub(super) fn check(&self, mut raw: TournamentFile, errors: &mut Vec<ConfigFileError>) -> Option<TournamentConfig> {
        let each = raw.each.take().map(|e| {
            crate::cli::each::Each::from_raw(e).map_err(|(key, message)| self.error(&format!("each.{key}"), message))
        });
        let each = keep(errors, each.transpose());
        let knockout = raw.format.as_deref() == Some("knockout");
        let round_robin = match raw.format.as_deref() {
            None | Some("round-robin" | "knockout") => Some(true),
            Some("gauntlet") => Some(false),
            Some(other) => {
                errors.push(
                    self.error("format", format!("{other:?} is not a format (round-robin, gauntlet or knockout)")),
                );
                None
            }
        };
        let games_per_pairing = keep(
            errors,
            match raw.games.unwrap_or(2) {
                g if g < 1 => Err(self.error("games", "must be at least 2 (one colour-swapped pair)")),
                g if g % 2 == 1 => Err(self.error("games", "must be even (games are played in colour-swapped pairs)")),
                g => u32::try_from(g).map_err(|_| self.error("games", format!("{g} is too many"))),
            },
        );
        let flags = self.check_flags(&raw, errors);
        let settings = self.check_settings(&mut raw, errors);
        let bots = self.check_bots(raw.bot, errors);
        let format = match (round_robin, &bots) {
            (Some(true), _) if raw.seeds.is_some() => {
                errors.push(self.error("seeds", "only a gauntlet has seeds (format = \"gauntlet\")"));
                None
            }
            (Some(true), _) if knockout => Some(Format::Knockout),
            (Some(true), _) => Some(Format::RoundRobin),
            (Some(false), Some(bots)) => {
                keep(errors, self.check_seeds(raw.seeds, bots)).map(|seeds| Format::Gauntlet { seeds })
            }
            (Some(false), None) | (None, _) => None,
        };
        Some(TournamentConfig {
            bots: bots?,
            format: format?,
            games_per_pairing: games_per_pairing?,
            settings: settings?,
            flags: FileFlags { each: each?, ..flags? },
        })
    }

    /// The settings a flag may override ([`FileDefaults`]): `rules`, `seed`, `concurrency`,
    /// the clocks, `setups`, `out`, `strikes`, `time_margin_ms`.
    fn check_settings(&self, raw: &mut TournamentFile, errors: &mut Vec<ConfigFileError>) -> Option<FileDefaults> {
        let rules = keep(errors, raw.rules.take().map(|r| self.check_rules(&r)).transpose());
        let seed = keep(
            errors,
            raw.seed
                .take()
                .map(|s| {
                    s.0.trim()
                        .parse::<u64>()
                        .map_err(|_| self.error("seed", format!("{:?} is not a whole number 0 or more", s.0)))
                })
                .transpose(),
        );
        let concurrency = keep(
            errors,
            raw.concurrency
                .take()
                .map(|c| {
                    usize::try_from(c)
                        .ok()
                        .filter(|&c| c > 0)
                        .ok_or_else(|| self.error("concurrency", "must be at least 1"))
                })
                .transpose(),
        );
        let seconds = |key: &str, v: Option<NumOrText>, parse: fn(&str) -> Result<Duration, String>| {
            v.map(|t| parse(&t.0).map_err(|e| self.error(key, e))).transpose()
        };
        let move_time = keep(errors, seconds("move_time", raw.move_time.take(), parse_positive_seconds));
        let tc = keep(errors, raw.tc.take().map(|t| parse_bank(&t.0).map_err(|e| self.error("tc", e))).transpose());
        let setup_time = keep(errors, seconds("setup_time", raw.setup_time.take(), parse_seconds));
        let startup_time = keep(errors, seconds("startup_time", raw.startup_time.take(), parse_seconds));
        let setups = keep(errors, raw.setups.take().map(|s| self.check_setups(&s)).transpose());
        let out = raw.out.take().map(|o| self.resolve(&o));
        let strikes = keep(
            errors,
            raw.strikes
                .take()
                .map(|s| u32::try_from(s).map_err(|_| self.error("strikes", "must be a whole number, 0 or more")))
                .transpose(),
        );
        let time_margin = keep(
            errors,
            raw.time_margin_ms
                .take()
                .map(|m| {
                    u64::try_from(m).ok().filter(|&m| m <= 60_000).map(Duration::from_millis).ok_or_else(|| {
                        self.error("time_margin_ms", "must be a whole number of milliseconds, 0 to 60000")
                    })
                })
                .transpose(),
        );
        Some(FileDefaults {
            rules: rules?,
            seed: seed?,
            concurrency: concurrency?,
            move_time: move_time?,
            tc: tc?,
            setup_time: setup_time?,
            startup_time: startup_time?,
            setups: setups?,
            out,
            strikes: strikes?,
            time_margin: time_margin?,
        })
    }

    /// The keys that stand for the other flags: `event`, `max_plies`, `setups_order`,
    /// `setups_start`, `no_html`, `compress`, `report_every`, `recover`, `anchor`.
    fn check_flags(&self, raw: &TournamentFile, errors: &mut Vec<ConfigFileError>) -> Option<FileFlags> {
        let before = errors.len();
        let mut at_least_1 = |key: &str, v: Option<i64>| {
            let checked = v
                .map(|n| u32::try_from(n).ok().filter(|&n| n >= 1).ok_or_else(|| self.error(key, "must be at least 1")))
                .transpose();
            keep(errors, checked).flatten()
        };
        let max_plies = at_least_1("max_plies", raw.max_plies);
        let report_every = at_least_1("report_every", raw.report_every).map(u64::from);
        let draw_after_no_capture = at_least_1("draw_after_no_capture", raw.draw_after_no_capture);
        let adjudicate_material = at_least_1("adjudicate_material", raw.adjudicate_material);
        let setups_start = match raw.setups_start {
            Some(n) if n < 1 => {
                errors.push(self.error("setups_start", "book entries are numbered from 1"));
                None
            }
            n => at_least_1("setups_start", n),
        };
        let event = match raw.event.as_deref() {
            Some(e) if e.trim().is_empty() => {
                errors.push(self.error("event", "the name must not be empty"));
                None
            }
            e => e.map(str::to_owned),
        };
        let setups_order = match raw.setups_order.as_deref() {
            None => None,
            Some("random") => Some(crate::run::schedule::BookOrder::Random),
            Some("sequential") => Some(crate::run::schedule::BookOrder::Sequential),
            Some(other) => {
                errors.push(self.error("setups_order", format!("{other:?} is not an order (random or sequential)")));
                None
            }
        };
        let anchor = match raw.anchor.as_deref() {
            Some(a) if a.trim().is_empty() => {
                errors.push(self.error("anchor", "must name a bot (NAME or NAME=ELO)"));
                None
            }
            a => a.map(str::to_owned),
        };
        (errors.len() == before).then(|| FileFlags {
            event,
            max_plies,
            setups_order,
            setups_start,
            no_html: raw.no_html.unwrap_or(false),
            compress: raw.compress.unwrap_or(false),
            report_every,
            recover: raw.recover.unwrap_or(false),
            anchor,
            draw_after_no_capture,
            adjudicate_material,
            names_from_commands: raw.names_from_commands.unwrap_or(false),
            each: None,
        })
    }

    /// A preset stays a name; a file becomes a path from the host's working directory.
    fn check_rules(&self, rules: &str) -> Result<String, ConfigFileError> {
        if Ruleset::preset(rules).is_ok() {
            return Ok(rules.to_owned());
        }
        let path = self.resolve(Path::new(rules));
        let text = std::fs::read_to_string(&path).map_err(|e| {
            let shown = path.display();
            self.error(
                "rules",
                format!("{rules:?} is not a preset (classic, isf, barrage, ucc2012) nor a readable file: {shown}: {e}"),
            )
        })?;
        Ruleset::from_json(&text).map_err(|e| self.error("rules", format!("{}: {e}", path.display())))?;
        Ok(path.display().to_string())
    }

    fn check_setups(&self, setups: &Path) -> Result<PathBuf, ConfigFileError> {
        let path = self.resolve(setups);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => Ok(path),
            Ok(_) => Err(self.error("setups", format!("{} is not a file", path.display()))),
            Err(e) => Err(self.error("setups", format!("{}: {e}", path.display()))),
        }
    }

    fn check_bots(&self, raw: Vec<RawSpec>, errors: &mut Vec<ConfigFileError>) -> Option<Vec<BotSpec>> {
        let tables = raw.len();
        let mut bots = Vec::with_capacity(raw.len());
        let mut explicit = Vec::with_capacity(raw.len());
        for (i, mut r) in raw.into_iter().enumerate() {
            // A token file sits next to the tournament file, as a bot's dir does.
            r.token_file = r.token_file.map(|p| self.resolve(&p));
            let built = r.build().map_err(|e| self.error(&format!("bot[{}].{}", i + 1, e.key), e.message));
            let Some((mut spec, named)) = keep(errors, built) else { continue };
            spec.dir = match spec.dir.take() {
                Some(dir) => Some(self.resolve(&dir)),
                None if self.base.as_os_str().is_empty() || spec.remote => None,
                None => Some(self.base.to_owned()),
            };
            bots.push(spec.resolve_builtin());
            explicit.push(named);
        }
        if tables < 2 {
            let has = match tables {
                0 => "none".to_owned(),
                n => n.to_string(),
            };
            errors.push(ConfigFileError {
                file: self.file.to_owned(),
                line: None,
                key: None,
                message: format!("a tournament needs at least 2 bots ([[bot]] tables); this file has {has}"),
                also: Vec::new(),
            });
            return None;
        }
        if bots.len() < tables {
            return None;
        }
        let named = assign_unique_names(&mut bots, &explicit).map_err(|d| {
            let message = format!("the name {:?} is used by bot[{}] too", d.name, d.first + 1);
            self.error(&format!("bot[{}].name", d.second + 1), message)
        });
        keep(errors, named).map(|()| bots)
    }

    fn check_seeds(&self, seeds: Option<Names>, bots: &[BotSpec]) -> Result<Vec<String>, ConfigFileError> {
        let seeds = seeds.map(|n| n.0).unwrap_or_default();
        if seeds.is_empty() {
            // Point at `format`, the line that asked for a gauntlet.
            let line =
                self.locations.line_of("seeds", self.text).or_else(|| self.locations.line_of("format", self.text));
            return Err(self.error_at("seeds", line, "a gauntlet needs seeds, the bots that play all the others"));
        }
        let mut seen = HashSet::new();
        for (i, seed) in seeds.iter().enumerate() {
            let line = self.locations.line_of(&format!("seeds[{}]", i + 1), self.text);
            if !bots.iter().any(|b| &b.name == seed) {
                let names: Vec<&str> = bots.iter().map(|b| b.name.as_str()).collect();
                let message = format!("{seed:?} is not a bot of this file (its bots: {})", names.join(", "));
                return Err(self.error_at("seeds", line, message));
            }
            if !seen.insert(seed) {
                return Err(self.error_at("seeds", line, format!("{seed:?} is listed twice")));
            }
        }
        if seeds.len() == bots.len() {
            return Err(self.error("seeds", "every bot is a seed; a gauntlet needs at least one bot that is not"));
        }
        Ok(seeds)
    }
}
