//! What `--help` says of the configuration and the environment variables agent-cli reads.

/// The environment variables, in the order `--help` lists them.
pub const ENV_HELP: &str = "\
Configuration (each overrides the one before): built-in defaults; the config file
$XDG_CONFIG_HOME/deft/config.toml (or ~/.config/deft/config.toml; --config FILE or
DEFT_CONFIG to use another; `agent-cli config` prints the effective settings); the
environment; the flags.
Environment:
  DEFT_CONFIG        config file to read instead of the default location
  DEFT_FORMAT        human, json or yaml (--json, --yaml)
  DEFT_COLOR         auto, always or never (--color); NO_COLOR also turns colors off
  DEFT_VERIFY        1/true or 0/false (--verify, --no-verify)
  DEFT_VERIFY_DELAY  milliseconds (--verify-delay)
  DEFT_MAX_RETRIES   a count (--max-retries)
  DEFT_TIMEOUT       milliseconds (--timeout)
  DEFT_TRACE         directory for bus traces (--trace)
  DEFT_POLICY        retry policy file (--policy)
  DEFT_MASK_FIELDS   comma-separated accessible names of fields whose text is a secret
                     like a password's (--mask-field): never read, shown, traced or saved
  DEFT_MODEL_PROVIDER, DEFT_MODEL, DEFT_MODEL_BASE_URL
                     the model of `run` (over the [model] section): anthropic, openai,
                     openai-compatible or gemini; its name; the server's URL. The key comes
                     from ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or api_key_env)
  DEFT_RUNS_DIR      where `run` keeps paused runs and calibration pairs
                     (default $XDG_STATE_HOME/deft, or ~/.local/state/deft)
  DEFT_INPUT         portal: on Wayland, send input through the desktop portal's remote
                     desktop even where the compositor has a protocol Deft speaks (it is
                     used anyway where none is); the person consents once, and the
                     portal's restore token is kept in $XDG_STATE_HOME/deft";
