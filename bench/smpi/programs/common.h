/* Shared helper: record this rank's end time. MPI_Wtime() is called exactly once, at the
 * very end (SMPI sleeps 1e-8 s after reading the clock, so a single final call reads the
 * exact completion time of the rank's last operation). No barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void report_end_time(int rank)
{
  double t = MPI_Wtime();
  printf("rank %d: %.15g\n", rank, t);
  fflush(stdout);
}
