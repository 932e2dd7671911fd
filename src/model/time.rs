//! Times and durations as people type them on the command line: `30s`, `10m`, `1h`,
//! `2d`, `1w`, or a date and time; and as forge shows them, one way everywhere: a
//! relative age ([`age`], [`ago`]) and, where an absolute time is shown, the local
//! time ([`Zone::clock`]). State files keep ISO 8601 UTC; only what people read is
//! local. Pure: the clock and the time zone are inputs.

use chrono::{
    DateTime, Duration, FixedOffset, Local, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Utc,
};

/// ISO 8601 UTC with seconds and a `Z` (`2026-11-21T09:45:00Z`): the format of every
/// time forge writes into a state file, a handoff's front matter or `--json` output.
pub(crate) fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Parses a time from a state file: one written by [`iso`], or any RFC 3339 time
/// (surrounding whitespace ignored), as UTC.
pub(crate) fn parse_iso(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

/// How far in the future a time read from a file may be (clocks differ a little)
/// before it is not believed.
pub(crate) const CLOCK_SKEW: Duration = Duration::seconds(120);

/// Whether `t`, a time read from a file, can be believed at `now`: it is not later
/// than `now` by more than [`CLOCK_SKEW`] (a file a repository shipped, a wrong
/// clock).
pub(crate) fn believable(t: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    t <= now + CLOCK_SKEW
}

/// Whether `t` is [`believable`] at `now` and at most `within` before it: what
/// "heard from lately" means for a session, whichever file recorded it.
pub(crate) fn heard_within(t: DateTime<Utc>, now: DateTime<Utc>, within: Duration) -> bool {
    believable(t, now) && now - t <= within
}

/// A short age: `now`, `5m`, `3h`, `2d` (`?` when unknown; future times are `now`).
/// Columns and compact rows use it; sentences use [`ago`].
pub(crate) fn age(now: DateTime<Utc>, then: Option<DateTime<Utc>>) -> String {
    then.map_or_else(|| "?".to_owned(), |t| short(now - t))
}

/// A duration as [`age`] writes it: `now` under a minute, then whole minutes,
/// hours, days.
pub(crate) fn short(d: Duration) -> String {
    let secs = d.num_seconds().max(0);
    match secs {
        0..60 => "now".into(),
        60..3600 => format!("{}m", secs / 60),
        3600..86_400 => format!("{}h", secs / 3600),
        _ => format!("{}d", secs / 86_400),
    }
}

/// The age in a sentence: `just now`, `5m ago`, `2d ago` (never `now ago`);
/// `at an unknown time` when unknown.
pub(crate) fn ago(now: DateTime<Utc>, then: Option<DateTime<Utc>>) -> String {
    match then.map(|t| short(now - t)) {
        None => "at an unknown time".to_owned(),
        Some(a) if a == "now" => "just now".to_owned(),
        Some(a) => format!("{a} ago"),
    }
}

/// Where absolute times are shown: the machine's local time zone (what people
/// see), or a fixed offset (what tests pin).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Zone {
    /// The process's time zone (`TZ`, else the system's).
    #[default]
    Local,
    /// A fixed offset from UTC.
    #[cfg(test)]
    Fixed(FixedOffset),
}

impl Zone {
    /// UTC itself.
    #[cfg(test)]
    pub(crate) fn utc() -> Self {
        Self::Fixed(FixedOffset::east_opt(0).expect("zero is a valid offset"))
    }

    fn local(self, t: DateTime<Utc>) -> DateTime<FixedOffset> {
        match self {
            Self::Local => t.with_timezone(&Local).fixed_offset(),
            #[cfg(test)]
            Self::Fixed(o) => t.with_timezone(&o),
        }
    }

    /// An absolute time as forge shows one: month, day, hours and minutes in this
    /// zone, `11-21 10:12`.
    pub(crate) fn clock(self, t: DateTime<Utc>) -> String {
        self.local(t).format("%m-%d %H:%M").to_string()
    }

    /// [`Zone::clock`] with seconds, `11-21 10:12:05`, for event rows.
    pub(crate) fn clock_secs(self, t: DateTime<Utc>) -> String {
        self.local(t).format("%m-%d %H:%M:%S").to_string()
    }

