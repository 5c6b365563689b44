/* One 8-byte ping-pong between ranks 0 and 1: the smallest recording whose replay time
 * has a closed form (crates/trace/tests/dumpi.rs). */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    double x = 1.0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
