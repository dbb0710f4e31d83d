//! The MCP tool list: deft-toolbelt's specs as MCP tools, with no schema of our own
//! except the output schema of the actions (the `Outcome` of VERIFICATION.md).

use std::sync::Arc;

use deft_toolbelt::{ToolSpec, specs};
use deft_types::Outcome;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

/// Every tool, in the toolbelt's order, then `run_task` (the agent as one tool).
pub fn tools() -> Vec<Tool> {
    let output = Arc::new(action_output_schema());
    let mut tools: Vec<Tool> = specs().into_iter().map(|s| tool(s, &output)).collect();
    tools.push(super::task::tool());
    tools
}

/// One spec as an MCP tool: its name, title, description, input schema and annotations
/// unchanged; the actions also declare what their structured result looks like.
fn tool(s: ToolSpec, action_output: &Arc<JsonObject>) -> Tool {
    let input = match s.input_schema {
        Value::Object(o) => o,
        // The toolbelt's schemas are objects (its own tests say so); an empty object
        // schema would accept anything, so say what went wrong instead.
        other => {
            let mut o = JsonObject::new();
            o.insert("type".into(), "object".into());
            o.insert("description".into(), format!("(schema unavailable: {other})").into());
            o
        }
    };
    let a = s.annotations;
    let annotations = ToolAnnotations::with_title(s.title)
        .read_only(a.read_only)
        .destructive(a.destructive)
        .idempotent(a.idempotent)
        .open_world(a.open_world);
    let tool = Tool::new(s.name.as_str(), s.description, Arc::new(input)).with_title(s.title).annotate(annotations);
    if s.name.acts() { tool.with_raw_output_schema(Arc::clone(action_output)) } else { tool }
}

/// The structured result of an action: deft-toolbelt's `ActionReport`, that is the
/// `Outcome` (generated from its type) with `changes`, the capped outline of what changed.
pub fn action_output_schema() -> JsonObject {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let schema = settings.into_generator().into_root_schema_for::<Outcome>();
    let mut o = match serde_json::to_value(schema) {
        Ok(Value::Object(o)) => o,
        _ => JsonObject::new(),
    };
    o.remove("$schema");
    o.insert(
        "description".into(),
        "The action's outcome: ok, verified, attempts, expected vs observed, blocking, suggested_action, failure; \
         and `changes`, the outline of what changed in the target's window."
            .into(),
    );
    if let Some(Value::Object(props)) = o.get_mut("properties") {
        props.insert(
            "changes".into(),
            serde_json::json!({
                "description": "What changed in the target's window since it was last shown (new or changed elements with refs, then what is gone), capped with a `truncated` line; null when nothing was read.",
                "type": ["string", "null"]
            }),
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use deft_toolbelt::ActionReport;
    use deft_types::{ActionKind, Outcome};

    use super::*;

    #[test]
    fn every_spec_is_listed_unchanged() {
        let tools = tools();
        let specs = specs();
        assert_eq!(tools.len(), specs.len() + 1);
        assert_eq!(tools.last().map(|t| t.name.as_ref()), Some(super::super::task::NAME));
        for (t, s) in tools.iter().zip(&specs) {
            assert_eq!(t.name, s.name.as_str());
            assert_eq!(t.description.as_deref(), Some(s.description));
            assert_eq!(Value::Object((*t.input_schema).clone()), s.input_schema);
            let a = t.annotations.as_ref().unwrap();
            assert_eq!(a.read_only_hint, Some(s.annotations.read_only));
            assert_eq!(a.destructive_hint, Some(s.annotations.destructive));
            assert_eq!(t.output_schema.is_some(), s.name.acts(), "{}", s.name);
        }
    }

    #[test]
    fn the_output_schema_names_every_field_of_an_action_report() {
        let schema = action_output_schema();
        assert_eq!(schema["type"], "object");
        let props = schema["properties"].as_object().unwrap();
        let report = ActionReport {
            outcome: Outcome {
                ok: true,
                action: ActionKind::Click,
                verified: Some(true),
                retried: false,
                retry_reason: None,
                target: None,
                expected: String::new(),
                observed: String::new(),
                attempts: Vec::new(),
                blocking: None,
                suggested_action: None,
                failure: None,
                evidence: Vec::new(),
                elapsed_ms: 1,
            },
            changes: Some("button \"OK\" e3".into()),
        };
        let Value::Object(fields) = serde_json::to_value(&report).unwrap() else { panic!() };
        for k in fields.keys() {
            assert!(props.contains_key(k), "`{k}` of ActionReport is not in the output schema: {schema:#?}");
        }
        for k in props.keys() {
            assert!(fields.contains_key(k), "the output schema names `{k}`, which ActionReport lacks");
        }
        assert!(!serde_json::to_string(&schema).unwrap().contains("$ref"), "self-contained: {schema:#?}");
    }
}
