/* MPI_Iprobe and MPI_Probe, timed (constant network: every message 5 us; each probe
 * costs 1 us and then looks). Rank 0 probes once at 0 us (nothing: flag 0, 1 us),
 * sends to rank 1 at 1 us (arrives at 6 us), then probes: rank 1 sends 3 ints with
 * tag 7 once the message arrived, at 6 us, so the probe ending at 6 us finds it.
 * The receive then ends when the message arrives, at 11 us. With "deadlock", rank 0
 * probes for a message nobody sends while rank 1 waits for rank 0. Exits with the
 * failed check's number. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(n, cond)                                                  \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "probe.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                   \
        }                                                               \
    } while (0)

static int near(double a, double b) { return a - b < 1e-12 && b - a < 1e-12; }

int main(int argc, char **argv) {
    int rank, flag = 1, n, v[3] = {0, 0, 0}, go = 1;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int deadlock = argc > 1 && strcmp(argv[1], "deadlock") == 0;
    if (argc > 1 && strcmp(argv[1], "matched") == 0) {
        /* Matched probes: rank 1 sends tags 5 then 6; rank 0 takes the tag-6 message
         * with a matched probe and receive, then polls for the other with
         * MPI_Improbe and receives it with MPI_Imrecv. MPI_PROC_NULL matches at once.
         * Then two messages of one tag, 2 ints then 1: a matched probe takes the first
         * off the queue, so a plain receive gets the second, and the matched receive
         * still the first (MPICH's mprobe test 12). */
        if (rank == 1) {
            int a = 50, b = 60, c[2] = {70, 71}, d = 80;
            MPI_Send(&a, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
            MPI_Send(&b, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
            MPI_Send(c, 2, MPI_INT, 0, 8, MPI_COMM_WORLD);
            MPI_Send(&d, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
            MPI_Send(c, 2, MPI_INT, 0, 9, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Message m;
            int got = 0, found = 0;
            MPI_Mprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &m, &st);
            CHECK(10, st.MPI_SOURCE == 1 && st.MPI_TAG == 6 && m != MPI_MESSAGE_NULL);
            /* A handle survives the trip through a Fortran integer. */
            m = MPI_Message_f2c(MPI_Message_c2f(m));
            CHECK(16, MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD &&
                          MPI_Type_f2c(MPI_Type_c2f(MPI_INT)) == MPI_INT &&
                          PMPI_Message_f2c(PMPI_Message_c2f(m)) == m);
            MPI_Mrecv(&got, 1, MPI_INT, &m, &st);
            CHECK(11, got == 60 && m == MPI_MESSAGE_NULL);
            while (!found)
                MPI_Improbe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &found, &m, &st);
            CHECK(12, st.MPI_TAG == 5);
            MPI_Request q;
            MPI_Imrecv(&got, 1, MPI_INT, &m, &q);
            MPI_Wait(&q, &st);
            CHECK(13, got == 50 && st.MPI_SOURCE == 1);
            /* A call that completes one request leaves the status's MPI_ERROR. */
            st.MPI_ERROR = MPI_ERR_DIMS;
            MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
            CHECK(14, m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL &&
                          st.MPI_ERROR == MPI_ERR_DIMS);
            MPI_Mrecv(&got, 1, MPI_INT, &m, &st);
            CHECK(15, m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL);
            int two[2] = {0, 0}, one = 0;
            MPI_Mprobe(1, 8, MPI_COMM_WORLD, &m, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            CHECK(17, n == 2);
            MPI_Recv(&one, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &st);
            CHECK(18, one == 80);
            MPI_Mrecv(two, 2, MPI_INT, &m, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            CHECK(19, two[0] == 70 && two[1] == 71 && n == 2 && st.MPI_TAG == 8);
            /* A buffer too small for the matched message is MPI_ERR_TRUNCATE. */
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            MPI_Mprobe(1, 9, MPI_COMM_WORLD, &m, &st);
            int err = MPI_Mrecv(&one, 1, MPI_INT, &m, &st), cls = -1;
            MPI_Error_class(err, &cls);
            CHECK(20, cls == MPI_ERR_TRUNCATE);
        }
        MPI_Finalize();
        return 0;
    }
    if (rank == 0) {
        if (deadlock) {
            MPI_Probe(1, 99, MPI_COMM_WORLD, &st);
            return 20;
        }
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        CHECK(1, flag == 0 && near(MPI_Wtime(), 1e-6));
        MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(2, st.MPI_SOURCE == 1 && st.MPI_TAG == 7 && n == 3 && near(MPI_Wtime(), 6e-6));
        MPI_Recv(v, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
        CHECK(3, v[0] == 1 && v[2] == 3 && near(MPI_Wtime(), 11e-6));
        /* Received: the same probe now finds nothing. */
        MPI_Iprobe(1, 7, MPI_COMM_WORLD, &flag, &st);
        CHECK(4, flag == 0);
    } else if (rank == 1) {
        int w[3] = {1, 2, 3};
        MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!deadlock) MPI_Send(w, 3, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
