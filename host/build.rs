//! Builds the viewer's WebAssembly module (`host/viewer-wasm`: the rules crate compiled for
//! `wasm32-unknown-unknown`) and leaves it, base64-encoded, in `OUT_DIR/viewer.wasm.b64`
//! for `display/files/viewer.rs` to embed in the viewer's script.
//!
//! The module is built by a nested `cargo build --profile wasm` into a target directory of
//! its own beside the outer build's profiles (`<target>/viewer-wasm`), shared by every
//! outer profile (debug, test, release, clippy), so that it is built once and is then a
//! no-op check; its own directory means no wait on the outer build's lock. The outer
//! build's variables (flags, wrappers such as clippy's, profile overrides) are cleared so
//! that they do not leak into it.
//!
//! When the toolchain lacks the `wasm32-unknown-unknown` target, this runs `rustup target
//! add wasm32-unknown-unknown` (saying so in a warning); if that fails, the build fails
//! with a message naming the command.

use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("the workspace root").to_owned();
    for path in ["build.rs", "viewer-wasm", "../rules/src", "../rules/Cargo.toml", "../Cargo.toml", "../Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", manifest.join(path).display());
    }
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    ensure_target(&rustc);

    let target_dir = nested_target_dir(&out_dir);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args(["build", "--quiet", "--lib", "-p", "stratego-viewer-wasm", "--profile", "wasm", "--target", TARGET])
        .arg("--target-dir")
        .arg(&target_dir);
    clear_outer_env(&mut cmd);
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run cargo for the viewer's WebAssembly module: {e}"));
    if !out.status.success() {
        panic!(
            "building the viewer's WebAssembly module (host/viewer-wasm for {TARGET}) failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let wasm = target_dir.join(TARGET).join("wasm").join("stratego_viewer_wasm.wasm");
    let bytes = std::fs::read(&wasm).unwrap_or_else(|e| panic!("{}: {e}", wasm.display()));
    assert!(bytes.starts_with(b"\0asm"), "{}: not a WebAssembly module", wasm.display());
    let dest = out_dir.join("viewer.wasm.b64");
    std::fs::write(&dest, base64(&bytes)).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

/// Adds the target with rustup when the toolchain lacks it.
fn ensure_target(rustc: &std::ffi::OsStr) {
    let libdir = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    if libdir.as_deref().is_some_and(has_std) {
        return;
    }
    println!(
        "cargo:warning=the Rust target {TARGET} (for the viewer's WebAssembly module) is missing: running `rustup target add {TARGET}`"
    );
    let added = Command::new("rustup").args(["target", "add", TARGET]).output();
    let ok = added.as_ref().is_ok_and(|o| o.status.success());
    if !ok {
        let why = match &added {
            Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
            Err(e) => format!("cannot run rustup: {e}"),
        };
        panic!(
            "the viewer's WebAssembly module needs the Rust target {TARGET}, which this toolchain lacks, and \
             `rustup target add {TARGET}` failed ({}). Run `rustup target add {TARGET}` (or install the target \
             for your toolchain) and build again.",
            why.trim()
        );
    }
}

/// Whether a target's library directory holds its standard library.
fn has_std(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .is_ok_and(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("libstd-")))
}

/// `<target>/viewer-wasm`, where `<target>` holds the outer build's profile directories:
/// `OUT_DIR` is `<target>[/<triple>]/<profile>/build/<package>-<hash>/out`.
fn nested_target_dir(out_dir: &Path) -> PathBuf {
    let build = out_dir.ancestors().find(|p| p.file_name().is_some_and(|n| n == "build"));
    let mut base = build.and_then(Path::parent).and_then(Path::parent);
    let triple = std::env::var("TARGET").unwrap_or_default();
    if base.and_then(Path::file_name).is_some_and(|n| n.to_string_lossy() == triple) {
        base = base.and_then(Path::parent);
    }
    base.unwrap_or(out_dir).join("viewer-wasm")
}

/// Clears what the outer build sets for build scripts, or a user for the outer build, that
/// would change the nested one: flags, wrappers (clippy's), target and profile settings,
/// the package's own variables. Keeps the jobserver (`CARGO_MAKEFLAGS`), `CARGO_HOME`, and
/// network and registry settings.
fn clear_outer_env(cmd: &mut Command) {
    const NAMES: &[&str] = &[
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_ENCODED_RUSTDOCFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_CRATE_NAME",
        "OUT_DIR",
        "TARGET",
        "HOST",
        "NUM_JOBS",
        "OPT_LEVEL",
        "DEBUG",
        "PROFILE",
        "RUSTDOC",
        "RUSTC_LINKER",
        "CARGO_TARGET_DIR",
    ];
    const PREFIXES: &[&str] = &[
        "CARGO_PKG_",
        "CARGO_CFG_",
        "CARGO_FEATURE_",
        "CARGO_PROFILE_",
        "CARGO_BUILD_",
        "CARGO_TARGET_",
        "CARGO_MANIFEST_",
        "__CARGO",
    ];
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if NAMES.contains(&key.as_str()) || PREFIXES.iter().any(|p| key.starts_with(p)) {
            cmd.env_remove(&key);
        }
    }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
