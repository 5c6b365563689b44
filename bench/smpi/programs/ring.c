/* ring <bytes>: every rank posts MPI_Irecv from (r-1+P)%P, then MPI_Isend to (r+1)%P
 * (tag 0), then MPI_Waitall. */
#include "common.h"

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: ring <bytes>\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long n = atol(argv[1]);
  char* sbuf = malloc(n > 0 ? n : 1);
  char* rbuf = malloc(n > 0 ? n : 1);
  MPI_Request req[2];
  MPI_Irecv(rbuf, (int)n, MPI_BYTE, (rank - 1 + size) % size, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(sbuf, (int)n, MPI_BYTE, (rank + 1) % size, 0, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  report_end_time(rank);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
