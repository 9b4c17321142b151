//! The shared grammar of spec strings, `name[:key=value,key=value]`, and what a scheme declares
//! of itself in its own file ([`Info`]): its name as the papers say it, its parameters with unit,
//! range, default and help, its source, and what it needs of the engine. The registries of
//! `policy`, `placement`, `trigger`, `workload` and `workload::sizes` collect these declarations,
//! one line per scheme; the command line's help, `reclaim schemes`, the Python parameter table
//! and the README's table are all generated from them.

use std::str::FromStr;

use serde::Serialize;

use crate::error::{num, Error, Result};

/// The families of schemes, each with its registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Victim policies (`--policy`, `policy/`).
    Policy,
    /// Placements (`--placement`, `placement/`).
    Placement,
    /// Cleaner triggers (`--gc`, `trigger`).
    Trigger,
    /// Workloads (`--workload`, `workload/`).
    Workload,
    /// Page-size distributions (`--sizes`, `workload::sizes`).
    Sizes,
    /// Trace-driven methods (`--method`, `method/`).
    Method,
    /// Flash devices for timed runs (`--device`, `time::spec`).
    Device,
    /// Arrival processes of timed runs (`--arrivals`, `time::arrivals`).
    Arrivals,
}

impl Family {
    /// The configuration parameter the family's spec strings are given to.
    pub fn param(self) -> &'static str {
        match self {
            Family::Policy => "policy",
            Family::Placement => "placement",
            Family::Trigger => "gc",
            Family::Workload => "workload",
            Family::Sizes => "sizes",
            Family::Method => "method",
            Family::Device => "device",
            Family::Arrivals => "arrivals",
        }
    }
}

/// What a scheme needs of the engine beyond the page map and the valid counts; the engine keeps
/// each only for the schemes that declare it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Need {
    /// Each segment's destage sequence number (Stockmeyer §2.3's age clock).
    DestageNumbers,
    /// The set of sealed segments, to draw from or scan (else only their number is kept).
    SealedSet,
    /// Each segment's u_p2 (Lomet & Luo §5.2.2).
    Up2,
    /// The workload's classes: a class per write.
    Classes,
    /// Each page's class, kept from its last user write, for relocation.
    PageClass,
    /// The age of the copy a user write replaces, on the destage clock.
    Ages,
    /// Per-page state kept by the scheme itself, allocated only when it is chosen.
    PageState,
    /// Which segments each log sealed (multi-log's cleaning).
    SealedBy,
    /// Each page's update rate from its last user write (`freq=exact`).
    PageRate,
    /// Each page's last user write on the user-write clock (`sort=written`).
    PageWritten,
    /// A fact named by its ledger ([`crate::ledger::Fact::name`]) that has no need of its own
    /// above: a new fact is declared by its name, so that adding it changes nothing here.
    Fact(&'static str),
    /// The trace's request times ([`crate::clocks::Clocks::trace_time`], µs), for
    /// the schemes that estimate lifespans in trace time, and each write request's start
    /// ([`crate::placement::Scheme::request`]); carried only when a scheme needs them.
    Times,
}

/// One parameter of a scheme, as its own file declares it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Param {
    /// The key, as in `name:key=value`; empty for the one positional value of a spec written
    /// `name:VALUE` (`trace:PATH`).
    pub key: &'static str,
    /// The values in short, as the usage line shows them (`D`, `random|oldest`).
    pub values: &'static str,
    /// The unit, empty for none.
    pub unit: &'static str,
    /// The valid values, as an error message states them after "expected".
    pub range: &'static str,
    /// The default, as text; `None` when the parameter must be given.
    pub default: Option<&'static str>,
    /// What it means, in one line.
    pub help: &'static str,
}

/// What a scheme declares of itself (see the module documentation).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Info {
    /// Its family.
    pub family: Family,
    /// Its name, as the papers say it.
    pub name: &'static str,
    /// Other names it answers to.
    pub aliases: &'static [&'static str],
    /// What it does, in one line.
    pub summary: &'static str,
    /// The paper and section that define it.
    pub source: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
    /// What it needs of the engine.
    pub needs: &'static [Need],
}

