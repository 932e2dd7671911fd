//! Watching `.forge/` for the dashboard.
//!
//! Watcher events are hints: [`classify`] turns each debounced event into a
//! [`Change`] (or nothing), and the dashboard re-reads the disk. Folders are watched,
//! never single files, because an atomic write renames a new inode over the old one.
//! forge's own temp files (`.forge-*.tmp`) and lock files are ignored, so a write
//! causes one reload, not three. A rescan request, an error or an event notify cannot
//! describe (`Any`/`Other`) means a full reload.
//!
//! When the project has no `.forge/` yet, the root is watched (not recursively) until
//! it appears; the dashboard never creates `.forge/` just by looking at a project.
//!
//! `forge tui --all` watches the fleet registry's folder (`$XDG_STATE_HOME/forge/`)
//! the same way: [`registry_changed`] says whether a batch touched the registry file
//! or its pending registrations (`projects.pending/`), and the list reads them again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{
    DebounceEventHandler, DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache,
    new_debouncer,
};

use crate::model::handoff::entry::HandoffKind;
use crate::store::{Paths, TEMP_PREFIX, TEMP_SUFFIX};

/// How long the debouncer waits for a burst of events to settle.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(100);
/// How often the debouncer looks for settled events (its thread sleeps in between).
pub(crate) const DEBOUNCE_TICK: Duration = Duration::from_millis(50);

/// What a watcher event means for the dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// Re-read everything.
    Full,
    /// A state file changed (logs, flags, bridges, `state.json`, `pending-resume`).
    State,
    /// These handoff files were created, changed or removed (re-`stat` each).
    Handoffs(Vec<PathBuf>),
    /// `.forge/` was created: watch it, and read everything.
    ForgeAppeared,
}

/// Whether a file name is one of forge's temp or lock files.
pub(crate) fn is_noise(name: &str) -> bool {
    (name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)) || name.ends_with(".lock")
}

/// What one debounced event means, given the project's `.forge` folder.
pub(crate) fn classify(event: &DebouncedEvent, forge_dir: &Path) -> Option<Change> {
    if event.need_rescan() {
        return Some(Change::Full);
    }
    match event.kind {
        EventKind::Access(_) => return None,
        EventKind::Any | EventKind::Other => return Some(Change::Full),
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => {}
    }
    let handoffs_dir = forge_dir.join("handoffs");
    let mut handoffs = Vec::new();
    let mut state = false;
    for path in &event.paths {
        if path == forge_dir {
            return Some(match event.kind {
                EventKind::Create(_) => Change::ForgeAppeared,
                _ => Change::Full,
            });
        }
        if !path.starts_with(forge_dir) {
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if is_noise(name) {
            continue;
        }
        if path == &handoffs_dir {
            return Some(Change::Full);
        }
        if path.parent() == Some(handoffs_dir.as_path()) {
            if HandoffKind::of_file_name(name).is_some() {
                handoffs.push(path.clone());
            }
            continue;
        }
        state = true;
    }
    match (state, handoffs.is_empty()) {
        (true, false) => Some(Change::Full),
        (true, true) => Some(Change::State),
        (false, false) => Some(Change::Handoffs(handoffs)),
        (false, true) => None,
    }
}

/// Changes gathered from a burst of events, to be applied with one reload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pending {
    /// Re-read everything.
    pub(crate) full: bool,
    /// Re-read the state files.
    pub(crate) state: bool,
    /// Re-read these handoffs.
    pub(crate) handoffs: BTreeSet<PathBuf>,
}

impl Pending {
    /// Folds the result of one debouncer delivery in.
    pub(crate) fn add_result(&mut self, result: &DebounceEventResult, forge_dir: &Path) {
        match result {
            Ok(events) => {
                for e in events {
                    if let Some(c) = classify(e, forge_dir) {
                        self.add(c);
                    }
                }
            }
            Err(_) => self.full = true,
        }
    }

    /// Folds one change in.
    pub(crate) fn add(&mut self, change: Change) {
        match change {
            Change::Full | Change::ForgeAppeared => self.full = true,
            Change::State => self.state = true,
            Change::Handoffs(paths) => self.handoffs.extend(paths),
        }
    }

