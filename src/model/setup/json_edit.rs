//! Minimal, format-preserving edits of a JSON text, for `forge init`.
//!
//! `forge init` and `forge init --uninstall` work out the new settings as a
//! `serde_json::Value` (see [`super::settings`]). Printing that value afresh would
//! re-indent the whole file and unfold every one-line object, so a teammate's
//! review of the change would show the whole file. Instead [`apply`] writes the new
//! value into the *old text*, changing only the parts that differ: a changed
//! string is replaced where it stands, a removed entry is cut out with its comma, a
//! new entry is added next to its siblings. Everything else (indentation, key order,
//! one-line objects, blank lines, the final newline or its absence) stays byte for
//! byte.
//!
//! New entries are written in the file's own style: like a sibling of the same shape
//! when there is one (a new hook group looks like the groups beside it), else like
//! the containers at the same depth elsewhere in the file, else the way
//! `serde_json` pretty-prints. Indentation (spaces or tabs, and how many), the
//! space after `:` and after `,` in one-line objects, and `\r\n` line ends are
//! detected from the text.
//!
//! Removing what was added gives back the same bytes: an entry appended after the
//! last one is written as `,` + line break + indentation + entry, exactly what
//! removing a last entry cuts.
//!
//! The result is always parsed again and compared with the wanted value (keys in
//! order); if they differ (a shape this editor does not handle, such as kept keys in
//! another order) the value is printed afresh in the file's style instead, so the
//! file is never wrong, only less minimal — but only when that loses nothing: every
//! number and string of the old text must print back as the very same text
//! (`serde_json` reads a 30-digit integer as an `f64`, and decodes `\u` escapes), or
//! [`apply`] refuses ([`Unedited::Reprint`]). A text with a key twice in one object
//! is refused outright ([`Unedited::DuplicateKey`]): `serde_json` keeps one of them,
//! so no edit can keep the file as it was.

use serde_json::Value;

/// Why [`apply`] leaves a text as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unedited {
    /// An object has the key `key` twice; `at` is where the object is (`hooks.Stop[0]`,
    /// empty at the top).
    DuplicateKey {
        /// The key.
        key: String,
        /// The keys and indexes leading to the object.
        at: String,
    },
    /// No minimal edit fits, and printing the file afresh would change `literal`.
    Reprint {
        /// A number or string of the file as written.
        literal: String,
    },
}

impl std::fmt::Display for Unedited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::DuplicateKey { key, at } if at.is_empty() => write!(
                f,
                "the key \"{key}\" is there twice at the top of the file (JSON tools keep one of them, so forge will not edit it)"
            ),
            Self::DuplicateKey { key, at } => write!(
                f,
                "the key \"{key}\" is there twice in {at} (JSON tools keep one of them, so forge will not edit it)"
            ),
            Self::Reprint { literal } => write!(
                f,
                "forge cannot edit this file in place, and writing it afresh would change {literal} (JSON tools read it differently from how it is written)"
            ),
        }
    }
}

/// The text of `new`, written into `old_text` with as few changes as possible.
///
/// `old_text` that is empty or not JSON is replaced by `new` pretty-printed with a
/// final newline. `Err` for a text with a key twice in one object, and for one this
/// editor would have to print afresh at the cost of one of its numbers or strings.
pub(crate) fn apply(old_text: &str, new: &Value) -> Result<String, Unedited> {
    let Some(root) = parse(old_text) else {
        return Ok(fresh(new));
    };
    if let Some(twice) = duplicate_key(&root, "") {
        return Err(twice);
    }
    let editor = Editor {
        text: old_text,
        style: Style::detect(old_text, &root),
    };
    let splice = |body: &str| {
        let mut out = String::with_capacity(old_text.len() + body.len());
        out.push_str(old_text.get(..root.start).unwrap_or(""));
        out.push_str(body);
        out.push_str(old_text.get(root.end..).unwrap_or(""));
        out
    };
    let mut unprintable = Vec::new();
    unprintable_literals(old_text, &root, &mut unprintable);
    // A literal serde_json would print otherwise, still in the new value, must be
    // in the new text as written.
    let keeps = |out: &str| -> Result<(), Unedited> {
        match unprintable
            .iter()
            .find(|(lit, v)| holds(new, v) && !out.contains(lit.as_str()))
        {
            Some((lit, _)) => Err(Unedited::Reprint {
                literal: lit.clone(),
            }),
            None => Ok(()),
        }
    };
    let minimal = splice(&editor.rewrite(&root, new, 0, None));
    if parses_to(&minimal, new) {
        keeps(&minimal)?;
        return Ok(minimal);
    }
    let indent = editor.line_indent(root.start);
    let whole = splice(&editor.render(new, Some(&root), &indent, 0, None));
    let out = if parses_to(&whole, new) {
        whole
    } else {
        fresh(new)
    };
    keeps(&out)?;
    Ok(out)
}

