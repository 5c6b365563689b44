/* Messages and collectives beyond the 4 MiB a mailbox holds: an 8 MiB message each
 * way and an allreduce of 8 MiB, then collectives on large buffers in every form,
 * checked element by element. Exits with the failed check's number. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20) /* doubles: 8 MiB */

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++)
        a[i] = rank * 1e6 + i;
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        MPI_Sendrecv(a, N, MPI_DOUBLE, peer, 0, b, N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            if (b[i] != peer * 1e6 + i)
                return 1;
    }
    MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double ranks = (double)size * (size - 1) / 2;
    for (int i = 0; i < N; i++)
        if (b[i] != ranks * 1e6 + (double)size * i)
            return 2;
    /* The send buffer is only read. */
    for (int i = 0; i < N; i++)
        if (a[i] != rank * 1e6 + i)
            return 3;

    /* Large contiguous buffers that the simulator reads and writes in place, and the
     * forms that keep them packed: in place, non-blocking, rooted, per-rank blocks, a
     * strided type, the program's own operation. */
    for (int i = 0; i < N; i++)
        b[i] = rank + i;
    MPI_Allreduce(MPI_IN_PLACE, b, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        if (b[i] != size - 1 + i)
            return 4;
    MPI_Request q;
    MPI_Iallreduce(a, b, N, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        if (b[i] != i)
            return 5;
    for (int i = 0; i < N; i++)
        b[i] = rank == 0 ? 7.0 * i : -1;
    MPI_Bcast(b, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        if (b[i] != 7.0 * i)
            return 6;
    int root = size - 1;
    for (int i = 0; i < N; i++)
        b[i] = rank == root ? 5 : -1;
    MPI_Reduce(rank == root ? MPI_IN_PLACE : a, b, N, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root) {
        for (int i = 0; i < N; i++)
            if (b[i] != 5 + ranks * 1e6 - root * 1e6 + (double)(size - 1) * i)
                return 7;
    } else {
        for (int i = 0; i < N; i++)
            if (b[i] != -1)
                return 8;
    }
    int m = N / size; /* doubles per rank's block */
    MPI_Allgather(a, m, MPI_DOUBLE, b, m, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < m; i++)
            if (b[r * m + i] != r * 1e6 + i)
                return 9;
    MPI_Alltoall(a, m, MPI_DOUBLE, b, m, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < m; i++)
            if (b[r * m + i] != r * 1e6 + rank * m + i)
                return 10;
    MPI_Scatter(a, m, MPI_DOUBLE, b, m, MPI_DOUBLE, root, MPI_COMM_WORLD);
    for (int i = 0; i < m; i++)
        if (b[i] != root * 1e6 + rank * m + i)
            return 11;
    MPI_Scan(a, b, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        if (b[i] != (double)rank * (rank + 1) / 2 * 1e6 + (double)(rank + 1) * i)
            return 12;
    /* Every other double: not contiguous. */
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < N; i++)
        b[i] = -1;
    MPI_Allreduce(a, b, 1, every_other, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        if (b[i] != (i % 2 ? -1 : ranks * 1e6 + (double)size * i))
            return 13;
    MPI_Type_free(&every_other);

    /* Large messages that the simulator reads from the send buffer and writes into the
     * receive buffer: blocking and buffered sends whose buffer changes once they
     * return, a non-blocking one; a blocking receive into a larger buffer (the status counts
     * what came), a non-blocking one polled with MPI_Test, one completed by
     * MPI_Waitany. */
    if (size >= 2 && rank < 2) {
        double *c = malloc((N + 100) * sizeof(double));
        MPI_Status st;
        int n, done = 0, which;
        if (rank == 0) {
            /* The buffer of a blocking send is the program's again once it returns. */
            MPI_Send(a, N, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
            for (int i = 0; i < N; i++)
                a[i] = 3.0 * i;
            MPI_Send(a, N / 2, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD);
            for (int i = 0; i < N; i++)
                a[i] = 5.0 * i;
            MPI_Send(a + 1, N / 4, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
            MPI_Isend(a, N / 8, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            /* Buffered sends: the buffer is the program's again at once. */
            MPI_Bsend(a, N / 8, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
            for (int i = 0; i < N; i++)
                a[i] = 7.0 * i;
            MPI_Ibsend(a, N / 8, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++)
                a[i] = -1;
        } else {
            MPI_Recv(c, N + 100, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            if (n != N || st.MPI_TAG != 5)
                return 14;
            for (int i = 0; i < N; i++)
                if (c[i] != i)
                    return 15;
            MPI_Irecv(c, N, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, &q);
            while (!done)
                MPI_Test(&q, &done, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            if (n != N / 2)
                return 16;
            for (int i = 0; i < N / 2; i++)
                if (c[i] != 3.0 * i)
                    return 17;
            MPI_Irecv(c, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q);
            MPI_Waitany(1, &q, &which, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            if (which != 0 || n != N / 4 || st.MPI_SOURCE != 0 || st.MPI_TAG != 7)
                return 18;
            for (int i = 0; i < N / 4; i++)
                if (c[i] != 5.0 * (i + 1))
                    return 19;
            MPI_Recv(c, N, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, &st);
            for (int i = 0; i < N / 8; i++)
                if (c[i] != 5.0 * i)
                    return 20;
            MPI_Recv(c, N, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &st);
            for (int i = 0; i < N / 8; i++)
                if (c[i] != 5.0 * i)
                    return 21;
            MPI_Recv(c, N, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD, &st);
            for (int i = 0; i < N / 8; i++)
                if (c[i] != 7.0 * i)
                    return 22;
        }
        free(c);
    }
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
