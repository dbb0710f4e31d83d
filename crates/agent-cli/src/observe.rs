//! `read`, `find`, `screenshot` and `ocr`: the toolbelt observes; this module only connects
//! what each needs (no executor: observing sends no input) and prints the result.

use deft_toolbelt::{
    AsFlags, DesktopConfig, FindReport, LazyOcr, OcrReport, OutlineStyle, ReadReport, RefStyle, Request, Secrets, Shot,
    ToolCall, observe,
};

use crate::config::Config;
use crate::exit::{CliError, Exit};
use crate::output::{Out, Style};

/// Carry out an observation verb and print it.
pub async fn observe_verb(
    out: &Out,
    config: &Config,
    call: ToolCall,
    output: Option<&std::path::Path>,
) -> Result<Exit, CliError> {
    let plan = call.plan(&AsFlags, None, false)?;
    let mask = config.mask_fields();
    // The session's own desktop (DISPLAY, the session bus), the masked fields secret.
    let desktop = DesktopConfig { secret_fields: mask, ..DesktopConfig::default() };
    let connect = || observe::accessibility(&desktop);
    match plan.request {
        Request::Read { selector, depth, hidden } => {
            let a11y = connect().await?;
            let style = OutlineStyle::detailed(out.color);
            let doc = observe::read(&a11y, &selector, depth, hidden, &style, RefStyle::Ids).await?;
            out.print(&doc, |_| read_human(&doc))?;
        }
        Request::Find { selector, hidden } => {
            let a11y = connect().await?;
            let ocr = LazyOcr::default();
            let doc = observe::find(&a11y, &selector, hidden, RefStyle::Ids, Some((&ocr, &desktop))).await?;
            out.print(&doc, |st| find_human(&doc, st))?;
        }
        Request::Screenshot { area } => {
            let path = output.ok_or_else(|| CliError::usage("-o/--output is needed: where to write the PNG"))?;
            check_output(path)?;
            let secrets = secrets(&desktop).await;
            let mut shot = observe::screenshot(&area, &desktop, &secrets)?;
            std::fs::write(path, &shot.png)
                .map_err(|e| CliError::new(Exit::Failed, format!("cannot write {}: {e}", path.display())))?;
            shot.path = Some(path.to_path_buf());
            out.print(&shot, |st| shot_human(&shot, st))?;
        }
        Request::Ocr { area, find } => {
            let secrets = secrets(&desktop).await;
            let doc = observe::ocr(&area, find.as_ref(), &LazyOcr::default(), &desktop, &secrets)?;
            out.print(&doc, |st| ocr_human(&doc, st))?;
        }
        Request::Doctor => {
            let doc = observe::doctor(&desktop).await;
            out.print(&doc, |_| doc.text())?;
            if !doc.all_ok() {
                return Ok(Exit::Environment);
            }
        }
        Request::Act { .. } | Request::Wait { .. } => {
            return Err(CliError::new(Exit::Failed, "not an observation".to_string()));
        }
    }
    Ok(Exit::Ok)
}

/// Where the password fields (and the fields `mask` names) are, to paint them over in
/// what is captured.
async fn secrets(desktop: &DesktopConfig) -> Secrets {
    match observe::accessibility(desktop).await {
        Ok(a11y) => Secrets::read(&a11y).await,
        Err(e) => Secrets::unknown(e),
    }
}

/// Check where the PNG goes before capturing.
fn check_output(path: &std::path::Path) -> Result<(), CliError> {
    if path.as_os_str().is_empty() {
        return Err(CliError::usage("-o/--output is empty; give a file name, e.g. -o screen.png"));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(CliError::usage(format!(
            "cannot write {}: the directory {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// The outline, or a word when there is nothing.
fn read_human(doc: &ReadReport) -> String {
    let mut out = doc.outline.clone();
    if doc.roots.is_empty() {
        out.push_str("(no elements)\n");
    }
    for p in &doc.problems {
        out.push_str(&format!("problem: {p}\n"));
    }
    out
}

/// `3 elements match ...`, then one line per match.
pub fn find_human(doc: &FindReport, st: &Style) -> String {
    if !doc.ocr_matches.is_empty() {
        let n = doc.ocr_matches.len();
        let mut out =
            format!("no element has the text; found on screen by OCR ({n} place{}):\n", if n == 1 { "" } else { "s" });
        for l in &doc.ocr_matches {
            let b = l.bounds;
            out.push_str(&format!("  {:?} {}\n", l.text, st.dim(&format!("[{},{} {}x{}]", b.x, b.y, b.w, b.h))));
        }
        return out;
    }
    let mut out = format!(
        "{} element{} match{} `{}`\n",
        doc.count,
        if doc.count == 1 { "" } else { "s" },
        if doc.count == 1 { "es" } else { "" },
        doc.query
    );
    let style = OutlineStyle::detailed(st.color);
    for m in &doc.matches {
        let line = deft_toolbelt::element_line(&m.element, &style, &m.reference);
        out.push_str(&format!("  index={}  {line}\n", m.index));
        out.push_str(&format!("      {} {}\n", st.dim("select with:"), m.selector));
    }
    for p in &doc.problems {
        out.push_str(&format!("{} {p}\n", st.yellow("problem:")));
    }
    out
}

/// `wrote screen.png (1280x800 at 0,0)`.
fn shot_human(s: &Shot, st: &Style) -> String {
    let path = s.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    let raised = s.note.as_ref().map(|r| format!("  {}\n", st.dim(r))).unwrap_or_default();
    format!(
        "{} wrote {path} ({}x{} at {},{}; {})\n{raised}",
        st.green("✓"),
        s.width,
        s.height,
        s.bounds.x,
        s.bounds.y,
        s.backend
    )
}

/// One line per text line: `[x,y wxh] text`.
fn ocr_human(doc: &OcrReport, st: &Style) -> String {
    let mut out = doc.note.as_ref().map(|r| format!("{}\n", st.dim(&format!("({r})")))).unwrap_or_default();
    for l in &doc.lines {
        let b = l.bounds;
        let score = l.score.map(|s| format!(" ({s:.2})")).unwrap_or_default();
        out.push_str(&format!(
            "{} {}{score}\n",
            st.dim(&format!("[{:>4},{:>4} {:>4}x{:<3}]", b.x, b.y, b.w, b.h)),
            l.text
        ));
    }
    if doc.lines.is_empty() {
        out.push_str("(no text found)\n");
    }
    out
}
