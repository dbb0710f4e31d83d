//! The tools' names, descriptions, annotations and parameter schemas: the one list every
//! face presents (the CLI's verbs, the agent's tool definitions, the MCP server's tools).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::output::{ActionReport, FindReport, OcrReport, ReadReport, Shot, WaitReport};
use crate::params::{
    ActionParams, ClickParams, DoctorParams, FillParams, FindParams, KeyParams, OcrParams, ReadParams,
    ScreenshotParams, ScrollParams, SetValueParams, TypeParams, WaitParams,
};

/// A tool, by name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolName {
    /// Click an element, text on screen, or a point.
    Click,
    /// Type text.
    Type,
    /// Replace a field's whole text.
    Fill,
    /// Set a value directly.
    SetValue,
    /// Invoke an accessibility action.
    Action,
    /// Press a key or chord.
    Key,
    /// Scroll.
    Scroll,
    /// Wait for a condition.
    WaitFor,
    /// The accessibility outline.
    Read,
    /// Elements matching a selector.
    Find,
    /// A PNG of the screen.
    Screenshot,
    /// The text on the screen.
    Ocr,
    /// What this desktop lets Deft do.
    Doctor,
}

impl ToolName {
    /// Every tool, in the order faces list them.
    pub const ALL: [ToolName; 13] = [
        ToolName::Click,
        ToolName::Type,
        ToolName::Fill,
        ToolName::SetValue,
        ToolName::Action,
        ToolName::Key,
        ToolName::Scroll,
        ToolName::WaitFor,
        ToolName::Read,
        ToolName::Find,
        ToolName::Screenshot,
        ToolName::Ocr,
        ToolName::Doctor,
    ];

    /// The tool's name in tool calls.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::Click => "click",
            ToolName::Type => "type",
            ToolName::Fill => "fill",
            ToolName::SetValue => "set_value",
            ToolName::Action => "action",
            ToolName::Key => "key",
            ToolName::Scroll => "scroll",
            ToolName::WaitFor => "wait_for",
            ToolName::Read => "read",
            ToolName::Find => "find",
            ToolName::Screenshot => "screenshot",
            ToolName::Ocr => "ocr",
            ToolName::Doctor => "doctor",
        }
    }

    /// The tool of this name, accepting the CLI's dashes (`set-value`) and `wait`.
    pub fn parse(name: &str) -> Option<ToolName> {
        let norm = name.trim().replace('-', "_");
        let norm = if norm == "wait" { "wait_for".to_string() } else { norm };
        ToolName::ALL.into_iter().find(|t| t.as_str() == norm)
    }

    /// Whether the tool sends input to the desktop (as opposed to only looking at it).
    pub fn acts(self) -> bool {
        matches!(
            self,
            ToolName::Click
                | ToolName::Type
                | ToolName::Fill
                | ToolName::SetValue
                | ToolName::Action
                | ToolName::Key
                | ToolName::Scroll
        )
    }
}

impl std::fmt::Display for ToolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Hints a client may show its user before a call (MCP tool annotations).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
pub struct Annotations {
    /// Only looks: sends no input.
    pub read_only: bool,
    /// May change or delete what a user made (any input to an app may).
    pub destructive: bool,
    /// Repeating the call with the same parameters has no further effect.
    pub idempotent: bool,
    /// Acts on a world outside the server (the desktop and its apps).
    pub open_world: bool,
}

/// One tool as every face presents it.
#[derive(Clone, Debug, Serialize)]
pub struct ToolSpec {
    /// The name in tool calls.
    pub name: ToolName,
    /// One line: what it does and what it returns.
    pub description: &'static str,
    /// A short human title.
    pub title: &'static str,
    /// The JSON Schema of its parameters (an object schema), generated from the params type.
    pub input_schema: Value,
    /// The JSON Schema of its structured result (an object schema), generated from the
    /// output type (`ActionReport`, `WaitReport`, `ReadReport`, ...).
    pub output_schema: Value,
    /// Hints for clients.
    pub annotations: Annotations,
}

