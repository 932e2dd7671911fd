//! File I/O for session transcripts; the parsing is in `crate::model::session::transcript`.
//!
//! - [`tail_context`] reads only the **end** of the file: 16 KiB first, growing ×4 up
//!   to [`TAIL_MAX`] until a qualifying usage record or a `compact_boundary` is in
//!   view. Its cost depends on how far back the last usage is, never on the file's
//!   size.
//! - [`read_facts`] reads at most the last [`FACTS_CAP`] bytes for a handoff and says
//!   whether the file was cut.
//! - [`read_conversation`] reads the same tail for the dashboard's pager.
//! - [`count_compactions`] streams the file (at most [`COUNT_CAP`] bytes) in fixed
//!   chunks and byte-searches them for `compact_boundary`: only a line holding those
//!   bytes is parsed (a line longer than [`LINE_MAX`] is skipped, not gathered), so
//!   it runs at about the speed of `wc -l` in bounded memory; it is for `forge
//!   context`, never for the statusline.
//!
//! A transcript is opened as `store::safe` opens files: non-blocking and only a
//! regular file, so a FIFO or device named as a transcript never hangs anything (a
//! final link is followed: the path comes from Claude Code or the user).

use std::fs::File;
use std::io::{self, BufRead as _, Read, Seek, SeekFrom};
use std::path::Path;

use super::safe::{self, Follow};

use crate::model::session::transcript::{self, TailScan, TranscriptFacts};

/// First tail read (most last records are a few KB; it grows ×4 when needed).
pub(crate) const TAIL_START: u64 = 16 * 1024;
/// Largest tail read for the context size.
pub(crate) const TAIL_MAX: u64 = 4 * 1024 * 1024;
/// Most a handoff reads from the end of a transcript.
pub(crate) const FACTS_CAP: u64 = 16 * 1024 * 1024;
/// Most `forge context` streams when counting compactions.
pub(crate) const COUNT_CAP: u64 = 1024 * 1024 * 1024;
/// The longest line [`count_compactions`] looks at. A `compact_boundary` record is
/// a few hundred bytes; a longer line (a huge tool result, or a file with no
/// newline at all) is skipped without being held in memory.
pub(crate) const LINE_MAX: usize = 1024 * 1024;

/// The last `max` bytes of `file` (of length `len`), with the first partial line
/// dropped when the read did not start at the beginning. Returns the text and
/// whether it was cut.
fn read_tail(file: &mut File, len: u64, max: u64) -> io::Result<(String, bool)> {
    let start = len.saturating_sub(max);
    file.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity(usize::try_from(len - start).unwrap_or(0));
    file.take(max).read_to_end(&mut buf)?;
    let cut = start > 0;
    if cut {
        // Drop the first (partial) line.
        let first_newline = buf
            .iter()
            .position(|b| *b == b'\n')
            .map_or(buf.len(), |i| i + 1);
        buf.drain(..first_newline);
    }
    // No copy when the bytes are valid UTF-8 (the usual case).
    let text = String::from_utf8(buf)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok((text, cut))
}

/// Whether the end of the transcript at `path` (its last [`TAIL_MAX`] bytes) shows
/// every one of the command calls `ids` refused by the person
/// ([`crate::model::session::learn::every_command_refused`]). A file that cannot be
/// read shows nothing.
pub(crate) fn every_command_refused(path: &Path, ids: &[String]) -> bool {
    let Ok((mut file, meta)) = safe::open_read_meta(path, Follow::Yes) else {
        return false;
    };
    let Ok((text, _)) = read_tail(&mut file, meta.len(), TAIL_MAX) else {
        return false;
    };
    crate::model::session::learn::every_command_refused(text.lines(), ids)
}

