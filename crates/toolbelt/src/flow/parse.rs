//! A flow file to a checked [`Flow`]: YAML, its keys, each step's call as its tool parses
//! and plans it, and every variable given, all before anything runs.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{Flow, FlowStep, OnFail};
use crate::plan::ToolCall;
use crate::spec::{ToolName, spec};
use crate::spelling::AsParams;

/// What is wrong with a flow file, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct FlowError {
    /// The line (1-based), when known.
    pub line: Option<usize>,
    /// The step (1-based), when the problem is in one.
    pub step: Option<usize>,
    /// What is wrong and what to do.
    pub message: String,
}

impl FlowError {
    fn at(line: Option<usize>, step: Option<usize>, message: impl Into<String>) -> FlowError {
        FlowError { line, step, message: message.into() }
    }

    fn render(&self) -> String {
        match (self.line, self.step) {
            (Some(l), Some(s)) => format!("line {l} (step {s}): {}", self.message),
            (None, Some(s)) => format!("step {s}: {}", self.message),
            (Some(l), None) => format!("line {l}: {}", self.message),
            (None, None) => self.message.clone(),
        }
    }
}

/// The keys a flow file may have at its top.
const TOP_KEYS: [&str; 3] = ["flow", "vars", "steps"];
/// The keys a step may have beside its tool.
const STEP_KEYS: [&str; 3] = ["name", "expect", "on_fail"];

/// Parses and checks the flow in `text`, with the caller's variable values `given` (they
/// win over the flow's own `vars:`). Nothing runs: a flow that passes can only fail on the
/// desktop.
pub fn parse_flow(text: &str, given: &BTreeMap<String, String>) -> Result<Flow, FlowError> {
    let doc: serde_norway::Value = serde_norway::from_str(text).map_err(|e| {
        // The YAML parser's message already says where ("at line 3 column 5").
        FlowError::at(None, None, format!("not valid YAML: {e}"))
    })?;
    let serde_norway::Value::Mapping(top) = doc else {
        return Err(FlowError::at(
            None,
            None,
            "a flow is a mapping with `steps:` (and optionally `flow:` and `vars:`)",
        ));
    };
    let mut name = None;
    let mut defaults = BTreeMap::new();
    let mut steps = None;
    for (k, v) in &top {
        let key = k.as_str().unwrap_or_default();
        let line = top_key_line(text, key);
        match key {
            "flow" => name = Some(scalar_text(v).ok_or_else(|| FlowError::at(line, None, "`flow:` is a text"))?),
            "vars" => defaults = vars_of(v, line)?,
            "steps" => steps = Some(v),
            _ => {
                return Err(FlowError::at(
                    line,
                    None,
                    format!("unknown key `{}` at the top of the flow; the keys are {}", show(k), TOP_KEYS.join(", ")),
                ));
            }
        }
    }
    let Some(serde_norway::Value::Sequence(list)) = steps else {
        return Err(FlowError::at(top_key_line(text, "steps"), None, "`steps:` must be a list of tool calls"));
    };
    if list.is_empty() {
        return Err(FlowError::at(top_key_line(text, "steps"), None, "`steps:` is empty: nothing to run"));
    }
    let mut vars = defaults;
    vars.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
    let lines = step_lines(text);
    let steps = list
        .iter()
        .enumerate()
        .map(|(i, v)| step(v, &vars, lines.get(i).copied(), i + 1))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Flow { name, steps })
}

