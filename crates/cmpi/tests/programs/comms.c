/* Communicators made by split, create, split_type and dup, groups, and the calls
 * that complete one of several requests. Every value is checked against what MPI
 * defines; a wrong one exits with the number of the check (so the test names it).
 * Needs at least 4 ranks.
 *
 * First, before any collective, so all ranks start at 0 (constant network: every
 * message takes 5 us; every send detached): rank 2 sends to rank 1 and to rank 0 at
 * 0 us; rank 1 forwards to rank 0 once its message arrived (5 us). Rank 0's first
 * MPI_Waitany returns the message of rank 2 (index 1) at 5 us, the second the one of
 * rank 1 (index 0) at 10 us. */
#include <mpi.h>
#include <stdio.h>

#define CHECK(n, cond)                                              \
    do {                                                            \
        if (!(cond)) {                                              \
            fprintf(stderr, "comms.c: check %d failed on rank %d\n", n, wrank); \
            return n;                                               \
        }                                                           \
    } while (0)

static int near(double a, double b) { return a - b < 1e-12 && b - a < 1e-12; }

int main(int argc, char **argv) {
    int wrank, wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(1, wsize >= 4);

    /* Waitany, timed. */
    int a = -1, b = -1, idx;
    MPI_Status st;
    if (wrank == 0) {
        MPI_Request q[2];
        MPI_Irecv(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(&b, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, &q[1]);
        MPI_Waitany(2, q, &idx, &st);
        CHECK(2, idx == 1 && b == 22 && st.MPI_SOURCE == 2 && st.MPI_TAG == 2);
        CHECK(3, q[1] == MPI_REQUEST_NULL && q[0] != MPI_REQUEST_NULL);
        CHECK(4, near(MPI_Wtime(), 5e-6));
        MPI_Waitany(2, q, &idx, &st);
        CHECK(5, idx == 0 && a == 11 && st.MPI_SOURCE == 1 && near(MPI_Wtime(), 10e-6));
        MPI_Waitany(2, q, &idx, &st);
        CHECK(6, idx == MPI_UNDEFINED);
    } else if (wrank == 1) {
        MPI_Recv(&a, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        a = 11;
        MPI_Send(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else if (wrank == 2) {
        b = 22;
        MPI_Send(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }

    /* Testall finds nothing before rank 3 was told to send; Waitsome then gets it. */
    if (wrank == 0) {
        MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        int flag = 1, go = 1, out, ind[2], v = 0;
        MPI_Status sts[2];
        MPI_Irecv(&v, 1, MPI_INT, 3, 4, MPI_COMM_WORLD, &q[1]);
        MPI_Testall(2, q, &flag, sts);
        CHECK(7, flag == 0 && q[1] != MPI_REQUEST_NULL);
        MPI_Send(&go, 1, MPI_INT, 3, 5, MPI_COMM_WORLD);
        MPI_Waitsome(2, q, &out, ind, sts);
        CHECK(8, out == 1 && ind[0] == 1 && v == 33 && sts[0].MPI_SOURCE == 3);
        MPI_Testall(2, q, &flag, sts);
        CHECK(9, flag == 1);
    } else if (wrank == 3) {
        int go, v = 33;
        MPI_Recv(&go, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
    }

    /* Split by parity, keys reversing the order: rank r of a color is the
     * (count - 1 - position)-th, counting same-colored ranks by world rank. */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &sub);
    int srank, ssize, nsame = (wsize - wrank % 2 + 1) / 2, pos = wrank / 2;
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);
    CHECK(10, ssize == nsame && srank == nsame - 1 - pos);

    /* A reduction on it sums the world ranks of one parity. */
    int sum = 0, want = 0;
    for (int r = wrank % 2; r < wsize; r += 2) want += r;
    MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, sub);
    CHECK(11, sum == want);

    /* Point to point on it: its rank 0 hears from every other rank, by any source;
     * the status names the sender's rank in the communicator. */
    if (srank == 0) {
        for (int k = 1; k < ssize; k++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 9, sub, &st);
            CHECK(12, v == st.MPI_SOURCE);
        }
    } else {
        MPI_Send(&srank, 1, MPI_INT, 0, 9, sub);
    }

    /* Groups: the communicator's group translates to world ranks. */
    MPI_Group wg, sg, ends, odd;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(sub, &sg);
    int gs, gr, zero = 0, w0 = -1;
    MPI_Group_size(sg, &gs);
    MPI_Group_rank(sg, &gr);
    MPI_Group_translate_ranks(sg, 1, &zero, wg, &w0);
    /* Rank 0 of a color is its highest world rank. */
    int top = wsize - 1 - ((wsize - 1 - wrank % 2) % 2);
    CHECK(13, gs == ssize && gr == srank && w0 == top);
    int cmp;
    MPI_Group_compare(wg, sg, &cmp);
    CHECK(14, cmp == (ssize == wsize ? MPI_SIMILAR : MPI_UNEQUAL));

    /* Create from the group of the first and last world ranks, last first. */
    int pick[2] = {wsize - 1, 0};
    MPI_Group_incl(wg, 2, pick, &ends);
    MPI_Comm two;
    MPI_Comm_create(MPI_COMM_WORLD, ends, &two);
    if (wrank == 0 || wrank == wsize - 1) {
        int r2, v = wrank == 0 ? 77 : 0;
        CHECK(15, two != MPI_COMM_NULL);
        MPI_Comm_rank(two, &r2);
        CHECK(16, r2 == (wrank == 0 ? 1 : 0));
        MPI_Bcast(&v, 1, MPI_INT, 1, two);
        CHECK(17, v == 77);
        MPI_Comm_free(&two);
    } else {
        CHECK(18, two == MPI_COMM_NULL);
    }

    /* Set operations. */
    int evens[1] = {0};
    MPI_Group_excl(wg, 1, evens, &odd);
    MPI_Group un;
    MPI_Group_union(odd, ends, &un);
    MPI_Group_size(un, &gs);
    CHECK(19, gs == wsize);
    MPI_Group_free(&un);
    CHECK(20, un == MPI_GROUP_NULL);

    /* One host per rank: the shared-memory split holds the rank alone. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &gs);
    CHECK(21, gs == 1);

    /* A duplicate of the split is congruent with it; a color of MPI_UNDEFINED gives
     * no communicator. */
    MPI_Comm d, none;
    MPI_Comm_dup(sub, &d);
    MPI_Comm_compare(sub, d, &cmp);
    CHECK(22, cmp == MPI_CONGRUENT);
    MPI_Comm_compare(sub, sub, &cmp);
    CHECK(23, cmp == MPI_IDENT);
    MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, d);
    CHECK(24, sum == want);
    MPI_Comm_split(MPI_COMM_WORLD, wrank == 1 ? MPI_UNDEFINED : 0, 0, &none);
    CHECK(25, (wrank == 1) == (none == MPI_COMM_NULL));

    /* MPI_COMM_SELF: a collective of one. */
    int mine = wrank, got = -1;
    MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    CHECK(26, got == wrank);

    /* MPI_Comm_create_group: only the group's members call it. */
    if (wrank % 2 == 0) {
        MPI_Group evensg;
        MPI_Comm evens;
        int range[1][3] = {{0, wsize - 1, 2}}, esize, total = 0;
        MPI_Group_range_incl(wg, 1, range, &evensg);
        MPI_Comm_create_group(MPI_COMM_WORLD, evensg, 5, &evens);
        MPI_Comm_size(evens, &esize);
        MPI_Allreduce(&wrank, &total, 1, MPI_INT, MPI_SUM, evens);
        CHECK(27, esize == (wsize + 1) / 2 && total == want);
        MPI_Comm_free(&evens);
        MPI_Group_free(&evensg);
    }

    MPI_Group_free(&wg);
    MPI_Group_free(&sg);
    MPI_Group_free(&ends);
    MPI_Group_free(&odd);
    MPI_Comm_free(&d);
    MPI_Comm_free(&sub);
    MPI_Comm_free(&node);
    if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
    MPI_Finalize();
    return 0;
}
