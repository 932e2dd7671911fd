//! Redacting things that look like secrets from text forge copies out of a session
//! (the last user request, todo items, commit subjects, Signal questions,
//! notification messages) before it lands in a handoff or a state file.
//!
//! The shapes are one table, [`RULES`], in the manner of gitleaks' rule families
//! (`config/gitleaks.toml`, `cmd/generate/config/rules/*.go`): each rule has an id,
//! keywords that must occur (case-insensitively) before its regex runs at all, the
//! regex, and a check that turns away placeholders and look-alikes. A regex with a
//! group whose name starts with `s` redacts only that group (the key name, `Bearer `,
//! `https://user:` stay readable); otherwise the whole match goes. Rules run in
//! table order, vendor token shapes first, so a generic rule never sees a secret a
//! specific one already took.
//!
//! It is tuned to over-redact rather than leak: a false positive costs a word in a
//! handoff. `forge doctor`'s detector ([`crate::model::secrets`]) has the opposite
//! bias and its own heuristics for assignments and prose, but it takes the vendor
//! token shapes from this table ([`token_kinds`]), so a new shape is added once.

use std::sync::OnceLock;

use regex::{Captures, Regex};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// One secret shape.
pub struct Rule {
    /// A stable id (gitleaks' where one exists).
    pub id: &'static str,
    /// What it is, for people ("a Stripe key").
    pub kind: &'static str,
    /// Lowercase words of which one must occur in the text before the regex runs.
    pub keywords: &'static [&'static str],
    /// The pattern; a group named `s…` marks the part to redact.
    pub regex: &'static str,
    /// Whether a match is a secret (placeholders, look-alikes are not).
    pub check: fn(&Captures<'_>, &str) -> bool,
    /// A vendor shape with a fixed prefix, precise enough for `forge doctor`.
    pub token: bool,
}

/// A match of a shape that is a secret by itself.
fn always(_: &Captures<'_>, _: &str) -> bool {
    true
}

/// `$VAR`, `${VAR}`, `<token>`, `{{ .Values.x }}`, `***`, `xxxx`, `...`, and what
/// was redacted already.
fn is_placeholder(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    v.is_empty()
        || v.starts_with('$')
        || v.starts_with('<')
        || v.starts_with("{{")
        || v.starts_with("%(")
        || v.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '-' | '_'))
        || v.contains(REDACTED)
}

fn not_placeholder(_: &Captures<'_>, secret: &str) -> bool {
    !is_placeholder(secret)
}

/// Looks generated rather than written: a digit, a symbol among letters, or mixed
/// case. Keeps "the token is expired" and "basic functionality" as they are.
fn looks_random(secret: &str) -> bool {
    let s = secret.trim_matches(|c| c == '"' || c == '\'');
    if is_placeholder(s) {
        return false;
    }
    let digit = s.chars().any(|c| c.is_ascii_digit());
    let upper = s.chars().filter(char::is_ascii_uppercase).count();
    let lower = s.chars().filter(char::is_ascii_lowercase).count();
    let symbol = s.chars().any(|c| !c.is_alphanumeric());
    // "Expired" is a capitalised word, "wJalrX" is not.
    let capitalised = s.starts_with(|c: char| c.is_ascii_uppercase()) && upper == 1;
    digit || (symbol && upper + lower > 0) || (upper > 0 && lower > 0 && !capitalised)
}

fn random(_: &Captures<'_>, secret: &str) -> bool {
    looks_random(secret)
}

/// A 40-character base64 value that is not a git commit hash (40 hex digits).
fn not_hash(_: &Captures<'_>, secret: &str) -> bool {
    !secret.chars().all(|c| c.is_ascii_hexdigit()) && looks_random(secret)
}

/// Key names that contain a secret-looking word but name something else: counts,
/// limits, URLs, file paths, types, names, ids (`max_tokens`, `token_url`,
/// `SharedAccessKeyName`, `author`).
fn harmless_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let k = k.trim_matches(|c| c == '-' || c == '_' || c == '.');
    if k.contains("author") && !k.contains("authorization") {
        return true;
    }
    [
        "tokens", "count", "limit", "len", "length", "size", "ttl", "url", "uri", "type", "file",
        "path", "name", "id", "mode", "method", "endpoint", "header", "expiry", "expires",
        "timeout",
    ]
    .iter()
    .any(|s| k.ends_with(s))
}

/// `KEY=value` whose key looks secret and whose value looks like a value (a
/// bracketed list is judged by what is inside: `[]` and `["$TOKEN"]` are not).
fn assignment(c: &Captures<'_>, secret: &str) -> bool {
    let key = c.name("k").map_or("", |m| m.as_str());
    let secret = secret
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .map_or(secret, str::trim);
    let v = secret.to_ascii_lowercase();
    !harmless_key(key)
        && !is_placeholder(secret)
        // `==`, `=>`, `::` and `:=`: code, not an assignment of a literal.
        && !secret.starts_with(['=', '>', ':'])
        && !matches!(
            v.as_str(),
            "true" | "false" | "null" | "none" | "nil" | "undefined" | "bearer" | "basic" | "token"
        )
}

