/* A duplicate of MPI_COMM_WORLD has its own matching and its own collectives: rank 0
 * sends 1 on the duplicate, then 2 on the world, same tag; rank 1 receives on the
 * world first and must get 2. Collectives interleave on both. Exits 1 on a wrong
 * value. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size, v = 0, cmp;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
    if (cmp != MPI_CONGRUENT) return 1;
    if (rank == 0) {
        int one = 1, two = 2;
        MPI_Send(&one, 1, MPI_INT, 1, 0, dup);
        MPI_Send(&two, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (v != 2) return 1;
        MPI_Recv(&v, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
        if (v != 1) return 1;
    }
    int a = rank, b = 0, sum = 0;
    MPI_Allreduce(&a, &sum, 1, MPI_INT, MPI_SUM, dup);
    MPI_Allreduce(&rank, &b, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2 || b != size - 1) return 1;
    MPI_Comm_free(&dup);
    if (dup != MPI_COMM_NULL) return 1;
    MPI_Finalize();
    return 0;
}
