//! Specs from text, for specs known only at run time (a config file, a checkpoint's metadata,
//! a command line): `"weight=u4 act=f16 group=128"`, pairs separated by spaces or commas.
//! Keys are the `#[humming_gemm]` argument names; unset keys take [`SpecParts::new`]'s
//! defaults for the activation.

use super::SpecParts;
use crate::{ActFormat, Arch, OutFormat, ScaleFormat, ScaleGroup, WeightFormat, ZeroPoint};

/// The keys a spec text takes.
pub const SPEC_KEYS: [&str; 8] = ["weight", "act", "out", "scale", "group", "zero_point", "global_scale", "arch"];

/// Why a spec text does not parse (its values are then validated by [`super::Spec::new`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecParseError {
    #[error("`{0}` is not `key=value`")]
    Pair(String),
    #[error("unknown key `{key}`; the keys are {}", SPEC_KEYS.join(", "))]
    Key { key: String },
    #[error("`{key}` is given twice")]
    Duplicate { key: String },
    #[error("`{key}` is required")]
    Missing { key: &'static str },
    #[error("{key} = `{value}`: {reason}")]
    Value { key: String, value: String, reason: String },
}

impl SpecParts {
    /// Sets one argument by name: `weight`, `act` (without changing the defaults that depend
    /// on it), `out`, `scale`, `group` (a size or `per_channel`), `zero_point` (`implicit` or
    /// `dynamic`), `global_scale` (`true`/`false`), `arch` (`sm_80`, ...).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SpecParseError> {
        let bad = |reason: String| SpecParseError::Value { key: key.to_string(), value: value.to_string(), reason };
        let v = value.trim();
        match key {
            "weight" => self.weight = WeightFormat::parse(v).map_err(|e| bad(e.to_string()))?,
            "act" => self.act = ActFormat::parse(v).map_err(|e| bad(e.to_string()))?,
            "out" => self.out = OutFormat::parse(v).map_err(|e| bad(e.to_string()))?,
            "scale" => self.scale = ScaleFormat::parse(v).map_err(|e| bad(e.to_string()))?,
            "group" => {
                self.group = match v {
                    "per_channel" | "channel" | "none" => ScaleGroup::PerChannel,
                    _ => ScaleGroup::Group(v.parse().map_err(|_| bad("expected a group size (e.g. 128) or `per_channel`".into()))?),
                }
            }
            "zero_point" => {
                self.zero_point = match v {
                    "implicit" => ZeroPoint::Implicit,
                    "dynamic" => ZeroPoint::Dynamic,
                    _ => return Err(bad("expected `implicit` or `dynamic`".into())),
                }
            }
            "global_scale" => self.global_scale = v.parse().map_err(|_| bad("expected `true` or `false`".into()))?,
            "arch" => {
                self.arch = Arch::parse(v).ok_or_else(|| {
                    bad(format!("expected one of {}", Arch::ALL.map(|a| a.name()).join(", ")))
                })?
            }
            _ => return Err(SpecParseError::Key { key: key.to_string() }),
        }
        Ok(())
    }

    /// Parses `"weight=u4 act=f16 group=128 ..."` (spaces or commas between pairs).
    pub fn parse(text: &str) -> Result<SpecParts, SpecParseError> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for item in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| SpecParseError::Pair(item.to_string()))?;
            let k = k.trim();
            if !SPEC_KEYS.contains(&k) {
                return Err(SpecParseError::Key { key: k.to_string() });
            }
            if pairs.iter().any(|(seen, _)| *seen == k) {
                return Err(SpecParseError::Duplicate { key: k.to_string() });
            }
            pairs.push((k, v));
        }
        let get = |key: &'static str| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).ok_or(SpecParseError::Missing { key });
        let mut probe = SpecParts::new(WeightFormat::UInt(4), ActFormat::F16);
        probe.set("weight", get("weight")?)?;
        probe.set("act", get("act")?)?;
        let mut parts = SpecParts::new(probe.weight, probe.act);
        for (k, v) in &pairs {
            parts.set(k, v)?;
        }
        Ok(parts)
    }
}

impl std::str::FromStr for SpecParts {
    type Err = SpecParseError;

    fn from_str(s: &str) -> Result<SpecParts, SpecParseError> {
        SpecParts::parse(s)
    }
}
