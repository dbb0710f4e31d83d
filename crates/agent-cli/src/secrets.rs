//! The secrets `{{secret:NAME}}` references name, from the environment: `DEFT_SECRET_NAME`.
//! Commands, goals, prompts and traces carry only the reference; the toolbelt fills the
//! value in at the last step, into a password field only.

use deft_toolbelt::SecretValues;

/// The prefix of the environment variables that give secrets.
pub const ENV_PREFIX: &str = "DEFT_SECRET_";

/// Every `DEFT_SECRET_*` variable of this process, by the name after the prefix.
pub fn from_env() -> SecretValues {
    SecretValues::new(
        std::env::vars().filter_map(|(k, v)| k.strip_prefix(ENV_PREFIX).map(|name| (name.to_string(), v))),
    )
}
