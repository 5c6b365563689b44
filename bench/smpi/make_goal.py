#!/usr/bin/env python3
"""Write the GOAL schedule equivalent to one of the SMPI reference programs.

    make_goal.py <case>            print the schedule of <case> on stdout
    make_goal.py --list            print every case name, one per line

Cases (see README.md):
    pingpong-<bytes>               2 ranks, one round trip (programs/pingpong.c)
    concurrent-<N>                 16 ranks, ranks 0..N-1 send 1 MiB to rank r+8 (programs/concurrent.c)
    ring-<platform>                every rank irecv from r-1, isend to r+1, 1 MiB (programs/ring.c)
    pairwise-<platform>            for k = 1..P-1 exchange 256 KiB with r XOR k, tag k (programs/pairwise.c)

Semantics used by simpi's replay: `send` is a blocking MPI_Send, `recv` a blocking MPI_Recv,
`a requires b` is program order, and operations with no dependency between them run
concurrently (MPI_Isend/MPI_Irecv followed by MPI_Waitall). With SMPI's default ois = 0 and
sizes >= 65536 (rendezvous), an MPI_Isend + MPI_Waitall ends exactly like an MPI_Send.
"""
import sys

PINGPONG_SIZES = [1, 100, 1000, 10000, 65535, 65536, 100000, 1048576, 16777216]
CONCURRENT_FLOWS = [1, 2, 4, 8]
CONCURRENT_BYTES = 1048576
CONCURRENT_OFFSET = 8
RING_BYTES = 1048576
PAIRWISE_BYTES = 262144
# platform -> number of hosts (= ranks, one rank per host in platform order)
PLATFORMS = {"flat": 16, "cabinets": 8, "fattree": 16, "torus": 8}


def cases():
    out = [f"pingpong-{s}" for s in PINGPONG_SIZES]
    out += [f"concurrent-{n}" for n in CONCURRENT_FLOWS]
    out += [f"ring-{p}" for p in PLATFORMS]
    out += [f"pairwise-{p}" for p in PLATFORMS]
    return out


def pingpong(size):
    return [
        f"// pingpong-{size}: one round trip of {size} bytes between ranks 0 and 1 (tag 0).",
        "// rank 0: MPI_Send then MPI_Recv; rank 1: MPI_Recv then MPI_Send.",
        "num_ranks 2",
        "rank 0 {",
        f"s: send {size}b to 1 tag 0",
        f"r: recv {size}b from 1 tag 0",
        "r requires s",
        "}",
        "rank 1 {",
        f"r: recv {size}b from 0 tag 0",
        f"s: send {size}b to 0 tag 0",
        "s requires r",
        "}",
    ]


def concurrent(nflows, nranks=16):
    b, off = CONCURRENT_BYTES, CONCURRENT_OFFSET
    lines = [
        f"// concurrent-{nflows}: ranks 0..{nflows - 1} MPI_Send {b} bytes to rank r+{off} (tag 0),",
        f"// ranks {off}..{off + nflows - 1} MPI_Recv them; the other ranks do nothing.",
        f"num_ranks {nranks}",
    ]
    for r in range(nflows):
        lines += [f"rank {r} {{", f"s: send {b}b to {r + off} tag 0", "}"]
    for r in range(off, off + nflows):
        lines += [f"rank {r} {{", f"r: recv {b}b from {r - off} tag 0", "}"]
    return lines


def ring(platform):
    p, b = PLATFORMS[platform], RING_BYTES
    lines = [
        f"// ring-{platform}: {p} ranks; each posts MPI_Irecv {b} bytes from (r-1+P)%P and",
        f"// MPI_Isend {b} bytes to (r+1)%P (tag 0), then MPI_Waitall: no dependency between them.",
        f"num_ranks {p}",
    ]
    for r in range(p):
        lines += [
            f"rank {r} {{",
            f"r: recv {b}b from {(r - 1 + p) % p} tag 0",
            f"s: send {b}b to {(r + 1) % p} tag 0",
            "}",
        ]
    return lines


def pairwise(platform):
    p, b = PLATFORMS[platform], PAIRWISE_BYTES
    lines = [
        f"// pairwise-{platform}: {p} ranks; for k = 1..{p - 1}, partner = r XOR k: MPI_Irecv and",
        f"// MPI_Isend {b} bytes with the partner (tag k), MPI_Waitall. Step k's two ops are",
        "// independent; both ops of step k+1 require both ops of step k.",
        f"num_ranks {p}",
    ]
    for r in range(p):
        lines.append(f"rank {r} {{")
        for k in range(1, p):
            partner = r ^ k
            lines.append(f"r{k}: recv {b}b from {partner} tag {k}")
            lines.append(f"s{k}: send {b}b to {partner} tag {k}")
            if k > 1:
                for a in (f"r{k}", f"s{k}"):
                    for d in (f"r{k - 1}", f"s{k - 1}"):
                        lines.append(f"{a} requires {d}")
        lines.append("}")
    return lines


def schedule(case):
    kind, _, arg = case.partition("-")
    if kind == "pingpong" and arg.isdigit():
        return pingpong(int(arg))
    if kind == "concurrent" and arg.isdigit() and 0 < int(arg) <= CONCURRENT_OFFSET:
        return concurrent(int(arg))
    if kind == "ring" and arg in PLATFORMS:
        return ring(arg)
    if kind == "pairwise" and arg in PLATFORMS:
        return pairwise(arg)
    raise SystemExit(f"make_goal.py: unknown case '{case}'")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    if sys.argv[1] == "--list":
        print("\n".join(cases()))
    else:
        print("\n".join(schedule(sys.argv[1])))


if __name__ == "__main__":
    main()