/// The current context size from the end of the transcript at `path`. A missing or
/// empty file gives [`TailScan::Nothing`].
pub(crate) fn tail_context(path: &Path) -> TailScan {
    let Ok((mut file, meta)) = safe::open_read_meta(path, Follow::Yes) else {
        return TailScan::Nothing;
    };
    let len = meta.len();
    let mut window = TAIL_START;
    loop {
        let Ok((text, cut)) = read_tail(&mut file, len, window) else {
            return TailScan::Nothing;
        };
        let scan = transcript::scan_tail(text.lines());
        if scan.is_conclusive() || !cut || window >= TAIL_MAX {
            return scan;
        }
        window = (window * 4).min(TAIL_MAX);
    }
}

/// Whether the transcript at `path` already holds the turn's reply (see
/// [`transcript::reply_written`]), reading its end as [`tail_context`]
/// does. A file that cannot be read holds nothing.
pub(crate) fn reply_written(path: &Path, head: Option<&str>, prompt_id: Option<&str>) -> bool {
    let Ok((mut file, meta)) = safe::open_read_meta(path, Follow::Yes) else {
        return false;
    };
    let len = meta.len();
    let mut window = TAIL_START;
    loop {
        let Ok((text, cut)) = read_tail(&mut file, len, window) else {
            return false;
        };
        if let Some(found) = transcript::reply_written(text.lines(), head, prompt_id) {
            return found;
        }
        if !cut || window >= TAIL_MAX {
            return false;
        }
        window = (window * 4).min(TAIL_MAX);
    }
}

/// Handoff facts from the last [`FACTS_CAP`] bytes of the transcript; the flag says
/// the file was longer (so older todos or files may be missing).
pub(crate) fn read_facts(path: &Path) -> io::Result<(TranscriptFacts, bool)> {
    read_facts_capped(path, FACTS_CAP)
}

/// How far from a transcript's start its first request is looked for when the
/// handoff's read of its end was cut: a session's first request comes before the
/// work it asks for (the first prompt of a real session is within its first few
/// hundred KB; a 13-turn session was 892 KB in all).
pub(crate) const HEAD_CAP: u64 = 4 * 1024 * 1024;

/// [`read_facts`] with an explicit cap. When the read was cut, the person's first
/// request (the session's task) is looked for from the file's start, reading only
/// as far as it is (at most [`HEAD_CAP`] bytes).
pub(crate) fn read_facts_capped(path: &Path, cap: u64) -> io::Result<(TranscriptFacts, bool)> {
    let mut file = safe::open_read(path, Follow::Yes)?;
    let len = file.metadata()?.len();
    let (text, cut) = read_tail(&mut file, len, cap)?;
    let mut facts = transcript::extract_facts(text.lines());
    drop(text);
    if cut {
        file.seek(SeekFrom::Start(0))?;
        if let Some(first) = first_request(io::BufReader::new(file.take(HEAD_CAP)))? {
            facts.story.first = Some(first);
        }
    }
    Ok((facts, cut))
}

/// The person's first request among the lines `reader` gives, read one line at a
/// time until it is found: only `user` lines are parsed, and a line longer than
/// [`LINE_MAX`] (a huge tool result) is skipped without being held whole.
fn first_request(
    mut reader: impl io::BufRead,
) -> io::Result<Option<crate::model::session::story::Said>> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut reader)
            .take(LINE_MAX as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        if !line.ends_with(b"\n") && n > LINE_MAX {
            // The rest of an overlong line: skipped, not gathered.
            skip_line(&mut reader)?;
            continue;
        }
        // Only a user record can hold a request, and one with a tool result never
        // does: most lines of a long session are skipped without being parsed.
        if memchr::memmem::find(&line, b"\"user\"").is_none()
            || memchr::memmem::find(&line, b"\"tool_result\"").is_some()
        {
            continue;
        }
        let Ok(rec) = serde_json::from_slice::<serde_json::Value>(&line) else {
            continue;
        };
        let Some(text) =
            crate::model::session::user_record::classify(&rec).and_then(|r| r.request())
        else {
            continue;
        };
        return Ok(Some(crate::model::session::story::Said {
            text: crate::model::text::sanitize::cut_chars(text.trim(), 4000),
            at: rec
                .get("timestamp")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned),
            times: 1,
            interrupted: false,
        }));
    }
}

