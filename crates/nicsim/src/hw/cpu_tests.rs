//! Unit tests of the processor: chunks, pieces, accounting.

use super::cpu::*;
use crate::config::{Category, ProcName};
use crate::units::{Freq, Time};

fn proc() -> Processor {
    Processor::new(ProcName::Cpu(0), Freq(400_000_000), 1.0, 64)
}

#[test]
fn a_copy_is_cut_into_batches_of_references() {
    let mut p = proc();
    let job = Job::new(Then::Thread(0)).with(Piece {
        cat: Some(Category::Copy),
        cycles: 1000.0,
        refs: 150.0,
        ..Default::default()
    });
    p.running = Some((Ctx::Process, job));
    let chunks: Vec<Chunk> = std::iter::from_fn(|| p.next_chunk()).collect();
    assert_eq!(chunks.len(), 3);
    assert_eq!(chunks[0].refs, 64.0);
    assert_eq!(chunks[2].refs, 22.0);
    let total: f64 = chunks.iter().map(|c| c.cycles).sum();
    assert!((total - 1000.0).abs() < 1e-6);
}

#[test]
fn pieces_run_in_order_and_pio_goes_with_the_first_chunk() {
    let mut p = proc();
    let job = Job::new(Then::HardIrq { dev: 0, taken: 0 })
        .with(Piece {
            cat: Some(Category::Os),
            cycles: 100.0,
            ..Default::default()
        })
        .with(Piece {
            cat: Some(Category::Driver),
            cycles: 50.0,
            refs: 100.0,
            pio_reads: 1,
            pio_writes: 2,
            ..Default::default()
        });
    p.running = Some((Ctx::HardIrq, job));
    let a = p.next_chunk().unwrap();
    assert_eq!(a.cat(), Category::Os);
    let b = p.next_chunk().unwrap();
    assert_eq!(
        (b.cat(), b.pio_reads, b.pio_writes),
        (Category::Driver, 1, 2)
    );
    let c = p.next_chunk().unwrap();
    assert_eq!((c.pio_reads, c.refs), (0, 36.0));
    assert!(p.next_chunk().is_none());
}

#[test]
fn each_part_carries_what_its_piece_touches_and_the_share_it_covers() {
    let mut p = proc();
    let data = JobData {
        flow: 1,
        buffer_addr: 1000,
        buffer_bytes: 4096,
        ..Default::default()
    };
    let job = Job::new(Then::Thread(0))
        .with(
            Piece {
                cat: Some(Category::Copy),
                cycles: 100.0,
                refs: 150.0,
                ..Default::default()
            }
            .touching(Touches::Buffer),
        )
        .with(Piece {
            cat: Some(Category::Os),
            cycles: 10.0,
            ..Default::default()
        })
        .with_data(data);
    p.running = Some((Ctx::Process, job));
    let chunks: Vec<Chunk> = std::iter::from_fn(|| p.next_chunk()).collect();
    // 150 references in batches of 64; the OS piece rides in the last, which has room.
    assert_eq!(chunks.len(), 3);
    assert_eq!(chunks[2].n_parts, 2);
    let os = chunks[2].parts[1];
    assert_eq!((os.cat, os.refs, os.cycles), (Category::Os, 0.0, 10.0));
    assert_eq!((os.touches, os.from, os.to), (Touches::Private, 0.0, 1.0));
    assert!(chunks.iter().all(|c| c.data == data));
    // The copy's three chunks cover its references in order: 64, 64 and 22 of 150.
    let shares: Vec<(f64, f64)> = chunks
        .iter()
        .map(|c| (c.parts[0].from, c.parts[0].to))
        .collect();
    for (k, &(from, to)) in shares.iter().enumerate() {
        let expect = [(0.0, 64.0), (64.0, 128.0), (128.0, 150.0)][k];
        assert!((from - expect.0 / 150.0).abs() < 1e-4, "{shares:?}");
        assert!((to - expect.1 / 150.0).abs() < 1e-4, "{shares:?}");
        assert_eq!(chunks[k].parts[0].touches, Touches::Buffer);
    }
}

