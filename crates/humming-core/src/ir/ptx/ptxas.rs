//! The ptxas harness: assembles printed PTX with NVIDIA's `ptxas -v` and reads back what it
//! reports per entry (registers, spills, stack, shared and constant memory). Tests across the
//! workspace use it; a missing ptxas is an error ([`PtxasError::NotFound`]), never a pass.
//!
//! ptxas is found through `HUMMING_PTXAS`, else `ptxas` on `PATH`, else `$HOME/.local/bin/ptxas`
//! (where `scripts/setup.sh` puts it).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::arch::Arch;
use crate::ir::kernel::Kernel;

/// What ptxas reported for one `.entry`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntryReport {
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// Bytes of stack frame per thread.
    pub stack_frame: u32,
    /// Bytes of static shared memory.
    pub shared_bytes: u32,
    /// Named barriers used.
    pub barriers: u32,
    /// `(bank, bytes)` of constant memory (ptxas for sm_90 and newer reports none).
    pub cmem: Vec<(u32, u32)>,
}

impl EntryReport {
    /// Bytes spilled either way.
    pub fn spills(&self) -> u32 {
        self.spill_stores + self.spill_loads
    }
}

/// The result of one successful `ptxas -v` run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxasReport {
    pub arch: Arch,
    /// One per `.entry`, in the order ptxas printed them.
    pub entries: Vec<EntryReport>,
    /// Everything ptxas printed.
    pub log: String,
}

impl PtxasReport {
    /// The entry named `name`.
    pub fn entry(&self, name: &str) -> Option<&EntryReport> {
        self.entries.iter().find(|e| e.name == name)
    }
}

impl fmt::Display for PtxasReport {
    /// One table row per entry: `name arch regs spill-stores/spill-loads stack smem`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.entries {
            writeln!(
                f,
                "{:<24} {:<7} regs {:>3}  spills {:>3}/{:<3}  stack {:>4}  smem {:>6}",
                e.name,
                self.arch.name(),
                e.registers,
                e.spill_stores,
                e.spill_loads,
                e.stack_frame,
                e.shared_bytes
            )?;
        }
        Ok(())
    }
}

/// Why ptxas did not assemble a module.
#[derive(Debug, thiserror::Error)]
pub enum PtxasError {
    /// No ptxas binary: tests must fail, not pass.
    #[error(
        "ptxas not found (looked at {tried:?}); run `bash scripts/setup.sh` or set HUMMING_PTXAS"
    )]
    NotFound { tried: Vec<PathBuf> },
    /// Writing the temporary files or starting ptxas failed.
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    /// ptxas rejected the module; `stderr` is what it said.
    #[error("ptxas failed ({status:?}):\n{stderr}")]
    Failed { status: Option<i32>, stderr: String },
    /// ptxas succeeded but its `-v` report could not be read.
    #[error("cannot read the ptxas report ({reason}):\n{log}")]
    Parse { reason: String, log: String },
}

/// The ptxas binary: `HUMMING_PTXAS` (when set, nothing else is tried), else `ptxas` on
/// `PATH`, else `$HOME/.local/bin/ptxas`.
pub fn locate() -> Result<PathBuf, PtxasError> {
    if let Some(p) = std::env::var_os("HUMMING_PTXAS").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(PtxasError::NotFound { tried: vec![p] })
        };
    }
    let mut tried = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join("ptxas");
            if p.is_file() {
                return Ok(p);
            }
            tried.push(p);
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        let p = Path::new(&home).join(".local/bin/ptxas");
        if p.is_file() {
            return Ok(p);
        }
        tried.push(p);
    }
    Err(PtxasError::NotFound { tried })
}

/// Temporary files removed on drop.
struct TempFiles(Vec<PathBuf>);

impl Drop for TempFiles {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// A file stem unique to this process, thread and call.
fn unique_stem() -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::env::temp_dir().join(format!("humming-ptxas-{}-{n}-{nanos}", std::process::id()))
}

/// Runs `ptxas -arch=<arch> -v` on `ptx` and returns its per-entry report.
pub fn assemble(ptx: &str, arch: Arch) -> Result<PtxasReport, PtxasError> {
    let stem = unique_stem();
    let (src, out) = (stem.with_extension("ptx"), stem.with_extension("cubin"));
    let _cleanup = TempFiles(vec![src.clone(), out.clone()]);
    std::fs::write(&src, ptx).map_err(|source| PtxasError::Io {
        what: format!("writing {}", src.display()),
        source,
    })?;
    assemble_file(&src, arch, &out)
}

/// [`assemble`] for the PTX file `src`, keeping the cubin at `out` (for `cuobjdump -sass`).
pub fn assemble_file(src: &Path, arch: Arch, out: &Path) -> Result<PtxasReport, PtxasError> {
    let ptxas = locate()?;
    let result = Command::new(&ptxas)
        .arg(format!("-arch={}", arch.name()))
        .arg("-v")
        .arg("-o")
        .arg(out)
        .arg(src)
        .output()
        .map_err(|source| PtxasError::Io {
            what: format!("running {}", ptxas.display()),
            source,
        })?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
    if !result.status.success() {
        return Err(PtxasError::Failed {
            status: result.status.code(),
            stderr: log,
        });
    }
    let entries = parse_report(&log)?;
    Ok(PtxasReport { arch, entries, log })
}

