#!/usr/bin/python3
"""Writes the hand-written OTF2 trace of this directory (python3-otf2, Debian's OTF2 3.0
bindings): `/usr/bin/python3 make.py` rewrites traces.otf2, traces.def and traces/.

Three ranks; ticks of 100 ns (timer resolution 10^7 per second), timestamps from 50000
(the clock's offset, which changes nothing: only differences on one rank matter).
Computation is the time between the Leave of one MPI call and the Enter of the next, at
10^9 flop/s on hosts of 10^9 flop/s: the measured time itself; gaps under 1 us add up.

Replayed under LogGOPS with L=1000 o=100 g=0 G=0 O=0 (ns), eager, collectives by the
first registered algorithm (a two-rank bcast is one message from the root), by hand
(C_r: rank r's CPU busy-until, in ns from the start):

rank 2: Init ends at 50000; the tracer flushed its buffer from 50010 to 50020 (1 us that
  is not computation); MPI_Bcast on "sub" (ranks 2, 1; root 2) entered at 50030:
  compute 3 - 1 = 2 us -> C2 = 2000; sends 10 B to rank 1 at 2000 (C2 = 2100, arrives
  3100); MPI_Finalize at 50131: compute 10 us from 2100 -> ends at 12100.
rank 1: Init ends at 50020; MPI_Comm_rank 50025-50035 is no call simpi models, so its time
  stays computation: MPI_Recv entered at 50060 -> compute 4 us, C1 = 4000, receive posted.
  The bcast message arrived at 3100 and is taken in when the CPU is free, at 4000
  (C1 = 4100), unexpected (another communicator).
  Rank 0's 100 B arrive at 13100 -> C1 = 13200, the receive completes.
  MPI_Isend at 50170 (2 us after 50150): compute 13200-15200, send 50 B at 15200
  (C1 = 15300, arrives at rank 0 at 16300). MPI_Wait at 50176: 0.5 us, carried.
  MPI_Bcast at 50182: 0.5 us more makes 1 us -> compute 15300-16300, then the bcast
  receive finds its message waiting. MPI_Finalize at 50290 (10 us after 50190):
  compute 16300-26300 -> ends at 26300.
rank 0: Init ends at 50010; a user function "main" (no MPI) changes nothing.
  MPI_Irecv at 50110: compute 10 us -> C0 = 10000, receive posted. MPI_Send at 50131:
  compute 2 us (to 12000), send 100 B at 12000 (C0 = 12100, arrives at 13100).
  MPI_Wait at 50192: compute 6 us, 12100-18100. The reply arrived at 16300 and is taken
  in when the CPU is free: 18100 -> C0 = 18200, the receive and the wait complete.
  MPI_Finalize at 50300 (10 us after 50200): compute 18200-28200 -> ends at 28200.
"""
import os
import shutil

import otf2
from otf2.enums import CollectiveOp, GroupType, Paradigm, RegionRole

here = os.path.dirname(os.path.abspath(__file__))
for old in ("traces", "traces.otf2", "traces.def"):
    p = os.path.join(here, old)
    if os.path.isdir(p):
        shutil.rmtree(p)
    elif os.path.exists(p):
        os.remove(p)

with otf2.writer.open(here, timer_resolution=10_000_000) as tr:
    d = tr.definitions
    node = d.system_tree_node("node")
    locs = []
    for r in range(3):
        lg = d.location_group(f"MPI Rank {r}", system_tree_parent=node)
        locs.append(d.location("Master thread", group=lg))
    d.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locs)
    world = d.comm("MPI_COMM_WORLD", group=d.group(
        "world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=[0, 1, 2]))
    sub = d.comm("sub", group=d.group(
        "sub", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=[2, 1]))
    mpi = {n: d.region(n, paradigm=Paradigm.MPI, region_role=RegionRole.FUNCTION)
           for n in ["MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Irecv",
                     "MPI_Isend", "MPI_Wait", "MPI_Bcast", "MPI_Comm_rank"]}
    main = d.region("main", paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
    w = [tr.event_writer_from_location(l) for l in locs]

    def call(writer, name, enter, leave, events=()):
        writer.enter(enter, mpi[name])
        for e in events:
            e(writer)
        writer.leave(leave, mpi[name])

    # Rank 0.
    call(w[0], "MPI_Init", 50000, 50010)
    w[0].enter(50010, main)
    call(w[0], "MPI_Irecv", 50110, 50111, [lambda x: x.mpi_irecv_request(50110, 1)])
    call(w[0], "MPI_Send", 50131, 50132, [lambda x: x.mpi_send(50131, 1, world, 7, 100)])
    call(w[0], "MPI_Wait", 50192, 50200, [lambda x: x.mpi_irecv(50200, 1, world, 8, 50, 1)])
    w[0].leave(50201, main)
    call(w[0], "MPI_Finalize", 50300, 50301)
    # Rank 1.
    call(w[1], "MPI_Init", 50000, 50020)
    call(w[1], "MPI_Comm_rank", 50025, 50035)
    call(w[1], "MPI_Recv", 50060, 50150, [lambda x: x.mpi_recv(50150, 0, world, 7, 100)])
    call(w[1], "MPI_Isend", 50170, 50171, [lambda x: x.mpi_isend(50170, 0, world, 8, 50, 5)])
    call(w[1], "MPI_Wait", 50176, 50177, [lambda x: x.mpi_isend_complete(50177, 5)])
    call(w[1], "MPI_Bcast", 50182, 50190, [
        lambda x: x.mpi_collective_begin(50182),
        lambda x: x.mpi_collective_end(50190, CollectiveOp.BCAST, sub, 0, 0, 10)])
    call(w[1], "MPI_Finalize", 50290, 50291)
    # Rank 2: the bcast's root (rank 0 of "sub"): Score-P counts n * 10 bytes sent.
    call(w[2], "MPI_Init", 50000, 50000)
    w[2].buffer_flush(50010, 50020)
    call(w[2], "MPI_Bcast", 50030, 50031, [
        lambda x: x.mpi_collective_begin(50030),
        lambda x: x.mpi_collective_end(50031, CollectiveOp.BCAST, sub, 0, 20, 10)])
    call(w[2], "MPI_Finalize", 50131, 50132)
