/* pingpong <bytes>: one round trip between ranks 0 and 1 (tag 0).
 * rank 0: MPI_Send then MPI_Recv; rank 1: MPI_Recv then MPI_Send. */
#include "common.h"

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || size != 2) {
    if (rank == 0) fprintf(stderr, "usage: pingpong <bytes> (2 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long n = atol(argv[1]);
  char* buf = malloc(n > 0 ? n : 1);
  if (rank == 0) {
    MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  }
  report_end_time(rank);
  free(buf);
  MPI_Finalize();
  return 0;
}
