//! The xorshift64 generator the rules crate's tests, benchmarks, examples and fuzz target
//! use for seeded random playouts (the crate itself has no generator of its own).

/// A xorshift64 generator from `seed` (0 is mapped to 1).
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}