/// Reads past the end of the current line.
fn skip_line(reader: &mut impl io::BufRead) -> io::Result<()> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        if let Some(i) = memchr::memchr(b'\n', buf) {
            reader.consume(i + 1);
            return Ok(());
        }
        let n = buf.len();
        reader.consume(n);
    }
}

/// The conversation of the transcript at `path`, as a person reads it
/// ([`crate::model::session::conversation`]), from its last [`FACTS_CAP`] bytes.
pub(crate) fn read_conversation(path: &Path, zone: crate::model::time::Zone) -> io::Result<String> {
    let mut file = safe::open_read(path, Follow::Yes)?;
    let len = file.metadata()?.len();
    let (text, cut) = read_tail(&mut file, len, FACTS_CAP)?;
    Ok(crate::model::session::conversation::render(
        text.lines(),
        zone,
        cut,
    ))
}

/// Counts `compact_boundary` records, streaming at most `cap` bytes. Returns the
/// count and whether the cap stopped the count early. Memory stays bounded by the
/// read buffer and [`LINE_MAX`], whatever the file holds.
pub(crate) fn count_compactions(path: &Path, cap: u64) -> io::Result<(usize, bool)> {
    let file = safe::open_read(path, Follow::Yes)?;
    let len = file.metadata()?.len();
    let count = count_boundaries(file.take(cap), COUNT_CHUNK)?;
    Ok((count, len > cap))
}

/// How much [`count_compactions`] reads at a time.
const COUNT_CHUNK: usize = 256 * 1024;

/// The bytes every `compact_boundary` record holds: a line without them is never
/// parsed (nearly all of a transcript's bytes are skipped by one substring search).
const BOUNDARY_NEEDLE: &[u8] = b"compact_boundary";

/// Counts the `compact_boundary` records in `reader`, read `chunk` bytes at a time.
///
/// A byte search for [`BOUNDARY_NEEDLE`] runs over whole chunks; only the line
/// around a hit is parsed, and only when it is at most [`LINE_MAX`] bytes long (its
/// newline included; a longer line is skipped, as it always was). The start of a
/// line that runs past the end of a chunk is carried over — up to [`LINE_MAX`]
/// bytes, never more — so a record cut by a chunk boundary counts once.
fn count_boundaries(mut reader: impl Read, chunk: usize) -> io::Result<usize> {
    let finder = memchr::memmem::Finder::new(BOUNDARY_NEEDLE);
    let mut buf = vec![0u8; chunk.max(1)];
    // The start of the line the previous chunk ended in; `overlong` once it has
    // passed LINE_MAX (its bytes are then dropped, not gathered).
    let mut carry: Vec<u8> = Vec::new();
    let mut overlong = false;
    let mut count = 0;
    let finish = |line: &[u8]| {
        line.len() <= LINE_MAX
            && finder.find(line).is_some()
            && transcript::is_boundary_line(&String::from_utf8_lossy(line))
    };
    loop {
        let n = read_full(&mut reader, &mut buf)?;
        let Some(data) = buf.get(..n).filter(|d| !d.is_empty()) else {
            break;
        };
        let Some(first) = memchr::memchr(b'\n', data) else {
            // No line ends here: the whole chunk belongs to the carried line.
            extend_carry(&mut carry, &mut overlong, data);
            continue;
        };
        let (head, rest) = data.split_at(first + 1);
        extend_carry(&mut carry, &mut overlong, head);
        if !overlong && finish(&carry) {
            count += 1;
        }
        carry.clear();
        overlong = false;
        // `rest` holds whole lines up to its last newline, then the start of the next.
        let last = memchr::memrchr(b'\n', rest).map_or(0, |i| i + 1);
        let (whole, tail) = rest.split_at(last);
        count += count_in_lines(whole, &finder, finish);
        extend_carry(&mut carry, &mut overlong, tail);
    }
    if !carry.is_empty() && !overlong && finish(&carry) {
        count += 1;
    }
    Ok(count)
}

