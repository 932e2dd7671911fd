//! A small detector for text that looks like a secret, used by `forge doctor` to check
//! learned-pattern files before Claude Code loads them into every session.
//!
//! It reports *where* and *what kind*, never the matched text, so the report itself
//! cannot leak the secret: vendor token shapes, `Bearer` tokens, `scheme://user:pass@`
//! URLs, secret-named assignments (`DB_PASSWORD=…`, `api_key: …`) and PEM
//! private-key blocks. Placeholders such as `<token>`, `${TOKEN}`, `$TOKEN`, `***` or
//! `xxxx` are not reported.
//!
//! The vendor token shapes (`sk-…`, `ghp_…`, `AKIA…`, `sk_live_…`, `npm_…`, …) are
//! the rules marked `token` in [`crate::model::text::redact::RULES`]: one table, so a new
//! shape is added once. They have fixed prefixes and do not fire on prose. The
//! generic checks stay here, because the two modules have opposite biases:
//! `redact` over-redacts text copied into handoffs (a false positive costs a word
//! there), while doctor must not cry wolf over prose in a memory file (a false
//! positive here is a failed check), so its assignment, Bearer and URL checks skip
//! placeholders, code and prose that `redact` would rather redact.

/// One finding: the 1-based line number and the kind of secret.
pub(crate) type Finding = (usize, &'static str);

/// Words that make an assignment's name secret-looking.
const SECRET_NAMES: [&str; 12] = [
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "access_key",
    "private_key",
    "credential",
    "auth_key",
];

/// A finding's kind with its article, for "looks like an API key", "a Bearer token".
pub(crate) fn with_article(kind: &str) -> String {
    let vowel = kind
        .chars()
        .next()
        .is_some_and(|c| "AEIOUaeiou".contains(c));
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

/// Finds secret-looking text, at most one finding per kind per line.
pub(crate) fn find_secrets(text: &str) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut kinds = line_kinds(line);
        kinds.dedup();
        for kind in kinds {
            if !out.contains(&(i + 1, kind)) {
                out.push((i + 1, kind));
            }
        }
    }
    out
}

fn line_kinds(line: &str) -> Vec<&'static str> {
    let mut kinds = crate::model::text::redact::token_kinds(line);
    if has_bearer(line) {
        kinds.push("Bearer token");
    }
    if has_url_password(line) {
        kinds.push("password in a URL");
    }
    if has_secret_assignment(line) {
        kinds.push("secret-named assignment");
    }
    if line.contains("-----BEGIN") && line.contains("PRIVATE KEY") {
        kinds.push("private key block");
    }
    kinds
}

fn has_bearer(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices("bearer ").any(|(at, _)| {
        let rest = line.get(at + 7..).unwrap_or("").trim_start();
        let token: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "._~+/=-".contains(*c))
            .collect();
        token.len() >= 16 && !is_placeholder(&token)
    })
}

fn has_url_password(line: &str) -> bool {
    line.match_indices("://").any(|(at, _)| {
        let rest = line.get(at + 3..).unwrap_or("");
        let authority: &str = rest
            .split(|c: char| c.is_whitespace() || c == '/' || c == '"' || c == '\'' || c == '`')
            .next()
            .unwrap_or("");
        let Some((userinfo, _host)) = authority.rsplit_once('@') else {
            return false;
        };
        let Some((_user, pass)) = userinfo.split_once(':') else {
            return false;
        };
        !pass.is_empty() && !is_placeholder(pass)
    })
}

/// `NAME=value`, `NAME: value` or `"name": "value"` where NAME contains a secret word
/// and value is a real-looking value (one word, at least 6 characters, not a placeholder).
fn has_secret_assignment(line: &str) -> bool {
    for (at, sep) in line.match_indices(['=', ':']) {
        let before = line.get(..at).unwrap_or("").trim_end();
        let before = before.trim_end_matches(['"', '\'']);
        let name: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || "_-.".contains(*c))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if name.is_empty() {
            continue;
        }
        let lower = name.to_ascii_lowercase();
        if !SECRET_NAMES.iter().any(|w| lower.contains(w)) {
            continue;
        }
        let after = line.get(at + sep.len()..).unwrap_or("");
        // `::` (paths), `=>`, `==` and URLs are not assignments.
        if after.starts_with([':', '=', '>', '/']) {
            continue;
        }
        let value: String = after
            .trim_start()
            .trim_start_matches(['"', '\''])
            .chars()
            .take_while(|c| !c.is_whitespace() && !"\"',;`".contains(*c))
            .collect();
        if value.len() < 6 || is_placeholder(&value) || looks_like_code(&value) {
            continue;
        }
        // After `:` prose is common ("token: refreshed hourly"): require a digit
        // and a letter, as real secrets nearly always have both.
        if sep == ":"
            && !(value.chars().any(|c| c.is_ascii_digit())
                && value.chars().any(|c| c.is_ascii_alphabetic()))
        {
            continue;
        }
        return true;
    }
    false
}