/// Reads `ptxas -v` output: `Compiling entry function 'k' for 'sm_80'`, then
/// `N bytes stack frame, N bytes spill stores, N bytes spill loads`, then
/// `Used N registers, used N barriers, N bytes smem, N bytes cmem[0]`.
pub fn parse_report(log: &str) -> Result<Vec<EntryReport>, PtxasError> {
    let err = |reason: String| PtxasError::Parse {
        reason,
        log: log.to_string(),
    };
    let mut entries: Vec<EntryReport> = Vec::new();
    // Index of the entry whose properties lines come next.
    let mut current: Option<usize> = None;
    for line in log.lines() {
        let text = line.split_once(" : ").map_or(line, |(_, t)| t).trim();
        if let Some(rest) = text.strip_prefix("Compiling entry function '") {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            entries.push(EntryReport {
                name,
                ..Default::default()
            });
            current = Some(entries.len() - 1);
        } else if let Some(rest) = text.strip_prefix("Function properties for ") {
            current = entries.iter().position(|e| e.name == rest.trim());
        } else if text.contains("bytes stack frame") {
            let Some(i) = current else { continue };
            for part in text.split(',') {
                let (n, what) =
                    number_and_rest(part).ok_or_else(|| err(format!("bad field {part:?}")))?;
                match what {
                    "bytes stack frame" => entries[i].stack_frame = n,
                    "bytes spill stores" => entries[i].spill_stores = n,
                    "bytes spill loads" => entries[i].spill_loads = n,
                    _ => {}
                }
            }
        } else if let Some(rest) = text.strip_prefix("Used ") {
            let Some(i) = current else { continue };
            for part in format!("Used {rest}").split(',') {
                let part = part.trim();
                let part = part
                    .strip_prefix("Used ")
                    .or_else(|| part.strip_prefix("used "))
                    .unwrap_or(part);
                let (n, what) =
                    number_and_rest(part).ok_or_else(|| err(format!("bad field {part:?}")))?;
                if what == "registers" {
                    entries[i].registers = n;
                } else if what == "barriers" {
                    entries[i].barriers = n;
                } else if what == "bytes smem" {
                    entries[i].shared_bytes = n;
                } else if let Some(bank) = what
                    .strip_prefix("bytes cmem[")
                    .and_then(|b| b.strip_suffix(']'))
                {
                    let bank = bank
                        .parse()
                        .map_err(|_| err(format!("bad cmem bank {bank:?}")))?;
                    entries[i].cmem.push((bank, n));
                }
            }
        }
    }
    if entries.is_empty() {
        return Err(err("no entry function in the report".to_string()));
    }
    Ok(entries)
}

fn number_and_rest(part: &str) -> Option<(u32, &str)> {
    let (n, rest) = part.trim().split_once(' ')?;
    Some((n.parse().ok()?, rest.trim()))
}

/// Prints `kernel` for every arch in `archs`, assembles each with ptxas, and panics on a
/// printer error, a ptxas error (a missing ptxas included) or any spill. Returns the reports
/// in the order of `archs`. Meant for tests.
pub fn assert_assembles_clean(kernel: &Kernel, archs: &[Arch]) -> Vec<PtxasReport> {
    archs
        .iter()
        .map(|&arch| {
            let ptx = super::print(kernel, arch)
                .unwrap_or_else(|e| panic!("printing {} for {arch} failed: {e}", kernel.name));
            let report = assemble(&ptx, arch).unwrap_or_else(|e| match e {
                PtxasError::Failed { .. } => {
                    panic!("{} for {arch}: {e}\n{}", kernel.name, numbered(&ptx))
                }
                _ => panic!("{} for {arch}: {e}", kernel.name),
            });
            let entry = report.entry(&kernel.name).unwrap_or_else(|| {
                panic!(
                    "ptxas reported no entry {} for {arch}:\n{}",
                    kernel.name, report.log
                )
            });
            assert_eq!(
                entry.spills(),
                0,
                "{} spills on {arch}:\n{}",
                kernel.name,
                report.log
            );
            report
        })
        .collect()
}

/// `ptx` with line numbers, the way ptxas counts them in its messages.
fn numbered(ptx: &str) -> String {
    ptx.lines()
        .enumerate()
        .map(|(i, l)| format!("{:>4} {l}\n", i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_report_shapes() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'k2' for 'sm_75'\n\
ptxas info    : Function properties for k2\n\
    64 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Used 4 registers, used 1 barriers, 64 bytes cumulative stack size, 360 bytes cmem[0]\n\
ptxas info    : Compile time = 1.690 ms\n\
ptxas info    : Compiling entry function 'k' for 'sm_90a'\n\
ptxas info    : Function properties for k\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 8 registers, used 0 barriers, 1024 bytes smem\n";
        let e = parse_report(log).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(
            e[0],
            EntryReport {
                name: "k2".into(),
                registers: 4,
                spill_stores: 8,
                spill_loads: 4,
                stack_frame: 64,
                shared_bytes: 0,
                barriers: 1,
                cmem: vec![(0, 360)],
            }
        );
        assert_eq!(
            (
                e[1].registers,
                e[1].shared_bytes,
                e[1].spills(),
                e[1].cmem.len()
            ),
            (8, 1024, 0, 0)
        );
        assert!(parse_report("ptxas info : 0 bytes gmem\n").is_err());
    }

    #[test]
    fn temp_names_are_unique() {
        let a = unique_stem();
        let b = unique_stem();
        assert_ne!(a, b);
    }
}
