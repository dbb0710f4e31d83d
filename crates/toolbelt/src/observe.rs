//! The observation tools (`read`, `find`, `screenshot`, `ocr`) as functions over the
//! backends they need, so that a face can observe without connecting an executor.

use deft_a11y::selector;
use deft_a11y::{Accessibility, AnyAccessibility, SnapshotOptions, Tree};
use deft_capture::{Capture, CaptureTarget};
use deft_ocr::{Ocr, SearchOptions};
use deft_types::{Element, Physical, Rect, Selector, TextMatch};
use deft_verify::{Desktop, DesktopConfig};

use crate::area::Area;
use crate::error::{ToolError, ToolErrorKind};
use crate::outline::{OutlineStyle, RefStyle, outline};
use crate::output::{FindMatch, FindReport, OcrLine, OcrReport, ReadReport, Shot, TreeNode};
use crate::plan::only_scope;
use crate::screen::{LazyOcr, encode_png};
use crate::secrets::Secrets;

/// The accessibility backend of `desktop` alone: observing sends no input, so it needs no
/// executor (and works on sessions where input cannot be sent).
pub async fn accessibility(desktop: &DesktopConfig) -> Result<AnyAccessibility, ToolError> {
    Ok(Desktop::accessibility(desktop).await?)
}

/// The session kind a fleet's worker advertises: `x11`, `wayland/mutter`, ... (see
/// [`deft_verify::Session::kind`]).
pub fn session_kind(desktop: &DesktopConfig) -> String {
    deft_verify::Session::probe(desktop).kind()
}

/// `doctor`: what `desktop` lets Deft do, part by part, with the fix for each gap. Needs
/// no executor: it is what a user runs when the executor cannot connect.
pub async fn doctor(desktop: &DesktopConfig) -> deft_verify::Diagnosis {
    Desktop::diagnose(desktop).await
}

/// `read`: the tree of everything, an app, a window, or one element's subtree.
pub async fn read<A: Accessibility>(
    a11y: &A,
    sel: &Selector,
    depth: Option<u32>,
    hidden: bool,
    style: &OutlineStyle,
    refs: RefStyle<'_>,
) -> Result<ReadReport, ToolError> {
    let options = SnapshotOptions { hidden_details: hidden, ..SnapshotOptions::default() };
    let (tree, tops): (Tree, Vec<usize>) = if only_scope(sel) {
        let scoped = deft_a11y::read_scope(a11y, sel, &options).await?;
        let tree = scoped.tree;
        // The windows themselves when a window was named; else the roots (applications).
        let tops = if scoped.selector.window.is_some() {
            (0..tree.len()).filter(|&i| tree.nodes[i].window.is_some() && tree.nodes[i].path.is_empty()).collect()
        } else {
            tree.roots().collect()
        };
        (tree, tops)
    } else {
        let found = deft_a11y::find(a11y, sel, &options).await?;
        let index = found.index;
        (found.tree, vec![index])
    };
    let mut count = 0;
    let roots = tops.iter().map(|&i| nest(&tree, i, 0, depth, &mut count)).collect();
    let outline = outline(&tree, &tops, depth, style, refs).text;
    Ok(ReadReport { roots, count, problems: tree.problems.clone(), outline })
}

/// An element as an observation shows it: a secret field's text never, not even as its
/// mask, which tells the length (what the outline hides too).
fn shown(e: &Element) -> Element {
    let mut e = e.clone();
    if e.is_secret() {
        e.text = None;
        e.value = None;
    }
    e
}

fn nest(tree: &Tree, i: usize, level: u32, depth: Option<u32>, count: &mut usize) -> TreeNode {
    *count += 1;
    let n = &tree.nodes[i];
    let children = if depth.is_some_and(|d| level >= d) {
        Vec::new()
    } else {
        n.children.iter().map(|&c| nest(tree, c, level + 1, depth, count)).collect()
    };
    TreeNode {
        element: shown(&n.element),
        app: n.app.clone(),
        window: n.window.clone(),
        path: n.path.clone(),
        children,
    }
}

