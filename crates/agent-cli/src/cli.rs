//! The command line: global output flags and one subcommand per verb (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;
use deft_types::{Logical, Point, Rect};

use crate::config::ColorChoice;

mod agent_args;
mod coords;
mod millis;
pub use agent_args::{AskArg, CalibrateArgs, ConfidenceArg, PolicyArgs, RunArgs};
pub use coords::{parse_point, parse_region};
pub use millis::parse_millis;

const ABOUT: &str = "Deft: desktop actions that check their own effect, for people and for other agents";

const LONG_ABOUT: &str = "\
Deft: desktop actions that check their own effect, for people and for other agents.

Every action verb sends its input through Deft's executor. With --verify (or --expect) the
executor checks that the action had its effect, retries through a fallback chain when it
silently did not (coordinate click -> accessibility press -> offset click; keystrokes ->
set-value), and reports an outcome that says what was expected and what was observed.
--json and --yaml print that outcome for programs; a terminal gets a short summary.

Targets: a selector argument in deft-a11y's syntax (`role=push_button name=\"Submit order\"`,
keys app, window, role, name, text, path, id, index; `=` exact (an app's name in any case),
`~=` contains, `/=` regex), plain text a person sees on the target (`agent-cli click \"Submit
order\"`), or the flags
--name, --role, --id, --text, --app, --window, --index. Without --app every application is
searched; more than one match is an error that lists them all (exit 4).";

const EXAMPLES: &str = "\
Examples:
  agent-cli click --text \"Submit\"                     # text a person sees (tree, else OCR)
  agent-cli click --name \"Submit order\" --verify --json
  agent-cli type --target \"Name\" --text \"John\"
  agent-cli set-value --id ':1.12|/org/a11y/atspi/accessible/42' --value hello
  agent-cli action --text \"Submit\"
  agent-cli key ctrl+s --expect 'text:\"Saved\"'
  agent-cli wait 'text:\"Save complete\"' --timeout 5000
  agent-cli wait --gone --name Loading
  agent-cli read --app \"Deft Fixture\"
  agent-cli find --role push_button
  agent-cli screenshot -o screen.png --region 0,0,640,400
  agent-cli ocr --window \"Deft Fixture\"";

/// The condition syntax (deft-a11y's, one definition), as `--expect` and `wait` take it.
fn condition_help() -> String {
    let body = deft_a11y::selector::CONDITION_HELP.trim_start_matches("Conditions:");
    format!(
        "Conditions (--expect, and the condition argument of `wait`):{body}\nSTATE is one of: {}.",
        deft_types::State::names()
    )
}

fn long_help() -> String {
    format!("{EXAMPLES}\n\n{}\n\n{}\n\n{}", condition_help(), crate::config::ENV_HELP, crate::exit::EXIT_CODES_HELP)
}

fn act_help() -> String {
    format!("{}\n\n{}", condition_help(), crate::exit::EXIT_CODES_HELP)
}

/// `agent-cli`: the command line.
#[derive(Parser, Debug)]
#[command(
    name = "agent-cli",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = crate::exit::EXIT_CODES_HELP,
    after_long_help = long_help(),
    propagate_version = true,
    arg_required_else_help = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Output and configuration flags, accepted before or after the verb.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The verb.
    #[command(subcommand)]
    pub verb: Verb,
}

/// Flags every verb accepts.
#[derive(Args, Debug, Default, Clone)]
pub struct GlobalArgs {
    /// Print the result as JSON on stdout (for programs and other agents)
    #[arg(long, global = true, conflicts_with = "yaml")]
    pub json: bool,
    /// Print the result as YAML on stdout
    #[arg(long, global = true)]
    pub yaml: bool,
    /// Color the human output: auto (on a terminal), always, never
    #[arg(long, global = true, value_name = "WHEN", value_enum)]
    pub color: Option<ColorChoice>,
    /// Read this config file instead of $XDG_CONFIG_HOME/deft/config.toml
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// A field whose text is a secret like a password's, by its accessible name (an API
    /// token, a PIN): never read, shown, traced or saved as an image. Repeat for several
    #[arg(allow_hyphen_values = true, long = "mask-field", global = true, value_name = "NAME")]
    pub mask_fields: Vec<String>,
}

