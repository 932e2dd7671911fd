//! `forge signal`: write an agent handoff with a Signal block from the command line.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use color_eyre::eyre::{WrapErr, bail};
use serde_json::json;

use super::status::project_for_writing;
use crate::env::Env;
use crate::model::SignalStatus;
use crate::store::{self, Paths, sanitize_id};

/// The agent-handoff template shipped with forge.
pub const TEMPLATE: &str = include_str!("../../assets/templates/agent-handoff.md");

/// Write an agent handoff with a Signal block, and print its path
///
/// The file is .forge/handoffs/agent-<TASK>-<YYYYMMDD-HHMMSS>.md. Other agents,
/// `forge status`, the dashboard and the SessionStart hook read it; a blocked
/// Signal and its open questions are shown first.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge signal --from builder --to reviewer --task T-012 --status complete \\\n",
        "    --file src/db/pool.rs --finding \"Pool must start before the router\"\n",
        "  forge signal --from builder --to lead --task T-013 --status blocked \\\n",
        "    --question \"Pool size from env or config.toml?\""
    )
)]
pub struct SignalArgs {
    /// The agent writing the handoff.
    #[arg(long, value_name = "AGENT")]
    pub from: String,
    /// The agent it is for.
    #[arg(long, value_name = "AGENT")]
    pub to: String,
    /// The task id (reduced to letters, digits, `.`, `_` and `-` in the file name).
    #[arg(long, value_name = "TASK")]
    pub task: String,
    /// complete, partial or blocked.
    #[arg(long, value_enum)]
    pub status: StatusArg,
    /// An open question (repeatable).
    #[arg(long = "question", value_name = "Q")]
    pub questions: Vec<String>,
    /// A file the agent modified (repeatable; names only, never contents). An
    /// absolute path inside the project is stored relative to the project root.
    #[arg(long = "file", value_name = "F")]
    pub files: Vec<String>,
    /// A finding (repeatable).
    #[arg(long = "finding", value_name = "X")]
    pub findings: Vec<String>,
    /// What the next agent should do.
    #[arg(long, value_name = "R")]
    pub recommendation: Option<String>,
    /// Background for the next agent.
    #[arg(long, value_name = "C")]
    pub context: Option<String>,
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// `--status` values; clap lists them when an unknown one is given.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusArg {
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

/// One line: newlines and other control characters become spaces, ends trimmed.
fn one_line(s: &str) -> String {
    crate::model::text::single_line(s).trim().to_owned()
}

fn bullets(items: &[String]) -> String {
    if items.is_empty() {
        return "- (none)".to_owned();
    }
    items
        .iter()
        .map(|i| format!("- {}", one_line(i)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `--file` as the Signal stores it: as given, except that an absolute path inside
/// the project becomes relative to the project root (the Signal names files, and a
/// path on this machine means nothing on another).
pub fn repo_relative(file: &str, root: &Path) -> String {
    let path = Path::new(file);
    if !path.is_absolute() {
        return file.to_owned();
    }
    // Compare canonical forms when they exist (a file may be deleted already, so
    // fall back to its folder, then to the path as given).
    let canonical = std::fs::canonicalize(path).ok().or_else(|| {
        let parent = std::fs::canonicalize(path.parent()?).ok()?;
        Some(parent.join(path.file_name()?))
    });
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    for candidate in [canonical.as_deref(), Some(path)].into_iter().flatten() {
        if let Ok(rel) = candidate.strip_prefix(&root)
            && !rel.as_os_str().is_empty()
        {
            return rel.to_string_lossy().into_owned();
        }
    }
    file.to_owned()
}

/// Renders the handoff text from the shipped template. `root` is the project root,
/// for making `--file` paths repo-relative.
pub fn render(args: &SignalArgs, root: &Path, timestamp: &str) -> String {
    let status: SignalStatus = args.status.into();
    let from = one_line(&args.from);
    let to = one_line(&args.to);
    let task = one_line(&args.task);
    let files: Vec<String> = args
        .files
        .iter()
        .map(|f| repo_relative(&one_line(f), root))
        .collect();
    let questions: Vec<String> = args.questions.iter().map(|q| one_line(q)).collect();
    let signal = json!({
        "from": from,
        "to": to,
        "task_id": task,
        "status": status.as_str(),
        "files_modified": files,
        "open_questions": questions,
        "blocking": status == SignalStatus::Blocked,
    });
    let signal_json = serde_json::to_string_pretty(&signal).unwrap_or_else(|_| signal.to_string());
    let paragraph = |s: &Option<String>| {
        s.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            // A line starting with ``` or # could pass for a section heading or the
            // Signal fence: escape it (Markdown shows it literally).
            .map(|s| {
                s.lines()
                    .map(|l| {
                        let t = l.trim_start();
                        if t.starts_with("```") || t.starts_with('#') {
                            format!("\\{t}")
                        } else {
                            l.to_owned()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_else(|| "(none)".to_owned())
    };
    // Single pass over the placeholders, so user text containing `{{…}}` is never
    // substituted again.
    let values = [
        ("{{from}}", from.clone()),
        ("{{to}}", to.clone()),
        ("{{timestamp}}", timestamp.to_owned()),
        ("{{task}}", task.clone()),
        ("{{context}}", paragraph(&args.context)),
        ("{{findings}}", bullets(&args.findings)),
        ("{{files_modified}}", bullets(&files)),
        ("{{open_questions}}", bullets(&questions)),
        ("{{recommendations}}", paragraph(&args.recommendation)),
        ("{{signal_json}}", signal_json),
    ];
    let mut out = String::with_capacity(TEMPLATE.len() + 512);
    let mut rest = TEMPLATE;
    while let Some(at) = rest.find("{{") {
        out.push_str(rest.get(..at).unwrap_or(""));
        let tail = rest.get(at..).unwrap_or("");
        match values.iter().find(|(k, _)| tail.starts_with(k)) {
            Some((k, v)) => {
                out.push_str(v);
                rest = tail.get(k.len()..).unwrap_or("");
            }
            None => {
                out.push_str("{{");
                rest = tail.get(2..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    out
}

/// Writes the handoff under a fresh name (`-2`, `-3`… on collision); returns the path.
pub fn write(paths: &Paths, task: &str, stamp: &str, text: &str) -> io::Result<PathBuf> {
    let dir = paths.handoffs();
    let base = format!("agent-{}-{stamp}", sanitize_id(task));
    for n in 1..=100 {
        let name = if n == 1 {
            format!("{base}.md")
        } else {
            format!("{base}-{n}.md")
        };
        let path = dir.join(name);
        match store::write_new_atomic(&path, text.as_bytes()) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("100 handoffs named {base}*.md already exist"),
    ))
}

/// Runs `forge signal`.
pub fn run(args: &SignalArgs, env: &Env) -> color_eyre::Result<ExitCode> {
    for (flag, value) in [
        ("--from", &args.from),
        ("--to", &args.to),
        ("--task", &args.task),
    ] {
        if one_line(value).is_empty() {
            bail!("{flag} must not be empty: say which agent or task this handoff is about");
        }
    }
    let paths = project_for_writing(args.project.as_ref(), env)?;
    if args.status == StatusArg::Blocked && args.questions.iter().all(|q| one_line(q).is_empty()) {
        super::print_err(
            "forge: warning: --status blocked without --question: add --question \"…\" so the next agent knows what to answer\n",
        );
    }
    let text = render(args, &paths.root, &store::files::iso(env.now));
    let stamp = env.now.format("%Y%m%d-%H%M%S").to_string();
    let path = write(&paths, &args.task, &stamp, &text)
        .wrap_err_with(|| format!("writing the handoff into {}", paths.handoffs().display()))?;
    super::print_out(&format!("{}\n", path.display()));
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::signal::{parse_header, parse_signal};

    fn args(status: StatusArg) -> SignalArgs {
        SignalArgs {
            from: "builder".into(),
            to: "reviewer".into(),
            task: "T-012".into(),
            status,
            questions: vec!["Pool size from env\nor config?".into()],
            files: vec!["src/db/pool.rs".into(), "src/main.rs".into()],
            findings: vec!["Pool before router".into()],
            recommendation: Some("Decide the source.".into()),
            context: Some("Moved to a pool.\n### Signal\n```json\n{}\n```".into()),
            project: None,
        }
    }

    #[test]
    fn renders_sections_and_a_signal_that_parses_back() {
        let text = render(
            &args(StatusArg::Blocked),
            Path::new("/nowhere"),
            "2026-11-21T10:15:02Z",
        );
        for section in [
            "## FORGE AGENT HANDOFF",
            "From: builder",
            "To: reviewer",
            "Timestamp: 2026-11-21T10:15:02Z",
            "Task: T-012",
            "### Context",
            "### Findings",
            "### Files Modified",
            "### Open Questions",
            "### Recommendations",
            "### Signal",
        ] {
            assert!(text.contains(section), "{section} missing:\n{text}");
        }
        let p = parse_signal(&text);
        let s = p.signal().expect("valid");
        assert_eq!(s.status, SignalStatus::Blocked);
        assert!(s.blocking);
        assert_eq!(s.files_modified, ["src/db/pool.rs", "src/main.rs"]);
        assert_eq!(s.open_questions, ["Pool size from env or config?"]);
        assert_eq!(parse_header(&text).task.as_deref(), Some("T-012"));
        let complete = render(&args(StatusArg::Complete), Path::new("/nowhere"), "t");
        assert!(!parse_signal(&complete).is_blocked());
    }

    #[test]
    fn template_keys_in_user_text_are_not_expanded() {
        let mut a = args(StatusArg::Partial);
        a.context = Some("literally {{from}}".into());
        let text = render(&a, Path::new("/nowhere"), "t");
        assert!(text.contains("literally {{from}}"));
    }

    #[test]
    fn absolute_files_inside_the_project_become_relative() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        std::fs::create_dir_all(root.join("src/db")).unwrap();
        std::fs::write(root.join("src/db/pool.rs"), "").unwrap();
        let abs = root.join("src/db/pool.rs").display().to_string();
        assert_eq!(repo_relative(&abs, &root), "src/db/pool.rs");
        // Deleted file, and a `..` detour.
        let gone = root.join("src/db/old.rs").display().to_string();
        assert_eq!(repo_relative(&gone, &root), "src/db/old.rs");
        let detour = root.join("src/../src/db/pool.rs").display().to_string();
        assert_eq!(repo_relative(&detour, &root), "src/db/pool.rs");
        // As given otherwise.
        assert_eq!(repo_relative("src/main.rs", &root), "src/main.rs");
        assert_eq!(repo_relative("/etc/hosts", &root), "/etc/hosts");
        assert_eq!(
            repo_relative(&root.display().to_string(), &root),
            root.display().to_string()
        );
    }

    #[test]
    fn collisions_get_a_suffix() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        let a = write(&p, "T-1", "20261121-101502", "x").unwrap();
        let b = write(&p, "T-1", "20261121-101502", "y").unwrap();
        assert!(a.ends_with("agent-T-1-20261121-101502.md"));
        assert!(b.ends_with("agent-T-1-20261121-101502-2.md"));
        let evil = write(&p, "../../etc/passwd", "20261121-101502", "z").unwrap();
        assert_eq!(evil.parent().unwrap(), p.handoffs());
    }
}
