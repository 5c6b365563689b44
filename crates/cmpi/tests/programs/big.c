/* Messages and collectives beyond the 4 MiB a mailbox holds: an 8 MiB message each
 * way and an allreduce of 8 MiB, checked element by element. Exits with the failed
 * check's number. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* doubles: 8 MiB */

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++)
        a[i] = rank * 1e6 + i;
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        MPI_Sendrecv(a, N, MPI_DOUBLE, peer, 0, b, N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            if (b[i] != peer * 1e6 + i)
                return 1;
    }
    MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double ranks = (double)size * (size - 1) / 2;
    for (int i = 0; i < N; i++)
        if (b[i] != ranks * 1e6 + (double)size * i)
            return 2;
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
