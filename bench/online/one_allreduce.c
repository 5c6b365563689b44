/* One allreduce over every rank, checked: the program of issue 17's rank-count
 * target (bench/online/many_ranks.sh). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (sum != (double)size * (size - 1) / 2) {
        fprintf(stderr, "rank %d: sum %.0f\n", rank, sum);
        return 1;
    }
    if (rank == 0)
        printf("%d ranks: the allreduce gave %.0f, as it should\n", size, sum);
    MPI_Finalize();
    return 0;
}