impl Info {
    /// Whether `name` names this scheme.
    pub fn answers(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    /// Whether the scheme needs `need` of the engine.
    pub fn needs(&self, need: Need) -> bool {
        self.needs.contains(&need)
    }

    /// The usage line, such as `windowed:w=W[,tie=random|oldest|fifo]`: required parameters
    /// first, the optional ones in brackets.
    pub fn usage(&self) -> String {
        let required: Vec<String> = self
            .params
            .iter()
            .filter(|p| p.default.is_none())
            .map(|p| {
                if p.key.is_empty() {
                    p.values.to_string()
                } else {
                    format!("{}={}", p.key, p.values)
                }
            })
            .collect();
        let optional: Vec<String> = self
            .params
            .iter()
            .filter(|p| p.default.is_some())
            .map(|p| format!("{}={}", p.key, p.values))
            .collect();
        let (name, required, optional) = (self.name, required.join(","), optional.join(","));
        match (required.is_empty(), optional.is_empty()) {
            (true, true) => name.to_string(),
            (true, false) => format!("{name}[:{optional}]"),
            (false, true) => format!("{name}:{required}"),
            (false, false) => format!("{name}:{required}[,{optional}]"),
        }
    }
}

/// The usage lines of a registry, as the error for an unknown name lists them.
pub fn usages<'i>(infos: impl IntoIterator<Item = &'i Info>) -> String {
    let lines: Vec<String> = infos
        .into_iter()
        .map(|i| format!("`{}`", i.usage()))
        .collect();
    match lines.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("one of {} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// A registered scheme whose spec is one variant of a family's enum (triggers, workloads, size
/// distributions): its declaration and its parser.
pub struct Entry<T: 'static> {
    /// What it declares of itself.
    pub info: Info,
    /// Its parser, given arguments already checked against `info`.
    pub parse: fn(&Args<'_>) -> Result<T>,
}

/// Writes the registry of a family whose schemes are [`Entry`]s (triggers, workloads, methods):
/// one line per scheme, naming its file, which declares the module and lists its `ENTRY`, as
/// the policies' and placements' `registry!` do for theirs.
macro_rules! entries {
    ($(#[$doc:meta])* $list:ident: $t:ty { $($m:ident,)* }) => {
        $(pub mod $m;)*

        $(#[$doc])*
        pub const $list: &[$crate::spec::Entry<$t>] = &[$($m::ENTRY,)*];
    };
}
pub(crate) use entries;

/// Parses `text`, given to `param`, with the entry its name selects.
pub fn parse_entry<T>(param: &'static str, text: &str, entries: &[Entry<T>]) -> Result<T> {
    let args = Args::parse(param, text)?;
    match entries.iter().find(|e| e.info.answers(args.name)) {
        Some(e) => {
            args.check(&e.info)?;
            (e.parse)(&args)
        }
        None => Err(args.bad(&usages(entries.iter().map(|e| &e.info)))),
    }
}

/// A spec string split into its name and `key=value` arguments.
pub struct Args<'a> {
    /// The configuration parameter it was given to (`policy`).
    pub param: &'static str,
    /// The whole text.
    pub text: &'a str,
    /// The scheme's name.
    pub name: &'a str,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Args<'a> {
    /// Splits `text`, given to `param`; a malformed or repeated argument is an error.
    pub fn parse(param: &'static str, text: &'a str) -> Result<Self> {
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (text, None),
        };
        let mut args = Vec::new();
        if let Some(rest) = rest {
            for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let (k, v) = part.split_once('=').ok_or_else(|| {
                    Error::param(
                        param,
                        format!("`{text}`"),
                        format!("`key=value` arguments after `{name}:`, got `{part}`"),
                    )
                })?;
                let k = k.trim();
                if k.is_empty() {
                    return Err(Error::param(
                        param,
                        format!("`{text}` (a value without its key: `{part}`)"),
                        format!("`key=value` arguments after `{name}:`"),
                    ));
                }
                // A repeated key would otherwise be resolved silently in favour of one of them.
                if args.iter().any(|(seen, _)| *seen == k) {
                    return Err(Error::param(
                        param,
                        format!("`{text}` (`{k}` given twice)"),
                        format!("each argument of `{name}` at most once"),
                    ));
                }
                args.push((k, v.trim()));
            }
        }
        Ok(Args {
            param,
            text,
            name,
            pairs: args,
        })
    }

    /// Fails if an argument the scheme does not declare is present.
    pub fn check(&self, info: &Info) -> Result<()> {
        for (k, _) in &self.pairs {
            if !info.params.iter().any(|p| p.key == *k) {
                let expected = if info.params.is_empty() {
                    format!("no arguments for `{}`", self.name)
                } else {
                    let keys: Vec<&str> = info.params.iter().map(|p| p.key).collect();
                    format!("arguments of `{}` among {}", self.name, keys.join(", "))
                };
                return Err(Error::param(
                    self.param,
                    format!("`{}` (unknown argument `{k}`)", self.text),
                    expected,
                ));
            }
        }
        Ok(())
    }

    /// The value given to `key`, if any.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// The qualified name of an argument, such as `policy.d`.
    pub fn key(&self, key: &str) -> String {
        format!("{}.{key}", self.param)
    }

    /// The value of `key` as a number, `default` when absent (`None`: it must be given).
    pub fn num<T: FromStr>(&self, key: &str, default: Option<T>, range: &str) -> Result<T> {
        match self.get(key) {
            None => default.ok_or_else(|| {
                Error::param(
                    self.param,
                    format!("`{}`", self.text),
                    format!("`{key}=` ({range}) to be given"),
                )
            }),
            Some(v) => v
                .parse::<T>()
                .map_err(|_| Error::param(&self.key(key), self.given(key, v), range.to_string())),
        }
    }

    /// The value of `key` among named `options`, `default` when absent.
    pub fn choice<T: Copy>(&self, key: &str, options: &[(&str, T)], default: T) -> Result<T> {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        if let Some((_, t)) = options.iter().find(|(name, _)| *name == v) {
            return Ok(*t);
        }
        let names: Vec<String> = options.iter().map(|(n, _)| format!("`{n}`")).collect();
        let expected = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        };
        Err(Error::param(&self.key(key), self.given(key, v), expected))
    }

    /// The value `v` given to `key` as an error shows it: quoted, or, when empty, said so
    /// with the spec it is missing from (an empty pair of backticks reads as a typo).
    fn given(&self, key: &str, v: &str) -> String {
        if v.is_empty() {
            format!("nothing after `{key}=` in `{}`", self.text)
        } else {
            format!("`{v}`")
        }
    }

    /// The error for a spec that is wrong as a whole.
    pub fn bad(&self, expected: &str) -> Error {
        Error::param(self.param, format!("`{}`", self.text), expected.to_string())
    }
}

/// Checks that `value` lies in the interval from `lo` to `hi`, each end open or closed.
pub fn check_range(
    param: &str,
    value: f64,
    lo: f64,
    hi: f64,
    lo_open: bool,
    hi_open: bool,
) -> Result<()> {
    let ok_lo = if lo_open { value > lo } else { value >= lo };
    let ok_hi = if hi_open { value < hi } else { value <= hi };
    if ok_lo && ok_hi && value.is_finite() {
        Ok(())
    } else {
        let l = if lo_open { "(" } else { "[" };
        let h = if hi_open { ")" } else { "]" };
        Err(Error::param(
            param,
            num(value),
            format!("a number in {l}{}, {}{h}", num(lo), num(hi)),
        ))
    }
}

/// Numbers separated by `/`, such as `0.8/0.2`.
pub fn parse_vec(param: &str, v: &str) -> Result<Vec<f64>> {
    v.split('/')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .map_err(|_| Error::param(param, format!("`{v}`"), "numbers separated by `/`"))
        })
        .collect()
}

