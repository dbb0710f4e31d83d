//! Arguments, settings, completions: no desktop needed.

use std::process::Command;

use super::{BIN, Run, isolate, run, scratch};

fn cli(args: &[&str]) -> Run {
    cli_env(args, &[])
}

fn cli_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let home = scratch("args-home");
    let mut cmd = Command::new(BIN);
    isolate(&mut cmd, &home);
    // No desktop: nothing here may need one.
    cmd.env("DISPLAY", ":9999").env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");
    cmd.args(args).envs(env.iter().copied());
    run(cmd)
}

/// Exit 2 with `needle` on stderr.
#[track_caller]
fn usage(args: &[&str], needle: &str) {
    let r = cli(args);
    r.expect_code(2);
    assert!(r.stderr.contains(needle), "{args:?}: stderr lacks {needle:?}: {r:#?}");
}

#[test]
fn bad_arguments_exit_2_with_what_was_wrong() {
    usage(&["click"], "`click` needs a target");
    usage(&["click", "--name", ""], "--name is empty");
    usage(&["click", "--bogus"], "unexpected argument '--bogus'");
    usage(&["type", "--target", "Name"], "--text <TEXT>");
    usage(&["type", "--text", ""], "nothing to type");
    usage(&["set-value", "--value", "x"], "`set-value` needs a target");
    usage(&["click", "--name", "x", "--verify-delay", "500", "--timeout", "200"], "must be shorter than the timeout");
    usage(&["click", "--name", "x", "--expect", "bogus:1"], "unknown kind 'bogus'");
    usage(&["click", "--name", "x", "--expect", "state:name=a:cheked"], "unknown state 'cheked'");
    usage(&["click", "nme=Submit"], "unknown key 'nme'");
    usage(&["click", "--at", "12"], "not X,Y");
    usage(&["key", "ctrl+nope"], "unknown key \"nope\"");
    usage(&["scroll", "--name", "Items"], "needs a direction");
    usage(&["wait"], "`wait` needs a condition");
    usage(&["wait", "text:"], "expected a text");
    usage(&["wait", "text:\"15\"", "--app", "calc"], "takes none of --app: drop it");
    usage(&["wait", "badcond:x"], "`badcond` is no kind of one");
    usage(&["find"], "`find` needs something to look for");
    usage(&["screenshot"], "--output <PATH>");
    usage(&["screenshot", "-o", "x.png", "--region", "0,0,0,5"], "more than 0");
    usage(&["screenshot", "-o", "/nonexistent/dir/x.png"], "does not exist");
    usage(&["click", "--name", "x", "--timeout", "abc"], "invalid value 'abc'");
    usage(&["completions", "tcsh"], "invalid value 'tcsh'");
}

#[test]
fn machine_errors_are_documents() {
    let r = cli(&["--json", "click"]);
    r.expect_code(2);
    let v = r.json();
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["kind"], "usage");
    assert_eq!(v["error"]["exit_code"], 2);
    let r = cli(&["click", "--yaml"]);
    r.expect_code(2);
    assert!(r.stdout.contains("kind: usage"), "{r:#?}");
}

#[test]
fn settings_from_environment_and_file() {
    let r = cli_env(&["click", "--name", "x"], &[("DEFT_TIMEOUT", "soon")]);
    r.expect_code(2);
    assert!(r.stderr.contains("DEFT_TIMEOUT=\"soon\" is not valid"), "{r:#?}");

    let dir = scratch("args-config");
    let file = dir.join("config.toml");
    std::fs::write(&file, "format = \"json\"\nverfy = true\n").unwrap();
    let r = cli(&["--config", file.to_str().unwrap(), "config"]);
    r.expect_code(2);
    assert!(r.stderr.contains(&format!("config file {}, line 2", file.display())), "{r:#?}");
    assert!(r.stderr.contains("unknown field `verfy`"), "{r:#?}");

    std::fs::write(&file, "format = \"json\"\ntimeout_ms = 4000\n").unwrap();
    let r = cli_env(&["--config", file.to_str().unwrap(), "config"], &[("DEFT_MAX_RETRIES", "1")]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["format"]["value"], "json");
    assert_eq!(v["timeout_ms"]["value"], 4000);
    assert_eq!(v["timeout_ms"]["source"]["file"], 2);
    assert_eq!(v["max_retries"]["source"]["env"], "DEFT_MAX_RETRIES");

    let r = cli(&["--config", dir.join("missing.toml").to_str().unwrap(), "config"]);
    r.expect_code(2);
    assert!(r.stderr.contains("cannot read config file"), "{r:#?}");
}

