//! Send buffers by organisation (stacks.md §B.2): how many kernel buffers a send allocates.

use crate::config::Buffers;

/// A BSD cluster (AIX: 4 KB), and a small mbuf's usable bytes.
pub const CLUSTER_BYTES: u64 = 4096;
pub const MBUF_BYTES: u64 = 236;
/// Up to this remainder, small mbufs; above it, one more cluster.
pub const SMALL_MAX_BYTES: u64 = 936;

/// The buffers AIX's BSD allocates for `bytes` (§B.2, nicsim's reading [I]): a cluster per
/// whole 4 KB, then a remainder of at most 936 bytes in small mbufs, else one more cluster.
/// Returns (clusters, small mbufs).
pub fn bsd_mbufs(bytes: u64) -> (u64, u64) {
    let (clusters, rest) = (bytes / CLUSTER_BYTES, bytes % CLUSTER_BYTES);
    match rest {
        0 => (clusters, 0),
        r if r <= SMALL_MAX_BYTES => (clusters, r.div_ceil(MBUF_BYTES)),
        _ => (clusters + 1, 0),
    }
}

/// What one send allocates: the buffers, and the free room left in the last of them. BSD first
/// fills the free tail of the send list's last buffer (`tail_room`), so a small write after
/// another usually allocates nothing.
pub fn send_buffers(policy: Buffers, bytes: u64, tail_room: u64) -> (u32, u64) {
    match policy {
        Buffers::Skb => (1, 0),
        Buffers::StreamsMblk => (2, 0),
        Buffers::BsdMbuf if bytes <= tail_room => (0, tail_room - bytes),
        Buffers::BsdMbuf => {
            let need = bytes - tail_room;
            let (clusters, small) = bsd_mbufs(need);
            let capacity = clusters * CLUSTER_BYTES + small * MBUF_BYTES;
            ((clusters + small) as u32, capacity - need)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_mbufs_up_to_936_bytes_then_a_cluster_again_at_every_4_kb() {
        assert_eq!(bsd_mbufs(1), (0, 1));
        assert_eq!(bsd_mbufs(236), (0, 1));
        assert_eq!(bsd_mbufs(237), (0, 2));
        assert_eq!(bsd_mbufs(936), (0, 4));
        assert_eq!(bsd_mbufs(937), (1, 0));
        assert_eq!(bsd_mbufs(1024), (1, 0));
        assert_eq!(bsd_mbufs(4096), (1, 0));
        assert_eq!(bsd_mbufs(4097), (1, 1));
        assert_eq!(bsd_mbufs(4096 + 936), (1, 4));
        assert_eq!(bsd_mbufs(4096 + 937), (2, 0));
        assert_eq!(bsd_mbufs(0), (0, 0));
    }

    #[test]
    fn bsd_appends_to_the_last_buffers_tail_before_allocating() {
        // 100 B: one small mbuf, 136 B of it free; the next 100 B fit in that tail.
        assert_eq!(send_buffers(Buffers::BsdMbuf, 100, 0), (1, 136));
        assert_eq!(send_buffers(Buffers::BsdMbuf, 100, 136), (0, 36));
        // 1024 B after a 36-byte tail: 988 B more, a cluster.
        assert_eq!(send_buffers(Buffers::BsdMbuf, 1024, 36), (1, 4096 - 988));
        assert_eq!(send_buffers(Buffers::Skb, 100, 136), (1, 0));
        // The Stream-Head cannot see TCP's send list: a data block and an M_PROTO block.
        assert_eq!(send_buffers(Buffers::StreamsMblk, 100, 136), (2, 0));
    }
}
