//! A flow run's own events (deft-toolbelt's `FlowEvent`: each step's name, line, call,
//! expectation and end) recorded beside the executor's trace, as `<trace>-flow.jsonl`, so
//! `agent-cli report` shows each step with the actions it made.

use std::path::{Path, PathBuf};

use deft_bus::{Bus, BusConfig, TraceRecorder};
use deft_toolbelt::flow::FlowEvent;

use crate::exit::CliError;

/// The flow's events, recorded when the run is traced; nothing otherwise.
pub struct FlowTrace {
    bus: Option<(Bus<FlowEvent>, TraceRecorder)>,
}

impl FlowTrace {
    /// Recording beside `executor_trace` (the executor's trace file, of `executor`'s
    /// events), when there is one, on the executor's bus's clock (so each operation falls in
    /// the step that made it, to the microsecond).
    pub fn start<E: Send + Sync + 'static>(
        executor: Option<&Bus<E>>,
        executor_trace: Option<&Path>,
    ) -> Result<FlowTrace, CliError> {
        let (Some(executor), Some(path)) = (executor, executor_trace) else { return Ok(FlowTrace { bus: None }) };
        let bus = Bus::on_the_clock_of(executor, BusConfig::default());
        let recorder = TraceRecorder::start(&bus, beside(path)).map_err(|e| CliError::environment(e.to_string()))?;
        Ok(FlowTrace { bus: Some((bus, recorder)) })
    }

    /// Records `event`.
    pub fn say(&self, event: FlowEvent) {
        if let Some((bus, _)) = &self.bus {
            bus.publish("flow", event);
        }
    }

    /// Flushes the file.
    pub fn finish(self) {
        if let Some((_, recorder)) = self.bus
            && let Err(e) = recorder.finish()
        {
            eprintln!("trace: recording the flow's steps failed: {e}");
        }
    }
}

/// `DIR/trace-T-P.jsonl` → `DIR/trace-T-P-flow.jsonl` (the report reads them as one run).
fn beside(executor_trace: &Path) -> PathBuf {
    let stem = executor_trace.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    executor_trace.with_file_name(format!("{stem}-flow.jsonl"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_flow_s_file_is_named_after_the_executor_s() {
        let p = super::beside(std::path::Path::new("/t/trace-20261129T190000Z-42.jsonl"));
        assert_eq!(p, std::path::Path::new("/t/trace-20261129T190000Z-42-flow.jsonl"));
    }
}
