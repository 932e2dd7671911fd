//! `forge share`: this machine's Signals published to the repository's git remote,
//! and the other machines' fetched into the local cache (docs/share.md). Every git
//! child runs through `git::Guarded` (the repository forge judged, hooks off) with
//! one deadline for the whole run; the rules of what is sent and taken are
//! `model::agents::share`, the cache's files `store::share`.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::env::{Env, deadline_after};
use crate::git::Guarded;
use crate::model::agents::share::{
    self as rules, FETCH_REFSPEC, FETCHED_PREFIX, MAX_BLOB, MAX_ENTRIES, MAX_WRITERS, META, Meta,
    Outgoing, REF_PREFIX,
};
use crate::model::handoff::entry::HandoffKind;
use crate::model::outcome::Outcome;
use crate::model::session::state::EventLine;
use crate::proc::{Input, Output};
use crate::store::share::{Act, Status, WriterIndex};
use crate::store::{self, Paths, files};

/// How long a run waits for another one of the same repository to finish.
const LOCK_WAIT: Duration = Duration::from_secs(20);
/// The event name of `forge share`'s lines in `events.jsonl`.
pub(crate) const EVENT: &str = "share";

/// What a run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// Publish, then fetch.
    Both,
    /// Publish only (after a Signal is written or resolved).
    Publish,
    /// Fetch only (at SessionStart).
    Fetch,
}

impl What {
    fn publishes(self) -> bool {
        matches!(self, Self::Both | Self::Publish)
    }
    fn fetches(self) -> bool {
        matches!(self, Self::Both | Self::Fetch)
    }
    fn flag(self) -> &'static str {
        match self {
            Self::Both => "--both",
            Self::Publish => "--publish",
            Self::Fetch => "--fetch",
        }
    }
}

/// This machine as a writer: its id (its ref's last part) and machine name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Writer {
    /// The id.
    pub(crate) id: String,
    /// The machine's name.
    pub(crate) machine: String,
}

/// The machine's host name (`/proc/sys/kernel/hostname`, else `/etc/hostname`).
fn machine() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| {
            let b =
                store::safe::read_capped(std::path::Path::new(p), 256, store::safe::Follow::Yes)
                    .ok()?;
            let name = rules::clean_field(&String::from_utf8_lossy(&b));
            (!name.is_empty()).then_some(name)
        })
        .unwrap_or_else(|| "machine".to_owned())
}

/// The file of your state folder that keeps this machine's writer id.
const WRITER_FILE: &str = "share-writer";

/// The writer id kept in `file`, when it holds a valid one.
fn read_writer(file: &std::path::Path) -> Option<String> {
    store::safe::read_capped(file, 256, store::safe::Follow::No)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .filter(|id| rules::valid_writer(id))
}

/// This machine's writer id if one was made, without making one (`--status` only
/// reads).
fn kept_writer(env: &Env) -> Option<String> {
    read_writer(&env.user_state_dir()?.join(WRITER_FILE))
}

