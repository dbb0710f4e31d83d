//! The toolbelt: one executor and one accessibility connection for a session, and every
//! tool carried out through them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use deft_a11y::{A11yError, Accessibility, SnapshotOptions};
use deft_types::{ActionKind, ElementId, Outcome, Selector, TextMatch};
use deft_verify::{Desktop, DesktopConfig, Executor, ExecutorConfig, VerifyError};

use crate::error::{ToolError, ToolErrorKind};
use crate::observe;
use crate::outline::{OutlineStyle, RefStyle, element_line};
use crate::output::{ActionReport, ToolOutput, WaitReport};
use crate::plan::{Plan, RefUse, Request, ToolCall};
use crate::refs::Refs;
use crate::screen::LazyOcr;
use crate::secrets::{SecretValues, Secrets};
use crate::spelling::Spelling;

/// How a face wants its tools carried out and shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeltSettings {
    /// Verify actions whose call does not say (the agent and MCP: on; the CLI: its config).
    pub verify_by_default: bool,
    /// How `read` draws its outline.
    pub outline: OutlineStyle,
    /// Session refs (`e12`, the agent and MCP) rather than element ids (the CLI).
    pub session_refs: bool,
    /// After an action, read its window and report what changed since the session last
    /// showed it, in at most this many lines (`None`: do not read).
    pub changes_after_action: Option<usize>,
    /// The secrets `{{secret:NAME}}` references name (faces fill them from their
    /// environment; the toolbelt reads none).
    pub secrets: SecretValues,
    /// Accessible names of fields whose text is a secret like a password's (the desktop's
    /// `DesktopConfig::secret_fields`): masked in every read, outline, outcome and image.
    pub mask_fields: Vec<String>,
}

impl BeltSettings {
    /// For models (the agent, MCP clients): verification on, compact outlines, refs, and
    /// what changed after every action.
    pub fn for_models() -> BeltSettings {
        BeltSettings {
            verify_by_default: true,
            outline: OutlineStyle::COMPACT,
            session_refs: true,
            changes_after_action: Some(40),
            secrets: SecretValues::default(),
            mask_fields: Vec::new(),
        }
    }

    /// These settings with `secrets` to fill `{{secret:NAME}}` references from.
    pub fn with_secrets(self, secrets: SecretValues) -> BeltSettings {
        BeltSettings { secrets, ..self }
    }

    /// These settings with the fields named in `mask_fields` treated as secrets.
    pub fn with_mask_fields(self, mask_fields: Vec<String>) -> BeltSettings {
        BeltSettings { mask_fields, ..self }
    }
}

/// Every tool, through one executor.
pub struct Toolbelt {
    executor: Executor,
    /// The desktop the executor acts on, for what the toolbelt reads beside it (screenshots).
    desktop: DesktopConfig,
    /// Why the desktop takes no input (a Wayland session with no input backend yet): every
    /// action is refused with it before anything runs; reading and waiting work.
    no_input: Option<String>,
    ocr: Arc<LazyOcr>,
    refs: Refs,
    settings: BeltSettings,
    /// Per window (app and title), the line each element had when last shown.
    seen: Mutex<HashMap<(String, String), HashMap<ElementId, String>>>,
}

impl Toolbelt {
    /// Connect the executor on `desktop` (the fields `settings` masks added to its secret
    /// ones), with OCR loaded on first use.
    pub async fn connect(
        config: ExecutorConfig,
        desktop: DesktopConfig,
        settings: BeltSettings,
    ) -> Result<Toolbelt, ToolError> {
        let ocr = Arc::new(LazyOcr::default());
        let mut desktop = desktop;
        desktop.secret_fields.extend(settings.mask_fields.iter().cloned());
        let unavailable = |e: VerifyError| match e {
            VerifyError::Policy { .. } => ToolError::usage(e.to_string()),
            VerifyError::Backend { .. } => ToolError::new(ToolErrorKind::Unavailable, e.to_string()),
        };
        let connected = Desktop::connect(&desktop).await.map_err(unavailable)?;
        let no_input = connected.no_input().map(str::to_string);
        let executor =
            Executor::new(connected.into_backends(Some(Box::new(Arc::clone(&ocr)))), config).map_err(unavailable)?;
        Ok(Toolbelt { no_input, ..Toolbelt::new(executor, ocr, settings).on(desktop) })
    }

