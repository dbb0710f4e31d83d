//! How a face names a tool's parameters in its messages: `--name` on the command line,
//! `name` in a tool call. Errors are worded once, here, and spelled by the face.

/// Names a parameter the way the face the request came through does.
pub trait Spelling: Send + Sync {
    /// The parameter `field` (as the params struct names it), as the user wrote it.
    fn field(&self, field: &str) -> String;

    /// The tool `name` (as its spec names it), as the user called it.
    fn tool(&self, name: &str) -> String {
        name.to_string()
    }
}

/// Tool calls (the agent's model, MCP clients): parameters by their JSON name.
#[derive(Clone, Copy, Debug, Default)]
pub struct AsParams;

impl Spelling for AsParams {
    fn field(&self, field: &str) -> String {
        format!("`{field}`")
    }
}

/// The command line: `--flag-name`, and the positional target argument.
#[derive(Clone, Copy, Debug, Default)]
pub struct AsFlags;

impl Spelling for AsFlags {
    fn field(&self, field: &str) -> String {
        match field {
            "target" => "the target argument".to_string(),
            "keys" => "the key argument".to_string(),
            "condition" => "the condition argument".to_string(),
            "match" => "--match".to_string(),
            f => format!("--{}", f.replace('_', "-")),
        }
    }

    fn tool(&self, name: &str) -> String {
        match name {
            "wait_for" => "wait".to_string(),
            n => n.replace('_', "-"),
        }
    }
}
