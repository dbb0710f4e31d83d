//! The tool definitions: every schema is a valid object schema, every tool parses.

use deft_toolbelt::{AsFlags, AsParams, ToolCall, ToolName, specs};
use serde_json::json;

#[test]
fn every_tool_has_an_object_schema_and_a_description() {
    let all = specs();
    assert_eq!(all.len(), ToolName::ALL.len());
    for s in &all {
        assert_eq!(s.input_schema["type"], "object", "{}: {}", s.name, s.input_schema);
        assert!(s.input_schema.get("$ref").is_none() && s.input_schema.get("$defs").is_none(), "{}", s.name);
        assert!(!s.description.is_empty() && !s.description.contains('\n'), "{}", s.name);
        assert_eq!(s.annotations.read_only, !s.name.acts(), "{}", s.name);
        for (key, prop) in s.input_schema["properties"].as_object().unwrap() {
            assert!(prop.get("description").is_some() || key == "direction", "{}.{key} has no description", s.name);
        }
    }
}

#[test]
fn calls_parse_and_plan() {
    let call = ToolCall::parse("click", json!({"target": "Submit order", "verify": true})).unwrap();
    let plan = call.plan(&AsParams, None, false).unwrap();
    assert_eq!(plan.asked, "text \"Submit order\"");
    let bad = ToolCall::parse("click", json!({"nmae": "x"})).unwrap_err();
    assert!(bad.message.contains("unknown parameter `nmae`") && bad.message.contains("did you mean `name`"), "{bad}");
    let bad = ToolCall::parse("clack", json!({})).unwrap_err();
    assert!(bad.message.starts_with("unknown tool `clack`; the tools are: click"), "{bad}");
    let bad = ToolCall::parse("type", json!({"target": "Name"})).unwrap_err();
    assert!(bad.message.contains("needs the parameter `text`"), "{bad}");
    let bad = ToolCall::parse("click", json!([1])).unwrap_err();
    assert!(bad.message.contains("must be a JSON object"), "{bad}");
    let empty = ToolCall::parse("click", json!({"name": " "})).unwrap();
    assert_eq!(
        empty.plan(&AsFlags, None, false).unwrap_err().message,
        "--name is empty; give a value, e.g. \"Submit order\"; for an element with no name, the selector 'name=\"\"'"
    );
    assert!(empty.plan(&AsParams, None, false).unwrap_err().message.starts_with("`name` is empty"));
}

#[test]
fn schemas_are_lean() {
    for s in specs() {
        let text = s.input_schema.to_string();
        for waste in ["\"null\"", "\"format\"", "$defs", "oneOf"] {
            assert!(!text.contains(waste), "{}: {waste} in {text}", s.name);
        }
    }
    let dir = &deft_toolbelt::spec(ToolName::Scroll).input_schema["properties"]["direction"];
    assert_eq!(dir["enum"], json!(["up", "down", "left", "right"]), "{dir}");
}

#[test]
fn keys_go_to_the_focus_or_to_the_application_named() {
    use deft_toolbelt::Request;
    use deft_types::{Action, Target};
    let key_of = |args| match ToolCall::parse("key", args).unwrap().plan(&AsParams, None, false).unwrap().request {
        Request::Act { action: Action::Key { target, .. }, .. } => target,
        other => panic!("not a key: {other:?}"),
    };
    assert_eq!(key_of(json!({"keys": "ctrl+s"})), Target::Focused);
    let Target::Selector(sel) = key_of(json!({"keys": "j", "app": "qmmp"})) else { panic!("a scope") };
    assert_eq!(deft_a11y::selector::format(&sel), "app=qmmp");
    let empty = ToolCall::parse("key", json!({"keys": "j", "app": " "})).unwrap();
    assert!(empty.plan(&AsParams, None, false).unwrap_err().message.starts_with("`app` is empty"));
}