#[test]
fn config_prints_settings_and_policies() {
    let r = cli(&["config"]);
    r.expect_code(0);
    assert!(r.stdout.contains("format = \"human\"  # default"), "{r:#?}");
    assert!(r.stdout.contains("deft/config.toml (not found; it is optional)"), "{r:#?}");
    let r = cli(&["config", "--default-policy"]);
    r.expect_code(0);
    assert!(r.stdout.contains("[defaults]") && r.stdout.contains("verify_delay_ms"), "{r:#?}");
    let r = cli(&["config", "--policy", "--json"]);
    r.expect_code(0);
    assert!(r.json()["click"]["chain"].is_array(), "{r:#?}");
    let r = cli(&["config", "--path"]);
    r.expect_code(0);
    assert!(r.stdout.trim_end().ends_with("deft/config.toml"), "{r:#?}");
}

#[test]
fn completions_and_help() {
    let r = cli(&["completions", "bash"]);
    r.expect_code(0);
    assert!(r.stdout.contains("complete -F _agent__cli") && r.stdout.contains("set-value"), "{}", r.stdout);
    for shell in ["zsh", "fish"] {
        cli(&["completions", shell]).expect_code(0);
    }
    let r = cli(&["--help"]);
    r.expect_code(0);
    for needle in ["Exit codes:", "DEFT_TIMEOUT", "state:SELECTOR:STATE", "type --target \"Name\" --text \"John\""] {
        assert!(r.stdout.contains(needle), "--help lacks {needle:?}");
    }
    let r = cli(&["click", "--help"]);
    r.expect_code(0);
    assert!(r.stdout.contains("--verify-delay <MS>") && r.stdout.contains("Conditions"), "{}", r.stdout);
}

#[test]
fn no_desktop_is_an_environment_error() {
    let r = cli(&["find", "--name", "Submit"]);
    r.expect_code(7);
    assert!(r.stderr.contains("accessibility bus is not reachable"), "{r:#?}");
    let dir = scratch("args-shot");
    let r = cli(&["screenshot", "-o", dir.join("s.png").to_str().unwrap()]);
    r.expect_code(7);
    assert!(r.stderr.contains("cannot connect to the X display"), "{r:#?}");
}

#[test]
fn tools_are_the_toolbelts_specs() {
    // The schemas a face shows come from the toolbelt's one definition, unchanged.
    let r = cli(&["tools", "--json"]);
    r.expect_code(0);
    let want = serde_json::to_value(deft_toolbelt::specs()).unwrap();
    assert_eq!(r.json(), want);
    let r = cli(&["tools", "set-value", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()[0]["name"], "set_value");
    cli(&["tools", "clack"]).expect_code(2);
}

/// What bash offers after `words` (the last one being completed), with agent-cli's script.
fn bash_completes(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let line = words.join(" ");
    let code = format!(
        "source {}; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; \
         _agent__cli agent-cli '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        words.join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = Command::new("bash").args(["-c", &code]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).filter(|l| !l.is_empty()).collect()
}

#[test]
fn bash_completes_the_flags_of_a_subcommand() {
    let r = cli(&["completions", "bash"]);
    r.expect_code(0);
    let script = scratch("completions").join("agent-cli.bash");
    std::fs::write(&script, &r.stdout).unwrap();
    assert_eq!(bash_completes(&script, &["agent-cli", "cli"]), ["click"], "subcommands complete");
    assert!(bash_completes(&script, &["agent-cli", "click", "--na"]).contains(&"--name".to_string()));
    assert!(bash_completes(&script, &["agent-cli", "set-value", "--val"]).contains(&"--value".to_string()));
}

#[test]
fn a_text_may_begin_with_a_hyphen() {
    // `--text -5` once needed `--text=-5`; a value is a value.
    let r = cli(&["type", "--name", "Amount", "--text", "-5", "--json"]);
    assert_ne!(r.code, 2, "not a usage error: {r:#?}");
    let r = cli(&["set-value", "--name", "-x", "--value", "-1.5"]);
    assert_ne!(r.code, 2, "not a usage error: {r:#?}");
}

#[test]
fn a_role_no_element_can_have_is_refused_before_any_wait() {
    // It once waited 10 s for `role=push_buton` to appear.
    for args in [
        &["click", "--role", "push_buton", "--name", "Hello"][..],
        &["click", "role=push_buton name=Hello"],
        &["wait", "role:dialgo", "--timeout", "5000"],
        &["find", "--role", "chekbox"],
    ] {
        let r = cli(args);
        r.expect_code(2);
        assert!(r.stderr.contains("is not a role"), "{args:?}: {r:#?}");
    }
    let r = cli(&["click", "--role", "push_buton", "--name", "Hello"]);
    assert!(r.stderr.contains("did you mean push_button"), "{r:#?}");
}

#[test]
fn text_with_an_equals_sign_is_text_not_a_selector() {
    // "1+1=2" is what a calculator shows; it was refused as selector syntax (exit 2).
    for text in ["1+1=2", "Total = 5"] {
        let r = cli(&["click", text]);
        assert_ne!(r.code, 2, "{text}: {r:#?}");
    }
    let r = cli(&["click", "name=Hello role=push_buton"]);
    r.expect_code(2);
}
