//! Agent handoffs written by forge: `forge signal` and the resolution of a blocked
//! Signal (`forge signal resolve`, the dashboard's resolve key). The text comes from
//! the shipped template; the file is `.forge/handoffs/agent-<TASK>-<stamp>.md`.

use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::json;

use crate::env::Env;
use crate::model::handoff::entry::Origin;
use crate::model::handoff::signal::SignalStatus;
use crate::model::text::sanitize::single_line_trimmed;
use crate::store::{self, Paths, sanitize_id};

/// The agent-handoff template shipped with forge.
pub(crate) const TEMPLATE: &str = include_str!("../../assets/templates/agent-handoff.md");

/// What a new Signal says: the fields of `forge signal`, whoever fills them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Draft {
    /// The agent writing it.
    pub(crate) from: String,
    /// The agent it is for.
    pub(crate) to: String,
    /// The task id.
    pub(crate) task: String,
    /// Its status.
    pub(crate) status: SignalStatus,
    /// Open questions.
    pub(crate) questions: Vec<String>,
    /// Files modified.
    pub(crate) files: Vec<String>,
    /// Findings.
    pub(crate) findings: Vec<String>,
    /// What the next agent should do.
    pub(crate) recommendation: Option<String>,
    /// Background.
    pub(crate) context: Option<String>,
}

impl Draft {
    /// The draft with its free text (questions, findings, files, recommendation,
    /// context) redacted: what an agent writes into a Signal is stored, listed by
    /// `forge status` and read by the next session.
    pub(crate) fn redacted(&self) -> Self {
        use crate::model::text::redact::redact;
        let all = |v: &[String]| v.iter().map(|s| redact(s)).collect();
        Self {
            questions: all(&self.questions),
            files: all(&self.files),
            findings: all(&self.findings),
            recommendation: self.recommendation.as_deref().map(redact),
            context: self.context.as_deref().map(redact),
            ..self.clone()
        }
    }

