/* A Jacobi iteration's skeleton as a real MPI program (PEVPM's example, seed
 * mpibench-pevpm): ranks on a line; each iteration every rank sends a 1 KiB edge to
 * each neighbour and receives theirs, then "computes" for a fixed time, emulated by
 * sleeping so that ranks sharing cores do not slow each other's compute (PEVPM's
 * Serial directive is a duration too).
 *
 *   jacobi ITERATIONS COMPUTE_US
 *
 * Rank 0 prints `jacobi <ranks> <iterations> <seconds>`: the time from a barrier after
 * MPI_Init to the end of the last iteration (the slowest rank's).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define EDGE 1024

static void compute(double seconds) {
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 3) {
        if (me == 0) fprintf(stderr, "usage: jacobi ITERATIONS COMPUTE_US\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long iters = atol(argv[1]);
    double work = atof(argv[2]) * 1e-6;
    static char out_l[EDGE], out_r[EDGE], in_l[EDGE], in_r[EDGE];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        MPI_Request req[4];
        int k = 0;
        if (me > 0) {
            MPI_Irecv(in_l, EDGE, MPI_BYTE, me - 1, 0, MPI_COMM_WORLD, &req[k++]);
            MPI_Isend(out_l, EDGE, MPI_BYTE, me - 1, 0, MPI_COMM_WORLD, &req[k++]);
        }
        if (me < n - 1) {
            MPI_Irecv(in_r, EDGE, MPI_BYTE, me + 1, 0, MPI_COMM_WORLD, &req[k++]);
            MPI_Isend(out_r, EDGE, MPI_BYTE, me + 1, 0, MPI_COMM_WORLD, &req[k++]);
        }
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        compute(work);
    }
    double mine = MPI_Wtime() - t0, slowest = 0.0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) printf("jacobi %d %ld %.6f\n", n, iters, slowest);
    MPI_Finalize();
    return 0;
}
