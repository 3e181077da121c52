//! The committed JSON Schema must match the types. `UPDATE_SCHEMA=1 cargo test -p
//! stratego-protocol --test schema` rewrites it.

use std::path::PathBuf;

#[test]
fn committed_schema_matches_the_types() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema/protocol.schema.json");
    let fresh = serde_json::to_string_pretty(&stratego_protocol::schema()).unwrap() + "\n";
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is stale: run UPDATE_SCHEMA=1 cargo test -p stratego-protocol --test schema",
        path.display()
    );
}

#[test]
fn protocol_md_examples_parse_as_messages() {
    // Every JSON line in protocol.md that starts with {"type": must be a valid message of
    // one direction or the other.
    let md = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../protocol.md")).unwrap();
    let mut n = 0;
    for line in md.lines().map(str::trim).filter(|l| l.starts_with("{\"type\"")) {
        let host = serde_json::from_str::<stratego_protocol::HostMessage>(line);
        let bot = serde_json::from_str::<stratego_protocol::BotMessage>(line);
        assert!(
            host.is_ok() || bot.is_ok(),
            "protocol.md example is not a message: {line}\nhost: {host:?}\nbot: {bot:?}"
        );
        n += 1;
    }
    assert!(n >= 10, "protocol.md should show every message; found {n} examples");
}
