//! `agent-cli report TRACE [-o FILE]`: one self-contained HTML file from a trace folder
//! (every `*.jsonl` in it and the frames beside them) or one trace file: a timeline of the
//! agent's steps and the executor's actions with their durations, each with its before and
//! after frames (click point, target and changed regions drawn on them), expected and
//! observed, attempts, evidence, what blocked it; failures and retries stand out, and a
//! summary sits on top. `model` reads the traces; `html` writes the page.

mod flow;
mod html;
mod model;

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use crate::exit::{CliError, Exit};
use crate::output::Out;

/// `report --help`.
pub const REPORT_ABOUT: &str = "\
Write one self-contained HTML file (no network, no external assets: it opens from a file)
from a trace folder recorded with --trace DIR (every *.jsonl file in it and its frames/),
or from one trace file: a timeline of the agent's steps and the executor's actions with
their durations; each expands to its frames before the input and after the verdict (the
click point, the target and the changed regions drawn on them; password fields painted
over), expected and observed, the attempts with their method, result and time, the
evidence and its channel, what blocked it, and the agent's thoughts, confidence, questions
and answers; a flow run's steps with their names, expectations, ends and the person's
answers, each with the actions it made. Failures and retries stand out; a summary sits at the top (verified, received,
retried, failed, total time, model calls and tokens when an agent ran).

The page's data is an escaped JSON block read by a small embedded viewer that draws with
text only, so text an application put on screen cannot become markup in the report.";

/// `report`.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// A trace folder (as given to --trace) or one trace file (*.jsonl)
    #[arg(value_name = "TRACE_DIR_OR_FILE")]
    pub trace: PathBuf,
    /// Where to write the page [default: report.html in the folder, or FILE.html beside the file]
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// What `report --json` prints.
#[derive(Serialize)]
struct Written<'a> {
    report: &'a Path,
    bytes: u64,
    runs: usize,
    #[serde(flatten)]
    summary: &'a model::Summary,
}

/// `report`.
pub fn report(out: &Out, a: &ReportArgs) -> Result<Exit, CliError> {
    let data = model::read(&a.trace).map_err(CliError::usage)?;
    let path = a.output.clone().unwrap_or_else(|| default_output(&a.trace));
    let value = serde_json::to_value(&data).map_err(|e| CliError::new(Exit::Failed, e.to_string()))?;
    let page = html::page(&value);
    std::fs::write(&path, &page)
        .map_err(|e| CliError::usage(format!("cannot write the report to {}: {e}", path.display())))?;
    let s = &data.summary;
    let written = Written { report: &path, bytes: page.len() as u64, runs: data.runs.len(), summary: s };
    out.print(&written, |st| {
        let mut line = format!(
            "{} {} ({} actions: {} verified, {} received, {} retried, {} failed; {} frames; {:.2} MB)\n",
            st.green("report:"),
            path.display(),
            s.actions,
            s.verified,
            s.received,
            s.retried,
            s.failed,
            s.frames,
            page.len() as f64 / 1e6
        );
        if s.diagnostics > 0 {
            line.push_str(&format!(
                "  {} line(s) of the trace could not be read; the report says which\n",
                s.diagnostics
            ));
        }
        line
    })?;
    Ok(Exit::Ok)
}

fn default_output(trace: &Path) -> PathBuf {
    if trace.is_dir() { trace.join("report.html") } else { trace.with_extension("html") }
}
