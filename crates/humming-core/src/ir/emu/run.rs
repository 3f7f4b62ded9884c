//! Execution of a lowered [`Program`]: clusters of CTAs one after another (a CTA is a cluster
//! of one without a cluster launch), the CTAs of a cluster taking turns between its
//! `barrier.cluster`s, warps of a CTA scheduled cooperatively (a warp runs until it reaches
//! `bar.sync` or exits), 32 lanes in lockstep.

use crate::ir::emu::error::{Access, EmuError, ThreadRef};
use crate::ir::emu::float::{self, FRnd, Fmt, canon_f32, canon_f64, min_max};
use crate::ir::emu::lower::{
    AtomKind, Conv, FOp, FTy, IntOp, Kind, MadKind, Op, PGuard, Program, SHARED_BASE, SetpKind,
    Src, UnKind,
};
use crate::ir::emu::{GlobalMem, Stats, mma, wgmma};
use crate::ir::{Cmp, LaunchDims, ShflMode, Space, SpecialReg};

const FULL: u32 = u32::MAX;
const UNCOMMITTED: u32 = u32::MAX;

/// A fault inside a warp, before it is given its statement and thread.
#[derive(Debug)]
pub(crate) enum Fault {
    GlobalOob {
        access: Access,
        addr: u64,
        bytes: u32,
    },
    SharedOob {
        access: Access,
        addr: u64,
        bytes: u32,
    },
    Misaligned {
        space: Space,
        access: Access,
        addr: u64,
        align: u32,
    },
    Pending {
        access: Access,
        addr: u32,
        bytes: u32,
        copy_site: u32,
        copy_warp: u32,
        copy_lane: u32,
    },
    /// A shared write over the B operand of an unretired wgmma ([`WgReads`]).
    WgmmaInFlight {
        access: Access,
        addr: u32,
        bytes: u32,
        wgmma_site: u32,
        warpgroup: u32,
    },
    Divergent(&'static str),
    DivZero,
    NotConverged {
        what: &'static str,
        mask: u32,
    },
    Shfl(String),
    Undefined(String),
    StepLimit(u64),
    BeforeGridDepWait {
        access: Access,
        addr: u64,
        bytes: u32,
    },
}

struct Trap {
    pc: usize,
    lane: u32,
    fault: Fault,
}

enum Stop {
    Exit,
    Barrier { id: u32, threads: Option<u32>, aligned: bool },
    /// At a `wgmma` (index into the program's): waits for the rest of its warpgroup.
    Wgmma(u32),
    /// At an mbarrier wait whose phase of parity `parity` (of the barrier at window offset
    /// `at`) has not completed: the warp runs the wait again once it has.
    Mbar { at: u32, parity: u32 },
    /// At a `barrier.cluster`: waits for every warp of the cluster.
    Cluster,
    /// After an mbarrier arrival that completed a phase: ready, but the other warps go first.
    Yield,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WState {
    Ready,
    Waiting,
    /// Suspended at an mbarrier wait ([`Stop::Mbar`]).
    Mbar { at: u32, parity: u32 },
    /// At a `barrier.cluster` ([`Stop::Cluster`]).
    Cluster,
    Exited,
}

/// Where a CTA's warps stopped ([`Runner::step_cta`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CtaStop {
    /// Every warp has exited.
    Done,
    /// Every warp waits at a `barrier.cluster`.
    Cluster,
}

/// A CTA's state: the running one's in [`Runner::cta`], the other CTAs of its cluster parked
/// beside it ([`Runner::swap`]).
#[derive(Default)]
struct CtaState {
    regs: Vec<u64>,
    shared: Vec<u8>,
    cp: CpState,
    warps: Vec<Warp>,
    bars: [Bar; 16],
    ctaid: (u32, u32, u32),
    /// Per warpgroup: the `wgmma` its first waiting warps reached and which of its 4 warps wait.
    wg: Vec<Option<(u32, u8)>>,
}

/// Shared::cluster addresses from `mapa`: CTA `rank`'s window offset `o` is at
/// `CLUSTER_BASE + rank * CLUSTER_STRIDE + o` (above any shared::cta address).
const CLUSTER_BASE: u64 = 1 << 28;
const CLUSTER_STRIDE: u64 = 1 << 24;

#[derive(Clone)]
struct Warp {
    pc: usize,
    active: u32,
    state: WState,
    /// The pc of the `bar.sync` (or `wgmma`) the warp waits at.
    bar_pc: usize,
    /// Past its `griddepcontrol.wait`.
    waited: bool,
}

#[derive(Clone, Copy, Default)]
struct Bar {
    count: u32,
    expected: u32,
    waiters: u64,
    /// The instruction of the phase's first arrival, and whether it was an aligned `bar.sync`:
    /// an aligned barrier's phase has every arrival at that one instruction (PTX: `.aligned`
    /// means that all threads execute the same barrier instruction).
    first_at: usize,
    first_aligned: bool,
}

/// One `cp.async` in flight.
#[derive(Clone, Copy)]
struct PendingCopy {
    /// Offset in the shared window.
    off: u32,
    len: u32,
    data: [u8; 16],
    site: u32,
    warp: u32,
    lane: u32,
    /// The thread's group number, or [`UNCOMMITTED`].
    group: u32,
}

#[derive(Default)]
struct ThreadCp {
    copies: Vec<u32>,
    committed: u32,
    retired: u32,
}

/// An `mbarrier` of the CTA (keyed by its window offset): the arrivals per phase, those and the
/// transaction bytes still outstanding in the current phase, the phases completed, and the
/// 16-byte pieces of bulk copies completing on it (`current`: this phase's; `done`: those of
/// completed phases, written to shared memory at the next successful wait).
struct Mbar {
    count: u32,
    pending: u32,
    tx: i64,
    phase: u32,
    current: Vec<u32>,
    done: Vec<u32>,
}

/// Pending `cp.async` copies of a CTA: a shadow map over the shared window (one entry per
/// 4-byte word: 0, or 1 + the index of the pending copy writing it) and per-thread groups; and
/// its mbarriers, with the pieces of their bulk copies in the same shadow map.
#[derive(Default)]
struct CpState {
    shadow: Vec<u32>,
    slab: Vec<PendingCopy>,
    free: Vec<u32>,
    live: usize,
    threads: Vec<ThreadCp>,
    mbars: std::collections::HashMap<u32, Mbar>,
    wg: WgReads,
}

/// The shared bytes that `wgmma`s read as B and whose groups their warpgroups have not retired
/// yet (`wgmma.wait_group`): the emulator computes a wgmma at once, but the hardware may read B
/// any time until then, so a write there before is a race ([`Fault::WgmmaInFlight`]). Counts per
/// 16-byte chunk of the window; groups per warpgroup, retired once all four warps have waited
/// for them.
#[derive(Default)]
struct WgReads {
    chunks: Vec<u16>,
    /// Chunk references in flight (0: nothing to check).
    live: usize,
    groups: Vec<WgGroups>,
}

#[derive(Default)]
struct WgGroups {
    /// The chunks read since the last commit, with the wgmma's site.
    open: Vec<(u32, u32)>,
    /// Committed groups, oldest first: (group number, chunks with sites).
    committed: std::collections::VecDeque<(u32, Vec<(u32, u32)>)>,
    /// Groups formed so far, and per warp the groups it committed and those it has retired.
    formed: u32,
    commits: [u32; 4],
    retired: [u32; 4],
}

impl WgReads {
    fn reset(&mut self, window: usize) {
        if self.live > 0 || self.chunks.len() != window.div_ceil(16) {
            self.chunks.clear();
            self.chunks.resize(window.div_ceil(16), 0);
        }
        self.live = 0;
        self.groups.clear();
    }

    /// The counts, the live total and warpgroup `q`'s groups (created on first use), borrowed
    /// apart.
    fn parts(&mut self, q: usize) -> (&mut [u16], &mut usize, &mut WgGroups) {
        if self.groups.len() <= q {
            self.groups.resize_with(q + 1, WgGroups::default);
        }
        (&mut self.chunks, &mut self.live, &mut self.groups[q])
    }

    /// Warpgroup `q`'s wgmma at `site` read the 16-byte chunks `chunks` of the window.
    fn read(&mut self, q: usize, site: u32, chunks: impl Iterator<Item = u32>) {
        let (counts, live, g) = self.parts(q);
        for c in chunks {
            counts[c as usize] += 1;
            g.open.push((c, site));
            *live += 1;
        }
    }

    /// `wgmma.commit_group` by warp `w`: the first of the warpgroup's warps to commit its n-th
    /// group forms it from the reads since the last one.
    fn commit(&mut self, w: usize) {
        let (_, _, g) = self.parts(w / 4);
        let i = w % 4;
        if g.commits[i] == g.formed {
            let open = std::mem::take(&mut g.open);
            g.committed.push_back((g.formed, open));
            g.formed += 1;
        }
        g.commits[i] += 1;
    }

    /// `wgmma.wait_group n` by warp `w`: its groups but the newest `n` are retired; those all
    /// four warps have retired stop counting.
    fn wait(&mut self, w: usize, n: u32) {
        let (counts, live, g) = self.parts(w / 4);
        let i = w % 4;
        g.retired[i] = g.retired[i].max(g.commits[i].saturating_sub(n));
        let done = *g.retired.iter().min().expect("four warps");
        while g.committed.front().is_some_and(|(k, _)| *k < done) {
            for (c, _) in g.committed.pop_front().expect("front").1 {
                counts[c as usize] -= 1;
                *live -= 1;
            }
        }
    }

