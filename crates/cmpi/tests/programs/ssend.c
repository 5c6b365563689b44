/* Synchronous sends complete only once their receive is posted, whatever their size.
 * Rank 1 posts its receives late, after a message rank 0 sends behind the synchronous
 * one. With the argument "deadlock", rank 0 sends synchronously a message rank 1
 * receives only after another that rank 0 sends next: an unsafe program that a
 * synchronous send must deadlock. Exits with the failed check's number. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(n, cond)                                                      \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "ssend.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                       \
        }                                                                   \
    } while (0)

int main(int argc, char **argv) {
    int rank, flag, a = 0, b = 0;
    MPI_Request q;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
        if (rank == 0) {
            MPI_Ssend(&a, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
            MPI_Send(&a, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&b, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&b, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Finalize();
        return 0;
    }
    /* MPI_Issend: not complete while rank 1 waits for the message of tag 2. */
    double t0 = MPI_Wtime();
    if (rank == 0) {
        a = 41;
        MPI_Issend(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &q);
        MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        CHECK(1, flag == 0);
        MPI_Send(&a, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        /* The test cost 1 us, the message of tag 2 arrived at 6 us, where rank 1
         * posted the receive of tag 1: that message took 5 us more. */
        double took = MPI_Wtime() - t0;
        CHECK(2, took > 11e-6 - 1e-12 && took < 11e-6 + 1e-12);
    } else if (rank == 1) {
        MPI_Recv(&b, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&b, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(3, b == 41);
    }
    /* A persistent synchronous send (MPICH's pssend): not complete before the
     * barrier that rank 1 passes before it receives. */
    if (rank == 0) {
        a = 42;
        MPI_Ssend_init(&a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &q);
        MPI_Start(&q);
        MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        CHECK(4, flag == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Request_free(&q);
    } else if (rank == 1) {
        MPI_Recv(&b, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(5, b == 42);
    }
    MPI_Finalize();
    return 0;
}
