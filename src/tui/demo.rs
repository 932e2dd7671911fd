//! The `--demo` project: `assets/demo/` compiled into the binary, so it works from any
//! folder, and written to a temporary folder at start so the demo can change (Enter
//! writes a pending resume; new files show up live).
//!
//! The sample files are dated around [`ANCHOR`]; when installed, every timestamp (ISO
//! times in the text, `YYYYMMDD-HHMMSS` stamps in names and text) moves by the same
//! amount so that the anchor becomes "now" and ages read "15m", not "3 months".

use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, NaiveDateTime, TimeZone, Utc};

/// The moment the sample files treat as "now".
pub(crate) const ANCHOR: &str = "2026-11-21T10:30:00Z";

/// The name of the demo project folder inside the temporary folder.
pub(crate) const PROJECT: &str = "acme-api";

macro_rules! demo_files {
    ($($path:literal),* $(,)?) => {
        /// Every file of `assets/demo/`: path relative to the project, and content.
        pub(crate) const FILES: &[(&str, &str)] = &[
            $(($path, include_str!(concat!("../../assets/demo/", $path))),)*
        ];
    };
}

demo_files![
    ".forge/handoffs/agent-T-010-20261120-170944.md",
    ".forge/handoffs/agent-T-011-20261121-090102.md",
    ".forge/handoffs/agent-T-012-20261121-101502.md",
    ".forge/handoffs/agent-T-013-20261121-102400.md",
    ".forge/handoffs/handoff-20261119-163000.md",
    ".forge/handoffs/handoff-20261121-094500.md",
    ".forge/logs/context-threshold-triggered",
    ".forge/logs/events.jsonl",
    ".forge/logs/git-cache.json",
    ".forge/logs/last-session.json",
    ".forge/logs/learn-pending",
    ".forge/logs/sessions/3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21.json",
    ".forge/logs/sessions/5c2e9f10-7a4b-4d63-9b1e-0f8d2c3a4b5e.json",
    ".forge/logs/sessions/b71d04f6-2c9a-4e15-b3d7-8a0e5f1c6d92.json",
    ".forge/state.json",
];

fn anchor() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(ANCHOR)
        .map(|d| d.with_timezone(&Utc))
        .unwrap_or_default()
}

/// Writes the demo project under `dir` (as `dir/acme-api`) with its times moved so
/// that [`ANCHOR`] is `now`. Returns the project root.
pub(crate) fn install(dir: &Path, now: DateTime<Utc>) -> io::Result<PathBuf> {
    let root = dir.join(PROJECT);
    let delta = now - anchor();
    for (rel, text) in FILES {
        let path = root.join(shift_stamps(rel, delta));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // A plain write: the folder is brand new and private, nothing reads it yet, and
        // store::write_atomic's fsync per file made the demo start ~10x slower.
        #[allow(clippy::disallowed_methods)]
        std::fs::write(&path, shift_stamps(text, delta))?;
    }
    Ok(root)
}

/// Moves every `YYYY-MM-DDTHH:MM:SSZ` time and `YYYYMMDD-HHMMSS` stamp in `text` by
/// `delta`. Anything that only looks like one (bad month, digits around it) is kept.
pub(crate) fn shift_stamps(text: &str, delta: Duration) -> String {
    const ISO: &str = "%Y-%m-%dT%H:%M:%SZ";
    const STAMP: &str = "%Y%m%d-%H%M%S";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        let before_ok = i == 0 || !bytes[i - 1].is_ascii_digit();
        let mut matched = None;
        if before_ok {
            for (len, fmt, shape) in [
                (20, ISO, "dddd-dd-ddTdd:dd:ddZ"),
                (15, STAMP, "dddddddd-dddddd"),
            ] {
                let Some(cand) = text.get(i..i + len) else {
                    continue;
                };
                let after_ok = bytes.get(i + len).is_none_or(|b| !b.is_ascii_digit());
                let fits = cand.bytes().zip(shape.bytes()).all(|(c, s)| {
                    if s == b'd' {
                        c.is_ascii_digit()
                    } else {
                        c == s
                    }
                });
                if !(fits && after_ok) {
                    continue;
                }
                let parse = if len == 20 { &cand[..19] } else { cand };
                let pfmt = if len == 20 { "%Y-%m-%dT%H:%M:%S" } else { fmt };
                if let Ok(t) = NaiveDateTime::parse_from_str(parse, pfmt) {
                    let moved = Utc.from_utc_datetime(&t) + delta;
                    matched = Some((len, moved.format(fmt).to_string()));
                    break;
                }
            }
        }
        match matched {
            Some((len, replacement)) => {
                out.push_str(&text[copied..i]);
                out.push_str(&replacement);
                i += len;
                copied = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_move_and_lookalikes_stay() {
        let d = Duration::hours(25);
        assert_eq!(
            shift_stamps("at 2026-11-21T10:30:00Z in handoff-20261121-094500.md", d),
            "at 2026-11-22T11:30:00Z in handoff-20261122-104500.md"
        );
        assert_eq!(
            shift_stamps("agent-T-012-20261121-101502.md", d),
            "agent-T-012-20261122-111502.md"
        );
        for keep in [
            "120261121-094500",
            "20261399-094500",
            "2026-11-21T10:30:00+01:00",
            "é 2026 ü",
            "",
        ] {
            assert_eq!(shift_stamps(keep, d), keep);
        }
    }

    #[test]
    fn every_asset_is_embedded() {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
        let mut on_disk = Vec::new();
        let mut stack = vec![base.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    on_disk.push(p.strip_prefix(&base).unwrap().display().to_string());
                }
            }
        }
        on_disk.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(p, _)| (*p).to_owned()).collect();
        embedded.sort();
        assert_eq!(
            on_disk, embedded,
            "add new assets/demo files to demo_files![]"
        );
    }

    #[test]
    fn installed_demo_is_dated_around_now() {
        let t = tempfile::tempdir().unwrap();
        let now = Utc.with_ymd_and_hms(2030, 1, 2, 3, 4, 5).unwrap();
        let root = install(t.path(), now).unwrap();
        let snap = crate::app::snapshot::load(
            &crate::store::Paths::new(&root),
            now,
            crate::app::snapshot::GitSource::Cache,
        );
        assert_eq!(snap.handoffs.len(), 6);
        assert_eq!(snap.blocked().count(), 1);
        assert!(snap.flags.learn_pending);
        let newest = snap.handoffs[0].created.unwrap();
        assert!(now - newest < Duration::hours(1), "{newest}");
        assert!(newest <= now);
        let s = snap.current_session(now, Duration::minutes(30)).unwrap();
        assert!(s.readings.len() > 10);
        // Waiting for permission, for input, and the busy one: all live.
        let live: Vec<_> = snap
            .attention(now, Duration::minutes(30))
            .iter()
            .map(|s| s.attention.unwrap().as_str())
            .collect();
        assert_eq!(live, ["waiting:permission", "waiting:input", "busy"]);
        assert_eq!(snap.waiting(now, Duration::minutes(30)).len(), 2);
    }
}