/// Adds `bytes` to the carried start of a line, or drops it all once the line is
/// longer than [`LINE_MAX`].
fn extend_carry(carry: &mut Vec<u8>, overlong: &mut bool, bytes: &[u8]) {
    if *overlong {
        return;
    }
    if carry.len() + bytes.len() > LINE_MAX {
        *overlong = true;
        *carry = Vec::new();
    } else {
        carry.extend_from_slice(bytes);
    }
}

/// The lines of `block` (whole lines, each ending in a newline) that `is_record`
/// accepts, looked at only where the needle occurs: each hit's line once.
fn count_in_lines(
    block: &[u8],
    finder: &memchr::memmem::Finder<'_>,
    is_record: impl Fn(&[u8]) -> bool,
) -> usize {
    let mut count = 0;
    let mut from = 0;
    while let Some(hit) = block.get(from..).and_then(|b| finder.find(b)) {
        let at = from + hit;
        let start = block
            .get(..at)
            .and_then(|b| memchr::memrchr(b'\n', b))
            .map_or(0, |i| i + 1);
        let end = block
            .get(at..)
            .and_then(|b| memchr::memchr(b'\n', b))
            .map_or(block.len(), |i| at + i + 1);
        if block.get(start..end).is_some_and(&is_record) {
            count += 1;
        }
        from = end;
    }
    count
}

/// Reads until `buf` is full or the reader is at its end; returns how much was read.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while let Some(rest) = buf.get_mut(filled..).filter(|r| !r.is_empty()) {
        match reader.read(rest) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Whether `id` has the shape of a Claude Code session id (a UUID), so it can name
