//! `fleet`, `fleet result TASK` and `fleet cancel TASK`: what the fleet holds, shown with
//! secrets as their length only.

use deft_fleet::{Cancel, Queue, TaskRecord, TaskState, lease};

use super::{FleetShowArgs, FleetVerb, host};
use crate::exit::{CliError, Exit};
use crate::output::{Out, Style};

/// `fleet` and `fleet result TASK`.
pub fn fleet(out: &Out, a: &FleetShowArgs) -> Result<Exit, CliError> {
    crate::app::runtime()?.block_on(async {
        let queue = a.fleet.connect().await?;
        let env = |e: deft_fleet::FleetError| CliError::environment(e.to_string());
        match &a.verb {
            Some(FleetVerb::Result { task, trace }) => {
                let record = lease::record(&queue, task).await.map_err(env)?;
                let record =
                    record.ok_or_else(|| CliError::new(Exit::NotFound, format!("no task {task:?} in the fleet")))?;
                if let Some(dir) = trace {
                    write_traces(&queue, &record, dir).await?;
                }
                show_record(out, &record)
            }
            Some(FleetVerb::Cancel { task, why }) => {
                let user =
                    std::env::var("USER").or_else(|_| std::env::var("LOGNAME")).unwrap_or_else(|_| "someone".into());
                let by = format!("{user}@{}", host());
                match lease::cancel(&queue, task, &by, why).await.map_err(env)? {
                    Cancel::Cancelled(record) => show_record(out, &record).map(|_| Exit::Ok),
                    Cancel::Ended(record) if record.state == TaskState::Cancelled => {
                        show_record(out, &record).map(|_| Exit::Ok)
                    }
                    Cancel::Ended(record) => {
                        let state = format!("{:?}", record.state).to_lowercase();
                        Err(CliError::new(
                            Exit::Failed,
                            format!("task {task} had ended already ({state}): nothing to cancel"),
                        ))
                    }
                    Cancel::Unknown => Err(CliError::new(Exit::NotFound, format!("no task {task:?} in the fleet"))),
                }
            }
            None => {
                let workers = queue.workers().await.map_err(env)?;
                let tasks: Vec<TaskRecord> = lease::records(&queue).await.map_err(env)?.iter().map(shown).collect();
                let all = serde_json::json!({ "workers": workers, "tasks": tasks });
                out.print(&all, |st| fleet_human(&workers, &tasks, st))?;
                Ok(Exit::Ok)
            }
        }
    })
}

/// The traces `record` lists, as `dir/trace-<task>-attempt<N>.jsonl`, saying where on
/// stderr; a task with none says why there is none.
async fn write_traces(queue: &dyn Queue, record: &TaskRecord, dir: &std::path::Path) -> Result<(), CliError> {
    let id = &record.task.id;
    // It names files: only a name `submit` would have taken (a record may be written by
    // any client of the fleet).
    deft_fleet::check_name("task id", id).map_err(|e| CliError::environment(e.to_string()))?;
    if record.traces.is_empty() {
        return Err(CliError::new(
            Exit::NotFound,
            format!(
                "task {id} has no trace: a worker keeps one when its run ends (one that died, or was cancelled \
                 mid-task, kept none), and the store forgets them after a week"
            ),
        ));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::usage(format!("cannot create the trace directory {}: {e}", dir.display())))?;
    for t in &record.traces {
        let data = lease::trace(queue, &t.key).await.map_err(|e| CliError::environment(e.to_string()))?;
        let Some(data) = data else {
            eprintln!("trace of attempt {}: no longer kept (the store forgets traces after a week)", t.attempt);
            continue;
        };
        let path = dir.join(format!("trace-{id}-attempt{}.jsonl", t.attempt));
        std::fs::write(&path, data)
            .map_err(|e| CliError::environment(format!("cannot write {}: {e}", path.display())))?;
        let mut frames = 0;
        // Only frame paths: a record is written by whoever can write the fleet.
        for f in t.frames.iter().filter(|f| deft_fleet::TraceRef::is_frame_path(f)) {
            let png = lease::trace(queue, &deft_fleet::TraceRef::frame_key(f))
                .await
                .map_err(|e| CliError::environment(e.to_string()))?;
            // A trace folder's frames are `frames/<digest>.png` under it, as the report reads them.
            let file = dir.join(f);
            if let (Some(png), Some(parent)) = (png, file.parent()) {
                std::fs::create_dir_all(parent)
                    .and_then(|()| std::fs::write(&file, png))
                    .map_err(|e| CliError::environment(format!("cannot write {}: {e}", file.display())))?;
                frames += 1;
            }
        }
        eprintln!("trace of attempt {}: {} ({frames} frames)", t.attempt, path.display());
    }
    Ok(())
}

