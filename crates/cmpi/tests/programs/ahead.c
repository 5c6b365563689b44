/* Calls a rank makes without waiting for their replies (sends, non-blocking calls):
 * MPI_Wtime after them must still see the time they took, an exchange posted that
 * way must not deadlock, and a flood of them (past the library's bounds on calls and
 * bytes kept back) must deliver every byte. Two ranks; exits with the failed check's
 * number. The times are worked out for the constant network (5 us per message) and
 * a protocol where sends of 65536 bytes and more wait for their receive. */
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(n, cond)                                                      \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "ahead.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                       \
        }                                                                   \
    } while (0)

#define NEAR(a, b) ((a) > (b) - 1e-12 && (a) < (b) + 1e-12)
#define BIG 65536
#define FLOOD 100
#define PIECE 20000

static unsigned char big[BIG], small_out[1000], small_in[1000];
static unsigned char flood[FLOOD][PIECE];

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    double t0 = MPI_Wtime();

    /* 1. A send that waits for its receive, posted at 0; rank 1 posts the receive
     * after 1 ms: both return at 1 ms + 5 us. */
    if (rank == 0) {
        for (int k = 0; k < BIG; k++) big[k] = (unsigned char)(k * 7);
        MPI_Send(big, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        CHECK(1, NEAR(MPI_Wtime() - t0, 1.005e-3));
    } else {
        smpi_execute(1e-3);
        MPI_Recv(big, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < BIG; k++) CHECK(2, big[k] == (unsigned char)(k * 7));
    }

    /* 2. Both post a receive and a send before waiting: 5 us later, both done. */
    MPI_Request rq;
    for (int k = 0; k < 1000; k++) small_out[k] = (unsigned char)(k + rank);
    MPI_Irecv(small_in, 1000, MPI_BYTE, other, 2, MPI_COMM_WORLD, &rq);
    MPI_Send(small_out, 1000, MPI_BYTE, other, 2, MPI_COMM_WORLD);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int k = 0; k < 1000; k++) CHECK(3, small_in[k] == (unsigned char)(k + other));
    CHECK(4, NEAR(MPI_Wtime() - t0, 1.010e-3));

    /* 3. 100 messages of 20,000 bytes at once (2 MB, past the bounds on calls and
     * bytes a rank keeps back): all arrive 5 us later. The sends are detached, so
     * their requests are complete when posted (SMPI's rule): rank 0's wait returns
     * at once. */
    MPI_Request rs[FLOOD];
    if (rank == 0) {
        for (int i = 0; i < FLOOD; i++) {
            memset(flood[i], i + 1, PIECE);
            MPI_Isend(flood[i], PIECE, MPI_BYTE, 1, 100 + i, MPI_COMM_WORLD, &rs[i]);
        }
        /* The sends copied their data: overwriting it changes nothing sent. */
        memset(flood, 0, sizeof flood);
        MPI_Waitall(FLOOD, rs, MPI_STATUSES_IGNORE);
        CHECK(5, NEAR(MPI_Wtime() - t0, 1.010e-3));
    } else {
        for (int i = 0; i < FLOOD; i++)
            MPI_Irecv(flood[i], PIECE, MPI_BYTE, 0, 100 + i, MPI_COMM_WORLD, &rs[i]);
        MPI_Waitall(FLOOD, rs, MPI_STATUSES_IGNORE);
        CHECK(6, NEAR(MPI_Wtime() - t0, 1.015e-3));
        for (int i = 0; i < FLOOD; i++)
            for (int k = 0; k < PIECE; k++) CHECK(7, flood[i][k] == (unsigned char)(i + 1));
    }
    MPI_Finalize();
    return 0;
}