/// a transcript file safely.
pub(crate) fn is_session_id(id: &str) -> bool {
    id.len() == 36 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// The transcript of session `id`, looked for where Claude Code keeps it:
/// `<claude dir>/projects/<project folder name>/<id>.jsonl` for the project at
/// `root` first, then the same file name under any other project folder (a session
/// started in a subfolder has its own). One directory listing at most; for manual
/// commands, never the statusline.
pub(crate) fn find_for_session(
    claude_dir: &Path,
    root: &Path,
    id: &str,
) -> Option<std::path::PathBuf> {
    if !is_session_id(id) {
        return None;
    }
    let projects = claude_dir.join("projects");
    let file = format!("{id}.jsonl");
    let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let own = projects
        .join(crate::model::setup::memory::project_dir_name(
            &real.to_string_lossy(),
        ))
        .join(&file);
    if own.is_file() {
        return Some(own);
    }
    std::fs::read_dir(&projects)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path().join(&file))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;
    use std::io::Write;

    fn usage_line(cr: u64) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"model":"claude-sonnet-4-6","id":"m{cr}","usage":{{"input_tokens":1,"cache_read_input_tokens":{cr},"output_tokens":1}}}}}}"#
        )
    }

    #[test]
    fn empty_and_missing_files_are_nothing() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        assert_eq!(tail_context(&p), TailScan::Nothing);
        std::fs::write(&p, "").unwrap();
        assert_eq!(tail_context(&p), TailScan::Nothing);
        assert_eq!(count_compactions(&p, COUNT_CAP).unwrap(), (0, false));
    }

    #[test]
    fn tail_grows_past_a_long_run_of_records_without_usage() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let mut f = File::create(&p).unwrap();
        writeln!(f, "{}", usage_line(1000)).unwrap();
        writeln!(f, "{}", usage_line(5000)).unwrap();
        // 300 KiB of user records after the last usage: more than the first read.
        let filler = format!(
            r#"{{"type":"user","message":{{"role":"user","content":"{}"}}}}"#,
            "x".repeat(1000)
        );
        for _ in 0..300 {
            writeln!(f, "{filler}").unwrap();
        }
        // A half-written last line.
        write!(f, "{}", &usage_line(9)[..20]).unwrap();
        drop(f);
        assert_eq!(tail_context(&p).tokens(), Some(5001));
    }

    #[test]
    fn tail_gives_up_at_the_cap() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let mut f = File::create(&p).unwrap();
        writeln!(f, "{}", usage_line(7)).unwrap();
        let filler = format!(r#"{{"type":"progress","data":"{}"}}"#, "y".repeat(4000));
        for _ in 0..(TAIL_MAX / 4000 + 10) {
            writeln!(f, "{filler}").unwrap();
        }
        drop(f);
        assert_eq!(tail_context(&p), TailScan::Nothing);
    }

    const COMPACT_EXCERPT: &str =
        include_str!("../../tests/fixtures/transcripts/compact-excerpt.jsonl");

    /// The compact_boundary record of [`COMPACT_EXCERPT`].
    fn boundary_line() -> &'static str {
        COMPACT_EXCERPT
            .lines()
            .find(|l| transcript::is_boundary_line(l))
            .unwrap()
    }

    #[test]
    fn facts_say_when_the_file_was_cut_and_compactions_stream() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let mut text = String::new();
        for _ in 0..3 {
            text.push_str(COMPACT_EXCERPT);
        }
        std::fs::write(&p, &text).unwrap();
        let (facts, cut) = read_facts(&p).unwrap();
        assert!(!cut);
        assert_eq!(facts.compactions, 3);
        assert_eq!(facts.last_request.as_deref(), Some("run the tests"));
        let (_, cut) = read_facts_capped(&p, 1000).unwrap();
        assert!(cut);
        assert_eq!(count_compactions(&p, COUNT_CAP).unwrap(), (3, false));
        let (n, capped) = count_compactions(&p, COMPACT_EXCERPT.len() as u64).unwrap();
        assert_eq!((n, capped), (1, true));
        // Lines longer than LINE_MAX are skipped whole; the count goes on after them.
        let mut text = "x".repeat(LINE_MAX + 10);
        text.push('\n');
        text.push_str(COMPACT_EXCERPT);
        text.push_str(&"y".repeat(LINE_MAX * 3));
        std::fs::write(&p, &text).unwrap();
        assert_eq!(count_compactions(&p, COUNT_CAP).unwrap(), (1, false));
        // The last line needs no newline.
        let boundary = boundary_line();
        std::fs::write(&p, boundary).unwrap();
        assert_eq!(count_compactions(&p, COUNT_CAP).unwrap(), (1, false));
    }

    #[test]
    fn a_cut_read_still_finds_the_sessions_first_request_at_its_start() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let user = |text: &str, at: &str| {
            serde_json::json!({"type":"user","timestamp":at,"message":{"role":"user","content":text}})
                .to_string()
        };
        let mut text = String::new();
        // The client's lines first, an overlong record, then the person's first words.
        text.push_str(&user(
            "<command-name>/model</command-name>",
            "2026-11-21T09:00:00Z",
        ));
        text.push('\n');
        let pad = "p".repeat(LINE_MAX + 5);
        text.push_str("{\"type\":\"user\",\"pad\":\"");
        text.push_str(&pad);
        text.push_str("\"}\n");
        text.push_str(&user("ORIGINAL: port the pool", "2026-11-21T09:01:00Z"));
        text.push('\n');
        for n in 0..200 {
            text.push_str(&user(&format!("continue {n}"), "2026-11-21T10:00:00Z"));
            text.push('\n');
        }
        std::fs::write(&p, &text).unwrap();
        let (facts, cut) = read_facts_capped(&p, 4000).unwrap();
        assert!(cut);
        assert!(
            facts
                .story
                .requests
                .iter()
                .all(|r| !r.text.contains("ORIGINAL"))
        );
        let first = facts.story.first.unwrap();
        assert_eq!(first.text, "ORIGINAL: port the pool");
        assert_eq!(first.at.as_deref(), Some("2026-11-21T09:01:00Z"));
        // Read whole, the first request is the one the forward scan met.
        let (facts, cut) = read_facts(&p).unwrap();
        assert!(!cut);
        assert_eq!(facts.story.first.unwrap().text, "ORIGINAL: port the pool");
    }

    #[test]
    fn boundaries_count_the_same_whatever_the_chunk_size() {
        let boundary = boundary_line();
        // Look-alikes that must not count: the word in a message, a boundary's text
        // inside a tool result, a cut record.
        let mention =
            r#"{"type":"user","message":{"role":"user","content":"what is a compact_boundary?"}}"#;
        let quoted = serde_json::json!({"type": "user", "content": boundary}).to_string();
        let cut = &boundary[..boundary.len() / 2];
        let mut text = String::new();
        for (i, piece) in [boundary, mention, &quoted, cut, boundary, "", boundary]
            .iter()
            .enumerate()
        {
            text.push_str(&"x".repeat(i * 37));
            text.push('\n');
            text.push_str(piece);
            text.push('\n');
        }
        text.push_str(boundary); // the last line has no newline
        for chunk in [1, 2, 7, 16, 17, 64, 333, 4096, COUNT_CHUNK] {
            let n = count_boundaries(text.as_bytes(), chunk).unwrap();
            assert_eq!(n, 4, "chunk {chunk}");
        }
        assert_eq!(count_boundaries(&b""[..], 8).unwrap(), 0);
        assert_eq!(count_boundaries(boundary.as_bytes(), 3).unwrap(), 1);
    }

    #[test]
    fn a_boundary_past_line_max_is_skipped_at_any_chunk_size() {
        let boundary = boundary_line();
        // A boundary record padded to exactly LINE_MAX bytes with its newline counts;
        // one byte more and it is skipped (padding before the closing brace).
        let pad = |n: usize| {
            let mut l = boundary.trim_end_matches('}').to_owned();
            let room = n - l.len() - 1 - ",\"p\":\"\"}".len();
            let _ = write!(l, ",\"p\":\"{}\"}}", "y".repeat(room));
            l.push('\n');
            assert_eq!(l.len(), n);
            l
        };
        for chunk in [4096, COUNT_CHUNK, LINE_MAX + 3] {
            let fits = format!("{}{}{boundary}\n", pad(LINE_MAX), pad(LINE_MAX + 1));
            assert_eq!(
                count_boundaries(fits.as_bytes(), chunk).unwrap(),
                2,
                "{chunk}"
            );
        }
    }

    #[test]
    fn finds_a_session_transcript_under_claude_projects() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        std::fs::create_dir_all(&root).unwrap();
        let claude = t.path().join("claude");
        let id = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";
        assert_eq!(find_for_session(&claude, &root, id), None);
        let name = crate::model::setup::memory::project_dir_name(
            &root.canonicalize().unwrap().to_string_lossy(),
        );
        let own = claude
            .join("projects")
            .join(name)
            .join(format!("{id}.jsonl"));
        let other = claude
            .join("projects/-elsewhere")
            .join(format!("{id}.jsonl"));
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, "").unwrap();
        assert_eq!(find_for_session(&claude, &root, id), Some(other));
        std::fs::create_dir_all(own.parent().unwrap()).unwrap();
        std::fs::write(&own, "").unwrap();
        assert_eq!(find_for_session(&claude, &root, id), Some(own));
        // Not a session id: never turned into a path.
        assert_eq!(find_for_session(&claude, &root, "../../etc/passwd"), None);
    }
}
