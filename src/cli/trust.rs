//! `forge trust`: let a project's `.forge/config.toml` make forge act (like `direnv
//! allow` or `mise trust`), after showing what it would make forge do.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;

use crate::app::project::project_paths;
use crate::app::trust::{self as app, describe};
use crate::env::Env;
use crate::model::setup::trust::Trust;

/// Trust this project's .forge/config.toml, so its keys that make forge act apply
///
/// A project's .forge/config.toml ships with the repository. What it changes in what
/// forge shows (segments, wording, the levels' colours) applies as soon as it is
/// there. Its keys that make forge act — [ladder] actions and protected_branches,
/// [notify] (but `command`), [relay], [handoffs] retention, [attention] stale_after,
/// and the same keys in [agents.NAME] tables — apply only once you trusted the file's
/// exact content, and so do its [context] levels and handoff_threshold as far as
/// they decide *when* your own steps run: until then forge says so (`forge status`,
/// the dashboard, the session start) and `forge config show` lists them. `forge
/// trust` first shows each of them with its value and what it makes forge do, then
/// asks; on your yes it keeps the content's SHA-256 in your state folder
/// ($XDG_STATE_HOME/forge/trust/, else ~/.local/state/forge/trust/). Without a
/// terminal to ask on it trusts nothing unless given --yes. The trust is of the
/// content for the repository: every git worktree of it shares it while the file is
/// the same. Any edit of the file revokes it. Keys that run commands ([notify]
/// command, [[on_threshold]], [[on_session_start]]) are never taken from a project
/// file, trusted or not.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge trust --status        # what the file would make forge do; trusts nothing\n",
        "  forge trust                 # show it, ask, and trust this content on a yes\n",
        "  forge trust --yes           # the same without asking (scripts, provisioning)\n",
        "  forge trust --revoke        # ignore its acting keys again"
    )
)]
pub(crate) struct TrustArgs {
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// Forget the trust of this project's file: its acting keys are ignored again.
    #[arg(long, conflicts_with = "status")]
    pub(crate) revoke: bool,
    /// Show whether the file is trusted and what its acting keys would do; trust
    /// nothing.
    #[arg(long)]
    pub(crate) status: bool,
    /// With --status: print as JSON.
    #[arg(long, requires = "status")]
    pub(crate) json: bool,
    /// Trust without asking, after showing what the file makes forge do (for
    /// scripts; without it forge asks on the terminal, and trusts nothing when there
    /// is none).
    #[arg(long, short = 'y', conflicts_with_all = ["status", "revoke"])]
    pub(crate) yes: bool,
}

/// How `forge trust` got its yes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Consent {
    /// `--yes`.
    Given,
    /// Asked on the terminal: the answer.
    Answered(bool),
    /// No terminal to ask on.
    NoTerminal,
}

/// Asks on the terminal whether to trust what was shown (a `y` or `yes`, any case,
/// is a yes; anything else, or the end of input, a no). No terminal: no answer.
fn ask(question: &str) -> Consent {
    use std::io::{BufRead, IsTerminal, Write};
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Consent::NoTerminal;
    }
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{question} [y/N] ");
    let _ = out.flush();
    let mut line = String::new();
    let _ = stdin.lock().read_line(&mut line);
    let answer = line.trim().to_ascii_lowercase();
    Consent::Answered(answer == "y" || answer == "yes")
}

/// Runs `forge trust`.
pub(crate) fn run(args: &TrustArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = project_paths(args.project.as_ref(), env)?;
    let file = paths.config();
    let root = app::key(&paths, env)?;
    if args.revoke {
        let had = app::revoke(env, &root)?;
        super::print_out(&if had {
            format!(
                "Revoked: forge ignores the acting keys of {} again.\n",
                file.display()
            )
        } else {
            format!("{} was not trusted; nothing to revoke.\n", file.display())
        });
        return Ok(ExitCode::SUCCESS);
    }
    let (facts, trust) = app::look(&paths, env, &root)?;
    if args.status {
        let refused = app::refused(&paths, env, &facts, &trust);
        if args.json {
            super::print_json(&app::status_json(
                &paths,
                &facts,
                &trust,
                refused.as_deref(),
            ))?;
        } else {
            super::print_out(&app::status_text(
                &paths,
                &facts,
                &trust,
                refused.as_deref(),
            ));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(sha) = &facts.sha256 else {
        return Err(anyhow!(
            "{} does not exist: nothing to trust",
            file.display()
        ));
    };
    if facts.acting.is_empty() {
        super::print_out(&format!(
            "Nothing in {} makes forge act: all of it applies already, so there is nothing to trust.\n",
            file.display()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    app::check(&paths, env, sha)?;
    let mut out = format!(
        "{} (sha256 {}) makes forge act:\n",
        file.display(),
        short(sha)
    );
    for (key, value) in &facts.acting {
        out.push_str(&describe(key, value));
    }
    if let Trust::Trusted { trusted_at, .. } = &trust {
        let _ = writeln!(
            out,
            "Already trusted (since {trusted_at}): these keys apply."
        );
        super::print_out(&out);
        return Ok(ExitCode::SUCCESS);
    }
    super::print_out(&out);
    confirm_and_record(args, env, root, &file.display().to_string(), sha)
}

/// Asks (unless `--yes`), then keeps the trust record of content `sha` of the
/// project file `file`, under the repository key `root`.
fn confirm_and_record(
    args: &TrustArgs,
    env: &Env,
    root: String,
    file: &str,
    sha: &str,
) -> anyhow::Result<ExitCode> {
    let consent = if args.yes {
        Consent::Given
    } else {
        ask("Trust this content of the file, so these keys apply?")
    };
    match consent {
        Consent::Given | Consent::Answered(true) => {}
        Consent::Answered(false) => {
            super::print_out("Not trusted: nothing changed.\n");
            return Ok(ExitCode::from(1));
        }
        Consent::NoTerminal => {
            return Err(anyhow!(
                "not trusted: forge trust asks before it trusts, and there is no terminal to ask on; \
                 read the keys above, then run `forge trust` in a terminal, or `forge trust --yes` to trust this content"
            ));
        }
    }
    let written = app::record(env, root, file, sha)?;
    super::print_out(&format!(
        "Trusted: forge applies these keys from now on, in every worktree of this repository while the file is the same (recorded in {}).\n\
         Any edit of the file revokes this; `forge trust --revoke` revokes it now.\n",
        written.display()
    ));
    Ok(ExitCode::SUCCESS)
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}