    /// A toolbelt over `executor` (whose text seam should be `ocr`, so the two share one
    /// engine), reading the session's own desktop beside it.
    pub fn new(executor: Executor, ocr: Arc<LazyOcr>, settings: BeltSettings) -> Toolbelt {
        let desktop = DesktopConfig::default();
        Toolbelt {
            executor,
            desktop,
            no_input: None,
            ocr,
            refs: Refs::new(),
            settings,
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// This toolbelt reading `desktop` beside its executor (the one the executor acts on).
    pub fn on(self, desktop: DesktopConfig) -> Toolbelt {
        Toolbelt { desktop, ..self }
    }

    /// The executor.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// The desktop it acts on.
    pub(crate) fn desktop(&self) -> &DesktopConfig {
        &self.desktop
    }

    /// The session's refs.
    pub fn refs(&self) -> &Refs {
        &self.refs
    }

    /// The settings.
    pub fn settings(&self) -> &BeltSettings {
        &self.settings
    }

    fn ref_style(&self) -> RefStyle<'_> {
        if self.settings.session_refs { RefStyle::Session(&self.refs) } else { RefStyle::Ids }
    }

    /// Plan `call` as this toolbelt's face would (its refs, its verification default).
    pub fn plan(&self, call: &ToolCall, sp: &dyn Spelling) -> Result<Plan, ToolError> {
        let refs = self.settings.session_refs.then_some(&self.refs);
        call.plan(sp, refs, self.settings.verify_by_default)
    }

    /// Carry out `call`. An action that was carried out and failed is `Ok` with its
    /// outcome's `failure`; `Err` is a call that could not be carried out.
    pub async fn call(&self, call: &ToolCall, sp: &dyn Spelling) -> Result<ToolOutput, ToolError> {
        let plan = self.plan(call, sp)?;
        self.run(plan).await
    }

    /// Carry out a plan.
    pub async fn run(&self, plan: Plan) -> Result<ToolOutput, ToolError> {
        for r in &plan.refs {
            self.check_ref(r).await?;
        }
        let a11y = self.executor.a11y();
        let desktop = &self.desktop;
        Ok(match plan.request {
            Request::Act { action, options } => {
                if let Some(why) = &self.no_input {
                    return Err(ToolError::new(ToolErrorKind::Unavailable, format!("cannot act here: {why}")));
                }
                let (action, options) = self.settings.secrets.fill_action(action, options)?;
                let outcome = self.executor.perform_with(&action, &options).await;
                let changes = self.changes_after(&outcome).await;
                ToolOutput::Action(ActionReport { outcome, changes })
            }
            Request::Wait { condition, timeout_ms } => {
                let timeout_ms = timeout_ms.unwrap_or_else(|| self.executor.policy(ActionKind::Wait).window_ms);
                let outcome = self.executor.wait(&condition, Duration::from_millis(timeout_ms)).await;
                let expected = deft_a11y::selector::describe_condition(&condition);
                ToolOutput::Wait(WaitReport { ok: outcome.met, action: "wait", expected, timeout_ms, outcome })
            }
            Request::Read { selector, depth, hidden } => {
                let report =
                    observe::read(a11y, &selector, depth, hidden, &self.settings.outline, self.ref_style()).await?;
                self.remember_read(&selector, hidden).await;
                ToolOutput::Read(report)
            }
            Request::Find { selector, hidden } => {
                let ocr = Some((self.ocr.as_ref(), desktop));
                ToolOutput::Find(observe::find(a11y, &selector, hidden, self.ref_style(), ocr).await?)
            }
            Request::Screenshot { area } => {
                let secrets = Secrets::read(a11y).await;
                ToolOutput::Screenshot(observe::screenshot(&area, desktop, &secrets)?)
            }
            Request::Ocr { area, find } => {
                let secrets = Secrets::read(a11y).await;
                ToolOutput::Ocr(observe::ocr(&area, find.as_ref(), &self.ocr, desktop, &secrets)?)
            }
            Request::Doctor => ToolOutput::Doctor(observe::doctor(desktop).await),
        })
    }

    /// A ref is used only while its element exists with the role and name it had when the
    /// session last showed it.
    async fn check_ref(&self, r: &RefUse) -> Result<(), ToolError> {
        let was = format!("{} {:?}", r.role, r.name);
        let stale = |why: &str| {
            ToolError::new(
                ToolErrorKind::StaleRef,
                format!("{} ({was}) is stale: {why}; read again and use a ref from the new outline", r.reference),
            )
        };
        match self.executor.a11y().element(&r.id).await {
            Ok(e) if e.role == r.role && e.name.trim() == r.name.trim() => Ok(()),
            Ok(e) if e.role == r.role => Err(stale(&format!("it is {} now", e.describe()))),
            Ok(e) => Err(stale(&format!("its id now belongs to {}", e.describe()))),
            Err(A11yError::Stale { .. } | A11yError::AppGone { .. } | A11yError::InvalidId { .. }) => {
                Err(stale("the element no longer exists"))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The window of an action's target, read after it, as lines new or changed since the
    /// session last showed that window (all of it the first time), capped.
    async fn changes_after(&self, outcome: &Outcome) -> Option<String> {
        let cap = self.settings.changes_after_action?;
        let target = outcome.target.as_ref()?;
        let (app, window) = (target.app.clone()?, target.window.clone()?);
        let sel = Selector {
            app: Some(TextMatch::Exact(app.clone())),
            window: Some(TextMatch::Exact(window.clone())),
            ..Selector::default()
        };
        let style = OutlineStyle { max_lines: Some(cap), ..OutlineStyle::COMPACT };
        let scoped = deft_a11y::read_scope(self.executor.a11y(), &sel, &SnapshotOptions::default()).await.ok()?;
        let tree = &scoped.tree;
        let lines = visible_lines(tree, &style, &self.ref_style());
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let before = seen.entry((app, window)).or_default();
        let mut out = Vec::new();
        let mut omitted = 0;
        let mut gone: Vec<String> =
            before.iter().filter(|(id, _)| !lines.iter().any(|(i, _)| i == *id)).map(|(_, l)| l.clone()).collect();
        gone.sort();
        for (id, line) in &lines {
            if before.get(id) != Some(line) {
                if out.len() < cap {
                    out.push(line.clone());
                } else {
                    omitted += 1;
                }
            }
        }
        let first_look = before.is_empty();
        *before = lines.into_iter().collect();
        if out.is_empty() && gone.is_empty() {
            return Some("no element of the window changed".into());
        }
        let mut text = String::new();
        if !first_look {
            text.push_str("new or changed:\n");
        }
        for l in &out {
            text.push_str(l);
            text.push('\n');
        }
        if !first_look && !gone.is_empty() {
            text.push_str(&format!("gone: {}\n", gone.len()));
            for l in gone.iter().take(cap.saturating_sub(out.len()).max(3)) {
                text.push_str(&format!("- {l}\n"));
            }
        }
        if omitted > 0 {
            text.push_str(&format!("… truncated: {omitted} more changed; call read to see the window\n"));
        }
        Some(text)
    }

    /// A read of a window shows the model its elements: later changes are told against it.
    async fn remember_read(&self, sel: &Selector, hidden: bool) {
        if self.settings.changes_after_action.is_none() || hidden {
            return;
        }
        let Ok(scoped) = deft_a11y::read_scope(self.executor.a11y(), sel, &SnapshotOptions::default()).await else {
            return;
        };
        let tree = &scoped.tree;
        let mut by_window: HashMap<(String, String), HashMap<ElementId, String>> = HashMap::new();
        for (id, line) in visible_lines(tree, &OutlineStyle::COMPACT, &self.ref_style()) {
            let Some(i) = tree.find_id(&id) else { continue };
            let n = &tree.nodes[i];
            if let Some(w) = &n.window {
                by_window.entry((n.app.clone(), w.clone())).or_default().insert(id, line);
            }
        }
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.extend(by_window);
    }
}

/// The compact line of every element the outline would show, by id, in tree order.
fn visible_lines(tree: &deft_a11y::Tree, style: &OutlineStyle, refs: &RefStyle<'_>) -> Vec<(ElementId, String)> {
    let shown = crate::outline::shown_nodes(tree, style);
    shown
        .into_iter()
        .map(|i| {
            let e = &tree.nodes[i].element;
            (e.id.clone(), element_line(e, style, &refs.of(e)))
        })
        .collect()
}
