//! The two sides and a container indexed by side.

use std::fmt;
use std::ops::{Index, IndexMut, Not};

use serde::{Deserialize, Serialize};

/// One of the two sides. Red deploys on the low ranks and moves first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// The side that deploys on ranks 1–4 and moves first.
    Red,
    /// The side that deploys on the top ranks.
    Blue,
}

impl Color {
    /// Both colours, Red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Blue];

    /// 0 for Red, 1 for Blue.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lowercase name (`"red"`, `"blue"`).
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Blue => "blue",
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        match self {
            Color::Red => Color::Blue,
            Color::Blue => Color::Red,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Red => "Red",
            Color::Blue => "Blue",
        })
    }
}

/// A pair of values, one per colour.
///
/// ```
/// use stratego_rules::{ByColor, Color};
/// let mut captured = ByColor::new(0, 0);
/// captured[Color::Blue] += 1;
/// assert_eq!(captured.red, 0);
/// assert_eq!(captured[Color::Blue], 1);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ByColor<T> {
    /// Red's value.
    pub red: T,
    /// Blue's value.
    pub blue: T,
}

impl<T> ByColor<T> {
    /// A pair from Red's and Blue's values.
    pub const fn new(red: T, blue: T) -> ByColor<T> {
        ByColor { red, blue }
    }

    /// A pair built by calling `f` for Red, then Blue.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor { red: f(Color::Red), blue: f(Color::Blue) }
    }

    /// Applies `f` to both values.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor { red: f(self.red), blue: f(self.blue) }
    }

    /// References to both values.
    pub fn as_ref(&self) -> ByColor<&T> {
        ByColor { red: &self.red, blue: &self.blue }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    fn index(&self, c: Color) -> &T {
        match c {
            Color::Red => &self.red,
            Color::Blue => &self.blue,
        }
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, c: Color) -> &mut T {
        match c {
            Color::Red => &mut self.red,
            Color::Blue => &mut self.blue,
        }
    }
}