/// This machine's writer, made once and kept in your state folder
/// (`~/.local/state/forge/share-writer`): the host name and eight random hex digits,
/// so two homes on one machine are two writers.
pub(crate) fn writer(env: &Env) -> Result<Writer, String> {
    let machine = machine();
    let dir = env
        .user_state_dir()
        .ok_or("no home folder to keep this machine's writer id in")?;
    let file = dir.join(WRITER_FILE);
    let read = || read_writer(&file);
    if let Some(id) = read() {
        return Ok(Writer { id, machine });
    }
    let seed = {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let bytes = format!(
            "{} {} {:?} {:?}",
            env.now.timestamp_nanos_opt().unwrap_or(0),
            std::process::id(),
            env.home,
            std::ptr::from_ref(&h)
        );
        for b in bytes.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^ (h >> 29)
    };
    let id = rules::writer_id(&machine, seed);
    store::safe::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    match store::write_new_atomic(&file, format!("{id}\n").as_bytes()) {
        Ok(()) => Ok(Writer { id, machine }),
        // Another run made it first: its id is the one.
        Err(_) => read()
            .map(|id| Writer {
                id,
                machine: machine.clone(),
            })
            .ok_or_else(|| format!("could not keep the writer id in {}", file.display())),
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Report {
    /// The commit published and its Signals (`None`: nothing new, or not asked).
    pub(crate) sent: Option<(String, usize)>,
    /// Writers fetched, their Signals in the cache, and how many changed.
    pub(crate) fetched: Option<(usize, usize, usize)>,
    /// What was refused or capped.
    pub(crate) refused: Vec<String>,
    /// What failed (the rest still ran).
    pub(crate) errors: Vec<String>,
}

/// `[share] remote`, or why sharing is off.
pub(crate) fn remote_of(cfg: &Config) -> Result<&str, String> {
    cfg.share.remote().ok_or_else(|| {
        "sharing is off: set `[share] remote = \"origin\"` in your own config \
         (~/.config/forge/config.toml); a project's file cannot turn it on"
            .to_owned()
    })
}

/// The inbox's home, where the cache and status are.
pub(crate) fn home_of(paths: &Paths) -> Paths {
    let inbox = store::inbox::Inbox::of(paths);
    inbox.writable_home(paths).0
}

/// Publishes and/or fetches (`what`), within `[share] timeout_secs`; records the status
/// and, once per new failure or refusal, the event log. `Err` only when nothing
/// could start (sharing off, no repository, another run holds the lock).
pub(crate) fn run(paths: &Paths, env: &Env, cfg: &Config, what: What) -> Result<Report, String> {
    let remote = remote_of(cfg)?.to_owned();
    let home = home_of(paths);
    home.ensure_dirs().map_err(|e| e.to_string())?;
    let _lock = store::FileLock::acquire(&store::share::lock_path(&home), LOCK_WAIT)
        .ok_or("another forge share of this repository is still running")?;
    let until = deadline_after(Duration::from_secs(cfg.share.timeout_secs));
    let mut status = store::share::read_status(&home);
    let before = status.clone();
    let mut report = Report::default();
    match prepare(paths, env, &remote, until) {
        Ok((git, me)) => {
            status.writer.clone_from(&me.id);
            if what.publishes() {
                match publish(paths, env, cfg, &git, &me, &remote, &mut status, until) {
                    Ok(sent) => report.sent = sent,
                    Err(e) => report.errors.push(format!("push: {e}")),
                }
            }
            if what.fetches() {
                match fetch(&home, &git, &me, &remote, until, &mut report.refused) {
                    Ok(f) => {
                        report.fetched = Some(f);
                        status.fetched = Some(Act {
                            at: crate::model::time::iso(env.now),
                            what: format!("{} writers", f.0),
                            entries: f.1,
                        });
                        status.refused.clone_from(&report.refused);
                    }
                    Err(e) => report.errors.push(format!("fetch: {e}")),
                }
            }
        }
        Err(e) => report.errors.push(e),
    }
    status.remote.clone_from(&remote);
    status.error = (!report.errors.is_empty()).then(|| Act {
        at: crate::model::time::iso(env.now),
        what: report.errors.join("; "),
        entries: 0,
    });
    let _ = store::share::write_status(&home, &status);
    record(paths, env, &remote, &report, &before);
    if report.fetched.is_some_and(|f| f.2 > 0) {
        warm_count(paths);
    }
    Ok(report)
}

/// Counts the blocked Signals again once the merge is older than the status
/// line's racy window, so the next tick reads the count's first line instead of
/// parsing every new remote Signal itself (this run is in the background; a
/// foreground `forge share` waits the two seconds too).
fn warm_count(paths: &Paths) {
    if !paths.logs().is_dir() {
        return;
    }
    std::thread::sleep(store::handoffs::SIGNAL_RACY + Duration::from_millis(100));
    let now = std::time::SystemTime::from(crate::env::wall_clock());
    let _ = store::handoffs::count_blocked(paths, now);
}

/// The guarded repository and this machine's writer, when the repository's own
/// config makes git run no program of its naming on the way to the remote.
fn prepare(
    paths: &Paths,
    env: &Env,
    remote: &str,
    until: Instant,
) -> Result<(Guarded, Writer), String> {
    let git = Guarded::of(&paths.root)?;
    if let Some(key) = git.transport_program(until)? {
        return Err(format!(
            "the repository's own git config sets `{key}`, which would make git run a program \
             the repository names on the way to {remote}: forge does not share from it (set it \
             in your ~/.gitconfig instead)"
        ));
    }
    Ok((git, writer(env)?))
}

/// The event log, once: a failure when it is not the one already said, each
/// refusal not said at the last fetch, and what was sent or changed.
fn record(paths: &Paths, env: &Env, remote: &str, report: &Report, before: &Status) {
    let mut outcomes = Vec::new();
    // Each failure (the push's, the fetch's) once, until a run succeeds.
    let said = before.error.as_ref().map_or("", |e| e.what.as_str());
    let new: Vec<&str> = report
        .errors
        .iter()
        .map(String::as_str)
        .filter(|e| !said.split("; ").any(|s| s == *e))
        .collect();
    if !new.is_empty() {
        outcomes.push(Outcome::ShareFailed {
            remote: remote.to_owned(),
            why: new.join("; "),
        });
    }
    for r in report
        .refused
        .iter()
        .filter(|r| !before.refused.contains(r))
    {
        outcomes.push(Outcome::ShareRefused { why: r.clone() });
    }
    let sent = report.sent.as_ref().map_or(0, |s| s.1);
    let (writers, _, changed) = report.fetched.unwrap_or_default();
    if sent > 0 || changed > 0 {
        outcomes.push(Outcome::Shared {
            remote: remote.to_owned(),
            sent,
            writers,
            fetched: changed,
        });
    }
    if outcomes.is_empty() || !paths.logs().is_dir() {
        return;
    }
    let _ = files::append_event(
        paths,
        &EventLine {
            time: crate::model::time::iso(env.now),
            event: EVENT.to_owned(),
            session: None,
            facts: serde_json::Map::new(),
            outcomes,
        },
    );
}

/// git's complaint, on one line, at most 300 characters.
fn complaint(done: &crate::proc::Finished, what: &str) -> String {
    if done.timed_out() {
        return format!("{what} did not finish before the deadline");
    }
    let text = crate::model::text::sanitize::cut_chars(
        crate::model::text::sanitize::single_line(&String::from_utf8_lossy(&done.stderr.bytes))
            .trim(),
        300,
    );
    if text.is_empty() {
        format!("{what} failed ({:?})", done.status())
    } else {
        format!("{what}: {text}")
    }
}

/// Runs `git ARGS` (stdin `input`), its stdout when it succeeded (`cap` bytes at
/// most: `Err` when cut).
fn git_out(
    git: &Guarded,
    args: &[&str],
    input: Input,
    cap: usize,
    until: Instant,
) -> Result<Vec<u8>, String> {
    let shown = format!("git {}", args.first().copied().unwrap_or(""));
    let done = git
        .cmd()
        .args(args)
        .stdin(input)
        .stdout(Output::Capture(cap))
        .stderr(Output::Capture(16 * 1024))
        .run_until(until)
        .map_err(|e| format!("{shown}: {e}"))?;
    if !done.success() || done.lingered {
        return Err(complaint(&done, &shown));
    }
    if done.stdout.cut {
        return Err(format!("{shown}: more than {cap} bytes of output"));
    }
    Ok(done.stdout.bytes)
}

/// This machine's Signals (the repository's local agent handoffs, never a remote
/// one), newest first, redacted and cut, those resolved longer ago than the
/// retention left out; at most `MAX_PUBLISH`.
pub(crate) fn outgoing(paths: &Paths, env: &Env, retention_days: u32) -> Vec<Outgoing> {
    let entries = store::handoffs::repository(paths);
    entries
        .iter()
        .filter(|e| e.kind == HandoffKind::Agent && !e.is_remote())
        .filter(|e| rules::valid_entry_name(&e.file_name))
        .filter(|e| {
            let age = e.created.map(|c| (env.now - c).num_days());
            rules::keeps(e.is_superseded(), age, retention_days)
        })
        .take(rules::MAX_PUBLISH)
        .filter_map(|e| {
            let cap = MAX_BLOB * 4;
            let bytes = store::safe::read_capped(&e.path, cap, store::safe::Follow::No).ok()?;
            let text = String::from_utf8_lossy(&bytes);
            let text = crate::model::text::redact::redact_document(&text);
            let text = crate::model::text::sanitize::clean(&text);
            let max = usize::try_from(MAX_BLOB).unwrap_or(usize::MAX);
            Some(Outgoing {
                name: e.file_name.clone(),
                text: rules::cut_bytes(&text, max).to_owned(),
                branch: e.origin.as_deref().and_then(|o| o.branch.clone()),
            })
        })
        .collect()
}

/// A digest of what would be sent (FNV-1a): unchanged, nothing is pushed.
fn digest(entries: &[Outgoing], writer: &Writer) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |b: &[u8]| {
        for &x in b {
            h ^= u64::from(x);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    feed(writer.id.as_bytes());
    feed(writer.machine.as_bytes());
    for e in entries {
        feed(e.name.as_bytes());
        feed(e.text.as_bytes());
        feed(e.branch.as_deref().unwrap_or("").as_bytes());
    }
    format!("{h:016x}")
}

/// Publishes this machine's Signals as the writer's ref (a new parentless commit by
/// `git fast-import`, then `git push --force` of that one ref), unless they are
/// what was last sent.
#[allow(
    clippy::too_many_arguments,
    reason = "one run's parts, passed down once"
)]
fn publish(
    paths: &Paths,
    env: &Env,
    cfg: &Config,
    git: &Guarded,
    me: &Writer,
    remote: &str,
    status: &mut Status,
    until: Instant,
) -> Result<Option<(String, usize)>, String> {
    let entries = outgoing(paths, env, cfg.share.retention_days);
    if entries.is_empty() && status.sent.is_none() {
        // Nothing of this machine's was ever shared: no empty ref is made.
        return Ok(None);
    }
    let sum = digest(&entries, me);
    if status.sent.is_some() && status.sent_digest == sum && status.writer == me.id {
        return Ok(None);
    }
    let refname = format!("{REF_PREFIX}{}", me.id);
    let stream =
        rules::fast_import_stream(&refname, &me.id, &me.machine, &entries, env.now.timestamp());
    git_out(
        git,
        &["fast-import", "--quiet", "--force", "--done"],
        Input::Bytes(stream),
        64 * 1024,
        until,
    )?;
    let commit = git_out(
        git,
        &["rev-parse", "--verify", &refname],
        Input::Null,
        256,
        until,
    )?;
    let commit = String::from_utf8_lossy(&commit).trim().to_owned();
    let spec = format!("+{refname}:{refname}");
    git_out(
        git,
        &[
            "push",
            "--quiet",
            "--no-verify",
            "--porcelain",
            remote,
            &spec,
        ],
        Input::Null,
        64 * 1024,
        until,
    )?;
    status.sent = Some(Act {
        at: crate::model::time::iso(env.now),
        what: commit.clone(),
        entries: entries.len(),
    });
    status.sent_digest = sum;
    Ok(Some((commit, entries.len())))
}

/// Fetches every writer's ref into `refs/forge/fetched/*` and brings the cache in
/// line: a writer whose commit changed is read again under the caps, one whose ref
/// is gone is removed. Returns the writers, their Signals and how many changed.
fn fetch(
    home: &Paths,
    git: &Guarded,
    me: &Writer,
    remote: &str,
    until: Instant,
    refused: &mut Vec<String>,
) -> Result<(usize, usize, usize), String> {
    git_out(
        git,
        &[
            "fetch",
            "--quiet",
            "--no-tags",
            "--prune",
            "--no-write-fetch-head",
            remote,
            FETCH_REFSPEC,
        ],
        Input::Null,
        64 * 1024,
        until,
    )?;
    let listed = git_out(
        git,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            FETCHED_PREFIX,
        ],
        Input::Null,
        4 * 1024 * 1024,
        until,
    )?;
    let mut refs: Vec<(String, String)> = Vec::new();
    for line in String::from_utf8_lossy(&listed).lines() {
        let Some((name, oid)) = line.split_once(' ') else {
            continue;
        };
        let writer = name.strip_prefix(FETCHED_PREFIX).unwrap_or("");
        if !rules::valid_writer(writer) {
            refused.push(format!(
                "a ref named {} is not a writer's",
                crate::model::text::sanitize::cut_chars(&name.escape_debug().to_string(), 80)
            ));
            continue;
        }
        if writer != me.id {
            refs.push((writer.to_owned(), oid.to_owned()));
        }
    }
    refs.sort();
    if refs.len() > MAX_WRITERS {
        refused.push(format!(
            "{} writers' refs: only the first {MAX_WRITERS} by name are read",
            refs.len()
        ));
        refs.truncate(MAX_WRITERS);
    }
    let mut seen = BTreeSet::new();
    let (mut total, mut changed) = (0, 0);
    for (writer, oid) in &refs {
        let tag = rules::writer_tag(writer);
        seen.insert(tag.clone());
        if let Some(old) = store::share::read_writer(home, &tag).filter(|i| &i.commit == oid) {
            total += old.names.len();
            continue;
        }
        match take_writer(home, git, writer, oid, &tag, until, refused) {
            Ok(n) => {
                total += n;
                changed += n;
            }
            Err(e) => {
                refused.push(format!("{writer}: {e}"));
                let _ = store::share::remove_writer(home, &tag);
            }
        }
    }
    for tag in store::share::writer_tags(home) {
        if !seen.contains(&tag) {
            changed += store::share::read_writer(home, &tag).map_or(0, |i| i.names.len());
            let _ = store::share::remove_writer(home, &tag);
        }
    }
    Ok((refs.len(), total, changed))
}

