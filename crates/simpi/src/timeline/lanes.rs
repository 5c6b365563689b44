//! Lanes: each rank's spans spread over as few lanes as possible so that the spans of a
//! lane never overlap (interval partitioning: spans by start time, each on the lowest
//! lane free at its start; a new lane only when every lane is busy, so a rank gets as
//! many lanes as it has spans at once).
//!
//! A span may start on a lane the instant the previous one ended there, except an empty
//! span (start = end), which shares no instant with another span of its lane: viewers
//! find a span by a time inside it, which must not be ambiguous.

use crate::analysis::Span;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The lane of a span that is not shown.
pub(crate) const NONE: u32 = u32::MAX;

/// Lanes for the spans `kept` (indices into `spans`, sorted by rank, start, end): the
/// lane of every span by index ([`NONE`] for those not kept) and the number of lanes of
/// every rank below `ranks`.
pub(crate) fn assign(spans: &[Span], kept: &[usize], ranks: u32) -> (Vec<u32>, Vec<u32>) {
    let mut lane = vec![NONE; spans.len()];
    let mut lanes = vec![0u32; ranks as usize];
    // Busy lanes by (end, whether their last span is empty, lane); free lanes, lowest first.
    let mut busy: BinaryHeap<Reverse<(u64, bool, u32)>> = BinaryHeap::new();
    let mut free: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
    let mut rank = None;
    for &i in kept {
        let s = &spans[i];
        if rank != Some(s.rank) {
            rank = Some(s.rank);
            busy.clear();
            free.clear();
        }
        let empty = s.end <= s.start;
        while let Some(&Reverse((end, was_empty, l))) = busy.peek() {
            let done = end < s.start || (end == s.start && !empty && !was_empty);
            if !done {
                break;
            }
            busy.pop();
            free.push(Reverse(l));
        }
        let n = &mut lanes[s.rank as usize];
        let l = match free.pop() {
            Some(Reverse(l)) => l,
            None => {
                *n += 1;
                *n - 1
            }
        };
        lane[i] = l;
        busy.push(Reverse((s.end, empty, l)));
    }
    (lane, lanes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(rank: u32, start: u64, end: u64) -> Span {
        Span {
            rank,
            label: String::new(),
            start,
            end,
        }
    }

    fn lanes_of(spans: &[Span]) -> (Vec<u32>, Vec<u32>) {
        let mut kept: Vec<usize> = (0..spans.len()).collect();
        kept.sort_by_key(|&i| (spans[i].rank, spans[i].start, spans[i].end, i));
        assign(spans, &kept, 2)
    }

    #[test]
    fn the_thesis_example_needs_two_lanes() {
        // compute 0..100, recv 0..5654, send 100..1600 (ns): the send follows the
        // compute on lane 0, the receive overlaps both.
        let (lane, lanes) = lanes_of(&[span(0, 0, 100), span(0, 0, 5654), span(0, 100, 1600)]);
        assert_eq!(lane, [0, 1, 0]);
        assert_eq!(lanes, [2, 0]);
    }

    #[test]
    fn lanes_are_reused_lowest_first_and_ranks_start_over() {
        // Three spans at once on rank 0; one at 10 takes lane 0 (free at 10); one at 30
        // finds lanes 1 and 2 free and takes 1, the lowest; rank 1 starts at lane 0.
        let spans = [
            span(0, 0, 10),
            span(0, 0, 20),
            span(0, 0, 30),
            span(0, 10, 40),
            span(0, 30, 35),
            span(1, 5, 6),
        ];
        let (lane, lanes) = lanes_of(&spans);
        assert_eq!(lane, [0, 1, 2, 0, 1, 0]);
        assert_eq!(lanes, [3, 1]);
    }

    #[test]
    fn an_empty_span_shares_no_instant_with_its_neighbours() {
        // 0..10 then an empty span at 10 then 10..20: the empty one gets a lane of its
        // own; 10..20 follows 0..10 on lane 0.
        let (lane, _) = lanes_of(&[span(0, 0, 10), span(0, 10, 10), span(0, 10, 20)]);
        assert_eq!(lane, [0, 1, 0]);
    }
}