/// The verbs.
#[derive(Subcommand, Debug)]
pub enum Verb {
    /// Click a target (element, text on screen, or --at X,Y)
    #[command(after_long_help = act_help())]
    Click(ClickArgs),
    /// Type text after what a target holds, or with no target at the focused element's caret
    #[command(after_long_help = act_help())]
    Type(TypeArgs),
    /// Replace a field's whole text (type inserts, fill replaces)
    #[command(after_long_help = act_help())]
    Fill(FillArgs),
    /// Set a target's value directly (accessibility), falling back to typing it
    #[command(name = "set-value", after_long_help = act_help())]
    SetValue(SetValueArgs),
    /// Invoke a named accessibility action on a target (default: click)
    #[command(after_long_help = act_help())]
    Action(ActionArgs),
    /// Press a key or chord: Return, ctrl+s, alt+F4, ctrl+shift+t
    #[command(after_long_help = act_help())]
    Key(KeyArgs),
    /// Scroll a target (or the point --at X,Y)
    #[command(after_long_help = act_help())]
    Scroll(ScrollArgs),
    /// Wait until a condition holds: wait 'text:"Saved"', wait --gone --name Loading, wait role=dialog
    #[command(after_long_help = act_help())]
    Wait(WaitArgs),
    /// Print the accessibility tree of every app, an app (--app), a window (--window) or an element's subtree
    Read(ReadArgs),
    /// List the elements that match a target (several matches are fine here)
    Find(FindArgs),
    /// Save a PNG of the screen, a window, a monitor or a region
    Screenshot(ScreenshotArgs),
    /// Recognise the text on the screen, a window or a region (lines with their boxes)
    Ocr(OcrArgs),
    /// What this desktop lets Deft do (session, input, capture, accessibility, each app), and how to fix each gap
    Doctor,
    /// List the tools (the verbs) with their parameters' JSON Schema, as agents see them
    Tools(ToolsArgs),
    /// Serve the tools over MCP on stdin/stdout, for Claude Desktop, Claude Code, Cursor and other agents
    #[command(long_about = crate::mcp::MCP_ABOUT)]
    Mcp(crate::mcp::McpArgs),
    /// Pursue a goal with a model: think, act through the verified tools, ask when unsure
    #[command(long_about = crate::run::RUN_ABOUT)]
    Run(RunArgs),
    /// Replay a flow file (a task written down as tool calls), every step verified, no model
    #[command(long_about = crate::flow::FLOW_ABOUT)]
    Flow(crate::flow::FlowArgs),
    /// Take a fleet's tasks on this desktop (a pool's flows and goals, from a NATS JetStream queue)
    #[command(long_about = crate::fleet::WORKER_ABOUT)]
    Worker(crate::fleet::WorkerArgs),
    /// Queue a flow or a goal for a pool of desktops (or run it here, with no --fleet)
    #[command(long_about = crate::fleet::SUBMIT_ABOUT)]
    Submit(crate::fleet::SubmitArgs),
    /// Show a fleet's workers and tasks, one task's record (`fleet result TASK`), or cancel one
    #[command(long_about = crate::fleet::FLEET_SHOW_ABOUT)]
    Fleet(crate::fleet::FleetShowArgs),
    /// Suggest a confidence threshold from your own runs' (confidence, outcome) pairs
    Calibrate(CalibrateArgs),
    /// Write one self-contained HTML report of a trace: steps, frames, expected and observed
    #[command(long_about = crate::report::REPORT_ABOUT)]
    Report(crate::report::ReportArgs),
    /// Print a shell completion script: agent-cli completions bash > /etc/bash_completion.d/agent-cli
    Completions(CompletionsArgs),
    /// Print the effective settings, the config file's location, or the retry policies
    Config(ConfigArgs),
}

/// Which element: a selector argument and/or flags.
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Target")]
pub struct TargetArgs {
    /// A selector (`role=push_button name="Submit order"`), or plain text a person sees on the target
    #[arg(value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// The accessible name (usually the label a person sees)
    #[arg(allow_hyphen_values = true, long, value_name = "NAME")]
    pub name: Option<String>,
    /// The role, in any spelling: push_button, "push button", check_box, text, dialog, ...
    #[arg(long, value_name = "ROLE")]
    pub role: Option<String>,
    /// An element id from an earlier `read` or `find`
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// Only this application (its name, or the title of one of its windows)
    #[arg(long, value_name = "APP")]
    pub app: Option<String>,
    /// Only the top-level window with this title
    #[arg(allow_hyphen_values = true, long, value_name = "TITLE")]
    pub window: Option<String>,
    /// Pick the Nth of several matches (0-based, in tree order)
    #[arg(long, value_name = "N")]
    pub index: Option<u32>,
    /// How --name, --text, --app and --window compare
    #[arg(long = "match", value_name = "HOW", value_enum, default_value_t)]
    pub matching: MatchMode,
}

