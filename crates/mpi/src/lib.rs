//! MPI semantics and the engine that simulates them.
//!
//! Every way into simpi ends here: a GOAL schedule as a whole [`Schedule`], or a rank
//! program (a trace, a pattern, a live program) making MPI calls whose operations are
//! created as the rank reaches them. The [`engine`] runs operations from either under
//! LogGOPSim's LogGOPS rules or SMPI's protocol over any network model.

pub mod calls;
pub mod coll;
pub mod comm;
pub mod cxx_sort;
pub mod driver;
pub mod engine;
mod error;
pub mod live;
pub mod matching;
pub mod noise;
pub mod op;
pub mod preset;
pub mod protocol;
pub mod schedule;
pub mod sink;

pub use engine::cpu::CpuSharing;
pub use engine::{CallRecord, OpRecord, OpTime, NO_MATCH, NO_PEER};
pub use engine::{Outcome, Pending, Progress, RunStats, Stall, StalledRank};
pub use error::Error;
pub use op::{Op, OpId, OpKind, Rank, ANY_SOURCE, ANY_TAG};
pub use preset::Preset;
pub use protocol::Protocol;
pub use schedule::{BuildError, Schedule, ScheduleBuilder, Successors};
pub use simpi_net::LogGops as LogGopsParams;

use engine::loggops::LogGopsRules;
use engine::smpi::SmpiRules;
use engine::{Engine, OpStore, ScheduleStore};
use simpi_net::{FlowNetwork, HostId, LogGops, NetworkModel, Platform};

/// Simulates `sched` under LogGOPS with LogGOPSim's semantics.
pub fn run_loggops(
    sched: &mut Schedule,
    model: &LogGops,
    progress: Option<&mut dyn FnMut(Progress)>,
) -> Result<Outcome, Error> {
    run_loggops_with(sched, model, progress, false)
}

/// [`run_loggops`], optionally recording every operation ([`Outcome::records`]).
pub fn run_loggops_with(
    sched: &mut Schedule,
    model: &LogGops,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> Result<Outcome, Error> {
    run_loggops_on(ScheduleStore::new(sched), model, progress, record).0
}

/// Simulates `sched` with SMPI's protocol `proto` over network `net`, rank `r` on host
/// `hosts[r]`.
pub fn run_smpi<N: NetworkModel>(
    sched: &mut Schedule,
    net: N,
    proto: Protocol,
    hosts: &[HostId],
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> Result<Outcome, Error> {
    assert!(hosts.len() >= sched.num_ranks() as usize, "every rank needs a host");
    let hosts = hosts[..sched.num_ranks() as usize].to_vec();
    run_smpi_on(
        ScheduleStore::new(sched),
        net,
        proto,
        hosts,
        CpuSharing::none(),
        progress,
        record,
    )
    .0
}

/// [`run_smpi`] over the flow network of `platform` with `preset`'s parameters.
pub fn run_flow(
    sched: &mut Schedule,
    platform: &Platform,
    hosts: &[HostId],
    preset: Preset,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> Result<Outcome, Error> {
    let net = FlowNetwork::new(platform, preset.network);
    run_smpi(sched, net, preset.protocol, hosts, progress, record)
}

/// Runs the operations of `store` under LogGOPS; gives the store back with the result.
pub fn run_loggops_on<S: OpStore>(
    store: S,
    model: &LogGops,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> (Result<Outcome, Error>, S) {
    let rules = LogGopsRules::new(*model, store.num_ranks(), store.cpus(), store.nics());
    let mut e = Engine::new(store, rules, progress, record);
    let out = e.run_to_end();
    (out, e.into_store())
}

/// Runs the operations of `store` under LogGOPS with messages crossing `net` instead of
/// taking `L` (the LogGOPSim + InfiniBand coupling), rank `r` on `hosts[r]`; gives the
/// store back with the result.
pub fn run_loggops_over<S: OpStore, N: NetworkModel>(
    store: S,
    model: &LogGops,
    net: N,
    hosts: Vec<HostId>,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> (Result<Outcome, Error>, S) {
    assert_eq!(hosts.len(), store.num_ranks() as usize, "every rank needs a host");
    let rules = LogGopsRules::over(*model, net, hosts, store.cpus(), store.nics());
    let mut e = Engine::new(store, rules, progress, record);
    let out = e.run_to_end();
    (out, e.into_store())
}

/// [`run_loggops_on`] with OS noise charged as LogGOPSim charges it; `noise` must
/// have an offset for every rank of the store.
pub fn run_loggops_noisy_on<S: OpStore>(
    store: S,
    model: &LogGops,
    noise: &noise::HostNoise<'_>,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> (Result<Outcome, Error>, S) {
    if noise.offsets().len() < store.num_ranks() as usize {
        let msg = format!(
            "the noise has offsets for {} ranks, the workload has {}",
            noise.offsets().len(),
            store.num_ranks()
        );
        return (Err(Error::BadParameter(msg)), store);
    }
    let rules = LogGopsRules::with_noise(*model, store.num_ranks(), store.cpus(), store.nics(), noise);
    let mut e = Engine::new(store, rules, progress, record);
    let out = e.run_to_end();
    (out, e.into_store())
}

/// Runs the operations of `store` with SMPI's protocol `proto` over `net`, rank `r` on
/// `hosts[r]`, ranks sharing CPUs as `cpus` says; gives the store back with the result.
pub fn run_smpi_on<S: OpStore, N: NetworkModel>(
    store: S,
    net: N,
    proto: Protocol,
    hosts: Vec<HostId>,
    cpus: CpuSharing,
    progress: Option<&mut dyn FnMut(Progress)>,
    record: bool,
) -> (Result<Outcome, Error>, S) {
    assert_eq!(hosts.len(), store.num_ranks() as usize, "every rank needs a host");
    if let Err(e) = cpus.validate() {
        return (Err(Error::BadParameter(e)), store);
    }
    let rules = SmpiRules::new(net, proto, hosts, store.cpus()).with_sharing(cpus);
    let mut e = Engine::new(store, rules, progress, record);
    let out = e.run_to_end();
    (out, e.into_store())
}
