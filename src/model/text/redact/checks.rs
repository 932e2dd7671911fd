//! The checks a rule's match must pass to count as a secret: placeholders,
//! ordinary words, code and look-alikes are turned away here, so the regexes can
//! stay simple. Every check gets the captures and the text of the part to redact.

use regex::bytes::Captures;

use super::REDACTED;

/// A match of a shape that is a secret by itself.
pub(super) fn always(_: &Captures<'_>, _: &str) -> bool {
    true
}

/// The text of group `name` (empty when it did not take part).
fn group<'c>(c: &'c Captures<'_>, name: &str) -> &'c str {
    c.name(name)
        .and_then(|m| std::str::from_utf8(m.as_bytes()).ok())
        .unwrap_or("")
}

/// Shannon entropy of `s` in bits per byte: about 2.5–3 for an English word, 3.5–4
/// for a random hex string, 4.5–6 for random base64. gitleaks' entropy thresholds
/// are on this scale.
pub(super) fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        if let Some(c) = counts.get_mut(usize::from(b)) {
            *c += 1;
        }
    }
    let n = s.len() as f64;
    if n == 0.0 {
        return 0.0;
    }
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / n;
            -p * log2(p)
        })
        .sum()
}

/// The base-2 logarithm of a positive, normal `x` (a frequency here), within a few
/// units in the last place of `f64::log2`, and exact for a power of two. Written
/// out because `f64::log2` is libm's: this one call was all that linked
/// `libm.so.6` into forge, a shared library the loader then opened, mapped and
/// relocated at every start of every hook and status-line tick.
fn log2(x: f64) -> f64 {
    const MANTISSA: u64 = (1 << 52) - 1;
    let bits = x.to_bits();
    let exponent = i32::try_from((bits >> 52) & 0x7ff).unwrap_or(0) - 1023;
    // x = m · 2^exponent with m in [1, 2), then in [√½, √2).
    let m = f64::from_bits((bits & MANTISSA) | 1.0f64.to_bits());
    let (m, exponent) = if m > std::f64::consts::SQRT_2 {
        (m / 2.0, exponent + 1)
    } else {
        (m, exponent)
    };
    // ln m = 2 atanh(s) = 2 (s + s³/3 + s⁵/5 + …), s = (m − 1)/(m + 1), |s| < 0.172:
    // twelve terms are past f64's precision.
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    for k in 0..12u8 {
        sum += term / f64::from(2 * k + 1);
        term *= s2;
    }
    f64::from(exponent) + 2.0 * sum * std::f64::consts::LOG2_E
}

/// Values that name a secret rather than hold one: the secret words themselves
/// (`user:password@host` in docs, `token: token`).
#[rustfmt::skip]
const SECRET_WORDS: &[&str] = &[
    "password", "passwd", "pass", "pwd", "secret", "token", "key", "apikey", "api_key",
    "api-key", "credential", "credentials", "passphrase",
];

/// `$VAR`, `${VAR}`, `<token>`, `{{ .Values.x }}`, `%(x)s`, `%VAR%`, `@VAR@`, `***`,
/// `xxxx`, `...`, a secret word itself, and what was redacted already.
pub(super) fn is_placeholder(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'' || c == '`');
    let lower = v.to_ascii_lowercase();
    v.is_empty()
        || v.starts_with('$')
        || v.starts_with('<')
        || v.starts_with("{{")
        || v.starts_with("%(")
        || (v.len() > 2 && v.starts_with('%') && v.ends_with('%'))
        || (v.len() > 2 && v.starts_with('@') && v.ends_with('@'))
        || v.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '-' | '_' | '•' | '#'))
        || v.contains(REDACTED)
        || SECRET_WORDS.contains(&lower.as_str())
        || lower.starts_with("your")
        || lower.starts_with("my-")
        || lower.starts_with("my_")
        || lower.contains("placeholder")
        || lower.contains("redacted")
}

pub(super) fn not_placeholder(_: &Captures<'_>, secret: &str) -> bool {
    !is_placeholder(secret)
}