#[test]
fn a_prepended_piece_runs_before_what_is_left() {
    let piece = |cycles| Piece {
        cat: Some(Category::Os),
        cycles,
        ..Default::default()
    };
    let mut fresh = Job::new(Then::Nothing).with(piece(1.0)).with(piece(2.0));
    fresh.prepend(piece(9.0));
    let order: Vec<f64> = fresh.pieces().map(|p| p.cycles).collect();
    assert_eq!(order, vec![9.0, 1.0, 2.0]);
    // A job already under way keeps its progress behind the new piece. (The second piece
    // writes a register, so it does not ride in the first one's chunk.)
    let mut p = proc();
    let second = Piece {
        pio_writes: 1,
        ..piece(2.0)
    };
    p.running = Some((
        Ctx::Process,
        Job::new(Then::Nothing).with(piece(1.0)).with(second),
    ));
    p.next_chunk();
    let (_, mut job) = p.running.take().unwrap();
    job.prepend(piece(9.0));
    let order: Vec<f64> = job
        .pieces()
        .filter(|p| !p.is_empty())
        .map(|p| p.cycles)
        .collect();
    assert_eq!(order, vec![9.0, 2.0]);
}

#[test]
fn short_pieces_ride_in_one_chunk_and_keep_their_categories() {
    let mut p = proc(); // 64 references per chunk
    let piece = |cat, refs, cycles| Piece {
        cat: Some(cat),
        cycles,
        refs,
        ..Default::default()
    };
    let job = Job::new(Then::Nothing)
        .with(piece(Category::Driver, 10.0, 100.0))
        .with(piece(Category::Tcpip, 20.0, 300.0))
        .with(piece(Category::Os, 40.0, 50.0))
        .with(Piece {
            pio_writes: 1,
            ..piece(Category::Driver, 1.0, 10.0)
        });
    p.running = Some((Ctx::Softirq, job));
    let chunks: Vec<Chunk> = std::iter::from_fn(|| p.next_chunk()).collect();
    // 10 + 20 fit in 64; adding 40 would not; the register write starts its own chunk.
    assert_eq!(chunks.len(), 3);
    assert_eq!(
        (chunks[0].n_parts, chunks[0].refs, chunks[0].cycles),
        (2, 30.0, 400.0)
    );
    let tcp = chunks[0].parts[1];
    assert_eq!(
        (tcp.cat, tcp.refs, tcp.cycles),
        (Category::Tcpip, 20.0, 300.0)
    );
    assert_eq!((chunks[1].n_parts, chunks[1].cat()), (1, Category::Os));
    assert_eq!(
        (chunks[2].cat(), chunks[2].pio_writes),
        (Category::Driver, 1)
    );
    // The chunk's time is split by the parts' work and sums to the whole.
    let c = chunks[0];
    let (t0, t1, t2) = (Time(0), Time(1_000), Time(31_000));
    let end = t2 + p.instr_time(c.cycles);
    p.running = Some((Ctx::Softirq, Job::new(Then::Nothing)));
    p.chunk = c;
    p.account_chunk(Ctx::Softirq, t0, t1, t2, end);
    let busy = p.stats.busy_ps;
    // Registers and a third of the stall go with the driver part; it ran first.
    let driver = 1_000 + 10_000 + p.instr_time(100.0).0;
    assert_eq!(busy[cat_index(Category::Driver)], driver);
    assert_eq!(busy[cat_index(Category::Tcpip)], end.0 - driver);
    assert_eq!(p.stats.ctx_ps[Ctx::Softirq as usize], end.0);
    // Half-way through the driver part, the TCP/IP part is all still to come.
    let (cat, _, stage) = p.busy_until(Time(driver / 2));
    assert_eq!(
        stage.iter().sum::<u64>(),
        cat.iter().sum::<u64>(),
        "stages and categories agree"
    );
    assert_eq!(cat[cat_index(Category::Tcpip)], 0);
    assert_eq!(cat[cat_index(Category::Driver)], driver / 2);
}

