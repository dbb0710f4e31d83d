//! Compact binary encoding of snapshots, diffs and judgements with bincode 2.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Decoding refuses to allocate more than this, so corrupt input cannot exhaust memory.
pub const DECODE_LIMIT_BYTES: usize = 64 << 20;

/// Why encoding or decoding failed.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The value could not be encoded.
    #[error("cannot encode: {0}")]
    Encode(#[from] bincode::error::EncodeError),
    /// The bytes are not a valid encoding (corrupt, truncated, or an invalid snapshot).
    #[error("cannot decode: {0}")]
    Decode(#[from] bincode::error::DecodeError),
    /// The bytes hold a value followed by more bytes.
    #[error("cannot decode: {0} bytes left after the value")]
    TrailingBytes(usize),
}

/// `value` in bincode's standard configuration (varint integers, positional fields).
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    Ok(bincode::serde::encode_to_vec(value, bincode::config::standard())?)
}

/// The value encoded in `bytes` by [`encode`]; the whole input must be one value.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    let config = bincode::config::standard().with_limit::<DECODE_LIMIT_BYTES>();
    let (value, read) = bincode::serde::decode_from_slice(bytes, config)?;
    match bytes.len() - read {
        0 => Ok(value),
        left => Err(CodecError::TrailingBytes(left)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Snapshot;
    use crate::test_support::{el, id};

    #[test]
    fn round_trip_and_corruption() {
        let s = Snapshot::builder()
            .root(el("w", "frame", "Main"))
            .child(&id("w"), el("b", "push_button", "OK"))
            .build()
            .unwrap();
        let bytes = encode(&s).unwrap();
        assert_eq!(decode::<Snapshot>(&bytes).unwrap(), s);
        assert!(matches!(decode::<Snapshot>(&bytes[..bytes.len() - 1]), Err(CodecError::Decode(_))));
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(decode::<Snapshot>(&long), Err(CodecError::TrailingBytes(1))));
    }

    #[test]
    fn bad_parent_index_is_refused() {
        let s = Snapshot::builder().root(el("w", "frame", "")).build().unwrap();
        let mut bytes = encode(&s).unwrap();
        // Layout: node count, then the first node's parent: 0 = None; make it Some(0).
        assert_eq!(&bytes[..2], [1, 0]);
        bytes.splice(1..2, [1, 0]);
        let err = decode::<Snapshot>(&bytes).unwrap_err().to_string();
        assert!(err.contains("names parent 0, which does not precede it"), "{err}");
    }
}
