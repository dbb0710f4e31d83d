//! From a tool call's parameters to what the executor or an observation carries out, with
//! every semantic check an error that names the parameter as the face spells it.

mod target;
mod wait;

use deft_a11y::selector::{self, parse_condition};
use deft_input::Chord;
use deft_retry::Overrides;
use deft_types::{Action, Condition, ElementId, MouseButton, Role, Selector, Target, TextMatch};
use deft_verify::ActionOptions;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::area::Area;
use crate::error::ToolError;
use crate::params::{
    ActionParams, Button, ClickParams, Direction, DoctorParams, FillParams, FindParams, KeyParams, MatchMode,
    OcrParams, ReadParams, ScreenshotParams, ScrollParams, SetValueParams, TargetParams, TypeParams, VerifyParams,
    WaitParams,
};
use crate::refs::Refs;
use crate::spec::{ToolName, spec};
use crate::spelling::Spelling;

/// A tool call with its typed parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolCall {
    /// `click`
    Click(ClickParams),
    /// `type`
    Type(TypeParams),
    /// `set_value`
    SetValue(SetValueParams),
    /// Replace a field's text.
    Fill(FillParams),
    /// `action`
    Action(ActionParams),
    /// `key`
    Key(KeyParams),
    /// `scroll`
    Scroll(ScrollParams),
    /// `wait_for`
    WaitFor(WaitParams),
    /// `read`
    Read(ReadParams),
    /// `find`
    Find(FindParams),
    /// `screenshot`
    Screenshot(ScreenshotParams),
    /// `ocr`
    Ocr(OcrParams),
    /// `doctor`
    Doctor(DoctorParams),
}

/// A ref a call aims at, to be checked against the live tree before it is used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefUse {
    /// The ref as given (`e12`).
    pub reference: String,
    /// The element it was minted for.
    pub id: ElementId,
    /// Its role then.
    pub role: Role,
    /// Its name then.
    pub name: String,
}

/// What a planned call carries out.
#[derive(Clone, Debug, PartialEq)]
// One value per tool call, moved once: boxing would cost more than the bytes it saves.
#[allow(clippy::large_enum_variant)]
pub enum Request {
    /// An action through the executor.
    Act {
        /// The action.
        action: Action,
        /// Verification settings for this action.
        options: ActionOptions,
    },
    /// A wait through the executor.
    Wait {
        /// The condition.
        condition: Condition,
        /// The timeout, when the call gave one.
        timeout_ms: Option<u64>,
    },
    /// The outline of what a selector's scope names.
    Read {
        /// The scope (or element).
        selector: Selector,
        /// Levels below the top elements.
        depth: Option<u32>,
        /// Elements not on screen too.
        hidden: bool,
    },
    /// Every element a selector matches.
    Find {
        /// The query.
        selector: Selector,
        /// Elements not on screen too.
        hidden: bool,
    },
    /// A PNG of an area.
    Screenshot {
        /// Which part of the screen.
        area: Area,
    },
    /// The text in an area.
    Ocr {
        /// Which part of the screen.
        area: Area,
        /// Only where this text is.
        find: Option<TextMatch>,
    },
    /// What the desktop lets Deft do.
    Doctor,
}

/// A planned call: the request, its target in words, and the refs it aims at.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// What to carry out.
    pub request: Request,
    /// The target as the caller named it, in words (for messages when none was resolved).
    pub asked: String,
    /// Refs to check before carrying it out.
    pub refs: Vec<RefUse>,
}

