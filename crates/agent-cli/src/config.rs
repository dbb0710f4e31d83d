//! Settings from four layers, each overriding the one before: built-in defaults, the
//! config file (`$XDG_CONFIG_HOME/deft/config.toml`), `DEFT_*` environment variables, and
//! command-line flags. Resolution is a pure function of the layers, so it is tested
//! without touching the process environment.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use deft_retry::PolicySet;
use serde::{Deserialize, Serialize};

use crate::exit::CliError;

/// Output format.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A short summary for people (colored on a terminal).
    Human,
    /// JSON, one document on stdout.
    Json,
    /// YAML, one document on stdout.
    Yaml,
}

/// When to color human output.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// One layer of settings: each is optional, and a later layer's value wins.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    /// `human`, `json` or `yaml`.
    pub format: Option<Format>,
    /// `auto`, `always` or `never`.
    pub color: Option<ColorChoice>,
    /// Verify actions (`--verify`).
    pub verify: Option<bool>,
    /// `--verify-delay`.
    pub verify_delay_ms: Option<u64>,
    /// `--max-retries`.
    pub max_retries: Option<u32>,
    /// `--timeout`.
    pub timeout_ms: Option<u64>,
    /// `--trace`: record the bus into this directory.
    pub trace_dir: Option<PathBuf>,
    /// `--policy`: a retry policy file merged over the built-in policies.
    pub policy_file: Option<PathBuf>,
    /// Accessible names of fields whose text is a secret like a password's (`--mask-field`).
    pub mask_fields: Option<Vec<String>>,
    /// `[model]`: the model `run` uses (deft-llm's `ProviderConfig`; DEFT_MODEL_* override it).
    #[serde(default)]
    pub model: Option<crate::run::ModelSection>,
    /// `[agent]`: budgets, confidence, policy of `run` (deft-agent's `AgentConfig`).
    #[serde(default)]
    pub agent: Option<crate::run::AgentSection>,
}

/// Where a value came from.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Built in.
    Default,
    /// The config file (line number).
    File(usize),
    /// An environment variable.
    Env(&'static str),
    /// A command-line flag.
    Flag(&'static str),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(line) => write!(f, "config file, line {line}"),
            Source::Env(var) => write!(f, "environment {var}"),
            Source::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// A setting with its origin.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

/// The config file that was looked for.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct ConfigFile {
    /// Its path (`None` when no location could be determined: no HOME nor XDG_CONFIG_HOME).
    pub path: Option<PathBuf>,
    /// Whether it exists and was read.
    pub found: bool,
}

/// The settings in force.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Config {
    /// The config file.
    pub file: ConfigFile,
    /// Output format.
    pub format: Sourced<Format>,
    /// Colors.
    pub color: Sourced<ColorChoice>,
    /// Verify actions.
    pub verify: Sourced<bool>,
    /// Overrides the policies' `verify_delay_ms`.
    pub verify_delay_ms: Option<Sourced<u64>>,
    /// Overrides the policies' `max_retries`.
    pub max_retries: Option<Sourced<u32>>,
    /// Overrides the policies' `window_ms` (the timeout of `wait`).
    pub timeout_ms: Option<Sourced<u64>>,
    /// Where to record traces.
    pub trace_dir: Option<Sourced<PathBuf>>,
    /// The retry policy file.
    pub policy_file: Option<Sourced<PathBuf>>,
    /// Fields whose text is masked like a password's, by accessible name.
    pub mask_fields: Option<Sourced<Vec<String>>>,
    /// The `[model]` section of the config file, if any.
    pub model: Option<crate::run::ModelSection>,
    /// The `[agent]` section of the config file, if any.
    pub agent: Option<crate::run::AgentSection>,
}

pub use crate::env_help::ENV_HELP;

/// Where the config file is: `--config`, else `DEFT_CONFIG`, else the XDG location.
/// The flag and variable name a file that must exist; the XDG one is optional.
pub fn locate(flag: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> (Option<PathBuf>, bool) {
    if let Some(p) = flag {
        return (Some(p.to_path_buf()), true);
    }
    if let Some(p) = env("DEFT_CONFIG").filter(|p| !p.is_empty()) {
        return (Some(PathBuf::from(p)), true);
    }
    let base = env("XDG_CONFIG_HOME")
        .filter(|p| Path::new(p).is_absolute())
        .map(PathBuf::from)
        .or_else(|| env("HOME").filter(|h| !h.is_empty()).map(|h| Path::new(&h).join(".config")));
    (base.map(|b| b.join("deft").join("config.toml")), false)
}

/// Read the config file: `Ok(None)` when the optional default file does not exist.
pub fn read_file(path: Option<&Path>, required: bool) -> Result<Option<String>, CliError> {
    let Some(path) = path else { return Ok(None) };
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(None),
        Err(e) => Err(CliError::usage(format!(
            "cannot read config file {}: {e}{}",
            path.display(),
            if required { "; check the path given with --config or DEFT_CONFIG" } else { "" }
        ))),
    }
}

