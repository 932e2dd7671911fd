//! Which handoffs the inbox shows, and in which order.

use crate::model::handoff::entry::{HandoffEntry, HandoffKind};

/// Which handoffs the kind filter shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum KindFilter {
    /// Sessions and agents.
    #[default]
    All,
    /// Session handoffs only.
    Session,
    /// Agent handoffs only.
    Agent,
}

impl KindFilter {
    pub(super) fn next(self) -> Self {
        match self {
            Self::All => Self::Session,
            Self::Session => Self::Agent,
            Self::Agent => Self::All,
        }
    }
    fn admits(self, kind: HandoffKind) -> bool {
        match self {
            Self::All => true,
            Self::Session => kind == HandoffKind::Session,
            Self::Agent => kind == HandoffKind::Agent,
        }
    }
    /// `"all"`, `"session"` or `"agent"`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Session => "session",
            Self::Agent => "agent",
        }
    }
}

/// The inbox filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    /// Case-insensitive text matched against file name, task, title, branch, route
    /// (from/to), status and the handoff's text.
    pub(crate) text: String,
    /// Show only blocked Signals.
    pub(crate) blocked_only: bool,
    /// Session, agent or both.
    pub(crate) kind: KindFilter,
    /// The handoffs whose text holds a needle (lowercase), as the last body search
    /// found them. Bodies are searched on disk when the text changes (not kept in
    /// memory: an inbox may hold thousands of handoffs).
    pub(crate) body_hits: Option<(String, std::collections::HashSet<std::path::PathBuf>)>,
}

impl Filter {
    /// Whether `h` passes.
    pub(crate) fn admits(&self, h: &HandoffEntry) -> bool {
        if self.blocked_only && !h.is_blocked() {
            return false;
        }
        if !self.kind.admits(h.kind) {
            return false;
        }
        let needle = self.text.trim().to_lowercase();
        if needle.is_empty() {
            return true;
        }
        let hay = [
            Some(h.file_name.as_str()),
            h.task(),
            h.title.as_deref(),
            h.branch(),
            Some(h.status_word()),
        ];
        hay.iter()
            .flatten()
            .any(|s| s.to_lowercase().contains(&needle))
            || h.route()
                .is_some_and(|r| r.to_lowercase().contains(&needle))
            || self
                .body_hits
                .as_ref()
                .is_some_and(|(n, hits)| *n == needle && hits.contains(&h.path))
    }

    /// The text to highlight: the filter's text, trimmed and lowercased (`None` when
    /// empty).
    pub(crate) fn needle(&self) -> Option<String> {
        let n = self.text.trim().to_lowercase();
        (!n.is_empty()).then_some(n)
    }

    /// Whether any part of the filter is active.
    pub(crate) fn is_active(&self) -> bool {
        !self.text.trim().is_empty() || self.blocked_only || self.kind != KindFilter::All
    }
}

/// The visible rows: handoffs `filter` admits, blocked Signals first, then newest first.
/// `handoffs` must already be newest first (as the store lists them).
pub(crate) fn visible_rows(handoffs: &[HandoffEntry], filter: &Filter) -> Vec<usize> {
    crate::model::handoff::entry::inbox_order(handoffs)
        .into_iter()
        .filter(|i| filter.admits(&handoffs[*i]))
        .collect()
}
