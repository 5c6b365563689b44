/* Each rank reads its own arguments with getopt after MPI_Init, as OSU's benchmarks do,
 * one option per MPI call, and checks what it read: ranks that are coroutines of one
 * process must each keep getopt's state (optind, optarg) and their own globals. Run
 * with `-m 42 -v rest`. Exits 1 on a wrong value. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me = -1;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "rank %d: wrong %s\n", me, what);
        exit(1);
    }
}

int main(int argc, char **argv) {
    int size, c, m = 0, verbose = 0, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((c = getopt(argc, argv, "m:v")) != -1) {
        if (c == 'm') m = atoi(optarg);
        if (c == 'v') verbose = 1;
        /* The other ranks parse theirs while this one waits. */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    check(m == 42 && verbose == 1, "options");
    check(optind == argc - 1 && strcmp(argv[optind], "rest") == 0, "optind");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check(me == rank, "global (another rank's)");
    int sum = 0;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(sum == size * (size - 1) / 2 && me == rank, "sum of the ranks' globals");
    MPI_Finalize();
    return 0;
}
