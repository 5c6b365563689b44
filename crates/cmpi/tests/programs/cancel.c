/* MPI_Cancel: receives nothing has matched are cancelled (in any order, from any
 * source, persistent or not) and later receives get the messages; a receive that
 * matched before the cancellation keeps its message; a cancelled send completes as
 * usual. Rank 1 sends its messages only after a barrier. Exits with the failed
 * check's number. */
#include <mpi.h>
#include <stdio.h>

#define CHECK(n, cond)                                                       \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "cancel.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                        \
        }                                                                    \
    } while (0)

int main(int argc, char **argv) {
    int rank, flag, buf[4] = {-1, -1, -1, -1}, v = 7;
    MPI_Request q[4];
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 3; i++)
            MPI_Irecv(&buf[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &q[i]);
        MPI_Irecv(&buf[3], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q[3]);
        int order[4] = {2, 3, 0, 1};
        for (int k = 0; k < 4; k++) {
            MPI_Cancel(&q[order[k]]);
            MPI_Wait(&q[order[k]], &st);
            MPI_Test_cancelled(&st, &flag);
            CHECK(1, flag == 1 && q[order[k]] == MPI_REQUEST_NULL);
        }
        /* A persistent receive, started then cancelled, can start again. */
        MPI_Recv_init(&buf[0], 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &q[0]);
        MPI_Start(&q[0]);
        MPI_Cancel(&q[0]);
        MPI_Wait(&q[0], &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(2, flag == 1 && q[0] != MPI_REQUEST_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Start(&q[0]);
        MPI_Wait(&q[0], &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(3, flag == 0 && buf[0] == 109 && st.MPI_SOURCE == 1 && st.MPI_TAG == 9);
        MPI_Request_free(&q[0]);
        for (int i = 0; i < 3; i++) {
            MPI_Recv(&buf[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &st);
            CHECK(4, buf[i] == 100 + i);
        }
        /* Matched before it is cancelled: it keeps its message. */
        MPI_Irecv(&buf[1], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &q[1]);
        MPI_Recv(&buf[2], 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &st);
        MPI_Cancel(&q[1]);
        MPI_Wait(&q[1], &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(5, flag == 0 && buf[1] == 105 && st.MPI_TAG == 5);
        /* A send: MPI_Cancel does not cancel it here; it completes as usual. */
        MPI_Isend(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &q[2]);
        MPI_Cancel(&q[2]);
        MPI_Wait(&q[2], &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(6, flag == 0);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        int m[4] = {100, 101, 102, 109};
        MPI_Send(&m[3], 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
        for (int i = 0; i < 3; i++)
            MPI_Send(&m[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD);
        int a = 105, b = 106;
        MPI_Send(&a, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
        CHECK(7, v == 7);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
