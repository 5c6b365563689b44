/* A minimal PMPI tracer for the chaining test (`simpi trace --chain`): counts the calls it
 * receives, forwards them to PMPI, and notes whether simpi's wrapper was running
 * (simpi_depth > 0), i.e. whether the call came through simpi's tracer. At MPI_Finalize it
 * writes `<NEXT_TRACER_DIR>/next-<rank>.txt`: one `MPI_X calls through-simpi` line each. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { INIT, RANK, SEND, RECV, BARRIER, ALLREDUCE, FINALIZE, N };
static const char *names[N] = {"MPI_Init", "MPI_Comm_rank", "MPI_Send", "MPI_Recv",
                               "MPI_Barrier", "MPI_Allreduce", "MPI_Finalize"};
static long calls[N], through[N];

static void seen(int f) {
    int *depth = dlsym(RTLD_DEFAULT, "simpi_depth");
    calls[f]++;
    if (depth && *depth > 0) through[f]++;
}

int MPI_Init(int *argc, char ***argv) {
    seen(INIT);
    return PMPI_Init(argc, argv);
}
int MPI_Comm_rank(MPI_Comm c, int *r) {
    seen(RANK);
    return PMPI_Comm_rank(c, r);
}
int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
    seen(SEND);
    return PMPI_Send(b, n, t, d, tag, c);
}
int MPI_Recv(void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st) {
    seen(RECV);
    return PMPI_Recv(b, n, t, s, tag, c, st);
}
int MPI_Barrier(MPI_Comm c) {
    seen(BARRIER);
    return PMPI_Barrier(c);
}
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    seen(ALLREDUCE);
    return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Finalize(void) {
    int me;
    char path[4096];
    seen(FINALIZE);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    snprintf(path, sizeof path, "%s/next-%d.txt", getenv("NEXT_TRACER_DIR"), me);
    FILE *f = fopen(path, "w");
    if (f) {
        for (int i = 0; i < N; i++) fprintf(f, "%s %ld %ld\n", names[i], calls[i], through[i]);
        fclose(f);
    }
    return PMPI_Finalize();
}
