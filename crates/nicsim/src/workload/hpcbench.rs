//! Hpcbench-style streaming with an application-load thread (host-path §7.3, §7.4): the
//! receiver hands each message to a load thread through a bounded queue; the load thread
//! spends `a` cycles per byte on it. A full queue blocks the receiver, which backs up into
//! the TCP window, so no data is lost however heavy the load.

/// Load-thread work for one message of `bytes`: (cycles, memory references).
pub fn message_work(bytes: u64, cycles_per_byte: f64, refs_per_byte: f64) -> (f64, f64) {
    (cycles_per_byte * bytes as f64, refs_per_byte * bytes as f64)
}