/// Resolve the four layers. `file` is the config file's path and text when one was read.
pub fn resolve(
    file_path: Option<&Path>,
    file_text: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    flags: &Layer,
) -> Result<Config, CliError> {
    let (file, lines) = match file_text {
        Some(text) => parse_file(file_path.unwrap_or(Path::new("config.toml")), text)?,
        None => (Layer::default(), Lines::default()),
    };
    let env_layer = env_layer(env)?;
    let dir = file_path.and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default();
    let relative_to_file = |p: PathBuf| if p.is_relative() { dir.join(p) } else { p };

    // One field at a time: flag, then environment, then file, then default.
    macro_rules! pick {
        ($field:ident, $env:expr, $flag:expr) => {
            flags
                .$field
                .clone()
                .map(|value| Sourced { value, source: Source::Flag($flag) })
                .or_else(|| env_layer.$field.clone().map(|value| Sourced { value, source: Source::Env($env) }))
                .or_else(|| file.$field.clone().map(|value| Sourced { value, source: Source::File(lines.$field) }))
        };
    }
    let no_color = env("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = pick!(color, "DEFT_COLOR", "--color").unwrap_or(if no_color {
        Sourced { value: ColorChoice::Never, source: Source::Env("NO_COLOR") }
    } else {
        Sourced { value: ColorChoice::Auto, source: Source::Default }
    });
    let mut trace_dir = pick!(trace_dir, "DEFT_TRACE", "--trace");
    let mut policy_file = pick!(policy_file, "DEFT_POLICY", "--policy");
    for p in [&mut trace_dir, &mut policy_file].into_iter().flatten() {
        if let Source::File(_) = p.source {
            p.value = relative_to_file(p.value.clone());
        }
    }
    let config = Config {
        file: ConfigFile { path: file_path.map(Path::to_path_buf), found: file_text.is_some() },
        format: pick!(format, "DEFT_FORMAT", "--json/--yaml")
            .unwrap_or(Sourced { value: Format::Human, source: Source::Default }),
        color,
        verify: pick!(verify, "DEFT_VERIFY", "--verify/--no-verify")
            .unwrap_or(Sourced { value: false, source: Source::Default }),
        verify_delay_ms: pick!(verify_delay_ms, "DEFT_VERIFY_DELAY", "--verify-delay"),
        max_retries: pick!(max_retries, "DEFT_MAX_RETRIES", "--max-retries"),
        timeout_ms: pick!(timeout_ms, "DEFT_TIMEOUT", "--timeout"),
        trace_dir,
        policy_file,
        mask_fields: pick!(mask_fields, "DEFT_MASK_FIELDS", "--mask-field"),
        model: file.model.clone(),
        agent: file.agent.clone(),
    };
    if let (Some(d), Some(t)) = (&config.verify_delay_ms, &config.timeout_ms)
        && d.value >= t.value
    {
        return Err(CliError::usage(format!(
            "the verify delay ({} ms, from {}) must be shorter than the timeout ({} ms, from {}): \
             the effect is looked for between the two; lower --verify-delay or raise --timeout",
            d.value, d.source, t.value, t.source
        )));
    }
    if config.timeout_ms.as_ref().is_some_and(|t| t.value == 0) {
        return Err(CliError::usage("the timeout must be more than 0 ms"));
    }
    Ok(config)
}

impl Config {
    /// The accessible names of the fields masked like passwords (none when unset).
    pub fn mask_fields(&self) -> Vec<String> {
        self.mask_fields.as_ref().map(|s| s.value.clone()).unwrap_or_default()
    }

    /// The retry policies: the built-in ones, or the policy file merged over them.
    pub fn policies(&self) -> Result<PolicySet, CliError> {
        let Some(file) = &self.policy_file else { return Ok(PolicySet::defaults()) };
        let path = &file.value;
        let text = std::fs::read_to_string(path).map_err(|e| {
            CliError::usage(format!("cannot read the retry policy file {} (from {}): {e}", path.display(), file.source))
        })?;
        PolicySet::from_toml_str(&text).map_err(|e| CliError::usage(format!("{}: {e}", path.display())))
    }

