/* Persistent requests: a ring exchange set up once and started three times (the send
 * buffer changes between starts; each receive must see the new value); an inactive
 * persistent request completes at once and keeps its handle; persistent collectives
 * started in different orders on different ranks. Exits with the failed check's
 * number. */
#include <mpi.h>
#include <stdio.h>

#define CHECK(n, cond)                                                    \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "persist.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                     \
        }                                                                 \
    } while (0)

int main(int argc, char **argv) {
    int rank, size, out, in = -1, flag;
    MPI_Request q[2];
    MPI_Status st[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* The datatypes are freed at once: the requests keep using them, as MPI allows. */
    MPI_Datatype one, other;
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_dup(one, &other);
    MPI_Type_commit(&one);
    MPI_Type_commit(&other);
    MPI_Recv_init(&in, 1, one, left, 3, MPI_COMM_WORLD, &q[0]);
    MPI_Send_init(&out, 1, other, right, 3, MPI_COMM_WORLD, &q[1]);
    MPI_Type_free(&one);
    MPI_Type_free(&other);
    /* Not started: complete at once, the handle stays. */
    MPI_Test(&q[0], &flag, &st[0]);
    CHECK(1, flag == 1 && q[0] != MPI_REQUEST_NULL);
    for (int it = 0; it < 3; it++) {
        out = 100 * it + rank;
        MPI_Startall(2, q);
        MPI_Waitall(2, q, st);
        CHECK(2, in == 100 * it + left && st[0].MPI_SOURCE == left && st[0].MPI_TAG == 3);
        CHECK(3, q[0] != MPI_REQUEST_NULL && q[1] != MPI_REQUEST_NULL);
    }
    /* Started once more and completed one by one with MPI_Wait. */
    out = -rank;
    MPI_Start(&q[1]);
    MPI_Start(&q[0]);
    MPI_Wait(&q[0], &st[0]);
    MPI_Wait(&q[1], &st[1]);
    CHECK(4, in == -left);
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
    CHECK(5, q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL);
    /* MPI_Sendrecv_replace: the buffer goes right and comes back from the left. */
    int v = rank;
    MPI_Sendrecv_replace(&v, 1, MPI_INT, right, 8, left, 8, MPI_COMM_WORLD, &st[0]);
    CHECK(6, v == left && st[0].MPI_SOURCE == left);
    /* MPI_Request_get_status finds a request complete without freeing it. */
    MPI_Request r;
    int w = -1;
    MPI_Irecv(&w, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r);
    MPI_Send(&rank, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) MPI_Request_get_status(r, &flag, &st[0]);
    CHECK(7, r != MPI_REQUEST_NULL && w == left && st[0].MPI_SOURCE == left);
    MPI_Wait(&r, &st[1]);
    CHECK(8, r == MPI_REQUEST_NULL && st[1].MPI_SOURCE == left && st[1].MPI_TAG == 9);
    /* ... and MPI_Request_get_status_all finds both of two done, freeing neither. */
    int w2[2] = {-1, -1};
    MPI_Request two[2];
    MPI_Irecv(&w2[0], 1, MPI_INT, left, 10, MPI_COMM_WORLD, &two[0]);
    MPI_Irecv(&w2[1], 1, MPI_INT, left, 11, MPI_COMM_WORLD, &two[1]);
    MPI_Send(&rank, 1, MPI_INT, right, 11, MPI_COMM_WORLD);
    MPI_Send(&rank, 1, MPI_INT, right, 10, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) MPI_Request_get_status_all(2, two, &flag, st);
    CHECK(9, two[0] != MPI_REQUEST_NULL && w2[0] == left && w2[1] == left && st[1].MPI_TAG == 11);
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    CHECK(10, two[0] == MPI_REQUEST_NULL && two[1] == MPI_REQUEST_NULL);

    /* Persistent collectives match in the order they were made, not the order the
     * ranks start them (MPI 4.0): rank 0 starts the broadcast first, the others the
     * barrier; twice, with a new value each time. */
    int a = -1;
    MPI_Request pc[2];
    MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &pc[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pc[1]);
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            a = 42 + round;
            MPI_Start(&pc[0]);
            MPI_Start(&pc[1]);
        } else {
            a = -1;
            MPI_Start(&pc[1]);
            MPI_Start(&pc[0]);
        }
        MPI_Waitall(2, pc, MPI_STATUSES_IGNORE);
        CHECK(11, a == 42 + round);
    }
    MPI_Request_free(&pc[0]);
    MPI_Request_free(&pc[1]);
    MPI_Finalize();
    return 0;
}