/// One step, checked.
fn step(
    v: &serde_norway::Value,
    vars: &BTreeMap<String, String>,
    line: Option<usize>,
    n: usize,
) -> Result<FlowStep, FlowError> {
    let err = |m: String| FlowError::at(line, Some(n), m);
    let serde_norway::Value::Mapping(m) = v else {
        return Err(err("a step is a mapping: a tool and its parameters, e.g. `- click: {target: Submit}`".into()));
    };
    let (mut name, mut expect, mut on_fail, mut tool) = (None, None, OnFail::Stop, None);
    for (k, v) in m {
        match k.as_str() {
            Some("name") => name = Some(scalar_text(v).ok_or_else(|| err("`name:` is a text".into()))?),
            Some("expect") => {
                expect = Some(scalar_text(v).ok_or_else(|| err("`expect:` is a condition, a text".into()))?)
            }
            Some("on_fail") => on_fail = on_fail_of(v).map_err(err)?,
            Some(key) => match (ToolName::parse(key), &tool) {
                (Some(t), None) => tool = Some((t, v)),
                (Some(t), Some((first, _))) => {
                    return Err(err(format!(
                        "one tool per step: `{first}` and `{t}` are both here; make them two steps"
                    )));
                }
                (None, _) => {
                    let names: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
                    return Err(err(format!(
                        "`{key}` is neither a tool nor a step key; the tools are {}; beside its tool a step may have {}",
                        names.join(", "),
                        STEP_KEYS.join(", ")
                    )));
                }
            },
            None => return Err(err(format!("a step's keys are texts, not `{}`", show(k)))),
        }
    }
    let Some((tool, params)) = tool else {
        return Err(err("no tool in this step: write one, e.g. `- click: {target: Submit}`".into()));
    };
    let params = serde_json::to_value(params).map_err(|e| err(format!("parameters of `{tool}`: {e}")))?;
    let mut args = match params {
        Value::Object(o) => o,
        Value::Null => Map::new(),
        scalar @ (Value::String(_) | Value::Number(_) | Value::Bool(_)) => {
            let Some(main) = main_parameter(tool) else {
                return Err(err(format!("`{tool}` has no main parameter: write its parameters as a mapping")));
            };
            Map::from_iter([(main.to_string(), scalar)])
        }
        Value::Array(_) => return Err(err(format!("the parameters of `{tool}` are a mapping, not a list"))),
    };
    if let Some(e) = expect {
        if !takes(tool, "expect") {
            return Err(err(format!("`{tool}` has no expectation to check; `expect:` goes with an action")));
        }
        if args.contains_key("expect") {
            return Err(err("`expect` is written twice: beside the tool and among its parameters".into()));
        }
        args.insert("expect".into(), Value::String(e));
    }
    text_where_text_is_asked(tool, &mut args);
    let mut args = Value::Object(args);
    let mut missing = BTreeSet::new();
    substitute(&mut args, vars, &mut missing);
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().map(|v| format!("{{{{{v}}}}}")).collect();
        let how: Vec<String> = missing.iter().map(|v| format!("--var {v}=VALUE")).collect();
        return Err(err(format!(
            "{} not given: pass {} or add {} under `vars:`",
            list.join(", "),
            how.join(" "),
            if missing.len() == 1 { "it" } else { "them" }
        )));
    }
    let name_of_name = name.clone();
    let call = ToolCall::parse(tool.as_str(), args).map_err(|e| err(e.message))?;
    // The same checks a face makes before touching the desktop; a flow has no session, so
    // a ref (e12) is refused here: write the element's name or a selector.
    call.plan(&AsParams, None, true).map_err(|e| err(e.message))?;
    Ok(FlowStep { line, name: name_of_name, call, on_fail })
}

/// `on_fail:`'s value.
fn on_fail_of(v: &serde_norway::Value) -> Result<OnFail, String> {
    match v.as_str() {
        Some("stop") => Ok(OnFail::Stop),
        Some("repair") => Ok(OnFail::Repair),
        Some("ask") => Ok(OnFail::Ask),
        _ => Err(format!("`on_fail: {}` is not one of stop, ask, repair", show(v))),
    }
}

/// The parameter a scalar stands for: `target` where the tool has one, else its only
/// required parameter (`key: ctrl+s`, `type: hello`). From the tool's own schema.
fn main_parameter(tool: ToolName) -> Option<String> {
    if takes(tool, "target") {
        return Some("target".into());
    }
    let schema = spec(tool).input_schema;
    match schema["required"].as_array().map(Vec::as_slice) {
        Some([only]) => only.as_str().map(String::from),
        _ => None,
    }
}

/// A number or yes/no written where the tool's schema asks for text (`text: 42`,
/// `value: 10`) is that text: YAML types what JSON would have quoted.
fn text_where_text_is_asked(tool: ToolName, args: &mut Map<String, Value>) {
    let schema = spec(tool).input_schema;
    for (k, v) in args.iter_mut() {
        let wants_text = schema["properties"][k.as_str()]["type"] == "string";
        if wants_text && matches!(v, Value::Number(_) | Value::Bool(_)) {
            *v = Value::String(v.to_string());
        }
    }
}

/// Whether the tool's schema lists the parameter.
fn takes(tool: ToolName, param: &str) -> bool {
    spec(tool).input_schema["properties"].get(param).is_some()
}

/// Parameters written in the condition syntax (`text:"Saved"`): a value goes into them
/// as one value of that syntax, never as more of it.
const CONDITIONS: [&str; 2] = ["expect", "condition"];

/// Replaces `{{name}}` (spaces inside allowed) in every text of the arguments `args`;
/// names with no value go to `missing`.
fn substitute(args: &mut Value, vars: &BTreeMap<String, String>, missing: &mut BTreeSet<String>) {
    fn walk(v: &mut Value, vars: &BTreeMap<String, String>, missing: &mut BTreeSet<String>, condition: bool) {
        match v {
            Value::String(s) => *s = fill(s, vars, missing, condition),
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, vars, missing, condition)),
            Value::Object(o) => o.values_mut().for_each(|x| walk(x, vars, missing, condition)),
            _ => {}
        }
    }
    match args {
        Value::Object(o) => o.iter_mut().for_each(|(k, v)| walk(v, vars, missing, CONDITIONS.contains(&k.as_str()))),
        other => walk(other, vars, missing, false),
    }
}