/// The first object of `node` (in text order) with a key twice.
fn duplicate_key(node: &Node, at: &str) -> Option<Unedited> {
    match &node.kind {
        Kind::Object(members) => {
            for (i, m) in members.iter().enumerate() {
                if members.iter().take(i).any(|o| o.key == m.key) {
                    return Some(Unedited::DuplicateKey {
                        key: m.key.clone(),
                        at: at.to_owned(),
                    });
                }
            }
            members.iter().find_map(|m| {
                let here = if at.is_empty() {
                    m.key.clone()
                } else {
                    format!("{at}.{}", m.key)
                };
                duplicate_key(&m.value, &here)
            })
        }
        Kind::Array(elems) => elems
            .iter()
            .enumerate()
            .find_map(|(i, e)| duplicate_key(e, &format!("{at}[{i}]"))),
        Kind::Scalar => None,
    }
}

/// The numbers and strings of the text (keys included) that `serde_json` would not
/// print back as written — a number it reads as an inexact `f64`, an escape it
/// decodes — each with the value it reads, in text order.
fn unprintable_literals(text: &str, node: &Node, out: &mut Vec<(String, Value)>) {
    let check = |start: usize, end: usize, out: &mut Vec<(String, Value)>| {
        let lit = text.get(start..end).unwrap_or("");
        if let Ok(v) = serde_json::from_str::<Value>(lit)
            && serde_json::to_string(&v).ok().as_deref() != Some(lit)
        {
            out.push((lit.to_owned(), v));
        }
    };
    match &node.kind {
        Kind::Scalar => check(node.start, node.end, out),
        Kind::Object(members) => {
            for m in members {
                check(m.start, m.key_end, out);
                unprintable_literals(text, &m.value, out);
            }
        }
        Kind::Array(elems) => {
            for e in elems {
                unprintable_literals(text, e, out);
            }
        }
    }
}

/// Whether `v` is somewhere in `tree`: a value, or (for a string) a key.
fn holds(tree: &Value, v: &Value) -> bool {
    match tree {
        Value::Object(m) => m
            .iter()
            .any(|(k, child)| v.as_str() == Some(k.as_str()) || holds(child, v)),
        Value::Array(a) => a.iter().any(|child| holds(child, v)),
        scalar => scalar == v,
    }
}

/// `new` pretty-printed with a final newline (forge's style for a new file).
fn fresh(new: &Value) -> String {
    let mut s = serde_json::to_string_pretty(new).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// Whether `text` parses to exactly `want` (object keys in the same order).
fn parses_to(text: &str, want: &Value) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|got| same(&got, want))
}

/// Equality that also compares the order of object keys.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        _ => a == b,
    }
}

// ----- scanning -----------------------------------------------------------------

/// A value in the text: its byte span and, for containers, its children.
#[derive(Debug)]
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar,
}

/// One `"key": value` of an object.
#[derive(Debug)]
struct Member {
    key: String,
    /// Where the key's opening quote is.
    start: usize,
    /// Just after the key's closing quote.
    key_end: usize,
    value: Node,
}

impl Node {
    /// The byte spans of the children (members from key to value end).
    fn child_spans(&self) -> Vec<(usize, usize)> {
        match &self.kind {
            Kind::Object(ms) => ms.iter().map(|m| (m.start, m.value.end)).collect(),
            Kind::Array(es) => es.iter().map(|e| (e.start, e.end)).collect(),
            Kind::Scalar => Vec::new(),
        }
    }

    fn child_values(&self) -> Vec<&Self> {
        match &self.kind {
            Kind::Object(ms) => ms.iter().map(|m| &m.value).collect(),
            Kind::Array(es) => es.iter().collect(),
            Kind::Scalar => Vec::new(),
        }
    }

    fn shape(&self) -> Option<Shape> {
        let object = match self.kind {
            Kind::Object(_) => true,
            Kind::Array(_) => false,
            Kind::Scalar => return None,
        };
        let children = self.child_values();
        if children.is_empty() {
            return None;
        }
        Some(Shape {
            object,
            nested: children.iter().any(|c| !matches!(c.kind, Kind::Scalar)),
        })
    }
}

/// What a non-empty container holds: an object or an array, of containers or of
/// plain values. New values copy the layout of an existing one of the same shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    object: bool,
    nested: bool,
}

fn shape_of(v: &Value) -> Option<Shape> {
    let (object, nested) = match v {
        Value::Object(m) if !m.is_empty() => (true, m.values().any(is_container)),
        Value::Array(a) if !a.is_empty() => (false, a.iter().any(is_container)),
        _ => return None,
    };
    Some(Shape { object, nested })
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Object(_) | Value::Array(_))
}

