//! The W{1..8}A16 kernel family over its whole coverage matrix ([`a16_matrix`]): every spec
//! generated, printed and assembled by ptxas for its target with zero spills, and run on the CPU
//! emulator at ragged small shapes against the f64 reference (every element checked; tolerance
//! in `humming_core::kernel::check`).

use humming_core::Spec;
use humming_core::ir::emu::Emulator;
use humming_core::ir::ptx::{print, ptxas::assemble};
use humming_core::kernel::check::check_gemm;
use humming_core::kernel::coverage::a16_matrix;
use humming_core::kernel::{KernelPlan, generate, kernel_name};
use std::collections::HashSet;
use std::sync::Mutex;

/// A summary line written to the stderr handle itself, past the test harness's capture, so the
/// counts show in every CI log.
macro_rules! report {
    ($($t:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
use std::sync::atomic::{AtomicUsize, Ordering};

/// Size of the coverage matrix stated in `kernel::coverage` (checked here so a change to the
/// matrix is a visible change to this number).
const MATRIX_SIZE: usize = 32040;

/// Ragged shapes (M, N, K): M in {1, 7, 33}, N in {64, 200}, K in {256, 384}; each spec takes
/// one, in rotation, and every other spec splits K over 2 CTAs.
const SHAPES: [(usize, usize, usize); 12] = [
    (1, 64, 256),
    (7, 200, 384),
    (33, 64, 384),
    (1, 200, 256),
    (7, 64, 256),
    (33, 200, 256),
    (1, 64, 384),
    (7, 200, 256),
    (33, 64, 256),
    (1, 200, 384),
    (7, 64, 384),
    (33, 200, 384),
];

fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).min(8)
}

/// Runs `f` over `items` on all cores, collecting the errors.
fn par_each<T: Sync>(items: &[T], f: impl Fn(usize, &T) -> Result<(), String> + Sync) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers() {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                if let Err(e) = f(i, item) {
                    errors.lock().unwrap().push(e);
                }
            });
        }
    });
    errors.into_inner().unwrap()
}

fn plan_for(spec: &Spec, m: usize, n: usize, k: usize) -> KernelPlan {
    KernelPlan::choose_for(spec, m, n.div_ceil(64) * 64, k.div_ceil(64) * 64)
}

#[test]
fn a16_matrix_size_is_stated() {
    let specs = a16_matrix();
    report!("A16 coverage matrix: {} specs", specs.len());
    assert_eq!(specs.len(), MATRIX_SIZE);
}

#[test]
fn a16_matrix_assembles_without_spills() {
    let specs = a16_matrix();
    // Kernel names identify the code: specs that differ only in the group size share a kernel
    // where it is a launch argument. Assemble each distinct kernel once, for the plans the
    // emulator test uses (the M = 1 and M = 33 buckets) and the M = 9..16 bucket (swapped, two
    // n8 tiles of M, the most registers among the swapped plans), for the spec's target; and the
    // M = 17..32 bucket where it is the swapped four-tile plan (4-bit weights on sm_90+). Swapped
    // plans whose warp range spans several groups are a kernel per group (`_g16`, `_g32`, ...:
    // `KernelPlan::group_steps`): 40.8k names where the group-free ones are 16.2k. A group-free
    // name with group variants assembles its shortest group seen (the most sums a stage): every
    // one that no spec of the matrix takes without a group (MXFP4 is g32 throughout), every other
    // one beside its one-sum-a-stage kernel; not every group between (ptxas would take 2.5 times
    // as long; the swapped plans of the layers assemble in
    // `a16_large_layer_plans_assemble_without_spills`).
    let mut seen = HashSet::new();
    let mut shortest: std::collections::BTreeMap<String, (Spec, KernelPlan, u32)> = Default::default();
    let mut jobs: Vec<(Spec, KernelPlan)> = Vec::new();
    for spec in &specs {
        for m in [1usize, 16, 33, 32] {
            let plan = plan_for(spec, m, 200, 256);
            if m == 32 && !(plan.swap && plan.m_tiles == 4) {
                continue;
            }
            let name = kernel_name(spec, &plan);
            match plan.group_steps(spec.group()) {
                Some(steps) => {
                    let family = name.replacen(&format!("_g{}_", 16 * steps), "_", 1);
                    let e = shortest.entry(family).or_insert((*spec, plan, steps));
                    if steps < e.2 {
                        *e = (*spec, plan, steps);
                    }
                }
                None => {
                    if seen.insert(name) {
                        jobs.push((*spec, plan));
                    }
                }
            }
        }
    }
    let grouped = shortest.into_iter().enumerate().filter(|(i, (family, _))| i % 2 == 0 || !seen.contains(family));
    jobs.extend(grouped.map(|(_, (_, (spec, plan, _)))| (spec, plan)));
    let (max_regs, errors) = assemble_all(&jobs);
    report!(
        "ptxas: {} specs -> {} distinct GEMM kernels (x their target) assembled, max {} registers, {} failures",
        specs.len(),
        jobs.len(),
        max_regs,
        errors.len()
    );
    assert!(errors.is_empty(), "{} kernels failed:\n{}", errors.len(), errors.join("\n"));
}

