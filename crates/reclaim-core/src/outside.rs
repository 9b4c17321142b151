//! Schemes written outside the engine: victim policies and placements that a host language
//! (Python, through the bindings) defines and the engine calls at its fixed points, named in a
//! spec by where they live, `MODULE:CLASS[:key=value,…]`.
//!
//! The engine stays free of the host: it knows such a scheme only as an [`OutsideSpec`], a
//! canonical spec string and a [`Factory`] that makes instances, which the host's resolver
//! ([`install`]) returns for a spec it recognises. What the engine gives a scheme at each call
//! is a view of its own arrays ([`crate::policy::outside::PolicyView`],
//! [`crate::placement::outside::Batch`]); what the scheme returns is checked here, so a segment that is not a
//! candidate or a stream out of range is an error that names the scheme and the value.

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};
use crate::placement::outside::OutsidePlacement;
use crate::policy::outside::OutsidePolicy;
use crate::spec::{Family, Need};

/// What a host's placement declares of its shape: its streams and how many writes it
/// classifies at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// User streams: a user write's class is its stream, `0..user_streams`.
    pub user_streams: u16,
    /// GC streams, after the user streams: a relocated page's class `c` goes to stream
    /// `user_streams + c`.
    pub gc_streams: u16,
    /// User writes classified in one call where the run loop can draw them ahead (at least 1).
    pub batch: u32,
}

/// Makes the instances of a scheme defined outside the engine.
pub trait Factory: Send + Sync {
    /// A new victim policy (a region's; each region has its own).
    ///
    /// # Errors
    /// What the host raised while making it.
    fn policy(&self) -> Result<Box<dyn OutsidePolicy>> {
        Err(Error::param(
            "policy",
            "an outside scheme",
            "a victim policy",
        ))
    }
    /// A new placement for a device of `segments` segments of `pages_per_segment` pages holding
    /// `logical_pages` logical pages.
    ///
    /// # Errors
    /// What the host raised while making it.
    fn placement(
        &self,
        _segments: u32,
        _pages_per_segment: u32,
        _logical_pages: u64,
    ) -> Result<Box<dyn OutsidePlacement>> {
        Err(Error::param(
            "placement",
            "an outside scheme",
            "a placement",
        ))
    }
    /// The placement's streams and batch ([`Shape`]).
    fn shape(&self) -> Shape {
        Shape {
            user_streams: 1,
            gc_streams: 1,
            batch: 1,
        }
    }
    /// Whether the scheme reads `need` (the facts it declared).
    fn needs(&self, _need: Need) -> bool {
        false
    }
}

/// A scheme defined outside the engine, as a parsed spec holds it: its canonical spec string
/// (which names runs and results) and the factory of its instances.
#[derive(Clone)]
pub struct OutsideSpec {
    /// The canonical spec, `MODULE:CLASS[:key=value,…]`.
    pub text: String,
    /// Makes its instances.
    pub factory: Arc<dyn Factory>,
}

impl fmt::Debug for OutsideSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OutsideSpec({})", self.text)
    }
}

impl fmt::Display for OutsideSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq for OutsideSpec {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

/// Resolves a spec of `family` written `MODULE:CLASS[:…]` into its scheme.
pub type Resolver = fn(Family, &str) -> Result<OutsideSpec>;

static RESOLVER: OnceLock<Resolver> = OnceLock::new();

/// Installs the host's resolver (once per process; later calls are ignored).
pub fn install(resolver: Resolver) {
    let _ = RESOLVER.set(resolver);
}

/// Whether `text` names a scheme by where it lives, `MODULE:CLASS[:…]`, rather than a
/// registered name: its first part a module (dotted identifiers, or a path to a `.py` file) that
/// `registered` does not answer to, its second a class name (an identifier, no `=`).
pub fn names_outside(text: &str, registered: impl Fn(&str) -> bool) -> bool {
    let mut parts = text.splitn(3, ':');
    let (Some(module), Some(class)) = (parts.next(), parts.next()) else {
        return false;
    };
    let identifier = |s: &str| {
        let mut c = s.chars();
        c.next().is_some_and(|f| f.is_alphabetic() || f == '_')
            && c.all(|x| x.is_alphanumeric() || x == '_')
    };
    let module_ok =
        Path::is_py(module) || (!module.is_empty() && module.split('.').all(identifier));
    module_ok && identifier(class) && !registered(module)
}

struct Path;

impl Path {
    fn is_py(s: &str) -> bool {
        s.len() > 3
            && std::path::Path::new(s)
                .extension()
                .is_some_and(|e| e == "py")
    }
}

/// The scheme a `MODULE:CLASS[:…]` spec of `family` names, through the host's resolver.
///
/// # Errors
/// No host is loaded (the engine used from Rust alone), or the host cannot make the scheme (its
/// message: a module that does not import, a class that is not a scheme, a bad parameter).
pub fn resolve(family: Family, text: &str) -> Result<OutsideSpec> {
    match RESOLVER.get() {
        Some(resolve) => resolve(family, text),
        None => Err(Error::param(
            family.param(),
            text,
            "a registered scheme (schemes written in Python, `MODULE:CLASS`, run through the Python package `reclaim`)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_and_class_name_an_outside_scheme() {
        let none = |_: &str| false;
        assert!(names_outside("mymodule:MyPolicy", none));
        assert!(names_outside("pkg.sub:Greedy:k=3,tie=oldest", none));
        assert!(names_outside("examples/python_greedy.py:Greedy", none));
        // Registered names with a positional value or parameters are not.
        assert!(!names_outside("greedy:tie=oldest", none));
        assert!(!names_outside("trace:/tmp/x.rtr", none));
        assert!(!names_outside("greedy", none));
        assert!(!names_outside("gra:Greedy", |s| s == "gra"));
        assert!(!names_outside("a b:Greedy", none));
    }

    #[test]
    fn without_a_host_the_error_names_the_spec() {
        let e = resolve(Family::Policy, "mymodule:MyPolicy").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("`policy`") && msg.contains("mymodule:MyPolicy"),
            "{msg}"
        );
    }
}
