//! Small text helpers shared by every layer: HTML escaping, points with a half.
//! Uses no layer.

/// Escapes text for HTML content and quoted attribute values (the viewer, the ladder's
/// page).
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Points with a half as `3.5`, whole ones as `3` (the text tables and the pages).
pub fn half(p: f64) -> String {
    if p.fract() == 0.0 { format!("{p:.0}") } else { format!("{p:.1}") }
}