/// Looks generated rather than written: a digit, a symbol among letters, or mixed
/// case. Keeps "the token is expired" and "basic functionality" as they are.
pub(super) fn looks_random(secret: &str) -> bool {
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

pub(super) fn random(_: &Captures<'_>, secret: &str) -> bool {
    looks_random(secret)
}

/// A secret said in prose (`the password is …`): random, and not code
/// (`password = get_password()`).
pub(super) fn prose(_: &Captures<'_>, secret: &str) -> bool {
    looks_random(secret) && !is_code(secret)
}

/// A 40-character base64 value that is not a git commit hash (40 hex digits).
pub(super) fn not_hash(_: &Captures<'_>, secret: &str) -> bool {
    !secret.chars().all(|c| c.is_ascii_hexdigit()) && looks_random(secret)
}

/// A base64 value whose first line decodes to a PEM private key's header
/// (`-----BEGIN … PRIVATE KEY-----`): a Kubernetes Secret's `tls.key`, not its
/// `tls.crt`.
pub(super) fn base64_private_key(_: &Captures<'_>, secret: &str) -> bool {
    let first: Vec<u8> = secret
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        .take(96)
        .collect();
    let decoded = decode_base64(&first);
    decoded
        .windows(b"PRIVATE KEY".len())
        .any(|w| w == b"PRIVATE KEY")
}

/// Standard base64 (`+/`, padding ignored) decoded as far as it goes: a whole group
/// of four characters at a time, stopping at the first character outside the
/// alphabet.
fn decode_base64(text: &[u8]) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for group in text.chunks_exact(4) {
        let Some(n) = group
            .iter()
            .try_fold(0u32, |n, c| value(*c).map(|v| n << 6 | v))
        else {
            break;
        };
        out.extend_from_slice(&n.to_be_bytes()[1..]);
    }
    out
}

/// A value found only by the name near it (`ALGOLIA_ADMIN_KEY=…`): it must not be a
/// placeholder and must look generated (gitleaks' entropy 3 on these shapes).
pub(super) fn high_entropy(c: &Captures<'_>, secret: &str) -> bool {
    named_value(c) && !is_placeholder(secret) && entropy(secret) >= 3.0
}

/// The name before a value (group `k`) does not name something harmless: an id, a
/// URL, a region (`VERCEL_PROJECT_ID=…`).
fn named_value(c: &Captures<'_>) -> bool {
    let key = group(c, "k");
    key.is_empty() || !harmless_key(key)
}

/// A value a bare, loose shape found: random enough to be a key (entropy 3.5).
pub(super) fn very_high_entropy(c: &Captures<'_>, secret: &str) -> bool {
    named_value(c) && !is_placeholder(secret) && entropy(secret) >= 3.5
}

/// A command-line flag's value (`--password …`, `--token=…`): not a placeholder,
/// not another flag, and random enough not to be a word (`--token flag`).
pub(super) fn flag_value(_: &Captures<'_>, secret: &str) -> bool {
    !secret.starts_with('-') && looks_random(secret)
}

/// Name endings that say what a key is about rather than that it holds a secret.
#[rustfmt::skip]
const HARMLESS_ENDS: &[&str] = &[
    "tokens", "count", "limit", "len", "length", "size", "ttl", "url", "uri", "type",
    "file", "path", "name", "id", "ids", "mode", "method", "endpoint", "header", "expiry",
    "expires", "timeout", "dir", "folder", "format", "version", "algorithm", "alg",
    "field", "column", "prefix", "suffix", "env", "var", "index", "hash", "policy",
    "provider", "strategy", "enabled", "required", "store", "manager", "region",
    "location", "kind", "scope", "scopes", "rotation", "at", "on", "by",
];

/// Key names that contain a secret-looking word but name something else: counts,
/// limits, URLs, file paths, types, names, ids (`max_tokens`, `token_url`,
/// `SharedAccessKeyName`, `author`, `PASSENGER_COUNT`).
fn harmless_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let k = k.trim_matches(|c| c == '-' || c == '_' || c == '.' || c == '"' || c == '\'');
    if k.contains("author") && !k.contains("authorization") {
        return true;
    }
    HARMLESS_ENDS.iter().any(|s| {
        k.strip_suffix(s).is_some_and(|rest| {
            rest.is_empty() || rest.ends_with(['_', '-', '.']) || camel_tail(key, s.len())
        }) || (s.len() > 3 && k.ends_with(s))
    })
}

