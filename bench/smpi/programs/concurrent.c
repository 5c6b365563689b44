/* concurrent <N> <bytes> <offset>: ranks 0..N-1 MPI_Send <bytes> to rank r+offset (tag 0),
 * ranks offset..offset+N-1 MPI_Recv them; every other rank does nothing. */
#include "common.h"

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: concurrent <N> <bytes> <offset>\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int nflows = atoi(argv[1]);
  long n = atol(argv[2]);
  int off = atoi(argv[3]);
  if (nflows > off || off + nflows > size) {
    if (rank == 0) fprintf(stderr, "concurrent: need N <= offset and offset + N <= ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  char* buf = malloc(n > 0 ? n : 1);
  if (rank < nflows)
    MPI_Send(buf, (int)n, MPI_BYTE, rank + off, 0, MPI_COMM_WORLD);
  else if (rank >= off && rank < off + nflows)
    MPI_Recv(buf, (int)n, MPI_BYTE, rank - off, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  report_end_time(rank);
  free(buf);
  MPI_Finalize();
  return 0;
}