/// Reads the writer's commit `oid` under the caps and puts its entries in the
/// cache; returns how many were taken (each refusal pushed to `refused`).
fn take_writer(
    home: &Paths,
    git: &Guarded,
    writer: &str,
    oid: &str,
    tag: &str,
    until: Instant,
    refused: &mut Vec<String>,
) -> Result<usize, String> {
    // A listing line is at most ~60 bytes and a name MAX_NAME: more than the cap
    // holds is more than MAX_ENTRIES entries, and the ref is refused whole.
    let cap = (MAX_ENTRIES + 1) * (rules::MAX_NAME + 64);
    let tree = match git_out(git, &["ls-tree", "-l", "-z", oid], Input::Null, cap, until) {
        Ok(t) => t,
        Err(e) if e.contains("more than") => {
            return Err(format!("more than {MAX_ENTRIES} entries: refused whole"));
        }
        Err(e) => return Err(e),
    };
    let entries = rules::parse_ls_tree(&tree).ok_or("its tree could not be read")?;
    if entries.len() > MAX_ENTRIES + 1 {
        return Err(format!(
            "{} entries, more than {MAX_ENTRIES}: refused whole",
            entries.len()
        ));
    }
    let mut wanted = Vec::new();
    for e in &entries {
        match rules::refuse_entry(e) {
            Some(why) => refused.push(format!("{writer}: {why}")),
            None => wanted.push(e),
        }
    }
    let mut ask = String::new();
    let mut want_bytes = 0usize;
    for e in &wanted {
        ask.push_str(&e.oid);
        ask.push('\n');
        want_bytes += usize::try_from(e.size.unwrap_or(0)).unwrap_or(0) + e.oid.len() + 32;
    }
    let objects = if ask.is_empty() {
        Vec::new()
    } else {
        let out = git_out(
            git,
            &["cat-file", "--batch"],
            Input::Bytes(ask.into_bytes()),
            want_bytes + 1024,
            until,
        )?;
        rules::parse_batch(&out).ok_or("its objects could not be read")?
    };
    let body = |oid: &str| {
        objects
            .iter()
            .find(|(o, _)| o == oid)
            .map(|(_, b)| b.as_slice())
    };
    let meta: Meta = wanted
        .iter()
        .find(|e| e.name == META.as_bytes())
        .and_then(|e| body(&e.oid))
        .and_then(|b| serde_json::from_slice(b).ok())
        .unwrap_or_default();
    let meta = meta.cleaned(writer);
    let mut index = WriterIndex {
        writer: writer.to_owned(),
        machine: if meta.machine.is_empty() {
            "?".to_owned()
        } else {
            meta.machine.clone()
        },
        commit: oid.to_owned(),
        names: std::collections::BTreeMap::new(),
    };
    let mut files = Vec::new();
    for e in wanted.iter().filter(|e| e.name != META.as_bytes()) {
        let (Ok(name), Some(bytes)) = (std::str::from_utf8(&e.name), body(&e.oid)) else {
            continue;
        };
        let cached = rules::cached_name(tag, name);
        index.names.insert(
            cached.clone(),
            meta.branches.get(name).cloned().unwrap_or_default(),
        );
        files.push((cached, rules::clean_text(bytes)));
    }
    store::share::replace_writer(home, tag, &index, &files).map_err(|e| e.to_string())?;
    Ok(files.len())
}