/// `s` with its variables' values in. In a condition a value is quoted (or, inside quotes
/// the author wrote, escaped), so `{{customer}}` holding `Ada "x"` is that text.
fn fill(s: &str, vars: &BTreeMap<String, String>, missing: &mut BTreeSet<String>, condition: bool) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else { break };
        let name = rest[start + 2..start + 2 + len].trim();
        out.push_str(&rest[..start]);
        if name.starts_with("secret:") {
            // A secret by reference: filled where it is typed, from the values the face was
            // given (a fleet worker's own `DEFT_SECRET_*`), so its value never sits in the
            // flow, its variables, or a task queued for another desktop.
            out.push_str(&rest[start..start + 2 + len + 2]);
            rest = &rest[start + 2 + len + 2..];
            continue;
        }
        match vars.get(name) {
            Some(value) if condition && inside_quotes(&out) => {
                out.push_str(&value.replace('\\', "\\\\").replace('"', "\\\""));
            }
            Some(value) if condition => out.push_str(&deft_a11y::selector::quote(value)),
            Some(value) => out.push_str(value),
            None => {
                missing.insert(name.to_string());
            }
        }
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Whether `head` of a condition ends inside a quoted value.
fn inside_quotes(head: &str) -> bool {
    let (mut inside, mut escaped) = (false, false);
    for c in head.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if inside => escaped = true,
            '"' => inside = !inside,
            _ => {}
        }
    }
    inside
}

/// `vars:`: a mapping of names to texts (numbers and booleans as they are written).
fn vars_of(v: &serde_norway::Value, line: Option<usize>) -> Result<BTreeMap<String, String>, FlowError> {
    let serde_norway::Value::Mapping(m) = v else {
        return Err(FlowError::at(line, None, "`vars:` is a mapping of names to values, e.g. `customer: John`"));
    };
    m.iter()
        .map(|(k, v)| {
            let name = k.as_str().ok_or_else(|| FlowError::at(line, None, "a variable's name is a text"))?;
            let value = scalar_text(v).ok_or_else(|| {
                FlowError::at(line, None, format!("variable `{name}`: its value is a text or a number"))
            })?;
            Ok((name.to_string(), value))
        })
        .collect()
}