/// The JSON Schema of `T` as every face sends it: inlined (no `$defs`), without the
/// `$schema`, `title` and `description` keys, optional fields simplified. Public so that a
/// face defining tools of its own (the agent's `ask_user`, `done`) shapes them the same way.
pub fn schema_of<T: JsonSchema>() -> Value {
    // Inlined (no $defs, no $ref): several model providers accept only self-contained
    // function schemas.
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let mut v = serde_json::to_value(settings.into_generator().into_root_schema_for::<T>()).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        o.remove("description");
    }
    simplify(&mut v);
    portable(&mut v);
    // A tool without parameters still lists none: some providers require `properties`.
    if let Some(o) = v.as_object_mut()
        && o.get("type").and_then(Value::as_str) == Some("object")
    {
        o.entry("properties").or_insert_with(|| Value::Object(Default::default()));
    }
    v
}

/// The JSON Schema of a result type `T`: inlined, every value it can hold accepted (no
/// simplification: a `null` the type writes must validate), in the portable subset.
pub fn output_schema_of<T: JsonSchema>() -> Value {
    // What `Serialize` writes (a field skipped when empty is not required), not what
    // `Deserialize` would take.
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.contract = schemars::generate::Contract::Serialize;
    });
    let mut v = serde_json::to_value(settings.into_generator().into_root_schema_for::<T>()).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    portable(&mut v);
    v
}

/// String formats every validator the faces meet knows (Ajv's ajv-formats, which the MCP
/// TypeScript SDK loads; Python's `jsonschema`): any other `format` is dropped, as is every
/// format on a number (`uint64`, `double`: unknown to Ajv, which warns for each on every
/// `tools/list`).
const PORTABLE_FORMATS: [&str; 6] = ["date-time", "date", "time", "uri", "email", "uuid"];

/// The subset of JSON Schema that validates alike under draft 07 (the MCP TypeScript SDK's
/// Ajv) and 2020-12 (the MCP Python SDK's `jsonschema`, and the MCP default): no number
/// formats, no unknown string formats, and no tuple form (`prefixItems` with `items:
/// false`, which draft 07 reads as "no item allowed"): a tuple of one item type becomes
/// `items` with its length, any other keeps `prefixItems` with its length only.
pub fn portable(v: &mut Value) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(portable),
        Value::Object(o) => {
            let numeric = |t: &Value| t == "integer" || t == "number";
            let is_number = match o.get("type") {
                Some(Value::Array(ts)) => ts.iter().any(numeric),
                Some(t) => numeric(t),
                None => false,
            };
            let keep_format = o.get("format").and_then(Value::as_str).is_some_and(|f| PORTABLE_FORMATS.contains(&f));
            if is_number || !keep_format {
                o.remove("format");
            }
            if let Some(Value::Array(items)) = o.get("prefixItems").cloned() {
                if o.get("items") == Some(&Value::Bool(false)) {
                    o.remove("items");
                }
                o.insert("minItems".into(), items.len().into());
                o.insert("maxItems".into(), items.len().into());
                if let Some(first) = items.first()
                    && items.iter().all(|i| i == first)
                {
                    o.remove("prefixItems");
                    o.insert("items".into(), first.clone());
                }
            }
            o.values_mut().for_each(portable);
        }
        _ => {}
    }
}

/// Leaner schemas for models (every schema is sent with every request): an optional field
/// is one that is not `required`, so `["string", "null"]` becomes `"string"`; enums of
/// constants become `enum` lists; integer `format`s go.
fn simplify(v: &mut Value) {
    let Some(o) = v.as_object_mut() else {
        if let Some(a) = v.as_array_mut() {
            a.iter_mut().for_each(simplify);
        }
        return;
    };
    o.remove("format");
    if let Some(Value::Array(types)) = o.get("type") {
        let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [one] = non_null.as_slice() {
            o.insert("type".into(), one.clone());
        }
    }
    if let Some(Value::Array(any)) = o.get("anyOf").cloned() {
        let non_null: Vec<&Value> = any.iter().filter(|s| s.get("type") != Some(&Value::from("null"))).collect();
        if let [Value::Object(inner)] = non_null.as_slice() {
            o.remove("anyOf");
            for (k, val) in inner {
                if k != "description" {
                    o.entry(k.clone()).or_insert_with(|| val.clone());
                }
            }
        }
    }
    if let Some(Value::Array(one_of)) = o.get("oneOf").cloned() {
        let consts: Option<Vec<Value>> = one_of.iter().map(|s| s.get("const").cloned()).collect();
        if let Some(consts) = consts {
            o.remove("oneOf");
            o.insert("type".into(), "string".into());
            o.insert("enum".into(), Value::Array(consts));
        }
    }
    o.values_mut().for_each(simplify);
}