/// `find`: every element `sel` matches (its `index` ignored), numbered as `index` counts.
/// Text that no element has is looked for on screen by OCR when `ocr` is given.
pub async fn find<A: Accessibility>(
    a11y: &A,
    sel: &Selector,
    hidden: bool,
    refs: RefStyle<'_>,
    ocr: Option<(&LazyOcr, &DesktopConfig)>,
) -> Result<FindReport, ToolError> {
    let options = SnapshotOptions { hidden_details: hidden, ..SnapshotOptions::default() };
    let query = Selector { index: None, ..sel.clone() };
    let (scoped, found) = match deft_a11y::find_all(a11y, &query, &options).await {
        Ok(f) => f,
        Err(e) => {
            let e = ToolError::from(e);
            // Text no element has may still be on screen.
            if let (ToolErrorKind::NotFound, Some(text), Some((engine, desktop))) = (e.kind, text_only(&query), ocr) {
                let secrets = Secrets::read(a11y).await;
                let on_screen = ocr_area(&Area::Screen, Some(as_text(text)), engine, desktop, &secrets);
                if let Ok(report) = on_screen
                    && !report.lines.is_empty()
                {
                    return Ok(FindReport {
                        query: selector::format(&query),
                        count: 0,
                        matches: Vec::new(),
                        problems: Vec::new(),
                        ocr_matches: report.lines,
                    });
                }
            }
            return Err(e);
        }
    };
    let tree = &scoped.tree;
    let matches = found
        .iter()
        .enumerate()
        .map(|(index, &i)| {
            let n = &tree.nodes[i];
            FindMatch {
                index,
                reference: refs.of(&n.element),
                element: shown(&n.element),
                app: n.app.clone(),
                window: n.window.clone(),
                path: n.path.clone(),
                selector: selector::picking_selector(&n.app, n.window.as_deref(), &n.path, &n.element.id),
            }
        })
        .collect::<Vec<_>>();
    Ok(FindReport {
        query: selector::format(&Selector { index: None, ..scoped.selector.clone() }),
        count: matches.len(),
        matches,
        problems: tree.problems.clone(),
        ocr_matches: Vec::new(),
    })
}

/// The text of a selector that is text alone, the case where OCR of the screen may stand in.
pub fn text_only(sel: &Selector) -> Option<&TextMatch> {
    let rest = Selector { text: None, ..sel.clone() };
    if rest.is_empty() { sel.text.as_ref() } else { None }
}

fn capture_error(e: deft_capture::CaptureError) -> ToolError {
    use deft_capture::CaptureError as E;
    let kind = match &e {
        E::NoDisplay { .. } => ToolErrorKind::Unavailable,
        E::BadRegion { .. } => ToolErrorKind::Usage,
        E::MonitorNotFound { .. } | E::WindowNotFound { .. } => ToolErrorKind::NotFound,
        _ => ToolErrorKind::Failed,
    };
    ToolError::new(kind, e.to_string())
}

/// One frame of `area`, on `desktop`, and what was done
/// to get it.
///
/// A window that other windows cover is raised first, as a person would before looking at
/// it (the window manager's way, `_NET_ACTIVE_WINDOW`): a capture of its rectangle would
/// show the covering windows' pixels. Being on top is not enough: the application paints
/// the uncovered part when it gets to it, so the frame is taken once the rectangle differs
/// from what covered it and holds still across two captures, within [`RAISE_WAIT`]. If
/// the window manager does not raise it, the error says what covers it.
fn grab(area: &Area, desktop: &DesktopConfig, secrets: &Secrets) -> Result<Grabbed, ToolError> {
    let mut got = grab_unmasked(area, desktop)?;
    let (frame, masked, unmasked) = secrets.mask(got.frame);
    (got.frame, got.masked, got.unmasked) = (frame, masked, unmasked);
    Ok(got)
}

