//! `forge trust`: let a project's `.forge/config.toml` make forge act (like `direnv
//! allow` or `mise trust`), after showing what it would make forge do.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use serde_json::json;

use crate::app::project::project_paths;
use crate::config::{self, Side};
use crate::env::Env;
use crate::model::setup::trust::{Record, Trust, VERSION, content_hash};
use crate::store::{self, Paths};

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

/// What the project file holds, as `forge trust` reads it once.
struct FileFacts {
    text: Option<String>,
    sha256: Option<String>,
    acting: Vec<(String, toml::Value)>,
}

/// Reads the project file once (never through a link; at most 1 MiB) and lists its
/// acting keys.
fn read_file(paths: &Paths) -> anyhow::Result<FileFacts> {
    let path = paths.config();
    let text =
        match store::safe::read_to_string_whole(&path, config::CONFIG_MAX, store::safe::Follow::No)
        {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(FileFacts {
                    text: None,
                    sha256: None,
                    acting: Vec::new(),
                });
            }
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
    let mut table: toml::Table =
        toml::from_str(&text).map_err(|e| anyhow!("{}: not valid TOML: {e}", path.display()))?;
    let mut acting = config::take_acting(&mut table);
    acting.extend(config::gating(&table));
    acting.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(FileFacts {
        sha256: Some(content_hash(text.as_bytes())),
        text: Some(text),
        acting,
    })
}

/// The most characters of one value shown: a value longer than that (a list of a
/// thousand branches) is cut, so every key still fits on the screen.
const VALUE_SHOWN: usize = 72;

/// One acting key, its value (on one line, cut at [`VALUE_SHOWN`] characters with how
/// long it is in all) and what it makes forge do: two lines.
fn describe(key: &str, value: &toml::Value) -> String {
    // `agents.builder.ladder.L1` is `ladder.L1` for one agent.
    let base = match key.strip_prefix("agents.") {
        Some(rest) => rest.split_once('.').map_or(rest, |(_, k)| k),
        None => key,
    };
    let what = config::key_side(base)
        .filter(|k| matches!(k.side, Side::Acts | Side::Gates))
        .map_or("", |k| k.what);
    let text = value.to_string();
    let one = crate::model::text::sanitize::single_line(&text);
    let shown = match one.chars().count() {
        n if n > VALUE_SHOWN => format!(
            "{} ({n} characters)",
            crate::model::text::sanitize::cut_chars(&one, VALUE_SHOWN)
        ),
        _ => one.into_owned(),
    };
    let key = crate::model::text::sanitize::cut_chars(key, 120);
    format!("  {key} = {shown}\n      {what}\n")
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
    let root = crate::git::trust_key(&paths.root)
        .ok_or_else(|| anyhow!("the project path {} is not UTF-8", paths.root.display()))?;
    if store::trust::dir(env).is_none() {
        return Err(anyhow!(
            "no state folder to keep trust in: set HOME (or XDG_STATE_HOME) to an absolute path"
        ));
    }
    if args.revoke {
        let had = store::trust::revoke(env, &root).context("revoking")?;
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
    let facts = read_file(&paths)?;
    let record = store::trust::read(env, &root);
    let trust = match (&facts.text, &facts.sha256) {
        (None, _) | (_, None) => Trust::Absent,
        (Some(_), Some(_)) if facts.acting.is_empty() => Trust::Inert,
        (Some(_), Some(sha)) => Trust::judge(sha, record.as_ref()),
    };
    if args.status {
        // Whether `forge trust` would take it: every value checked as if trusted.
        let refused = match (&trust, &facts.sha256) {
            (Trust::Untrusted { .. }, Some(sha)) => config::load_trusting(&paths, env, sha)
                .err()
                .map(|e| e.to_string()),
            _ => None,
        };
        return status(args, &paths, &facts, &trust, refused.as_deref());
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
    // Every value is checked as if trusted, before it is: a file that would break
    // the hooks once trusted is not trusted.
    let loaded = config::load_trusting(&paths, env, sha).map_err(|e| {
        anyhow!("not trusted, the file has an error: {e}\nFix it, then run `forge trust` again.")
    })?;
    if !matches!(&loaded.trust, Trust::Trusted { sha256, .. } if sha256 == sha) {
        return Err(anyhow!(
            "{} changed while forge read it: run `forge trust` again",
            file.display()
        ));
    }
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
    let written = store::trust::write(
        env,
        &Record {
            version: VERSION,
            project: root,
            config: file.to_owned(),
            sha256: sha.to_owned(),
            trusted_at: crate::model::time::iso(env.now),
        },
    )
    .context("keeping the trust record")?;
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

/// `forge trust --status`.
fn status(
    args: &TrustArgs,
    paths: &Paths,
    facts: &FileFacts,
    trust: &Trust,
    refused: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let file = paths.config();
    if args.json {
        let acting: Vec<_> = facts
            .acting
            .iter()
            .map(|(k, v)| {
                json!({
                    "key": k,
                    "value": serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                    "applies": trust.applies(),
                })
            })
            .collect();
        super::print_json(&json!({
            "project": paths.root,
            "config": file,
            "exists": facts.text.is_some(),
            "sha256": facts.sha256,
            "trust": trust,
            "acting": acting,
            "trustable": refused.is_none(),
            "error": refused,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    match trust {
        Trust::Absent => {
            let _ = writeln!(out, "{} does not exist: nothing to trust.", file.display());
        }
        Trust::Inert => {
            let _ = writeln!(
                out,
                "Nothing in {} makes forge act: all of it applies.",
                file.display()
            );
        }
        Trust::Trusted { trusted_at, .. } => {
            let _ = writeln!(
                out,
                "{} is trusted (since {trusted_at}): its acting keys apply:",
                file.display()
            );
        }
        Trust::Untrusted { .. } => {
            let _ = writeln!(
                out,
                "{}: its acting keys are ignored, because {}:",
                file.display(),
                trust.why_ignored()
            );
        }
    }
    for (key, value) in &facts.acting {
        out.push_str(&describe(key, value));
    }
    match (trust, refused) {
        (Trust::Untrusted { .. }, Some(error)) => {
            let _ = writeln!(
                out,
                "`forge trust` would not trust it as it is, because the file has an error: {error}\n\
                 Fix it first; until then its acting keys stay ignored."
            );
        }
        (Trust::Untrusted { .. }, None) => {
            let _ = writeln!(
                out,
                "Run `forge trust` to trust this content, if it does only what you want."
            );
        }
        _ => {}
    }
    super::print_out(&out);
    Ok(ExitCode::SUCCESS)
}
