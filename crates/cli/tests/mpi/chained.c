/* The program of the chaining test: on 2 ranks, 5 rounds of a message from rank 0 to
 * rank 1, a barrier and an allreduce. */
#include <mpi.h>

int main(int argc, char **argv) {
    int me, x = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int i = 0; i < 5; i++) {
        if (me == 0)
            MPI_Send(&x, 1, MPI_INT, 1, i, MPI_COMM_WORLD);
        else
            MPI_Recv(&x, 1, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
