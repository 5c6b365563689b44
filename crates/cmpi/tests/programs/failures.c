/* One way to fail per first argument: crash (rank 1 dies of SIGSEGV), exit (rank 1
 * exits without MPI_Finalize), abort (rank 1 calls MPI_Abort), deadlock (both ranks
 * receive first), badrank (a send to rank 99: fatal by default), errreturn (the same
 * with MPI_ERRORS_RETURN: the call returns MPI_ERR_RANK and the run goes on), orphan
 * (each rank prints its process id; rank 0 then sleeps outside MPI for ever, rank 1
 * waits in MPI_Recv for ever: the test kills simpi run and checks both end). A first
 * argument of --np (what simpi run's own -np becomes) exits 2: simpi run must pass a
 * program's -np through untouched. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int rank, v = 0;
    const char *mode = argc > 1 ? argv[1] : "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!strcmp(mode, "orphan")) {
        printf("pid %d\n", (int)getpid());
        fflush(stdout);
        if (rank == 0)
            for (;;) pause();
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(mode, "--np")) return 2;
    if (!strcmp(mode, "crash") && rank == 1) raise(SIGSEGV);
    if (!strcmp(mode, "exit") && rank == 1) exit(4);
    if (!strcmp(mode, "abort") && rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
    if (!strcmp(mode, "deadlock")) {
        MPI_Recv(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    }
    if (!strcmp(mode, "badrank")) MPI_Send(&v, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    /* A count far beyond the buffer (an erroneous program): 2^59 bytes. */
    if (!strcmp(mode, "hugecount")) {
        MPI_Datatype big;
        MPI_Type_contiguous(1 << 26, MPI_DOUBLE, &big);
        MPI_Type_commit(&big);
        MPI_Allreduce(MPI_IN_PLACE, &v, 1 << 30, big, MPI_SUM, MPI_COMM_WORLD);
    }
    if (!strcmp(mode, "errreturn")) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int e = MPI_Send(&v, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        if (e != MPI_ERR_RANK) return 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