/// The verification flags of the action verbs.
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Verification")]
pub struct VerifyArgs {
    /// Verify the effect, retrying through the fallback chain when there was none
    #[arg(long, overrides_with = "no_verify")]
    pub verify: bool,
    /// Do not verify (overrides `verify = true` in the config file or DEFT_VERIFY)
    #[arg(long, overrides_with = "verify")]
    pub no_verify: bool,
    /// Wait this long after the input before the first check, in ms or with a unit (0.2s)
    /// [default: 100]
    #[arg(long, value_name = "MS", value_parser = parse_millis)]
    pub verify_delay: Option<u64>,
    /// Retries after the first attempt; bounds the fallback chain [default: 3]
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// How long the effect may take to show (the verification window), and the longest wait
    /// for the target to appear and be actionable, in ms or with a unit (20s)
    /// [default: 3000; target: 10000]
    #[arg(long, value_name = "MS", value_parser = parse_millis)]
    pub timeout: Option<u64>,
    /// A condition the action must bring about (implies --verify); syntax below
    #[arg(allow_hyphen_values = true, long, value_name = "CONDITION")]
    pub expect: Option<String>,
    /// A retry policy file merged over the built-in policies (`agent-cli config --default-policy`)
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Record every bus event to DIR/trace-<time>.jsonl
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
}

/// `click`.
#[derive(Args, Debug, Clone)]
pub struct ClickArgs {
    /// Which element.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Text a person sees on the target: accessible name, text or value, else OCR of the screen
    #[arg(allow_hyphen_values = true, long, visible_alias = "target", value_name = "TEXT", help_heading = "Target")]
    pub text: Option<String>,
    /// Click these screen coordinates instead of an element
    #[arg(long, value_name = "X,Y", value_parser = parse_point, help_heading = "Target")]
    pub at: Option<Point<Logical>>,
    /// Which mouse button
    #[arg(long, value_enum, default_value_t = Button::Left, help_heading = "Click")]
    pub button: Button,
    /// Double-click
    #[arg(long, help_heading = "Click")]
    pub double: bool,
    /// Verification.
    #[command(flatten)]
    pub verify: VerifyArgs,
}

/// A mouse button.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Button {
    /// Primary.
    Left,
    /// Middle.
    Middle,
    /// Secondary.
    Right,
}

/// `type`.
#[derive(Args, Debug, Clone)]
pub struct TypeArgs {
    /// Which element (none: the focused one).
    #[command(flatten)]
    pub target: TargetArgs,
    /// Text a person sees on the target (e.g. the field's label)
    #[arg(allow_hyphen_values = true, long = "target", value_name = "TEXT", help_heading = "Target")]
    pub target_text: Option<String>,
    /// The text to type
    #[arg(allow_hyphen_values = true, long, value_name = "TEXT", required = true, help_heading = "Input")]
    pub text: String,
    /// Verification.
    #[command(flatten)]
    pub verify: VerifyArgs,
}

/// `fill`.
#[derive(Args, Debug, Clone)]
pub struct FillArgs {
    /// Which field.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Text a person sees on the field (e.g. its label)
    #[arg(allow_hyphen_values = true, long = "target", value_name = "TEXT", help_heading = "Target")]
    pub target_text: Option<String>,
    /// The field's whole text afterwards
    #[arg(allow_hyphen_values = true, long, value_name = "TEXT", required = true, help_heading = "Input")]
    pub text: String,
    /// Verification.
    #[command(flatten)]
    pub verify: VerifyArgs,
}

/// `set-value`.
#[derive(Args, Debug, Clone)]
pub struct SetValueArgs {
    /// Which element.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Text a person sees on the target (e.g. the field's label)
    #[arg(allow_hyphen_values = true, long, visible_alias = "target", value_name = "TEXT", help_heading = "Target")]
    pub text: Option<String>,
    /// The value to set
    #[arg(allow_hyphen_values = true, long, value_name = "VALUE", required = true, help_heading = "Input")]
    pub value: String,
    /// Verification.
    #[command(flatten)]
    pub verify: VerifyArgs,
}