    /// Folds in a delivery's events about the other folders of the repository's inbox
    /// (`others`: their `handoffs/` folders, see [`Watcher::others`]): anything there
    /// but forge's temp and lock files means a full reload (the inbox is listed
    /// again, with where each Signal came from).
    pub(crate) fn add_elsewhere(&mut self, result: &DebounceEventResult, others: &[PathBuf]) {
        let Ok(events) = result else {
            return;
        };
        let touches = |path: &Path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !is_noise(name)
                && others
                    .iter()
                    .filter_map(|h| h.parent())
                    .any(|forge| path.starts_with(forge))
        };
        if events
            .iter()
            .any(|e| !matches!(e.kind, EventKind::Access(_)) && e.paths.iter().any(|p| touches(p)))
        {
            self.full = true;
        }
    }

    /// Whether nothing needs reading.
    pub(crate) fn is_empty(&self) -> bool {
        !self.full && !self.state && self.handoffs.is_empty()
    }
}

/// Whether one debounced event touched the fleet registry at `file`: the file itself,
/// a registration kept aside in `projects.pending/`, or the registry's folder (or a
/// folder above it) coming or going. The lock and forge's temp files do not count,
/// and neither does anything else in the folder (the trust records). A rescan request
/// or an event notify cannot describe counts.
pub(crate) fn registry_event(event: &DebouncedEvent, file: &Path) -> bool {
    if event.need_rescan() {
        return true;
    }
    match event.kind {
        EventKind::Access(_) => return false,
        EventKind::Any | EventKind::Other => return true,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => {}
    }
    let Some(dir) = file.parent() else {
        return true;
    };
    let pending = dir.join(crate::store::registry::PENDING);
    event.paths.iter().any(|path| {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        !is_noise(name) && (path == file || path.starts_with(&pending) || dir.starts_with(path))
    })
}

/// Whether a debouncer delivery touched the fleet registry at `file` (an error
/// always counts: read it again).
pub(crate) fn registry_changed(result: &DebounceEventResult, file: &Path) -> bool {
    match result {
        Ok(events) => events.iter().any(|e| registry_event(e, file)),
        Err(_) => true,
    }
}

/// A debounced watcher of one folder: recursively once it is a real folder, and the
/// nearest folder above it that exists not recursively (always), so that the folder
/// coming or going is seen. It watches a project's `.forge/` ([`Watcher::start`])
/// or the fleet registry's folder ([`Watcher::folder`]). Dropping it stops watching.
pub(crate) struct Watcher {
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    dir: PathBuf,
    anchor: Option<PathBuf>,
    watching_dir: bool,
    /// The `handoffs/` folders of the repository's other work trees (the project's
    /// inbox, `store::inbox`).
    others: Vec<PathBuf>,
    /// What is watched for each of them (not recursively): the folder once it exists,
    /// else its `.forge/`, else that work tree's root.
    others_watched: Vec<Option<PathBuf>>,
}

impl Watcher {
    /// Starts watching the project at `paths`; `handler` receives debounced batches
    /// on the debouncer's thread.
    pub(crate) fn start(paths: &Paths, handler: impl DebounceEventHandler) -> notify::Result<Self> {
        let mut w = Self::folder(&paths.forge_dir(), handler)?;
        w.others = crate::store::inbox::Inbox::of(paths)
            .others()
            .map(|f| f.paths.handoffs())
            .collect();
        w.others_watched = vec![None; w.others.len()];
        w.sync()?;
        Ok(w)
    }

    /// The `handoffs/` folders of the repository's other work trees this watcher
    /// also reports on (see [`Pending::add_elsewhere`]).
    pub(crate) fn others(&self) -> &[PathBuf] {
        &self.others
    }

    /// Starts watching `dir` (which may not exist yet); `handler` receives debounced
    /// batches on the debouncer's thread.
    pub(crate) fn folder(dir: &Path, handler: impl DebounceEventHandler) -> notify::Result<Self> {
        let debouncer = new_debouncer(DEBOUNCE, Some(DEBOUNCE_TICK), handler)?;
        let mut w = Self {
            debouncer,
            dir: dir.to_path_buf(),
            anchor: None,
            watching_dir: false,
            others: Vec::new(),
            others_watched: Vec::new(),
        };
        w.sync()?;
        Ok(w)
    }

