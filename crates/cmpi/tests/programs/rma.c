/* One-sided communication: every kind of window (created, allocated, shared, dynamic),
 * every data movement (put, get, accumulate, get-accumulate, fetch-and-op,
 * compare-and-swap, request-based ones) and every synchronization (fence,
 * post/start/complete/wait and test, lock and unlock, lock_all, flush), each checked
 * against what MPI defines. Exits with the failed check's number. With the argument
 * "timing", only a fence, one put of 1000 bytes and a fence run (a test times them). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(n, cond)                                                    \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "rma.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                     \
        }                                                                 \
    } while (0)

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    if (argc > 1 && strcmp(argv[1], "timing") == 0) {
        char buf[1000], out[1000];
        MPI_Win win;
        memset(out, rank, sizeof out);
        MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_fence(0, win);
        MPI_Put(out, 1000, MPI_BYTE, right, 0, 1000, MPI_BYTE, win);
        MPI_Win_fence(0, win);
        CHECK(90, buf[0] == left && buf[999] == left);
        MPI_Win_free(&win);
        MPI_Finalize();
        return 0;
    }

    if (argc > 1 && strcmp(argv[1], "outside") == 0) {
        /* A put beyond the target's window: the run ends, naming it. */
        int small[4], v = 1;
        MPI_Win w;
        MPI_Win_create(small, sizeof small, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
        MPI_Win_fence(0, w);
        if (rank == 0)
            MPI_Put(&v, 1, MPI_INT, right, 4, 1, MPI_INT, w);
        MPI_Win_fence(0, w);
        MPI_Win_free(&w);
        MPI_Finalize();
        return 0;
    }

    /* 1. MPI_Win_create, fence epochs: a put to the right, a get from the left. */
    int mem[4] = {-1, -1, -1, -1};
    MPI_Win win;
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    int val = 100 + rank;
    MPI_Put(&val, 1, MPI_INT, right, 2, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(1, mem[2] == 100 + left && mem[0] == -1 && mem[3] == -1);
    mem[0] = 7 * rank;
    MPI_Win_fence(0, win);
    int got = -5;
    MPI_Get(&got, 1, MPI_INT, left, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(2, got == 7 * left);

    /* 2. Accumulates: every rank adds rank+1 to rank 0's mem[1], under a fence. */
    MPI_Win_fence(0, win);
    if (rank == 0)
        mem[1] = 0;
    MPI_Win_fence(0, win);
    int add = rank + 1;
    MPI_Accumulate(&add, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        CHECK(3, mem[1] == size * (size + 1) / 2);

    /* 3. A vector at the target: two ints, one apart, into mem[0] and mem[2]. */
    MPI_Datatype every_other;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int pair[2] = {1000 + rank, 2000 + rank};
    MPI_Win_fence(0, win);
    MPI_Put(pair, 2, MPI_INT, right, 0, 1, every_other, win);
    MPI_Win_fence(0, win);
    CHECK(4, mem[0] == 1000 + left && mem[2] == 2000 + left);
    MPI_Type_free(&every_other);

    /* 4. Attributes and group. */
    void *base;
    MPI_Aint *wsize;
    int *unit, *flavor, flag;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(5, flag && base == mem);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
    CHECK(6, flag && *wsize == (MPI_Aint)sizeof mem);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
    CHECK(7, flag && *unit == (int)sizeof(int));
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(8, flag && *flavor == MPI_WIN_FLAVOR_CREATE);
    MPI_Group g;
    int gsize;
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &gsize);
    CHECK(9, gsize == size);
    MPI_Group_free(&g);
    MPI_Win_free(&win);
    CHECK(10, win == MPI_WIN_NULL);

    /* 5. MPI_Win_allocate with exclusive locks: a shared counter. Each rank takes
     * three tickets with fetch-and-op; the tickets are all different and rank 0's
     * counter ends at 3 x size. */
    int *counter;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    counter[0] = 0;
    counter[1] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    int tickets[3], one = 1;
    for (int i = 0; i < 3; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Fetch_and_op(&one, &tickets[i], MPI_INT, 0, 0, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    int all[3 * 64];
    CHECK(11, size <= 64);
    MPI_Allgather(tickets, 3, MPI_INT, all, 3, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 3 * size; i++)
        for (int j = i + 1; j < 3 * size; j++)
            CHECK(12, all[i] != all[j]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(13, counter[0] == 3 * size);
    /* A get-modify-put under an exclusive lock is atomic against the others. */
    for (int i = 0; i < 2; i++) {
        int v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        v += 10;
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(14, counter[0] == 3 * size + 20 * size);
    /* Compare-and-swap: only one rank swaps -1 for its rank. */
    int minus = -1, mine = rank, old = -7;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Compare_and_swap(&mine, &minus, &old, MPI_INT, 0, 1, win);
    MPI_Win_unlock(0, win);
    int winners = old == -1, total;
    MPI_Allreduce(&winners, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(15, total == 1);
    /* Get-accumulate with MPI_NO_OP reads atomically; with MPI_REPLACE swaps. */
    int seen = -9, put = 500 + rank, before = -9;
    MPI_Win_lock_all(0, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &seen, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    CHECK(16, seen == 23 * size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 % size) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get_accumulate(&put, 1, MPI_INT, &before, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_REPLACE, win);
        MPI_Win_unlock(0, win);
        CHECK(17, before == 23 * size);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(18, counter[0] == 500 + 1 % size);
    MPI_Win_free(&win);

    /* 6. Post/start/complete/wait: each rank exposes itself to its left neighbour and
     * accesses its right one; the last round polls with MPI_Win_test. */
    int slot = -1;
    MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Group world, from_left, to_right;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &from_left);
    MPI_Group_incl(world, 1, &right, &to_right);
    for (int round = 0; round < 3; round++) {
        MPI_Win_post(from_left, 0, win);
        MPI_Win_start(to_right, 0, win);
        int v = 10 * round + rank;
        MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
        if (round < 2) {
            MPI_Win_wait(win);
        } else {
            int done = 0, polls = 0;
            while (!done) {
                MPI_Win_test(win, &done);
                polls++;
            }
            CHECK(19, polls >= 1);
        }
        CHECK(20, slot == 10 * round + left);
    }
    MPI_Group_free(&from_left);
    MPI_Group_free(&to_right);
    MPI_Group_free(&world);
    MPI_Win_free(&win);

    /* 7. Shared memory: each rank writes its part; after a barrier, each reads its
     * right neighbour's part through the pointer MPI_Win_shared_query gives (ranks
     * of one simulated host only: MPI_COMM_TYPE_SHARED). */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    double *part;
    MPI_Win_allocate_shared(2 * sizeof(double), sizeof(double), MPI_INFO_NULL, node, &part, &win);
    part[0] = rank + 0.5;
    part[1] = -rank;
    MPI_Barrier(node);
    double *theirs;
    MPI_Aint tsize;
    int tunit;
    int nright = (nrank + 1) % nsize;
    MPI_Win_shared_query(win, nright, &tsize, &tunit, &theirs);
    CHECK(21, tsize == 2 * (MPI_Aint)sizeof(double) && tunit == (int)sizeof(double));
    int wright;
    MPI_Group ng, wg;
    MPI_Comm_group(node, &ng);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(ng, 1, &nright, wg, &wright);
    CHECK(22, theirs[0] == wright + 0.5 && theirs[1] == -wright);
    /* A put through the window lands in the same memory. */
    double z = 42.0;
    MPI_Win_fence(0, win);
    MPI_Put(&z, 1, MPI_DOUBLE, nright, 1, 1, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    CHECK(23, part[1] == 42.0 && theirs[1] == 42.0);
    MPI_Group_free(&ng);
    MPI_Group_free(&wg);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);

    /* 8. A dynamic window: each rank attaches a buffer and tells the others its
     * address; request-based puts and gets inside lock_all. */
    long dyn[2] = {0, 0};
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    /* Two adjacent regions: an access may span both. */
    MPI_Win_attach(win, &dyn[0], sizeof(long));
    MPI_Win_attach(win, &dyn[1], sizeof(long));
    MPI_Aint addr, addrs[64];
    MPI_Get_address(dyn, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    long lv = 77 + rank, back = 0;
    MPI_Request rq[2];
    MPI_Win_lock_all(0, win);
    MPI_Rput(&lv, 1, MPI_LONG, right, addrs[right] + sizeof(long), 1, MPI_LONG, win, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Win_flush(right, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(24, dyn[1] == 77 + left);
    MPI_Win_lock_all(0, win);
    MPI_Rget(&back, 1, MPI_LONG, left, addrs[left] + sizeof(long), 1, MPI_LONG, win, &rq[1]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    CHECK(25, back == 77 + (left + size - 1) % size);
    MPI_Barrier(MPI_COMM_WORLD);
    long both[2] = {5, 6};
    MPI_Win_lock_all(0, win);
    MPI_Put(both, 2, MPI_LONG, right, addrs[right], 2, MPI_LONG, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(28, dyn[0] == 5 && dyn[1] == 6);
    MPI_Win_detach(win, &dyn[0]);
    MPI_Win_detach(win, &dyn[1]);
    MPI_Win_free(&win);

    /* 9. A target MPI_PROC_NULL does nothing; errors return where asked. */
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, win);
    MPI_Put(&val, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win);
    int rc = MPI_Put(&val, 1, MPI_INT, size, 0, 1, MPI_INT, win);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(26, cls == MPI_ERR_RANK);
    rc = MPI_Win_lock(12345, 0, 0, win);
    MPI_Error_class(rc, &cls);
    CHECK(27, cls == MPI_ERR_LOCKTYPE);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    MPI_Finalize();
    return 0;
}
