/* Non-blocking collectives: several in flight at once on two communicators, completed
 * by MPI_Waitall, MPI_Test loops and MPI_Waitany; every result is checked against
 * what MPI defines. Exits with the failed check's number. */
#include <mpi.h>
#include <stdio.h>

#define CHECK(n, cond)                                                  \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "icoll.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                   \
        }                                                               \
    } while (0)

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    MPI_Request q[6];
    int sum = -1, max = -1, bc = rank == size - 1 ? 42 : 0, sc = -1;
    int all[64], mine = rank * 10, a2a_in[64], a2a_out[64];
    for (int i = 0; i < size; i++) a2a_in[i] = rank * 100 + i;
    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]);
    MPI_Iallreduce(&rank, &max, 1, MPI_INT, MPI_MAX, dup, &q[1]);
    MPI_Ibcast(&bc, 1, MPI_INT, size - 1, MPI_COMM_WORLD, &q[2]);
    MPI_Iallgather(&mine, 1, MPI_INT, all, 1, MPI_INT, dup, &q[3]);
    MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD, &q[4]);
    MPI_Iscan(&rank, &sc, 1, MPI_INT, MPI_SUM, dup, &q[5]);
    MPI_Waitall(6, q, MPI_STATUSES_IGNORE);
    CHECK(1, sum == size * (size - 1) / 2 && max == size - 1 && bc == 42);
    for (int i = 0; i < size; i++) CHECK(2, all[i] == i * 10 && a2a_out[i] == i * 100 + rank);
    CHECK(3, sc == rank * (rank + 1) / 2);

    /* A barrier polled with MPI_Test until it completes. */
    MPI_Request b;
    int flag = 0, tests = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &b);
    while (!flag) {
        MPI_Test(&b, &flag, MPI_STATUS_IGNORE);
        tests++;
    }
    CHECK(4, b == MPI_REQUEST_NULL && tests >= 1);

    /* A reduce to the last rank and a gather to the first, taken by Waitany. */
    int red = -1, gat[64], idx, left = 2;
    MPI_Ireduce(&rank, &red, 1, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD, &q[0]);
    MPI_Igather(&mine, 1, MPI_INT, gat, 1, MPI_INT, 0, dup, &q[1]);
    while (left-- > 0) MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE);
    if (rank == size - 1) CHECK(5, red == size - 1);
    if (rank == 0)
        for (int i = 0; i < size; i++) CHECK(6, gat[i] == i * 10);

    /* A persistent allreduce, started three times with new contributions. */
    MPI_Request pq;
    int in, out = -1;
    MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pq);
    for (int k = 1; k <= 3; k++) {
        in = k * rank;
        MPI_Start(&pq);
        MPI_Wait(&pq, MPI_STATUS_IGNORE);
        CHECK(7, out == k * size * (size - 1) / 2 && pq != MPI_REQUEST_NULL);
    }
    MPI_Request_free(&pq);

    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
