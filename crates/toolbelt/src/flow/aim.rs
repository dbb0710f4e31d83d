//! Aiming a written-down step at an element the way a person reads it: its name (when it
//! has one), role and application, made unique by its window and then by `index` only when
//! needed. Shared by recording and by saving an agent's run as a flow.

use serde_json::{Map, Value};

use crate::belt::Toolbelt;
use crate::output::{FindReport, ToolOutput};
use crate::params::{FindParams, TargetParams};
use crate::plan::ToolCall;
use crate::spelling::AsParams;

/// The parameters that aim at the element `id`, and its application's name.
pub(crate) async fn aim(belt: &Toolbelt, id: &str) -> Option<(Map<String, Value>, String)> {
    let by_id = TargetParams { id: Some(id.to_string()), ..TargetParams::default() };
    let found = find(belt, by_id).await?;
    let m = found.matches.first()?;
    let element = &m.element;
    // A window's title is added only when it tells matches apart: titles change as
    // documents do (Mousepad's "*Untitled 1" once a key landed).
    let named = !element.name.trim().is_empty();
    let mut target = TargetParams {
        name: named.then(|| element.name.clone()),
        role: Some(element.role.as_str().to_string()),
        app: Some(m.app.clone()),
        ..TargetParams::default()
    };
    let mut matches = find(belt, target.clone()).await?.matches;
    if matches.len() > 1 && m.window.is_some() {
        target.window.clone_from(&m.window);
        matches = find(belt, target.clone()).await?.matches;
    }
    if matches.len() > 1 {
        let i = matches.iter().position(|x| x.element.id == element.id)?;
        target.index = u32::try_from(i).ok();
    }
    let params = serde_json::to_value(&target).ok()?.as_object()?.clone();
    Some((params, m.app.clone()))
}

async fn find(belt: &Toolbelt, target: TargetParams) -> Option<FindReport> {
    let call = ToolCall::Find(FindParams { target, hidden: None });
    match belt.call(&call, &AsParams).await {
        Ok(ToolOutput::Find(f)) => Some(f),
        _ => None,
    }
}
