/* Ranks 0 and 1 exchange a message ROUNDS times; each checks the bytes and status it
 * got. With an argument, rank 0 exits 1 unless MPI_Wtime measured that many seconds
 * for the whole exchange. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 10
#define BYTES 1000

int main(int argc, char **argv) {
    int rank;
    unsigned char buf[BYTES];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0) {
            for (int k = 0; k < BYTES; k++) buf[k] = (unsigned char)(i + k);
            MPI_Send(buf, BYTES, MPI_BYTE, 1, i, MPI_COMM_WORLD);
            MPI_Recv(buf, BYTES, MPI_BYTE, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int k = 0; k < BYTES; k++)
                if (buf[k] != (unsigned char)(i + k + 1)) { fprintf(stderr, "bad byte\n"); return 1; }
        } else if (rank == 1) {
            MPI_Status st;
            int n;
            MPI_Recv(buf, BYTES, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &n);
            if (n != BYTES || st.MPI_SOURCE != 0 || st.MPI_TAG != i) { fprintf(stderr, "bad status\n"); return 1; }
            for (int k = 0; k < BYTES; k++) buf[k] += 1;
            MPI_Send(buf, BYTES, MPI_BYTE, 0, i, MPI_COMM_WORLD);
        }
    }
    if (rank == 0 && argc > 1) {
        double want = atof(argv[1]), got = MPI_Wtime() - t0;
        if (got < want - 1e-12 || got > want + 1e-12) {
            fprintf(stderr, "MPI_Wtime measured %.12f s, not %.12f s\n", got, want);
            return 1;
        }
    }
    MPI_Finalize();
    return 0;
}