/// Numbers joined by `/`, as [`parse_vec`] reads them.
pub fn join(v: &[f64]) -> String {
    v.iter().map(f64::to_string).collect::<Vec<_>>().join("/")
}

/// Serializes a spec as its text and reads it back from a string or a number.
macro_rules! string_serde {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                // `{}` writes an f64 in full (`tol=1e-300` as 302 characters): the canonical
                // form keeps the shortest one, which reads back as the same number.
                s.serialize_str(&crate::error::compact_numbers(&self.to_string()))
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(
                d: D,
            ) -> std::result::Result<Self, D::Error> {
                #[derive(serde::Deserialize)]
                #[serde(untagged)]
                enum Raw {
                    S(String),
                    U(u64),
                    F(f64),
                }
                let text = match Raw::deserialize(d)? {
                    Raw::S(s) => s,
                    Raw::U(u) => u.to_string(),
                    Raw::F(f) => f.to_string(),
                };
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use string_serde;

#[cfg(test)]
mod tests {
    use super::*;

    fn num_error(text: &str) -> String {
        let args = match Args::parse("policy", text) {
            Ok(a) => a,
            Err(e) => return e.to_string(),
        };
        args.num::<u32>("d", None, "a whole number ≥ 1")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn an_empty_key_or_value_is_named_as_such() {
        assert_eq!(
            num_error("d-choices:d="),
            "invalid value for `policy.d`: nothing after `d=` in `d-choices:d=` (expected a whole number ≥ 1)"
        );
        assert_eq!(
            num_error("d-choices:=3"),
            "invalid value for `policy`: `d-choices:=3` (a value without its key: `=3`) (expected `key=value` arguments after `d-choices:`)"
        );
        assert_eq!(
            num_error("d-choices:d=x"),
            "invalid value for `policy.d`: `x` (expected a whole number ≥ 1)"
        );
        let args = Args::parse("policy", "greedy:tie=").unwrap();
        assert_eq!(
            args.choice("tie", &[("random", 0), ("oldest", 1)], 0)
                .unwrap_err()
                .to_string(),
            "invalid value for `policy.tie`: nothing after `tie=` in `greedy:tie=` (expected `random` or `oldest`)"
        );
    }

    #[test]
    fn a_range_check_shows_its_numbers_in_their_shortest_form() {
        let e = check_range("workload.r", -1e-300, 0.0, 1.0, true, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value for `workload.r`: -1e-300 (expected a number in (0, 1))"
        );
        let e = check_range("sizes.weights", -1.0, 0.0, f64::MAX, false, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value for `sizes.weights`: -1 (expected a number in [0, 1.7976931348623157e308])"
        );
    }
}
