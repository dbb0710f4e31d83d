//! `cargo xtask evidence [--check]`: the evidence matrix (`docs/EVIDENCE.md`) from the fault
//! campaigns the last test run recorded (`deft_harness::evidence`); `--check` (run by
//! `cargo xtask ci` after its tests) fails when the file does not say what they judged.

use anyhow::{Context, bail};

const DOC: &str = "docs/EVIDENCE.md";

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let check = match args {
        [] => false,
        [a] if a == "--check" => true,
        other => bail!("`cargo xtask evidence` takes only --check, got {other:?}"),
    };
    let dir = deft_harness::evidence::dir();
    let all = deft_harness::evidence::read_all(&dir).map_err(anyhow::Error::msg)?;
    if all.is_empty() {
        bail!(
            "no campaign results in {}: run the campaigns first (cargo test -p deft-desktop --test tests every_fault_once)",
            dir.display()
        );
    }
    let matrix = deft_harness::evidence::matrix(&all);
    let doc = deft_harness::workspace_root().join(DOC);
    if check {
        let written = std::fs::read_to_string(&doc).unwrap_or_default();
        if written != matrix {
            println!("{matrix}");
            bail!(
                "{DOC} does not say what this run's campaigns judged (above): run `cargo xtask evidence` and commit it"
            );
        }
        println!("{DOC} says what this run's campaigns judged ({} session and port runs)", all.len());
        return Ok(());
    }
    std::fs::write(&doc, &matrix).with_context(|| format!("writing {}", doc.display()))?;
    println!("{matrix}\nwrote {DOC} from {} session and port runs in {}", all.len(), dir.display());
    Ok(())
}
