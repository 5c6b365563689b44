//! The constant network model through the facade: every message takes the same time,
//! whatever its size, so end times are sums of that time (worked out by hand).

mod common;

use simpi::{load, simulate, CollChoice, LoadOptions, Model, Protocol, SimTime, TimeUnit};

fn run(goal: &str, protocol: Protocol) -> Vec<u64> {
    let path = common::goal_file(goal);
    let speed = |_r: u32| 1e9;
    let coll = CollChoice::by_name("ompi").unwrap();
    let opts = LoadOptions {
        unit: TimeUnit::Us,
        ..common::load_options(&speed, &coll, 0.0, false)
    };
    let mut w = load(&path, &opts).unwrap();
    let model = Model::Constant {
        time: SimTime(5_000_000),
        protocol,
    };
    let r = simulate(&mut w, &model, common::quiet()).unwrap();
    r.end_times.iter().map(|t| t.ps() / 1_000_000).collect()
}

#[test]
fn a_chain_of_messages_takes_one_constant_time_per_hop_whatever_the_sizes() {
    // 0 -> 1 -> 2 -> 3 with 1 B, 1 MB and 1 GB messages: 5 us per hop under the flow
    // protocol (detached sends, no overheads), so rank r ends at 5r us; rank 0 at 0.
    let goal = "num_ranks 4
rank 0 { l1: send 1b to 1 tag 0 }
rank 1 { l1: recv 1b from 0 tag 0
l2: send 1000000b to 2 tag 0
l2 requires l1 }
rank 2 { l1: recv 1000000b from 1 tag 0
l2: send 1000000000b to 3 tag 0
l2 requires l1 }
rank 3 { l1: recv 1000000000b from 2 tag 0 }
";
    assert_eq!(run(goal, Protocol::flow()), vec![0, 5, 10, 15]);
}

#[test]
fn a_rendezvous_send_waits_for_its_receive_then_takes_the_constant_time() {
    // SMPI's protocol: a 1 MB send is not detached. Rank 1 computes 20 us before
    // posting its receive, so the message flows from 20 to 25 us and the send
    // completes then too; the 1 B send is detached and done at 0.
    let goal = "num_ranks 2
rank 0 { l1: send 1000000b to 1 tag 0
l2: send 1b to 1 tag 1 }
rank 1 { l1: calc 20
l2: recv 1000000b from 0 tag 0
l3: recv 1b from 0 tag 1
l2 requires l1
l3 requires l1 }
";
    assert_eq!(run(goal, Protocol::smpi()), vec![25, 25]);
}