    /// The effective settings as a commented TOML file (what `agent-cli config` prints).
    pub fn to_toml(&self) -> String {
        let mut out =
            String::from("# agent-cli effective settings: defaults < config file < DEFT_* environment < flags.\n");
        match (&self.file.path, self.file.found) {
            (Some(p), true) => writeln!(out, "# Config file: {} (read)", p.display()),
            (Some(p), false) => writeln!(out, "# Config file: {} (not found; it is optional)", p.display()),
            (None, _) => writeln!(out, "# Config file: none (neither XDG_CONFIG_HOME nor HOME is set)"),
        }
        .ok();
        out.push('\n');
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        let some = |v: String, s: &Source| Some((v, s.clone()));
        let rows: [Row<'_>; 9] = [
            ("format", some(q(format_name(self.format.value)), &self.format.source), ""),
            ("color", some(q(color_name(self.color.value)), &self.color.source), ""),
            ("verify", some(self.verify.value.to_string(), &self.verify.source), ""),
            (
                "verify_delay_ms",
                self.verify_delay_ms.as_ref().and_then(|s| some(s.value.to_string(), &s.source)),
                "each action uses its retry policy's (100 ms built in)",
            ),
            (
                "max_retries",
                self.max_retries.as_ref().and_then(|s| some(s.value.to_string(), &s.source)),
                "each action uses its retry policy's (3 built in)",
            ),
            (
                "timeout_ms",
                self.timeout_ms.as_ref().and_then(|s| some(s.value.to_string(), &s.source)),
                "each action uses its retry policy's window_ms (3000 ms built in; wait: 10000 ms)",
            ),
            (
                "trace_dir",
                self.trace_dir.as_ref().and_then(|s| some(q(&s.value.display().to_string()), &s.source)),
                "no trace is recorded",
            ),
            (
                "policy_file",
                self.policy_file.as_ref().and_then(|s| some(q(&s.value.display().to_string()), &s.source)),
                "the built-in retry policies (`agent-cli config --default-policy` prints them)",
            ),
            (
                "mask_fields",
                self.mask_fields.as_ref().and_then(|s| {
                    let names: Vec<String> = s.value.iter().map(|n| q(n)).collect();
                    some(format!("[{}]", names.join(", ")), &s.source)
                }),
                "only password fields are masked",
            ),
        ];
        for (key, value, unset) in rows {
            match value {
                Some((v, source)) => writeln!(out, "{key} = {v}  # {source}"),
                None => writeln!(out, "# {key} is not set: {unset}"),
            }
            .ok();
        }
        out
    }
}

/// One line of the printed settings: key, value with its source (when set), why unset.
type Row<'a> = (&'a str, Option<(String, Source)>, &'a str);

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Human => "human",
        Format::Json => "json",
        Format::Yaml => "yaml",
    }
}

fn color_name(c: ColorChoice) -> &'static str {
    match c {
        ColorChoice::Auto => "auto",
        ColorChoice::Always => "always",
        ColorChoice::Never => "never",
    }
}

/// The line of each key in the config file (1 when unknown).
#[derive(Default)]
struct Lines {
    format: usize,
    color: usize,
    verify: usize,
    verify_delay_ms: usize,
    max_retries: usize,
    timeout_ms: usize,
    trace_dir: usize,
    policy_file: usize,
    mask_fields: usize,
}

