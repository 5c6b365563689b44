/* A 1-D Jacobi relaxation: each rank owns N points, exchanges one halo value with each
 * neighbour (MPI_Sendrecv), relaxes its points SWEEPS times, and every step reduces the
 * residual (MPI_Allreduce). The work between calls is fixed (no timing, no data-dependent
 * branches), so two recordings of it differ only by noise and by the tracer's overhead.
 * Usage: jacobi [steps] [points per rank] [sweeps per step] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    int n = argc > 2 ? atoi(argv[2]) : 100000;
    int sweeps = argc > 3 ? atoi(argv[3]) : 4;
    double *u = calloc((size_t)n + 2, sizeof *u), *v = calloc((size_t)n + 2, sizeof *v);
    for (int i = 1; i <= n; i++) u[i] = (double)((rank * n + i) % 97);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double res = 0.0;
    for (int s = 0; s < steps; s++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double local = 0.0;
        for (int k = 0; k < sweeps; k++) {
            for (int i = 1; i <= n; i++) v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
            double *t = u; u = v; v = t;
        }
        for (int i = 1; i <= n; i++) local += (u[i] - v[i]) * (u[i] - v[i]);
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("residual %.6e\n", res);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