impl ToolCall {
    /// A call of the tool `name` (as its spec names it; `set-value` and `wait` also do)
    /// with `args` (a JSON object). Unknown tools, unknown parameters and ill-typed values
    /// are usage errors that list what is accepted.
    pub fn parse(name: &str, args: Value) -> Result<ToolCall, ToolError> {
        let Some(tool) = ToolName::parse(name) else {
            let names: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
            return Err(ToolError::usage(format!("unknown tool `{name}`; the tools are: {}", names.join(", "))));
        };
        let args = match args {
            Value::Null => Value::Object(Default::default()),
            Value::Object(_) => args,
            other => {
                return Err(ToolError::usage(format!(
                    "the arguments of `{tool}` must be a JSON object, got {}",
                    kind_of(&other)
                )));
            }
        };
        check_keys(tool, &args)?;
        fn typed<T: DeserializeOwned>(tool: ToolName, args: Value) -> Result<T, ToolError> {
            serde_json::from_value(args).map_err(|e| ToolError::usage(format!("bad arguments for `{tool}`: {e}")))
        }
        Ok(match tool {
            ToolName::Click => ToolCall::Click(typed(tool, args)?),
            ToolName::Type => ToolCall::Type(typed(tool, args)?),
            ToolName::SetValue => ToolCall::SetValue(typed(tool, args)?),
            ToolName::Fill => ToolCall::Fill(typed(tool, args)?),
            ToolName::Action => ToolCall::Action(typed(tool, args)?),
            ToolName::Key => ToolCall::Key(typed(tool, args)?),
            ToolName::Scroll => ToolCall::Scroll(typed(tool, args)?),
            ToolName::WaitFor => ToolCall::WaitFor(typed(tool, args)?),
            ToolName::Read => ToolCall::Read(typed(tool, args)?),
            ToolName::Find => ToolCall::Find(typed(tool, args)?),
            ToolName::Screenshot => ToolCall::Screenshot(typed(tool, args)?),
            ToolName::Ocr => ToolCall::Ocr(typed(tool, args)?),
            ToolName::Doctor => ToolCall::Doctor(typed(tool, args)?),
        })
    }

    /// The parameters as a tool call spells them (what [`ToolCall::parse`] reads back).
    pub fn args(&self) -> Value {
        let v = match self {
            ToolCall::Click(p) => serde_json::to_value(p),
            ToolCall::Type(p) => serde_json::to_value(p),
            ToolCall::SetValue(p) => serde_json::to_value(p),
            ToolCall::Fill(p) => serde_json::to_value(p),
            ToolCall::Action(p) => serde_json::to_value(p),
            ToolCall::Key(p) => serde_json::to_value(p),
            ToolCall::Scroll(p) => serde_json::to_value(p),
            ToolCall::WaitFor(p) => serde_json::to_value(p),
            ToolCall::Read(p) => serde_json::to_value(p),
            ToolCall::Find(p) => serde_json::to_value(p),
            ToolCall::Screenshot(p) => serde_json::to_value(p),
            ToolCall::Ocr(p) => serde_json::to_value(p),
            ToolCall::Doctor(p) => serde_json::to_value(p),
        };
        v.unwrap_or(Value::Null)
    }

    /// The tool.
    pub fn name(&self) -> ToolName {
        match self {
            ToolCall::Click(_) => ToolName::Click,
            ToolCall::Type(_) => ToolName::Type,
            ToolCall::SetValue(_) => ToolName::SetValue,
            ToolCall::Fill(_) => ToolName::Fill,
            ToolCall::Action(_) => ToolName::Action,
            ToolCall::Key(_) => ToolName::Key,
            ToolCall::Scroll(_) => ToolName::Scroll,
            ToolCall::WaitFor(_) => ToolName::WaitFor,
            ToolCall::Read(_) => ToolName::Read,
            ToolCall::Find(_) => ToolName::Find,
            ToolCall::Screenshot(_) => ToolName::Screenshot,
            ToolCall::Ocr(_) => ToolName::Ocr,
            ToolCall::Doctor(_) => ToolName::Doctor,
        }
    }

