/* Ring exchange whose receives are polled with MPI_Test between bursts of work. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static volatile double sink;
static void work(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 1e-9; sink = s; }
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, p; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &p);
  int sizes[] = {8, 1000, 20000, 100000, 400000};
  char *sb = malloc(400000), *rb = malloc(400000);
  for (int it = 0; it < 20; it++) {
    int n = sizes[it % 5];
    MPI_Request rq, sq; int flag = 0;
    MPI_Irecv(rb, n, MPI_CHAR, (r + p - 1) % p, it, MPI_COMM_WORLD, &rq);
    work(20000 * (1 + (r * 7 + it) % 5));
    MPI_Isend(sb, n, MPI_CHAR, (r + 1) % p, it, MPI_COMM_WORLD, &sq);
    while (!flag) { work(3000 + 1000 * (r % 3)); MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); }
    MPI_Wait(&sq, MPI_STATUS_IGNORE);
    if (it % 4 == 3) MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
