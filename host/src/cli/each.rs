//! Options given to every bot, as cutechess's `-each`: `--each KEY=VALUE` (repeat) on the
//! command line, an `[each]` table in the tournament file. The keys are a bot spec's
//! (`move_time`, `tc`, `setup_time`, `startup_time`, `memory`, `cpu_seconds`, `output`,
//! `nice`, `sandbox`, `sandbox_net`, `pids`, `disk`, `own_setup`) and `env.NAME` for one
//! environment variable; a bot's own value wins over `--each`, which wins over the run's
//! flags (`--move-time`, `--bot-memory`, …). A bot's `name`, `command`, `dir` and remote
//! keys are its own: they are refused here.

use std::collections::BTreeMap;

use crate::supervise::bot_spec::{BotSpec, Limits, RawSpec, TimeControlOverride};

/// What `--each` or `[each]` gives every bot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Each {
    /// Limits a bot's spec leaves unset.
    pub limits: Limits,
    /// Clocks a bot's spec leaves unset.
    pub tc_override: TimeControlOverride,
    /// Environment variables a bot's spec does not set.
    pub env: BTreeMap<String, String>,
    /// Every bot chooses its own setup (`own_setup = true`).
    pub own_setup: bool,
}

/// Keys that belong to one bot only.
const OWN_KEYS: [&str; 7] = ["name", "command", "dir", "remote", "token_sha256", "token_file", "protocol"];

impl Each {
    /// `--each KEY=VALUE` flags: a value is read as JSON when it is a number or `true`/`false`,
    /// else as text (`--each memory=512M`, `--each move_time=0.5`, `--each env.K=V`).
    ///
    /// # Errors
    /// A flag that is not KEY=VALUE, a key that is not an option of every bot, a bad value;
    /// each names the flag.
    pub fn from_flags(flags: &[String]) -> Result<Each, String> {
        let mut object = serde_json::Map::new();
        let mut env = serde_json::Map::new();
        for flag in flags {
            let Some((key, value)) = flag.split_once('=').map(|(k, v)| (k.trim(), v)) else {
                return Err(format!("--each {flag:?}: expected KEY=VALUE, e.g. move_time=0.5 or env.NAME=VALUE"));
            };
            if let Some(name) = key.strip_prefix("env.") {
                if name.is_empty() {
                    return Err(format!("--each {flag:?}: env.NAME=VALUE needs a NAME"));
                }
                env.insert(name.to_owned(), serde_json::Value::String(value.to_owned()));
                continue;
            }
            if OWN_KEYS.contains(&key) || key == "env" {
                return Err(format!("--each {flag:?}: {key} is one bot's own (give it in that bot's spec)"));
            }
            let parsed = match serde_json::from_str::<serde_json::Value>(value.trim()) {
                Ok(v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) => v,
                _ => serde_json::Value::String(value.to_owned()),
            };
            object.insert(key.to_owned(), parsed);
        }
        if !env.is_empty() {
            object.insert("env".to_owned(), serde_json::Value::Object(env));
        }
        let raw: RawSpec =
            serde_json::from_value(serde_json::Value::Object(object)).map_err(|e| format!("--each: {e}"))?;
        Each::from_raw(raw).map_err(|(key, message)| format!("--each {key}: {message}"))
    }

    /// A tournament file's `[each]` table, read as a bot spec without a command.
    ///
    /// # Errors
    /// The key and what is wrong with it.
    pub fn from_raw(mut raw: RawSpec) -> Result<Each, (String, String)> {
        let own = [
            ("name", raw.name.is_some()),
            ("command", raw.command.is_some()),
            ("dir", raw.dir.is_some()),
            ("remote", raw.remote),
            ("token_sha256", raw.token_sha256.is_some()),
            ("token_file", raw.token_file.is_some()),
            ("protocol", raw.protocol != crate::supervise::bot_spec::Protocol::default()),
        ];
        if let Some((key, _)) = own.iter().find(|(_, given)| *given) {
            return Err(((*key).to_owned(), "is one bot's own (give it in that bot's [[bot]] table)".to_owned()));
        }
        raw.command = Some(crate::supervise::bot_spec::CommandForm::Args(vec!["each".to_owned()]));
        let (spec, _) = raw.build().map_err(|e| (e.key.to_owned(), e.message))?;
        Ok(Each { limits: spec.limits, tc_override: spec.tc_override, env: spec.env, own_setup: spec.own_setup })
    }

    /// `self`, with what it leaves unset taken from `defaults` (the command line's `--each`
    /// over the file's `[each]`).
    pub fn or(mut self, defaults: &Each) -> Each {
        self.limits = self.limits.or(defaults.limits);
        let (t, d) = (&mut self.tc_override, &defaults.tc_override);
        t.move_time = t.move_time.or(d.move_time);
        t.bank = t.bank.or(d.bank);
        t.setup = t.setup.or(d.setup);
        t.startup = t.startup.or(d.startup);
        for (k, v) in &defaults.env {
            self.env.entry(k.clone()).or_insert_with(|| v.clone());
        }
        self.own_setup |= defaults.own_setup;
        self
    }

    /// Gives `bot` what its spec leaves unset.
    pub fn apply(&self, bot: &mut BotSpec) {
        bot.limits = bot.limits.or(self.limits);
        let (t, d) = (&mut bot.tc_override, &self.tc_override);
        t.move_time = t.move_time.or(d.move_time);
        t.bank = t.bank.or(d.bank);
        t.setup = t.setup.or(d.setup);
        t.startup = t.startup.or(d.startup);
        for (k, v) in &self.env {
            bot.env.entry(k.clone()).or_insert_with(|| v.clone());
        }
        bot.own_setup |= self.own_setup;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn flags(f: &[&str]) -> Result<Each, String> {
        Each::from_flags(&f.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn flags_give_every_bot_what_its_spec_leaves_unset() {
        let each = flags(&["move_time=0.5", "memory=1G", "env.K=a=b", "nice=3"]).unwrap();
        assert_eq!(each.tc_override.move_time, Some(Duration::from_millis(500)));
        assert_eq!(each.limits.memory_bytes, Some(1 << 30));
        assert_eq!(each.limits.nice, Some(3));
        assert_eq!(each.env, BTreeMap::from([("K".to_owned(), "a=b".to_owned())]));
        let mut bot = BotSpec::parse(r#"{"command": ["x"], "move_time": 2, "env": {"K": "mine"}}"#).unwrap();
        each.apply(&mut bot);
        assert_eq!(bot.tc_override.move_time, Some(Duration::from_secs(2)), "the bot's own wins");
        assert_eq!(bot.env["K"], "mine");
        assert_eq!(bot.limits.memory_bytes, Some(1 << 30));
        assert_eq!(
            flags(&["move_time"]).unwrap_err(),
            "--each \"move_time\": expected KEY=VALUE, e.g. move_time=0.5 or env.NAME=VALUE"
        );
        assert_eq!(flags(&["move_time=fast"]).unwrap_err(), "--each move_time: \"fast\" is not a number of seconds");
        assert_eq!(
            flags(&["dir=x"]).unwrap_err(),
            "--each \"dir=x\": dir is one bot's own (give it in that bot's spec)"
        );
        assert!(flags(&["colour=red"]).unwrap_err().starts_with("--each: unknown field `colour`"));
    }
}
