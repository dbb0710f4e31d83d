//! `flow record`: a person does the task and it is written down as a flow (deft-toolbelt's
//! `record_flow`: watched input on X11, steps inferred from the applications' reports on
//! Wayland); this face says how it records, shows each step as it is taken, and writes the
//! file whole.

use std::path::Path;

use crate::act::Session;
use crate::config::Config;
use crate::exit::{CliError, Exit};
use crate::flow::{FlowRecordArgs, write_whole};
use crate::output::Out;

pub async fn record(out: &Out, config: &Config, a: &FlowRecordArgs) -> Result<Exit, CliError> {
    if a.file.exists() && !a.force {
        return Err(CliError::usage(format!(
            "{} exists: give another file, or --force to replace it",
            a.file.display()
        )));
    }
    let session = Session::connect(config).await?;
    let stop_words = match &a.until {
        Some(c) => format!("Ctrl+C here or {c}"),
        None => "Ctrl+C here".to_string(),
    };
    let steps = session
        .belt()
        .record_flow(
            a.app.clone(),
            a.until.as_deref(),
            async {
                crate::mcp::stop_signal().await;
            },
            |inferred| {
                if let Some(how) = inferred {
                    eprintln!("recording: {how}");
                }
                eprintln!("recording: do the task; {stop_words} ends it");
            },
            |step| {
                eprintln!("recorded: {} {}", step.tool, serde_json::Value::Object(step.params.clone()));
                std::ops::ControlFlow::Continue(())
            },
        )
        .await;
    session.finish();
    let recording = steps?;
    let steps = recording.steps;
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| a.file.file_stem().map_or_else(|| "recorded".into(), |s| s.to_string_lossy().into_owned()));
    let text = deft_toolbelt::flow::write_flow(&name, &steps);
    write_whole(&a.file, &text)?;
    let secret = text.contains(&format!("{{{{{}}}}}", deft_toolbelt::flow::SECRET_VAR));
    let written = Recorded {
        file: &a.file,
        steps: steps.len(),
        needs_vars: secret.then_some(deft_toolbelt::flow::SECRET_VAR),
        inferred: recording.inferred,
        unseen: &recording.unseen,
    };
    out.print(&written, |st| {
        let mut s = format!("{} wrote {} steps to {}\n", st.green("✓"), steps.len(), a.file.display());
        if secret {
            s.push_str(&format!(
                "  text typed into a password field was not written: replay with --var {}=...\n",
                deft_toolbelt::flow::SECRET_VAR
            ));
        }
        if recording.inferred {
            s.push_str("  the steps were inferred from what the applications reported (Wayland): check them\n");
        }
        for u in &recording.unseen {
            s.push_str(&format!("  {} {u}: add that step by hand\n", st.yellow("?")));
        }
        s
    })?;
    Ok(Exit::Ok)
}

#[derive(serde::Serialize)]
struct Recorded<'a> {
    file: &'a Path,
    steps: usize,
    needs_vars: Option<&'a str>,
    /// Inferred from the applications' reports (Wayland), not watched input.
    inferred: bool,
    /// Changes no step explains: steps to add by hand.
    unseen: &'a [String],
}