    /// How long ago and when: `14m ago, 11-21 10:12`, `just now, 11-21 10:12`.
    pub(crate) fn ago_at(self, now: DateTime<Utc>, t: DateTime<Utc>) -> String {
        format!("{}, {}", ago(now, Some(t)), self.clock(t))
    }
}

/// A duration written as a whole number and a unit: `s`, `m`, `h`, `d` or `w`
/// (`30s`, `10m`, `1h`, `2d`, `1w`). `None` for anything else.
pub(crate) fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    let unit_at = t.find(|c: char| !c.is_ascii_digit())?;
    let (digits, unit) = t.split_at(unit_at);
    let n: i64 = digits.parse().ok()?;
    let secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return None,
    };
    n.checked_mul(secs).and_then(Duration::try_seconds)
}

/// A length of time in a config file (`stale_after = "30m"`), read once when the
/// file is: the text as written (what `forge config show` prints back) and the
/// duration it means ([`parse_duration`]). Any other text is refused with the key
/// and an example of what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    text: String,
    value: Duration,
}

impl Span {
    /// The span `text` writes, if it is one ([`parse_duration`]).
    pub(crate) fn parse(text: &str) -> Option<Self> {
        parse_duration(text).map(|value| Self {
            text: text.to_owned(),
            value,
        })
    }

    /// A built-in default: `text` must be a duration (a unit test loads every
    /// default back from its text, so one that is not fails there; here it would
    /// mean zero).
    pub(crate) fn default_of(text: &'static str) -> Self {
        Self {
            text: text.to_owned(),
            value: parse_duration(text).unwrap_or_else(Duration::zero),
        }
    }

    /// The duration.
    pub(crate) fn get(&self) -> Duration {
        self.value
    }

    /// The text as written.
    #[cfg(test)]
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl serde::Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for Span {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Span;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Span, E> {
                Span::parse(v).ok_or_else(|| {
                    E::custom(format!(
                        "must be a duration like \"30m\", \"12h\" or \"2d\", found \"{v}\""
                    ))
                })
            }
        }
        d.deserialize_str(Text)
    }
}