/// The table. Order matters: specific shapes first, then commands and headers, then
/// the generic assignment and prose rules.
pub const RULES: &[Rule] = &[
    Rule {
        id: "private-key",
        kind: "private key block",
        keywords: &["private key"],
        regex: r"(?s)-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        check: always,
        token: false,
    },
    // AI providers.
    Rule {
        id: "anthropic-api-key",
        kind: "Anthropic API key",
        keywords: &["sk-ant-"],
        regex: r"\bsk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{20,}",
        check: always,
        token: true,
    },
    Rule {
        id: "openai-api-key",
        kind: "API key (sk-…)",
        keywords: &["sk-"],
        regex: r"\bsk-[A-Za-z0-9_-]{16,}",
        check: always,
        token: true,
    },
    Rule {
        id: "huggingface-access-token",
        kind: "Hugging Face token",
        keywords: &["hf_"],
        regex: r"\bhf_[A-Za-z0-9]{30,}",
        check: always,
        token: true,
    },
    Rule {
        id: "huggingface-organization-api-token",
        kind: "Hugging Face token",
        keywords: &["api_org_"],
        regex: r"\bapi_org_[A-Za-z0-9]{30,}",
        check: always,
        token: true,
    },
    Rule {
        id: "groq-api-key",
        kind: "Groq API key",
        keywords: &["gsk_"],
        regex: r"\bgsk_[A-Za-z0-9]{40,}",
        check: always,
        token: true,
    },
    Rule {
        id: "replicate-api-token",
        kind: "Replicate API token",
        keywords: &["r8_"],
        regex: r"\br8_[A-Za-z0-9]{30,}",
        check: always,
        token: true,
    },
    Rule {
        id: "perplexity-api-key",
        kind: "Perplexity API key",
        keywords: &["pplx-"],
        regex: r"\bpplx-[A-Za-z0-9]{40,}",
        check: always,
        token: true,
    },
    // Source hosting.
    Rule {
        id: "github-token",
        kind: "GitHub token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        regex: r"\bgh[pousr]_[A-Za-z0-9]{20,}",
        check: always,
        token: true,
    },
    Rule {
        id: "github-fine-grained-pat",
        kind: "GitHub token",
        keywords: &["github_pat_"],
        regex: r"\bgithub_pat_[A-Za-z0-9_]{20,}",
        check: always,
        token: true,
    },
    Rule {
        id: "gitlab-pat",
        kind: "GitLab token",
        keywords: &["glpat-"],
        regex: r"\bglpat-[A-Za-z0-9_-]{20,}",
        check: always,
        token: true,
    },
    Rule {
        id: "gitlab-token",
        kind: "GitLab token",
        keywords: &[
            "glptt-", "glrt-", "gldt-", "glcbt-", "glft-", "glimt-", "glagent-", "gloas-",
            "glsoat-",
        ],
        regex: r"\bgl(?:ptt|rt|dt|cbt|ft|imt|agent|oas|soat)-[A-Za-z0-9_-]{20,}",
        check: always,
        token: true,
    },
    // Clouds.
    Rule {
        id: "aws-access-token",
        kind: "AWS access key",
        keywords: &["akia", "asia", "abia", "acca"],
        regex: r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "aws-secret-access-key",
        kind: "AWS secret key",
        keywords: &["aws"],
        regex: r"\b(?i-u:aws).{0,40}?(?P<s>\b[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)",
        check: not_hash,
        token: false,
    },
    Rule {
        id: "gcp-api-key",
        kind: "Google API key",
        keywords: &["aiza"],
        regex: r"\bAIza[0-9A-Za-z_-]{35}",
        check: always,
        token: true,
    },
    Rule {
        id: "google-oauth-client-secret",
        kind: "Google OAuth secret",
        keywords: &["gocspx-"],
        regex: r"\bGOCSPX-[A-Za-z0-9_-]{20,}",
        check: always,
        token: true,
    },
    Rule {
        id: "google-oauth-access-token",
        kind: "Google OAuth token",
        keywords: &["ya29."],
        regex: r"\bya29\.[A-Za-z0-9_-]{30,}",
        check: always,
        token: true,
    },
    Rule {
        id: "azure-storage-account-key",
        kind: "Azure storage key",
        keywords: &["accountkey"],
        regex: r"\b(?i-u:AccountKey)\s*=\s*(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
        check: always,
        token: true,
    },
    Rule {
        id: "azure-shared-access-key",
        kind: "Azure shared access key",
        keywords: &["sharedaccesskey"],
        regex: r"\b(?i-u:SharedAccessKey)\s*=\s*(?P<s>[A-Za-z0-9+/]{20,}={0,2})",
        check: always,
        token: true,
    },
    Rule {
        id: "azure-sas-signature",
        kind: "Azure SAS signature",
        keywords: &["sig="],
        regex: r"[?&;]sig=(?P<s>[A-Za-z0-9%+/=]{16,})",
        check: always,
        token: true,
    },
    Rule {
        id: "azure-ad-client-secret",
        kind: "Azure client secret",
        keywords: &["q~"],
        regex: r#"(?:^|[\s'"`=:(,>])(?P<s>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})"#,
        check: always,
        token: true,
    },
    Rule {
        id: "digitalocean-token",
        kind: "DigitalOcean token",
        keywords: &["dop_v1_", "doo_v1_", "dor_v1_"],
        regex: r"\bdo[opr]_v1_[a-f0-9]{64}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "alibaba-access-key-id",
        kind: "Alibaba access key",
        keywords: &["ltai"],
        regex: r"\bLTAI[A-Za-z0-9]{20}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "databricks-api-token",
        kind: "Databricks token",
        keywords: &["dapi"],
        regex: r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b",
        check: always,
        token: true,
    },
    Rule {
        id: "heroku-api-key",
        kind: "Heroku API key",
        keywords: &["hrku-"],
        regex: r"\bHRKU-[A-Za-z0-9_-]{20,}",
        check: always,
        token: true,
    },
    Rule {
        id: "vault-token",
        kind: "Vault token",
        keywords: &["hvs.", "hvb."],
        regex: r"\bhv[sb]\.[A-Za-z0-9_-]{24,}",
        check: always,
        token: true,
    },
    Rule {
        id: "terraform-cloud-token",
        kind: "Terraform Cloud token",
        keywords: &["atlasv1"],
        regex: r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
        check: always,
        token: true,
    },
    Rule {
        id: "doppler-api-token",
        kind: "Doppler token",
        keywords: &["dp.pt."],
        regex: r"\bdp\.pt\.[A-Za-z0-9]{40,}",
        check: always,
        token: true,
    },
    // Payments, mail, messaging, package registries, SaaS.
    Rule {
        id: "stripe-access-token",
        kind: "Stripe key",
        keywords: &["_live_", "_test_", "_prod_"],
        regex: r"\b[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}",
        check: always,
        token: true,
    },
    Rule {
        id: "stripe-webhook-secret",
        kind: "Stripe webhook secret",
        keywords: &["whsec_"],
        regex: r"\bwhsec_[A-Za-z0-9]{20,}",
        check: always,
        token: true,
    },
    Rule {
        id: "sendgrid-api-token",
        kind: "SendGrid API key",
        keywords: &["sg."],
        regex: r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
        check: always,
        token: true,
    },
    Rule {
        id: "twilio-api-key",
        kind: "Twilio API key",
        keywords: &["sk"],
        regex: r"\bSK[0-9a-fA-F]{32}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "twilio-auth-token",
        kind: "Twilio auth token",
        keywords: &["twilio"],
        regex: r"\b(?i-u:twilio).{0,40}?\b(?P<s>[0-9a-fA-F]{32})\b",
        check: always,
        token: false,
    },
    Rule {
        id: "npm-access-token",
        kind: "npm token",
        keywords: &["npm_"],
        regex: r"\bnpm_[A-Za-z0-9]{36}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "pypi-upload-token",
        kind: "PyPI token",
        keywords: &["pypi-"],
        regex: r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        check: always,
        token: true,
    },
    Rule {
        id: "rubygems-api-token",
        kind: "RubyGems token",
        keywords: &["rubygems_"],
        regex: r"\brubygems_[a-f0-9]{48}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "slack-token",
        kind: "Slack token",
        keywords: &["xox"],
        regex: r"\bxox[abposre]-[A-Za-z0-9-]{10,}",
        check: always,
        token: true,
    },
    Rule {
        id: "slack-app-token",
        kind: "Slack token",
        keywords: &["xapp-"],
        regex: r"\bxapp-[0-9]-[A-Za-z0-9-]{10,}",
        check: always,
        token: true,
    },
    Rule {
        id: "slack-webhook-url",
        kind: "Slack webhook",
        keywords: &["hooks.slack.com"],
        regex: r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{10,})",
        check: always,
        token: true,
    },
    Rule {
        id: "discord-webhook-url",
        kind: "Discord webhook",
        keywords: &["discord"],
        regex: r"discord(?:app)?\.com/api/webhooks/[0-9]+/(?P<s>[A-Za-z0-9_-]{20,})",
        check: always,
        token: true,
    },
    Rule {
        id: "telegram-bot-api-token",
        kind: "Telegram bot token",
        keywords: &[":aa"],
        regex: r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}",
        check: always,
        token: true,
    },
    Rule {
        id: "mailgun-private-api-token",
        kind: "Mailgun key",
        keywords: &["key-"],
        regex: r"\bkey-[a-f0-9]{32}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "mailchimp-api-key",
        kind: "Mailchimp key",
        keywords: &["-us"],
        regex: r"\b[a-f0-9]{32}-us[0-9]{1,2}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "shopify-token",
        kind: "Shopify token",
        keywords: &["shpat_", "shpca_", "shppa_", "shpss_"],
        regex: r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "linear-api-key",
        kind: "Linear API key",
        keywords: &["lin_api_"],
        regex: r"\blin_api_[A-Za-z0-9]{40}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "postman-api-token",
        kind: "Postman API key",
        keywords: &["pmak-"],
        regex: r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "atlassian-api-token",
        kind: "Atlassian API token",
        keywords: &["atatt3"],
        regex: r"\bATATT3[A-Za-z0-9_=-]{100,}",
        check: always,
        token: true,
    },
    Rule {
        id: "new-relic-user-api-key",
        kind: "New Relic key",
        keywords: &["nrak-"],
        regex: r"\bNRAK-[A-Z0-9]{27}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "grafana-token",
        kind: "Grafana token",
        keywords: &["glsa_", "glc_"],
        regex: r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})",
        check: always,
        token: true,
    },
    Rule {
        id: "sentry-token",
        kind: "Sentry token",
        keywords: &["sntrys_", "sntryu_"],
        regex: r"\bsntry[su]_[A-Za-z0-9+/=_]{40,}",
        check: always,
        token: true,
    },
    Rule {
        id: "age-secret-key",
        kind: "age secret key",
        keywords: &["age-secret-key-1"],
        regex: r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
        check: always,
        token: true,
    },
    Rule {
        id: "jwt",
        kind: "JSON Web Token",
        keywords: &["eyj"],
        regex: r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
        check: always,
        token: true,
    },
    // Credentials on command lines and in headers.
    Rule {
        id: "url-password",
        kind: "password in a URL",
        keywords: &["://"],
        regex: r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:(?P<s>[^\s@/]+)@",
        check: not_placeholder,
        token: false,
    },
    Rule {
        id: "curl-auth-user",
        kind: "curl password",
        keywords: &["curl"],
        regex: r#"\bcurl\b[^\n]*?\s(?:-u|--user)(?:=|[ \t]+)["']?[^\s:"']*:(?P<s>[^\s"']+)"#,
        check: not_placeholder,
        token: false,
    },
    Rule {
        id: "mysql-password-flag",
        kind: "database password",
        keywords: &["mysql", "mariadb"],
        regex: r#"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"]+)"#,
        check: not_placeholder,
        token: false,
    },
    Rule {
        id: "sshpass-password",
        kind: "ssh password",
        keywords: &["sshpass"],
        regex: r"\bsshpass\s+-p\s*(?P<s>\S+)",
        check: not_placeholder,
        token: false,
    },
    Rule {
        id: "authorization-bearer",
        kind: "Bearer token",
        keywords: &["bearer"],
        regex: r"\b(?i-u:bearer)\s+(?P<s>[A-Za-z0-9._~+/=-]{8,})",
        check: random,
        token: false,
    },
    Rule {
        id: "authorization-basic",
        kind: "Basic credentials",
        keywords: &["basic"],
        regex: r"\b(?i-u:basic)\s+(?P<s>[A-Za-z0-9+/]{8,}={0,2})",
        check: random,
        token: false,
    },
    Rule {
        id: "authorization-token",
        kind: "token",
        keywords: &["token"],
        regex: r"\b(?i-u:(?:api-)?token)\s+(?P<s>[A-Za-z0-9._~+/=-]{8,})",
        check: random,
        token: false,
    },
    // Generic: a secret-named key with a value, then the same said in prose.
    Rule {
        id: "secret-assignment",
        kind: "secret-named assignment",
        keywords: &[
            "token",
            "secret",
            "pass",
            "pwd",
            "key",
            "auth",
            "credential",
            "session",
        ],
        regex: concat!(
            r#"\b(?P<k>[A-Za-z0-9_.-]*(?i-u:token|secret|password|passwd|pwd|api[_-]?key|apikey|auth|credential|private[_-]?key|access[_-]?key|session[_-]?key)[A-Za-z0-9_.-]*)"#,
            r#"["']?\s*[:=]\s*"#,
            // A bracketed value (`[abc, def]`, a JSON array) goes whole, brackets
            // and all: the unquoted class stops at `]`, so it would take `[abc` and
            // leave `[REDACTED]]` (and `, def]` readable) behind.
            r#"(?:"(?P<s1>[^"\n]*)"|'(?P<s2>[^'\n]*)'|(?P<s3>\[[^\[\]\n]*\])|(?P<s4>[^\s,;&"'}\])]+))"#,
        ),
        check: assignment,
        token: false,
    },
    Rule {
        id: "secret-in-prose",
        kind: "secret in prose",
        keywords: &["pass", "secret", "token", "key", "credential"],
        regex: concat!(
            r"\b(?i-u:password|passwd|passphrase|passcode|secret|token|api[ _-]?key|access[ _-]?key|secret[ _-]?key|private[ _-]?key|credentials?)",
            r"\s+(?i-u:is|was|are|would be|should be|reads|=|:)\s+[`'\x22]?",
            r"(?P<s>[^\s`'\x22]{5,}[^\s`'\x22.,;:!?)])",
        ),
        check: random,
        token: false,
    },
];

