//! Tokens of remote bots: made by `stratego-host token` (256 random bits, written once),
//! known to the host only by their SHA-256 (`token_sha256` in a bot spec, or lines of a
//! token file), so that a copy of the tournament file gives nobody a bot's seat.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// What every token starts with (tells a token from a hash in a token file).
pub const TOKEN_PREFIX: &str = "stt_";

/// The SHA-256 of a token.
pub type TokenHash = [u8; 32];

/// A new token: [`TOKEN_PREFIX`] and 64 hex digits of the operating system's randomness.
///
/// # Errors
/// The operating system gave no randomness.
pub fn new_token() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness from the operating system: {e}"))?;
    Ok(format!("{TOKEN_PREFIX}{}", hex(&bytes)))
}

/// The SHA-256 of `token` (as written, without surrounding white space).
pub fn hash(token: &str) -> TokenHash {
    Sha256::digest(token.trim().as_bytes()).into()
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Parses a `token_sha256` value: 64 hex digits, optionally after `sha256:`.
///
/// # Errors
/// What is wrong with it.
pub fn parse_hash(text: &str) -> Result<TokenHash, String> {
    let t = text.trim();
    let t = t.strip_prefix("sha256:").unwrap_or(t);
    if t.starts_with(TOKEN_PREFIX) {
        return Err("this is a token, not its SHA-256: give the token_sha256 that `stratego-host token` printed (the token itself belongs to the bot's side only)".to_owned());
    }
    if t.len() != 64 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{t:?} is not a SHA-256 (64 hex digits)"));
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&t[2 * i..2 * i + 2], 16).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Token files read for bot specs, and the hashes each held then: the host reads them again
/// at each handshake ([`current_hashes`]), so that an edit (a revoked token) applies at once.
static FILES: std::sync::Mutex<Vec<(PathBuf, Vec<TokenHash>)>> = std::sync::Mutex::new(Vec::new());

/// Reads an organiser's token file: one entry a line, either a SHA-256 (64 hex digits,
/// optionally `sha256:` first) or a token itself (`stt_…`, hashed on reading); blank lines
/// and lines starting with `#` are skipped. Deleting a line revokes that token: the host
/// reads the file again at each connection's handshake (see [`TokenSource`]).
///
/// # Errors
/// The file cannot be read, a line is neither, or there is no entry.
pub fn read_hash_file(path: &Path) -> Result<Vec<TokenHash>, String> {
    let hashes = parse_hash_file(path)?;
    FILES.lock().unwrap_or_else(|e| e.into_inner()).push((path.to_owned(), hashes.clone()));
    Ok(hashes)
}

/// Where a remote bot's token hashes come from: given in its spec, or token files read
/// again at each handshake.
#[derive(Clone, Debug, Default)]
pub struct TokenSource {
    fixed: Vec<TokenHash>,
    files: Vec<PathBuf>,
}

impl TokenSource {
    /// The source of `tokens` (a bot spec's hashes): those that came from a token file
    /// ([`read_hash_file`]) are that file's, read again each time.
    pub fn of(tokens: &[TokenHash]) -> TokenSource {
        let files = FILES.lock().unwrap_or_else(|e| e.into_inner());
        let mut source = TokenSource::default();
        for t in tokens {
            match files.iter().find(|(_, hs)| hs.iter().any(|h| same(h, t))) {
                Some((path, _)) => {
                    if !source.files.contains(path) {
                        source.files.push(path.clone());
                    }
                }
                None => source.fixed.push(*t),
            }
        }
        source
    }

    /// The hashes that admit the bot now: the fixed ones and what its token files hold now
    /// (a file that cannot be read, or holds none, admits nobody: it is named in the
    /// error beside the hashes that remain).
    pub fn current_hashes(&self) -> (Vec<TokenHash>, Vec<String>) {
        let mut hashes = self.fixed.clone();
        let mut errors = Vec::new();
        for path in &self.files {
            match parse_hash_file(path) {
                Ok(hs) => hashes.extend(hs),
                Err(e) => errors.push(e),
            }
        }
        (hashes, errors)
    }
}

/// [`read_hash_file`] without remembering the file.
fn parse_hash_file(path: &Path) -> Result<Vec<TokenHash>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with(TOKEN_PREFIX) {
            out.push(hash(line));
        } else {
            out.push(parse_hash(line).map_err(|e| format!("{}: line {}: {e}", path.display(), i + 1))?);
        }
    }
    if out.is_empty() {
        return Err(format!("{}: no token or token_sha256 in it", path.display()));
    }
    Ok(out)
}

/// Reads a bot's token file (the `connect` side): the token on its first non-blank line.
///
/// # Errors
/// The file cannot be read or holds no token.
pub fn read_token_file(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--token-file {}: {e}", path.display()))?;
    let token = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or_default();
    if !token.starts_with(TOKEN_PREFIX) {
        return Err(format!(
            "--token-file {}: no token in it (a line starting with {TOKEN_PREFIX}, as `stratego-host token --out FILE` writes)",
            path.display()
        ));
    }
    Ok(token.to_owned())
}

/// Compares two hashes in time independent of where they differ.
pub fn same(a: &TokenHash, b: &TokenHash) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_hashes_round_trip() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), TOKEN_PREFIX.len() + 64);
        let h = hash(&a);
        assert_eq!(parse_hash(&hex(&h)).unwrap(), h);
        assert_eq!(parse_hash(&format!("sha256:{}", hex(&h))).unwrap(), h);
        assert!(parse_hash(&a).unwrap_err().contains("not its SHA-256"));
        assert!(parse_hash("abc").unwrap_err().contains("64 hex digits"));
        // The SHA-256 of "abc" (FIPS 180-2's example).
        assert_eq!(hex(&hash("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert!(same(&h, &h) && !same(&h, &hash(&b)));
    }
}
