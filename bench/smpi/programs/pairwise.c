/* pairwise <bytes>: for k = 1..P-1 (P a power of two), partner = r XOR k:
 * MPI_Irecv <bytes> from partner, MPI_Isend <bytes> to partner (tag k), MPI_Waitall. */
#include "common.h"

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || (size & (size - 1)) != 0) {
    if (rank == 0) fprintf(stderr, "usage: pairwise <bytes> (power-of-two ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long n = atol(argv[1]);
  char* sbuf = malloc(n > 0 ? n : 1);
  char* rbuf = malloc(n > 0 ? n : 1);
  for (int k = 1; k < size; k++) {
    int partner = rank ^ k;
    MPI_Request req[2];
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  }
  report_end_time(rank);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
