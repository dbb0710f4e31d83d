//! A flow written back as YAML, in the shape [`super::parse_flow`] reads: one tool per
//! step with its parameters, and its `expect` beside it.

use serde_json::{Map, Value};

use super::record::RecordedStep;

/// The YAML of a flow named `name` with `steps`.
pub fn write_flow(name: &str, steps: &[RecordedStep]) -> String {
    let list: Vec<Value> = steps
        .iter()
        .map(|s| {
            let mut step = Map::new();
            step.insert(s.tool.to_string(), Value::Object(s.params.clone()));
            if let Some(e) = &s.expect {
                step.insert("expect".into(), Value::String(e.clone()));
            }
            Value::Object(step)
        })
        .collect();
    let mut top = Map::new();
    top.insert("flow".into(), Value::String(name.to_string()));
    top.insert("steps".into(), Value::Array(list));
    serde_norway::to_string(&Value::Object(top)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::flow::parse_flow;
    use crate::plan::ToolCall;

    #[test]
    fn a_written_flow_reads_back_as_the_same_calls() {
        let steps = vec![
            RecordedStep {
                tool: "click",
                params: json!({"name": "Submit: \"now\"", "role": "push_button", "app": "deft-fixture"})
                    .as_object()
                    .cloned()
                    .unwrap(),
                expect: Some("text:\"Order 1 submitted\"".into()),
            },
            RecordedStep {
                tool: "type",
                params: json!({"text": "{{secret}}"}).as_object().cloned().unwrap(),
                expect: None,
            },
            RecordedStep { tool: "key", params: json!({"keys": "ctrl+s"}).as_object().cloned().unwrap(), expect: None },
        ];
        let text = write_flow("recorded", &steps);
        let vars = BTreeMap::from([("secret".to_string(), "pw".to_string())]);
        let flow = parse_flow(&text, &vars).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(flow.name.as_deref(), Some("recorded"));
        assert_eq!(flow.steps.iter().map(|s| s.line).collect::<Vec<_>>(), [Some(3), Some(8), Some(10)], "{text}");
        let ToolCall::Click(c) = &flow.steps[0].call else { panic!() };
        assert_eq!(c.target.name.as_deref(), Some("Submit: \"now\""));
        assert_eq!(c.verify.expect.as_deref(), Some("text:\"Order 1 submitted\""));
        let ToolCall::Type(t) = &flow.steps[1].call else { panic!() };
        assert_eq!(t.text, "pw");
    }
}