/// Whether the last `n` characters of `key` are a camelCase word (`tokenUrl`:
/// `Url` follows a lowercase letter), not the end of one capitalised word (`PAT`).
fn camel_tail(key: &str, n: usize) -> bool {
    let b = key.as_bytes();
    b.len() > n
        && b.get(b.len() - n).is_some_and(u8::is_ascii_uppercase)
        && b.get(b.len() - n - 1).is_some_and(u8::is_ascii_lowercase)
}

/// How plainly a key's name says it holds a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameClass {
    /// It ends in a secret word: `DB_PASS`, `password`, `clientSecret`, `GITHUB_TOKEN`,
    /// `api_key`, `AWS_SECRET_ACCESS_KEY`, `GH_PAT`, `Authorization`.
    Plain,
    /// It ends in `key` that is not plainly a secret (`sort_key`, `KEY`).
    SomeKey,
    /// The secret word is inside it (`TOKENIZER_MODEL`, `secret_key_base`,
    /// `passthrough`).
    Inside,
}

/// Words that end in `pass` and are not passwords.
#[rustfmt::skip]
const NOT_PASS: &[&str] = &[
    "bypass", "compass", "encompass", "overpass", "underpass", "trespass", "surpass",
];

/// What comes before `key` in a key name that makes it a secret key.
#[rustfmt::skip]
const SECRET_KEY_KINDS: &[&str] = &[
    "api", "private", "priv", "secret", "sec", "access", "session", "signing", "sign",
    "encryption", "encrypt", "decryption", "crypt", "crypto", "cipher", "aes", "hmac",
    "jwt", "master", "client", "auth", "license", "licence", "service", "account", "admin",
    "app", "application", "shared", "webhook", "deploy", "ssh", "gpg", "pgp", "storage",
    "consumer", "subscription", "write", "ingest", "server", "root", "developer", "live",
    "test", "prod", "production", "management", "sas", "function", "functions", "x-api",
    "xapi", "mapbox", "maps", "google", "openai", "anthropic", "stripe", "algolia",
    "sendgrid", "mailgun", "twilio", "pusher", "firebase", "fcm", "push",
];

/// The class of a key name, `None` when it names something harmless.
pub(super) fn name_class(key: &str) -> Option<NameClass> {
    if harmless_key(key) {
        return None;
    }
    let k: String = key
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let k = k
        .strip_suffix('s')
        .filter(|r| r.ends_with("key"))
        .unwrap_or(&k);
    let ends = |w: &str| k.ends_with(w);
    if [
        "password",
        "passwd",
        "passphrase",
        "passcode",
        "pwd",
        "secret",
        "token",
        "credential",
        "credentials",
        "creds",
        "auth",
        "authorization",
        "authtoken",
    ]
    .iter()
    .any(|w| ends(w))
    {
        return Some(NameClass::Plain);
    }
    if ends("pass") && !NOT_PASS.iter().any(|w| ends(w)) {
        return Some(NameClass::Plain);
    }
    // `GH_PAT`, `ado-pat`, `ghPat`: a personal access token.
    let raw = key.trim_matches(|c| c == '"' || c == '\'');
    if raw.len() > 3
        && (raw.to_ascii_lowercase().ends_with("_pat")
            || raw.to_ascii_lowercase().ends_with("-pat")
            || raw.ends_with("Pat")
            || raw.ends_with("PAT"))
    {
        return Some(NameClass::Plain);
    }
    if let Some(before) = k.strip_suffix("key") {
        if SECRET_KEY_KINDS.iter().any(|w| before.ends_with(w)) {
            return Some(NameClass::Plain);
        }
        return Some(NameClass::SomeKey);
    }
    Some(NameClass::Inside)
}

/// Type names and words that describe a value rather than hold one (`password: str`,
/// `token: string`, `secret: required`).
#[rustfmt::skip]
const DESCRIBING: &[&str] = &[
    "true", "false", "null", "none", "nil", "undefined", "bearer", "basic", "token", "str",
    "string", "bytes", "int", "bool", "boolean", "number", "any", "object", "required",
    "optional", "empty", "hidden", "masked", "secret", "secretstr", "unknown", "unset",
    "missing", "invalid", "expired", "default",
];

