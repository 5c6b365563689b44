/* Calls every MPI function simpi's tracer traces, in patterns real codes use, plus one it
 * does not (MPI_Alltoallw), on 4 ranks. The tracer test compares the trace with an
 * independent count of the same run and replays it. Exits non-zero if MPI misbehaves. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4
#define CHECK(c)                                                      \
    do {                                                              \
        if (!(c)) {                                                   \
            fprintf(stderr, "check failed line %d: %s\n", __LINE__, #c); \
            MPI_Abort(MPI_COMM_WORLD, 2);                             \
        }                                                             \
    } while (0)

static void spin(double seconds) {
    double t = MPI_Wtime();
    while (MPI_Wtime() - t < seconds) {
    }
}

int main(int argc, char **argv) {
    int provided, me, n;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK(n == N);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    double a[64], b[64 * N], c[64 * N];
    for (int i = 0; i < 64; i++) a[i] = me + i;
    MPI_Status st;
    MPI_Request rq[8];

    /* Blocking point-to-point around a ring, with wildcards and every send mode. */
    spin(1e-4);
    if (me % 2 == 0) {
        MPI_Send(a, 8, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 8, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == left);
        MPI_Ssend(a, 4, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(b, 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(a, 8, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 4, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &st);
    }
    int bsize = 1 << 16;
    void *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Bsend(a, 2, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &st);
    MPI_Ibsend(a, 2, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv(b, 2, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &st);
    MPI_Wait(&rq[0], &st);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    /* Ready sends need the receive posted first. */
    MPI_Irecv(b, 3, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(b + 8, 3, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &rq[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(a, 3, MPI_DOUBLE, right, 5, MPI_COMM_WORLD);
    MPI_Irsend(a, 3, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &rq[2]);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);

    /* Non-blocking exchange completed in every way. */
    MPI_Irecv(b, 16, MPI_DOUBLE, left, 10, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(b + 16, 16, MPI_DOUBLE, right, 11, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(a, 16, MPI_DOUBLE, right, 10, MPI_COMM_WORLD, &rq[2]);
    MPI_Issend(a, 16, MPI_DOUBLE, left, 11, MPI_COMM_WORLD, &rq[3]);
    int idx, flag = 0, outcount, idxs[4];
    MPI_Waitany(4, rq, &idx, &st);
    MPI_Waitsome(4, rq, &outcount, idxs, MPI_STATUSES_IGNORE);
    while (!flag) MPI_Testall(4, rq, &flag, MPI_STATUSES_IGNORE);
    MPI_Irecv(b, 1, MPI_DOUBLE, left, 12, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(a, 1, MPI_DOUBLE, right, 12, MPI_COMM_WORLD, &rq[1]);
    flag = 0;
    while (!flag) MPI_Test(&rq[0], &flag, &st);
    flag = 0;
    while (!flag) MPI_Testany(2, rq, &idx, &flag, &st);
    MPI_Irecv(b, 1, MPI_DOUBLE, left, 13, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(a, 1, MPI_DOUBLE, right, 13, MPI_COMM_WORLD, &rq[1]);
    int done = 0;
    while (done < 2) {
        MPI_Testsome(2, rq, &outcount, idxs, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED) done += outcount;
    }

    /* Probes. */
    MPI_Send(a, 5, MPI_DOUBLE, right, 20, MPI_COMM_WORLD);
    MPI_Probe(left, 20, MPI_COMM_WORLD, &st);
    int count;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 5);
    MPI_Recv(b, count, MPI_DOUBLE, left, 20, MPI_COMM_WORLD, &st);
    MPI_Isend(a, 6, MPI_DOUBLE, right, 21, MPI_COMM_WORLD, &rq[0]);
    flag = 0;
    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &flag, &st);
    MPI_Recv(b, 6, MPI_DOUBLE, st.MPI_SOURCE, 21, MPI_COMM_WORLD, &st);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* Persistent requests: a halo exchange repeated three times. */
    MPI_Send_init(a, 8, MPI_DOUBLE, right, 30, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(b, 8, MPI_DOUBLE, left, 30, MPI_COMM_WORLD, &rq[1]);
    MPI_Ssend_init(a, 8, MPI_DOUBLE, left, 31, MPI_COMM_WORLD, &rq[2]);
    MPI_Recv_init(b + 8, 8, MPI_DOUBLE, right, 31, MPI_COMM_WORLD, &rq[3]);
    for (int it = 0; it < 3; it++) {
        spin(5e-5);
        MPI_Startall(4, rq);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&rq[1]);
    MPI_Start(&rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; i++) MPI_Request_free(&rq[i]);
    MPI_Bsend_init(a, 1, MPI_DOUBLE, MPI_PROC_NULL, 32, MPI_COMM_WORLD, &rq[0]);
    MPI_Rsend_init(a, 1, MPI_DOUBLE, MPI_PROC_NULL, 33, MPI_COMM_WORLD, &rq[1]);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);

    /* Sendrecv, its in-place form, and MPI_PROC_NULL partners. */
    MPI_Sendrecv(a, 7, MPI_DOUBLE, right, 40, b, 7, MPI_DOUBLE, left, 40, MPI_COMM_WORLD, &st);
    MPI_Sendrecv_replace(b, 7, MPI_DOUBLE, left, 41, right, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(a, 1, MPI_DOUBLE, MPI_PROC_NULL, 42, MPI_COMM_WORLD);
    MPI_Recv(b, 1, MPI_DOUBLE, MPI_PROC_NULL, 42, MPI_COMM_WORLD, &st);
    MPI_Sendrecv(a, 1, MPI_DOUBLE, me == 0 ? MPI_PROC_NULL : left, 43, b, 1, MPI_DOUBLE,
                 me == n - 1 ? MPI_PROC_NULL : right, 43, MPI_COMM_WORLD, &st);

    /* A derived datatype: recorded by its size. */
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 8, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Sendrecv(a, 1, vec, right, 50, b, 8, MPI_DOUBLE, left, 50, MPI_COMM_WORLD, &st);
    MPI_Type_free(&vec);

    /* Every collective, blocking, in place and non-blocking. */
    int counts[N], displs[N], pair[N];
    for (int i = 0; i < n; i++) counts[i] = i + 1, displs[i] = 8 * i, pair[i] = (me + i) % 3 + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(a, 10, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    MPI_Reduce(a, b, 10, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    memcpy(b, a, sizeof a);
    MPI_Allreduce(MPI_IN_PLACE, b, 10, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Scan(a, b, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(a, b, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Gather(a, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, 3, MPI_COMM_WORLD);
    MPI_Allgather(a, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Scatter(b, 2, MPI_DOUBLE, c, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Alltoall(b, 3, MPI_DOUBLE, c, 3, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Alltoallv(b, pair, displs, MPI_DOUBLE, c, pair, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Gatherv(a, me + 1, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allgatherv(a, me + 1, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Scatterv(b, counts, displs, MPI_DOUBLE, c, me + 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    MPI_Reduce_scatter(b, c, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(b, c, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]);
    MPI_Ibcast(a, 10, MPI_DOUBLE, 0, MPI_COMM_WORLD, &rq[1]);
    MPI_Iallreduce(a, b, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[2]);
    spin(5e-5);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    MPI_Ireduce(a, b, 4, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Iscan(a, b, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    MPI_Iexscan(a, b, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Igather(a, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Iallgather(a, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Iscatter(b, 2, MPI_DOUBLE, c, 2, MPI_DOUBLE, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Ialltoall(b, 2, MPI_DOUBLE, c, 2, MPI_DOUBLE, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Ialltoallv(b, pair, displs, MPI_DOUBLE, c, pair, displs, MPI_DOUBLE, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Igatherv(a, me + 1, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Iallgatherv(a, me + 1, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Iscatterv(b, counts, displs, MPI_DOUBLE, c, me + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Ireduce_scatter(b, c, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Ireduce_scatter_block(b, c, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* One call the tracer does not trace: it must be counted and reported. */
    int wc[N], wd[N];
    MPI_Datatype wt[N];
    for (int i = 0; i < n; i++) wc[i] = 1, wd[i] = 8 * i, wt[i] = MPI_DOUBLE;
    MPI_Alltoallw(b, wc, wd, wt, c, wc, wd, wt, MPI_COMM_WORLD);

    /* Communicators: collectives and point-to-point stay inside them. */
    MPI_Comm half, dup, evens, typed, cart, row, grp;
    MPI_Comm_split(MPI_COMM_WORLD, me / 2, -me, &half);
    int hr;
    MPI_Comm_rank(half, &hr);
    MPI_Allreduce(a, b, 5, MPI_DOUBLE, MPI_SUM, half);
    MPI_Bcast(a, 3, MPI_DOUBLE, 1, half);
    MPI_Sendrecv(a, 2, MPI_DOUBLE, 1 - hr, 60, b, 2, MPI_DOUBLE, 1 - hr, 60, half, &st);
    MPI_Comm_dup(half, &dup);
    MPI_Barrier(dup);
    MPI_Group world_group, even_group;
    int even_ranks[] = {0, 2};
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 2, even_ranks, &even_group);
    MPI_Comm_create(MPI_COMM_WORLD, even_group, &evens);
    if (evens != MPI_COMM_NULL) {
        MPI_Allgather(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, evens);
        MPI_Comm_free(&evens);
    }
    if (me % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, even_group, 7, &grp);
        MPI_Reduce(a, b, 2, MPI_DOUBLE, MPI_SUM, 0, grp);
        MPI_Comm_free(&grp);
    }
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &typed);
    MPI_Barrier(typed);
    int dims[2] = {2, 2}, periods[2] = {1, 0}, remain[2] = {0, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    MPI_Sendrecv(a, 4, MPI_DOUBLE, dst, 70, b, 4, MPI_DOUBLE, src, 70, cart, &st);
    MPI_Cart_sub(cart, remain, &row);
    MPI_Alltoall(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, row);
    MPI_Allreduce(a, b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    MPI_Group_free(&even_group);
    MPI_Group_free(&world_group);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&typed);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    spin(1e-4);
    MPI_Finalize();
    return 0;
}