/// The ids of the rules whose regex does not compile in this build (none, unless the
/// build's regex features lack a table a rule needs): text of those shapes would be
/// stored unredacted, so `forge doctor` fails on any.
pub fn rules_that_do_not_compile() -> Vec<&'static str> {
    (0..RULES.len())
        .filter(|&i| compiled(i).is_none())
        .map(|i| RULES[i].id)
        .collect()
}

fn compiled(i: usize) -> Option<&'static Regex> {
    static CACHE: OnceLock<Vec<OnceLock<Option<Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| RULES.iter().map(|_| OnceLock::new()).collect());
    let rule = RULES.get(i)?;
    cache
        .get(i)?
        .get_or_init(|| Regex::new(rule.regex).ok())
        .as_ref()
}

/// Whether any of `rule`'s keywords occurs in `lower` (the text, lowercased).
fn wanted(rule: &Rule, lower: &str) -> bool {
    rule.keywords.is_empty() || rule.keywords.iter().any(|k| lower.contains(k))
}

/// The part of a match to redact: the first `s…` group that took part, else the
/// whole match.
fn secret_span(re: &Regex, c: &Captures<'_>) -> Option<(usize, usize)> {
    for (i, name) in re.capture_names().enumerate() {
        if name.is_some_and(|n| n.starts_with('s'))
            && let Some(m) = c.get(i)
        {
            return Some((m.start(), m.end()));
        }
    }
    c.get(0).map(|m| (m.start(), m.end()))
}