    /// The unretired wgmma read (its site, warpgroup) overlapping window bytes `[off, off + len)`.
    fn overlap(&self, off: usize, len: u32) -> Option<(u32, u32)> {
        if self.live == 0 || len == 0 {
            return None;
        }
        let (first, last) = (off / 16, (off + len as usize - 1) / 16);
        if self.chunks[first..=last].iter().all(|&c| c == 0) {
            return None;
        }
        self.groups.iter().enumerate().find_map(|(q, g)| {
            g.committed.iter().flat_map(|(_, v)| v.iter()).chain(g.open.iter()).find(|(c, _)| (first..=last).contains(&(*c as usize))).map(|&(_, site)| (site, q as u32))
        })
    }
}

impl CpState {
    fn reset(&mut self, window: usize, threads: usize) {
        if self.live > 0 || self.shadow.len() != window.div_ceil(4) {
            self.shadow.clear();
            self.shadow.resize(window.div_ceil(4), 0);
        }
        self.slab.clear();
        self.free.clear();
        self.live = 0;
        self.mbars.clear();
        self.wg.reset(window);
        self.threads.resize_with(threads, ThreadCp::default);
        for t in &mut self.threads {
            t.copies.clear();
            t.committed = 0;
            t.retired = 0;
        }
    }

    /// The pending copy overlapping `[off, off + len)`, if any.
    #[inline]
    fn overlap(&self, off: usize, len: u32) -> Option<&PendingCopy> {
        if self.live == 0 || len == 0 {
            return None;
        }
        let first = off / 4;
        let last = (off + len as usize - 1) / 4;
        self.shadow[first..=last]
            .iter()
            .find(|&&s| s != 0)
            .map(|&s| &self.slab[s as usize - 1])
    }

    fn issue(&mut self, tid: usize, copy: PendingCopy) {
        let idx = self.add(copy);
        self.threads[tid].copies.push(idx);
    }

    /// Records a pending copy in the slab and the shadow map; its index.
    fn add(&mut self, copy: PendingCopy) -> u32 {
        let idx = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = copy;
                i
            }
            None => {
                self.slab.push(copy);
                self.slab.len() as u32 - 1
            }
        };
        self.shadow[copy.off as usize / 4..(copy.off + copy.len) as usize / 4].fill(idx + 1);
        self.live += 1;
        idx
    }

    /// Writes pending copy `ci` to shared memory and forgets it.
    fn land(&mut self, ci: u32, shared: &mut [u8]) {
        let c = &self.slab[ci as usize];
        let off = c.off as usize;
        shared[off..off + c.len as usize].copy_from_slice(&c.data[..c.len as usize]);
        self.shadow[off / 4..(off + c.len as usize) / 4].fill(0);
        self.free.push(ci);
        self.live -= 1;
    }

    fn mbar_init(&mut self, at: u32, count: u32) -> Result<(), Fault> {
        if self.mbars.get(&at).is_some_and(|m| !m.current.is_empty() || !m.done.is_empty()) {
            return Err(Fault::Undefined("mbarrier.init of a barrier with bulk copies in flight".into()));
        }
        self.mbars.insert(at, Mbar { count, pending: count, tx: 0, phase: 0, current: Vec::new(), done: Vec::new() });
        Ok(())
    }

    fn mbar(&mut self, at: u32) -> Result<&mut Mbar, Fault> {
        self.mbars.get_mut(&at).ok_or_else(|| uninit_mbar(at))
    }

    /// One arrival that also expects `bytes` more transaction bytes.
    fn mbar_expect_arrive(&mut self, at: u32, bytes: u32) -> Result<(), Fault> {
        let m = self.mbar(at)?;
        m.tx += i64::from(bytes);
        m.pending -= 1;
        Self::progress(m);
        Ok(())
    }

    /// A bulk copy of `data` to window offset `off` completing on the barrier at `at`: recorded
    /// as pending 16-byte pieces until a wait observes the phase they complete in.
    fn bulk(&mut self, at: u32, off: usize, data: &[u8], site: u32, warp: u32, lane: u32) -> Result<(), Fault> {
        self.mbar(at)?;
        let mut pieces = Vec::with_capacity(data.len() / 16);
        for (i, chunk) in data.chunks(16).enumerate() {
            let mut d = [0u8; 16];
            d.copy_from_slice(chunk);
            pieces.push(self.add(PendingCopy { off: (off + 16 * i) as u32, len: 16, data: d, site, warp, lane, group: UNCOMMITTED }));
        }
        let m = self.mbar(at)?;
        m.current.extend(pieces);
        m.tx -= data.len() as i64;
        Self::progress(m);
        Ok(())
    }

    /// One arrival on the barrier at `at`; with `cp` (`cp.async.mbarrier.arrive.noinc`) the
    /// thread's pending `cp.async` copies complete with this phase (they land at a wait that
    /// observes it, like bulk copies).
    /// An arrival on the barrier at `at` (with the thread's pending copies for `cp`): whether
    /// it completed the phase.
    fn mbar_arrive(&mut self, at: u32, tid: usize, cp: bool) -> Result<bool, Fault> {
        let copies = if cp { std::mem::take(&mut self.threads[tid].copies) } else { Vec::new() };
        let m = self.mbar(at)?;
        m.current.extend(copies);
        m.pending -= 1;
        let phase = m.phase;
        Self::progress(m);
        Ok(m.phase != phase)
    }

    /// Whether the phase of parity `parity` of the barrier at `at` has completed.
    fn mbar_done(&self, at: u32, parity: u32) -> Result<bool, Fault> {
        let m = self.mbars.get(&at).ok_or_else(|| uninit_mbar(at))?;
        Ok(m.phase & 1 != parity)
    }

    /// Completes the current phase when no arrival and no transaction byte is outstanding.
    fn progress(m: &mut Mbar) {
        if m.pending == 0 && m.tx == 0 {
            m.phase += 1;
            m.pending = m.count;
            let cur = std::mem::take(&mut m.current);
            m.done.extend(cur);
        }
    }

    /// The end of a successful `mbarrier.try_wait.parity` on the barrier at `at` (whose phase
    /// [`CpState::mbar_done`] has found complete; a warp that reaches the wait earlier is
    /// suspended until then, [`Stop::Mbar`]): the copies of completed phases land in shared
    /// memory.
    fn mbar_land(&mut self, at: u32, shared: &mut [u8]) {
        let done = self.mbars.get_mut(&at).map(|m| std::mem::take(&mut m.done)).unwrap_or_default();
        for ci in done {
            self.land(ci, shared);
        }
    }

    fn commit(&mut self, tid: usize) {
        let t = &mut self.threads[tid];
        for &c in &t.copies {
            let c = &mut self.slab[c as usize];
            if c.group == UNCOMMITTED {
                c.group = t.committed;
            }
        }
        t.committed += 1;
    }

    fn wait(&mut self, tid: usize, n: u32, shared: &mut [u8]) {
        let CpState {
            shadow,
            slab,
            free,
            live,
            threads,
            ..
        } = self;
        let t = &mut threads[tid];
        while t.committed - t.retired > n {
            let g = t.retired;
            t.copies.retain(|&ci| {
                let c = &slab[ci as usize];
                if c.group != g {
                    return true;
                }
                let off = c.off as usize;
                shared[off..off + c.len as usize].copy_from_slice(&c.data[..c.len as usize]);
                shadow[off / 4..(off + c.len as usize) / 4].fill(0);
                free.push(ci);
                *live -= 1;
                false
            });
            t.retired += 1;
        }
    }
}

/// An mbarrier used before its `mbarrier.init`.
fn uninit_mbar(at: u32) -> Fault {
    Fault::Undefined(format!("mbarrier at shared offset {at:#x} used before mbarrier.init"))
}

/// The 8-byte aligned window address of an mbarrier operand.
fn mbar_addr(regs: &[u64], addr: Src, off: i64, l: usize) -> Result<u64, Fault> {
    let a = rd(regs, addr, l).wrapping_add(off as u64);
    if a % 8 != 0 {
        return Err(Fault::Misaligned { space: Space::Shared, access: Access::Mbarrier, addr: a, align: 8 });
    }
    Ok(a)
}

/// Bounds and pending-`cp.async` check of a shared access of `len` bytes at window address
/// `addr`; the offset in the window.
fn shared_offset(cp: &CpState, window_end: u64, addr: u64, len: u32, access: Access) -> Result<usize, Fault> {
    if addr < SHARED_BASE as u64 || addr.saturating_add(len as u64) > window_end {
        return Err(Fault::SharedOob { access, addr, bytes: len });
    }
    let off = (addr - SHARED_BASE as u64) as usize;
    if let Some(c) = cp.overlap(off, len) {
        return Err(Fault::Pending {
            access,
            addr: addr as u32,
            bytes: len,
            copy_site: c.site,
            copy_warp: c.warp,
            copy_lane: c.lane,
        });
    }
    if matches!(access, Access::Store | Access::CpAsyncDst | Access::BulkDst) {
        if let Some((wgmma_site, warpgroup)) = cp.wg.overlap(off, len) {
            return Err(Fault::WgmmaInFlight { access, addr: addr as u32, bytes: len, wgmma_site, warpgroup });
        }
    }
    Ok(off)
}

/// Per-launch constants and the current CTA's state.
pub(crate) struct Runner<'p, 'k> {
    prog: &'p Program<'k>,
    dims: LaunchDims,
    stride: usize,
    poison: Vec<u64>,
    /// The running CTA.
    cta: CtaState,
    steps: u64,
    step_limit: u64,
    mma_scratch: mma::Scratch,
    /// The current cluster's other CTAs by rank (the running one's slot is empty while it runs).
    parked: Vec<CtaState>,
    /// The current CTA's rank in its cluster.
    rank: usize,
    pub(crate) stats: Stats,
}

#[inline(always)]
fn rd(regs: &[u64], s: Src, l: usize) -> u64 {
    match s {
        Src::R(b) => regs[b as usize + l],
        Src::I(v) => v,
    }
}

/// Calls `f` for each lane set in `mask`, in lane order.
#[inline(always)]
fn lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == FULL {
        for l in 0..32 {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            f(l);
        }
    }
}

/// Like [`lanes`], stopping at the first error (returned with its lane).
#[inline(always)]
fn try_lanes(mask: u32, mut f: impl FnMut(usize) -> Result<(), Fault>) -> Result<(), (u32, Fault)> {
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        f(l).map_err(|e| (l as u32, e))?;
    }
    Ok(())
}

#[inline(always)]
fn map1(regs: &mut [u64], mask: u32, dst: u32, a: Src, f: impl Fn(u64) -> u64) {
    let d = dst as usize;
    lanes(mask, |l| {
        let v = f(rd(regs, a, l));
        regs[d + l] = v;
    });
}

