/* Rank r > 1 sends to rank 0 only after rank r-1's token reached it, so the
 * messages to rank 0 leave in rank order in simulated time, whatever order the
 * processes run in. Rank 0 receives them from MPI_ANY_SOURCE and exits 1 unless they
 * matched in that order. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, size, v;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            if (v != st.MPI_SOURCE || v != i) return 1;
        }
    } else {
        if (rank > 1) MPI_Recv(&v, 1, MPI_INT, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank + 1 < size) MPI_Send(&rank, 1, MPI_INT, rank + 1, 1, MPI_COMM_WORLD);
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
