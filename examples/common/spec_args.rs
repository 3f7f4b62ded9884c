//! The spec flags that the A16 examples share (`bench_a16`, `diff_a16`), flattened into each
//! one's clap arguments, and the one place that turns them into a [`Spec`].

use humming::core::*;

#[derive(clap::Args, Debug)]
pub struct SpecArgs {
    #[arg(long, default_value = "u4")]
    pub weight: String,
    #[arg(long, default_value = "f16")]
    pub act: String,
    /// Scale format (default: the activation's 16-bit type).
    #[arg(long)]
    pub scale: Option<String>,
    /// Group size along K, or 0 for per-channel.
    #[arg(long, default_value_t = 128)]
    pub group: u32,
    /// Dynamic zero points (unsigned weights).
    #[arg(long)]
    pub dynamic_zero: bool,
}

impl SpecArgs {
    /// The spec these flags name, for `arch`; a bad format or combination is the spec's error.
    pub fn spec(&self, arch: Arch) -> Result<Spec, Box<dyn std::error::Error>> {
        let mut parts = SpecParts::new(WeightFormat::parse(&self.weight)?, ActFormat::parse(&self.act)?);
        parts.arch = arch;
        parts.group = if self.group == 0 { ScaleGroup::PerChannel } else { ScaleGroup::Group(self.group) };
        if let Some(s) = &self.scale {
            parts.scale = ScaleFormat::parse(s)?;
        }
        if self.dynamic_zero {
            parts.zero_point = ZeroPoint::Dynamic;
        }
        Ok(Spec::new(parts)?)
    }
}