    /// The Signal that resolves `blocked` (the current, blocked Signal of a task):
    /// from `from`, back to the agent that asked, not blocking, with the answer.
    pub(crate) fn resolving(
        blocked: &crate::model::handoff::entry::HandoffEntry,
        from: &str,
        answer: Option<&str>,
        complete: bool,
    ) -> Self {
        let signal = blocked
            .signal
            .as_ref()
            .and_then(crate::model::handoff::signal::SignalParse::signal);
        let asked_by = signal
            .map(|s| s.from.clone())
            .or_else(|| blocked.header.as_ref().and_then(|h| h.from.clone()))
            .unwrap_or_else(|| "?".to_owned());
        let questions = signal.map(|s| s.open_questions.clone()).unwrap_or_default();
        let answer = answer.map(str::trim).filter(|a| !a.is_empty());
        let mut findings = Vec::new();
        match answer {
            Some(a) => findings.push(format!("Answer: {a}")),
            None => findings.push("Resolved without a written answer.".to_owned()),
        }
        let context = if questions.is_empty() {
            format!("Resolves the blocked Signal in {}.", blocked.file_name)
        } else {
            format!(
                "Resolves the blocked Signal in {}, which asked:\n{}",
                blocked.file_name,
                questions
                    .iter()
                    .map(|q| format!("- {}", single_line_trimmed(q)))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        };
        Self {
            from: from.to_owned(),
            to: asked_by,
            task: blocked.task().unwrap_or_default().to_owned(),
            status: if complete {
                SignalStatus::Complete
            } else {
                SignalStatus::Partial
            },
            questions: Vec::new(),
            files: Vec::new(),
            findings,
            recommendation: Some(if complete {
                "Nothing left to do: the task is complete.".to_owned()
            } else {
                "Carry on with the task using the answer above.".to_owned()
            }),
            context: Some(context),
        }
    }
}

/// The header lines that say where a Signal comes from, each after a line break
/// (nothing when unknown).
fn origin_lines(origin: Option<&Origin>) -> String {
    let Some(o) = origin else {
        return String::new();
    };
    let mut out = format!("\nWorktree: {}", single_line_trimmed(&o.worktree));
    if let Some(b) = o
        .branch
        .as_deref()
        .map(single_line_trimmed)
        .filter(|b| !b.is_empty())
    {
        out.push_str("\nBranch: ");
        out.push_str(&b);
    }
    out
}

fn bullets(items: &[String]) -> String {
    if items.is_empty() {
        return "- (none)".to_owned();
    }
    items
        .iter()
        .map(|i| format!("- {}", single_line_trimmed(i)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `--file` as the Signal stores it: as given, except that an absolute path inside
/// the project becomes relative to the project root (the Signal names files, and a
/// path on this machine means nothing on another).
pub(crate) fn repo_relative(file: &str, root: &Path) -> String {
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

/// Renders the handoff text from the shipped template (its free text redacted, see
/// [`Draft::redacted`]). `root` is the project root, for making `--file` paths
/// repo-relative; `origin` the work tree (and branch) it is written from, said in
/// its `Worktree:` and `Branch:` lines.
pub(crate) fn render(
    args: &Draft,
    root: &Path,
    origin: Option<&Origin>,
    timestamp: &str,
) -> String {
    let args = &args.redacted();
    let status = args.status;
    let from = single_line_trimmed(&args.from);
    let to = single_line_trimmed(&args.to);
    let task = single_line_trimmed(&args.task);
    let files: Vec<String> = args
        .files
        .iter()
        .map(|f| repo_relative(&single_line_trimmed(f), root))
        .collect();
    let questions: Vec<String> = args
        .questions
        .iter()
        .map(|q| single_line_trimmed(q))
        .collect();
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
        ("{{origin}}", origin_lines(origin)),
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
pub(crate) fn write(paths: &Paths, task: &str, stamp: &str, text: &str) -> io::Result<PathBuf> {
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

/// Writes `draft` as a new agent handoff (stamped now) into the repository's inbox
/// (`store::inbox`: the main work tree's `.forge/handoffs/`, this project's own in a
/// checkout without linked work trees), saying which work tree and branch it comes
/// from; returns its path.
pub(crate) fn write_draft(paths: &Paths, draft: &Draft, env: &Env) -> anyhow::Result<PathBuf> {
    let inbox = store::inbox::Inbox::of(paths);
    let (home, why) = inbox.writable_home(paths);
    if let Some(why) = why {
        store::log_error(
            paths,
            "signal",
            &format!("{why}; the Signal is written into this work tree's own .forge/handoffs/"),
        );
    }
    let own = inbox.folders.first();
    let origin = Origin {
        remote: None,
        worktree: own
            .and_then(|f| f.worktree.as_ref())
            .unwrap_or(&paths.root)
            .display()
            .to_string(),
        branch: own.and_then(store::inbox::Folder::branch),
    };
    let text = render(
        draft,
        &paths.root,
        Some(&origin),
        &crate::model::time::iso(env.now),
    );
    let stamp = env.now.format("%Y%m%d-%H%M%S").to_string();
    let path = write(&home, &draft.task, &stamp, &text)
        .with_context(|| format!("writing the handoff into {}", home.handoffs().display()))?;
    // Shared through the git remote in the background when your own config says
    // so (docs/share.md).
    super::share::start_background(
        paths,
        env,
        &crate::config::load_or_default(paths, env),
        super::share::What::Publish,
    );
    // The fleet's blocked count follows at once (best effort: the project's next hook
    // call writes it anyway).
    if let Err(e) = super::fleet::refresh_blocked(paths, env) {
        store::log_error(paths, "fleet registry", &e.to_string());
    }
    if draft.status == SignalStatus::Blocked {
        alert_blocked(paths, env, draft);
    }
    Ok(path)
}

/// A blocked Signal waits for an answer: the person hears of it (`[alerts] on`'s
/// `blocked`, docs/alerts.md), and the event log records how that went.
fn alert_blocked(paths: &Paths, env: &Env, draft: &Draft) {
    let cfg = crate::config::load_or_default(paths, env).alerts;
    let who = crate::model::agents::alert::Who {
        project: paths
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        agent: Some(draft.from.clone()),
        // One alert per task (its debounce key; shown beside the agent).
        session: Some(draft.task.clone()),
        pane: None,
    };
    let detail = match draft.questions.first() {
        Some(q) => format!("waits for {}: {q}", draft.to),
        None => format!("waits for {}", draft.to),
    };
    let Some(outcome) = super::alert::send(
        paths,
        env,
        &cfg,
        crate::model::agents::alert::AlertReason::Blocked,
        &who,
        &super::alert::Pane::default(),
        Some(&detail),
    ) else {
        return;
    };
    if paths.logs().is_dir() {
        let _ = store::files::append_event(
            paths,
            &crate::model::session::state::EventLine {
                time: crate::model::time::iso(env.now),
                event: "signal".to_owned(),
                session: None,
                facts: serde_json::Map::new(),
                outcomes: vec![outcome],
            },
        );
    }
}

/// Who answers when `--from` is not given: `$USER`, else "user".
pub(crate) fn default_resolver() -> String {
    std::env::var("USER")
        .ok()
        .map(|u| single_line_trimmed(&u))
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "user".to_owned())
}

/// The task's current Signal when it is blocked; otherwise an error that says what
/// the task's state is and what to do.
pub(crate) fn blocked_head<'a>(
    entries: &'a [crate::model::handoff::entry::HandoffEntry],
    task: &str,
) -> anyhow::Result<&'a crate::model::handoff::entry::HandoffEntry> {
    let thread = crate::model::handoff::entry::thread_of(entries, task);
    let Some(head) = thread
        .iter()
        .find(|h| !h.is_superseded() && h.signal_blocks())
    else {
        let state = thread
            .iter()
            .find(|h| !h.is_superseded())
            .map(|h| format!("its newest Signal is {} ({})", h.status_word(), h.file_name));
        match state {
            Some(state) => bail!("task {} is not blocked: {state}", single_line_trimmed(task)),
            None => {
                let mut open: Vec<&str> = entries
                    .iter()
                    .filter(|h| h.is_blocked())
                    .filter_map(crate::model::handoff::entry::HandoffEntry::task)
                    .collect();
                open.sort_unstable();
                open.dedup();
                if open.is_empty() {
                    bail!(
                        "no Signal names task {} (and nothing is blocked)",
                        single_line_trimmed(task)
                    );
                }
                bail!(
                    "no Signal names task {}; blocked now: {}",
                    single_line_trimmed(task),
                    open.join(", ")
                );
            }
        }
    };
    Ok(head)
}

/// What resolving a task's blocked Signal wrote.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// The Signal that was written (to the agent that asked).
    pub(crate) draft: Draft,
    /// Its path.
    pub(crate) path: PathBuf,
    /// The file name of the blocked Signal it supersedes.
    pub(crate) resolves: String,
}

/// Resolves `task`'s blocked Signal (its thread's head, [`blocked_head`]) with
/// `answer`, from `from`: writes the superseding Signal. `forge signal resolve` and
/// the `resolve` tool of `forge mcp` both come here, so the thread rules are one.
pub(crate) fn resolve_task(
    paths: &Paths,
    env: &Env,
    task: &str,
    from: &str,
    answer: Option<&str>,
    complete: bool,
) -> anyhow::Result<Resolved> {
    let entries = store::handoffs::repository(paths);
    let head = blocked_head(&entries, task)?;
    let draft = Draft::resolving(head, from, answer, complete);
    let path = write_draft(paths, &draft, env)?;
    Ok(Resolved {
        draft,
        path,
        resolves: head.file_name.clone(),
    })
}

/// Resolves the blocked Signal in `blocked` (a file of the repository's inbox) with
/// `answer`, from `from`: writes the superseding Signal and returns its path.
pub(crate) fn resolve_file(
    paths: &Paths,
    env: &Env,
    blocked: &Path,
    from: &str,
    answer: Option<&str>,
) -> anyhow::Result<PathBuf> {
    let entries = store::handoffs::repository(paths);
    let Some(entry) = entries.iter().find(|h| h.path == blocked) else {
        bail!(
            "{} is no longer in the repository's inbox",
            blocked.display()
        );
    };
    let Some(task) = entry.task() else {
        bail!(
            "{} names no task, so nothing can supersede it",
            entry.file_name
        );
    };
    let head = blocked_head(&entries, task)?;
    write_draft(paths, &Draft::resolving(head, from, answer, false), env)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::handoff::signal::{parse_header, parse_signal};

    fn args(status: SignalStatus) -> Draft {
        Draft {
            from: "builder".into(),
            to: "reviewer".into(),
            task: "T-012".into(),
            status,
            questions: vec!["Pool size from env\nor config?".into()],
            files: vec!["src/db/pool.rs".into(), "src/main.rs".into()],
            findings: vec!["Pool before router".into()],
            recommendation: Some("Decide the source.".into()),
            context: Some("Moved to a pool.\n### Signal\n```json\n{}\n```".into()),
        }
    }

    #[test]
    fn renders_sections_and_a_signal_that_parses_back() {
        let text = render(
            &args(SignalStatus::Blocked),
            Path::new("/nowhere"),
            None,
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
        let complete = render(
            &args(SignalStatus::Complete),
            Path::new("/nowhere"),
            None,
            "t",
        );
        assert!(!parse_signal(&complete).is_blocked());
    }

    #[test]
    fn template_keys_in_user_text_are_not_expanded() {
        let mut a = args(SignalStatus::Partial);
        a.context = Some("literally {{from}}".into());
        let text = render(&a, Path::new("/nowhere"), None, "t");
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
