//! The provider-neutral conversation: messages made of text, images, tool calls and results.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Who wrote a message. The system prompt is not a message: it is [`crate::Request::system`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The agent's side: the goal, observations, tool results.
    User,
    /// The model's side: thoughts, tool calls, provider blocks.
    Assistant,
}

/// One turn of the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its content, in order.
    pub parts: Vec<Part>,
}

impl Message {
    /// A user message with one text part.
    pub fn user(text: impl Into<String>) -> Self {
        Self { role: Role::User, parts: vec![Part::Text(text.into())] }
    }

    /// An assistant message with one text part.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self { role: Role::Assistant, parts: vec![Part::Text(text.into())] }
    }

    /// The text parts joined, without images, tool calls or provider blocks.
    pub fn text(&self) -> String {
        self.parts.iter().filter_map(|p| if let Part::Text(t) = p { Some(t.as_str()) } else { None }).collect()
    }
}

/// One piece of a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// Plain text.
    Text(String),
    /// An image (user messages only).
    Image(Image),
    /// The model asks for a tool to run (assistant messages only).
    ToolCall(ToolCall),
    /// What a tool returned (user messages only).
    ToolResult(ToolResult),
    /// A provider block that must go back to the same provider unchanged, such as an
    /// Anthropic thinking block with its signature. Other providers never see it.
    Opaque(Opaque),
}

/// An image: PNG, JPEG, GIF or WebP bytes. Serialized as base64.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// What the bytes are.
    pub media_type: MediaType,
    /// The encoded image, as read from the file or the capture.
    #[serde(serialize_with = "b64_ser", deserialize_with = "b64_de")]
    pub data: Vec<u8>,
}

impl Image {
    /// A PNG image.
    pub fn png(data: Vec<u8>) -> Self {
        Self { media_type: MediaType::Png, data }
    }

    /// A JPEG image.
    pub fn jpeg(data: Vec<u8>) -> Self {
        Self { media_type: MediaType::Jpeg, data }
    }

    /// Hex SHA-256 of the bytes: how a recording refers to the image without holding it.
    pub fn sha256(&self) -> String {
        use sha2::Digest;
        sha2::Sha256::digest(&self.data).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The bytes in standard base64, as every provider wants them.
    pub(crate) fn base64(&self) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(&self.data)
    }

    /// Decodes a provider's base64 field.
    #[cfg(test)]
    pub(crate) fn from_base64(media_type: MediaType, data: &str) -> Result<Self, String> {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map(|data| Self { media_type, data })
            .map_err(|e| format!("image data is not base64: {e}"))
    }
}

// Image bytes stay out of Debug output: a failed assertion or a log line would otherwise
// print a whole screenshot.
impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Image({}, {} bytes)", self.media_type.as_str(), self.data.len())
    }
}

fn b64_ser<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
    use base64::Engine;
    s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(data))
}

fn b64_de<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    use base64::Engine;
    let text = String::deserialize(d)?;
    base64::engine::general_purpose::STANDARD.decode(text).map_err(serde::de::Error::custom)
}

/// The image formats all three providers accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaType {
    /// `image/png`
    Png,
    /// `image/jpeg`
    Jpeg,
    /// `image/gif`
    Gif,
    /// `image/webp`
    Webp,
}

impl MediaType {
    /// The MIME type, as the wire formats spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaType::Png => "image/png",
            MediaType::Jpeg => "image/jpeg",
            MediaType::Gif => "image/gif",
            MediaType::Webp => "image/webp",
        }
    }

    /// Parses a MIME type (`image/jpg` is accepted for JPEG).
    pub fn parse(mime: &str) -> Option<Self> {
        match mime.trim().to_ascii_lowercase().as_str() {
            "image/png" => Some(MediaType::Png),
            "image/jpeg" | "image/jpg" => Some(MediaType::Jpeg),
            "image/gif" => Some(MediaType::Gif),
            "image/webp" => Some(MediaType::Webp),
            _ => None,
        }
    }
}

/// A tool call the model made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call; the result refers to it. Gemini gives none for
    /// some models, and then the client makes one (`call_<n>`).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, parsed, or the text the model wrote when it was not JSON.
    pub arguments: Arguments,
    /// Gemini's thought signature for this call, sent back with it unchanged.
    pub signature: Option<String>,
}

