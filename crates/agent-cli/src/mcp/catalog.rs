//! The MCP tool list: deft-toolbelt's specs as MCP tools, with no schema of our own: the
//! input and output schemas are the toolbelt's, in the subset of JSON Schema that the
//! official TypeScript SDK (Ajv, draft 07) and Python SDK (`jsonschema`, 2020-12) validate
//! alike.

use std::sync::Arc;

use deft_toolbelt::{ToolSpec, specs};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

/// Every tool, in the toolbelt's order, then `run_flow` (a flow replayed) and `run_task`
/// (the agent as one tool).
pub fn tools() -> Vec<Tool> {
    let mut tools: Vec<Tool> = specs().into_iter().map(tool).collect();
    tools.push(super::flow::tool());
    tools.push(super::task::tool());
    tools
}

/// A schema as the object MCP carries; the toolbelt's are objects (its own tests say so),
/// and an empty object schema would accept anything, so a non-object says what went wrong.
fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        other => {
            let mut o = JsonObject::new();
            o.insert("type".into(), "object".into());
            o.insert("description".into(), format!("(schema unavailable: {other})").into());
            o
        }
    }
}

/// One spec as an MCP tool: its name, title, description, schemas and annotations unchanged.
fn tool(s: ToolSpec) -> Tool {
    let a = s.annotations;
    let annotations = ToolAnnotations::with_title(s.title)
        .read_only(a.read_only)
        .destructive(a.destructive)
        .idempotent(a.idempotent)
        .open_world(a.open_world);
    Tool::new(s.name.as_str(), s.description, Arc::new(object(s.input_schema)))
        .with_title(s.title)
        .annotate(annotations)
        .with_raw_output_schema(Arc::new(object(s.output_schema)))
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
        assert_eq!(tools.len(), specs.len() + 2);
        assert_eq!(tools.last().map(|t| t.name.as_ref()), Some(super::super::task::NAME));
        for (t, s) in tools.iter().zip(&specs) {
            assert_eq!(t.name, s.name.as_str());
            assert_eq!(t.description.as_deref(), Some(s.description));
            assert_eq!(Value::Object((*t.input_schema).clone()), s.input_schema);
            let a = t.annotations.as_ref().unwrap();
            assert_eq!(a.read_only_hint, Some(s.annotations.read_only));
            assert_eq!(a.destructive_hint, Some(s.annotations.destructive));
            assert_eq!(t.output_schema.as_deref().map(|o| Value::Object(o.clone())), Some(s.output_schema.clone()));
        }
    }

    #[test]
    fn the_action_output_schema_names_every_field_of_an_action_report() {
        let schema = deft_toolbelt::spec(deft_toolbelt::ToolName::Click).output_schema;
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
                seen: deft_types::Seen::default(),
                seen_by: None,
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
        let text = serde_json::to_string(&schema).unwrap();
        assert!(!text.contains("$ref") && !text.contains("prefixItems") && !text.contains("\"format\""), "{text}");
    }
}