/// `action`.
#[derive(Args, Debug, Clone)]
pub struct ActionArgs {
    /// Which element.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Text a person sees on the target
    #[arg(allow_hyphen_values = true, long, visible_alias = "target", value_name = "TEXT", help_heading = "Target")]
    pub text: Option<String>,
    /// The accessibility action's name (`read` lists each element's actions)
    #[arg(
        allow_hyphen_values = true,
        long = "action",
        value_name = "NAME",
        default_value = "click",
        help_heading = "Input"
    )]
    pub action: String,
    /// Verification.
    #[command(flatten)]
    pub verify: VerifyArgs,
}

/// `key`.
#[derive(Args, Debug, Clone)]
pub struct KeyArgs {
    /// The key or chord: Return, Tab, Escape, F5, ctrl+s, ctrl+shift+t, alt+F4
    #[arg(value_name = "CHORD", required = true)]
    pub chord: String,
    /// Send the keys to this application (its name, or the title of one of its windows), not to
    /// whatever has the focus: its window is activated first
    #[arg(long, value_name = "APP", help_heading = "Target")]
    pub app: Option<String>,
    /// Send the keys to the top-level window with this title, activated first
    #[arg(allow_hyphen_values = true, long, value_name = "TITLE", help_heading = "Target")]
    pub window: Option<String>,
    /// Verification.
    #[command(flatten)]
    pub verify: VerifyArgs,
}

/// `scroll`.
#[derive(Args, Debug, Clone)]
pub struct ScrollArgs {
    /// Which element.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Text a person sees on the target
    #[arg(allow_hyphen_values = true, long, visible_alias = "target", value_name = "TEXT", help_heading = "Target")]
    pub text: Option<String>,
    /// Scroll at these screen coordinates instead of an element
    #[arg(long, value_name = "X,Y", value_parser = parse_point, help_heading = "Target")]
    pub at: Option<Point<Logical>>,
    /// Scroll down this many steps
    #[arg(long, value_name = "N", conflicts_with = "up", help_heading = "Direction")]
    pub down: Option<u16>,
    /// Scroll up this many steps
    #[arg(long, value_name = "N", help_heading = "Direction")]
    pub up: Option<u16>,
    /// Scroll left this many steps
    #[arg(long, value_name = "N", conflicts_with = "right", help_heading = "Direction")]
    pub left: Option<u16>,
    /// Scroll right this many steps
    #[arg(long, value_name = "N", help_heading = "Direction")]
    pub right: Option<u16>,
    /// Verification.
    #[command(flatten)]
    pub verify: VerifyArgs,
}

/// `wait`.
#[derive(Args, Debug, Clone)]
pub struct WaitArgs {
    /// A condition (`text:"Saved"`, `gone:name=Loading`; syntax below), or a selector /
    /// flags for an element to wait for.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Wait for this text to appear (accessibility tree, else OCR of the screen)
    #[arg(allow_hyphen_values = true, long, value_name = "TEXT", help_heading = "Condition")]
    pub text: Option<String>,
    /// Wait until the element or text is gone, instead of until it appears
    #[arg(long, help_heading = "Condition")]
    pub gone: bool,
    /// Wait until the element has this state (`!STATE`: until it lacks it)
    #[arg(long, value_name = "STATE", help_heading = "Condition", conflicts_with_all = ["gone", "value"])]
    pub state: Option<String>,
    /// Wait until the element's value or text equals this
    #[arg(allow_hyphen_values = true, long, value_name = "VALUE", help_heading = "Condition", conflicts_with = "gone")]
    pub value: Option<String>,
    /// Wait for a window with this title
    #[arg(allow_hyphen_values = true, long, value_name = "TITLE", help_heading = "Condition")]
    pub title: Option<String>,
    /// Give up after this long, in ms or with a unit (20s) [default: 10000]
    #[arg(long, value_name = "MS", help_heading = "Waiting", value_parser = parse_millis)]
    pub timeout: Option<u64>,
    /// A retry policy file merged over the built-in policies
    #[arg(long, value_name = "FILE", help_heading = "Waiting")]
    pub policy: Option<PathBuf>,
    /// Record every bus event to DIR/trace-<time>.jsonl
    #[arg(long, value_name = "DIR", help_heading = "Waiting")]
    pub trace: Option<PathBuf>,
}

