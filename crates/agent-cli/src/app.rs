//! From parsed arguments to an exit code: settings, then the verb.

use std::collections::BTreeMap;

use clap::CommandFactory;
use deft_retry::{ALL_KINDS, Overrides, table_name};

use crate::act;
use crate::actions::{self, Planned};
use crate::cli::{Cli, ConfigArgs, GlobalArgs, TargetArgs, Verb, VerifyArgs};
use crate::config::{self, Config, Format, Layer};
use crate::exit::{CliError, Exit};
use crate::expect;
use crate::observe;
use crate::output::Out;
use crate::screen;
use crate::selector::{self, TargetSpec};

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
        ..Layer::default()
    };
    let verify_args = match &cli.verb {
        Verb::Click(a) => Some(&a.verify),
        Verb::Type(a) => Some(&a.verify),
        Verb::SetValue(a) => Some(&a.verify),
        Verb::Action(a) => Some(&a.verify),
        Verb::Key(a) => Some(&a.verify),
        Verb::Scroll(a) => Some(&a.verify),
        _ => None,
    };
    if let Some(v) = verify_args {
        apply_verify(&mut layer, v);
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

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::environment(format!("cannot start the async runtime: {e}")))
}

fn dispatch(cli: &Cli, config: &Config, out: &Out) -> Result<Exit, CliError> {
    match &cli.verb {
        Verb::Click(a) => action(config, out, actions::click(a)?, &a.verify),
        Verb::Type(a) => action(config, out, actions::type_text(a)?, &a.verify),
        Verb::SetValue(a) => action(config, out, actions::set_value(a)?, &a.verify),
        Verb::Action(a) => action(config, out, actions::invoke(a)?, &a.verify),
        Verb::Key(a) => action(config, out, actions::key(a)?, &a.verify),
        Verb::Scroll(a) => action(config, out, actions::scroll(a)?, &a.verify),
        Verb::Wait(a) => {
            let condition = actions::wait_condition(a)?;
            runtime()?.block_on(act::wait(out, config, condition))
        }
        Verb::Read(a) => {
            let sel = observe_selector(&a.target, a.text.as_deref(), "read")?;
            let doc = runtime()?.block_on(async {
                let a11y = crate::desktop::connect().await?;
                observe::read(&a11y, sel, a.depth, a.hidden).await
            })?;
            out.print(&doc, |st| observe::tree_human(&doc, st))?;
            Ok(Exit::Ok)
        }
        Verb::Find(a) => {
            let sel = observe_selector(&a.target, a.text.as_deref(), "find")?;
            if sel.is_empty() {
                return Err(CliError::usage(
                    "`find` needs something to look for: a selector, or --name, --role, --text, --id, --app or \
                     --window (`agent-cli read` prints everything)",
                ));
            }
            let found = runtime()?.block_on(async {
                let a11y = crate::desktop::connect().await?;
                observe::find(&a11y, sel.clone(), a.hidden).await
            });
            let doc = match found {
                Ok(doc) => doc,
                // Text no element has may still be on screen.
                Err(e) if observe::is_not_found(&e) && observe::text_only(&sel).is_some() => {
                    let text = observe::text_only(&sel).cloned();
                    match screen::ocr(&crate::cli::AreaArgs::default(), text.as_ref()) {
                        Ok(ocr) => observe::FindDoc {
                            query: deft_a11y::selector::format(&sel),
                            count: 0,
                            matches: Vec::new(),
                            problems: Vec::new(),
                            ocr_matches: ocr.lines,
                        },
                        Err(_) => return Err(e),
                    }
                }
                Err(e) => return Err(e),
            };
            out.print(&doc, |st| observe::find_human(&doc, st))?;
            Ok(Exit::Ok)
        }
        Verb::Screenshot(a) => {
            let shot = screen::screenshot(&a.output, &a.area)?;
            out.print(&shot, |st| screen::shot_human(&shot, st))?;
            Ok(Exit::Ok)
        }
        Verb::Ocr(a) => {
            let find = a.find.as_ref().map(|f| deft_types::TextMatch::Contains(f.clone()));
            let doc = screen::ocr(&a.area, find.as_ref())?;
            out.print(&doc, |st| screen::ocr_human(&doc, st))?;
            Ok(Exit::Ok)
        }
        Verb::Completions(a) => {
            let mut cmd = Cli::command();
            let mut buf = Vec::new();
            clap_complete::generate(a.shell, &mut cmd, "agent-cli", &mut buf);
            let text = String::from_utf8_lossy(&buf);
            // Completions are a script, whatever --json says.
            Out { format: Format::Human, color: false }.print(&(), |_| text.into_owned())?;
            Ok(Exit::Ok)
        }
        Verb::Config(a) => config_verb(config, out, a),
    }
}

fn action(config: &Config, out: &Out, planned: Planned, v: &VerifyArgs) -> Result<Exit, CliError> {
    let expect = v
        .expect
        .as_deref()
        .map(|e| expect::parse(e).map_err(|m| CliError::usage(format!("--expect: {m}\n\n{}", expect::EXPECT_HELP))))
        .transpose()?;
    if expect.is_some() && v.no_verify {
        return Err(CliError::usage("--expect is checked by verification, so it cannot be combined with --no-verify"));
    }
    runtime()?.block_on(act::act(out, config, planned, expect))
}

fn observe_selector(t: &TargetArgs, text: Option<&str>, verb: &str) -> Result<deft_types::Selector, CliError> {
    let spec = TargetSpec {
        selector: t.selector.as_deref(),
        name: t.name.as_deref(),
        role: t.role.as_deref(),
        id: t.id.as_deref(),
        app: t.app.as_deref(),
        window: t.window.as_deref(),
        index: t.index,
        text: text.map(|t| (t, "--text")),
        at: None,
        matching: t.matching,
    };
    let target = selector::build(&spec).map_err(CliError::usage)?;
    observe::as_selector(target, verb)
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