/// A tool call's arguments. Models, local ones especially, sometimes write arguments that
/// are not JSON; that is a value the agent can answer ("your arguments were not JSON"),
/// not an error that ends the call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arguments {
    /// Well-formed JSON (an object for every provider's tools).
    Json(Value),
    /// What the model wrote, and why it does not parse.
    Malformed {
        /// The text as received.
        raw: String,
        /// The JSON parser's complaint.
        error: String,
    },
}

impl Arguments {
    /// Parses a model's argument text; empty text means no arguments (`{}`).
    pub fn parse(raw: &str) -> Self {
        if raw.trim().is_empty() {
            return Arguments::Json(Value::Object(Default::default()));
        }
        match serde_json::from_str(raw) {
            Ok(v) => Arguments::Json(v),
            Err(e) => Arguments::Malformed { raw: raw.to_string(), error: e.to_string() },
        }
    }

    /// The parsed arguments, if they parsed.
    pub fn json(&self) -> Option<&Value> {
        match self {
            Arguments::Json(v) => Some(v),
            Arguments::Malformed { .. } => None,
        }
    }

    /// The arguments as JSON text (the raw text when malformed).
    pub fn to_text(&self) -> String {
        match self {
            Arguments::Json(v) => v.to_string(),
            Arguments::Malformed { raw, .. } => raw.clone(),
        }
    }

    /// The arguments as a JSON object for formats that need one (Anthropic `input`,
    /// Gemini `args`): a non-object value or malformed text is wrapped so the model still
    /// sees what it wrote.
    pub(crate) fn to_object(&self) -> Value {
        match self {
            Arguments::Json(v @ Value::Object(_)) => v.clone(),
            Arguments::Json(v) => serde_json::json!({ "value": v }),
            Arguments::Malformed { raw, .. } => serde_json::json!({ "malformed_arguments": raw }),
        }
    }
}

/// What a tool returned, answering one [`ToolCall`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool's name (Gemini needs it; the others find it through the id).
    pub name: String,
    /// Text and images: the agent answers a look with a screenshot here.
    pub parts: Vec<ResultPart>,
    /// The tool failed; the parts say how.
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result with one text part.
    pub fn text(call: &ToolCall, text: impl Into<String>) -> Self {
        Self {
            call_id: call.id.clone(),
            name: call.name.clone(),
            parts: vec![ResultPart::Text(text.into())],
            is_error: false,
        }
    }
}

/// One piece of a tool result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultPart {
    /// Text, often JSON.
    Text(String),
    /// An image, such as a screenshot.
    Image(Image),
}

/// A provider-specific block carried unchanged (see [`Part::Opaque`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Opaque {
    /// The provider that wrote it (`anthropic`, `gemini`); only it receives the block again.
    pub provider: String,
    /// The block exactly as the provider sent it.
    pub block: Value,
}

impl Opaque {
    /// The human-readable reasoning inside the block, if any (Anthropic `thinking`,
    /// Gemini thought text), for showing the model's thoughts.
    pub fn thinking_text(&self) -> Option<&str> {
        match self.provider.as_str() {
            "anthropic" => self.block.get("thinking").and_then(Value::as_str),
            "gemini" if self.block.get("thought").and_then(Value::as_bool) == Some(true) => {
                self.block.get("text").and_then(Value::as_str)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_arguments_are_a_value() {
        assert_eq!(Arguments::parse(""), Arguments::Json(serde_json::json!({})));
        assert_eq!(Arguments::parse("{\"a\":1}"), Arguments::Json(serde_json::json!({"a": 1})));
        let bad = Arguments::parse("{\"a\": 1,");
        assert!(matches!(&bad, Arguments::Malformed { raw, .. } if raw == "{\"a\": 1,"));
        assert_eq!(bad.to_object(), serde_json::json!({"malformed_arguments": "{\"a\": 1,"}));
    }

    #[test]
    fn image_round_trips_as_base64_and_hides_bytes_in_debug() {
        let img = Image::png(vec![0x89, b'P', b'N', b'G', 0, 1, 2]);
        let json = serde_json::to_string(&img).unwrap();
        assert_eq!(json, r#"{"media_type":"png","data":"iVBORwABAg=="}"#);
        assert_eq!(serde_json::from_str::<Image>(&json).unwrap(), img);
        assert_eq!(format!("{img:?}"), "Image(image/png, 7 bytes)");
    }
}