/// `read`.
#[derive(Args, Debug, Clone)]
pub struct ReadArgs {
    /// Which app, window or element (none: every application).
    #[command(flatten)]
    pub target: TargetArgs,
    /// Text a person sees on the element whose subtree to read
    #[arg(allow_hyphen_values = true, long, value_name = "TEXT", help_heading = "Target")]
    pub text: Option<String>,
    /// Print this many levels below the top (0: only the top)
    #[arg(long, value_name = "N", help_heading = "Reading")]
    pub depth: Option<u32>,
    /// Also read text, value and actions of elements that are not showing
    #[arg(long, help_heading = "Reading")]
    pub hidden: bool,
}

/// `find`.
#[derive(Args, Debug, Clone)]
pub struct FindArgs {
    /// What to look for.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Text a person sees on the element
    #[arg(allow_hyphen_values = true, long, visible_alias = "target", value_name = "TEXT", help_heading = "Target")]
    pub text: Option<String>,
    /// Also look at elements that are not showing
    #[arg(long, help_heading = "Reading")]
    pub hidden: bool,
}

/// What part of the screen to capture.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Area")]
pub struct AreaArgs {
    /// A rectangle of the screen in pixels: X,Y,W,H
    #[arg(long, value_name = "X,Y,W,H", value_parser = parse_region, conflicts_with_all = ["window", "monitor"])]
    pub region: Option<Rect<deft_types::Physical>>,
    /// A window, by title (a window titled exactly so wins, else the one whose title contains it)
    #[arg(allow_hyphen_values = true, long, value_name = "TITLE", conflicts_with = "monitor")]
    pub window: Option<String>,
    /// A monitor, by name (an unknown name is an error that lists the monitors)
    #[arg(allow_hyphen_values = true, long, value_name = "NAME")]
    pub monitor: Option<String>,
}

/// `screenshot`.
#[derive(Args, Debug, Clone)]
pub struct ScreenshotArgs {
    /// Where to write the PNG
    #[arg(short, long, value_name = "PATH", required = true)]
    pub output: PathBuf,
    /// What to capture (default: the whole screen).
    #[command(flatten)]
    pub area: AreaArgs,
}

/// `ocr`.
#[derive(Args, Debug, Clone)]
pub struct OcrArgs {
    /// What to read (default: the whole screen).
    #[command(flatten)]
    pub area: AreaArgs,
    /// Only lines that contain this text (fuzzy, ignoring case), best first
    #[arg(allow_hyphen_values = true, long, value_name = "TEXT")]
    pub find: Option<String>,
}

/// `tools`.
#[derive(Args, Debug, Clone)]
pub struct ToolsArgs {
    /// Only this tool (click, type, set_value, action, key, scroll, wait_for, read, find, screenshot, ocr)
    #[arg(value_name = "TOOL")]
    pub tool: Option<String>,
}

/// `completions`.
#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// `config`.
#[derive(Args, Debug, Clone)]
pub struct ConfigArgs {
    /// Print only the config file's path
    #[arg(long, conflicts_with_all = ["default_policy", "policy"])]
    pub path: bool,
    /// Print the built-in retry policies (a starting point for a policy file)
    #[arg(long, conflicts_with = "policy")]
    pub default_policy: bool,
    /// Print the retry policies in force (after the policy file and overrides)
    #[arg(long)]
    pub policy: bool,
}

/// How `--name`, `--text`, `--app` and `--window` compare.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, ValueEnum)]
pub enum MatchMode {
    /// Equal to the whole text.
    #[default]
    Exact,
    /// Contains the text, ignoring case.
    Contains,
    /// Matches the regular expression.
    Regex,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_condition_help_names_every_state() {
        let help = condition_help();
        for st in deft_types::State::ALL {
            assert!(help.contains(st.as_str()), "{st} missing from the help");
        }
    }

    #[test]
    fn desktop_cli_spellings_parse() {
        for argv in [
            &["agent-cli", "click", "--text", "Submit"][..],
            &["agent-cli", "type", "--target", "Name", "--text", "John"],
            &["agent-cli", "set-value", "--id", "42", "--value", "hello"],
            &["agent-cli", "action", "--text", "Submit"],
            &["agent-cli", "--json", "click", "--name", "A", "--verify", "--verify-delay", "50"],
            &["agent-cli", "wait", "--gone", "--name", "Loading", "--yaml"],
        ] {
            Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
        }
    }
}