/// The root value of `text` with the spans of everything in it; `None` when the
/// text is not one JSON value.
fn parse(text: &str) -> Option<Node> {
    let mut s = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    s.skip_ws();
    let root = s.value(0)?;
    s.skip_ws();
    (s.pos == s.bytes.len()).then_some(root)
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek() == Some(b)).then(|| self.pos += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        // serde_json refuses deeper nesting anyway.
        if depth > 128 {
            return None;
        }
        let start = self.pos;
        let kind = match self.peek()? {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                self.skip_ws();
                if self.eat(b'}').is_none() {
                    loop {
                        self.skip_ws();
                        let key_start = self.pos;
                        let key = self.string()?;
                        let key_end = self.pos;
                        self.skip_ws();
                        self.eat(b':')?;
                        self.skip_ws();
                        let value = self.value(depth + 1)?;
                        members.push(Member {
                            key,
                            start: key_start,
                            key_end,
                            value,
                        });
                        self.skip_ws();
                        if self.eat(b',').is_none() {
                            self.eat(b'}')?;
                            break;
                        }
                    }
                }
                Kind::Object(members)
            }
            b'[' => {
                self.pos += 1;
                let mut elems = Vec::new();
                self.skip_ws();
                if self.eat(b']').is_none() {
                    loop {
                        self.skip_ws();
                        elems.push(self.value(depth + 1)?);
                        self.skip_ws();
                        if self.eat(b',').is_none() {
                            self.eat(b']')?;
                            break;
                        }
                    }
                }
                Kind::Array(elems)
            }
            b'"' => {
                self.string()?;
                Kind::Scalar
            }
            _ => {
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.pos += 1;
                }
                if self.pos == start {
                    return None;
                }
                // A number or a literal: let serde_json judge it.
                serde_json::from_str::<Value>(self.text.get(start..self.pos)?).ok()?;
                Kind::Scalar
            }
        };
        Some(Node {
            start,
            end: self.pos,
            kind,
        })
    }

    /// A string starting at the current `"`, decoded.
    fn string(&mut self) -> Option<String> {
        let start = self.pos;
        self.eat(b'"')?;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        serde_json::from_str(self.text.get(start..self.pos)?).ok()
    }
}

// ----- style --------------------------------------------------------------------

/// How a non-empty container is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Layout {
    /// One child per line.
    Multi,
    /// On one line: the text after the opening bracket, between children (the comma
    /// included) and before the closing bracket.
    Compact {
        open: String,
        comma: String,
        close: String,
    },
}

/// The file's habits, detected once.
#[derive(Debug)]
struct Style {
    /// `\n` or `\r\n`.
    nl: &'static str,
    /// One level of indentation.
    unit: String,
    /// Between a key and its value, the colon included (`": "` → `: `).
    colon: String,
    /// Between the children of a one-line container, the comma included.
    comma: String,
    /// The first layout seen for each (depth, shape).
    profile: Vec<((usize, Shape), Layout)>,
}

impl Style {
    fn detect(text: &str, root: &Node) -> Self {
        let mut colon = None;
        let mut comma = None;
        let mut unit = None;
        let mut containers = Vec::new();
        collect(root, 0, &mut containers);
        for (node, _) in &containers {
            if colon.is_none()
                && let Kind::Object(ms) = &node.kind
                && let Some(m) = ms.first()
            {
                colon = text.get(m.key_end..m.value.start).map(str::to_owned);
            }
            let gaps = gaps(text, node);
            let multi = gaps.iter().any(|g| g.contains('\n'));
            if !multi && comma.is_none() && gaps.len() > 2 {
                comma = gaps.get(1).map(|g| (*g).to_owned());
            }
            if multi && unit.is_none() {
                let first = gaps.first().copied().unwrap_or("");
                let last = gaps.last().copied().unwrap_or("");
                if let (Some(inner), Some(outer)) = (after_newline(first), after_newline(last))
                    && inner.len() > outer.len()
                    && let Some(u) = inner.strip_prefix(outer)
                {
                    unit = Some(u.to_owned());
                }
            }
        }
        let colon = colon.unwrap_or_else(|| ": ".to_owned());
        let comma = comma.unwrap_or_else(|| {
            if colon.ends_with(' ') {
                ", ".to_owned()
            } else {
                ",".to_owned()
            }
        });
        let mut style = Self {
            nl: if text.contains("\r\n") { "\r\n" } else { "\n" },
            unit: unit.unwrap_or_else(|| "  ".to_owned()),
            colon,
            comma,
            profile: Vec::new(),
        };
        for (node, depth) in &containers {
            if let Some(shape) = node.shape()
                && !style.profile.iter().any(|(k, _)| *k == (*depth, shape))
            {
                let layout = style.layout_of(text, node);
                style.profile.push(((*depth, shape), layout));
            }
        }
        style
    }

