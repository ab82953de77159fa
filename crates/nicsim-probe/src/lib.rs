//! The host's own primitives, measured in compiled code for `nicsim probe --host-out`, where an
//! interpreter's per-call time (about 50-100 ns a call in CPython) would swamp what is measured:
//! copy bandwidths (`memcpy`; user to kernel and kernel to user through a pipe), system-call
//! entry and exit, a wake-up and context switch on one CPU and across two, the latency of a
//! dependent load from memory, and the clock the cores run at.
//!
//! This crate measures the machine it runs on, so its figures vary from run to run; it is never
//! linked into the simulation core (`nicsim`), which stays deterministic. Linux only (pipes,
//! `sched_setaffinity`, `fork`). Every figure carries its unit in its name.

use std::hint::black_box;
use std::time::Instant;

/// A measurement that could not be taken: one line saying which call failed and why.
pub type Result<T> = std::result::Result<T, String>;

fn os_error(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// Runs `batch(k)` (which does `k` units of work) with a doubling `k` until one batch takes at
/// least `budget_s`; returns the seconds per unit of the last batch.
fn per_unit_s(budget_s: f64, mut batch: impl FnMut(u64)) -> f64 {
    let mut k = 1u64;
    loop {
        let t = Instant::now();
        batch(k);
        let s = t.elapsed().as_secs_f64();
        if s >= budget_s || k >= 1 << 40 {
            return s / k as f64;
        }
        // Aim straight for the budget once a batch is long enough to be timed.
        k = if s > 1e-3 {
            ((k as f64 * budget_s / s).ceil() as u64).max(2 * k)
        } else {
            2 * k
        };
    }
}

/// A buffer of `size_bytes` whose pages are all written (a zeroed allocation maps the shared
/// zero page until each page's first write, whose fault must not be timed).
fn touched(size_bytes: usize, fill: u8) -> Vec<u8> {
    let mut v = vec![0u8; size_bytes.max(1)];
    v.fill(fill | 1);
    black_box(v)
}

/// `memcpy` bandwidth, bytes copied per second, copying `size_bytes` from one buffer to
/// another over and over (the working set is both buffers, twice `size_bytes`) for about
/// `budget_s`.
pub fn memcpy_bytes_per_s(size_bytes: usize, budget_s: f64) -> f64 {
    let src = touched(size_bytes, 0x5a);
    let mut dst = touched(size_bytes, 0);
    dst.copy_from_slice(&src);
    let s = per_unit_s(budget_s, |k| {
        for _ in 0..k {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        }
    });
    size_bytes as f64 / s
}

/// Copies between user memory and a pipe's kernel pages, each direction timed on its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipeCopy {
    /// Bytes per call.
    pub chunk_bytes: usize,
    /// Mean time of one `write()` of `chunk_bytes` into the empty pipe (user to kernel: the
    /// system call, the pipe's page allocation and the copy), the clock reads' own time removed.
    pub write_ns: f64,
    /// Mean time of reading the same bytes back (kernel to user: the call, the copy, the
    /// pages' release).
    pub read_ns: f64,
}

impl PipeCopy {
    pub fn write_bytes_per_s(&self) -> f64 {
        self.chunk_bytes as f64 / (self.write_ns * 1e-9)
    }
    pub fn read_bytes_per_s(&self) -> f64 {
        self.chunk_bytes as f64 / (self.read_ns * 1e-9)
    }
}

/// Closes a file descriptor when dropped.
struct Fd(libc::c_int);

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: the descriptor is ours and closed once.
        unsafe { libc::close(self.0) };
    }
}

fn pipe() -> Result<(Fd, Fd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(os_error("pipe2"));
    }
    Ok((Fd(fds[0]), Fd(fds[1])))
}

/// Mean cost of one clock read pair (`Instant::now()` twice), subtracted from timed calls.
fn clock_pair_ns() -> f64 {
    1e9 * per_unit_s(0.01, |k| {
        for _ in 0..k {
            black_box(Instant::now());
            black_box(Instant::now());
        }
    })
}

