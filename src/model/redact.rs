//! Redacting things that look like secrets from text forge copies out of a session
//! (the last user request, todo items) before it lands in a handoff document.
//!
//! It is a best-effort filter, tuned to over-redact rather than leak: well-known
//! token shapes (Anthropic/OpenAI `sk-…`, GitHub `ghp_…`/`github_pat_…`, AWS
//! `AKIA…`, Slack `xox…`, GitLab `glpat-…`, Google `AIza…`, JWTs, PEM private keys),
//! `Bearer`/`Basic` credentials, passwords in URLs (`scheme://user:pass@host`), and
//! `KEY=value` / `KEY: value` pairs whose key name looks secret (token, secret,
//! password, passwd, api_key, apikey, auth, credential, private_key…).

use std::sync::OnceLock;

use regex::{Captures, Regex};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[REDACTED]";

struct Rules {
    pem: Regex,
    url_password: Regex,
    bearer: Regex,
    tokens: Regex,
    pair: Regex,
}

fn rules() -> Option<&'static Rules> {
    static RULES: OnceLock<Option<Rules>> = OnceLock::new();
    // The patterns are constants; `None` (which cannot happen) would redact nothing,
    // so `redact` then falls back to dropping the text entirely.
    RULES
        .get_or_init(|| {
            Some(Rules {
                pem: Regex::new(
                    r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
                )
                .ok()?,
                url_password: Regex::new(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]+):[^\s@/]+@")
                    .ok()?,
                bearer: Regex::new(r"(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}")
                    .ok()?,
                tokens: Regex::new(concat!(
                    r"\b(?:",
                    r"sk-[A-Za-z0-9_-]{16,}",
                    r"|gh[pousr]_[A-Za-z0-9]{20,}",
                    r"|github_pat_[A-Za-z0-9_]{20,}",
                    r"|(?:AKIA|ASIA)[0-9A-Z]{16}",
                    r"|xox[abposr]-[A-Za-z0-9-]{10,}",
                    r"|glpat-[A-Za-z0-9_-]{20,}",
                    r"|AIza[0-9A-Za-z_-]{35}",
                    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
                    r")"
                ))
                .ok()?,
                pair: Regex::new(concat!(
                    r#"(?i)\b([A-Za-z0-9_.-]*(?:token|secret|password|passwd|pwd|api[_-]?key|apikey|auth|credential|private[_-]?key|access[_-]?key|session[_-]?key)[A-Za-z0-9_.-]*)"#,
                    r#"(["']?\s*[:=]\s*)"#,
                    r#"("[^"\n]*"|'[^'\n]*'|[^\s,;&"'}\])]+)"#,
                ))
                .ok()?,
            })
        })
        .as_ref()
}

/// Key names that contain a secret-looking word but are not secrets.
fn harmless_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    (k.contains("author") || k.contains("oauth_url") || k == "auth_type" || k == "tokens")
        && !["token_", "_token", "secret", "password", "passwd", "key"]
            .iter()
            .any(|w| k.contains(w))
}

/// `text` with everything that looks like a secret replaced by `[REDACTED]`.
pub fn redact(text: &str) -> String {
    let Some(r) = rules() else {
        return REDACTED.to_owned();
    };
    let out = r.pem.replace_all(text, REDACTED);
    let out = r
        .url_password
        .replace_all(&out, format!("${{1}}:{REDACTED}@"));
    let out = r
        .bearer
        .replace_all(&out, format!("${{1}}${{2}}{REDACTED}"));
    let out = r.tokens.replace_all(&out, REDACTED);
    let out = r.pair.replace_all(&out, |c: &Captures<'_>| {
        let key = c.get(1).map_or("", |m| m.as_str());
        let sep = c.get(2).map_or("", |m| m.as_str());
        let value = c.get(3).map_or("", |m| m.as_str());
        if harmless_key(key) || value.contains(REDACTED) {
            return c.get(0).map_or(String::new(), |m| m.as_str().to_owned());
        }
        let quote = value
            .chars()
            .next()
            .filter(|q| (*q == '"' || *q == '\'') && value.len() > 1);
        match quote {
            Some(q) => format!("{key}{sep}{q}{REDACTED}{q}"),
            None => format!("{key}{sep}{REDACTED}"),
        }
    });
    out.into_owned()
}

/// Whether `text` contains anything [`redact`] would change.
pub fn looks_secret(text: &str) -> bool {
    redact(text) != text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_token_shapes_are_redacted() {
        let cases = [
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "sk-proj-abcdefghijklmnopqrstuvwx",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "AKIAIOSFODNN7EXAMPLE",
            "xoxb-123456789012-abcdefghijkl",
            "glpat-abcdefghij0123456789",
            "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ];
        for secret in cases {
            let text = format!("use {secret} for the call");
            let out = redact(&text);
            assert!(!out.contains(secret), "{secret} leaked: {out}");
            assert!(
                out.starts_with("use ") && out.ends_with(" for the call"),
                "{out}"
            );
        }
    }

    #[test]
    fn bearer_url_passwords_and_secret_pairs() {
        let out = redact(
            "curl -H 'Authorization: Bearer abc.def-ghi_jkl' https://u:hunter2@db.example.com/x",
        );
        assert!(!out.contains("abc.def-ghi_jkl"), "{out}");
        assert!(!out.contains("hunter2"), "{out}");
        assert!(
            out.contains("https://u:[REDACTED]@db.example.com/x"),
            "{out}"
        );

        for (input, leaked) in [
            ("export API_KEY=12345abcde", "12345abcde"),
            ("DB_PASSWORD: s3cr3t!", "s3cr3t!"),
            ("set github_token = 'tok-value'", "tok-value"),
            (
                r#"{"client_secret": "very secret value"}"#,
                "very secret value",
            ),
            ("https://x.io/cb?access_token=zzz123&ok=1", "zzz123"),
            (
                "passwd=pw1 apikey=k2 AUTH=a3 credentials: c4 private_key=p5",
                "pw1",
            ),
        ] {
            let out = redact(input);
            assert!(!out.contains(leaked), "{input} → {out}");
            assert!(out.contains(REDACTED), "{out}");
        }
        let out = redact("passwd=pw1 apikey=k2 AUTH=a3 credentials: c4 private_key=p5");
        for v in ["pw1", "k2", "a3", "c4", "p5"] {
            assert!(!out.contains(v), "{v} in {out}");
        }
    }

    #[test]
    fn private_key_blocks_are_dropped() {
        let text = "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----\ndone";
        let out = redact(text);
        assert!(!out.contains("b3BlbnNzaC1rZXktdjEAAAA"), "{out}");
        assert!(out.ends_with("done"));
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "Refactor the pool in src/db/pool.rs and run cargo test",
            "author: Alice",
            "the tokens count is 42",
            "see https://github.com/acme/acme-api/pull/482",
            "Move handlers (3 of 5)",
        ] {
            assert_eq!(redact(text), text);
            assert!(!looks_secret(text));
        }
    }
}