    /// The layout of an existing non-empty container.
    fn layout_of(&self, text: &str, node: &Node) -> Layout {
        let gaps = gaps(text, node);
        if gaps.iter().any(|g| g.contains('\n')) {
            return Layout::Multi;
        }
        let n = gaps.len();
        Layout::Compact {
            open: gaps.first().copied().unwrap_or("").to_owned(),
            comma: if n > 2 {
                gaps.get(1).copied().unwrap_or(",").to_owned()
            } else {
                self.comma.clone()
            },
            close: gaps.last().copied().unwrap_or("").to_owned(),
        }
    }

    fn profiled(&self, depth: usize, shape: Shape) -> Option<&Layout> {
        self.profile
            .iter()
            .find(|(k, _)| *k == (depth, shape))
            .map(|(_, l)| l)
    }
}

/// Every container, with its depth, in text order.
fn collect<'n>(node: &'n Node, depth: usize, out: &mut Vec<(&'n Node, usize)>) {
    if matches!(node.kind, Kind::Scalar) {
        return;
    }
    out.push((node, depth));
    for c in node.child_values() {
        collect(c, depth + 1, out);
    }
}

/// The text between the brackets and the children of a non-empty container: after
/// the opening bracket, between each two children (the comma included), before the
/// closing bracket. Empty for an empty container.
fn gaps<'t>(text: &'t str, node: &Node) -> Vec<&'t str> {
    let spans = node.child_spans();
    if spans.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(spans.len() + 1);
    let mut at = node.start + 1;
    for (s, e) in &spans {
        out.push(text.get(at..*s).unwrap_or(""));
        at = *e;
    }
    out.push(text.get(at..node.end.saturating_sub(1)).unwrap_or(""));
    out
}

/// The indentation after the last line break of `gap`, if it has one.
fn after_newline(gap: &str) -> Option<&str> {
    gap.rfind('\n').map(|i| gap.get(i + 1..).unwrap_or(""))
}

// ----- editing ------------------------------------------------------------------

struct Editor<'a> {
    text: &'a str,
    style: Style,
}

/// One child in the rewritten container: its text, and which old child it was.
struct Item {
    text: String,
    old: Option<usize>,
}