fn parse_file(path: &Path, text: &str) -> Result<(Layer, Lines), CliError> {
    let layer: Layer = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(String::new(), |s| format!(", line {}", line_of(text, s.start)));
        CliError::usage(format!(
            "config file {}{line}: {}; see `agent-cli config` for the keys and `agent-cli --help` for their meaning",
            path.display(),
            e.message().trim_end()
        ))
    })?;
    let find = |key: &str| {
        text.lines()
            .position(|l| {
                let l = l.trim_start();
                l.strip_prefix(key).is_some_and(|r| r.trim_start().starts_with('='))
            })
            .map_or(1, |i| i + 1)
    };
    let lines = Lines {
        format: find("format"),
        color: find("color"),
        verify: find("verify"),
        verify_delay_ms: find("verify_delay_ms"),
        max_retries: find("max_retries"),
        timeout_ms: find("timeout_ms"),
        trace_dir: find("trace_dir"),
        policy_file: find("policy_file"),
        mask_fields: find("mask_fields"),
    };
    Ok((layer, lines))
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn env_layer(env: &dyn Fn(&str) -> Option<String>) -> Result<Layer, CliError> {
    fn get<T>(
        env: &dyn Fn(&str) -> Option<String>,
        var: &str,
        what: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, CliError> {
        match env(var) {
            None => Ok(None),
            Some(v) if v.trim().is_empty() => Ok(None),
            Some(v) => parse(v.trim()).map(Some).ok_or_else(|| {
                CliError::usage(format!("environment variable {var}={v:?} is not valid: expected {what}"))
            }),
        }
    }
    Ok(Layer {
        format: get(env, "DEFT_FORMAT", "human, json or yaml", |v| Format::from_str(v, true).ok())?,
        color: get(env, "DEFT_COLOR", "auto, always or never", |v| ColorChoice::from_str(v, true).ok())?,
        verify: get(env, "DEFT_VERIFY", "1, true, yes, 0, false or no", |v| match v.to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Some(true),
            "0" | "false" | "no" | "off" => Some(false),
            _ => None,
        })?,
        verify_delay_ms: get(env, "DEFT_VERIFY_DELAY", "a number of milliseconds", |v| v.parse().ok())?,
        max_retries: get(env, "DEFT_MAX_RETRIES", "a count (0 or more)", |v| v.parse().ok())?,
        timeout_ms: get(env, "DEFT_TIMEOUT", "a number of milliseconds", |v| v.parse().ok())?,
        trace_dir: get(env, "DEFT_TRACE", "a directory", |v| Some(PathBuf::from(v)))?,
        policy_file: get(env, "DEFT_POLICY", "a file", |v| Some(PathBuf::from(v)))?,
        mask_fields: get(env, "DEFT_MASK_FIELDS", "comma-separated field names", |v| {
            Some(v.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect())
        })?,
        // The model's variables (DEFT_MODEL_*) are read by `run`, over the [model] section.
        model: None,
        agent: None,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Resolve from a config file text, `VAR=value` pairs and a flag layer; compare the
    /// fields that are set in `expected` (as `key=value (source)` lines).
    fn check(file: Option<&str>, env: &[(&str, &str)], flags: Layer, expected: &str) {
        let env: HashMap<String, String> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let lookup = |k: &str| env.get(k).cloned();
        let path = Path::new("/etc/deft/config.toml");
        let c = resolve(Some(path), file, &lookup, &flags).unwrap();
        let mut got = vec![
            format!("format={} ({})", format_name(c.format.value), c.format.source),
            format!("color={} ({})", color_name(c.color.value), c.color.source),
            format!("verify={} ({})", c.verify.value, c.verify.source),
        ];
        let opt = |k: &str, v: Option<(String, &Source)>| match v {
            Some((v, s)) => format!("{k}={v} ({s})"),
            None => format!("{k}=unset"),
        };
        got.push(opt("verify_delay_ms", c.verify_delay_ms.as_ref().map(|s| (s.value.to_string(), &s.source))));
        got.push(opt("max_retries", c.max_retries.as_ref().map(|s| (s.value.to_string(), &s.source))));
        got.push(opt("timeout_ms", c.timeout_ms.as_ref().map(|s| (s.value.to_string(), &s.source))));
        got.push(opt("trace_dir", c.trace_dir.as_ref().map(|s| (s.value.display().to_string(), &s.source))));
        got.push(opt("policy_file", c.policy_file.as_ref().map(|s| (s.value.display().to_string(), &s.source))));
        let got = got.join("\n");
        for want in expected.lines().map(str::trim).filter(|l| !l.is_empty()) {
            assert!(got.lines().any(|g| g == want), "want {want:?} in\n{got}");
        }
    }

    fn check_err(file: Option<&str>, env: &[(&str, &str)], flags: Layer, needle: &str) {
        let env: HashMap<String, String> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let lookup = |k: &str| env.get(k).cloned();
        let e = resolve(Some(Path::new("/etc/deft/config.toml")), file, &lookup, &flags).unwrap_err();
        assert_eq!(e.exit, crate::exit::Exit::Usage);
        assert!(e.message.contains(needle), "{:?} lacks {needle:?}", e.message);
    }

    #[test]
    fn defaults() {
        check(
            None,
            &[],
            Layer::default(),
            "format=human (default)
             color=auto (default)
             verify=false (default)
             verify_delay_ms=unset
             timeout_ms=unset
             trace_dir=unset",
        );
    }

    #[test]
    fn each_layer_overrides_the_one_before() {
        let file = "format = \"yaml\"\nverify = true\n\ntimeout_ms = 5000\nmax_retries = 1\ntrace_dir = \"traces\"\n";
        check(
            Some(file),
            &[],
            Layer::default(),
            "format=yaml (config file, line 1)
             verify=true (config file, line 2)
             timeout_ms=5000 (config file, line 4)
             max_retries=1 (config file, line 5)
             trace_dir=/etc/deft/traces (config file, line 6)",
        );
        check(
            Some(file),
            &[("DEFT_FORMAT", "json"), ("DEFT_TIMEOUT", "7000"), ("DEFT_VERIFY", "0"), ("DEFT_TRACE", "/tmp/t")],
            Layer::default(),
            "format=json (environment DEFT_FORMAT)
             verify=false (environment DEFT_VERIFY)
             timeout_ms=7000 (environment DEFT_TIMEOUT)
             max_retries=1 (config file, line 5)
             trace_dir=/tmp/t (environment DEFT_TRACE)",
        );
        check(
            Some(file),
            &[("DEFT_FORMAT", "json"), ("DEFT_TIMEOUT", "7000")],
            Layer { format: Some(Format::Human), timeout_ms: Some(900), max_retries: Some(0), ..Layer::default() },
            "format=human (flag --json/--yaml)
             timeout_ms=900 (flag --timeout)
             max_retries=0 (flag --max-retries)
             verify=true (config file, line 2)",
        );
    }

    #[test]
    fn no_color_and_deft_color() {
        check(None, &[("NO_COLOR", "1")], Layer::default(), "color=never (environment NO_COLOR)");
        check(None, &[("NO_COLOR", "")], Layer::default(), "color=auto (default)");
        check(
            None,
            &[("NO_COLOR", "1"), ("DEFT_COLOR", "always")],
            Layer::default(),
            "color=always (environment DEFT_COLOR)",
        );
    }

    #[test]
    fn bad_values_name_their_place() {
        check_err(Some("format = \"xml\"\n"), &[], Layer::default(), "config file /etc/deft/config.toml, line 1");
        check_err(Some("verbose = true\n"), &[], Layer::default(), "unknown field `verbose`");
        check_err(Some("\n\ntimeout_ms = \"5s\"\n"), &[], Layer::default(), ", line 3: ");
        check_err(Some("timeout_ms = 5\n[x\n"), &[], Layer::default(), ", line 2: ");
        check_err(None, &[("DEFT_TIMEOUT", "5s")], Layer::default(), "DEFT_TIMEOUT=\"5s\" is not valid");
        check_err(None, &[("DEFT_FORMAT", "xml")], Layer::default(), "expected human, json or yaml");
        check_err(None, &[("DEFT_VERIFY", "maybe")], Layer::default(), "DEFT_VERIFY");
        check_err(
            None,
            &[("DEFT_TIMEOUT", "200")],
            Layer { verify_delay_ms: Some(300), ..Layer::default() },
            "the verify delay (300 ms, from flag --verify-delay) must be shorter than the timeout (200 ms, from environment DEFT_TIMEOUT)",
        );
        check_err(None, &[], Layer { timeout_ms: Some(0), ..Layer::default() }, "more than 0");
    }

    #[test]
    fn xdg_location() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(
            locate(None, &env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            (Some(PathBuf::from("/x/deft/config.toml")), false)
        );
        // A relative XDG_CONFIG_HOME is invalid per the spec and ignored.
        assert_eq!(
            locate(None, &env(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/h")])),
            (Some(PathBuf::from("/h/.config/deft/config.toml")), false)
        );
        assert_eq!(locate(None, &env(&[("DEFT_CONFIG", "/c.toml")])), (Some(PathBuf::from("/c.toml")), true));
        assert_eq!(locate(Some(Path::new("f.toml")), &env(&[])), (Some(PathBuf::from("f.toml")), true));
        assert_eq!(locate(None, &env(&[])), (None, false));
    }

    #[test]
    fn printed_config_reads_back() {
        let lookup = |_: &str| None;
        let c = resolve(None, None, &lookup, &Layer { verify: Some(true), timeout_ms: Some(4000), ..Layer::default() })
            .unwrap();
        let text = c.to_toml();
        assert!(text.contains("verify = true  # flag --verify/--no-verify"), "{text}");
        assert!(text.contains("# verify_delay_ms is not set"), "{text}");
        let back: Layer = toml::from_str(&text).unwrap();
        assert_eq!(back.timeout_ms, Some(4000));
        assert_eq!(back.format, Some(Format::Human));
    }
}
