/* Two ranks each send 100 kB to the other, then receive: with MPI_Bsend the sends
 * return at once (buffered) and both receives match; with "send" (MPI_Send under a
 * protocol where messages this large wait for their receive) both ranks block. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, n = 100000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *out = malloc(n), *in = malloc(n);
    memset(out, 'a' + rank, n);
    void *pool = malloc(n + MPI_BSEND_OVERHEAD);
    MPI_Buffer_attach(pool, n + MPI_BSEND_OVERHEAD);
    if (argc > 1 && strcmp(argv[1], "send") == 0)
        MPI_Send(out, n, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD);
    else
        MPI_Bsend(out, n, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD);
    MPI_Recv(in, n, MPI_CHAR, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int size;
    MPI_Buffer_detach(&pool, &size);
    int ok = in[0] == 'a' + (1 - rank) && in[n - 1] == in[0] && size == n + MPI_BSEND_OVERHEAD;
    free(pool);
    MPI_Finalize();
    return ok ? 0 : 1;
}
