/* Intercommunicators: the even and the odd world ranks, joined by
 * MPI_Intercomm_create; point-to-point across (ranks name the other group, statuses
 * the sender's rank in its group), a duplicate, and MPI_Intercomm_merge with the odd
 * group high. Needs at least 2 ranks; exits with the failed check's number. */
#include <mpi.h>
#include <stdio.h>

#define CHECK(n, cond)                                                     \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "intercomm.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                      \
        }                                                                  \
    } while (0)

int main(int argc, char **argv) {
    int rank, size, flag, lrank, lsize, rsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int odd = rank % 2, nodd = size / 2, neven = size - nodd;
    MPI_Comm half, inter, dup, merged;
    MPI_Comm_split(MPI_COMM_WORLD, odd, rank, &half);
    /* Leaders: local rank 0; the other group's leader is world rank 1 or 0. */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, odd ? 0 : 1, 7, &inter);
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(1, flag && lrank == rank / 2 && lsize == (odd ? nodd : neven) && rsize == (odd ? neven : nodd));
    /* Even rank i sends i * 10 to odd rank i, which answers with its world rank. */
    int v = -1;
    MPI_Status st;
    if (!odd && lrank < nodd) {
        int out = lrank * 10;
        MPI_Send(&out, 1, MPI_INT, lrank, 3, inter);
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 4, inter, &st);
        CHECK(2, v == 2 * lrank + 1 && st.MPI_SOURCE == lrank);
    } else if (odd) {
        MPI_Recv(&v, 1, MPI_INT, lrank, 3, inter, &st);
        CHECK(3, v == lrank * 10 && st.MPI_SOURCE == lrank);
        MPI_Send(&rank, 1, MPI_INT, lrank, 4, inter);
    }
    /* A duplicate has its own matching, the same groups. */
    MPI_Comm_dup(inter, &dup);
    MPI_Comm_remote_size(dup, &rsize);
    CHECK(4, rsize == (odd ? neven : nodd));
    if (!odd && lrank == 0) MPI_Send(&rank, 1, MPI_INT, 0, 5, dup);
    if (odd && lrank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
        CHECK(5, v == 0);
    }
    /* Collectives across: the odd group's rank 0 is the root of the rooted ones. */
    int osum = 0, esum = 0, x = -1, got2[64], mine2[64];
    for (int r = 0; r < size; r++) {
        if (r % 2) osum += r;
        else esum += r;
    }
    MPI_Barrier(inter);
    int root = odd ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if (odd && lrank == 0) x = 99;
    MPI_Bcast(&x, 1, MPI_INT, root, inter);
    CHECK(10, odd ? (lrank == 0 ? x == 99 : x == -1) : x == 99);
    int s = -1;
    MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, inter);
    CHECK(11, s == (odd ? esum : osum));
    s = -1;
    MPI_Reduce(&rank, &s, 1, MPI_INT, MPI_SUM, root, inter);
    CHECK(12, (odd && lrank == 0) ? s == esum : s == -1);
    for (int k = 0; k < 64; k++) got2[k] = -1;
    MPI_Gather(&rank, 1, MPI_INT, got2, 1, MPI_INT, root, inter);
    if (odd && lrank == 0)
        for (int k = 0; k < neven; k++) CHECK(13, got2[k] == 2 * k);
    for (int k = 0; k < 64; k++) mine2[k] = 1000 + k;
    x = -1;
    MPI_Scatter(mine2, 1, MPI_INT, &x, 1, MPI_INT, root, inter);
    CHECK(14, odd ? x == -1 : x == 1000 + lrank);
    MPI_Allgather(&rank, 1, MPI_INT, got2, 1, MPI_INT, inter);
    for (int k = 0; k < (odd ? neven : nodd); k++) CHECK(15, got2[k] == 2 * k + !odd);
    for (int k = 0; k < 64; k++) mine2[k] = rank * 100 + k;
    MPI_Alltoall(mine2, 1, MPI_INT, got2, 1, MPI_INT, inter);
    for (int k = 0; k < (odd ? neven : nodd); k++) CHECK(16, got2[k] == (2 * k + !odd) * 100 + lrank);

    /* The v-forms: rank k of the other group gives k + 1 ints (all equal to its world
     * rank); blocks land 2 ints apart per rank more than they need. */
    int rs = odd ? neven : nodd, cnt[64], dsp[64], vbuf[512], mineb[64];
    for (int k = 0, at = 0; k < rs; k++) {
        cnt[k] = k + 1;
        dsp[k] = at;
        at += k + 3;
    }
    for (int k = 0; k <= lrank; k++) mineb[k] = rank;
    for (int k = 0; k < 512; k++) vbuf[k] = -1;
    MPI_Gatherv(mineb, lrank + 1, MPI_INT, vbuf, cnt, dsp, MPI_INT, root, inter);
    if (odd && lrank == 0)
        for (int k = 0; k < neven; k++)
            CHECK(17, vbuf[dsp[k]] == 2 * k && vbuf[dsp[k] + k] == 2 * k && vbuf[dsp[k] + k + 1] == -1);
    for (int k = 0; k < 512; k++) vbuf[k] = -1;
    MPI_Allgatherv(mineb, lrank + 1, MPI_INT, vbuf, cnt, dsp, MPI_INT, inter);
    for (int k = 0; k < rs; k++) CHECK(18, vbuf[dsp[k] + k] == 2 * k + !odd && vbuf[dsp[k] + k + 1] == -1);
    /* Scatterv from the odd root: even rank k gets k + 1 ints of 500 + k. */
    for (int k = 0; k < 512; k++) vbuf[k] = 500 + k;
    int sdsp[64];
    for (int k = 0; k < neven; k++) sdsp[k] = k;
    for (int k = 0; k < 64; k++) mineb[k] = -1;
    MPI_Scatterv(vbuf, cnt, sdsp, MPI_INT, mineb, lrank + 1, MPI_INT, root, inter);
    if (!odd) CHECK(19, mineb[0] == 500 + lrank && mineb[lrank] == 500 + 2 * lrank && mineb[lrank + 1] == -1);
    /* Alltoallv: one int to each rank of the other group, value 100 * rank + k. */
    int one[64], sd1[64], rd1[64], av[64];
    for (int k = 0; k < rs; k++) {
        one[k] = 1;
        sd1[k] = k;
        rd1[k] = k;
        mineb[k] = 100 * rank + k;
    }
    MPI_Alltoallv(mineb, one, sd1, MPI_INT, av, one, rd1, MPI_INT, inter);
    for (int k = 0; k < rs; k++) CHECK(20, av[k] == 100 * (2 * k + !odd) + lrank);

    /* Split of the intercommunicator: rank 0 of each group apart (color 1) from the
     * others (color 0). */
    MPI_Comm part;
    MPI_Comm_split(inter, lrank == 0, lrank, &part);
    if (size >= 4) {
        int psize, prsize;
        MPI_Comm_size(part, &psize);
        MPI_Comm_remote_size(part, &prsize);
        CHECK(8, lrank == 0 ? (psize == 1 && prsize == 1)
                            : (psize == lsize - 1 && prsize == (odd ? neven : nodd) - 1));
        MPI_Comm_free(&part);
    } else if (lrank != 0) {
        CHECK(9, part == MPI_COMM_NULL);
    } else {
        MPI_Comm_free(&part);
    }
    /* Merged, the odd group high: evens first, each group in its order. */
    MPI_Intercomm_merge(inter, odd, &merged);
    int mrank, msize, sum = 0;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(6, msize == size && mrank == (odd ? neven + rank / 2 : rank / 2));
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(7, sum == size * (size - 1) / 2);
    /* The same two groups, from groups (MPI 4): no leaders' exchange. */
    MPI_Group wg, evens, odds;
    MPI_Comm fromg;
    int ev[1][3] = {{0, size - 1, 2}}, od[1][3] = {{1, size - 1, 2}};
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_range_incl(wg, 1, ev, &evens);
    MPI_Group_range_incl(wg, 1, od, &odds);
    MPI_Intercomm_create_from_groups(odd ? odds : evens, 0, odd ? evens : odds, 0, "halves",
                                     MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &fromg);
    MPI_Comm_remote_size(fromg, &rsize);
    CHECK(21, rsize == (odd ? neven : nodd));
    MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, fromg);
    CHECK(22, s == (odd ? esum : osum));
    MPI_Comm_free(&fromg);
    MPI_Group_free(&wg);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
