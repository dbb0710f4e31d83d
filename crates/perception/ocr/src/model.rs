//! Loading the ocrs models: embedded or from a directory, checked against SHA-256 first.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::OcrError;

/// SHA-256 of the official ocrs text detection model (`text-detection.onnx`).
pub const DETECTION_SHA256: &str = "a917b23dbd9524b465df7e922641b3ff2981623df4ded5a0234004ef2fee7cfe";
/// SHA-256 of the official ocrs text recognition model (`text-recognition.onnx`).
pub const RECOGNITION_SHA256: &str = "86c145c2edb96c8caed5b1ebb8f44d706408922211451c309c625157dd6061c5";

/// The expected SHA-256 (hex) of the two model files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelHashes {
    /// Of the detection model.
    pub detection: String,
    /// Of the recognition model.
    pub recognition: String,
}

impl ModelHashes {
    /// The official ocrs ONNX models (the ones embedded by default).
    pub fn official() -> ModelHashes {
        ModelHashes { detection: DETECTION_SHA256.into(), recognition: RECOGNITION_SHA256.into() }
    }
}

/// Where the models come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// The official models compiled into the binary (feature `embedded-models`), always
    /// checked against the official hashes.
    Embedded,
    /// A directory holding `text-detection.rten` and `text-recognition.rten`, or the `.onnx`
    /// files of the same names (`.rten` is preferred when both exist).
    Dir {
        /// The directory.
        path: PathBuf,
        /// Hashes the files must have; `None` loads any model without a check.
        hashes: Option<ModelHashes>,
    },
}

/// The two loaded models.
pub(crate) struct Models {
    pub detection: rten::Model,
    pub recognition: rten::Model,
}

pub(crate) fn load(source: &ModelSource) -> Result<Models, OcrError> {
    match source {
        ModelSource::Embedded => load_embedded(),
        ModelSource::Dir { path, hashes } => {
            let det = find(path, "text-detection")?;
            let rec = find(path, "text-recognition")?;
            let det_bytes = read(&det)?;
            let rec_bytes = read(&rec)?;
            if let Some(h) = hashes {
                verify(&det, &det_bytes, &h.detection)?;
                verify(&rec, &rec_bytes, &h.recognition)?;
            }
            Ok(Models { detection: parse(&det, det_bytes)?, recognition: parse(&rec, rec_bytes)? })
        }
    }
}

#[cfg(feature = "embedded-models")]
fn load_embedded() -> Result<Models, OcrError> {
    let det = Path::new("embedded:text-detection.onnx");
    let rec = Path::new("embedded:text-recognition.onnx");
    verify(det, ikvmt_ocr_detection::MODEL, DETECTION_SHA256)?;
    verify(rec, ikvmt_ocr_recognition::MODEL, RECOGNITION_SHA256)?;
    let load = |file: &Path, bytes: &'static [u8]| {
        rten::Model::load_static_slice(bytes)
            .map_err(|e| OcrError::ModelLoad { file: file.to_path_buf(), why: e.to_string() })
    };
    Ok(Models {
        detection: load(det, ikvmt_ocr_detection::MODEL)?,
        recognition: load(rec, ikvmt_ocr_recognition::MODEL)?,
    })
}

#[cfg(not(feature = "embedded-models"))]
fn load_embedded() -> Result<Models, OcrError> {
    Err(OcrError::ModelLoad {
        file: PathBuf::from("embedded:text-detection.onnx"),
        why: "deft-ocr was built without the `embedded-models` feature; load the models from a directory".into(),
    })
}

/// The model file named `stem` in `dir`: `.rten` first, then `.onnx`.
fn find(dir: &Path, stem: &str) -> Result<PathBuf, OcrError> {
    let rten = dir.join(format!("{stem}.rten"));
    if rten.is_file() {
        return Ok(rten);
    }
    let onnx = dir.join(format!("{stem}.onnx"));
    if onnx.is_file() {
        return Ok(onnx);
    }
    Err(OcrError::ModelLoad {
        file: onnx,
        why: format!("neither {stem}.rten nor {stem}.onnx exists in {}", dir.display()),
    })
}

fn read(file: &Path) -> Result<Vec<u8>, OcrError> {
    std::fs::read(file).map_err(|e| OcrError::ModelLoad { file: file.to_path_buf(), why: e.to_string() })
}

fn parse(file: &Path, bytes: Vec<u8>) -> Result<rten::Model, OcrError> {
    rten::Model::load(bytes).map_err(|e| OcrError::ModelLoad { file: file.to_path_buf(), why: e.to_string() })
}

/// Fail with [`OcrError::ModelHash`] unless `bytes` hash to `expected` (hex, any case).
pub(crate) fn verify(file: &Path, bytes: &[u8], expected: &str) -> Result<(), OcrError> {
    let actual = sha256_hex(bytes);
    if actual.eq_ignore_ascii_case(expected.trim()) {
        Ok(())
    } else {
        Err(OcrError::ModelHash { file: file.to_path_buf(), expected: expected.trim().to_lowercase(), actual })
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_bytes_fail_the_hash_check_naming_file_and_expected_hash() {
        let err = verify(Path::new("/models/text-detection.onnx"), b"not a model", DETECTION_SHA256).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("/models/text-detection.onnx"), "{msg}");
        assert!(msg.contains(DETECTION_SHA256), "{msg}");
        assert!(matches!(err, OcrError::ModelHash { .. }));
    }

    #[test]
    fn right_bytes_pass_in_any_case() {
        let hex = sha256_hex(b"abc");
        assert_eq!(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        verify(Path::new("x"), b"abc", &hex.to_uppercase()).unwrap();
    }

    #[test]
    fn a_missing_model_names_the_file_it_looked_for() {
        let dir = std::env::temp_dir().join("deft-ocr-no-models-here");
        let err = find(&dir, "text-detection").unwrap_err().to_string();
        assert!(err.contains("text-detection.onnx") && err.contains("text-detection.rten"), "{err}");
    }
}
