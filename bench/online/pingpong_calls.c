/* Per-call cost of the simulator: N blocking ping-pongs of B bytes between ranks 0
 * and 1 (default 100000 of 8 bytes); prints the simulated time per round trip. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank;
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int bytes = argc > 2 ? atoi(argv[2]) : 8;
    char *buf = calloc(bytes > 0 ? bytes : 1, 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) printf("%ld round trips of %d bytes: %.6f us each (simulated)\n", n, bytes, (MPI_Wtime() - t0) / n * 1e6);
    MPI_Finalize();
    free(buf);
    return 0;
}