/// User-to-kernel and kernel-to-user copy through a pipe: one thread writes `chunk_bytes`
/// (at most the pipe's capacity, so it never blocks) from a user buffer of `size_bytes` and
/// reads them back into a second one, stepping through both buffers chunk by chunk, for about
/// `budget_s`. With `size_bytes` past the last-level cache the user side streams from memory;
/// the pipe's pages are reused and stay in cache, as a socket's are.
pub fn pipe_copy(size_bytes: usize, chunk_bytes: usize, budget_s: f64) -> Result<PipeCopy> {
    if chunk_bytes == 0 || chunk_bytes > size_bytes {
        return Err(format!(
            "pipe copy: chunk_bytes = {chunk_bytes} must be 1 to size_bytes = {size_bytes}"
        ));
    }
    let (r, w) = pipe()?;
    // SAFETY: fcntl on our own descriptor.
    let cap = unsafe { libc::fcntl(w.0, libc::F_GETPIPE_SZ) };
    if cap < chunk_bytes as libc::c_int
        // SAFETY: as above; the kernel rounds the size up to pages.
        && unsafe { libc::fcntl(w.0, libc::F_SETPIPE_SZ, chunk_bytes as libc::c_int) } < 0
    {
        return Err(os_error(&format!(
            "pipe copy: a pipe of {chunk_bytes} bytes (F_SETPIPE_SZ)"
        )));
    }
    let src = touched(size_bytes, 0x5a);
    let mut dst = touched(size_bytes, 0);
    let clock_ns = clock_pair_ns();
    let (mut write_ns, mut read_ns, mut calls) = (0.0, 0.0, 0u64);
    let mut off = 0;
    let start = Instant::now();
    // At least two passes over the working set, and the budget.
    let min_calls = (2 * size_bytes / chunk_bytes).max(64) as u64;
    while calls < min_calls || start.elapsed().as_secs_f64() < budget_s {
        if off + chunk_bytes > size_bytes {
            off = 0;
        }
        let t0 = Instant::now();
        // SAFETY: src[off..off + chunk_bytes] is in bounds.
        let n = unsafe { libc::write(w.0, src.as_ptr().add(off).cast(), chunk_bytes) };
        let t1 = Instant::now();
        if n != chunk_bytes as isize {
            return Err(os_error("pipe copy: write"));
        }
        let mut got = 0;
        while got < chunk_bytes {
            // SAFETY: dst[off + got..off + chunk_bytes] is in bounds.
            let m = unsafe {
                libc::read(
                    r.0,
                    dst.as_mut_ptr().add(off + got).cast(),
                    chunk_bytes - got,
                )
            };
            if m <= 0 {
                return Err(os_error("pipe copy: read"));
            }
            got += m as usize;
        }
        let t2 = Instant::now();
        write_ns += (t1 - t0).as_nanos() as f64;
        read_ns += (t2 - t1).as_nanos() as f64;
        calls += 1;
        off += chunk_bytes;
    }
    black_box(&dst);
    let per = |total: f64| (total / calls as f64 - clock_ns / 2.0).max(1.0);
    Ok(PipeCopy {
        chunk_bytes,
        write_ns: per(write_ns),
        read_ns: per(read_ns),
    })
}

/// Mean time of one system call that does almost nothing (`getppid` through `syscall(2)`, so
/// no C library cache answers it): the entry and exit, for about `budget_s`.
pub fn syscall_ns(budget_s: f64) -> f64 {
    1e9 * per_unit_s(budget_s, |k| {
        for _ in 0..k {
            // SAFETY: getppid takes no arguments and cannot fail.
            black_box(unsafe { libc::syscall(libc::SYS_getppid) });
        }
    })
}

/// The CPUs this process may run on (`sched_getaffinity`), by number.
pub fn allowed_cpus() -> Result<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; getaffinity fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0
    {
        return Err(os_error("sched_getaffinity"));
    }
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

fn pin_to(cpu: usize) -> Result<()> {
    // SAFETY: as in allowed_cpus; the set names one CPU.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) } != 0 {
        return Err(os_error(&format!("sched_setaffinity to cpu {cpu}")));
    }
    Ok(())
}

fn restore_affinity(cpus: &[usize]) {
    // SAFETY: as in pin_to.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
}

fn one_byte(fd: libc::c_int, write: bool) -> bool {
    let mut b = [b'x'];
    // SAFETY: one byte from or into `b`.
    let n = unsafe {
        if write {
            libc::write(fd, b.as_ptr().cast(), 1)
        } else {
            libc::read(fd, b.as_mut_ptr().cast(), 1)
        }
    };
    n == 1
}

/// Mean round trip, in ns, of one byte passed over pipes between this thread pinned to
/// `cpu_a` and a child process pinned to `cpu_b` (the same CPU or another): two wake-ups, two
/// context switches (on one CPU) or two cross-CPU wake-ups, and four system calls. `warm`
/// round trips first, then `n` timed.
pub fn round_trip_ns(cpu_a: usize, cpu_b: usize, n: u32, warm: u32) -> Result<f64> {
    let before = allowed_cpus()?;
    let (r1, w1) = pipe()?;
    let (r2, w2) = pipe()?;
    // SAFETY: the child only makes async-signal-safe calls (sched_setaffinity, read, write,
    // _exit) before it exits, so forking a multithreaded process is sound.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(os_error("fork"));
    }
    if pid == 0 {
        let ok = pin_to(cpu_b).is_ok();
        for _ in 0..u64::from(n) + u64::from(warm) {
            if !ok || !one_byte(r1.0, false) || !one_byte(w2.0, true) {
                break;
            }
        }
        // SAFETY: leave the child without running the parent's destructors or atexit.
        unsafe { libc::_exit(0) };
    }
    let result = (|| {
        pin_to(cpu_a)?;
        let mut t = Instant::now();
        for i in 0..warm + n {
            if i == warm {
                t = Instant::now();
            }
            if !one_byte(w1.0, true) || !one_byte(r2.0, false) {
                return Err(os_error("ping-pong: the child stopped answering"));
            }
        }
        Ok(t.elapsed().as_nanos() as f64 / f64::from(n.max(1)))
    })();
    restore_affinity(&before);
    drop((w1, r2));
    let mut status = 0;
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    result
}

