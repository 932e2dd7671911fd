//! A small line diff in unified format, for `forge init --dry-run`.
//!
//! Settings files are small (hundreds of lines), so a plain longest-common-subsequence
//! table is fast enough and keeps this free of dependencies.

use std::fmt::Write as _;

/// One step of an edit script ([`edit_script`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// The element is in both.
    Same,
    /// The old element was removed.
    Del,
    /// The new element was added.
    Add,
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The unified diff of `old` → `new`, labelled with `old_name` and `new_name`; empty
/// when the texts are equal.
pub(crate) fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = edit_script(a.len(), b.len(), |i, j| a.get(i) == b.get(j));
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    // Positions (index into ops) of changes, grouped into hunks.
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, (op, _, _))| *op != Op::Same)
        .map(|(i, _)| i)
        .collect();
    let mut i = 0;
    while i < changed.len() {
        let start = changed.get(i).copied().unwrap_or(0).saturating_sub(CONTEXT);
        let mut end = changed.get(i).copied().unwrap_or(0);
        while let Some(&next) = changed.get(i + 1) {
            if next <= end + 2 * CONTEXT + 1 {
                end = next;
                i += 1;
            } else {
                break;
            }
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let hunk = ops.get(start..end).unwrap_or(&[]);
        let (a_start, b_start) = hunk.first().map_or((0, 0), |(_, ai, bi)| (*ai, *bi));
        let a_len = hunk.iter().filter(|(op, _, _)| *op != Op::Add).count();
        let b_len = hunk.iter().filter(|(op, _, _)| *op != Op::Del).count();
        let _ = writeln!(
            out,
            "@@ -{},{} +{},{} @@",
            if a_len == 0 { a_start } else { a_start + 1 },
            a_len,
            if b_len == 0 { b_start } else { b_start + 1 },
            b_len
        );
        for (op, ai, bi) in hunk {
            let (mark, line) = match op {
                Op::Same => (' ', a.get(*ai)),
                Op::Del => ('-', a.get(*ai)),
                Op::Add => ('+', b.get(*bi)),
            };
            let _ = writeln!(out, "{mark}{}", line.copied().unwrap_or(""));
        }
        i += 1;
    }
    out
}

/// The edit script from a sequence of `n` elements to one of `m`, where `eq(i, j)`
/// says whether old element `i` equals new element `j`: (op, index in the old, index
/// in the new), in order. For `Add` the old index is where the element goes, for
/// `Del` the new index likewise. Equal elements are matched by a longest common
/// subsequence; where removing and adding come out even, the removal comes first.
/// The one table behind the line diff and `json_edit`'s alignment of array elements.
pub(crate) fn edit_script(
    n: usize,
    m: usize,
    eq: impl Fn(usize, usize) -> bool,
) -> Vec<(Op, usize, usize)> {
    // lcs[i][j] = LCS length of old[i..] and new[j..], stored flat.
    let w = m + 1;
    let mut lcs = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let v = if eq(i, j) {
                lcs.get((i + 1) * w + j + 1).copied().unwrap_or(0) + 1
            } else {
                let down = lcs.get((i + 1) * w + j).copied().unwrap_or(0);
                let right = lcs.get(i * w + j + 1).copied().unwrap_or(0);
                down.max(right)
            };
            if let Some(slot) = lcs.get_mut(i * w + j) {
                *slot = v;
            }
        }
    }
    let at = |i: usize, j: usize| lcs.get(i * w + j).copied().unwrap_or(0);
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && eq(i, j) {
            ops.push((Op::Same, i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || at(i + 1, j) >= at(i, j + 1)) {
            ops.push((Op::Del, i, j));
            i += 1;
        } else {
            ops.push((Op::Add, i, j));
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edit_script_replays_old_into_new_keeping_a_longest_common_subsequence() {
        let cases: [(&[u8], &[u8], usize); 5] = [
            (b"abcabba", b"cbabac", 4),
            (b"", b"xy", 0),
            (b"xy", b"", 0),
            (b"same", b"same", 4),
            (b"aaa", b"aa", 2),
        ];
        for (a, b, lcs) in cases {
            let ops = edit_script(a.len(), b.len(), |i, j| a.get(i) == b.get(j));
            let kept = ops.iter().filter(|(op, _, _)| *op == Op::Same).count();
            assert_eq!(kept, lcs, "{a:?} → {b:?}");
            let mut replay = Vec::new();
            for (op, i, j) in &ops {
                match op {
                    Op::Same => {
                        assert_eq!(a[*i], b[*j]);
                        replay.push(a[*i]);
                    }
                    Op::Add => replay.push(b[*j]),
                    Op::Del => {}
                }
            }
            assert_eq!(replay, b, "{ops:?}");
            assert_eq!(ops.len(), a.len() + b.len() - lcs);
        }
    }

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a\nb\n", "a\nb\n", "x", "y"), "");
    }

    #[test]
    fn one_change_in_the_middle() {
        let old: String = (1..=10).map(|i| format!("{i}\n")).collect();
        let new = old.replace("5\n", "five\n");
        let d = unified(&old, &new, "a/f", "b/f");
        assert_eq!(
            d,
            "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn new_file_and_far_apart_changes() {
        let d = unified("", "x\ny\n", "/dev/null", "b");
        assert_eq!(d, "--- /dev/null\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n");
        let old: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 2\n", "two\n")
            .replace("line 28\n", "twenty-eight\n");
        let d = unified(&old, &new, "a", "b");
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
    }
}