fn grab_unmasked(area: &Area, desktop: &DesktopConfig) -> Result<Grabbed, ToolError> {
    use deft_capture::CaptureError::WindowCovered;
    let mut capture: Box<dyn Capture + Send> = Desktop::capture(desktop).map_err(capture_error)?;
    let target = area.capture_target();
    let (id, bounds, covered_by) = match capture.capture(&target) {
        Ok(frame) => return Ok(Grabbed::new(frame, capture.backend_name(), None)),
        Err(WindowCovered { id, bounds, by, .. }) => (id, bounds, by),
        Err(e) => return Err(capture_error(e)),
    };
    let covered = capture.capture(&CaptureTarget::Region(bounds)).map_err(capture_error)?;
    let windows = Desktop::windows(desktop)
        .map_err(|e| ToolError::new(ToolErrorKind::Unavailable, format!("cannot raise the window: {e}")))?;
    windows.activate(id).map_err(|e| ToolError::new(ToolErrorKind::Failed, format!("cannot raise the window: {e}")))?;
    let deadline = std::time::Instant::now() + RAISE_WAIT;
    let mut last: Option<deft_types::Frame> = None;
    loop {
        let late = std::time::Instant::now() >= deadline;
        match capture.capture(&target) {
            Ok(frame) => {
                let repainted = frame.pixels() != covered.pixels();
                let still = last.as_ref().is_some_and(|l| l.pixels() == frame.pixels());
                if (repainted && still) || late {
                    let mut raised = format!("raised {} first: {} covered it", area.words(), covered_by.join(", "));
                    if !repainted {
                        raised.push_str(&format!("; its pixels did not change within {RAISE_WAIT:?}"));
                    }
                    return Ok(Grabbed::new(frame, capture.backend_name(), Some(raised)));
                }
                last = Some(frame);
            }
            Err(e @ WindowCovered { .. }) if late => {
                let why = format!("{e} (asked the window manager to raise it; it did not within {RAISE_WAIT:?})");
                return Err(ToolError::new(ToolErrorKind::Failed, why));
            }
            Err(WindowCovered { .. }) => {}
            Err(e) => return Err(capture_error(e)),
        }
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
}

/// How long a covered window may take to come on top once the window manager is asked.
const RAISE_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// A frame, the backend that took it, the raise that came first, if any, and what of it
/// was painted over.
struct Grabbed {
    frame: deft_types::Frame,
    backend: &'static str,
    raised: Option<String>,
    masked: Vec<Rect<Physical>>,
    unmasked: Option<String>,
}

impl Grabbed {
    fn new(frame: deft_types::Frame, backend: &'static str, raised: Option<String>) -> Grabbed {
        Grabbed { frame, backend, raised, masked: Vec::new(), unmasked: None }
    }

    /// The notes a result carries: the raise, and why nothing was masked.
    fn notes(&self) -> Option<String> {
        match (&self.raised, &self.unmasked) {
            (Some(r), Some(u)) => Some(format!("{r}; {u}")),
            (r, u) => r.clone().or_else(|| u.clone()),
        }
    }
}

/// `screenshot`: a PNG of `area`.
///
/// Password fields (`secrets`) are painted over before it is encoded.
pub fn screenshot(area: &Area, desktop: &DesktopConfig, secrets: &Secrets) -> Result<Shot, ToolError> {
    let got = grab(area, desktop, secrets)?;
    let notes = got.notes();
    let frame = got.frame;
    let png = encode_png(&frame).map_err(|e| ToolError::new(ToolErrorKind::Failed, format!("PNG encoding: {e}")))?;
    let (width, height, bounds) = (frame.width(), frame.height(), frame.screen_rect());
    Ok(Shot { png, path: None, width, height, bounds, backend: got.backend, note: notes, masked: got.masked })
}

/// `ocr`: the text lines of `area`, or where `find` appears in it (best first). Text that
/// is not there is [`ToolErrorKind::NotFound`], naming some lines that are.
pub fn ocr(
    area: &Area,
    find: Option<&TextMatch>,
    engine: &LazyOcr,
    desktop: &DesktopConfig,
    secrets: &Secrets,
) -> Result<OcrReport, ToolError> {
    let report = ocr_area(area, find.map(as_text), engine, desktop, secrets)?;
    if let (Some(q), true) = (find, report.lines.is_empty()) {
        let all = ocr_area(area, None, engine, desktop, secrets)?;
        let seen: Vec<String> = all.lines.iter().take(8).map(|l| format!("{:?}", l.text)).collect();
        return Err(ToolError::new(
            ToolErrorKind::NotFound,
            format!(
                "the text {} is not on {} ({} lines read{}{})",
                selector::describe_text(q),
                area.words(),
                all.lines.len(),
                if seen.is_empty() { "" } else { ", e.g. " },
                seen.join(", ")
            ),
        ));
    }
    Ok(report)
}

fn as_text(m: &TextMatch) -> &str {
    match m {
        TextMatch::Exact(s) | TextMatch::Contains(s) | TextMatch::Regex(s) => s,
    }
}

fn ocr_area(
    area: &Area,
    find: Option<&str>,
    engine: &LazyOcr,
    desktop: &DesktopConfig,
    secrets: &Secrets,
) -> Result<OcrReport, ToolError> {
    let got = grab(area, desktop, secrets)?;
    let note = got.notes();
    let frame = got.frame;
    let start = std::time::Instant::now();
    let engine = engine
        .engine()
        .map_err(|e| ToolError::new(ToolErrorKind::Unavailable, format!("the OCR engine cannot start: {e}")))?;
    let result = engine
        .recognize(&frame, None)
        .map_err(|e| ToolError::new(ToolErrorKind::Failed, format!("OCR failed: {e}")))?;
    let lines = match find {
        None => result.lines.iter().map(|l| OcrLine { text: l.text.clone(), bounds: l.bounds, score: None }).collect(),
        Some(q) => deft_ocr::find_text(&result, &TextMatch::Contains(q.to_string()), &SearchOptions::default())
            .into_iter()
            .map(|m| OcrLine { text: m.text, bounds: m.bounds, score: Some(m.score) })
            .collect(),
    };
    Ok(OcrReport { area: frame.screen_rect(), lines, elapsed_ms: start.elapsed().as_millis() as u64, note })
}

#[cfg(test)]
mod tests {
    use deft_a11y::{FakeAccessibility, demo_tree};
    use deft_types::Role;

    use super::*;
    use crate::refs::Refs;

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
    }

    fn exact(s: &str) -> Option<TextMatch> {
        Some(TextMatch::Exact(s.into()))
    }

    #[test]
    fn read_on_the_fake_tree() {
        let fake = FakeAccessibility::new(demo_tree());
        let style = OutlineStyle::detailed(false);
        let all = run(read(&fake, &Selector::default(), None, false, &style, RefStyle::Ids)).unwrap();
        assert_eq!((all.roots.len(), all.count), (1, 7));
        let window = Selector { window: exact("Main"), ..Selector::default() };
        let doc = run(read(&fake, &window, None, false, &style, RefStyle::Ids)).unwrap();
        assert_eq!((doc.roots.len(), doc.count, doc.roots[0].element.name.as_str()), (1, 4, "Main"));
        let json = serde_json::to_value(&doc).unwrap();
        assert_eq!(json["roots"][0]["children"][1]["name"], "Cancel", "{json}");
        let cancel = Selector { name: exact("Cancel"), ..Selector::default() };
        assert_eq!(run(read(&fake, &cancel, None, false, &style, RefStyle::Ids)).unwrap().count, 1);
        let ok = Selector { name: exact("OK"), ..Selector::default() };
        let e = run(read(&fake, &ok, None, false, &style, RefStyle::Ids)).unwrap_err();
        assert_eq!(e.kind, ToolErrorKind::Ambiguous);
    }

    #[test]
    fn find_on_the_fake_tree() {
        let fake = FakeAccessibility::new(demo_tree());
        let refs = Refs::new();
        let buttons = Selector { role: Some(Role::new("push_button")), ..Selector::default() };
        let found = run(find(&fake, &buttons, false, RefStyle::Session(&refs), None)).unwrap();
        assert_eq!(found.count, 3);
        assert_eq!(found.matches[2].selector, "app=demo window=Confirm path=0");
        assert_eq!(found.matches[2].reference, "e3");
        let none = Selector { name: exact("Canel"), ..Selector::default() };
        let e = run(find(&fake, &none, false, RefStyle::Ids, None)).unwrap_err();
        assert_eq!(e.kind, ToolErrorKind::NotFound);
        assert_eq!(e.candidates[0].name, "Cancel");
    }
}