/// `compute()`, `self.token`, `os.environ[...]`: an expression, not a literal.
fn looks_like_code(value: &str) -> bool {
    value.contains(['(', ')', '[', ']'])
        || (value.contains(['.', '_'])
            && value
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '.' || c == '_'))
}

fn is_placeholder(value: &str) -> bool {
    let v = value.trim_matches(['"', '\'']);
    let lower = v.to_ascii_lowercase();
    v.starts_with('<')
        || v.starts_with('$')
        || v.starts_with('{')
        || v.starts_with('%')
        || v.chars().all(|c| "*x.X-_".contains(c))
        || lower.contains("redacted")
        || lower.starts_with("your")
        || lower.contains("example")
        || lower.contains("placeholder")
        || lower == "changeme"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_with_the_right_article() {
        assert_eq!(with_article("API key (sk-…)"), "an API key (sk-…)");
        assert_eq!(with_article("AWS access key"), "an AWS access key");
        assert_eq!(with_article("Bearer token"), "a Bearer token");
        assert_eq!(with_article("password in a URL"), "a password in a URL");
    }

    #[test]
    fn finds_each_kind_on_its_line() {
        let text = "\
# Pattern: calling the API
export OPENAI_KEY=sk-proj-abcdefghijklmnopqrstuvwx
git remote add origin https://ghp_ABCDEFGHIJKLMNOPQRSTuvwxyz0123@github.com/a/b
curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abcdef' https://x
DATABASE_URL=postgres://app:hunter2@db.internal:5432/app
aws: AKIAIOSFODNN7EXAMPLE is the key
SLACK=xoxb-123456789012-abcdefghij
DB_PASSWORD=correct-horse-battery
-----BEGIN RSA PRIVATE KEY-----
token = github_pat_11ABCDEFG0123456789_abcdefghijk
";
        let found = find_secrets(text);
        let kinds_on = |n: usize| -> Vec<&str> {
            found
                .iter()
                .filter(|(l, _)| *l == n)
                .map(|(_, k)| *k)
                .collect()
        };
        assert!(kinds_on(1).is_empty());
        assert!(kinds_on(2).contains(&"API key (sk-…)"), "{found:?}");
        assert!(kinds_on(3).contains(&"GitHub token"), "{found:?}");
        assert!(kinds_on(4).contains(&"Bearer token"), "{found:?}");
        assert!(kinds_on(5).contains(&"password in a URL"), "{found:?}");
        assert!(kinds_on(6).contains(&"AWS access key"), "{found:?}");
        assert!(kinds_on(7).contains(&"Slack token"), "{found:?}");
        assert!(
            kinds_on(8).contains(&"secret-named assignment"),
            "{found:?}"
        );
        assert!(kinds_on(9).contains(&"private key block"), "{found:?}");
        assert!(kinds_on(10).contains(&"GitHub token"), "{found:?}");
    }

    #[test]
    fn ordinary_prose_and_placeholders_are_clean() {
        let text = "\
## Pattern: retry flaky network calls
Use `std::io::Error` and the token bucket from src/rate.rs.
The password: is read from the environment at start.
export API_TOKEN=${API_TOKEN}
DB_PASSWORD=<your password>
curl -H 'Authorization: Bearer <token>' https://api.example.com
postgres://localhost:5432/app and https://user@host/x
Ask for a task-specific token: never hard-code one.
password = \"****\"
risk-management is a task-list skill; desk-top apps too.
let secret_len = compute();
token = self.api_token
";
        assert_eq!(find_secrets(text), Vec::<Finding>::new());
    }

    #[test]
    fn token_shapes_come_from_the_redaction_table() {
        let text = "\
STRIPE=sk_live_51HxAbCdEfGhIjKlMnOpQrStUv
//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789
HF hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567
";
        let found = find_secrets(text);
        assert!(found.contains(&(1, "Stripe key")), "{found:?}");
        assert!(found.contains(&(2, "npm token")), "{found:?}");
        assert!(found.contains(&(3, "Hugging Face token")), "{found:?}");
    }

    #[test]
    fn prefix_must_start_a_word() {
        assert!(find_secrets("task-abcdefghijklmnopqrstuvwxyz").is_empty());
        assert_eq!(find_secrets("key sk-abcdefghijklmnopqrstuvwxyz").len(), 1);
        // Too short to be a key.
        assert!(find_secrets("sk-short").is_empty());
    }
}
