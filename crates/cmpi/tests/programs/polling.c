/* Rank 0 sends 8 ints to rank 1; rank 1 posts the receive and polls it with MPI_Test
 * until it is complete, then checks the data and the status. With an argument, rank 1
 * exits 1 unless it made that many tests. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, v[8];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 8; i++) v[i] = 3 * i;
        MPI_Send(v, 8, MPI_INT, 1, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request q;
        MPI_Status st;
        int flag = 0, tests = 0, n;
        MPI_Irecv(v, 8, MPI_INT, 0, 9, MPI_COMM_WORLD, &q);
        while (!flag) {
            MPI_Test(&q, &flag, &st);
            tests++;
        }
        MPI_Get_count(&st, MPI_INT, &n);
        if (q != MPI_REQUEST_NULL || n != 8 || st.MPI_SOURCE != 0 || st.MPI_TAG != 9) return 1;
        for (int i = 0; i < 8; i++)
            if (v[i] != 3 * i) return 1;
        /* A null request tests complete at once. */
        MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        if (!flag) return 1;
        printf("tests %d\n", tests);
        if (argc > 1 && tests != atoi(argv[1])) {
            fprintf(stderr, "%d tests, not %s\n", tests, argv[1]);
            return 1;
        }
    }
    MPI_Finalize();
    return 0;
}
