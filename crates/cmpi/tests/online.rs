//! Real C programs built with simpicc, run by the on-line simulator. Times are worked
//! out by hand under the constant network (every message 5 us) and the flow protocol
//! (every send detached, no overheads); results are checked by the programs themselves
//! against what MPI defines (they exit 1 on a wrong byte).

use simpi::online::{run, Compute, InProcess, RunOptions, RunOutcome};
use simpi::replay::Model;
use simpi::workload::CollChoice;
use simpi::{Error, Protocol, SimTime};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const US: u64 = 1_000_000;

/// The test programs, compiled once per test binary into a private directory.
fn built() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("simpi-online-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
        for name in [
            "pingpong",
            "collectives",
            "failures",
            "anysource",
            "polling",
            "dup",
            "comms",
            "datatypes",
            "userop",
            "probe",
            "icoll",
            "persist",
            "topo",
            "errhan",
            "intercomm",
            "clockwait",
            "bsend",
            "rma",
            "smpi",
            "big",
            "ahead",
            "neighborhood",
            "icoll_many",
            "ssend",
            "cancel",
            "options",
        ] {
            let status = Command::new(env!("CARGO_BIN_EXE_simpicc"))
                .args(["-O1", "-Wall", "-Werror", "-o"])
                .arg(dir.join(name))
                .arg(src.join(format!("{name}.c")))
                .status()
                .expect("simpicc runs");
            assert!(status.success(), "simpicc failed on {name}.c");
        }
        let status = Command::new(env!("CARGO_BIN_EXE_simpif90"))
            .args(["-O1", "-Wall", "-o"])
            .arg(dir.join("fortran"))
            .arg(src.join("fortran.f90"))
            .status()
            .expect("simpif90 runs");
        assert!(status.success(), "simpif90 failed on fortran.f90");
        let status = Command::new(env!("CARGO_BIN_EXE_simpif90"))
            .args(["-O1", "-o"])
            .arg(dir.join("fortran_module"))
            .arg(src.join("fortran_module.f90"))
            .status()
            .expect("simpif90 runs");
        assert!(status.success(), "simpif90 failed on fortran_module.f90");
        dir
    })
}

fn simulate(program: &str, args: &[&str], ranks: u32) -> Result<RunOutcome, Error> {
    simulate_clock(program, args, ranks, 0)
}

/// [`simulate`] with clock reads costing `clock_cost_ps`.
fn simulate_clock(program: &str, args: &[&str], ranks: u32, clock_cost_ps: u64) -> Result<RunOutcome, Error> {
    simulate_with(program, args, ranks, clock_cost_ps, Protocol::flow())
}

/// [`simulate`] with clock reads costing `clock_cost_ps` and `protocol`, the ranks in
/// processes of their own and again as coroutines of this process: both give the
/// same times, calls and errors (the first run's outcome is returned).
fn simulate_with(
    program: &str,
    args: &[&str],
    ranks: u32,
    clock_cost_ps: u64,
    protocol: Protocol,
) -> Result<RunOutcome, Error> {
    let apart = simulate_as(program, args, ranks, clock_cost_ps, protocol.clone(), None);
    let together = simulate_as(program, args, ranks, clock_cost_ps, protocol, Some(IN_PROCESS));
    match (&apart, &together) {
        (Ok(a), Ok(b)) => assert_eq!(
            (&a.end_times, a.calls),
            (&b.end_times, b.calls),
            "{program} {args:?} on {ranks} ranks in processes, then in one"
        ),
        (Err(a), Err(b)) => assert_eq!(
            without_addresses(&a.to_string()),
            without_addresses(&b.to_string()),
            "{program} {args:?} on {ranks} ranks"
        ),
        (a, b) => panic!("{program} {args:?} on {ranks} ranks: in processes {a:?}, in one {b:?}"),
    }
    apart
}