#[inline(always)]
fn map2(regs: &mut [u64], mask: u32, dst: u32, a: Src, b: Src, f: impl Fn(u64, u64) -> u64) {
    let d = dst as usize;
    lanes(mask, |l| {
        let v = f(rd(regs, a, l), rd(regs, b, l));
        regs[d + l] = v;
    });
}

#[inline(always)]
fn map3(
    regs: &mut [u64],
    mask: u32,
    dst: u32,
    a: Src,
    b: Src,
    c: Src,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let d = dst as usize;
    lanes(mask, |l| {
        let v = f(rd(regs, a, l), rd(regs, b, l), rd(regs, c, l));
        regs[d + l] = v;
    });
}

#[inline(always)]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
#[inline(always)]
fn sext(v: u64, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v << s) as i64) >> s
}

fn guard_mask(regs: &[u64], g: PGuard) -> u32 {
    let base = g.slot as usize;
    let mut m = 0u32;
    for (l, v) in regs[base..base + 32].iter().enumerate() {
        m |= ((*v & 1) as u32) << l;
    }
    if g.negate { !m } else { m }
}

/// The value of `s` if it is the same on every lane of `mask` (non-empty), else the first
/// lane that differs from the first lane.
fn uniform(regs: &[u64], s: Src, mask: u32) -> Result<u64, u32> {
    match s {
        Src::I(v) => Ok(v),
        Src::R(b) => {
            let first = mask.trailing_zeros() as usize;
            let v = regs[b as usize + first];
            let mut m = mask;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                if regs[b as usize + l] != v {
                    return Err(l as u32);
                }
            }
            Ok(v)
        }
    }
}

fn read_le(b: &[u8]) -> u64 {
    let mut v = 0u64;
    for (i, x) in b.iter().enumerate() {
        v |= (*x as u64) << (8 * i);
    }
    v
}

fn write_le(b: &mut [u8], v: u64) {
    for (i, x) in b.iter_mut().enumerate() {
        *x = (v >> (8 * i)) as u8;
    }
}

fn int_op(op: IntOp, a: u64, b: u64) -> Option<u64> {
    Some(match op {
        IntOp::Add(m) => a.wrapping_add(b) & m,
        IntOp::Sub(m) => a.wrapping_sub(b) & m,
        IntOp::MulLo(m) => a.wrapping_mul(b) & m,
        IntOp::MulHiU(bits) => ((a as u128 * b as u128) >> bits) as u64 & mask(bits),
        IntOp::MulHiS(bits) => {
            ((sext(a, bits) as i128 * sext(b, bits) as i128) >> bits) as u64 & mask(bits)
        }
        IntOp::MulWideU(bits) => a.wrapping_mul(b) & mask(2 * bits),
        IntOp::MulWideS(bits) => {
            (sext(a, bits).wrapping_mul(sext(b, bits))) as u64 & mask(2 * bits)
        }
        IntOp::DivU => a.checked_div(b)?,
        IntOp::DivS(bits) => {
            if b == 0 {
                return None;
            }
            sext(a, bits).wrapping_div(sext(b, bits)) as u64 & mask(bits)
        }
        IntOp::RemU => a.checked_rem(b)?,
        IntOp::RemS(bits) => {
            if b == 0 {
                return None;
            }
            sext(a, bits).wrapping_rem(sext(b, bits)) as u64 & mask(bits)
        }
        IntOp::MinU => a.min(b),
        IntOp::MaxU => a.max(b),
        IntOp::MinS(bits) => {
            if sext(a, bits) <= sext(b, bits) {
                a
            } else {
                b
            }
        }
        IntOp::MaxS(bits) => {
            if sext(a, bits) >= sext(b, bits) {
                a
            } else {
                b
            }
        }
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Shl(bits) => {
            if b >= bits as u64 {
                0
            } else {
                (a << b) & mask(bits)
            }
        }
        IntOp::ShrU(bits) => {
            if b >= bits as u64 {
                0
            } else {
                a >> b
            }
        }
        IntOp::ShrS(bits) => (sext(a, bits) >> b.min(63)) as u64 & mask(bits),
    })
}

fn half_lanes(x2: bool) -> u32 {
    if x2 { 2 } else { 1 }
}

fn flt_op(op: FOp, ty: FTy, a: u64, b: u64) -> u64 {
    match ty {
        FTy::F32 => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            (match op {
                FOp::Add => canon_f32(x + y),
                FOp::Sub => canon_f32(x - y),
                FOp::Mul => canon_f32(x * y),
                FOp::Div => canon_f32(x / y),
                FOp::Min | FOp::Max => {
                    min_max(x as f64, a, y as f64, b, op == FOp::Max, Fmt::F32) as u32
                }
            }) as u64
        }
        FTy::F64 => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            match op {
                FOp::Add => canon_f64(x + y),
                FOp::Sub => canon_f64(x - y),
                FOp::Mul => canon_f64(x * y),
                FOp::Div => canon_f64(x / y),
                FOp::Min | FOp::Max => min_max(x, a, y, b, op == FOp::Max, Fmt::F64),
            }
        }
        FTy::Half { fmt, x2 } => {
            let mut out = 0u64;
            for h in 0..half_lanes(x2) {
                let (ab, bb) = ((a >> (16 * h)) & 0xffff, (b >> (16 * h)) & 0xffff);
                let (x, y) = (fmt.decode(ab), fmt.decode(bb));
                let r = match op {
                    FOp::Add => float::add_round(x, y, fmt, FRnd::Rn),
                    FOp::Sub => float::add_round(x, -y, fmt, FRnd::Rn),
                    FOp::Mul => float::round(x * y, 0, fmt, FRnd::Rn, false),
                    FOp::Min | FOp::Max => min_max(x, ab, y, bb, op == FOp::Max, fmt),
                    FOp::Div => unreachable!("rejected at lowering"),
                };
                out |= r << (16 * h);
            }
            out
        }
    }
}

fn fma_op(ty: FTy, rnd: FRnd, a: u64, b: u64, c: u64) -> u64 {
    match ty {
        FTy::F32 => {
            let (x, y, z) = (
                f32::from_bits(a as u32),
                f32::from_bits(b as u32),
                f32::from_bits(c as u32),
            );
            if rnd == FRnd::Rn {
                canon_f32(x.mul_add(y, z)) as u64
            } else {
                float::fma_round(x as f64, y as f64, z as f64, Fmt::F32, rnd)
            }
        }
        FTy::F64 => canon_f64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c))),
        FTy::Half { fmt, x2 } => {
            let mut out = 0u64;
            for h in 0..half_lanes(x2) {
                let sh = 16 * h;
                let (x, y, z) = (
                    fmt.decode((a >> sh) & 0xffff),
                    fmt.decode((b >> sh) & 0xffff),
                    fmt.decode((c >> sh) & 0xffff),
                );
                out |= float::fma_round(x, y, z, fmt, FRnd::Rn) << sh;
            }
            out
        }
    }
}

fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut r = 0u64;
    for i in 0..8 {
        if lut >> i & 1 == 1 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            r |= x & y & z;
        }
    }
    r & 0xffff_ffff
}

fn prmt(a: u64, b: u64, sel: u64) -> u64 {
    let x = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let mut d = 0u64;
    for i in 0..4 {
        let s = (sel >> (4 * i)) & 0xf;
        let mut byte = (x >> (8 * (s & 7))) & 0xff;
        if s & 8 != 0 {
            byte = if byte & 0x80 != 0 { 0xff } else { 0 };
        }
        d |= byte << (8 * i);
    }
    d
}

