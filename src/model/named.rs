//! Settings that name one of a few values (`notify.mode = "async"`, a status-line
//! segment, a ladder action): one enum per setting, declared with [`named!`], which
//! lists its values and their names once and gives it the form the config file uses.
//! A value is checked when the file is read, and a wrong one is refused with the
//! values that are allowed; no caller compares strings or falls back on its own.

use std::fmt;
use std::marker::PhantomData;

/// An enum declared with [`named!`]: its values, their names, and how a wrong name
/// is refused.
pub(crate) trait Named: Copy + 'static {
    /// Every value, in the order they are declared (and listed in messages).
    const ALL: &'static [Self];
    /// The word for one value in a message about a list (`segment`, `action`):
    /// `None` for a setting that holds one value.
    const NOUN: Option<&'static str>;
    /// The name in config files and messages.
    fn name(self) -> &'static str;
}

/// What is said about `found`, a name none of `T`'s values has, after the key: for
/// one value `must be "a", "b" or "c", found "x"`; for a list element `has unknown
/// segment "x" (known: a, b, c)`.
pub(crate) fn refusal<T: Named>(found: &str) -> String {
    let names: Vec<&str> = T::ALL.iter().map(|v| v.name()).collect();
    match T::NOUN {
        Some(noun) => format!(
            "has unknown {noun} \"{found}\" (known: {})",
            names.join(", ")
        ),
        None => {
            let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            let allowed = match quoted.split_last() {
                Some((last, rest)) if !rest.is_empty() => {
                    format!("{} or {last}", rest.join(", "))
                }
                _ => quoted.concat(),
            };
            format!("must be {allowed}, found \"{found}\"")
        }
    }
}

/// The value `text` names.
pub(crate) fn from_name<T: Named>(text: &str) -> Option<T> {
    T::ALL.iter().copied().find(|v| v.name() == text)
}

/// Reads a `T` from its name; another name is refused with [`refusal`], another type
/// as "a string" (which the config's messages say as "text in quotes").
pub(crate) fn deserialize<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Named,
{
    struct Name<T>(PhantomData<T>);
    impl<T: Named> serde::de::Visitor<'_> for Name<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
            from_name(v).ok_or_else(|| E::custom(refusal::<T>(v)))
        }
    }
    d.deserialize_str(Name(PhantomData))
}

/// Declares an enum whose values have names: `ALL`, `name`, `from_name`, `Display`,
/// and serde's form (the name). `in lists as "noun"` for an enum whose values are
/// the elements of a list setting (it changes how a wrong one is refused, see
/// [`refusal`]).
///
/// ```ignore
/// named! {
///     /// `[notify] mode`.
///     pub enum NotifyMode {
///         /// Started detached.
///         Async = "async",
///         /// Stop waits for the reply.
///         Bidirectional = "bidirectional",
///     }
/// }
/// ```
macro_rules! named {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $($body:tt)* }
    ) => {
        named! { @enum [$(#[$meta])*] $vis $name [None] $($body)* }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident in lists as $noun:literal { $($body:tt)* }
    ) => {
        named! { @enum [$(#[$meta])*] $vis $name [Some($noun)] $($body)* }
    };
    (
        @enum [$(#[$meta:meta])*] $vis:vis $name:ident [$noun:expr]
        $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in the order they are declared (and listed in messages).
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The name in config files and messages.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }

            /// The value `text` names (`None` for any other text). The config reads
            /// names through [`deserialize`](crate::model::named::deserialize); this is
            /// for tests, which name values by their text.
            #[cfg(test)]
            #[allow(dead_code, reason = "every named enum has it; the tests of some use it")]
            pub(crate) fn from_name(text: &str) -> Option<Self> {
                $crate::model::named::from_name(text)
            }
        }

        impl $crate::model::named::Named for $name {
            const ALL: &'static [Self] = Self::ALL;
            const NOUN: Option<&'static str> = $noun;
            fn name(self) -> &'static str {
                Self::name(self)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::model::named::deserialize(d)
            }
        }
    };
}

pub(crate) use named;

#[cfg(test)]
mod tests {
    use super::*;

    named! {
        /// One value.
        enum Mode {
            /// A.
            Fast = "fast",
            /// B.
            Slow = "slow_ly",
            /// C.
            Off = "off",
        }
    }

    named! {
        /// A list element.
        enum Part in lists as "part" {
            /// A.
            Head = "head",
            /// B.
            Tail = "tail",
        }
    }

    #[derive(Debug, serde::Deserialize, serde::Serialize, PartialEq)]
    struct S {
        mode: Mode,
        parts: Vec<Part>,
    }

    #[test]
    fn names_round_trip_and_a_wrong_one_is_refused_with_what_is_allowed() {
        assert_eq!(Mode::ALL, [Mode::Fast, Mode::Slow, Mode::Off]);
        assert_eq!(Mode::from_name("slow_ly"), Some(Mode::Slow));
        assert_eq!(Mode::from_name("Slow"), None);
        assert_eq!(Mode::Off.to_string(), "off");
        assert_eq!(Part::from_name("tail"), Some(Part::Tail));
        let s: S = serde_json::from_str(r#"{"mode":"off","parts":["tail","head"]}"#).unwrap();
        assert_eq!(
            s,
            S {
                mode: Mode::Off,
                parts: vec![Part::Tail, Part::Head]
            }
        );
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"mode":"off","parts":["tail","head"]}"#
        );
        let e = serde_json::from_str::<S>(r#"{"mode":"fastest","parts":[]}"#).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(r#"must be "fast", "slow_ly" or "off", found "fastest""#),
            "{e}"
        );
        let e = serde_json::from_str::<S>(r#"{"mode":"off","parts":["neck"]}"#).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(r#"has unknown part "neck" (known: head, tail)"#),
            "{e}"
        );
        let e = serde_json::from_str::<S>(r#"{"mode":3,"parts":[]}"#).unwrap_err();
        assert!(e.to_string().contains("expected a string"), "{e}");
    }

    #[test]
    fn two_values_are_joined_by_or() {
        named! {
            /// Two.
            enum Two {
                /// A.
                A = "a",
                /// B.
                B = "b",
            }
        }
        assert_eq!(refusal::<Two>("c"), r#"must be "a" or "b", found "c""#);
        assert_eq!(Two::from_name("b"), Some(Two::B));
        assert_eq!(Two::ALL, [Two::A, Two::B]);
    }
}
