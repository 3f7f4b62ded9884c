//! An on-disk cache of generated PTX for specs known only at run time, keyed by
//! (spec, plans, the lean-DRAM GPUs' plans, generator version): [`load_or_build`] returns the cached bundle when a file
//! for exactly that key exists and parses, otherwise generates it and writes the file
//! (atomically: a temporary file renamed into place, so concurrent processes never read half a
//! file). A file from another generator has another name, so it is never read.

use super::bundle::{CompiledKernel, GENERATOR_VERSION, GemmBundle, GemmVariant};
use super::{KernelError, KernelPlan};
use crate::ir::ptx::PtxVersion;
use crate::spec::Spec;
use std::io;
use std::path::{Path, PathBuf};

/// Why the cache could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error(transparent)]
    Generate(#[from] KernelError),
    #[error("PTX cache {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// The cache file of a key, inside `dir` (`lean`: [`GemmBundle::lean`]'s plans, often none).
/// (The name is the spec id and a 64-bit FNV-1a hash of the plans and the generator; the file
/// repeats both in full and is used only when they match.)
pub fn file_for(dir: &Path, spec: &Spec, buckets: &[(u32, KernelPlan)], lean: &[(u32, KernelPlan)]) -> PathBuf {
    let h = fnv1a(key_line(buckets, lean).bytes().chain(GENERATOR_VERSION.bytes()));
    dir.join(format!("{}__{h:016x}.hmptx", spec.id()))
}

/// The 64-bit FNV-1a hash of `bytes` (cache file names; the tests' fingerprint of generated PTX).
pub fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The plans as one line, e.g. `16:m1x16_n4x64_k2w_bk128_s4 4294967295:m4x16_...`, then the lean
/// GPUs' after ` lean ` where there are any (so a bundle without them keeps its earlier key).
fn key_line(buckets: &[(u32, KernelPlan)], lean: &[(u32, KernelPlan)]) -> String {
    let line = |b: &[(u32, KernelPlan)]| b.iter().map(|(m, p)| format!("{m}:{p}")).collect::<Vec<_>>().join(" ");
    if lean.is_empty() { line(buckets) } else { format!("{} lean {}", line(buckets), line(lean)) }
}

/// The bundle of `spec` with `buckets` and the lean-DRAM GPUs' replacements `lean`
/// ([`GemmBundle::build_with_lean`]) from `dir`, generated and stored there on a miss.
/// Returns the bundle and whether it came from the cache.
pub fn load_or_build(dir: &Path, spec: &Spec, buckets: &[(u32, KernelPlan)], lean: &[(u32, KernelPlan)]) -> Result<(GemmBundle, bool), CacheError> {
    let path = file_for(dir, spec, buckets, lean);
    if let Ok(text) = std::fs::read_to_string(&path) {
        if let Some(bundle) = parse(&text, spec, buckets, lean) {
            return Ok((bundle, true));
        }
    }
    let bundle = GemmBundle::build_with_lean(spec, buckets, lean)?;
    let io_err = |source| CacheError::Io { path: path.clone(), source };
    std::fs::create_dir_all(dir).map_err(io_err)?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, render(&bundle)).map_err(io_err)?;
    std::fs::rename(&tmp, &path).map_err(io_err)?;
    Ok((bundle, false))
}

const MAGIC: &str = "humming ptx cache 1";

/// The file text: the generator and plan lines, then a header line per kernel (`kernel <name> <threads> <ptx version> <bytes>`)
/// followed by exactly that many bytes of PTX: the variants, the lean GPUs' ones, the reduce kernel last.
fn render(b: &GemmBundle) -> String {
    let mut s = format!("{MAGIC}\n{}\n{}\n", b.generator, key_line(&b.buckets(), &b.lean_buckets()));
    for k in b.all_variants().map(|v| &v.main).chain(std::iter::once(&b.reduce)) {
        s.push_str(&format!("kernel {} {} {} {}\n", k.name, k.threads, k.ptx_version, k.ptx.len()));
        s.push_str(&k.ptx);
    }
    s
}

/// The bundle in `text`, or `None` when it is not a complete file for this key.
fn parse(text: &str, spec: &Spec, buckets: &[(u32, KernelPlan)], lean: &[(u32, KernelPlan)]) -> Option<GemmBundle> {
    let rest = text.strip_prefix(MAGIC)?.strip_prefix('\n')?;
    let (generator, rest) = rest.split_once('\n')?;
    let (plans, mut rest) = rest.split_once('\n')?;
    if generator != GENERATOR_VERSION || plans != key_line(buckets, lean) {
        return None;
    }
    let mut kernels = Vec::new();
    for _ in 0..=buckets.len() + lean.len() {
        let (header, body) = rest.split_once('\n')?;
        let f: Vec<&str> = header.split(' ').collect();
        let [tag, name, threads, version, len] = f[..] else { return None };
        if tag != "kernel" {
            return None;
        }
        let (major, minor) = version.split_once('.')?;
        let len: usize = len.parse().ok()?;
        let ptx = body.get(..len)?;
        kernels.push(CompiledKernel {
            name: name.to_string().into(),
            ptx_id: CompiledKernel::id_of(ptx),
            ptx: ptx.to_string().into(),
            ptx_version: PtxVersion::new(major.parse().ok()?, minor.parse().ok()?),
            threads: threads.parse().ok()?,
        });
        rest = &body[len..];
    }
    if !rest.is_empty() {
        return None;
    }
    let reduce = kernels.pop()?;
    let mut variants: Vec<GemmVariant> =
        buckets.iter().chain(lean).zip(kernels).map(|(&(max_m, plan), main)| GemmVariant { max_m, plan, main }).collect();
    let lean = variants.split_off(buckets.len());
    Some(GemmBundle { spec: spec.parts(), generator: GENERATOR_VERSION.into(), variants: variants.into(), lean: lean.into(), reduce })
}
