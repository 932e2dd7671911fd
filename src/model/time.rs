//! Times and durations as people type them on the command line: `30s`, `10m`, `1h`,
//! `2d`, `1w`, or a date and time. Pure: the clock and the time zone are inputs.

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// A duration written as a whole number and a unit: `s`, `m`, `h`, `d` or `w`
/// (`30s`, `10m`, `1h`, `2d`, `1w`). `None` for anything else.
pub fn parse_duration(text: &str) -> Option<Duration> {
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

/// The start of a `--since` window: a duration back from `now` (see
/// [`parse_duration`]), an RFC 3339 time (`2026-11-21T10:00:00Z`, with any
/// offset), or a date and time without an offset in the time zone `tz` (`2026-11-21`,
/// `2026-11-21T10:00`, `2026-11-21 10:00:05`).
pub fn parse_since<Tz: TimeZone>(
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