/// The spans of `text` that `rule` (number `i`) redacts.
fn spans(i: usize, text: &str) -> Vec<(usize, usize)> {
    let (Some(rule), Some(re)) = (RULES.get(i), compiled(i)) else {
        return Vec::new();
    };
    // Spans that already say [REDACTED] are not redacted again (a value class that
    // stops at `]` would otherwise leave a stray `]`).
    let done: Vec<(usize, usize)> = text
        .match_indices(REDACTED)
        .map(|(at, s)| (at, at + s.len()))
        .collect();
    re.captures_iter(text)
        .filter_map(|c| {
            let (start, end) = secret_span(re, &c)?;
            let secret = text.get(start..end)?;
            let overlaps = done.iter().any(|&(a, b)| start < b && a < end);
            (start < end && !overlaps && (rule.check)(&c, secret)).then_some((start, end))
        })
        .collect()
}

/// `text` with every span replaced by [`REDACTED`].
fn splice(text: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end) in spans {
        out.push_str(text.get(at..start).unwrap_or(""));
        out.push_str(REDACTED);
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    out
}

/// `text` with everything that looks like a secret replaced by `[REDACTED]`.
pub fn redact(text: &str) -> String {
    let lower = text.to_lowercase();
    let mut out = text.to_owned();
    for (i, rule) in RULES.iter().enumerate() {
        if !wanted(rule, &lower) {
            continue;
        }
        let found = spans(i, &out);
        if !found.is_empty() {
            out = splice(&out, &found);
        }
    }
    out
}

