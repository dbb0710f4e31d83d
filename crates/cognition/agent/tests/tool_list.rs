//! The tools the model is offered: exactly the toolbelt's specs (acting ones gaining the
//! agent's own parameters) and the agent-only tools, each defined once.

use deft_agent::{AgentTool, tool_defs};
use deft_toolbelt::specs;
use serde_json::Value;

#[test]
fn the_tool_list_is_the_toolbelt_plus_the_agent_tools() {
    for inline in [false, true] {
        let defs = tool_defs(inline);
        // Every toolbelt tool but `doctor`, which the agent is not offered.
        let belt: Vec<_> = specs().into_iter().filter(|s| s.name != deft_toolbelt::ToolName::Doctor).collect();
        assert_eq!(belt.len(), specs().len() - 1);
        assert_eq!(defs.len(), belt.len() + AgentTool::ALL.len());
        for (d, s) in defs.iter().zip(&belt) {
            assert_eq!(d.name, s.name.as_str());
            assert_eq!(d.description, s.description);
            let mut schema = d.parameters.clone();
            if s.name.acts() {
                let props = schema["properties"].as_object_mut().unwrap();
                assert!(props.remove("expected_outcome").is_some(), "{} gains expected_outcome", d.name);
                assert_eq!(props.remove("confidence").is_some(), inline, "{}: confidence only inline", d.name);
            }
            assert_eq!(schema, s.input_schema, "{}: otherwise the toolbelt's schema unchanged", d.name);
        }
        let extra: Vec<&str> = defs[belt.len()..].iter().map(|d| d.name.as_str()).collect();
        assert_eq!(extra, ["wait_for_visual_cue", "ask_user", "done"]);
        for d in &defs[belt.len()..] {
            assert_eq!(d.parameters["type"], Value::from("object"));
            assert_eq!(*d, AgentTool::parse(&d.name).unwrap().def());
        }
    }
}

#[test]
fn the_model_receives_exactly_that_list() {
    let model = super::FnModel::new(|_| {
        super::Reply::Say("Done.", vec![("done", r#"{"summary":"nothing to do","goal_met":true}"#)])
    });
    let r = super::run_with(&model, &super::desktop(), &super::no_asker(), &Default::default(), "Do nothing.");
    assert_eq!(r.status, deft_agent::RunStatus::GoalMet);
    let req = &model.requests()[0];
    assert_eq!(req.tools, tool_defs(false));
    assert!(req.cache.prefix, "the stable prefix carries a cache breakpoint");
}