impl Editor<'_> {
    fn slice(&self, node: &Node) -> &str {
        self.text.get(node.start..node.end).unwrap_or("")
    }

    /// The spaces and tabs that start the line `pos` is on.
    fn line_indent(&self, pos: usize) -> String {
        let before = self.text.get(..pos).unwrap_or("");
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        self.text
            .get(line_start..)
            .unwrap_or("")
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    }

    /// The new text of `node` so that it reads as `new`. `inline`: the layout of the
    /// one-line container `node` is in, if it is in one.
    fn rewrite(&self, node: &Node, new: &Value, depth: usize, inline: Option<&Layout>) -> String {
        let old_text = self.slice(node);
        if serde_json::from_str::<Value>(old_text).is_ok_and(|old| same(&old, new)) {
            return old_text.to_owned();
        }
        let edited = match (&node.kind, new) {
            (Kind::Object(members), Value::Object(map)) => {
                self.rewrite_object(node, members, map, depth, inline)
            }
            (Kind::Array(elems), Value::Array(items)) => {
                Some(self.rewrite_array(node, elems, items, depth, inline))
            }
            _ => None,
        };
        edited.unwrap_or_else(|| {
            let indent = self.line_indent(node.start);
            self.render(new, Some(node), &indent, depth, inline)
        })
    }

    fn rewrite_object(
        &self,
        node: &Node,
        members: &[Member],
        map: &serde_json::Map<String, Value>,
        depth: usize,
        inline: Option<&Layout>,
    ) -> Option<String> {
        // A key twice, or kept keys in another order: not a minimal edit.
        for (i, m) in members.iter().enumerate() {
            if members.iter().skip(i + 1).any(|o| o.key == m.key) {
                return None;
            }
        }
        let kept_old: Vec<&str> = members
            .iter()
            .map(|m| m.key.as_str())
            .filter(|k| map.contains_key(*k))
            .collect();
        let kept_new: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| members.iter().any(|m| m.key == *k))
            .collect();
        if kept_old != kept_new {
            return None;
        }
        let shape = (!map.is_empty()).then(|| Shape {
            object: true,
            nested: map.values().any(is_container),
        });
        let fill = self.fill(node, shape, depth, inline);
        let mut items = Vec::with_capacity(map.len());
        for (k, v) in map {
            if let Some(i) = members.iter().position(|m| m.key == *k) {
                let m = members.get(i)?;
                let key_text = self.text.get(m.start..m.value.start)?;
                items.push(Item {
                    text: format!(
                        "{key_text}{}",
                        self.rewrite(&m.value, v, depth + 1, fill.compact())
                    ),
                    old: Some(i),
                });
            } else {
                let template = shape_of(v).and_then(|want| {
                    members
                        .iter()
                        .map(|m| &m.value)
                        .find(|n| n.shape() == Some(want))
                });
                items.push(Item {
                    text: format!(
                        "{}{}{}",
                        quote(k),
                        self.style.colon,
                        self.render(v, template, &fill.child_indent, depth + 1, fill.compact())
                    ),
                    old: None,
                });
            }
        }
        Some(self.assemble(node, ('{', '}'), &items, &fill))
    }

    fn rewrite_array(
        &self,
        node: &Node,
        elems: &[Node],
        items: &[Value],
        depth: usize,
        inline: Option<&Layout>,
    ) -> String {
        let olds: Vec<Option<Value>> = elems
            .iter()
            .map(|e| serde_json::from_str(self.slice(e)).ok())
            .collect();
        let pairs = align(&olds, items);
        let shape = (!items.is_empty()).then(|| Shape {
            object: false,
            nested: items.iter().any(is_container),
        });
        let fill = self.fill(node, shape, depth, inline);
        let mut out = Vec::with_capacity(items.len());
        for (j, v) in items.iter().enumerate() {
            let text = match pairs.get(j).copied().flatten() {
                Some(i) => match elems.get(i) {
                    Some(e) => self.rewrite(e, v, depth + 1, fill.compact()),
                    None => continue,
                },
                None => {
                    let template =
                        shape_of(v).and_then(|want| elems.iter().find(|n| n.shape() == Some(want)));
                    self.render(v, template, &fill.child_indent, depth + 1, fill.compact())
                }
            };
            out.push(Item {
                text,
                old: pairs.get(j).copied().flatten(),
            });
        }
        self.assemble(node, ('[', ']'), &out, &fill)
    }

    /// How children are laid out in `node`: its own layout, or for an empty one the
    /// layout it gets when filled with `new` (one line inside a one-line container,
    /// else like containers of that shape at this depth, else one child per line).
    fn fill(&self, node: &Node, new: Option<Shape>, depth: usize, inline: Option<&Layout>) -> Fill {
        let indent = self.line_indent(node.start);
        let gaps = gaps(self.text, node);
        let child_indent = || format!("{indent}{}", self.style.unit);
        if gaps.is_empty() {
            let layout = inline.cloned().unwrap_or_else(|| {
                new.and_then(|shape| self.style.profiled(depth, shape))
                    .map_or(Layout::Multi, Clone::clone)
            });
            return Fill {
                child_indent: child_indent(),
                indent,
                layout,
            };
        }
        let layout = self.style.layout_of(self.text, node);
        // The indentation of the first child on its own line (not the closing
        // bracket's, which follows the last gap).
        let inner = gaps.len().saturating_sub(1);
        let child_indent = gaps
            .iter()
            .take(inner)
            .find_map(|g| after_newline(g))
            .map_or_else(child_indent, str::to_owned);
        Fill {
            indent,
            child_indent,
            layout,
        }
    }

    /// Brackets around `items`; the text between them is the old text where two old
    /// neighbours stay neighbours, else the container's style.
    fn assemble(&self, node: &Node, brackets: (char, char), items: &[Item], fill: &Fill) -> String {
        if items.is_empty() {
            return format!("{}{}", brackets.0, brackets.1);
        }
        let nl = self.style.nl;
        let old_gaps = gaps(self.text, node);
        let (lead, trail, sep) = match &fill.layout {
            Layout::Multi => (
                format!("{nl}{}", fill.child_indent),
                format!("{nl}{}", fill.indent),
                format!(",{nl}{}", fill.child_indent),
            ),
            Layout::Compact { open, comma, close } => (open.clone(), close.clone(), comma.clone()),
        };
        let (lead, trail) = if old_gaps.is_empty() {
            (lead, trail)
        } else {
            (
                old_gaps.first().copied().unwrap_or("").to_owned(),
                old_gaps.last().copied().unwrap_or("").to_owned(),
            )
        };
        let n_old = old_gaps.len().saturating_sub(1);
        let mut out = String::new();
        out.push(brackets.0);
        out.push_str(&lead);
        for (i, item) in items.iter().enumerate() {
            out.push_str(&item.text);
            if i + 1 < items.len() {
                // The gap that followed this child in the old text, when it had one.
                match item
                    .old
                    .filter(|o| o + 1 < n_old)
                    .and_then(|o| old_gaps.get(o + 1))
                {
                    Some(g) => out.push_str(g),
                    None => out.push_str(&sep),
                }
            }
        }
        out.push_str(&trail);
        out.push(brackets.1);
        out
    }

    /// `v` printed afresh at `indent`, laid out like `template` (a value of the
    /// same shape in the file), else like the file's containers of that shape at
    /// this depth, else one child per line. Inside a one-line container (`inline`)
    /// everything stays on one line.
    fn render(
        &self,
        v: &Value,
        template: Option<&Node>,
        indent: &str,
        depth: usize,
        inline: Option<&Layout>,
    ) -> String {
        let Some(shape) = shape_of(v) else {
            return match v {
                Value::Object(_) => "{}".to_owned(),
                Value::Array(_) => "[]".to_owned(),
                _ => serde_json::to_string(v).unwrap_or_else(|_| "null".into()),
            };
        };
        let template = template.filter(|t| t.shape() == Some(shape));
        let own = template
            .map(|t| self.style.layout_of(self.text, t))
            .or_else(|| self.style.profiled(depth, shape).cloned());
        let layout = match (inline, own) {
            // Its own layout when compact (inside an inline parent) or when the parent
            // gives none; else the parent's inline one.
            (Some(_), Some(l @ Layout::Compact { .. })) | (None, Some(l)) => l,
            (Some(i), _) => i.clone(),
            (None, None) => Layout::Multi,
        };
        let child_indent = format!("{indent}{}", self.style.unit);
        let inner = match &layout {
            Layout::Multi => None,
            l @ Layout::Compact { .. } => Some(l),
        };
        let children: Vec<String> = match v {
            Value::Object(m) => m
                .iter()
                .map(|(k, cv)| {
                    let t = template.and_then(|t| child_template(t, Some(k), cv));
                    format!(
                        "{}{}{}",
                        quote(k),
                        self.style.colon,
                        self.render(cv, t, &child_indent, depth + 1, inner)
                    )
                })
                .collect(),
            Value::Array(a) => a
                .iter()
                .map(|cv| {
                    let t = template.and_then(|t| child_template(t, None, cv));
                    self.render(cv, t, &child_indent, depth + 1, inner)
                })
                .collect(),
            _ => Vec::new(),
        };
        let (open, close) = if shape.object { ('{', '}') } else { ('[', ']') };
        let nl = self.style.nl;
        match &layout {
            Layout::Multi => format!(
                "{open}{nl}{child_indent}{}{nl}{indent}{close}",
                children.join(&format!(",{nl}{child_indent}"))
            ),
            Layout::Compact {
                open: o,
                comma,
                close: c,
            } => format!("{open}{o}{}{c}{close}", children.join(comma)),
        }
    }
}

