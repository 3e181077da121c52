//! Arbitrary bytes as a bot's standard output, through the host's decoding path: the
//! bounded line codec, then message classification. Nothing may panic; every line is a
//! message or a fault with a reason; a line over the limit is always refused.
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use stratego_host::parse_bot_message;
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};

const MAX: usize = 256;

fuzz_target!(|data: &[u8]| {
    let mut codec = LinesCodec::new_with_max_length(MAX);
    let mut buf = BytesMut::from(data);
    loop {
        match codec.decode(&mut buf) {
            Ok(Some(line)) => {
                assert!(line.len() <= MAX, "a line over the limit was accepted");
                match parse_bot_message(line.strip_suffix('\r').unwrap_or(&line)) {
                    Ok(msg) => {
                        // A message the host accepts serialises back to JSON.
                        serde_json::to_string(&msg).unwrap();
                    }
                    Err(fault) => assert!(!fault.message.is_empty()),
                }
            }
            Ok(None) => break,
            Err(LinesCodecError::MaxLineLengthExceeded) => break,
            Err(LinesCodecError::Io(_)) => break,
        }
    }
    // The end of the stream: whatever is left.
    let _ = codec.decode_eof(&mut buf);
});