/// `text` with its hexadecimal addresses (where a rank's buffer lay) left out.
fn without_addresses(text: &str) -> String {
    text.split(' ')
        .map(|w| if w.starts_with("0x") { "0x" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Ranks as coroutines, each with its own copy of the program.
const IN_PROCESS: InProcess = InProcess {
    shared_globals: false,
    stack_bytes: InProcess::DEFAULT_STACK,
};

/// One run of `program`, its ranks in processes (`in_process` `None`) or not.
fn simulate_as(
    program: &str,
    args: &[&str],
    ranks: u32,
    clock_cost_ps: u64,
    protocol: Protocol,
    in_process: Option<InProcess>,
) -> Result<RunOutcome, Error> {
    let colls = CollChoice::by_name("ompi").unwrap();
    run(RunOptions {
        program: built().join(program).into_os_string(),
        args: args.iter().map(OsString::from).collect(),
        ranks,
        model: Model::Constant {
            time: SimTime(5 * US),
            protocol,
        },
        colls: &colls,
        compute: Compute::None,
        test_cost_ps: US,
        clock_cost_ps,
        record: false,
        record_tit: None,
        one_core: true,
        in_process,
    })
}

#[test]
fn a_ping_pong_takes_two_message_times_per_round_and_wtime_sees_them() {
    // Ten rounds of two 5 us messages: rank 0 ends at 100 us; rank 1's last send is
    // detached, so it ends when its last message arrived, at 95 us. Rank 0 checks
    // that MPI_Wtime measured the 100 us.
    let out = simulate("pingpong", &["100e-6"], 2).unwrap();
    assert_eq!(out.end_times, vec![SimTime(100 * US), SimTime(95 * US)]);
    // Each rank: 10 sends and 10 receives, plus MPI_Finalize.
    assert_eq!(out.calls, 42);
    // A wrong expectation makes rank 0 fail: the check in the program can fail.
    let e = simulate("pingpong", &["99e-6"], 2).unwrap_err();
    assert!(
        e.to_string()
            .contains("rank 0 ended without calling MPI_Finalize (exit status 1)"),
        "{e}"
    );
}

#[test]
fn each_rank_keeps_its_globals_and_getopt_s_state_across_its_calls() {
    for ranks in [1, 3] {
        simulate("options", &["-m", "42", "-v", "rest"], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
    // The check can fail: a missing option is seen.
    let e = simulate("options", &["-v", "rest"], 2).unwrap_err();
    assert!(e.to_string().contains("exit status 1"), "{e}");
}

#[test]
fn calls_made_without_waiting_keep_their_simulated_times_and_their_data() {
    // Sends and non-blocking calls go to the simulator with the next call a rank
    // waits for. A send that waits for a receive posted at 1 ms returns at 1.005 ms
    // (MPI_Wtime right after it must say so); an exchange posted that way takes 5 us
    // more; then 100 messages of 20,000 bytes at once all arrive 5 us later. The
    // program checks each time and byte. Rank 1 ends when the last message arrives,
    // at 1.015 ms; rank 0's sends are detached (their requests complete when posted,
    // SMPI's rule), so it ends at 1.010 ms. A clock read that cost simulated time
    // (one posted as a call) would move these.
    let out = simulate_with("ahead", &[], 2, 0, Protocol::plain()).unwrap();
    assert_eq!(out.end_times, vec![SimTime(1010 * US), SimTime(1015 * US)]);
    // Per rank: 4 calls, 100 Isend or Irecv, MPI_Waitall, MPI_Finalize (the clock
    // reads are not MPI calls).
    assert_eq!(out.calls, 212);
}

#[test]
fn every_collective_gives_each_rank_the_result_mpi_defines() {
    for ranks in [1, 3, 4] {
        simulate("collectives", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn any_source_receives_match_in_simulated_time_order_and_runs_repeat_bit_for_bit() {
    // Rank r sends to rank 0 at (r - 1) x 5 us: rank 0's receives end at 5, 10, 15 us.
    let a = simulate("anysource", &[], 4).unwrap();
    assert_eq!(a.end_times[0], SimTime(15 * US));
    let b = simulate("anysource", &[], 4).unwrap();
    assert_eq!(a.end_times, b.end_times);
}

#[test]
fn a_failing_rank_ends_the_run_with_a_report_naming_it() {
    let cases = [
        (
            "crash",
            "rank 1 ended without calling MPI_Finalize (killed by signal 11)",
        ),
        ("exit", "rank 1 ended without calling MPI_Finalize (exit status 4)"),
        ("abort", "rank 1 called MPI_Abort with error code 7"),
        ("badrank", "rank 99 is not in MPI_COMM_WORLD (size 2)"),
        // Left in place for the simulator, which cannot hold it: an error, no abort.
        ("hugecount", "cannot hold the 576460752303423488 bytes"),
    ];
    for (mode, want) in cases {
        // A crash in a coroutine would take this test's process with it.
        let e = if mode == "crash" {
            simulate_as("failures", &[mode], 2, 0, Protocol::flow(), None)
        } else {
            simulate("failures", &[mode], 2)
        }
        .unwrap_err();
        assert!(e.to_string().contains(want), "{mode}: {e}");
    }
    let e = simulate("failures", &["deadlock"], 2).unwrap_err();
    assert!(e.is_stall(), "deadlock: {e}");
    // With MPI_ERRORS_RETURN the bad send returns MPI_ERR_RANK and the run goes on.
    simulate("failures", &["errreturn"], 2).unwrap();
}

#[test]
fn a_receive_polled_with_mpi_test_completes_once_its_message_arrived() {
    // The message arrives at 5 us; each test costs 1 us. Tests run back to back from
    // 0: the k-th covers [k-1, k] us. A test finds the request complete if the
    // message arrived by the end of its cost (SMPI's test sleeps first, then looks):
    // the fifth, ending at 5 us. Rank 1 then finalizes at 5 us.
    let out = simulate("polling", &["5"], 2).unwrap();
    assert_eq!(out.end_times, vec![SimTime(0), SimTime(5 * US)]);
}

#[test]
fn a_duplicate_of_the_world_has_its_own_matching_and_collectives() {
    simulate("dup", &[], 3).unwrap();
}

#[test]
fn split_create_and_dup_make_communicators_with_their_own_ranks_and_waitany_takes_the_first_done() {
    // The program checks every value (and the Waitany times of its header comment)
    // and exits with the failed check's number.
    for ranks in [4, 5] {
        simulate("comms", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn derived_datatypes_travel_packed_and_v_collectives_place_each_block() {
    for ranks in [2, 3, 5] {
        simulate("datatypes", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn a_reduction_with_the_programs_own_operation_keeps_the_rank_order() {
    for ranks in [1, 2, 5] {
        simulate("userop", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn a_probe_sees_a_message_once_sent_and_a_probe_for_none_is_a_deadlock() {
    // The times of the program's header comment are checked by the program.
    let out = simulate("probe", &[], 2).unwrap();
    assert_eq!(out.end_times[0], SimTime(12 * US));
    simulate("probe", &["matched"], 2).unwrap();
    let e = simulate("probe", &["deadlock"], 2).unwrap_err();
    assert!(
        e.is_stall() && e.to_string().contains("rank 0 probes for a message from 1 with tag 99"),
        "{e}"
    );
}

#[test]
fn a_synchronous_send_waits_for_its_receive_and_an_unsafe_program_deadlocks() {
    // The program checks that its synchronous sends were not complete before their
    // receives were posted, and the time that took.
    simulate("ssend", &[], 2).unwrap();
    let e = simulate("ssend", &["deadlock"], 2).unwrap_err();
    assert!(e.is_stall(), "{e}");
}

#[test]
fn a_receive_is_cancelled_only_until_it_matches() {
    for ranks in [2, 3] {
        simulate("cancel", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn non_blocking_collectives_overlap_and_complete_through_every_wait_and_test() {
    for ranks in [1, 3, 4] {
        simulate("icoll", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn persistent_requests_restart_with_the_buffers_current_contents() {
    for ranks in [1, 2, 4] {
        simulate("persist", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn grids_attributes_and_info_objects_behave_as_mpi_defines() {
    for ranks in [1, 4, 6] {
        simulate("topo", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn each_communicator_has_its_error_handler_and_added_error_codes_keep_their_class() {
    simulate("errhan", &[], 2).unwrap();
}

#[test]
fn a_fortran_program_runs_through_the_fortran_bindings() {
    for ranks in [1, 3, 4] {
        simulate("fortran", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn intercommunicators_join_two_groups_for_messages_and_merge_into_one() {
    for ranks in [2, 5, 6] {
        simulate("intercomm", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn a_loop_waiting_on_the_clock_ends_because_each_read_costs_time() {
    // 101 reads of 10 ns: the header comment of clockwait.c works the time out.
    let out = simulate_clock("clockwait", &[], 2, 10_000).unwrap();
    assert_eq!(out.end_times, vec![SimTime(1_010_000); 2]);
}

#[test]
fn a_buffered_send_returns_before_its_message_is_received() {
    // Under SMPI's thresholds 100 kB waits for its receive: two standard sends
    // deadlock, two buffered sends do not.
    simulate_with("bsend", &[], 2, 0, Protocol::plain()).unwrap();
    let e = simulate_with("bsend", &["send"], 2, 0, Protocol::plain()).unwrap_err();
    assert!(e.is_stall(), "{e}");
}

#[test]
fn one_sided_communication_moves_the_data_mpi_defines_through_every_window_and_synchronization() {
    for ranks in [1, 2, 3, 4] {
        simulate("rma", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
    // Ranks sharing hosts share a window's memory (2 and 3 ranks on two hosts).
    let xml =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/smpi-replay/osu_allreduce/platform.xml");
    let p = simpi::platform::load(&xml).unwrap();
    let colls = CollChoice::by_name("ompi").unwrap();
    let hosts = [0, 0, 1, 1, 1].map(simpi::platform::HostId).to_vec();
    run(RunOptions {
        program: built().join("rma").into_os_string(),
        args: Vec::new(),
        ranks: 5,
        model: Model::Flow {
            platform: &p,
            hosts,
            preset: simpi::Preset::smpi(),
        },
        colls: &colls,
        compute: Compute::None,
        test_cost_ps: US,
        clock_cost_ps: 0,
        record: false,
        record_tit: None,
        one_core: true,
        in_process: None,
    })
    .unwrap();
}

#[test]
fn a_put_between_fences_takes_one_message_time() {
    // Two ranks, 5 us per message: making the window is a barrier (one exchange,
    // 5 us), the first fence another (10 us); the put arrives at 15 us, the second
    // fence waits for it and exchanges (20 us), and MPI_Win_free is a barrier (25 us).
    let out = simulate("rma", &["timing"], 2).unwrap();
    assert_eq!(out.end_times, vec![SimTime(25 * US); 2]);
}

#[test]
fn an_access_outside_the_target_s_window_ends_the_run_naming_it() {
    let e = simulate("rma", &["outside"], 2).unwrap_err();
    assert!(
        e.to_string().contains("rank 0: Put on window")
            && e.to_string()
                .contains("bytes 16..20 lie outside rank 1's window of 16 bytes"),
        "{e}"
    );
}

#[test]
fn smpi_annotations_declare_time_sample_loops_and_share_memory() {
    // With --compute none: the declared 0.5 s and 2 Gflop (2 s at 1 Gflop/s) are
    // the run's only computation; the program checks the clock and the loop counts.
    for ranks in [1, 3] {
        let out = simulate("smpi", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
        let end = out.makespan().0;
        assert!((2_500_000 * US..2_600_000 * US).contains(&end), "{end} ps");
    }
    // Measured: the iterations a sampled loop skips count as their mean.
    let colls = CollChoice::by_name("ompi").unwrap();
    run(RunOptions {
        program: built().join("smpi").into_os_string(),
        args: vec![OsString::from("measure")],
        ranks: 1,
        model: Model::Constant {
            time: SimTime(5 * US),
            protocol: Protocol::flow(),
        },
        colls: &colls,
        compute: Compute::Measure { ps_per_ns: 1000.0 },
        test_cost_ps: US,
        clock_cost_ps: 0,
        record: false,
        record_tit: None,
        one_core: true,
        in_process: None,
    })
    .unwrap();
}

#[test]
fn a_recorded_run_replays_bit_for_bit_and_another_program_is_refused() {
    let colls = CollChoice::by_name("ompi").unwrap();
    let dir = std::env::temp_dir().join(format!("simpi-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("compute.txt");
    let with = |program: &str, compute: Compute| {
        run(RunOptions {
            program: built().join(program).into_os_string(),
            args: Vec::new(),
            ranks: 3,
            model: Model::Constant {
                time: SimTime(5 * US),
                protocol: Protocol::flow(),
            },
            colls: &colls,
            compute,
            test_cost_ps: US,
            clock_cost_ps: 0,
            record: false,
            record_tit: None,
            one_core: true,
            in_process: None,
        })
    };
    let recorded = with(
        "collectives",
        Compute::Record {
            ps_per_ns: 1000.0,
            path: file.clone(),
        },
    )
    .unwrap();
    let none = with("collectives", Compute::None).unwrap();
    // The record holds real computation: the run took longer than without any.
    assert!(recorded.makespan() > none.makespan());
    for _ in 0..2 {
        let again = with("collectives", Compute::Replay { path: file.clone() }).unwrap();
        assert_eq!(again.end_times, recorded.end_times);
    }
    let e = with("rma", Compute::Replay { path: file.clone() }).unwrap_err();
    assert!(e.to_string().contains("not the recorded run"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fortran_program_that_uses_the_mpi_module_runs() {
    for ranks in [1, 3] {
        simulate("fortran_module", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn neighborhood_collectives_isendrecv_and_generalized_requests_complete_as_mpi_defines() {
    for ranks in [1, 2, 3, 4] {
        simulate("neighborhood", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn non_blocking_collectives_in_flight_together_keep_their_messages_apart() {
    for ranks in [1, 4, 5] {
        simulate("icoll_many", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn bodies_beyond_the_mailbox_cross_in_both_directions() {
    for ranks in [1, 3] {
        simulate("big", &[], ranks).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}