/// How the children of one container are written.
struct Fill {
    /// The indentation of the container's own line.
    indent: String,
    /// The indentation of its children (when one per line).
    child_indent: String,
    layout: Layout,
}

impl Fill {
    /// The layout children inherit: a one-line container keeps them on its line.
    fn compact(&self) -> Option<&Layout> {
        match &self.layout {
            Layout::Multi => None,
            l @ Layout::Compact { .. } => Some(l),
        }
    }
}

/// The child of `template` a new child `v` should look like: the one with the same
/// key, else the first of the same shape.
fn child_template<'n>(template: &'n Node, key: Option<&str>, v: &Value) -> Option<&'n Node> {
    let want = shape_of(v)?;
    if let (Some(key), Kind::Object(ms)) = (key, &template.kind)
        && let Some(m) = ms.iter().find(|m| m.key == key)
        && m.value.shape() == Some(want)
    {
        return Some(&m.value);
    }
    template
        .child_values()
        .into_iter()
        .find(|c| c.shape() == Some(want))
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// For each new element, the old element it continues (`None`: a new one). Equal
/// elements are matched first (longest common subsequence); between two matches,
/// the old and new elements left over are paired in order (a changed element), and
/// what remains was removed or added.
fn align(olds: &[Option<Value>], news: &[Value]) -> Vec<Option<usize>> {
    use super::diff::{Op, edit_script};
    let eq = |i: usize, j: usize| match (olds.get(i), news.get(j)) {
        (Some(Some(a)), Some(b)) => same(a, b),
        _ => false,
    };
    let mut out = vec![None; news.len()];
    let (mut run_old, mut run_new) = (Vec::new(), Vec::new());
    let flush = |run_old: &mut Vec<usize>, run_new: &mut Vec<usize>, out: &mut Vec<_>| {
        for (o, nw) in run_old.iter().zip(run_new.iter()) {
            if let Some(slot) = out.get_mut(*nw) {
                *slot = Some(*o);
            }
        }
        run_old.clear();
        run_new.clear();
    };
    for (op, i, j) in edit_script(olds.len(), news.len(), eq) {
        match op {
            Op::Same => {
                flush(&mut run_old, &mut run_new, &mut out);
                if let Some(slot) = out.get_mut(j) {
                    *slot = Some(i);
                }
            }
            Op::Del => run_old.push(i),
            Op::Add => run_new.push(j),
        }
    }
    flush(&mut run_old, &mut run_new, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Applies `f` to the parsed text and writes the result back.
    fn edit(text: &str, f: impl FnOnce(&mut Value)) -> String {
        let mut v: Value = serde_json::from_str(text).unwrap();
        f(&mut v);
        apply(text, &v).unwrap()
    }

    #[test]
    fn unchanged_value_keeps_every_byte() {
        for text in [
            "{\"a\":1}",
            "{\n    \"a\" : [1,2 ,3],\n\n    \"b\": {}\n}",
            "  {\"x\": null}  \n\n",
            "{\r\n\t\"a\": 1\r\n}",
        ] {
            assert_eq!(edit(text, |_| {}), text);
        }
    }

    #[test]
    fn a_changed_string_is_replaced_where_it_stands() {
        let text = "{\n  \"a\": {\"cmd\": \"old\",   \"n\": 1},\n  \"b\": 2\n}";
        let out = edit(text, |v| v["a"]["cmd"] = json!("new \"q\""));
        assert_eq!(
            out,
            "{\n  \"a\": {\"cmd\": \"new \\\"q\\\"\",   \"n\": 1},\n  \"b\": 2\n}"
        );
    }

    #[test]
    fn members_added_at_the_end_come_off_again_byte_for_byte() {
        let cases = [
            "{\n  \"model\": \"opus\"\n}\n",
            "{\n    \"model\": \"opus\"\n}",
            "{\n\t\"model\": \"opus\",\n\t\"env\": {\"A\": \"1\"}\n}\n",
            "{\"model\":\"opus\"}",
            "{}",
            "{\r\n  \"model\": \"opus\"\r\n}\r\n",
        ];
        for text in cases {
            let added = edit(text, |v| {
                v["hooks"] = json!({"Stop": [{"hooks": [{"type": "command", "command": "forge hook Stop"}]}]});
                v["statusLine"] = json!({"type": "command", "command": "forge statusline"});
            });
            let back = edit(&added, |v| {
                let m = v.as_object_mut().unwrap();
                m.shift_remove("hooks");
                m.shift_remove("statusLine");
            });
            assert_eq!(back, text, "round trip of {text:?} via {added:?}");
        }
    }

    #[test]
    fn new_entries_follow_the_file_style() {
        // Four spaces.
        let out = edit("{\n    \"a\": 1\n}\n", |v| {
            v["b"] = json!({"c": [1, {"d": true}]});
        });
        assert_eq!(
            out,
            "{\n    \"a\": 1,\n    \"b\": {\n        \"c\": [\n            1,\n            {\n                \"d\": true\n            }\n        ]\n    }\n}\n"
        );
        // Tabs, CRLF.
        let out = edit("{\r\n\t\"a\": 1\r\n}", |v| v["b"] = json!({"c": 2}));
        assert_eq!(
            out,
            "{\r\n\t\"a\": 1,\r\n\t\"b\": {\r\n\t\t\"c\": 2\r\n\t}\r\n}"
        );
        // Everything on one line, no spaces.
        let out = edit("{\"a\":1,\"b\":2}", |v| v["c"] = json!({"d": [3]}));
        assert_eq!(out, "{\"a\":1,\"b\":2,\"c\":{\"d\":[3]}}");
    }

    #[test]
    fn a_new_element_looks_like_its_siblings() {
        let text = r#"{
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "cargo fmt"}]}
    ]
  }
}"#;
        let out = edit(text, |v| {
            v["hooks"]["PostToolUse"]
                .as_array_mut()
                .unwrap()
                .push(json!({"hooks": [{"type": "command", "command": "x"}]}));
            v["hooks"]["Stop"] = json!([{"hooks": [{"type": "command", "command": "y"}]}]);
        });
        assert_eq!(
            out,
            r#"{
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "cargo fmt"}]},
      {"hooks": [{"type": "command", "command": "x"}]}
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "y"}]}
    ]
  }
}"#
        );
    }

    #[test]
    fn removing_from_the_middle_or_the_front_cuts_one_entry_and_its_comma() {
        let text = "[\n  1,\n  2,\n  3\n]";
        assert_eq!(
            edit(text, |v| {
                v.as_array_mut().unwrap().remove(1);
            }),
            "[\n  1,\n  3\n]"
        );
        assert_eq!(
            edit(text, |v| {
                v.as_array_mut().unwrap().remove(0);
            }),
            "[\n  2,\n  3\n]"
        );
        assert_eq!(
            edit("{\"a\": 1, \"b\": 2, \"c\": 3}", |v| {
                v.as_object_mut().unwrap().shift_remove("b");
            }),
            "{\"a\": 1, \"c\": 3}"
        );
        assert_eq!(edit("[ 1 ]", |v| *v = json!([])), "[]");
    }

    #[test]
    fn empty_containers_are_filled_and_emptied_in_place() {
        let text = "{\n  \"hooks\": {},\n  \"model\": \"opus\"\n}\n";
        let filled = edit(text, |v| v["hooks"]["Stop"] = json!([{"hooks": []}]));
        assert_eq!(
            filled,
            "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": []\n      }\n    ]\n  },\n  \"model\": \"opus\"\n}\n"
        );
        let back = edit(&filled, |v| v["hooks"] = json!({}));
        assert_eq!(back, text);
    }

    #[test]
    fn an_empty_container_is_filled_like_containers_of_the_same_shape() {
        // The one-line `env` holds plain values: no model for hook lists.
        let text = "{\n  \"env\": {\"A\": \"1\"},\n  \"hooks\": {}\n}\n";
        let out = edit(text, |v| v["hooks"]["Stop"] = json!([{"hooks": []}]));
        assert_eq!(
            out,
            "{\n  \"env\": {\"A\": \"1\"},\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": []\n      }\n    ]\n  }\n}\n"
        );
        // A one-line object of plain values is one when it is filled, too.
        let out = edit(text, |v| v["hooks"] = json!({"B": "2"}));
        assert_eq!(
            out,
            "{\n  \"env\": {\"A\": \"1\"},\n  \"hooks\": {\"B\": \"2\"}\n}\n"
        );
    }

    #[test]
    fn odd_input_falls_back_to_a_correct_text() {
        // Keys reordered: printed afresh in the file's style.
        let text = "{\"a\": 1, \"b\": 2}";
        let want = json!({"b": 2, "a": 1});
        assert_eq!(apply(text, &want).unwrap(), "{\"b\": 2, \"a\": 1}");
        // Not JSON or empty: a fresh pretty text.
        assert_eq!(apply("", &json!({"a": 1})).unwrap(), "{\n  \"a\": 1\n}\n");
        assert_eq!(apply("nope", &json!([])).unwrap(), "[]\n");
    }

    #[test]
    fn a_key_twice_is_refused_naming_it_and_where() {
        // serde_json keeps one of the two: any edit would lose the other.
        let text = "{\"a\": 1, \"a\": 2}";
        assert_eq!(
            apply(text, &json!({"a": 3})),
            Err(Unedited::DuplicateKey {
                key: "a".into(),
                at: String::new()
            })
        );
        let text = "{\"hooks\": {\"Stop\": [{\"x\": 1, \"y\": 2, \"x\": 3}]}}";
        let e = apply(text, &json!({})).unwrap_err();
        assert_eq!(
            e,
            Unedited::DuplicateKey {
                key: "x".into(),
                at: "hooks.Stop[0]".into()
            }
        );
        assert!(
            e.to_string()
                .contains("\"x\" is there twice in hooks.Stop[0]"),
            "{e}"
        );
    }

    #[test]
    fn no_number_or_escape_is_printed_afresh_through_serde() {
        // Kept in place when the edit is minimal: the 30 digits stay as written.
        let text = "{\"big\": 123456789012345678901234567890, \"s\": \"\\u00e9\"}";
        let out = edit(text, |v| v["hooks"] = json!({}));
        assert!(
            out.contains("123456789012345678901234567890") && out.contains("\\u00e9"),
            "{out}"
        );
        // A change that needs the file printed afresh: refused, naming the literal.
        let reordered = json!({"s": "é", "big": 1.2345678901234568e29});
        assert_eq!(
            apply(text, &reordered),
            Err(Unedited::Reprint {
                literal: "123456789012345678901234567890".into()
            })
        );
        let text = "{\"s\": \"\\u00e9\", \"n\": 1}";
        let e = apply(text, &json!({"n": 1, "s": "é"})).unwrap_err();
        assert_eq!(
            e,
            Unedited::Reprint {
                literal: "\"\\u00e9\"".into()
            }
        );
    }

    #[test]
    fn a_changed_element_is_edited_in_place_between_equal_ones() {
        let text = "[\n  {\"c\": \"a\"},\n  {\"c\": \"old\", \"t\": 5},\n  {\"c\": \"z\"}\n]";
        let out = edit(text, |v| {
            v[1]["c"] = json!("new");
            v[1].as_object_mut().unwrap().insert("p".into(), json!(0));
        });
        assert_eq!(
            out,
            "[\n  {\"c\": \"a\"},\n  {\"c\": \"new\", \"t\": 5, \"p\": 0},\n  {\"c\": \"z\"}\n]"
        );
    }
}
