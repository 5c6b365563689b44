/* Every collective simpi simulates, with results checked against what MPI defines;
 * exits 1 (naming the call) on a wrong result. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "rank %d: wrong result of %s\n", rank, what);
        exit(1);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int root = size - 1;

    double x[2] = {rank + 1.0, 2.0 * rank}, y[2] = {0, 0};
    MPI_Allreduce(x, y, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check(y[0] == size * (size + 1) / 2.0 && y[1] == size * (size - 1.0), "MPI_Allreduce");

    int m = rank * 3 % size, mx = -1;
    MPI_Reduce(&m, &mx, 1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
    if (rank == root) {
        int want = 0;
        for (int r = 0; r < size; r++) want = r * 3 % size > want ? r * 3 % size : want;
        check(mx == want, "MPI_Reduce");
    }

    int inplace = rank;
    MPI_Allreduce(MPI_IN_PLACE, &inplace, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
    check(inplace == 0, "MPI_Allreduce in place");

    struct { double v; int i; } loc = {(double)(rank % 2), rank}, best;
    MPI_Allreduce(&loc, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    check(best.v == (size > 1 ? 1.0 : 0.0) && best.i == (size > 1 ? 1 : 0), "MPI_Allreduce MAXLOC");

    long msg[3] = {0, 0, 0};
    if (rank == root) { msg[0] = 11; msg[1] = 22; msg[2] = 33; }
    MPI_Bcast(msg, 3, MPI_LONG, root, MPI_COMM_WORLD);
    check(msg[0] == 11 && msg[1] == 22 && msg[2] == 33, "MPI_Bcast");

    int *all = malloc(sizeof(int) * size * size);
    int mine = 100 + rank;
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++) check(all[r] == 100 + r, "MPI_Gather");
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) check(all[r] == 100 + r, "MPI_Allgather");

    int got = -1;
    if (rank == root)
        for (int r = 0; r < size; r++) all[r] = 7 * r;
    MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, root, MPI_COMM_WORLD);
    check(got == 7 * rank, "MPI_Scatter");

    int *out = malloc(sizeof(int) * size), *in = malloc(sizeof(int) * size);
    for (int d = 0; d < size; d++) out[d] = 1000 * rank + d;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++) check(in[s] == 1000 * s + rank, "MPI_Alltoall");

    /* Alltoallv: rank s sends s + 1 ints to rank d, valued 100 s + d, into a buffer
     * with a gap of one int before each block. */
    int *vs = malloc(sizeof(int) * size * size), *vr = malloc(sizeof(int) * 2 * size * size);
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    for (int d = 0, at = 0; d < size; d++) {
        sc[d] = rank + 1;
        sd[d] = at;
        for (int k = 0; k < rank + 1; k++) vs[at++] = 100 * rank + d;
    }
    for (int s = 0, at = 0; s < size; s++) {
        rc[s] = s + 1;
        rd[s] = at + 1;
        at += s + 2;
    }
    MPI_Alltoallv(vs, sc, sd, MPI_INT, vr, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++)
        for (int k = 0; k < s + 1; k++) check(vr[rd[s] + k] == 100 * s + rank, "MPI_Alltoallv");

    int one = rank + 1, scan = 0, exscan = -5;
    MPI_Scan(&one, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(scan == (rank + 1) * (rank + 2) / 2, "MPI_Scan");
    MPI_Exscan(&one, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(rank == 0 ? exscan == -5 : exscan == rank * (rank + 1) / 2, "MPI_Exscan");

    for (int d = 0; d < size; d++) out[d] = rank + d;
    int block = 0;
    MPI_Reduce_scatter_block(out, &block, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(block == size * (size - 1) / 2 + size * rank, "MPI_Reduce_scatter_block");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("collectives ok\n");
    MPI_Finalize();
    return 0;
}