/// A small xorshift generator: the chase's permutation needs no quality, only no pattern a
/// prefetcher could follow.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// The successor of each of `lines` slots in one random cycle through them all.
fn random_cycle(lines: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..lines).collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..lines).rev() {
        order.swap(i, (xorshift(&mut seed) % (i as u64 + 1)) as usize);
    }
    let mut next = vec![0; lines];
    for i in 0..lines {
        next[order[i]] = order[(i + 1) % lines];
    }
    next
}

const LINE_WORDS: usize = 64 / std::mem::size_of::<usize>();

/// Mean latency, in ns, of a dependent load: a chase through one 64-byte line after another of
/// a `size_bytes` buffer in a random cyclic order (no prefetcher can follow it), for about
/// `budget_s`. Past the last-level cache each step is a miss to memory (on 4 KiB pages mostly a
/// TLB miss too; transparent huge pages are asked for, `MADV_HUGEPAGE`, where the kernel
/// offers them); within the L1 cache each step is a hit.
pub fn load_latency_ns(size_bytes: usize, budget_s: f64) -> f64 {
    let lines = (size_bytes / 64).max(2);
    let mut buf = vec![0usize; lines * LINE_WORDS];
    // SAFETY: advice on the pages holding memory we own (the start rounded down to its page,
    // as madvise wants); failure (no THP) changes nothing but the TLB's share.
    unsafe {
        let start = buf.as_mut_ptr() as usize;
        let page = start & !4095;
        libc::madvise(
            page as *mut libc::c_void,
            buf.len() * std::mem::size_of::<usize>() + (start - page),
            libc::MADV_HUGEPAGE,
        )
    };
    for (line, next) in random_cycle(lines).into_iter().enumerate() {
        buf[line * LINE_WORDS] = next * LINE_WORDS;
    }
    let mut p = 0;
    // One pass to bring what fits into the caches.
    for _ in 0..lines {
        p = buf[p];
    }
    let s = per_unit_s(budget_s, |k| {
        for _ in 0..k {
            p = black_box(buf[p]);
        }
    });
    black_box(p);
    s * 1e9
}

/// The clock the cores run code at, in Hz: a chain of dependent integer additions (one a
/// cycle on every current x86-64 core) timed for about `budget_s`, the best of five (a
/// virtual CPU's stolen time only slows it). None off x86-64.
pub fn loop_clock_hz(budget_s: f64) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        const ADDS_PER_ITER: f64 = 64.0;
        let best_s_per_iter = (0..5)
            .map(|_| {
                per_unit_s(budget_s / 5.0, |k| {
                    // SAFETY: register arithmetic only.
                    unsafe {
                        std::arch::asm!(
                            "2:",
                            ".rept 64",
                            "add {x}, 1",
                            ".endr",
                            "dec {n}",
                            "jnz 2b",
                            x = inout(reg) 0u64 => _,
                            n = inout(reg) k.max(1) => _,
                            options(nomem, nostack),
                        );
                    }
                })
            })
            .fold(f64::INFINITY, f64::min);
        Some(ADDS_PER_ITER / best_s_per_iter)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = budget_s;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positive(x: f64) -> bool {
        x.is_finite() && x > 0.0
    }

    #[test]
    fn every_primitive_is_a_positive_finite_number() {
        assert!(positive(memcpy_bytes_per_s(4096, 0.005)));
        let p = pipe_copy(65536, 16384, 0.005).unwrap();
        assert!(positive(p.write_bytes_per_s()) && positive(p.read_bytes_per_s()));
        assert!(positive(syscall_ns(0.005)));
        assert!(positive(load_latency_ns(1 << 16, 0.005)));
        let cpus = allowed_cpus().unwrap();
        assert!(!cpus.is_empty());
        assert!(positive(round_trip_ns(cpus[0], cpus[0], 200, 20).unwrap()));
        if let Some(hz) = loop_clock_hz(0.01) {
            assert!(positive(hz));
        }
    }

    #[test]
    fn a_chunk_larger_than_the_buffer_is_refused() {
        assert!(pipe_copy(4096, 8192, 0.001)
            .unwrap_err()
            .contains("chunk_bytes"));
    }

    #[test]
    fn the_chase_visits_every_line_once_per_cycle() {
        let lines = 1000;
        let next = random_cycle(lines);
        let (mut p, mut seen) = (0, std::collections::HashSet::new());
        for _ in 0..lines {
            seen.insert(p);
            p = next[p];
        }
        assert_eq!((seen.len(), p), (lines, 0));
    }
}