fn bfe(a: u64, pos: u64, len: u64, bits: u32, signed: bool) -> u64 {
    let msb = bits - 1;
    let pos = (pos & 0xff) as u32;
    let len = (len & 0xff) as u32;
    let sbit = if !signed || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    let mut d = 0u64;
    for i in 0..bits {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Extends a `bits`-wide result to the destination register width.
fn extend(v: u64, bits: u32, signed: bool, wbits: u32) -> u64 {
    if signed {
        sext(v, bits) as u64 & mask(wbits)
    } else {
        v & mask(bits)
    }
}

fn cvt(conv: Conv, v: u64, wbits: u32) -> u64 {
    match conv {
        Conv::II {
            sbits,
            ssigned,
            dbits,
            dsigned,
            sat,
        } => {
            let x: i128 = if ssigned {
                sext(v, sbits) as i128
            } else {
                (v & mask(sbits)) as i128
            };
            let x = if sat {
                let (lo, hi) = int_range(dbits, dsigned);
                x.clamp(lo, hi)
            } else {
                x
            };
            extend(x as u64 & mask(dbits), dbits, dsigned, wbits)
        }
        Conv::FI {
            src,
            dbits,
            dsigned,
            rnd,
        } => {
            let f = src.decode(v & mask(src.bits()));
            let r = if f.is_nan() {
                if src == Fmt::F64 || dbits == 64 {
                    1u64 << (dbits - 1)
                } else {
                    0
                }
            } else {
                let x = rnd.apply(f);
                let (lo, hi) = int_range(dbits, dsigned);
                let i: i128 = if x <= lo as f64 {
                    lo
                } else if x >= hi as f64 {
                    hi
                } else {
                    x as i128
                };
                i as u64 & mask(dbits)
            };
            extend(r, dbits, dsigned, wbits)
        }
        Conv::IF {
            sbits,
            ssigned,
            dst,
            rnd,
        } => {
            let x: i128 = if ssigned {
                sext(v, sbits) as i128
            } else {
                (v & mask(sbits)) as i128
            };
            let s = x as f64;
            let err = x - s as i128;
            float::round(s, err.signum() as i32, dst, rnd, false)
        }
        Conv::FF { src, dst, rnd, sat } => {
            let f = src.decode(v & mask(src.bits()));
            let r = float::round(f, 0, dst, rnd, false);
            if sat { sat01(r, dst) } else { r }
        }
        Conv::FRound { fmt, rnd, sat } => {
            let f = fmt.decode(v & mask(fmt.bits()));
            let r = float::round(rnd.apply(f), 0, fmt, FRnd::Rn, false);
            if sat { sat01(r, fmt) } else { r }
        }
        Conv::Fp8x2ToH2 { src } => {
            let one = |b: u64| float::round(src.decode(b & 0xff), 0, Fmt::F16, FRnd::Rn, false);
            one(v) | (one(v >> 8) << 16)
        }
        Conv::H2ToFp8x2 { dst } => {
            let one = |h: u64| float::round(Fmt::F16.decode(h & 0xffff), 0, dst, FRnd::Rn, true);
            one(v) | (one(v >> 16) << 8)
        }
    }
}

/// `.sat` on a float result: clamp to [0, 1], NaN to +0.
fn sat01(bits: u64, fmt: Fmt) -> u64 {
    let x = fmt.decode(bits);
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        float::round(1.0, 0, fmt, FRnd::Rn, false)
    } else {
        bits
    }
}

fn setp(kind: SetpKind, cmp: Cmp, a: u64, b: u64) -> bool {
    use std::cmp::Ordering;
    match kind {
        SetpKind::Int { signed, bits } => {
            let ord = if signed {
                sext(a, bits).cmp(&sext(b, bits))
            } else {
                a.cmp(&b)
            };
            match cmp {
                Cmp::Eq => ord == Ordering::Equal,
                Cmp::Ne => ord != Ordering::Equal,
                Cmp::Lt | Cmp::Lo => ord == Ordering::Less,
                Cmp::Le | Cmp::Ls => ord != Ordering::Greater,
                Cmp::Gt | Cmp::Hi => ord == Ordering::Greater,
                Cmp::Ge | Cmp::Hs => ord != Ordering::Less,
            }
        }
        SetpKind::Float(fmt) => {
            let (x, y) = (fmt.decode(a), fmt.decode(b));
            if x.is_nan() || y.is_nan() {
                return false;
            }
            match cmp {
                Cmp::Eq => x == y,
                Cmp::Ne => x != y,
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Gt => x > y,
                Cmp::Ge => x >= y,
                _ => unreachable!("rejected at lowering"),
            }
        }
    }
}

/// Applies an atomic operation; returns the new memory value.
fn atom_apply(kind: AtomKind, size: u8, global: bool, old: u64, b: u64, c: u64) -> u64 {
    let bits = size as u32 * 8;
    let m = mask(bits);
    match kind {
        AtomKind::AddInt => old.wrapping_add(b) & m,
        AtomKind::AddF32 => {
            let ftz = |x: f32| {
                if global && x.is_subnormal() {
                    0.0f32.copysign(x)
                } else {
                    x
                }
            };
            let r = ftz(ftz(f32::from_bits(old as u32)) + ftz(f32::from_bits(b as u32)));
            canon_f32(r) as u64
        }
        AtomKind::AddF64 => canon_f64(f64::from_bits(old) + f64::from_bits(b)),
        AtomKind::MinU => old.min(b),
        AtomKind::MaxU => old.max(b),
        AtomKind::MinS => {
            if sext(old, bits) <= sext(b, bits) {
                old
            } else {
                b
            }
        }
        AtomKind::MaxS => {
            if sext(old, bits) >= sext(b, bits) {
                old
            } else {
                b
            }
        }
        AtomKind::And => old & b,
        AtomKind::Or => old | b,
        AtomKind::Xor => old ^ b,
        AtomKind::Exch => b,
        AtomKind::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
    }
}

impl<'p, 'k> Runner<'p, 'k> {
    pub(crate) fn new(prog: &'p Program<'k>, dims: LaunchDims, step_limit: Option<u64>) -> Self {
        let stride = prog.nregs * 32;
        let mut poison = vec![0u64; stride];
        for (i, c) in prog.classes.iter().enumerate() {
            let v = if *c == crate::ir::RegClass::Pred {
                0
            } else {
                mask(c.bits())
            };
            poison[i * 32..(i + 1) * 32].fill(v);
        }
        let nwarps = dims.block.div_ceil(32) as usize;
        let window = (prog.shared_end - SHARED_BASE) as usize;
        let mut warps = Vec::with_capacity(nwarps);
        for w in 0..nwarps {
            let lanes = (dims.block - 32 * w as u32).min(32);
            let active = if lanes == 32 {
                FULL
            } else {
                (1u32 << lanes) - 1
            };
            warps.push(Warp {
                pc: 0,
                active,
                state: WState::Ready,
                bar_pc: 0,
                waited: false,
            });
        }
        Runner {
            prog,
            dims,
            stride,
            poison,
            cta: CtaState { regs: vec![0; stride * nwarps], shared: vec![0xff; window], warps, ..CtaState::default() },
            steps: 0,
            step_limit: step_limit.unwrap_or(u64::MAX),
            mma_scratch: mma::Scratch::default(),
            parked: Vec::new(),
            rank: 0,
            stats: Stats::default(),
        }
    }

    fn thread(&self, warp: usize, lane: u32) -> ThreadRef {
        ThreadRef {
            cta: self.cta.ctaid,
            warp: warp as u32,
            lane,
        }
    }

    fn to_error(&self, warp: usize, trap: Trap) -> EmuError {
        let op: &Op = &self.prog.ops[trap.pc];
        let site = self.prog.site(op.site);
        let thread = self.thread(warp, trap.lane);
        let window = (SHARED_BASE, self.prog.shared_end);
        match trap.fault {
            Fault::GlobalOob {
                access,
                addr,
                bytes,
            } => EmuError::GlobalOutOfBounds {
                site,
                thread,
                access,
                addr,
                bytes,
            },
            Fault::SharedOob {
                access,
                addr,
                bytes,
            } => EmuError::SharedOutOfBounds {
                site,
                thread,
                access,
                addr,
                bytes,
                window,
            },
            Fault::Misaligned {
                space,
                access,
                addr,
                align,
            } => EmuError::Misaligned {
                site,
                thread,
                space,
                access,
                addr,
                align,
            },
            Fault::Pending {
                access,
                addr,
                bytes,
                copy_site,
                copy_warp,
                copy_lane,
            } => EmuError::PendingCpAsync {
                site,
                thread,
                access,
                addr,
                bytes,
                copy_site: self.prog.site(copy_site),
                copy_thread: self.thread(copy_warp as usize, copy_lane),
            },
            Fault::WgmmaInFlight { access, addr, bytes, wgmma_site, warpgroup } => EmuError::WgmmaReadInFlight {
                site,
                thread,
                access,
                addr,
                bytes,
                wgmma_site: self.prog.site(wgmma_site),
                warpgroup,
            },
            Fault::Divergent(what) => EmuError::Divergent { site, thread, what },
            Fault::DivZero => EmuError::DivideByZero { site, thread },
            Fault::NotConverged { what, mask } => EmuError::NotConverged {
                site,
                thread,
                what,
                mask,
            },
            Fault::Shfl(reason) => EmuError::Shfl {
                site,
                thread,
                reason,
            },
            Fault::Undefined(reason) => EmuError::UndefinedBehavior {
                site,
                thread,
                reason,
            },
            Fault::StepLimit(limit) => EmuError::StepLimit {
                site,
                thread,
                limit,
            },
            Fault::BeforeGridDepWait { access, addr, bytes } => EmuError::BeforeGridDepWait {
                site,
                thread,
                access,
                addr,
                bytes,
            },
        }
    }

    /// Runs every CTA of the grid, cluster by cluster: the CTAs of a cluster take turns, each
    /// running until all its warps wait at a `barrier.cluster` (or have exited), so that
    /// `ld.shared::cluster` sees what the others wrote before the barrier.
    pub(crate) fn run(&mut self, mem: &mut GlobalMem) -> Result<(), EmuError> {
        let (gx, gy, gz) = self.dims.grid;
        let (cx, cy, cz) = self.dims.cluster;
        let n = (cx * cy * cz) as usize;
        for z0 in (0..gz).step_by(cz as usize) {
            for y0 in (0..gy).step_by(cy as usize) {
                for x0 in (0..gx).step_by(cx as usize) {
                    // Rank r of the cluster: x fastest, then y, then z.
                    let ctaid = |r: u32| (x0 + r % cx, y0 + r / cx % cy, z0 + r / (cx * cy));
                    self.run_cluster(mem, n, ctaid)?;
                    self.stats.ctas += n as u64;
                }
            }
        }
        Ok(())
    }

    fn run_cluster(&mut self, mem: &mut GlobalMem, n: usize, ctaid: impl Fn(u32) -> (u32, u32, u32)) -> Result<(), EmuError> {
        // The running CTA's state is `cta`, the others' in `parked` (empty slots: no allocation
        // without a cluster).
        self.parked.resize_with(n, CtaState::default);
        for r in 0..n {
            if r > 0 {
                self.parked[r] = CtaState { regs: vec![0; self.cta.regs.len()], shared: vec![0; self.cta.shared.len()], warps: self.cta.warps.clone(), ..CtaState::default() };
                self.swap(r - 1, r);
            }
            self.cta.ctaid = ctaid(r as u32);
            self.init_cta();
        }
        // How each CTA last stopped; `None` while it can run.
        let mut stops: Vec<Option<CtaStop>> = vec![None; n];
        let mut cur = n - 1;
        loop {
            stops[cur] = Some(self.step_cta(mem)?);
            let next = match (1..=n).map(|i| (cur + i) % n).find(|&r| stops[r].is_none()) {
                Some(r) => r,
                None if stops.iter().all(|s| *s == Some(CtaStop::Done)) => return Ok(()),
                None => {
                    // Every CTA waits at the cluster barrier or has exited.
                    if let Some(r) = stops.iter().position(|s| *s == Some(CtaStop::Done)) {
                        let waiting = stops.iter().position(|s| *s == Some(CtaStop::Cluster)).expect("not all done");
                        self.swap(cur, waiting);
                        return Err(self.cluster_deadlock(format!(
                            "barrier.cluster: CTA rank {r} of the cluster exited while this one waits at the barrier"
                        )));
                    }
                    for (r, stop) in stops.iter_mut().enumerate() {
                        *stop = None;
                        let warps = if r == cur { &mut self.cta.warps } else { &mut self.parked[r].warps };
                        for warp in warps.iter_mut().filter(|w| w.state == WState::Cluster) {
                            warp.state = WState::Ready;
                        }
                    }
                    self.stats.barriers += 1;
                    (cur + 1) % n
                }
            };
            self.swap(cur, next);
            cur = next;
        }
    }

    /// Parks the current CTA (rank `cur`) and makes the parked rank `next` current (nothing
    /// when they are the same).
    fn swap(&mut self, cur: usize, next: usize) {
        if cur == next {
            return;
        }
        let st = std::mem::take(&mut self.parked[next]);
        self.parked[cur] = std::mem::replace(&mut self.cta, st);
        self.rank = next;
    }

    fn cluster_deadlock(&self, why: String) -> EmuError {
        let w = self.cta.warps.iter().position(|w| w.state == WState::Cluster).unwrap_or(0);
        let trap = Trap { pc: self.cta.warps[w].bar_pc, lane: self.cta.warps[w].active.trailing_zeros(), fault: Fault::Undefined(why) };
        self.to_error(w, trap)
    }

    /// Resets the current CTA's warps, registers, shared memory and barriers.
    fn init_cta(&mut self) {
        let nwarps = self.cta.warps.len();
        for (w, warp) in self.cta.warps.iter_mut().enumerate() {
            warp.pc = 0;
            warp.state = WState::Ready;
            self.cta.regs[w * self.stride..(w + 1) * self.stride].copy_from_slice(&self.poison);
        }
        self.cta.shared.fill(0xff);
        self.cta.cp.reset(self.cta.shared.len(), nwarps * 32);
        self.cta.bars = [Bar::default(); 16];
        self.cta.wg = vec![None; nwarps.div_ceil(4)];
    }

    /// Runs the current CTA's warps until all have exited or all wait at a `barrier.cluster`.
    fn step_cta(&mut self, mem: &mut GlobalMem) -> Result<CtaStop, EmuError> {
        let nwarps = self.cta.warps.len();
        let mut cur = 0usize;
        loop {
            let cp = &self.cta.cp;
            let Some(w) = (0..nwarps).map(|i| (cur + i) % nwarps).find(|&w| match self.cta.warps[w].state {
                WState::Ready => true,
                WState::Mbar { at, parity } => cp.mbar_done(at, parity).unwrap_or(true),
                _ => false,
            }) else {
                if self.cta.warps.iter().all(|w| w.state == WState::Exited) {
                    return Ok(CtaStop::Done);
                }
                if self.cta.warps.iter().all(|w| w.state == WState::Cluster) {
                    return Ok(CtaStop::Cluster);
                }
                if self.cta.warps.iter().any(|w| w.state == WState::Cluster) && self.cta.warps.iter().all(|w| matches!(w.state, WState::Cluster | WState::Exited)) {
                    return Err(self.cluster_deadlock("barrier.cluster: warps of this CTA exited while others wait at the barrier".into()));
                }
                // A warp at an mbarrier wait that nothing can complete any more.
                if let Some((w, WState::Mbar { at, parity })) = self.cta.warps.iter().enumerate().map(|(i, x)| (i, x.state)).find(|(_, s)| matches!(s, WState::Mbar { .. })) {
                    let m = &self.cta.cp.mbars[&at];
                    let why = format!(
                        "mbarrier wait for the phase of parity {parity}, which has not completed ({} arrivals and {} transaction bytes outstanding) and cannot: every other warp waits or has exited",
                        m.pending, m.tx
                    );
                    let trap = Trap { pc: self.cta.warps[w].bar_pc, lane: self.cta.warps[w].active.trailing_zeros(), fault: Fault::Undefined(why) };
                    return Err(self.to_error(w, trap));
                }
                return Err(self.deadlock());
            };
            match self.run_warp(w, mem) {
                Ok(Stop::Exit) => self.cta.warps[w].state = WState::Exited,
                Ok(Stop::Barrier { id, threads, aligned }) => self.arrive(w, id, threads, aligned)?,
                Ok(Stop::Wgmma(op)) => self.wgmma_arrive(w, op)?,
                Ok(Stop::Mbar { at, parity }) => self.cta.warps[w].state = WState::Mbar { at, parity },
                Ok(Stop::Cluster) => self.cta.warps[w].state = WState::Cluster,
                Ok(Stop::Yield) => {}
                Err(trap) => return Err(self.to_error(w, trap)),
            }
            cur = (w + 1) % nwarps;
        }
    }

    fn arrive(&mut self, w: usize, id: u32, threads: Option<u32>, aligned: bool) -> Result<(), EmuError> {
        let nwarps = self.cta.warps.len() as u32;
        let expected = threads.unwrap_or(nwarps * 32);
        let pc = self.cta.warps[w].bar_pc;
        let b = &mut self.cta.bars[id as usize];
        let reason = if b.count == 0 {
            (b.expected, b.first_at, b.first_aligned) = (expected, pc, aligned);
            None
        } else if b.expected != expected {
            Some(format!("barrier {id} expects {} threads from earlier arrivals, this warp says {expected}", b.expected))
        } else if (aligned || b.first_aligned) && pc != b.first_at {
            // An aligned barrier's phase: every arrival at the same instruction.
            Some(format!(
                "barrier {id} is reached here and at {} in one phase: bar.sync is aligned (PTX: every participating thread executes the same instruction); warps that reach a barrier from different instructions need barrier.sync (not aligned)",
                self.prog.site(self.prog.ops[b.first_at].site)
            ))
        } else {
            None
        };
        if let Some(reason) = reason {
            let site = self.prog.site(self.prog.ops[pc].site);
            return Err(EmuError::BarrierMismatch { site, thread: self.thread(w, self.cta.warps[w].active.trailing_zeros()), reason });
        }
        let b = &mut self.cta.bars[id as usize];
        b.count += 32;
        b.waiters |= 1u64 << w;
        self.cta.warps[w].state = WState::Waiting;
        if b.count >= b.expected {
            let waiters = b.waiters;
            *b = Bar::default();
            for (i, warp) in self.cta.warps.iter_mut().enumerate() {
                if waiters >> i & 1 == 1 {
                    warp.state = WState::Ready;
                }
            }
            self.stats.barriers += 1;
        }
        Ok(())
    }

    /// Warp `w` reached `wgmma` number `op`: when its warpgroup's four warps are all there, runs
    /// it for them and lets them go on.
    fn wgmma_arrive(&mut self, w: usize, op: u32) -> Result<(), EmuError> {
        let q = w / 4;
        let pc = self.cta.warps[w].bar_pc;
        let fail = |s: &Self, warp: usize, lane: u32, fault: Fault| Err(s.to_error(warp, Trap { pc, lane, fault }));
        if 4 * q + 4 > self.cta.warps.len() || self.cta.warps[4 * q..4 * q + 4].iter().any(|x| x.active != u32::MAX) {
            let why = format!("wgmma needs the 4 full warps of warpgroup {q}; the CTA has {} threads", self.dims.block);
            return fail(self, w, 0, Fault::Undefined(why));
        }
        let mask = match &mut self.cta.wg[q] {
            None => {
                self.cta.wg[q] = Some((op, 1 << (w % 4)));
                1 << (w % 4)
            }
            Some((o, _)) if *o != op => {
                let why = format!("warps of warpgroup {q} wait at different wgmma instructions");
                return fail(self, w, 0, Fault::Undefined(why));
            }
            Some((_, m)) => {
                *m |= 1 << (w % 4);
                *m
            }
        };
        self.cta.warps[w].state = WState::Waiting;
        if mask != 0xf {
            return Ok(());
        }
        self.cta.wg[q] = None;
        let wop = &self.prog.wgmma[op as usize];
        let stride = self.stride;
        // The descriptor and the accumulate predicate must be the same in all 128 threads.
        let lane_value = |s: &Self, slot: u32, warp: usize, lane: usize| s.cta.regs[warp * stride + slot as usize + lane];
        let desc = lane_value(self, wop.desc, 4 * q, 0);
        for warp in 4 * q..4 * q + 4 {
            for lane in 0..32 {
                let differs = lane_value(self, wop.desc, warp, lane) != desc
                    || matches!(wop.acc, wgmma::AccD::Pred(p) if lane_value(self, p, warp, lane) != lane_value(self, p, 4 * q, 0));
                if differs {
                    let why = "the wgmma descriptor and accumulate predicate must be the same in every thread of the warpgroup".to_string();
                    return fail(self, warp, lane as u32, Fault::Undefined(why));
                }
            }
        }
        let d = match wgmma::Desc::decode(desc) {
            Ok(d) => d,
            Err(why) => return fail(self, w, 0, Fault::Undefined(why)),
        };
        let n = wop.n as u64;
        let mut b = vec![0u16; 16 * n as usize];
        for k in 0..16 {
            for col in 0..n {
                let addr = d.addr(k, col);
                match shared_offset(&self.cta.cp, self.prog.shared_end as u64, addr, 2, Access::WgmmaB) {
                    Ok(o) => b[(k * n + col) as usize] = u16::from_le_bytes([self.cta.shared[o], self.cta.shared[o + 1]]),
                    Err(fault) => return fail(self, w, 0, fault),
                }
            }
        }
        // B stays read until the warpgroup retires this wgmma's group: its 16-byte chunks (the
        // 8 k values of a row at k 0 and 8).
        let site = self.prog.ops[pc].site;
        let chunk = |k: u64, col: u64| ((d.addr(k, col) - SHARED_BASE as u64) / 16) as u32;
        self.cta.cp.wg.read(q, site, (0..n).flat_map(|col| [chunk(0, col), chunk(8, col)]));
        let (_, rest) = self.cta.regs.split_at_mut(4 * q * stride);
        let mut it = rest.chunks_mut(stride);
        let mut warps: [&mut [u64]; 4] = std::array::from_fn(|_| it.next().expect("4 warps checked above"));
        wgmma::exec(wop, &mut warps, &b);
        self.stats.mma += 4;
        for warp in &mut self.cta.warps[4 * q..4 * q + 4] {
            warp.state = WState::Ready;
        }
        Ok(())
    }

    fn deadlock(&self) -> EmuError {
        let waiting: Vec<u32> = (0..self.cta.warps.len())
            .filter(|&w| matches!(self.cta.warps[w].state, WState::Waiting | WState::Mbar { .. }))
            .map(|w| w as u32)
            .collect();
        let exited: Vec<u32> = (0..self.cta.warps.len())
            .filter(|&w| self.cta.warps[w].state == WState::Exited)
            .map(|w| w as u32)
            .collect();
        let w = waiting[0] as usize;
        let site = self.prog.site(self.prog.ops[self.cta.warps[w].bar_pc].site);
        EmuError::BarrierDeadlock {
            site,
            thread: self.thread(w, self.cta.warps[w].active.trailing_zeros()),
            waiting,
            exited,
        }
    }

    /// Runs warp `w` from its pc until it exits or reaches a barrier.
    fn run_warp(&mut self, w: usize, mem: &mut GlobalMem) -> Result<Stop, Trap> {
        let stride = self.stride;
        let prog = self.prog;
        let ops = &prog.ops[..];
        let active = self.cta.warps[w].active;
        let nlanes = active.count_ones() as u64;
        let mut pc = self.cta.warps[w].pc;
        let mut waited = self.cta.warps[w].waited;
        let regs = &mut self.cta.regs[w * stride..(w + 1) * stride];
        let shared = &mut self.cta.shared[..];
        let cp = &mut self.cta.cp;
        let scratch = &mut self.mma_scratch;
        let ctaid = self.cta.ctaid;
        let (gx, gy, gz) = self.dims.grid;
        let (rank, parked) = (self.rank, &self.parked);
        let block = self.dims.block;
        let window_end = prog.shared_end as u64;
        let mut steps = self.steps;
        let limit = self.step_limit;
        let mut warp_insts = 0u64;
        let mut mma_ops = 0u64;

        macro_rules! trap {
            ($lane:expr, $f:expr) => {{
                self.steps = steps;
                self.stats.warp_instructions += warp_insts;
                self.stats.lane_instructions += warp_insts * nlanes;
                self.stats.mma += mma_ops;
                return Err(Trap {
                    pc,
                    lane: $lane as u32,
                    fault: $f,
                });
            }};
        }
        macro_rules! check {
            ($r:expr) => {
                if let Err((lane, f)) = $r {
                    trap!(lane, f);
                }
            };
        }

        // Bounds/pending check of a shared access; returns the offset in the window.
        let shared_at = |cp: &CpState, addr: u64, len: u32, access: Access| shared_offset(cp, window_end, addr, len, access);

        let stop = loop {
            let op = &ops[pc];
            steps += 1;
            warp_insts += 1;
            if steps > limit {
                trap!(active.trailing_zeros(), Fault::StepLimit(limit));
            }
            let m = match op.guard {
                None => active,
                Some(g) => active & guard_mask(regs, g),
            };
            match op.kind {
                Kind::Mov { dst, src, mask } => map1(regs, m, dst, src, |v| v & mask),
                Kind::Special { dst, sreg } => {
                    let d = dst as usize;
                    lanes(m, |l| {
                        regs[d + l] = match sreg {
                            SpecialReg::TidX => (w * 32 + l) as u64,
                            SpecialReg::TidY | SpecialReg::TidZ => 0,
                            SpecialReg::NtidX => block as u64,
                            SpecialReg::NtidY | SpecialReg::NtidZ => 1,
                            SpecialReg::CtaidX => ctaid.0 as u64,
                            SpecialReg::CtaidY => ctaid.1 as u64,
                            SpecialReg::CtaidZ => ctaid.2 as u64,
                            SpecialReg::NctaidX => gx as u64,
                            SpecialReg::NctaidY => gy as u64,
                            SpecialReg::NctaidZ => gz as u64,
                            SpecialReg::LaneId => l as u64,
                            SpecialReg::WarpId => w as u64,
                            SpecialReg::ClusterCtaRank => rank as u64,
                            SpecialReg::ClusterNctaRank => parked.len() as u64,
                        }
                    });
                }
                Kind::Ld {
                    space,
                    cluster,
                    dst,
                    n,
                    size,
                    base,
                    off,
                    sext: sx,
                    wmask,
                } => {
                    let total = n as u32 * size as u32;
                    let r = try_lanes(m, |l| {
                        let addr = rd(regs, base, l).wrapping_add(off as u64);
                        if addr % total as u64 != 0 {
                            return Err(Fault::Misaligned {
                                space,
                                access: Access::Load,
                                addr,
                                align: total,
                            });
                        }
                        // `ld.shared::cluster` of a mapa result: the CTA of the cluster it names
                        // and the address in that CTA's window.
                        let (peer, local) = if cluster && addr >= CLUSTER_BASE {
                            (((addr - CLUSTER_BASE) / CLUSTER_STRIDE) as usize, (addr - CLUSTER_BASE) % CLUSTER_STRIDE + SHARED_BASE as u64)
                        } else {
                            (rank, addr)
                        };
                        let bytes: &[u8] = match space {
                            Space::Global => {
                                mem.check_prior(waited, Access::Load, addr, total)?;
                                mem.bytes(addr, total as u64).ok_or(Fault::GlobalOob {
                                    access: Access::Load,
                                    addr,
                                    bytes: total,
                                })?
                            }
                            // Another CTA of the cluster (a mapa result).
                            Space::Shared if peer != rank => {
                                let p = parked.get(peer).ok_or(Fault::SharedOob { access: Access::Load, addr, bytes: total })?;
                                let o = shared_offset(&p.cp, window_end, local, total, Access::Load).map_err(|f| match f {
                                    Fault::SharedOob { .. } => Fault::SharedOob { access: Access::Load, addr, bytes: total },
                                    f => f,
                                })?;
                                if p.warps.iter().all(|w| w.state == WState::Exited) {
                                    return Err(Fault::Undefined(format!("ld.shared::cluster from CTA rank {peer}, which has exited (its shared memory is gone)")));
                                }
                                &p.shared[o..o + total as usize]
                            }
                            Space::Shared => {
                                let o = shared_at(cp, local, total, Access::Load)?;
                                &shared[o..o + total as usize]
                            }
                        };
                        let mut vals = [0u64; 4];
                        for (i, v) in vals.iter_mut().enumerate().take(n as usize) {
                            let x = read_le(&bytes[i * size as usize..(i + 1) * size as usize]);
                            *v = if sx {
                                sext(x, size as u32 * 8) as u64 & wmask
                            } else {
                                x
                            };
                        }
                        for i in 0..n as usize {
                            regs[dst[i] as usize + l] = vals[i];
                        }
                        Ok(())
                    });
                    check!(r);
                }
                Kind::St {
                    space,
                    src,
                    n,
                    size,
                    base,
                    off,
                } => {
                    let total = n as u32 * size as u32;
                    let r = try_lanes(m, |l| {
                        let addr = rd(regs, base, l).wrapping_add(off as u64);
                        if addr % total as u64 != 0 {
                            return Err(Fault::Misaligned {
                                space,
                                access: Access::Store,
                                addr,
                                align: total,
                            });
                        }
                        let bytes: &mut [u8] = match space {
                            Space::Global => {
                                mem.check_prior(waited, Access::Store, addr, total)?;
                                mem.bytes_mut(addr, total as u64).ok_or(Fault::GlobalOob {
                                    access: Access::Store,
                                    addr,
                                    bytes: total,
                                })?
                            }
                            Space::Shared => {
                                let o = shared_at(cp, addr, total, Access::Store)?;
                                &mut shared[o..o + total as usize]
                            }
                        };
                        for i in 0..n as usize {
                            write_le(
                                &mut bytes[i * size as usize..(i + 1) * size as usize],
                                rd(regs, src[i], l),
                            );
                        }
                        Ok(())
                    });
                    check!(r);
                }
                Kind::Int { op, dst, a, b } => match op {
                    IntOp::DivU | IntOp::DivS(_) | IntOp::RemU | IntOp::RemS(_) => {
                        let r = try_lanes(m, |l| {
                            let v =
                                int_op(op, rd(regs, a, l), rd(regs, b, l)).ok_or(Fault::DivZero)?;
                            regs[dst as usize + l] = v;
                            Ok(())
                        });
                        check!(r);
                    }
                    IntOp::Add(mk) => map2(regs, m, dst, a, b, |x, y| x.wrapping_add(y) & mk),
                    IntOp::Sub(mk) => map2(regs, m, dst, a, b, |x, y| x.wrapping_sub(y) & mk),
                    IntOp::MulLo(mk) => map2(regs, m, dst, a, b, |x, y| x.wrapping_mul(y) & mk),
                    IntOp::And => map2(regs, m, dst, a, b, |x, y| x & y),
                    IntOp::Or => map2(regs, m, dst, a, b, |x, y| x | y),
                    IntOp::Xor => map2(regs, m, dst, a, b, |x, y| x ^ y),
                    _ => map2(regs, m, dst, a, b, |x, y| int_op(op, x, y).unwrap_or(0)),
                },
                Kind::Flt { op, ty, dst, a, b } => match (op, ty) {
                    (FOp::Add, FTy::F32) => map2(regs, m, dst, a, b, |x, y| {
                        canon_f32(f32::from_bits(x as u32) + f32::from_bits(y as u32)) as u64
                    }),
                    (FOp::Mul, FTy::F32) => map2(regs, m, dst, a, b, |x, y| {
                        canon_f32(f32::from_bits(x as u32) * f32::from_bits(y as u32)) as u64
                    }),
                    _ => map2(regs, m, dst, a, b, |x, y| flt_op(op, ty, x, y)),
                },
                Kind::Un { op, dst, a } => match op {
                    UnKind::NegInt(mk) => map1(regs, m, dst, a, |x| 0u64.wrapping_sub(x) & mk),
                    UnKind::AbsInt(bits) => map1(regs, m, dst, a, |x| {
                        sext(x, bits).wrapping_abs() as u64 & mask(bits)
                    }),
                    UnKind::Not(mk) => map1(regs, m, dst, a, |x| !x & mk),
                    UnKind::Popc => map1(regs, m, dst, a, |x| x.count_ones() as u64),
                    UnKind::XorSign(s) => map1(regs, m, dst, a, |x| x ^ s),
                    UnKind::ClearSign(s) => map1(regs, m, dst, a, |x| x & !s),
                },
                Kind::Fma {
                    ty,
                    rnd,
                    dst,
                    a,
                    b,
                    c,
                } => match (ty, rnd) {
                    (FTy::F32, FRnd::Rn) => map3(regs, m, dst, a, b, c, |x, y, z| {
                        canon_f32(
                            f32::from_bits(x as u32)
                                .mul_add(f32::from_bits(y as u32), f32::from_bits(z as u32)),
                        ) as u64
                    }),
                    _ => map3(regs, m, dst, a, b, c, |x, y, z| fma_op(ty, rnd, x, y, z)),
                },
                Kind::Mad { kind, dst, a, b, c } => match kind {
                    MadKind::Lo(mk) => map3(regs, m, dst, a, b, c, |x, y, z| {
                        x.wrapping_mul(y).wrapping_add(z) & mk
                    }),
                    MadKind::WideU(bits) => map3(regs, m, dst, a, b, c, |x, y, z| {
                        x.wrapping_mul(y).wrapping_add(z) & mask(2 * bits)
                    }),
                    MadKind::WideS(bits) => map3(regs, m, dst, a, b, c, |x, y, z| {
                        (sext(x, bits).wrapping_mul(sext(y, bits)) as u64).wrapping_add(z)
                            & mask(2 * bits)
                    }),
                },
                Kind::Lop3 { dst, a, b, c, lut } => {
                    map3(regs, m, dst, a, b, c, |x, y, z| lop3(x, y, z, lut))
                }
                Kind::Prmt { dst, a, b, sel } => map3(regs, m, dst, a, b, sel, prmt),
                Kind::Shf {
                    left,
                    wrap,
                    dst,
                    lo,
                    hi,
                    sh,
                } => map3(regs, m, dst, lo, hi, sh, |lo, hi, c| {
                    let n = if wrap { c & 31 } else { c.min(32) };
                    let x = (hi << 32) | (lo & 0xffff_ffff);
                    if left {
                        (x << n) >> 32
                    } else {
                        (x >> n) & 0xffff_ffff
                    }
                }),
                Kind::Bfe {
                    bits,
                    signed,
                    dst,
                    a,
                    pos,
                    len,
                } => map3(regs, m, dst, a, pos, len, |x, p, n| {
                    bfe(x, p, n, bits, signed)
                }),
                Kind::Cvt {
                    conv,
                    dst,
                    src,
                    wbits,
                } => map1(regs, m, dst, src, |x| cvt(conv, x, wbits)),
                Kind::CvtPack {
                    fmt,
                    satfinite,
                    dst,
                    hi,
                    lo,
                } => {
                    let shift = fmt.bits();
                    map2(regs, m, dst, hi, lo, |h, l| {
                        let one = |v: u64| {
                            float::round(
                                f32::from_bits(v as u32) as f64,
                                0,
                                fmt,
                                FRnd::Rn,
                                satfinite,
                            )
                        };
                        (one(h) << shift) | one(l)
                    })
                }
                Kind::Setp {
                    kind,
                    cmp,
                    dst,
                    a,
                    b,
                } => map2(regs, m, dst, a, b, |x, y| setp(kind, cmp, x, y) as u64),
                Kind::Selp { dst, a, b, p } => {
                    let (d, p) = (dst as usize, p as usize);
                    lanes(m, |l| {
                        let v = if regs[p + l] & 1 == 1 {
                            rd(regs, a, l)
                        } else {
                            rd(regs, b, l)
                        };
                        regs[d + l] = v;
                    });
                }
                Kind::CpAsync {
                    bytes,
                    dst,
                    dst_off,
                    src,
                    src_off,
                    src_size,
                } => {
                    let site = op.site;
                    let r = try_lanes(m, |l| {
                        let daddr = rd(regs, dst, l).wrapping_add(dst_off as u64);
                        let saddr = rd(regs, src, l).wrapping_add(src_off as u64);
                        let ssz = src_size.map_or(bytes as u64, |s| rd(regs, s, l) & 0xffff_ffff);
                        if ssz > bytes as u64 {
                            return Err(Fault::Undefined(format!(
                                "cp.async src-size {ssz} exceeds cp-size {bytes}"
                            )));
                        }
                        if daddr % bytes as u64 != 0 {
                            return Err(Fault::Misaligned {
                                space: Space::Shared,
                                access: Access::CpAsyncDst,
                                addr: daddr,
                                align: bytes,
                            });
                        }
                        if saddr % bytes as u64 != 0 {
                            return Err(Fault::Misaligned {
                                space: Space::Global,
                                access: Access::CpAsyncSrc,
                                addr: saddr,
                                align: bytes,
                            });
                        }
                        let mut data = [0u8; 16];
                        if ssz > 0 {
                            mem.check_prior(waited, Access::CpAsyncSrc, saddr, ssz as u32)?;
                            let s = mem.bytes(saddr, ssz).ok_or(Fault::GlobalOob {
                                access: Access::CpAsyncSrc,
                                addr: saddr,
                                bytes: ssz as u32,
                            })?;
                            data[..ssz as usize].copy_from_slice(s);
                        }
                        let off = shared_at(cp, daddr, bytes, Access::CpAsyncDst)?;
                        cp.issue(
                            w * 32 + l,
                            PendingCopy {
                                off: off as u32,
                                len: bytes,
                                data,
                                site,
                                warp: w as u32,
                                lane: l as u32,
                                group: UNCOMMITTED,
                            },
                        );
                        Ok(())
                    });
                    check!(r);
                }
                Kind::CpCommit => lanes(m, |l| cp.commit(w * 32 + l)),
                Kind::MbarInit { addr, off, count } => {
                    let r = try_lanes(m, |l| {
                        let a = mbar_addr(regs, addr, off, l)?;
                        let at = shared_at(cp, a, 8, Access::Mbarrier)? as u32;
                        cp.mbar_init(at, count)
                    });
                    check!(r);
                }
                Kind::MbarExpectTx { addr, off, bytes } => {
                    let r = try_lanes(m, |l| {
                        let a = mbar_addr(regs, addr, off, l)?;
                        let at = shared_at(cp, a, 8, Access::Mbarrier)? as u32;
                        cp.mbar_expect_arrive(at, (rd(regs, bytes, l) & 0xffff_ffff) as u32)
                    });
                    check!(r);
                }
                Kind::MbarArrive { addr, off, cp: with_copies } => {
                    let mut completed = false;
                    let r = try_lanes(m, |l| {
                        let a = mbar_addr(regs, addr, off, l)?;
                        let at = shared_at(cp, a, 8, Access::Mbarrier)? as u32;
                        completed |= cp.mbar_arrive(at, w * 32 + l, with_copies)?;
                        Ok(())
                    });
                    check!(r);
                    if completed {
                        // The warps waiting for that phase run next (one order the hardware
                        // may take): what this warp does after its arrival must not be
                        // needed by them, e.g. retiring the wgmmas of a slot it freed.
                        pc += 1;
                        break Stop::Yield;
                    }
                }
                Kind::MbarWait { addr, off, parity } => {
                    // Every lane's barrier first: one whose phase has not completed suspends the
                    // warp here (it runs the wait again once it has); then the copies land.
                    let mut ats = [0u32; 32];
                    let mut blocked = None;
                    let r = try_lanes(m, |l| {
                        let a = mbar_addr(regs, addr, off, l)?;
                        ats[l] = shared_at(cp, a, 8, Access::Mbarrier)? as u32;
                        let par = (rd(regs, parity, l) & 1) as u32;
                        if !cp.mbar_done(ats[l], par)? {
                            blocked.get_or_insert((ats[l], par));
                        }
                        Ok(())
                    });
                    check!(r);
                    if let Some((at, parity)) = blocked {
                        self.cta.warps[w].bar_pc = pc;
                        break Stop::Mbar { at, parity };
                    }
                    lanes(m, |l| cp.mbar_land(ats[l], shared));
                }
                Kind::CpBulk { dst, dst_off, src, src_off, bytes, mbar, mbar_off } => {
                    let site = op.site;
                    let r = try_lanes(m, |l| {
                        let daddr = rd(regs, dst, l).wrapping_add(dst_off as u64);
                        let saddr = rd(regs, src, l).wrapping_add(src_off as u64);
                        let n = rd(regs, bytes, l) & 0xffff_ffff;
                        if n == 0 || n % 16 != 0 {
                            return Err(Fault::Undefined(format!("cp.async.bulk of {n} bytes (a positive multiple of 16)")));
                        }
                        if daddr % 16 != 0 {
                            return Err(Fault::Misaligned { space: Space::Shared, access: Access::BulkDst, addr: daddr, align: 16 });
                        }
                        if saddr % 16 != 0 {
                            return Err(Fault::Misaligned { space: Space::Global, access: Access::BulkSrc, addr: saddr, align: 16 });
                        }
                        mem.check_prior(waited, Access::BulkSrc, saddr, n as u32)?;
                        let data = mem.bytes(saddr, n).ok_or(Fault::GlobalOob { access: Access::BulkSrc, addr: saddr, bytes: n as u32 })?.to_vec();
                        let off = shared_at(cp, daddr, n as u32, Access::BulkDst)?;
                        let a = mbar_addr(regs, mbar, mbar_off, l)?;
                        let at = shared_at(cp, a, 8, Access::Mbarrier)? as u32;
                        cp.bulk(at, off, &data, site, w as u32, l as u32)
                    });
                    check!(r);
                }
                Kind::Nop => {}
                Kind::WgCommit if m != 0 => cp.wg.commit(w),
                Kind::WgWait { n } if m != 0 => cp.wg.wait(w, n),
                Kind::WgCommit | Kind::WgWait { .. } => {}
                Kind::GridDepWait => {
                    waited = true;
                    self.cta.warps[w].waited = true;
                }
                Kind::Pack2 { dst, lo, hi } => map2(regs, m, dst, lo, hi, |lo, hi| (lo & 0xffff) | ((hi & 0xffff) << 16)),
                Kind::Unpack2 { lo, hi, src } => {
                    let (dl, dh) = (lo as usize, hi as usize);
                    lanes(m, |l| {
                        let v = rd(regs, src, l);
                        regs[dl + l] = v & 0xffff;
                        regs[dh + l] = (v >> 16) & 0xffff;
                    });
                }
                Kind::CpWait { n } => lanes(m, |l| cp.wait(w * 32 + l, n, shared)),
                Kind::Ldmatrix {
                    trans,
                    dst,
                    n,
                    base,
                    off,
                } => {
                    if m != 0 {
                        if m != FULL {
                            trap!(
                                (!m).trailing_zeros(),
                                Fault::NotConverged {
                                    what: "ldmatrix",
                                    mask: m
                                }
                            );
                        }
                        let mut rows = [[0u8; 16]; 32];
                        let r = try_lanes(mask(8 * n as u32) as u32, |l| {
                            let addr = rd(regs, base, l).wrapping_add(off as u64);
                            if addr % 16 != 0 {
                                return Err(Fault::Misaligned {
                                    space: Space::Shared,
                                    access: Access::Ldmatrix,
                                    addr,
                                    align: 16,
                                });
                            }
                            let o = shared_at(cp, addr, 16, Access::Ldmatrix)?;
                            rows[l].copy_from_slice(&shared[o..o + 16]);
                            Ok(())
                        });
                        check!(r);
                        for i in 0..n as usize {
                            let d = dst[i] as usize;
                            for l in 0..32 {
                                let (r, c) = (l / 4, l % 4);
                                let v = if trans {
                                    let lo = &rows[8 * i + 2 * c];
                                    let hi = &rows[8 * i + 2 * c + 1];
                                    u16::from_le_bytes([lo[2 * r], lo[2 * r + 1]]) as u32
                                        | (u16::from_le_bytes([hi[2 * r], hi[2 * r + 1]]) as u32)
                                            << 16
                                } else {
                                    let row = &rows[8 * i + r];
                                    u32::from_le_bytes([
                                        row[4 * c],
                                        row[4 * c + 1],
                                        row[4 * c + 2],
                                        row[4 * c + 3],
                                    ])
                                };
                                regs[d + l] = v as u64;
                            }
                        }
                    }
                }
                Kind::Wgmma(i) => {
                    if m != 0 {
                        if m != FULL {
                            trap!(
                                (!m).trailing_zeros(),
                                Fault::NotConverged {
                                    what: "wgmma.mma_async",
                                    mask: m
                                }
                            );
                        }
                        self.cta.warps[w].bar_pc = pc;
                        pc += 1;
                        break Stop::Wgmma(i);
                    }
                }
                Kind::Mma(i) => {
                    if m != 0 {
                        if m != FULL {
                            trap!(
                                (!m).trailing_zeros(),
                                Fault::NotConverged {
                                    what: "mma.sync",
                                    mask: m
                                }
                            );
                        }
                        mma::exec(&prog.mma[i as usize], regs, scratch);
                        mma_ops += 1;
                    }
                }
                Kind::Elect { dst } => {
                    // Membermask 0xffffffff: every lane must execute it.
                    if m != FULL {
                        trap!((!m).trailing_zeros(), Fault::NotConverged { what: "elect.sync", mask: m });
                    }
                    let d = dst as usize;
                    lanes(m, |l| regs[d + l] = u64::from(l == 0));
                }
                Kind::Shfl {
                    mode,
                    dst,
                    a,
                    b,
                    c,
                    mask: member,
                } => {
                    if m & !member != 0 {
                        let l = (m & !member).trailing_zeros();
                        trap!(
                            l,
                            Fault::Shfl(format!(
                                "lane {l} executes it but is not in membermask {member:#010x}"
                            ))
                        );
                    }
                    if member & active & !m != 0 {
                        let l = (member & active & !m).trailing_zeros();
                        trap!(
                            m.trailing_zeros(),
                            Fault::Shfl(format!(
                                "lane {l} is in membermask {member:#010x} but does not execute it (guard {m:#010x})"
                            ))
                        );
                    }
                    let mut out = [0u64; 32];
                    let r = try_lanes(m, |l| {
                        let bval = (rd(regs, b, l) & 31) as i32;
                        let cval = rd(regs, c, l);
                        let clamp = (cval & 31) as i32;
                        let seg = ((cval >> 8) & 31) as i32;
                        let li = l as i32;
                        let max_lane = (li & seg) | (clamp & !seg);
                        let min_lane = li & seg;
                        let (j, p) = match mode {
                            ShflMode::Up => (li - bval, li - bval >= max_lane),
                            ShflMode::Down => (li + bval, li + bval <= max_lane),
                            ShflMode::Bfly => (li ^ bval, (li ^ bval) <= max_lane),
                            ShflMode::Idx => {
                                let j = min_lane | (bval & !seg);
                                (j, j <= max_lane)
                            }
                        };
                        let j = if p { j } else { li };
                        if m >> j & 1 == 0 {
                            return Err(Fault::Shfl(format!(
                                "lane {l} reads lane {j}, which does not execute it (its value is undefined)"
                            )));
                        }
                        out[l] = rd(regs, a, j as usize);
                        Ok(())
                    });
                    check!(r);
                    lanes(m, |l| regs[dst as usize + l] = out[l]);
                }
                Kind::ClusterSync => {
                    if m != active {
                        trap!((active & !m).trailing_zeros(), Fault::Divergent("barrier.cluster (executed by part of the warp)"));
                    }
                    self.cta.warps[w].bar_pc = pc;
                    pc += 1;
                    break Stop::Cluster;
                }
                Kind::Mapa { dst, addr, rank: to } => {
                    let r = try_lanes(m, |l| {
                        let a = rd(regs, addr, l) & 0xffff_ffff;
                        let t = rd(regs, to, l) & 0xffff_ffff;
                        if t >= parked.len() as u64 {
                            return Err(Fault::Undefined(format!("mapa to CTA rank {t}; the cluster has {} CTAs", parked.len())));
                        }
                        if a < SHARED_BASE as u64 || a >= window_end {
                            return Err(Fault::SharedOob { access: Access::Load, addr: a, bytes: 0 });
                        }
                        regs[dst as usize + l] = CLUSTER_BASE + t * CLUSTER_STRIDE + (a - SHARED_BASE as u64);
                        Ok(())
                    });
                    check!(r);
                }
                Kind::Bar { id, threads, aligned } => {
                    if m != 0 {
                        if m != active {
                            trap!(
                                (active & !m).trailing_zeros(),
                                Fault::Divergent("bar.sync (executed by part of the warp)")
                            );
                        }
                        self.cta.warps[w].bar_pc = pc;
                        pc += 1;
                        break Stop::Barrier { id, threads, aligned };
                    }
                }
                Kind::Atom {
                    space,
                    kind,
                    size,
                    dst,
                    base,
                    off,
                    b,
                    c,
                } => {
                    let global = space == Space::Global;
                    let r = try_lanes(m, |l| {
                        let addr = rd(regs, base, l).wrapping_add(off as u64);
                        if addr % size as u64 != 0 {
                            return Err(Fault::Misaligned {
                                space,
                                access: Access::Atomic,
                                addr,
                                align: size as u32,
                            });
                        }
                        let bytes: &mut [u8] = if global {
                            mem.check_prior(waited, Access::Atomic, addr, size as u32)?;
                            mem.bytes_mut(addr, size as u64).ok_or(Fault::GlobalOob {
                                access: Access::Atomic,
                                addr,
                                bytes: size as u32,
                            })?
                        } else {
                            let o = shared_at(cp, addr, size as u32, Access::Atomic)?;
                            &mut shared[o..o + size as usize]
                        };
                        let old = read_le(bytes);
                        let new =
                            atom_apply(kind, size, global, old, rd(regs, b, l), rd(regs, c, l));
                        write_le(bytes, new);
                        if let Some(d) = dst {
                            regs[d as usize + l] = old;
                        }
                        Ok(())
                    });
                    check!(r);
                }
                Kind::LoopInit { counter, start } => match uniform(regs, start, active) {
                    Ok(v) => lanes(active, |l| regs[counter as usize + l] = v & 0xffff_ffff),
                    Err(l) => trap!(l, Fault::Divergent("loop start")),
                },
                Kind::LoopTest {
                    counter,
                    end,
                    signed,
                    exit,
                } => {
                    let e = match uniform(regs, end, active) {
                        Ok(v) => v,
                        Err(l) => trap!(l, Fault::Divergent("loop end")),
                    };
                    let c = match uniform(regs, Src::R(counter), active) {
                        Ok(v) => v,
                        Err(l) => trap!(l, Fault::Divergent("loop counter")),
                    };
                    let go = if signed {
                        (c as u32 as i32) < (e as u32 as i32)
                    } else {
                        (c as u32) < (e as u32)
                    };
                    if !go {
                        pc = exit as usize;
                        continue;
                    }
                }
                Kind::LoopStep { counter, step } => {
                    lanes(active, |l| {
                        let r = &mut regs[counter as usize + l];
                        *r = (*r as u32).wrapping_add(step) as u64;
                    });
                }
                Kind::Jump { target } => {
                    pc = target as usize;
                    continue;
                }
                Kind::Branch {
                    cond,
                    negate,
                    target,
                } => {
                    let c = match uniform(regs, Src::R(cond), active) {
                        Ok(v) => v & 1 == 1,
                        Err(l) => trap!(l, Fault::Divergent("if condition")),
                    };
                    if c == negate {
                        pc = target as usize;
                        continue;
                    }
                }
                Kind::Exit => break Stop::Exit,
            }
            pc += 1;
        };
        self.cta.warps[w].pc = pc;
        self.steps = steps;
        self.stats.warp_instructions += warp_insts;
        self.stats.lane_instructions += warp_insts * nlanes;
        self.stats.mma += mma_ops;
        Ok(stop)
    }
}