#[test]
fn a_piece_stays_small() {
    // Jobs are copied on every dispatch; a bigger piece measurably slows whole runs.
    assert_eq!(std::mem::size_of::<Piece>(), 24);
}

#[test]
fn a_full_job_takes_more_work_into_its_end_pieces_and_keeps_it() {
    let piece = |stage: u8, cycles: f64| Piece {
        cat: Some(Category::Os),
        cycles,
        stage,
        ..Default::default()
    };
    let mut j = Job::new(Then::Nothing);
    j.add_or_merge(piece(1, 10.0), false);
    j.add_or_merge(piece(2, 5.0), true);
    assert_eq!(j.pieces().map(|p| p.stage).collect::<Vec<_>>(), [2, 1]);
    for s in 3..9 {
        j.add_or_merge(piece(s, 1.0), false);
    }
    assert_eq!(j.pieces().count(), 8);
    j.add_or_merge(piece(20, 7.0), false);
    j.add_or_merge(piece(21, 3.0), true);
    let v: Vec<Piece> = j.pieces().collect();
    assert_eq!(v.len(), 8);
    assert_eq!((v[0].stage, v[0].cycles), (2, 8.0));
    assert_eq!((v[7].stage, v[7].cycles), (8, 8.0));
    assert_eq!(
        v.iter().map(|p| p.cycles).sum::<f64>(),
        10.0 + 5.0 + 6.0 + 7.0 + 3.0
    );
}

#[test]
fn a_span_cut_back_leaves_the_state_chunk_by_chunk_execution_has() {
    use crate::units::Duration;
    let job = || {
        Job::new(Then::Thread(0))
            .with(Piece {
                cat: Some(Category::Copy),
                cycles: 3000.0,
                refs: 640.0,
                ..Default::default()
            })
            .with(Piece {
                cat: Some(Category::Tcpip),
                cycles: 700.0,
                refs: 100.0,
                ..Default::default()
            })
    };
    // Each chunk: its references at 10 ns, then its instructions.
    let stall = |start: Time, c: &Chunk| start + Duration((c.refs * 10_000.0) as u64);
    let chunked = |n: usize| {
        let mut p = proc();
        p.running = Some((Ctx::Process, job()));
        let mut t = Time::ZERO;
        for _ in 0..n {
            assert!(p.cut_chunk());
            let s = stall(t, &p.chunk);
            let end = s + p.instr_time(p.chunk.cycles);
            p.account_chunk(Ctx::Process, t, t, s, end);
            t = end;
        }
        (p, t)
    };
    let (mut p, t0) = chunked(1);
    p.span_open();
    let mut t = t0;
    let mut starts = vec![];
    while p.next_is_plain() {
        starts.push(t);
        t = p.span_chunk(t, |c| stall(t, c));
    }
    assert_eq!(p.span_len(), 11, "640 + 100 references in chunks of 64");
    let (whole, end) = chunked(12);
    assert_eq!((p.chunk_end, p.stats.busy_ps), (end, whole.stats.busy_ps));
    // Something arrives inside the fourth chunk: cut back to the fifth's start.
    let at = starts[3] + Duration(1);
    assert_eq!(p.span_cut(at), Some(starts[4]));
    let (four, _) = chunked(5);
    assert_eq!(p.chunk_end, four.chunk_end);
    assert_eq!(p.stats.busy_ps, four.stats.busy_ps);
    assert_eq!(p.stats.instructions_stage, four.stats.instructions_stage);
    let rest = |p: &mut Processor| {
        std::iter::from_fn(|| p.next_chunk())
            .map(|c| c.refs)
            .collect::<Vec<_>>()
    };
    let mut four = four;
    assert_eq!(rest(&mut p), rest(&mut four));
}