/// Code rather than a literal: a call, a member chain, a type (`get_password()`,
/// `config.token`, `Option<String>`, `&str`, `Optional[str]`, `string | null`).
fn is_code(v: &str) -> bool {
    let ident = |s: &str| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let letters_only = |s: &str| s.chars().all(|c| c.is_ascii_alphabetic() || c == '_');
    if v.contains('(') || v.starts_with('&') || v.starts_with('*') || v.ends_with('?') {
        return true;
    }
    // Generic and array types: `Option<String>`, `Vec<u8>`, `Optional[str]`, `[]byte`.
    // (The value's class stops at `]`, so `Optional[str` may be all there is.)
    if let Some((base, rest)) = v.split_once(['<', '['])
        && (ident(base) || base.is_empty())
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " _,:<>[]|&'".contains(c))
    {
        return true;
    }
    // `a.b.c`, `a::b`, `a->b` made of identifiers without digits.
    let parts: Vec<&str> = v.split(['.', ':']).filter(|p| !p.is_empty()).collect();
    parts.len() > 1 && v.contains(['.', ':']) && parts.iter().all(|p| letters_only(p))
}

/// A value of one ordinary word: letters only, not mixed case (a capital first is
/// fine), and not random enough to be generated (entropy below 3).
fn ordinary_word(v: &str) -> bool {
    let letters = v.chars().all(|c| c.is_ascii_alphabetic());
    let upper = v.chars().filter(char::is_ascii_uppercase).count();
    let lower = v.len() - upper;
    let one_case =
        upper == 0 || lower == 0 || (upper == 1 && v.starts_with(|c: char| c.is_ascii_uppercase()));
    letters && one_case && (v.len() < 8 || entropy(v) < 3.0)
}

/// Characters a generated key is made of: no spaces, no template or code syntax.
fn key_charset(v: &str) -> bool {
    v.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '.' | '~' | '-'))
}

/// `KEY=value` whose key looks secret and whose value looks like a value (a
/// bracketed list is judged by what is inside: `[]` and `["$TOKEN"]` are not). How
/// random the value must be depends on how plainly the name says "secret":
/// a [`NameClass::Plain`] name takes any value but placeholders, code and one
/// ordinary word; a key that is only `…key` takes a key-like value of 8+ characters
/// with entropy 3+; a name with the word inside takes 16+ characters, entropy 3.3+.
pub(super) fn assignment(c: &Captures<'_>, secret: &str) -> bool {
    let key = group(c, "k");
    let Some(class) = name_class(key) else {
        return false;
    };
    let secret = secret
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .map_or(secret, str::trim);
    let v = secret.trim_matches(|c| c == '"' || c == '\'').trim();
    let lower = v.to_ascii_lowercase();
    if is_placeholder(v)
        // `==`, `=>`, `::` and `:=` left over: code, not an assignment of a literal.
        || v.starts_with(['=', '>', ':'])
        || DESCRIBING.contains(&lower.as_str())
        || is_code(v)
    {
        return false;
    }
    // A variable of the same name: `password=password`, `token=access_token`.
    let last_word = |s: &str| {
        s.to_ascii_lowercase()
            .rsplit(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("")
            .to_owned()
    };
    let kw = last_word(key);
    if !kw.is_empty()
        && lower.ends_with(&kw)
        && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return false;
    }
    match class {
        NameClass::Plain => !ordinary_word(v),
        NameClass::SomeKey => {
            key_charset(v) && v.len() >= 8 && looks_random(v) && entropy(v) >= 3.0
        }
        NameClass::Inside => {
            key_charset(v) && v.len() >= 16 && looks_random(v) && entropy(v) >= 3.3
        }
    }
}

/// An XML element named like a secret (`<password>…</password>`): the same judgement
/// as an assignment.
pub(super) fn xml_secret(c: &Captures<'_>, secret: &str) -> bool {
    assignment(c, secret)
}

#[cfg(test)]
mod log2_tests {
    #[test]
    fn log2_is_libms_within_a_few_ulps_and_exact_for_powers_of_two() {
        for k in -40..=0 {
            let x = 2f64.powi(k);
            assert_eq!(super::log2(x), f64::from(k));
        }
        for n in 1..=600u32 {
            for c in 1..=n {
                let p = f64::from(c) / f64::from(n);
                let (ours, std) = (super::log2(p), p.log2());
                assert!(
                    (ours - std).abs() <= 4.0 * f64::EPSILON * std.abs().max(1.0),
                    "{c}/{n}: {ours} against {std}"
                );
            }
        }
    }
}