    /// The call as a `deft_types` action, condition or observation request, checked.
    /// `verify_default` is the face's default for actions whose `verify` is not given;
    /// `refs` resolves refs (`None`: this face has no session, and a ref is an error).
    pub fn plan(&self, sp: &dyn Spelling, refs: Option<&Refs>, verify_default: bool) -> Result<Plan, ToolError> {
        let mut p = Planner { sp, refs, used: Vec::new() };
        let (request, asked) = p.request(self, verify_default)?;
        Ok(Plan { request, asked, refs: p.used })
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Unknown parameters are errors, never silently ignored (a typo would change the meaning).
fn check_keys(tool: ToolName, args: &Value) -> Result<(), ToolError> {
    let schema = spec(tool).input_schema;
    let known: Vec<&str> =
        schema["properties"].as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    let Some(obj) = args.as_object() else { return Ok(()) };
    for key in obj.keys() {
        if !known.contains(&key.as_str()) {
            let hint = known
                .iter()
                .map(|k| (strsim_like(k, key), *k))
                .filter(|(s, _)| *s >= 0.75)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, k)| format!(" (did you mean `{k}`?)"))
                .unwrap_or_default();
            return Err(ToolError::usage(format!(
                "unknown parameter `{key}` for `{tool}`{hint}; the parameters are: {}",
                known.join(", ")
            )));
        }
    }
    let required: Vec<&str> =
        schema["required"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    for r in required {
        if !obj.contains_key(r) {
            return Err(ToolError::usage(format!("`{tool}` needs the parameter `{r}`")));
        }
    }
    Ok(())
}

/// Similarity of two parameter names in `0..=1` (shared prefix and letters), enough to
/// suggest `name` for `nmae`.
fn strsim_like(a: &str, b: &str) -> f64 {
    deft_a11y::selector::text_similarity(a, b)
}

/// Plans one call, collecting the refs it uses.
pub(crate) struct Planner<'a> {
    pub(crate) sp: &'a dyn Spelling,
    pub(crate) refs: Option<&'a Refs>,
    pub(crate) used: Vec<RefUse>,
}