    /// The `.forge` folder this watcher reports on.
    pub(crate) fn forge_dir(&self) -> &Path {
        &self.dir
    }

    /// Watches the folder recursively once it exists (and stops when it is removed).
    /// The nearest folder above it that exists (a project's root) stays watched, not
    /// recursively, so the folder coming or going is seen.
    pub(crate) fn sync(&mut self) -> notify::Result<()> {
        let anchor = self.dir.ancestors().skip(1).find(|a| a.is_dir());
        if anchor != self.anchor.as_deref() {
            if let Some(old) = self.anchor.take() {
                let _ = self.debouncer.unwatch(&old);
            }
            if let Some(new) = anchor {
                self.debouncer.watch(new, RecursiveMode::NonRecursive)?;
                self.anchor = Some(new.to_path_buf());
            }
        }
        // A real folder only: a link put in its place is never watched (or read).
        let exists = crate::store::safe::is_real_dir(&self.dir);
        if exists && !self.watching_dir {
            self.debouncer.watch(&self.dir, RecursiveMode::Recursive)?;
            self.watching_dir = true;
        } else if !exists && self.watching_dir {
            let _ = self.debouncer.unwatch(&self.dir);
            self.watching_dir = false;
        }
        for (handoffs, watched) in self.others.iter().zip(&mut self.others_watched) {
            // A work tree removed meanwhile has nothing left to watch: no error.
            let want = handoffs
                .ancestors()
                .take(3)
                .find(|a| crate::store::safe::is_real_dir(a))
                .map(Path::to_path_buf);
            if want != *watched {
                if let Some(old) = watched.take() {
                    let _ = self.debouncer.unwatch(&old);
                }
                if let Some(new) = want
                    && self
                        .debouncer
                        .watch(&new, RecursiveMode::NonRecursive)
                        .is_ok()
                {
                    *watched = Some(new);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{
        AccessKind, CreateKind, DataChange, MetadataKind, ModifyKind, RemoveKind, RenameMode,
    };
    use notify::{Event, event::Flag};
    use std::time::Instant;

    fn ev(kind: EventKind, paths: &[&str]) -> DebouncedEvent {
        let mut e = Event::new(kind);
        for p in paths {
            e = e.add_path(PathBuf::from(p));
        }
        DebouncedEvent::new(e, Instant::now())
    }

    const F: &str = "/p/.forge";

    #[test]
    fn a_change_in_another_worktrees_inbox_folder_is_a_full_reload() {
        let others = [PathBuf::from("/wt-b/.forge/handoffs")];
        let batch =
            |kind: EventKind, path: &str| -> DebounceEventResult { Ok(vec![ev(kind, &[path])]) };
        let mut p = Pending::default();
        p.add_elsewhere(
            &batch(
                EventKind::Access(AccessKind::Any),
                "/wt-b/.forge/handoffs/agent-T-1-20261121-094500.md",
            ),
            &others,
        );
        p.add_elsewhere(
            &batch(
                EventKind::Create(CreateKind::File),
                "/wt-b/.forge/handoffs/.forge-x.tmp",
            ),
            &others,
        );
        p.add_elsewhere(
            &batch(EventKind::Create(CreateKind::File), "/wt-b/src/main.rs"),
            &others,
        );
        assert!(p.is_empty(), "{p:?}");
        p.add_elsewhere(
            &batch(
                EventKind::Create(CreateKind::File),
                "/wt-b/.forge/handoffs/agent-T-1-20261121-094500.md",
            ),
            &others,
        );
        assert!(p.full);
        // Its .forge/ appearing (watched until then) counts too.
        let mut p = Pending::default();
        p.add_elsewhere(
            &batch(
                EventKind::Create(CreateKind::Folder),
                "/wt-b/.forge/handoffs",
            ),
            &others,
        );
        assert!(p.full);
    }

    #[test]
    fn classify_table() {
        let h = |n: &str| format!("/p/.forge/handoffs/{n}");
        let new_h = h("handoff-20261121-094500.md");
        let agent = h("agent-T-1-20261121-094500.md");
        let tmp = h(".forge-abc123.tmp");
        let cases: Vec<(DebouncedEvent, Option<Change>)> = vec![
            (ev(EventKind::Any, &[&new_h]), Some(Change::Full)),
            (ev(EventKind::Other, &[]), Some(Change::Full)),
            (ev(EventKind::Access(AccessKind::Any), &[&new_h]), None),
            (
                ev(EventKind::Create(CreateKind::File), &[&new_h]),
                Some(Change::Handoffs(vec![new_h.clone().into()])),
            ),
            (
                ev(
                    EventKind::Modify(ModifyKind::Data(DataChange::Any)),
                    &[&agent],
                ),
                Some(Change::Handoffs(vec![agent.clone().into()])),
            ),
            (
                ev(EventKind::Remove(RemoveKind::File), &[&agent]),
                Some(Change::Handoffs(vec![agent.clone().into()])),
            ),
            // An atomic write: the temp file renamed over the target. Only the target counts.
            (
                ev(
                    EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
                    &[&tmp, &new_h],
                ),
                Some(Change::Handoffs(vec![new_h.clone().into()])),
            ),
            (ev(EventKind::Create(CreateKind::File), &[&tmp]), None),
            (
                ev(
                    EventKind::Create(CreateKind::File),
                    &["/p/.forge/logs/sessions/a.json.lock"],
                ),
                None,
            ),
            (
                ev(EventKind::Create(CreateKind::File), &[&h("notes.txt")]),
                None,
            ),
            (
                ev(
                    EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
                    &["/p/.forge/logs/sessions/a.json"],
                ),
                Some(Change::State),
            ),
            (
                ev(
                    EventKind::Create(CreateKind::File),
                    &["/p/.forge/pending-resume"],
                ),
                Some(Change::State),
            ),
            (
                ev(EventKind::Create(CreateKind::Folder), &[F]),
                Some(Change::ForgeAppeared),
            ),
            (
                ev(EventKind::Remove(RemoveKind::Folder), &[F]),
                Some(Change::Full),
            ),
            (
                ev(
                    EventKind::Remove(RemoveKind::Folder),
                    &["/p/.forge/handoffs"],
                ),
                Some(Change::Full),
            ),
            // Outside .forge (the root is watched until .forge exists): ignored.
            (
                ev(EventKind::Create(CreateKind::File), &["/p/src/main.rs"]),
                None,
            ),
            // A rename from a state file to a handoff: read everything.
            (
                ev(
                    EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
                    &["/p/.forge/logs/x.md", &new_h],
                ),
                Some(Change::Full),
            ),
            (
                ev(EventKind::Create(CreateKind::File), &["/p/.forge/logs/x"]).set_rescan(),
                Some(Change::Full),
            ),
        ];
        for (i, (e, want)) in cases.into_iter().enumerate() {
            assert_eq!(classify(&e, Path::new(F)), want, "case {i}: {e:?}");
        }
    }

    #[test]
    fn registry_events_table() {
        let file = Path::new("/s/forge/projects.json");
        let pending = "/s/forge/projects.pending/00000000001-7-0.json";
        let create = EventKind::Create(CreateKind::File);
        let cases: Vec<(DebouncedEvent, bool)> = vec![
            // An atomic write of the registry: the temp file renamed over it.
            (
                ev(
                    EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
                    &["/s/forge/.forge-abc.tmp", "/s/forge/projects.json"],
                ),
                true,
            ),
            (ev(create, &["/s/forge/.forge-abc.tmp"]), false),
            (ev(create, &["/s/forge/projects.lock"]), false),
            // A registration kept aside while the lock was busy, and its removal.
            (ev(create, &[pending]), true),
            (ev(EventKind::Remove(RemoveKind::File), &[pending]), true),
            (
                ev(
                    EventKind::Create(CreateKind::Folder),
                    &["/s/forge/projects.pending"],
                ),
                true,
            ),
            // The registry's folder, or one above it, coming or going.
            (
                ev(EventKind::Create(CreateKind::Folder), &["/s/forge"]),
                true,
            ),
            (ev(EventKind::Create(CreateKind::Folder), &["/s"]), true),
            (
                ev(EventKind::Remove(RemoveKind::Folder), &["/s/forge"]),
                true,
            ),
            // The rest of the folder (trust records) and its neighbours: not the list's.
            (ev(create, &["/s/forge/trust/abc.json"]), false),
            (ev(create, &["/s/lesshst"]), false),
            (ev(EventKind::Access(AccessKind::Any), &[pending]), false),
            (ev(EventKind::Any, &["/s/lesshst"]), true),
            (ev(EventKind::Other, &[]), true),
            (ev(create, &["/s/lesshst"]).set_rescan(), true),
        ];
        for (i, (e, want)) in cases.into_iter().enumerate() {
            assert_eq!(registry_event(&e, file), want, "case {i}: {e:?}");
        }
        assert!(registry_changed(
            &Err(vec![notify::Error::generic("overflow")]),
            file
        ));
        assert!(!registry_changed(&Ok(Vec::new()), file));
    }

    #[test]
    fn a_registry_folder_that_appears_later_is_watched() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path().canonicalize().unwrap().join("state");
        let file = state.join("forge").join(crate::store::registry::FILE);
        let (tx, rx) = std::sync::mpsc::channel();
        let mut w = Watcher::folder(file.parent().unwrap(), tx).unwrap();
        let wait = |rx: &std::sync::mpsc::Receiver<DebounceEventResult>| {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(r) = rx.recv_timeout(Duration::from_millis(100))
                    && registry_changed(&r, &file)
                {
                    return true;
                }
            }
            false
        };
        // Neither the state folder nor forge/ exists yet: their nearest folder that does
        // is watched, and the chain appearing is seen.
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        assert!(wait(&rx), "the registry folder appearing was not seen");
        w.sync().unwrap();
        crate::store::write_atomic(&file, b"{}").unwrap();
        assert!(wait(&rx), "the registry written was not seen");
        let pending = file.with_file_name(crate::store::registry::PENDING);
        std::fs::create_dir_all(&pending).unwrap();
        while rx.recv_timeout(Duration::from_millis(300)).is_ok() {}
        crate::store::write_new_atomic(&pending.join("1-2-3.json"), b"{}").unwrap();
        assert!(wait(&rx), "a pending registration was not seen");
    }

    trait Rescan {
        fn set_rescan(self) -> Self;
    }
    impl Rescan for DebouncedEvent {
        fn set_rescan(mut self) -> Self {
            self.event = self.event.clone().set_flag(Flag::Rescan);
            self
        }
    }

    #[test]
    fn pending_folds_a_burst() {
        let mut p = Pending::default();
        assert!(p.is_empty());
        let h = "/p/.forge/handoffs/handoff-20261121-094500.md";
        p.add_result(
            &Ok(vec![
                ev(EventKind::Create(CreateKind::File), &[h]),
                ev(EventKind::Modify(ModifyKind::Any), &[h]),
            ]),
            Path::new(F),
        );
        assert_eq!(p.handoffs.len(), 1);
        assert!(!p.full && !p.state);
        p.add_result(&Err(vec![notify::Error::generic("overflow")]), Path::new(F));
        assert!(p.full);
    }

    #[test]
    fn watcher_reports_a_new_handoff_and_ignores_temp_files() {
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::new(t.path().canonicalize().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        let mut w = Watcher::start(&paths, tx).unwrap();
        // No .forge yet: creating it is seen.
        std::fs::create_dir_all(paths.handoffs()).unwrap();
        let mut seen = Pending::default();
        let deadline = Instant::now() + Duration::from_secs(5);
        while !seen.full && Instant::now() < deadline {
            if let Ok(r) = rx.recv_timeout(Duration::from_millis(100)) {
                seen.add_result(&r, w.forge_dir());
            }
        }
        assert!(seen.full, "creating .forge/ was not seen");
        w.sync().unwrap();
        let target = paths.handoffs().join("handoff-20261121-094500.md");
        crate::store::write_atomic(&target, b"# hi\n").unwrap();
        let mut seen = Pending::default();
        let deadline = Instant::now() + Duration::from_secs(5);
        while seen.handoffs.is_empty() && Instant::now() < deadline {
            if let Ok(r) = rx.recv_timeout(Duration::from_millis(100)) {
                seen.add_result(&r, w.forge_dir());
            }
        }
        assert_eq!(seen.handoffs.into_iter().collect::<Vec<_>>(), vec![target]);
        assert!(!seen.state, "temp files must not count as state changes");
    }
}