/// A scalar as text.
fn scalar_text(v: &serde_norway::Value) -> Option<String> {
    match v {
        serde_norway::Value::String(s) => Some(s.clone()),
        serde_norway::Value::Number(n) => Some(n.to_string()),
        serde_norway::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn show(v: &serde_norway::Value) -> String {
    serde_norway::to_string(v).map(|s| s.trim().to_string()).unwrap_or_else(|_| "?".into())
}

/// The line of a top-level `key:`.
fn top_key_line(text: &str, key: &str) -> Option<usize> {
    text.lines().position(|l| l.strip_prefix(key).is_some_and(|r| r.trim_start().starts_with(':'))).map(|i| i + 1)
}

/// The line of each item of the top-level `steps:` list, in block style (`- ` at one
/// indentation); none for a list written inline.
fn step_lines(text: &str) -> Vec<usize> {
    let mut lines =
        text.lines().enumerate().skip_while(|(_, l)| !(l.starts_with("steps:") && l[6..].trim().is_empty()));
    if lines.next().is_none() {
        return Vec::new();
    }
    let mut indent = None;
    let mut found = Vec::new();
    for (i, l) in lines {
        let body = l.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let at = l.len() - body.len();
        if at == 0 && !body.starts_with('-') {
            break; // the next top-level key
        }
        let is_item = body == "-" || body.starts_with("- ");
        match indent {
            None if is_item => {
                indent = Some(at);
                found.push(i + 1);
            }
            Some(n) if is_item && at == n => found.push(i + 1),
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{FlowError, OnFail, parse_flow};
    use crate::plan::ToolCall;

    fn parse(text: &str) -> Result<super::Flow, FlowError> {
        parse_flow(text, &BTreeMap::new())
    }

    fn error(text: &str) -> String {
        parse(text).expect_err("refused").to_string()
    }

    const ORDER: &str = "\
flow: Submit an order
vars:
  customer: John
steps:
  # the name first
  - type: {target: Name, text: \"{{customer}}\"}
    expect: value:name=Name={{ customer }}

  - name: submit
    click: Submit order
    expect: text:\"Order submitted\"
  - key: ctrl+s
";

    #[test]
    fn a_flow_s_steps_are_the_tools_own_calls_with_variables_filled_in() {
        let flow = parse(ORDER).unwrap();
        assert_eq!(flow.name.as_deref(), Some("Submit an order"));
        let lines: Vec<_> = flow.steps.iter().map(|s| s.line).collect();
        assert_eq!(lines, [Some(6), Some(9), Some(12)]);
        let ToolCall::Type(t) = &flow.steps[0].call else { panic!("{:?}", flow.steps[0].call) };
        assert_eq!((t.text.as_str(), t.target.target.as_deref()), ("John", Some("Name")));
        assert_eq!(t.verify.expect.as_deref(), Some("value:name=Name=John"));
        let ToolCall::Click(c) = &flow.steps[1].call else { panic!() };
        assert_eq!(c.target.target.as_deref(), Some("Submit order"), "a scalar is the target");
        assert_eq!(flow.steps[1].name.as_deref(), Some("submit"));
        let ToolCall::Key(k) = &flow.steps[2].call else { panic!() };
        assert_eq!(k.keys, "ctrl+s", "a scalar is the one required parameter");
    }

    #[test]
    fn the_caller_s_values_win_over_the_flow_s_defaults() {
        let given = BTreeMap::from([("customer".to_string(), "Ada: \"x\" \\".to_string())]);
        let flow = parse_flow(ORDER, &given).unwrap();
        let ToolCall::Type(t) = &flow.steps[0].call else { panic!() };
        assert_eq!(t.text, "Ada: \"x\" \\", "values go in as text, never as YAML");
        assert_eq!(
            t.verify.expect.as_deref(),
            Some(r#"value:name=Name="Ada: \"x\" \\""#),
            "one value of the condition"
        );
        let quoted = "steps:\n  - click: {target: OK, expect: 'text:\"Hi {{who}}!\"'}\n";
        let flow = parse_flow(quoted, &BTreeMap::from([("who".to_string(), "\"A\"".to_string())])).unwrap();
        let ToolCall::Click(c) = &flow.steps[0].call else { panic!() };
        assert_eq!(c.verify.expect.as_deref(), Some(r#"text:"Hi \"A\"!""#), "escaped inside the author's quotes");
    }

    #[test]
    fn a_secret_by_reference_stays_a_reference_for_the_desktop_that_types_it() {
        let text = "steps:\n  - type: {target: Password, text: \"{{secret:bank}}{{ who }}\"}\n";
        let flow = parse_flow(text, &BTreeMap::from([("who".to_string(), "!".to_string())])).unwrap();
        let ToolCall::Type(t) = &flow.steps[0].call else { panic!() };
        assert_eq!(t.text, "{{secret:bank}}!", "not a variable to give, and never its value here");
    }

    #[test]
    fn bad_flows_are_refused_with_their_line_and_what_to_do() {
        let e = error("steps:\n  - click: Submit\n  - klick: OK\n");
        assert!(
            e.starts_with("line 3 (step 2): `klick` is neither a tool nor a step key; the tools are click,"),
            "{e}"
        );
        let e = error("steps:\n  - set_value: {value: 5, target: Age}\n  - type: {text: [1], target: Name}\n");
        assert!(e.starts_with("line 3 (step 2): bad arguments for `type`: invalid type: sequence"), "{e}");
        let e = error("steps:\n  - click: {target: \"{{who}}\", window: \"{{ where }}\"}\n");
        assert_eq!(
            e,
            "line 2 (step 1): {{where}}, {{who}} not given: pass --var where=VALUE --var who=VALUE or add them under \
             `vars:`"
        );
        let e = error("steps:\n  - click: {target: OK\n");
        assert!(e.starts_with("not valid YAML: ") && e.contains("line 3"), "{e}");
        let e = error("flow: x\nstep:\n  - click: OK\n");
        assert_eq!(e, "line 2: unknown key `step` at the top of the flow; the keys are flow, vars, steps");
        let e = error("steps:\n  - click: {target: OK, colour: red}\n");
        assert!(e.starts_with("line 2 (step 1): ") && e.contains("colour"), "{e}");
        let e = error("steps:\n  - read: {}\n    expect: text:OK\n");
        assert_eq!(e, "line 2 (step 1): `read` has no expectation to check; `expect:` goes with an action");
        let f = parse_flow("steps:\n  - click: OK\n    on_fail: ask\n", &BTreeMap::new()).unwrap();
        assert_eq!(f.steps[0].on_fail, OnFail::Ask);
        let e = error("steps:\n  - click: e12\n");
        assert!(e.starts_with("line 2 (step 1): "), "a ref belongs to a session, not a file: {e}");
        let e = error("steps:\n  - click: OK\n    key: Return\n");
        assert!(e.contains("one tool per step"), "{e}");
        assert!(error("steps: []\n").contains("empty"));
        assert!(error("- click: OK\n").contains("a flow is a mapping"));
        let e = error("steps:\n  - wait_for: {condition: \"bogus:x\"}\n");
        assert!(e.starts_with("line 2 (step 1): "), "the condition is checked before anything runs: {e}");
    }
}