/// The start of a `--since` window: a duration back from `now` (see
/// [`parse_duration`]), an RFC 3339 time (`2026-11-21T10:00:00Z`, with any
/// offset), or a date and time without an offset in the time zone `tz` (`2026-11-21`,
/// `2026-11-21T10:00`, `2026-11-21 10:00:05`).
pub(crate) fn parse_since<Tz: TimeZone>(
    text: &str,
    now: DateTime<Utc>,
    tz: &Tz,
) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Some(d) = parse_duration(t) {
        return Ok(now - d);
    }
    if let Ok(at) = DateTime::parse_from_rfc3339(t) {
        return Ok(at.with_timezone(&Utc));
    }
    let naive = [
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(t, f).ok())
    .or_else(|| {
        NaiveDate::parse_from_str(t, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
    });
    match naive.and_then(|n| tz.from_local_datetime(&n).earliest()) {
        Some(at) => Ok(at.with_timezone(&Utc)),
        None => Err(format!(
            "{t:?} is not a time: use a duration (30s, 10m, 1h, 2d, 1w) or a date and time \
             (2026-11-21, 2026-11-21T10:00, 2026-11-21T10:00:00Z)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;

    #[test]
    fn heard_within_believes_no_time_far_in_the_future() {
        let now = Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap();
        let m = Duration::minutes;
        assert!(heard_within(now, now, m(30)));
        assert!(heard_within(now - m(30), now, m(30)));
        assert!(!heard_within(now - m(31), now, m(30)));
        // A little ahead (two clocks): believed; far ahead: not.
        assert!(heard_within(now + m(2), now, m(30)));
        assert!(believable(now + m(2), now));
        assert!(!heard_within(now + m(3), now, m(30)));
        assert!(!believable(now + Duration::days(365), now));
    }

    #[test]
    fn iso_is_utc_to_the_second_and_reads_back() {
        let t = Utc.with_ymd_and_hms(2026, 11, 21, 9, 45, 0).unwrap() + Duration::milliseconds(250);
        assert_eq!(iso(t), "2026-11-21T09:45:00Z");
        assert_eq!(
            parse_iso(" 2026-11-21T09:45:00Z\n"),
            Some(t - Duration::milliseconds(250))
        );
        assert_eq!(
            parse_iso("2026-11-21T10:45:00+01:00").map(iso).as_deref(),
            Some("2026-11-21T09:45:00Z")
        );
        assert_eq!(parse_iso("yesterday"), None);
    }

    #[test]
    fn durations_are_a_number_and_a_unit() {
        let secs = |s: &str| parse_duration(s).map(|d| d.num_seconds());
        assert_eq!(secs("30s"), Some(30));
        assert_eq!(secs("10m"), Some(600));
        assert_eq!(secs(" 1h "), Some(3600));
        assert_eq!(secs("2d"), Some(172_800));
        assert_eq!(secs("1w"), Some(604_800));
        for bad in [
            "",
            "h",
            "10",
            "1.5h",
            "-1h",
            "1y",
            "1hm",
            "99999999999999999999d",
        ] {
            assert_eq!(secs(bad), None, "{bad}");
        }
    }

    #[test]
    fn ages_are_short_and_sentences_never_say_now_ago() {
        let now = Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap();
        let back = |secs: i64| Some(now - Duration::seconds(secs));
        assert_eq!(age(now, back(0)), "now");
        assert_eq!(age(now, back(59)), "now");
        assert_eq!(age(now, back(60)), "1m");
        assert_eq!(age(now, back(3599)), "59m");
        assert_eq!(age(now, back(3600)), "1h");
        assert_eq!(age(now, back(86_399)), "23h");
        assert_eq!(age(now, back(86_400)), "1d");
        assert_eq!(age(now, back(-600)), "now", "a future time");
        assert_eq!(age(now, None), "?");
        assert_eq!(ago(now, back(5)), "just now");
        assert_eq!(ago(now, back(14 * 60)), "14m ago");
        assert_eq!(ago(now, back(3 * 86_400)), "3d ago");
        assert_eq!(ago(now, None), "at an unknown time");
    }

    #[test]
    fn absolute_times_are_in_the_zone_given() {
        let t = Utc.with_ymd_and_hms(2026, 11, 21, 10, 12, 5).unwrap();
        let cet = Zone::Fixed(FixedOffset::east_opt(3600).unwrap());
        assert_eq!(cet.clock(t), "11-21 11:12");
        assert_eq!(cet.clock_secs(t), "11-21 11:12:05");
        assert_eq!(Zone::utc().clock(t), "11-21 10:12");
        // Across midnight the date moves too.
        let west = Zone::Fixed(FixedOffset::west_opt(11 * 3600).unwrap());
        assert_eq!(west.clock(t), "11-20 23:12");
        let now = t + Duration::minutes(14);
        assert_eq!(cet.ago_at(now, t), "14m ago, 11-21 11:12");
        assert_eq!(cet.ago_at(t, t), "just now, 11-21 11:12");
    }

    #[test]
    fn since_takes_a_duration_or_a_time() {
        let now = Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap();
        let cet = FixedOffset::east_opt(3600).unwrap();
        assert_eq!(
            parse_since("1h", now, &cet),
            Ok(Utc.with_ymd_and_hms(2026, 11, 21, 11, 0, 0).unwrap())
        );
        assert_eq!(
            parse_since("2026-11-21T10:00:00Z", now, &cet),
            Ok(Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, 0).unwrap())
        );
        assert_eq!(
            parse_since("2026-11-21T10:00:00+02:00", now, &cet),
            Ok(Utc.with_ymd_and_hms(2026, 11, 21, 8, 0, 0).unwrap())
        );
        // Without an offset: the local time zone's.
        assert_eq!(
            parse_since("2026-11-21T10:00", now, &cet),
            Ok(Utc.with_ymd_and_hms(2026, 11, 21, 9, 0, 0).unwrap())
        );
        assert_eq!(
            parse_since("2026-11-21 10:00:30", now, &Utc),
            Ok(Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, 30).unwrap())
        );
        assert_eq!(
            parse_since("2026-11-21", now, &cet),
            Ok(Utc.with_ymd_and_hms(2026, 11, 20, 23, 0, 0).unwrap())
        );
        let err = parse_since("yesterday", now, &cet).unwrap_err();
        assert!(
            err.contains("30s, 10m, 1h, 2d") && err.contains("2026-11-21T10:00"),
            "{err}"
        );
    }
}
