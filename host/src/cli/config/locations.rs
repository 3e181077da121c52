//! Where each key of a tournament file is (its line, for errors), and toml's and serde's
//! wording of a problem made plainer.

use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;

/// Line number (from 1) of a byte offset.
pub(super) fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// " (did you mean "format"?)" for a near miss, else the keys serde says are allowed.
pub(super) fn known_keys_hint(field: &str, serde_message: &str) -> String {
    let known: Vec<&str> = serde_message.split('`').skip(3).step_by(2).collect();
    if let Some(close) = known.iter().filter(|k| edit_distance(field, k) <= 2).min_by_key(|k| edit_distance(field, k)) {
        return format!(" (did you mean {close:?}?)");
    }
    if known.is_empty() { String::new() } else { format!(" (known keys: {})", known.join(", ")) }
}

pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// serde names Rust types ("expected i64"); people read "a whole number".
pub(super) fn plain_types(message: &str) -> String {
    let mut m = message.to_owned();
    for (rust, plain) in [
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected u32", "expected a whole number, 0 or more"),
    ] {
        m = m.replace(rust, plain);
    }
    m
}

/// Where every key and value of the file is, by path (`bot[2].move_time`), found by a
/// second, untyped parse: toml's errors and the typed structs carry byte offsets at best,
/// and neither says which key an offset belongs to.
#[derive(Default)]
pub(super) struct Locations(pub(super) Vec<Location>);

pub(super) struct Location {
    pub(super) path: String,
    pub(super) key: Option<Range<usize>>,
    pub(super) value: Range<usize>,
}

/// A TOML value, kept only for the positions of its keys and values.
pub(super) enum Node {
    Leaf,
    Table(Vec<(Spanned<String>, Spanned<Node>)>),
    Array(Vec<Spanned<Node>>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any TOML value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    entries.push((key, map.next_value::<Spanned<Node>>()?));
                }
                Ok(Node::Table(entries))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<Node>>()? {
                    items.push(item);
                }
                Ok(Node::Array(items))
            }
        }
        deserializer.deserialize_any(V)
    }
}

impl Locations {
    pub(super) fn of(text: &str) -> Locations {
        let mut locations = Locations::default();
        if let Ok(root) = toml::from_str::<Node>(text) {
            locations.walk(root, "");
        }
        locations
    }

    fn walk(&mut self, node: Node, path: &str) {
        match node {
            Node::Leaf => {}
            Node::Table(entries) => {
                for (key, value) in entries {
                    let child =
                        if path.is_empty() { key.get_ref().clone() } else { format!("{path}.{}", key.get_ref()) };
                    self.0.push(Location { path: child.clone(), key: Some(key.span()), value: value.span() });
                    self.walk(value.into_inner(), &child);
                }
            }
            Node::Array(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    // Counted from 1, like the bot[N] of error messages.
                    let child = format!("{path}[{}]", i + 1);
                    self.0.push(Location { path: child.clone(), key: None, value: item.span() });
                    self.walk(item.into_inner(), &child);
                }
            }
        }
    }

    /// The line of `path`, or of the nearest enclosing key that is in the file (a missing
    /// `bot[2].command` is reported at `bot[2]`).
    pub(super) fn line_of(&self, path: &str, text: &str) -> Option<usize> {
        let mut path = path;
        loop {
            if let Some(l) = self.0.iter().find(|l| l.path == path) {
                return Some(line_at(text, l.key.as_ref().map_or(l.value.start, |k| k.start)));
            }
            path = &path[..path.rfind(['.', '['])?];
        }
    }

    /// The path of the key written at `offset`.
    pub(super) fn key_at(&self, offset: usize) -> Option<&str> {
        self.0.iter().find(|l| l.key.as_ref().is_some_and(|k| k.contains(&offset))).map(|l| l.path.as_str())
    }

    /// The path of the innermost key or value at `offset`.
    pub(super) fn path_at(&self, offset: usize) -> Option<&str> {
        self.key_at(offset).or_else(|| {
            self.0
                .iter()
                .filter(|l| l.value.contains(&offset) || l.value.start == offset)
                .min_by_key(|l| (l.value.len(), usize::MAX - l.path.len()))
                .map(|l| l.path.as_str())
        })
    }
}
