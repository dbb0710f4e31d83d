//! From parsed arguments to an exit code: settings, then the verb.

use std::collections::BTreeMap;

use clap::CommandFactory;
use deft_retry::{ALL_KINDS, Overrides, table_name};

use crate::cli::{Cli, ConfigArgs, GlobalArgs, Verb, VerifyArgs};
use crate::config::{self, Config, Format, Layer};
use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::{act, calls, observe};

/// Run the command line; the exit code says how it went.
pub fn run(cli: Cli) -> Exit {
    let env = |k: &str| std::env::var(k).ok();
    let flags = flag_layer(&cli);
    // Errors before the settings are known are printed in the format the flags ask for.
    let early = Out::new(flags.format.unwrap_or(Format::Human), flags.color.unwrap_or(config::ColorChoice::Auto));
    let config = match load_config(&cli.global, &flags, &env) {
        Ok(c) => c,
        Err(e) => {
            early.error(&e);
            return e.exit;
        }
    };
    let out = Out::new(config.format.value, config.color.value);
    match dispatch(&cli, &config, &out) {
        Ok(exit) => exit,
        Err(e) => {
            out.error(&e);
            e.exit
        }
    }
}

fn load_config(global: &GlobalArgs, flags: &Layer, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, CliError> {
    let (path, required) = config::locate(global.config.as_deref(), env);
    let text = config::read_file(path.as_deref(), required)?;
    config::resolve(path.as_deref(), text.as_deref(), env, flags)
}

/// The settings the flags give (the top layer).
fn flag_layer(cli: &Cli) -> Layer {
    let g = &cli.global;
    let mut layer = Layer {
        format: if g.json {
            Some(Format::Json)
        } else if g.yaml {
            Some(Format::Yaml)
        } else {
            None
        },
        color: g.color,
        mask_fields: (!g.mask_fields.is_empty()).then(|| g.mask_fields.clone()),
        ..Layer::default()
    };
    let verify_args = match &cli.verb {
        Verb::Click(a) => Some(&a.verify),
        Verb::Type(a) => Some(&a.verify),
        Verb::SetValue(a) => Some(&a.verify),
        Verb::Fill(a) => Some(&a.verify),
        Verb::Action(a) => Some(&a.verify),
        Verb::Key(a) => Some(&a.verify),
        Verb::Scroll(a) => Some(&a.verify),
        _ => None,
    };
    if let Some(v) = verify_args {
        apply_verify(&mut layer, v);
    }
    if let Verb::Mcp(m) = &cli.verb {
        layer.policy_file = m.policy.clone();
        layer.trace_dir = m.trace.clone();
    }
    if let Verb::Worker(w) = &cli.verb {
        layer.trace_dir = w.trace.clone();
    }
    if let Verb::Flow(f) = &cli.verb
        && let crate::flow::FlowVerb::Run(r) = &f.verb
    {
        layer.timeout_ms = r.timeout;
        layer.policy_file = r.policy.clone();
        layer.trace_dir = r.trace.clone();
    }
    if let Verb::Run(r) = &cli.verb {
        layer.trace_dir = r.trace.clone();
    }
    if let Verb::Wait(w) = &cli.verb {
        layer.timeout_ms = w.timeout;
        layer.policy_file = w.policy.clone();
        layer.trace_dir = w.trace.clone();
    }
    layer
}

fn apply_verify(layer: &mut Layer, v: &VerifyArgs) {
    layer.verify = if v.verify {
        Some(true)
    } else if v.no_verify {
        Some(false)
    } else {
        None
    };
    layer.verify_delay_ms = v.verify_delay;
    layer.max_retries = v.max_retries;
    layer.timeout_ms = v.timeout;
    layer.policy_file = v.policy.clone();
    layer.trace_dir = v.trace.clone();
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // As the MCP server's: an action's futures nest deep, and a debug build's frames
        // need more than the default 2 MiB wherever one is polled on a worker.
        .thread_stack_size(16 * 1024 * 1024)
        .enable_all()
        .build()
        .map_err(|e| CliError::environment(format!("cannot start the async runtime: {e}")))
}

fn dispatch(cli: &Cli, config: &Config, out: &Out) -> Result<Exit, CliError> {
    let act = |call: deft_toolbelt::ToolCall| runtime()?.block_on(act::act(out, config, call));
    let observe = |call: deft_toolbelt::ToolCall, output: Option<&std::path::Path>| {
        runtime()?.block_on(observe::observe_verb(out, config, call, output))
    };
    match &cli.verb {
        Verb::Click(a) => act(calls::click(a)?),
        Verb::Type(a) => act(calls::type_text(a)?),
        Verb::SetValue(a) => act(calls::set_value(a)?),
        Verb::Fill(a) => act(calls::fill(a)?),
        Verb::Action(a) => act(calls::invoke(a)?),
        Verb::Key(a) => act(calls::key(a)?),
        Verb::Scroll(a) => act(calls::scroll(a)?),
        Verb::Wait(a) => act(calls::wait(a)?),
        Verb::Read(a) => observe(calls::read(a)?, None),
        Verb::Find(a) => observe(calls::find(a)?, None),
        Verb::Screenshot(a) => observe(calls::screenshot(a), Some(&a.output)),
        Verb::Ocr(a) => observe(calls::ocr(a), None),
        Verb::Doctor => observe(deft_toolbelt::ToolCall::Doctor(deft_toolbelt::DoctorParams {}), None),
        Verb::Tools(a) => tools(out, a.tool.as_deref()),
        Verb::Mcp(_) => crate::mcp::serve(config),
        Verb::Run(a) => runtime()?.block_on(crate::run::run(out, config, a)),
        Verb::Calibrate(a) => crate::run::calibrate(out, a),
        Verb::Report(a) => crate::report::report(out, a),
        Verb::Flow(a) => crate::flow::flow(out, config, a),
        Verb::Worker(a) => crate::fleet::worker(out, config, a),
        Verb::Submit(a) => crate::fleet::submit(out, config, a),
        Verb::Fleet(a) => crate::fleet::fleet(out, a),
        Verb::Completions(a) => {
            let mut cmd = Cli::command();
            let mut buf = Vec::new();
            clap_complete::generate(a.shell, &mut cmd, "agent-cli", &mut buf);
            let mut text = String::from_utf8_lossy(&buf).into_owned();
            if a.shell == clap_complete::Shell::Bash {
                // clap_complete names a subcommand's case arm from the bin name with its
                // `-` made `__subcmd__` (`agent__subcmd__cli__subcmd__click`) but the state it
                // matches with `-` made `__` (`agent__cli__subcmd__click`): no flag of any
                // subcommand ever completed. One spelling for both.
                text = text.replace("agent__subcmd__cli", "agent__cli");
            }
            // Completions are a script, whatever --json says.
            Out { format: Format::Human, color: false }.print(&(), |_| text.clone())?;
            Ok(Exit::Ok)
        }
        Verb::Config(a) => config_verb(config, out, a),
    }
}

/// `tools`: the toolbelt's specs as they are (the one definition every face presents).
fn tools(out: &Out, only: Option<&str>) -> Result<Exit, CliError> {
    let specs = match only {
        None => deft_toolbelt::specs(),
        Some(name) => match deft_toolbelt::ToolName::parse(name) {
            Some(t) => vec![deft_toolbelt::spec(t)],
            None => {
                let names: Vec<&str> = deft_toolbelt::ToolName::ALL.iter().map(|t| t.as_str()).collect();
                return Err(CliError::usage(format!("unknown tool `{name}`; the tools are: {}", names.join(", "))));
            }
        },
    };
    out.print(&specs, |st| {
        let mut text = String::new();
        for s in &specs {
            let params = s.input_schema["properties"].as_object().map(|p| p.keys().cloned().collect::<Vec<_>>());
            text.push_str(&format!("{} — {}\n", st.bold(s.name.as_str()), s.description));
            text.push_str(&format!("  {} {}\n", st.dim("parameters:"), params.unwrap_or_default().join(", ")));
        }
        text
    })?;
    Ok(Exit::Ok)
}

fn config_verb(config: &Config, out: &Out, a: &ConfigArgs) -> Result<Exit, CliError> {
    if a.path {
        let path = config.file.path.as_ref().map(|p| p.display().to_string());
        out.print(&config.file, |_| {
            path.unwrap_or_else(|| "(no location: neither XDG_CONFIG_HOME nor HOME is set)".into())
        })?;
        return Ok(Exit::Ok);
    }
    if a.default_policy {
        let text = deft_retry::PolicySet::defaults_toml();
        match out.format {
            Format::Human => out.print(&(), |_| text.to_string())?,
            _ => {
                let doc = policies(&deft_retry::PolicySet::defaults(), Overrides::default())?;
                out.print(&doc, |_| String::new())?;
            }
        }
        return Ok(Exit::Ok);
    }
    if a.policy {
        let overrides = Overrides {
            verify_delay_ms: config.verify_delay_ms.as_ref().map(|s| s.value),
            max_retries: config.max_retries.as_ref().map(|s| s.value),
            timeout_ms: config.timeout_ms.as_ref().map(|s| s.value),
        };
        let doc = policies(&config.policies()?, overrides)?;
        let human = toml::to_string(&doc).map_err(|e| CliError::new(Exit::Failed, e.to_string()))?;
        out.print(&doc, |_| {
            format!("# The retry policies in force (built-in, policy file, then DEFT_*/config overrides).\n\n{human}")
        })?;
        return Ok(Exit::Ok);
    }
    out.print(config, |_| config.to_toml())?;
    Ok(Exit::Ok)
}

fn policies(
    set: &deft_retry::PolicySet,
    overrides: Overrides,
) -> Result<BTreeMap<&'static str, deft_retry::ActionPolicy>, CliError> {
    ALL_KINDS
        .iter()
        .map(|&k| {
            let p = set.get(k).with_overrides(k, overrides).map_err(|e| CliError::usage(e.to_string()))?;
            Ok((table_name(k), p))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::{to_json, to_yaml};

    #[test]
    fn json_outputs_are_json() {
        let doc = policies(&deft_retry::PolicySet::defaults(), Overrides::default()).unwrap();
        let json = to_json(&doc).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(v["click"]["chain"].is_array(), "{json}");
        assert!(to_yaml(&doc).unwrap().contains("click:"));
    }
}
