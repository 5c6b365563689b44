/* Waits for the clock without calling MPI otherwise, as benchmarks' dummy computations
 * do: each MPI_Wtime costs simulated time, so the loop ends even when computation is
 * not simulated. With reads of 10 ns: t0 is read at 10 ns; the loop stops at the first
 * read at least 0.995 us later, the one at 1010 ns, and MPI_Finalize then ends the
 * rank at 1010 ns. */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 0.995e-6) {
    }
    MPI_Finalize();
    return 0;
}