/// Whether `text` contains anything [`redact`] would change.
pub fn looks_secret(text: &str) -> bool {
    redact(text) != text
}

/// The kinds of vendor token (the rules marked `token`) found in `text`, for
/// `forge doctor`; never the matched text.
pub fn token_kinds(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    let mut kinds = Vec::new();
    for (i, rule) in RULES.iter().enumerate() {
        if rule.token
            && wanted(rule, &lower)
            && !spans(i, text).is_empty()
            && !kinds.contains(&rule.kind)
        {
            kinds.push(rule.kind);
        }
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule with a text it must redact (the secret part named) and a
    /// look-alike that must come through unchanged.
    const CASES: &[(&str, &str, &str, &str)] = &[
        // (rule id, positive text, the secret in it, negative text)
        (
            "private-key",
            "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----\ndone",
            "b3BlbnNzaC1rZXktdjEAAAA",
            "-----BEGIN PUBLIC KEY----- is not secret; ssh-keygen writes the private key file",
        ),
        (
            "anthropic-api-key",
            "use sk-ant-api03-Zq8xVv2LmN4pR7tY1uW3eK9sD6fH0jB5cA here",
            "Zq8xVv2LmN4pR7tY1uW3eK9sD6fH0jB5cA",
            "the sk-ant prefix marks Anthropic keys",
        ),
        (
            "openai-api-key",
            "OPENAI sk-proj-abcdefghijklmnopqrstuvwx now",
            "sk-proj-abcdefghijklmnopqrstuvwx",
            "task-abcdefghijklmnopqrstuvwxyz and risk-assessment-for-the-quarter, sk-learn",
        ),
        (
            "huggingface-access-token",
            "login with hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
            "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
            "call hf_hub_download from huggingface_hub",
        ),
        (
            "huggingface-organization-api-token",
            "org api_org_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
            "api_org_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
            "see api_org_settings in the docs",
        ),
        (
            "groq-api-key",
            "GROQ gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKl",
            "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKl",
            "the gsk_ prefix and gsk_short",
        ),
        (
            "replicate-api-token",
            "r8_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789A works",
            "r8_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789A",
            "model r8_small",
        ),
        (
            "perplexity-api-key",
            "pplx-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGh",
            "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGh",
            "pplx-api docs",
        ),
        (
            "github-token",
            "git remote set-url origin ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s",
            "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s",
            "ghp_ is GitHub's prefix; see gho_docs",
        ),
        (
            "github-fine-grained-pat",
            "token github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "the github_pat_ prefix",
        ),
        (
            "gitlab-pat",
            "glpat-abcdefghij0123456789 for CI",
            "glpat-abcdefghij0123456789",
            "create a glpat-token in GitLab",
        ),
        (
            "gitlab-token",
            "register with glrt-AbCdEfGhIjKlMnOpQrStUv",
            "glrt-AbCdEfGhIjKlMnOpQrStUv",
            "glrt-runner docs",
        ),
        (
            "aws-access-token",
            "aws: AKIAIOSFODNN7EXAMPLE is the key id",
            "AKIAIOSFODNN7EXAMPLE",
            "AKIA is the prefix of AWS key ids",
        ),
        (
            "aws-secret-access-key",
            "the AWS secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, rotate it",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws fix landed in 3f2c9a1b7d4e8f0a6c5b2d1e9f8a7b6c5d4e3f2a",
        ),
        (
            "gcp-api-key",
            "key=AIzaSyA-abcdefghijklmnopqrstuvwxyz012345 in the URL",
            "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345",
            "AIza keys start like that",
        ),
        (
            "google-oauth-client-secret",
            "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz01",
            "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz01",
            "GOCSPX-prefixed secrets",
        ),
        (
            "google-oauth-access-token",
            "ya29.a0AfH6SMBxAbCdEfGhIjKlMnOpQrStUvWxYz0123",
            "ya29.a0AfH6SMBxAbCdEfGhIjKlMnOpQrStUvWxYz0123",
            "tokens start with ya29. at Google",
        ),
        (
            "azure-storage-account-key",
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net",
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
            "AccountName=acme;EndpointSuffix=core.windows.net",
        ),
        (
            "azure-shared-access-key",
            "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFG=",
            "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFG=",
            "set SharedAccessKeyName=RootManageSharedAccessKey",
        ),
        (
            "azure-sas-signature",
            "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sig=AbCdEf%2BGhIjKl0123456789%3D",
            "AbCdEf%2BGhIjKl0123456789%3D",
            "a URL with ?sig=short",
        ),
        (
            "azure-ad-client-secret",
            "client_secret: .IQ8Q~79R7TOWOspFnWcEG-dYt4KXqFqxK16cxr",
            ".IQ8Q~79R7TOWOspFnWcEG-dYt4KXqFqxK16cxr",
            "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
        ),
        (
            "digitalocean-token",
            "doctl auth init -t dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "droplet_v1_api and dop_v1_ tokens",
        ),
        (
            "alibaba-access-key-id",
            "LTAI5tAbCdEfGhIjKlMnOpQr",
            "LTAI5tAbCdEfGhIjKlMnOpQr",
            "LTAI is Alibaba's prefix",
        ),
        (
            "databricks-api-token",
            "dapi0123456789abcdef0123456789abcdef",
            "dapi0123456789abcdef0123456789abcdef",
            "the dapi endpoint",
        ),
        (
            "heroku-api-key",
            "HRKU-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
            "HRKU-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
            "HRKU-prefixed keys",
        ),
        (
            "vault-token",
            "VAULT hvs.CAESIAbCdEfGhIjKlMnOpQrStUvWxYz0123",
            "hvs.CAESIAbCdEfGhIjKlMnOpQrStUvWxYz0123",
            "files like hvs.conf",
        ),
        (
            "terraform-cloud-token",
            "abcdefghijklmn.atlasv1.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01",
            "abcdefghijklmn.atlasv1.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01",
            "the atlasv1 format",
        ),
        (
            "doppler-api-token",
            "dp.pt.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEf",
            "dp.pt.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEf",
            "dp.pt. is Doppler's prefix",
        ),
        (
            "stripe-access-token",
            "charge with sk_live_51HxAbCdEfGhIjKlMnOpQrStUv and rk_live_51HxAbCdEfGhIj",
            "sk_live_51HxAbCdEfGhIjKlMnOpQrStUv",
            "desk_live_updates and sk_live_ prefixes",
        ),
        (
            "stripe-webhook-secret",
            "whsec_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
            "whsec_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
            "whsec_ secrets sign webhooks",
        ),
        (
            "sendgrid-api-token",
            "SENDGRID SG.AbCdEfGhIjKlMnOpQrStUv.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG",
            "SG.AbCdEfGhIjKlMnOpQrStUv.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG",
            "SG.Region and SG.main",
        ),
        (
            "twilio-api-key",
            "SK0123456789abcdef0123456789abcdef",
            "SK0123456789abcdef0123456789abcdef",
            "SKU-1234 ships today",
        ),
        (
            "twilio-auth-token",
            "twilio auth token 0123456789abcdef0123456789abcdef",
            "0123456789abcdef0123456789abcdef",
            "twilio SDK 8.0 is out",
        ),
        (
            "npm-access-token",
            "//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "npm_config_cache=/tmp/npm",
        ),
        (
            "pypi-upload-token",
            "pypi-AgEIcHlwaS5vcmcCJAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOp",
            "pypi-AgEIcHlwaS5vcmcCJAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOp",
            "pypi-server runs locally",
        ),
        (
            "rubygems-api-token",
            "rubygems_0123456789abcdef0123456789abcdef0123456789abcdef",
            "rubygems_0123456789abcdef0123456789abcdef0123456789abcdef",
            "rubygems_mirror setting",
        ),
        (
            "slack-token",
            "SLACK=xoxb-123456789012-abcdefghijkl",
            "xoxb-123456789012-abcdefghijkl",
            "xoxo from the team",
        ),
        (
            "slack-app-token",
            "xapp-1-A0123456789-0123456789012-abcdef",
            "xapp-1-A0123456789-0123456789012-abcdef",
            "xapp-level tokens",
        ),
        (
            "slack-webhook-url",
            "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now",
            "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "see https://api.slack.com/messaging/webhooks",
        ),
        (
            "discord-webhook-url",
            "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789",
            "AbCdEfGhIjKlMnOpQrStUvWxYz_0123456789",
            "https://discord.com/api/webhooks docs",
        ),
        (
            "telegram-bot-api-token",
            "bot 123456789:AAAbCdEfGhIjKlMnOpQrStUvWxYz0123456",
            "123456789:AAAbCdEfGhIjKlMnOpQrStUvWxYz0123456",
            "at 12:30:AA meeting",
        ),
        (
            "mailgun-private-api-token",
            "api:key-0123456789abcdef0123456789abcdef",
            "key-0123456789abcdef0123456789abcdef",
            "a key-value store",
        ),
        (
            "mailchimp-api-key",
            "0123456789abcdef0123456789abcdef-us21",
            "0123456789abcdef0123456789abcdef-us21",
            "en-us locale",
        ),
        (
            "shopify-token",
            "shpat_0123456789abcdef0123456789abcdef",
            "shpat_0123456789abcdef0123456789abcdef",
            "shpat_ tokens",
        ),
        (
            "linear-api-key",
            "lin_api_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd",
            "lin_api_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd",
            "lin_api_ docs",
        ),
        (
            "postman-api-token",
            "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
            "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
            "PMAK-prefixed keys",
        ),
        (
            "atlassian-api-token",
            "ATATT3xFfGF0AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz=AB12CD34",
            "ATATT3xFfGF0AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz=AB12CD34",
            "ATATT3 tokens",
        ),
        (
            "new-relic-user-api-key",
            "NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZ0",
            "NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZ0",
            "NRAK-keys",
        ),
        (
            "grafana-token",
            "glsa_AbCdEfGhIjKlMnOpQrStUvWxYz012345_0123abcd",
            "glsa_AbCdEfGhIjKlMnOpQrStUvWxYz012345_0123abcd",
            "glsa_ service accounts",
        ),
        (
            "sentry-token",
            "sntrys_eyJpYXQiOjE2ODAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ_AbCd",
            "sntrys_eyJpYXQiOjE2ODAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ_AbCd",
            "sntrys_ tokens",
        ),
        (
            "age-secret-key",
            "AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE",
            "AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE",
            "age-keygen writes AGE-SECRET-KEY-1 lines",
        ),
        (
            "jwt",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "a JWT starts with eyJ",
        ),
        (
            "url-password",
            "connect to postgres://app:hunter2-db-pass@db.internal/prod",
            "hunter2-db-pass",
            "postgres://localhost:5432/app and https://user@host/x and ${DATABASE_URL}",
        ),
        (
            "curl-auth-user",
            "curl --cacert ca.crt -u elastic:P@ssw0rd$1 https://localhost:9200",
            "P@ssw0rd$1",
            "curl -u \"$USER:$PASS\" https://x and curl -u myname https://x",
        ),
        (
            "mysql-password-flag",
            "mysql -h db -u root -pS3cr3tPass app",
            "S3cr3tPass",
            "mysql -h db -u root -p app, then mysql -P 3306",
        ),
        (
            "sshpass-password",
            "sshpass -p 'Tr0ub4dor&3' ssh deploy@host",
            "Tr0ub4dor&3",
            "sshpass reads -f files",
        ),
        (
            "authorization-bearer",
            "curl -H 'Authorization: Bearer abc.def-ghi_jkl' https://api",
            "abc.def-ghi_jkl",
            "the bearer certificate and the Bearer <token> placeholder",
        ),
        (
            "authorization-basic",
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "dXNlcjpwYXNzd29yZA==",
            "basic functionality works",
        ),
        (
            "authorization-token",
            "header Token 22cb987851bc5659229114c62e60c79abd0d2c08",
            "22cb987851bc5659229114c62e60c79abd0d2c08",
            "the token expiration and token refreshing",
        ),
        (
            "secret-assignment",
            "export DB_PASSWORD=S3cretFromEnvLine",
            "S3cretFromEnvLine",
            "author: Alice; max_tokens: 4096; token_url=https://x/token; auth::Token; password == expected",
        ),
        (
            "secret-in-prose",
            "the root password is hunter22!",
            "hunter22",
            "the secret is out, the token is expired, the password was wrong",
        ),
    ];

    #[test]
    fn every_rule_compiles_and_has_a_positive_and_a_negative() {
        for (i, rule) in RULES.iter().enumerate() {
            assert!(compiled(i).is_some(), "{} does not compile", rule.id);
            assert!(
                CASES.iter().any(|c| c.0 == rule.id),
                "{} has no test case",
                rule.id
            );
            assert!(
                rule.keywords.iter().all(|k| k.to_lowercase() == *k),
                "{}: keywords are matched against lowercased text",
                rule.id
            );
        }
        assert!(RULES.len() >= 40, "{} shapes", RULES.len());
    }

    /// What in `re` would need a Unicode table the release build leaves out: a
    /// case-insensitive group that folds with Unicode, or a Unicode property.
    fn needs_left_out_table(re: &str) -> Option<String> {
        for (at, _) in re.match_indices("(?") {
            let flags: String = re[at + 2..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic() || *c == '-')
                .collect();
            let (on, off) = flags.split_once('-').unwrap_or((&flags, ""));
            if on.contains('i') && !off.contains('u') {
                return Some(format!("`(?{flags}` folds case with Unicode tables"));
            }
        }
        ["\\p", "\\P"]
            .iter()
            .find(|p| re.contains(*p))
            .map(|p| format!("Unicode property {p}"))
    }

    /// The release build has only regex's `unicode-perl` tables (Cargo.toml), while
    /// the test build gets all of them through dev-dependencies, so a rule that needs
    /// another table would compile here and silently drop out of the release. Every
    /// case-insensitive group must fold in ASCII (`(?i-u:…)`).
    #[test]
    fn rules_need_no_unicode_table_the_release_leaves_out() {
        for rule in RULES {
            assert_eq!(needs_left_out_table(rule.regex), None, "{}", rule.id);
        }
        for bad in ["(?i)\\btoken", "(?si:x)", "(?i-s:x)", "\\p{Greek}"] {
            assert!(needs_left_out_table(bad).is_some(), "{bad}");
        }
        for good in ["(?i-u:token)", "(?s)x", "(?-u:x)", "[A-Za-z]"] {
            assert_eq!(needs_left_out_table(good), None, "{good}");
        }
    }

    #[test]
    fn rule_table_positives_and_look_alikes() {
        for (id, positive, secret, negative) in CASES {
            let i = RULES
                .iter()
                .position(|r| r.id == *id)
                .unwrap_or_else(|| panic!("no rule {id}"));
            // The rule itself finds it (not only a later, more generic one).
            assert!(!spans(i, positive).is_empty(), "{id} misses {positive:?}");
            let out = redact(positive);
            assert!(!out.contains(secret), "{id}: {secret} leaked in {out:?}");
            assert!(out.contains(REDACTED), "{id}: {out:?}");
            assert!(!out.contains("]]") && !out.contains("[[REDACTED"), "{out}");
            assert_eq!(redact(negative), *negative, "{id} look-alike changed");
        }
    }

    #[test]
    fn only_the_secret_part_goes() {
        for (input, expected) in [
            (
                "https://u:hunter2@db.example.com/x",
                "https://u:[REDACTED]@db.example.com/x",
            ),
            ("export API_KEY=12345abcde", "export API_KEY=[REDACTED]"),
            (
                "set github_token = 'tok-value'",
                "set github_token = '[REDACTED]'",
            ),
            (
                r#"{"client_secret": "very secret value"}"#,
                r#"{"client_secret": "[REDACTED]"}"#,
            ),
            (
                "https://x.io/cb?access_token=zzz123&ok=1",
                "https://x.io/cb?access_token=[REDACTED]&ok=1",
            ),
            (
                "Authorization: Bearer abc.def-ghi_jkl",
                "Authorization: Bearer [REDACTED]",
            ),
            (
                "curl -u admin:s3cr3t https://x",
                "curl -u admin:[REDACTED] https://x",
            ),
            ("mysql -uroot -pS3cr3t db", "mysql -uroot -p[REDACTED] db"),
            (
                "https://hooks.slack.com/services/T0/B0/abcdefghijkl",
                "https://hooks.slack.com/services/[REDACTED]",
            ),
        ] {
            assert_eq!(redact(input), expected, "{input}");
        }
        let out = redact("passwd=pw1 apikey=k2 AUTH=a3 credentials: c4 private_key=p5");
        for v in ["pw1", "k2", "a3", "c4", "p5"] {
            assert!(!out.contains(v), "{v} in {out}");
        }
    }

    #[test]
    fn a_token_in_an_assignment_leaves_no_stray_bracket() {
        // The token rule redacts first; the assignment rule used to take
        // `[REDACTED` as the value (its class stops at `]`) and leave `]` behind.
        for input in [
            "api_key=sk-abcdefghijklmnopqrstuvwx",
            "GITHUB_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s",
            "token: [REDACTED]",
        ] {
            let out = redact(input);
            assert!(out.ends_with(REDACTED), "{input} → {out}");
            assert!(!out.contains("]]"), "{input} → {out}");
        }
    }

    #[test]
    fn a_bracketed_value_goes_whole_with_its_brackets() {
        // The unquoted value class stops at `]`: `[abc123` went and the `]` stayed,
        // and in a list only the first item went.
        for (input, expected) in [
            ("api_key=[abc123]", "api_key=[REDACTED]"),
            ("password: [hunter2]", "password: [REDACTED]"),
            ("API_KEYS=[abc123, def456]", "API_KEYS=[REDACTED]"),
            (r#"token=["abc123"]"#, "token=[REDACTED]"),
            (
                r#"{"api_key": ["abc123xyz", "q7"]}"#,
                r#"{"api_key": [REDACTED]}"#,
            ),
            (
                "- [ ] set secret=[s3cr3t] today",
                "- [ ] set secret=[REDACTED] today",
            ),
            // Empty and placeholder lists are not secrets.
            ("secret=[]", "secret=[]"),
            (r#"api_key = ["$API_KEY"]"#, r#"api_key = ["$API_KEY"]"#),
        ] {
            let out = redact(input);
            assert_eq!(out, expected, "{input}");
            assert_eq!(redact(&out), out, "redacting twice changes {out}");
        }
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "Refactor the pool in src/db/pool.rs and run cargo test",
            "author: Alice",
            "the tokens count is 42",
            "see https://github.com/acme/acme-api/pull/482",
            "Move handlers (3 of 5)",
            "abc1234 Add pool",
            "3f2c9a1b7d4e8f0a6c5b2d1e9f8a7b6c5d4e3f2a fix the retry loop",
            "session 3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21 ended",
            "/home/alice/.ssh/id_ed25519.pub and src/auth/token_store.rs",
            "request id dGhpcyBpcyBub3QgYSBzZWNyZXQ in the log",
            "Claude needs your permission to use Bash",
            "the token bucket refills every second",
        ] {
            assert_eq!(redact(text), text);
            assert!(!looks_secret(text));
        }
    }

    #[test]
    fn doctor_kinds_come_from_token_rules_only() {
        assert_eq!(
            token_kinds(
                "a sk_live_51HxAbCdEfGhIjKlMnOpQrStUv and npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
            ),
            vec!["Stripe key", "npm token"]
        );
        // Generic rules are doctor's own business.
        assert!(token_kinds("DB_PASSWORD=hunter2 and the password is hunter2").is_empty());
    }
}
