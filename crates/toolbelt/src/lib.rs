//! Deft's tools, each defined once, below every face.
//!
//! # The key decision: a tool is defined in one place, and the faces only present it
//!
//! Three faces offer the same tools: `agent-cli`'s verbs for people and scripts, the
//! agent's tool calls to its model, and the MCP server other agents call. They must behave
//! the same for the same request: same parameters, same target resolution, same
//! conditions, same outcome, same errors. So each tool exists once, here:
//!
//! - its **name** and one-line **description** ([`ToolSpec`], listed by [`specs`]);
//! - its **parameters** as a typed struct (`params`), whose JSON Schema is generated from
//!   the type (schemars), so the schema a model or an MCP client sees cannot drift from
//!   what is parsed;
//! - its **plan**: parameters to a `deft_types` [`deft_types::Action`] or
//!   [`deft_types::Condition`] or an observation request, with every semantic check a
//!   [`ToolError`] that names the parameter the way the face spells it ([`Spelling`]);
//! - its **run**, through deft-verify's [`deft_verify::Executor`] ([`Toolbelt::call`]);
//! - its **result** ([`ToolOutput`]): the executor's `Outcome` plus a compact outline of
//!   what changed, with refs the next call can aim at.
//!
//! Observations are a library API too: the outline of the accessibility tree (one element
//! per line, each with a short ref), `find`'s matches, screenshots as PNG, and OCR on
//! demand. A ref (`e12`) belongs to the session that showed it ([`Refs`]); one whose
//! element is gone fails closed ("stale, read again"), never hitting whatever now sits
//! there.
//!
//! This crate reads no argv, environment or file: faces hand it parameters and settings.

mod area;
mod belt;
mod error;
pub mod flow;
pub mod observe;
mod outline;
mod output;
mod params;
mod plan;
mod refs;
mod screen;
mod secrets;
mod spec;
mod spelling;

pub use area::Area;
pub use belt::{BeltSettings, Toolbelt};
// What a face needs of the executor to configure it and follow it, so that faces reach the
// executor only through the toolbelt (`cargo xtask layers` checks it).
pub use deft_verify::{
    AppCheck, DesktopConfig, Diagnosis, ExecutorConfig, FramePhase, FrameRecord, FrameRecorder, FrameShot, FrameSink,
    FramesSummary, PartCheck, Session, VerifyEvent,
};
pub use error::{ToolError, ToolErrorKind};
pub use outline::{Outline, OutlineStyle, RefStyle, element_line, outline};
pub use output::{
    ActionReport, FindMatch, FindReport, OcrLine, OcrReport, ReadReport, Shot, ToolOutput, TreeNode, WaitReport,
};
pub use params::{
    ActionParams, AreaParams, Button, ClickParams, Direction, DoctorParams, FillParams, FindParams, KeyParams,
    MatchMode, OcrParams, ReadParams, ScreenshotParams, ScrollParams, SetValueParams, TargetParams, TypeParams,
    VerifyParams, WaitParams,
};
pub use plan::{Plan, RefUse, Request, ToolCall, describe_target, only_scope};
pub use refs::Refs;
pub use screen::{LazyOcr, encode_png};
pub use secrets::{SECRET_REFERENCE, SecretValues, Secrets};
pub use spec::{Annotations, ToolName, ToolSpec, schema_of, spec, specs};
pub use spelling::{AsFlags, AsParams, Spelling};