/// How often SessionStart starts a background fetch at most: many sessions starting
/// at once (a fleet, `forge run`'s relay) start one fetch, not one each.
pub(crate) const FETCH_EVERY: Duration = Duration::from_secs(30);

/// Whether SessionStart's fetch is due: none started in the last [`FETCH_EVERY`]
/// (`.forge/share/fetch-started`'s mtime, one `stat`; touched when one is started).
fn fetch_due(paths: &Paths, env: &Env) -> bool {
    let home = store::inbox::Inbox::of(paths).home;
    let stamp = store::share::dir(&home).join("fetch-started");
    let now = std::time::SystemTime::from(env.now);
    let recent = std::fs::symlink_metadata(&stamp)
        .and_then(|m| m.modified())
        .ok()
        // A stamp a little in the future is one just made; one far in it (a clock
        // set back) does not hold the next fetch back for long.
        .map(|t| match now.duration_since(t) {
            Ok(age) => age,
            Err(e) => e.duration(),
        })
        .is_some_and(|age| age < FETCH_EVERY);
    if recent || !store::share::sound(&home) || home.check().is_err() {
        return false;
    }
    let _ = store::safe::create_dir_all(&store::share::dir(&home));
    store::write_state(&stamp, b"").is_ok()
}

/// Starts `forge share --background` detached when sharing is on (your own
/// `[share] remote`): a fetch at SessionStart, a publish after a Signal is written
/// or resolved. Never waited for: no hook and no tick waits on the network.
pub(crate) fn start_background(paths: &Paths, env: &Env, cfg: &Config, what: What) {
    if cfg.share.remote().is_none() {
        return;
    }
    if what == What::Fetch && !fetch_due(paths, env) {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut project = std::ffi::OsString::from("--project=");
    project.push(&paths.root);
    if let Err(e) = crate::proc::Cmd::new(exe)
        .args(["share", "--background", what.flag()])
        .arg(project)
        .detach()
    {
        store::log_error(paths, "share", &e.to_string());
    }
}

/// How long `forge doctor` waits for the remote.
const DOCTOR_BUDGET: Duration = Duration::from_secs(15);

/// What `forge doctor` finds of sharing: `Ok(lines)` when the remote answers and
/// the refs are sound, `Err(why)` otherwise.
pub(crate) fn doctor(paths: &Paths, env: &Env, cfg: &Config) -> Result<Vec<String>, String> {
    let remote = remote_of(cfg)?;
    let until = deadline_after(DOCTOR_BUDGET);
    let (git, me) = prepare(paths, env, remote, until)?;
    let url = git_out(
        &git,
        &["remote", "get-url", remote],
        Input::Null,
        8192,
        until,
    )
    .map_err(|_| {
        format!("the repository has no remote named `{remote}` (`git remote -v` lists them)")
    })?;
    let refname = format!("{REF_PREFIX}{}", me.id);
    git_out(
        &git,
        &["check-ref-format", &refname],
        Input::Null,
        256,
        until,
    )
    .map_err(|_| format!("{refname} is not a valid ref name"))?;
    let pattern = format!("{REF_PREFIX}*");
    let listed = git_out(
        &git,
        &["ls-remote", "--refs", remote, &pattern],
        Input::Null,
        4 * 1024 * 1024,
        until,
    )
    .map_err(|e| format!("{remote} did not answer: {e}"))?;
    let listed = String::from_utf8_lossy(&listed);
    let writers = listed.lines().count();
    let mine = listed.lines().any(|l| l.ends_with(&refname));
    Ok(vec![
        format!(
            "remote {remote}: {}",
            crate::model::text::sanitize::single_line(String::from_utf8_lossy(&url).trim())
        ),
        format!("fetch refspec: {FETCH_REFSPEC}"),
        format!(
            "this machine publishes {refname} ({})",
            if mine {
                "on the remote"
            } else {
                "not sent yet"
            }
        ),
        format!(
            "{writers} writer ref{} on the remote",
            if writers == 1 { "" } else { "s" }
        ),
    ])
}

/// `s` for a count other than one: `1 Signal`, `2 Signals`.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// What `forge share --status` prints: whether sharing is on, this machine's writer,
/// what was last sent and fetched, and the last error.
pub(crate) fn status_text(paths: &Paths, env: &Env, cfg: &Config) -> String {
    use crate::model::text::sanitize::single_line;
    use std::fmt::Write as _;
    let home = home_of(paths);
    let s = store::share::read_status(&home);
    let mut out = String::new();
    match cfg.share.remote() {
        Some(r) => {
            let _ = writeln!(out, "sharing: on, through {}", single_line(r));
        }
        None => out.push_str(
            "sharing: off (set `[share] remote = \"origin\"` in your own config to turn it on)\n",
        ),
    }
    let writer = kept_writer(env).unwrap_or(s.writer.clone());
    if writer.is_empty() {
        out.push_str("this machine: no writer id yet (the first `forge share` makes one)\n");
    } else {
        let _ = writeln!(
            out,
            "this machine: writer {} (refs/forge/signals/{})",
            single_line(&writer),
            single_line(&writer)
        );
    }
    let act = |label: &str, a: Option<&Act>| match a {
        Some(a) => format!(
            "{label}: {} Signal{} at {} ({})\n",
            a.entries,
            plural(a.entries),
            single_line(&a.at),
            single_line(&a.what)
        ),
        None => format!("{label}: never\n"),
    };
    out.push_str(&act("last sent", s.sent.as_ref()));
    out.push_str(&act("last fetched", s.fetched.as_ref()));
    match &s.error {
        Some(e) => {
            let _ = writeln!(
                out,
                "last error: at {}: {}",
                single_line(&e.at),
                single_line(&e.what)
            );
        }
        None => out.push_str("last error: none\n"),
    }
    for r in &s.refused {
        let _ = writeln!(out, "refused at the last fetch: {}", single_line(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessionstart_starts_one_fetch_per_interval() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("p");
        let paths = Paths::new(&root);
        paths.ensure_dirs().unwrap();
        let mut env = Env::for_test(&t.path().join("home"), &root);
        env.now = crate::env::wall_clock();
        assert!(fetch_due(&paths, &env), "none started yet");
        assert!(!fetch_due(&paths, &env), "one just started");
        env.now += chrono::Duration::seconds(29);
        assert!(!fetch_due(&paths, &env));
        env.now += chrono::Duration::seconds(2);
        assert!(fetch_due(&paths, &env), "the interval passed");
        // A `.forge/share` that is a link is no place to stamp: nothing is started.
        let other = Paths::new(t.path().join("q"));
        other.ensure_dirs().unwrap();
        std::os::unix::fs::symlink(t.path(), other.forge_dir().join("share")).unwrap();
        assert!(!fetch_due(&other, &env));
    }
}
