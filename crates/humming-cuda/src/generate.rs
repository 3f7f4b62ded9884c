//! Kernels for specs known only at run time (read from a checkpoint or a config): the same
//! generator as `#[humming_gemm]`, memoized per process and cached on disk as PTX keyed by
//! (spec, plans, the lean-DRAM GPUs' plans, generator version).

use crate::error::RuntimeError;
use humming_core::kernel::{GemmBundle, KernelPlan, cache};
use humming_core::Spec;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// Environment variable naming the PTX cache directory; `off` disables the disk cache.
pub const CACHE_ENV: &str = "HUMMING_PTX_CACHE";

/// The PTX cache directory: `$HUMMING_PTX_CACHE`, else `$XDG_CACHE_HOME/humming`, else
/// `$HOME/.cache/humming`; `None` when disabled or no location is known.
pub fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_ENV) {
        Some(v) if v == "off" => None,
        Some(v) => Some(PathBuf::from(v)),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|d| d.join("humming")),
    }
}

/// Where a bundle came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Built earlier in this process.
    Memory,
    /// Read from the disk cache.
    Disk,
    /// Generated now (and written to the disk cache when there is one).
    Generated,
}

/// The kernels of `spec` with its default M buckets ([`KernelPlan::buckets_spec`]) and the
/// lean-DRAM GPUs' replacements ([`KernelPlan::lean_buckets_spec`]): the kernel set
/// `#[humming_gemm]` embeds ([`GemmBundle::build_default`]), which [`crate::launch_gemm`] picks
/// from by the GPU it runs on.
pub fn bundle_for(spec: &Spec) -> Result<(Arc<GemmBundle>, Source), RuntimeError> {
    bundle_plans(spec, &KernelPlan::buckets_spec(spec), &KernelPlan::lean_buckets_spec(spec))
}

/// The kernels of `spec` with explicit `(largest M, plan)` buckets, the same on every GPU.
pub fn bundle_with(spec: &Spec, buckets: &[(u32, KernelPlan)]) -> Result<(Arc<GemmBundle>, Source), RuntimeError> {
    bundle_plans(spec, buckets, &[])
}

/// [`GemmBundle::build_with_lean`], memoized and cached on disk.
fn bundle_plans(spec: &Spec, buckets: &[(u32, KernelPlan)], lean: &[(u32, KernelPlan)]) -> Result<(Arc<GemmBundle>, Source), RuntimeError> {
    type Plans = Vec<(u32, KernelPlan)>;
    type Memo = Mutex<HashMap<(Spec, Plans, Plans), Arc<GemmBundle>>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let key = (*spec, buckets.to_vec(), lean.to_vec());
    let memo = MEMO.get_or_init(Default::default);
    if let Some(b) = memo.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok((b.clone(), Source::Memory));
    }
    let (bundle, source) = match cache_dir() {
        Some(dir) => {
            let (b, hit) = cache::load_or_build(&dir, spec, buckets, lean)?;
            (b, if hit { Source::Disk } else { Source::Generated })
        }
        None => (GemmBundle::build_with_lean(spec, buckets, lean)?, Source::Generated),
    };
    let bundle = Arc::new(bundle);
    memo.lock().unwrap_or_else(|p| p.into_inner()).insert(key, bundle.clone());
    Ok((bundle, source))
}
