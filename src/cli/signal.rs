//! `forge signal`: write an agent handoff with a Signal block from the command line.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use crate::app::project::project_for_writing;
use crate::app::signal::{Draft, default_resolver, resolve_task, write_draft};
use crate::env::Env;
use crate::model::handoff::signal::SignalStatus;
use crate::model::text::sanitize::single_line_trimmed;

/// Write an agent handoff with a Signal block, and print its path
///
/// The file is .forge/handoffs/agent-<TASK>-<YYYYMMDD-HHMMSS>.md. Other agents,
/// `forge status`, the dashboard and the SessionStart hook read it; a blocked
/// Signal and its open questions are shown first.
///
/// Signals of one task form a thread: the newest is the task's state. A blocked
/// Signal stays blocked until a later Signal of its task (`--status partial` or
/// `complete`, or `forge signal resolve TASK`) supersedes it.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = concat!(
        "Examples:\n",
        "  forge signal --from builder --to reviewer --task T-012 --status complete \\\n",
        "    --file src/db/pool.rs --finding \"Pool must start before the router\"\n",
        "  forge signal --from builder --to lead --task T-013 --status blocked \\\n",
        "    --question \"Pool size from env or config.toml?\"\n",
        "  forge signal resolve T-013 --answer \"From config.toml, default 20\""
    )
)]
pub(crate) struct SignalArgs {
    /// Answer a blocked Signal instead of writing a new one.
    #[command(subcommand)]
    pub(crate) action: Option<SignalAction>,
    /// The agent writing the handoff.
    #[arg(long, value_name = "AGENT", required = true)]
    pub(crate) from: Option<String>,
    /// The agent it is for.
    #[arg(long, value_name = "AGENT", required = true)]
    pub(crate) to: Option<String>,
    /// The task id (reduced to letters, digits, `.`, `_` and `-` in the file name).
    #[arg(long, value_name = "TASK", required = true)]
    pub(crate) task: Option<String>,
    /// complete, partial or blocked.
    #[arg(long, value_enum, required = true)]
    pub(crate) status: Option<StatusArg>,
    /// An open question (repeatable).
    #[arg(long = "question", value_name = "Q")]
    pub(crate) questions: Vec<String>,
    /// A file the agent modified (repeatable; names only, never contents). An
    /// absolute path inside the project is stored relative to the project root.
    #[arg(long = "file", value_name = "F")]
    pub(crate) files: Vec<String>,
    /// A finding (repeatable).
    #[arg(long = "finding", value_name = "X")]
    pub(crate) findings: Vec<String>,
    /// What the next agent should do.
    #[arg(long, value_name = "R")]
    pub(crate) recommendation: Option<String>,
    /// Background for the next agent.
    #[arg(long, value_name = "C")]
    pub(crate) context: Option<String>,
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) project: Option<PathBuf>,
}

/// `forge signal` actions.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum SignalAction {
    /// Resolve a task's blocked Signal: write the Signal that supersedes it
    ///
    /// The new Signal goes back to the agent that asked (its `to` is the blocked
    /// Signal's `from`), with status partial (or complete with --complete),
    /// `blocking: false`, and the answer under Findings. From then on the task no
    /// longer counts as blocked anywhere; the old Signal stays on disk as history.
    #[command(
        verbatim_doc_comment,
        after_help = concat!(
            "Examples:\n",
            "  forge signal resolve T-013 --answer \"From config.toml, default 20\"\n",
            "  forge signal resolve T-013 --from lead --complete"
        )
    )]
    Resolve(ResolveArgs),
}

/// `forge signal resolve` arguments.
#[derive(clap::Args, Debug)]
pub(crate) struct ResolveArgs {
    /// The task whose blocked Signal is answered.
    #[arg(value_name = "TASK")]
    pub(crate) task: String,
    /// The answer (recorded under Findings).
    #[arg(long, value_name = "TEXT")]
    pub(crate) answer: Option<String>,
    /// Who answers (default: $USER, else "user").
    #[arg(long, value_name = "NAME")]
    pub(crate) from: Option<String>,
    /// Mark the task complete rather than partial.
    #[arg(long)]
    pub(crate) complete: bool,
}

/// The draft `forge signal --from … --status …` describes (`None` when a required
/// flag is missing: clap says which before this runs).
fn draft_of(args: &SignalArgs) -> Option<Draft> {
    Some(Draft {
        from: args.from.clone()?,
        to: args.to.clone()?,
        task: args.task.clone()?,
        status: args.status?.into(),
        questions: args.questions.clone(),
        files: args.files.clone(),
        findings: args.findings.clone(),
        recommendation: args.recommendation.clone(),
        context: args.context.clone(),
    })
}

/// `--status` values; clap lists them when an unknown one is given.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatusArg {
    /// The task is done.
    Complete,
    /// Some of it is done.
    Partial,
    /// The agent cannot go on without an answer.
    Blocked,
}

impl From<StatusArg> for SignalStatus {
    fn from(s: StatusArg) -> Self {
        match s {
            StatusArg::Complete => Self::Complete,
            StatusArg::Partial => Self::Partial,
            StatusArg::Blocked => Self::Blocked,
        }
    }
}

/// Runs `forge signal`.
pub(crate) fn run(args: &SignalArgs, env: &Env) -> anyhow::Result<ExitCode> {
    if let Some(SignalAction::Resolve(r)) = &args.action {
        return resolve(r, args.project.as_ref(), env);
    }
    let Some(draft) = draft_of(args) else {
        bail!("--from, --to, --task and --status are required (see forge signal --help)");
    };
    for (flag, value) in [
        ("--from", &draft.from),
        ("--to", &draft.to),
        ("--task", &draft.task),
    ] {
        if single_line_trimmed(value).is_empty() {
            bail!("{flag} must not be empty: say which agent or task this handoff is about");
        }
    }
    let paths = project_for_writing(args.project.as_ref(), env)?;
    if draft.status == SignalStatus::Blocked
        && draft
            .questions
            .iter()
            .all(|q| single_line_trimmed(q).is_empty())
    {
        super::print_err(
            "forge: warning: --status blocked without --question: add --question \"…\" so the next agent knows what to answer\n",
        );
    }
    let path = write_draft(&paths, &draft, env)?;
    super::print_out(&format!("{}\n", path.display()));
    Ok(ExitCode::SUCCESS)
}

fn resolve(args: &ResolveArgs, project: Option<&PathBuf>, env: &Env) -> anyhow::Result<ExitCode> {
    if single_line_trimmed(&args.task).is_empty() {
        bail!("TASK must not be empty: say which task's blocked Signal you answer");
    }
    let paths = project_for_writing(project, env)?;
    let from = args
        .from
        .as_deref()
        .map(single_line_trimmed)
        .filter(|f| !f.is_empty())
        .unwrap_or_else(default_resolver);
    let done = resolve_task(
        &paths,
        env,
        &args.task,
        &from,
        args.answer.as_deref(),
        args.complete,
    )?;
    super::print_out(&format!(
        "Resolved {} ({}): {}\n",
        single_line_trimmed(&done.draft.task),
        done.resolves,
        done.path.display()
    ));
    Ok(ExitCode::SUCCESS)
}