fn fleet_human(workers: &[deft_fleet::WorkerInfo], tasks: &[TaskRecord], st: &Style) -> String {
    let mut s = format!("workers ({})\n", workers.len());
    for w in workers {
        let running = w.running.as_deref().map(|t| format!(", running {t}")).unwrap_or_default();
        s.push_str(&format!(
            "  {} pool {:?}: {}; {}{running}\n",
            w.name,
            w.pool,
            w.offer.session,
            w.offer.apps.join(", ")
        ));
    }
    s.push_str(&format!("tasks ({})\n", tasks.len()));
    for t in tasks {
        let state = format!("{:?}", t.state).to_lowercase();
        let how = t.result.as_ref().map(|r| format!(": {}", r.summary)).unwrap_or_default();
        let state = if t.state == TaskState::Failed { st.red(&state) } else { state };
        s.push_str(&format!(
            "  {} pool {:?}: {state}, {} attempt(s), {} step(s) done{how}\n",
            t.task.id,
            t.task.pool,
            t.attempts.len(),
            t.done.len()
        ));
    }
    s
}

/// `record` as it may be shown: a variable whose name says it is a secret or a password
/// shows only its length (the worker types it; nobody reads it back from the fleet). A
/// secret is better given by reference, `{{secret:NAME}}`, from the worker's own
/// `DEFT_SECRET_NAME`: then it is never in the queue at all.
fn shown(record: &TaskRecord) -> TaskRecord {
    let mut record = record.clone();
    if let Some(vars) = record.task.body.get_mut("vars").and_then(|v| v.as_object_mut()) {
        for (name, value) in vars.iter_mut() {
            let lower = name.to_lowercase();
            if (lower.contains("secret") || lower.contains("password"))
                && let Some(text) = value.as_str()
            {
                *value = serde_json::Value::String(deft_trace::redact::length_only(text));
            }
        }
    }
    record
}

pub(super) fn show_record(out: &Out, record: &TaskRecord) -> Result<Exit, CliError> {
    let record = &shown(record);
    out.print(record, |st| {
        let mut s = match &record.result {
            Some(r) if r.ok => format!("{} task {}: {}\n", st.green("✓"), record.task.id, r.summary),
            Some(r) => format!("{} task {}: {}\n", st.red("✗"), record.task.id, r.summary),
            None => format!("· task {}: {}\n", record.task.id, format!("{:?}", record.state).to_lowercase()),
        };
        for a in &record.attempts {
            let ended = a.ended.as_deref().unwrap_or("running");
            s.push_str(&format!("  attempt {} by {}: {ended}\n", a.number, a.worker));
        }
        s
    })?;
    // A task still queued or running is shown, not failed: only its end has an outcome.
    Ok(match &record.result {
        Some(r) if !r.ok => Exit::Failed,
        _ => Exit::Ok,
    })
}

#[cfg(test)]
mod tests {
    use deft_fleet::{Needs, Task};

    use super::*;

    #[test]
    fn a_secret_variable_is_shown_as_its_length_only() {
        let body = serde_json::json!({ "kind": "flow", "flow": "steps: []", "vars": { "secret": "hunter2", "DB_Password": "pw", "customer": "Ada" } });
        let task =
            Task { id: "t".into(), pool: "p".into(), needs: Needs::default(), body, max_attempts: 1, submitted_ms: 0 };
        let shown = shown(&TaskRecord::queued(task));
        let text = serde_json::to_string(&shown).unwrap();
        assert!(!text.contains("hunter2") && !text.contains("\"pw\""), "{text}");
        assert_eq!(shown.task.body["vars"]["customer"], "Ada");
    }
}