#[test]
fn a16_matrix_on_emulator() {
    let specs = a16_matrix();
    let errors = par_each(&specs, |i, spec| {
        let (m, n, k) = SHAPES[i % SHAPES.len()];
        let split = 1 + ((i / SHAPES.len()) % 2) as u32;
        let plan = plan_for(spec, m, n, k);
        let mut ex = Emulator::new();
        check_gemm(&mut ex, spec, &plan, (m, n, k), split, i as u64).map(|_| ())
    });
    report!("emulator: {} specs run against the f64 reference, {} failed", specs.len(), errors.len());
    assert!(errors.is_empty(), "{} specs failed, first ones:\n{}", errors.len(), errors[..errors.len().min(20)].join("\n"));
}

/// Generates, prints and assembles each (spec, plan) for the spec's target (and each target's
/// reduce kernel once): the most registers seen, and every failure or spill.
fn assemble_all(jobs: &[(Spec, KernelPlan)]) -> (usize, Vec<String>) {
    let max_regs = AtomicUsize::new(0);
    let reduce_done = Mutex::new(HashSet::new());
    let errors = par_each(jobs, |_, (spec, plan)| {
        let k = generate(spec, plan).map_err(|e| format!("{spec}: {e}"))?;
        let mut kernels = vec![&k.main];
        if reduce_done.lock().unwrap().insert((k.reduce.name.clone(), spec.arch())) {
            kernels.push(&k.reduce);
        }
        for kernel in kernels {
            let ptx = print(kernel, spec.arch()).map_err(|e| format!("{}: {e}", kernel.name))?;
            let r = assemble(&ptx, spec.arch()).map_err(|e| format!("{} ({}): {e}", kernel.name, spec.arch()))?;
            let e = r.entry(&kernel.name).ok_or_else(|| format!("{}: no ptxas report", kernel.name))?;
            max_regs.fetch_max(e.registers as usize, Ordering::Relaxed);
            if e.spill_stores + e.spill_loads > 0 || e.stack_frame > 0 {
                return Err(format!(
                    "{} ({}): {} B spill stores, {} B spill loads, {} B stack",
                    kernel.name,
                    spec.arch(),
                    e.spill_stores,
                    e.spill_loads,
                    e.stack_frame
                ));
            }
        }
        Ok(())
    });
    (max_regs.into_inner(), errors)
}

/// The plans the heuristic gives large layers (wide N, deep K: the runtime's shape-aware plans,
/// which the matrix test's small shape never reaches) assemble without spills, over a stride of
/// the matrix (every target, width and activation type appear).
#[test]
fn a16_large_layer_plans_assemble_without_spills() {
    let specs = a16_matrix();
    let mut seen = HashSet::new();
    let mut jobs: Vec<(Spec, KernelPlan)> = Vec::new();
    for spec in specs.iter().step_by(97) {
        for (m, n, k) in [(16, 8192, 8192), (16, 8192, 28672), (16, 28672, 8192), (128, 8192, 28672), (64, 28672, 8192), (256, 8192, 8192), (256, 28672, 8192)] {
            let plan = plan_for(spec, m, n, k);
            if seen.insert(kernel_name(spec, &plan)) {
                jobs.push((*spec, plan));
            }
        }
    }
    let (max_regs, errors) = assemble_all(&jobs);
    report!("ptxas: {} large-layer kernels assembled, max {} registers, {} failures", jobs.len(), max_regs, errors.len());
    assert!(jobs.len() > 500, "{} kernels", jobs.len());
    assert!(errors.is_empty(), "{} kernels failed:\n{}", errors.len(), errors.join("\n"));
}