impl Planner<'_> {
    pub(crate) fn f(&self, field: &str) -> String {
        self.sp.field(field)
    }

    fn request(&mut self, call: &ToolCall, verify_default: bool) -> Result<(Request, String), ToolError> {
        let act = |action: Action, options: ActionOptions| Request::Act { action, options };
        Ok(match call {
            ToolCall::Click(c) => {
                let target = self.required(&c.target, "click", "target=\"Submit\"")?;
                let button = match c.button.unwrap_or_default() {
                    Button::Left => MouseButton::Left,
                    Button::Middle => MouseButton::Middle,
                    Button::Right => MouseButton::Right,
                };
                let count = if c.double.unwrap_or(false) { 2 } else { 1 };
                let asked = describe_target(&target);
                (act(Action::Click { target, button, count }, self.options(&c.verify, verify_default)?), asked)
            }
            ToolCall::Type(t) => {
                if t.text.is_empty() {
                    return Err(ToolError::usage(format!(
                        "{} is empty: there is nothing to type (give the text, e.g. John)",
                        self.f("text")
                    )));
                }
                let target = self.target(&t.target)?.unwrap_or(Target::Focused);
                self.require_element(&target)?;
                let asked = describe_target(&target);
                (act(Action::Type { target, text: t.text.clone() }, self.options(&t.verify, verify_default)?), asked)
            }
            ToolCall::SetValue(s) => {
                let target = self.required(&s.target, "set_value", "name=Name value=John")?;
                let asked = describe_target(&target);
                let action = Action::SetValue { target, value: s.value.clone() };
                (act(action, self.options(&s.verify, verify_default)?), asked)
            }
            // A fill is a set of a field's text: one action, one chain and one check (the
            // field holds exactly the text), under the name a form filler looks for.
            ToolCall::Fill(f) => {
                let target = self.required(&f.target, "fill", "name=Name text=John")?;
                let asked = describe_target(&target);
                let action = Action::SetValue { target, value: f.text.clone() };
                (act(action, self.options(&f.verify, verify_default)?), asked)
            }
            ToolCall::Action(a) => {
                let name = a.action.as_deref().unwrap_or("click").trim().to_string();
                if name.is_empty() {
                    return Err(ToolError::usage(format!(
                        "{} is empty; give an action name such as click, press or activate",
                        self.f("action")
                    )));
                }
                let target = self.required(&a.target, "action", "target=\"Submit\"")?;
                let asked = describe_target(&target);
                (act(Action::Invoke { target, name }, self.options(&a.verify, verify_default)?), asked)
            }
            ToolCall::Key(k) => {
                if k.keys.trim().is_empty() {
                    return Err(ToolError::usage(format!(
                        "{} is empty; give a key such as Return or ctrl+s",
                        self.f("keys")
                    )));
                }
                let chord = Chord::parse(&k.keys).map_err(|e| ToolError::usage(e.to_string()))?.to_key_chord();
                // An application or window: the keys go to its keyboard focus, never elsewhere.
                let scope = TargetParams { app: k.app.clone(), window: k.window.clone(), ..TargetParams::default() };
                let target = self.target(&scope)?.unwrap_or(Target::Focused);
                let asked = match &target {
                    Target::Focused => chord.to_string(),
                    scoped => format!("{chord} in {}", describe_target(scoped)),
                };
                (act(Action::Key { chord, target }, self.options(&k.verify, verify_default)?), asked)
            }
            ToolCall::Scroll(s) => {
                let amount = i32::from(s.amount.unwrap_or(3));
                if amount == 0 {
                    return Err(ToolError::usage(format!("{} must be at least 1", self.f("amount"))));
                }
                let (dx, dy) = match s.direction {
                    Direction::Up => (0, -amount),
                    Direction::Down => (0, amount),
                    Direction::Left => (-amount, 0),
                    Direction::Right => (amount, 0),
                };
                let target = self.required(&s.target, "scroll", "name=Items direction=down")?;
                let asked = describe_target(&target);
                (act(Action::Scroll { target, dx, dy }, self.options(&s.verify, verify_default)?), asked)
            }
            ToolCall::WaitFor(w) => {
                let condition = self.wait_condition(w)?;
                let asked = selector::describe_condition(&condition);
                (Request::Wait { condition, timeout_ms: w.timeout_ms }, asked)
            }
            ToolCall::Read(r) => {
                let selector = self.observed_selector(&r.target, "read")?;
                let asked = selector::format(&selector);
                (Request::Read { selector, depth: r.depth, hidden: r.hidden.unwrap_or(false) }, asked)
            }
            ToolCall::Find(f) => {
                let selector = self.observed_selector(&f.target, "find")?;
                if selector.is_empty() {
                    return Err(ToolError::usage(format!(
                        "`{}` needs something to look for: {}, or {}, {}, {}, {} or {}",
                        self.sp.tool("find"),
                        self.f("target"),
                        self.f("name"),
                        self.f("role"),
                        self.f("id"),
                        self.f("app"),
                        self.f("window")
                    )));
                }
                let asked = selector::format(&selector);
                (Request::Find { selector, hidden: f.hidden.unwrap_or(false) }, asked)
            }
            ToolCall::Screenshot(s) => {
                let area = Area::from_params(&s.area, self.sp)?;
                let asked = area.words();
                (Request::Screenshot { area }, asked)
            }
            ToolCall::Ocr(o) => {
                let area = Area::from_params(&o.area, self.sp)?;
                let find = match &o.find {
                    None => None,
                    Some(f) if f.trim().is_empty() => {
                        return Err(ToolError::usage(format!(
                            "{} is empty; give the text to look for, e.g. Submit",
                            self.f("find")
                        )));
                    }
                    Some(f) => Some(self.text_match(f, o.matching.unwrap_or(MatchMode::Contains), "find")?),
                };
                let asked = area.words();
                (Request::Ocr { area, find }, asked)
            }
            ToolCall::Doctor(_) => (Request::Doctor, "the desktop".to_string()),
        })
    }

    /// Verification settings; an inconsistent set is a usage error before anything acts.
    fn options(&self, v: &VerifyParams, verify_default: bool) -> Result<ActionOptions, ToolError> {
        let expect = match &v.expect {
            None => None,
            Some(e) => Some(
                parse_condition(e)
                    .map_err(|err| ToolError::usage(format!("{}: {err}\n{}", self.f("expect"), err.pointer())))?,
            ),
        };
        let overrides =
            Overrides { verify_delay_ms: v.verify_delay_ms, max_retries: v.max_retries, timeout_ms: v.timeout_ms };
        if let (Some(d), Some(t)) = (v.verify_delay_ms, v.timeout_ms)
            && d >= t
        {
            return Err(ToolError::usage(format!(
                "{} ({d} ms) must be shorter than {} ({t} ms): the effect is watched for until the timeout",
                self.f("verify_delay_ms"),
                self.f("timeout_ms")
            )));
        }
        let verify = v.verify.unwrap_or(verify_default) || expect.is_some();
        Ok(ActionOptions { verify: Some(verify), expect, idempotent: false, overrides, secret: false })
    }

    /// The target of an action that needs one.
    fn required(&mut self, t: &TargetParams, tool: &str, example: &str) -> Result<Target, ToolError> {
        let target = self.target(t)?.ok_or_else(|| {
            ToolError::usage(format!(
                "`{}` needs a target: {}, or {}, {}, {} or {} (e.g. {example})",
                self.sp.tool(tool),
                self.f("target"),
                self.f("name"),
                self.f("role"),
                self.f("id"),
                self.f("at")
            ))
        })?;
        self.require_element(&target)?;
        Ok(target)
    }

    /// A selector naming only an app or window is not enough to act on.
    fn require_element(&self, target: &Target) -> Result<(), ToolError> {
        match target {
            Target::Selector(sel) if only_scope(sel) => Err(ToolError::usage(format!(
                "`{}` names only an application or window, not an element in it; add {}, {}, {} or a selector \
                 (read that app or window to see what is there)",
                selector::format(sel),
                self.f("name"),
                self.f("role"),
                self.f("id")
            ))),
            _ => Ok(()),
        }
    }

    /// The selector of `read` and `find` (text becomes `text=`; a point is refused).
    fn observed_selector(&mut self, t: &TargetParams, tool: &str) -> Result<Selector, ToolError> {
        match self.target(t)? {
            None => Ok(Selector::default()),
            Some(Target::Selector(s)) => Ok(s),
            Some(Target::Text(m)) => Ok(Selector { text: Some(m), ..Selector::default() }),
            Some(Target::Point(_) | Target::Focused) => Err(ToolError::usage(format!(
                "`{}` takes an element or text, not a point ({})",
                self.sp.tool(tool),
                self.f("at")
            ))),
        }
    }

    pub(crate) fn text_match(&self, s: &str, mode: MatchMode, field: &str) -> Result<TextMatch, ToolError> {
        let m = match mode {
            MatchMode::Exact => TextMatch::Exact(s.to_string()),
            MatchMode::Contains => TextMatch::Contains(s.to_string()),
            MatchMode::Regex => TextMatch::Regex(s.to_string()),
        };
        if let TextMatch::Regex(r) = &m {
            let probe = Selector { name: Some(TextMatch::Regex(r.clone())), ..Selector::default() };
            selector::Matcher::new(&probe)
                .map_err(|e| ToolError::usage(format!("{}: {}", self.f(field), e.message)))?;
        }
        Ok(m)
    }
}

/// Whether a selector names only an app and/or window (fine for `read`, not for actions).
pub fn only_scope(sel: &Selector) -> bool {
    let Selector { app: _, window: _, role, name, text, path, id, index: _ } = sel;
    role.is_none() && name.is_none() && text.is_none() && path.is_none() && id.is_none()
}

/// A target in words, for messages: `name="Submit order"`, `text "A"`, `point (1, 2)`.
pub fn describe_target(target: &Target) -> String {
    match target {
        Target::Selector(s) => selector::format(s),
        Target::Text(m) => format!("text {}", selector::describe_text(m)),
        Target::Point(p) => format!("point ({}, {})", p.x, p.y),
        Target::Focused => "the focused element".into(),
    }
}
