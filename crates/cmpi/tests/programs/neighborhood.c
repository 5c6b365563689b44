/* Neighborhood collectives on a periodic grid (where one rank can be a neighbor in
 * both directions), a non-periodic one (MPI_PROC_NULL at the edges), a graph and a
 * distributed graph; their non-blocking and persistent forms; MPI_Isendrecv(_replace)
 * and generalized requests. Every value is checked against what the standard defines.
 * Exits with the failed check's number. */
#include <mpi.h>
/* MPI_UNWEIGHTED is a small constant address (the MPI 5.0 ABI's): gcc takes it for an
 * empty array. */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#include <stdio.h>
#include <stdlib.h>

static int fail(int n) {
    fprintf(stderr, "check %d failed\n", n);
    return n;
}

/* A generalized request's status: tag 77, three ints (set through MPI). */
static int query(void *state, MPI_Status *st) {
    ((int *)state)[0]++;
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = 77;
    MPI_Status_set_elements(st, MPI_INT, 3);
    return MPI_SUCCESS;
}

static int release(void *state) {
    ((int *)state)[1]++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* A periodic 2-D grid. */
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    int me, src[4];
    MPI_Comm_rank(grid, &me);
    for (int d = 0; d < 2; d++)
        MPI_Cart_shift(grid, d, 1, &src[2 * d], &src[2 * d + 1]);
    /* src[2d] is one step down, src[2d + 1] one step up: the neighbors' order (the
     * same for sources and destinations). */

    /* A receive of the program's own, any source and tag, posted before: the
     * neighborhood's messages must not match it. */
    MPI_Request own;
    int got = -1, mine = 4242;
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, grid, &own);

    int sb[4], rb[4];
    for (int k = 0; k < 4; k++) {
        sb[k] = 100 * me + k;
        rb[k] = -1;
    }
    MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, grid);
    /* Block k comes from neighbor k, which sent it its block for the other direction. */
    for (int k = 0; k < 4; k++)
        if (rb[k] != 100 * src[k] + (k ^ 1))
            return fail(1);
    int all[4];
    MPI_Neighbor_allgather(&me, 1, MPI_INT, all, 1, MPI_INT, grid);
    for (int k = 0; k < 4; k++)
        if (all[k] != src[k])
            return fail(2);
    MPI_Send(&mine, 1, MPI_INT, me, 7, grid);
    MPI_Wait(&own, MPI_STATUS_IGNORE);
    if (got != 4242)
        return fail(3);

    /* Non-blocking, polled and waited. */
    MPI_Request q;
    int flag = 0;
    for (int k = 0; k < 4; k++)
        rb[k] = -1;
    MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, grid, &q);
    while (!flag)
        MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    if (q != MPI_REQUEST_NULL)
        return fail(4);
    for (int k = 0; k < 4; k++)
        if (rb[k] != 100 * src[k] + (k ^ 1))
            return fail(5);
    for (int k = 0; k < 4; k++)
        all[k] = -1;
    MPI_Ineighbor_allgather(&me, 1, MPI_INT, all, 1, MPI_INT, grid, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int k = 0; k < 4; k++)
        if (all[k] != src[k])
            return fail(6);

    /* Persistent: each start reads the buffers as they are then. */
    MPI_Neighbor_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, grid, MPI_INFO_NULL, &q);
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 4; k++) {
            sb[k] = 100 * me + k + 10 * round;
            rb[k] = -1;
        }
        MPI_Start(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (int k = 0; k < 4; k++)
            if (rb[k] != 100 * src[k] + (k ^ 1) + 10 * round)
                return fail(15);
    }
    MPI_Request_free(&q);

    /* A line, not periodic: the ends have MPI_PROC_NULL neighbors, whose blocks stay. */
    int n1 = size, p1 = 0, lsrc[2];
    MPI_Comm line;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n1, &p1, 0, &line);
    MPI_Cart_shift(line, 0, 1, &lsrc[0], &lsrc[1]);
    int lr[2] = {-1, -1};
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, lr, 1, MPI_INT, line);
    for (int k = 0; k < 2; k++)
        if (lr[k] != (lsrc[k] == MPI_PROC_NULL ? -1 : lsrc[k]))
            return fail(7);

    /* A distributed graph: each rank sends to the next two and hears from the two
     * before; block i to destination i has i + 1 elements. */
    int ds[2] = {(rank + 1) % size, (rank + 2) % size};
    int ss[2] = {(rank - 1 + size) % size, (rank - 2 + 2 * size) % size};
    MPI_Comm dg;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ss, MPI_UNWEIGHTED, 2, ds, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &dg);
    int vs[3] = {1000 * rank, 1000 * rank + 1, 1000 * rank + 1};
    int scounts[2] = {1, 2}, sdispls[2] = {0, 1};
    int vr[4] = {-1, -1, -1, -1}, rcounts[2] = {1, 2}, rdispls[2] = {3, 0};
    MPI_Neighbor_alltoallv(vs, scounts, sdispls, MPI_INT, vr, rcounts, rdispls, MPI_INT, dg);
    /* From ss[0] (its destination 0): one element at 3; from ss[1] (its destination
     * 1): two elements at 0. */
    if (vr[3] != 1000 * ss[0] || vr[0] != 1000 * ss[1] + 1 || vr[1] != 1000 * ss[1] + 1 || vr[2] != -1)
        return fail(8);
    MPI_Aint sw[2] = {0, sizeof(int)}, rw[2] = {3 * sizeof(int), 0};
    MPI_Datatype st[2] = {MPI_INT, MPI_INT}, rt[2] = {MPI_INT, MPI_INT};
    for (int k = 0; k < 4; k++)
        vr[k] = -1;
    MPI_Ineighbor_alltoallw(vs, scounts, sw, st, vr, rcounts, rw, rt, dg, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (vr[3] != 1000 * ss[0] || vr[0] != 1000 * ss[1] + 1 || vr[1] != 1000 * ss[1] + 1 || vr[2] != -1)
        return fail(9);
    int gv[4] = {-1, -1, -1, -1}, gc[2] = {1, 1}, gd[2] = {2, 0};
    MPI_Neighbor_allgatherv(&rank, 1, MPI_INT, gv, gc, gd, MPI_INT, dg);
    if (gv[2] != ss[0] || gv[0] != ss[1] || gv[1] != -1 || gv[3] != -1)
        return fail(10);

    /* A graph: a ring, both ways. */
    int *index = malloc(size * sizeof(int)), *edges = malloc(2 * size * sizeof(int));
    for (int r = 0; r < size; r++) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r - 1 + size) % size;
        edges[2 * r + 1] = (r + 1) % size;
    }
    MPI_Comm ring;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &ring);
    int ra[2] = {-1, -1};
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, ra, 1, MPI_INT, ring);
    if (ra[0] != edges[2 * rank] || ra[1] != edges[2 * rank + 1])
        return fail(11);

    /* MPI_Isendrecv: pass to the right, hear from the left; the status is the
     * receive's. */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size, in = -1;
    MPI_Status status;
    MPI_Isendrecv(&rank, 1, MPI_INT, right, 3, &in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, &status);
    if (in != left || status.MPI_SOURCE != left || status.MPI_TAG != 3)
        return fail(12);
    int v = rank;
    flag = 0;
    MPI_Isendrecv_replace(&v, 1, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &q);
    while (!flag)
        MPI_Test(&q, &flag, &status);
    if (v != left || status.MPI_SOURCE != left)
        return fail(13);
    MPI_Request two[2];
    int in2[2] = {-1, -1};
    MPI_Isendrecv(&rank, 1, MPI_INT, right, 5, &in2[0], 1, MPI_INT, left, 5, MPI_COMM_WORLD, &two[0]);
    MPI_Isendrecv(&rank, 1, MPI_INT, left, 6, &in2[1], 1, MPI_INT, right, 6, MPI_COMM_WORLD, &two[1]);
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    if (in2[0] != left || in2[1] != right)
        return fail(14);

    /* A generalized request: not complete until the program says so; its query
     * function gives the status (and may call MPI), its free function runs once. */
    int calls[2] = {0, 0};
    MPI_Grequest_start(query, release, NULL, calls, &q);
    flag = 1;
    MPI_Test(&q, &flag, &status);
    if (flag || calls[0] || calls[1])
        return fail(16);
    MPI_Grequest_complete(q);
    MPI_Wait(&q, &status);
    if (q != MPI_REQUEST_NULL || status.MPI_TAG != 77 || calls[0] != 1 || calls[1] != 1)
        return fail(17);
    int n77;
    MPI_Get_count(&status, MPI_INT, &n77);
    if (n77 != 3)
        return fail(18);
    MPI_Grequest_start(query, release, NULL, calls, &q);
    MPI_Request_free(&q);
    if (calls[0] != 1 || calls[1] != 2)
        return fail(19);

    free(index);
    free(edges);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&dg);
    MPI_Comm_free(&line);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