/// The spec of one tool.
pub fn spec(name: ToolName) -> ToolSpec {
    let acts = Annotations { read_only: false, destructive: true, idempotent: false, open_world: true };
    let looks = Annotations { read_only: true, destructive: false, idempotent: true, open_world: true };
    let (title, description, input_schema, annotations) = match name {
        ToolName::Click => (
            "Click",
            "Click an element, text on screen or a point; verified: checks the effect, retries a click that did nothing, never clicks twice when the effect may still come.",
            schema_of::<ClickParams>(),
            acts,
        ),
        ToolName::Type => (
            "Type text",
            "Insert text, keeping what the field holds: into a named element after its text (typing \"carol\" into a field holding \"carol\" gives \"carolcarol\"); with no target at the caret of the focused element, where a click or a key left it. Never over selected text. Verified: the text before with the typed text inserted; falls back to inserting it through accessibility. To replace a field's text, use fill.",
            schema_of::<TypeParams>(),
            acts,
        ),
        ToolName::Fill => (
            "Fill a field",
            "Replace a field's whole text with the given text (what a form filler means). Verified: the field holds exactly that text; set through accessibility, falling back to select-all and typing.",
            schema_of::<FillParams>(),
            acts,
        ),
        ToolName::SetValue => (
            "Set a value",
            "Set a field's text or a slider's value directly through accessibility, falling back to typing it.",
            schema_of::<SetValueParams>(),
            acts,
        ),
        ToolName::Action => (
            "Accessibility action",
            "Invoke an element's accessibility action (click, press, activate, toggle, expand...).",
            schema_of::<ActionParams>(),
            acts,
        ),
        ToolName::Key => (
            "Press keys",
            "Press a key or chord in the focused window, or in app/window (activated first); verified only against `expect`.",
            schema_of::<KeyParams>(),
            acts,
        ),
        ToolName::Scroll => (
            "Scroll",
            "Scroll an element or point with the wheel, falling back to accessibility.",
            schema_of::<ScrollParams>(),
            Annotations { destructive: false, ..acts },
        ),
        ToolName::WaitFor => (
            "Wait for a condition",
            "Wait until a condition holds (text shown or gone, element exists/gone/state/value, window title), following the app's events; returns the evidence or what was last seen.",
            schema_of::<WaitParams>(),
            looks,
        ),
        ToolName::Read => (
            "Read the UI",
            "The accessibility outline of the desktop, an app, a window or an element: one element per line with a ref to aim at.",
            schema_of::<ReadParams>(),
            looks,
        ),
        ToolName::Find => (
            "Find elements",
            "Every element matching a target, numbered for `index`, each with its ref and a selector that picks it.",
            schema_of::<FindParams>(),
            looks,
        ),
        ToolName::Screenshot => (
            "Screenshot",
            "A PNG of the screen, a window, a region or a monitor.",
            schema_of::<ScreenshotParams>(),
            looks,
        ),
        ToolName::Ocr => (
            "Read text on screen",
            "The text on the screen (or a window/region) by OCR, line by line with boxes; with `find`, where that text is.",
            schema_of::<OcrParams>(),
            looks,
        ),
        ToolName::Doctor => (
            "Diagnose the desktop",
            "What this desktop lets Deft do: the session (X11 or Wayland), input, capture, window geometry, the accessibility bus and each application with its toolkit, with what to do about each gap.",
            schema_of::<DoctorParams>(),
            looks,
        ),
    };
    let output_schema = match name {
        ToolName::Click
        | ToolName::Type
        | ToolName::Fill
        | ToolName::SetValue
        | ToolName::Action
        | ToolName::Key
        | ToolName::Scroll => output_schema_of::<ActionReport>(),
        ToolName::WaitFor => output_schema_of::<WaitReport>(),
        ToolName::Read => output_schema_of::<ReadReport>(),
        ToolName::Find => output_schema_of::<FindReport>(),
        ToolName::Screenshot => output_schema_of::<Shot>(),
        ToolName::Ocr => output_schema_of::<OcrReport>(),
        ToolName::Doctor => output_schema_of::<deft_verify::Diagnosis>(),
    };
    ToolSpec { name, description, title, input_schema, output_schema, annotations }
}

/// Every tool's spec, in the order faces list them.
pub fn specs() -> Vec<ToolSpec> {
    ToolName::ALL.into_iter().map(spec).collect()
}
