/* Many non-blocking collectives in flight at once on two communicators, started in
 * the same order everywhere and completed in an order of each rank's own: every
 * result is checked. Calls of the same kind in flight together must not take each
 * other's messages. Exits with the failed check's number. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CALLS 400
#define WINDOW 12
#define N 4

/* A small generator, the same on every rank for the same seed. */
static unsigned next(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

struct slot {
    MPI_Request q;
    int kind, root, call;
    int in[64 * N], out[64 * N];
};

/* Whether slot `s` got what MPI defines for call `s->call` on a communicator of
 * `size` ranks where this rank is `me`. */
static int right(const struct slot *s, int me, int size) {
    int c = s->call;
    switch (s->kind) {
    case 0: /* gather to root */
        if (me != s->root)
            return 1;
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                if (s->out[r * N + i] != 1000 * c + 10 * r + i)
                    return 0;
        return 1;
    case 1: /* bcast from root */
        for (int i = 0; i < N; i++)
            if (s->in[i] != 1000 * c + 10 * s->root + i)
                return 0;
        return 1;
    case 2: /* allreduce, sum */
        for (int i = 0; i < N; i++)
            if (s->out[i] != size * (1000 * c + i) + 10 * size * (size - 1) / 2)
                return 0;
        return 1;
    default: /* alltoall */
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                if (s->out[r * N + i] != 1000 * c + 100 * r + 10 * me + i)
                    return 0;
        return 1;
    }
}

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comms[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    struct slot *slots = calloc(WINDOW, sizeof(struct slot));
    int *cm = calloc(WINDOW, sizeof(int));
    for (int k = 0; k < WINDOW; k++)
        slots[k].q = MPI_REQUEST_NULL;
    unsigned common = 7, own = 1234 + 77 * rank;
    for (int call = 0; call < CALLS + WINDOW; call++) {
        /* Each rank completes a slot of its own choosing, then starts the next call
         * there: the calls start in the same order on every rank. */
        int k = call < WINDOW ? call : (int)(next(&own) % WINDOW);
        if (call >= WINDOW) {
            MPI_Wait(&slots[k].q, MPI_STATUS_IGNORE);
            int me, size;
            MPI_Comm_rank(comms[cm[k]], &me);
            MPI_Comm_size(comms[cm[k]], &size);
            if (!right(&slots[k], me, size)) {
                fprintf(stderr, "rank %d: call %d (kind %d) is wrong\n", rank, slots[k].call, slots[k].kind);
                return 1;
            }
        }
        if (call >= CALLS) {
            /* Drain: complete the rest in order. */
            for (int j = 0; j < WINDOW; j++)
                if (slots[j].q != MPI_REQUEST_NULL) {
                    MPI_Wait(&slots[j].q, MPI_STATUS_IGNORE);
                    int me, size;
                    MPI_Comm_rank(comms[cm[j]], &me);
                    MPI_Comm_size(comms[cm[j]], &size);
                    if (!right(&slots[j], me, size))
                        return 2;
                }
            break;
        }
        struct slot *s = &slots[k];
        int c = (int)(next(&common) % 2), me, size;
        cm[k] = c;
        MPI_Comm comm = comms[c];
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &size);
        s->kind = (int)(next(&common) % 4);
        s->root = (int)(next(&common) % (unsigned)size);
        s->call = call;
        for (int i = 0; i < N; i++)
            s->in[i] = 1000 * call + 10 * me + i;
        switch (s->kind) {
        case 0:
            MPI_Igather(s->in, N, MPI_INT, s->out, N, MPI_INT, s->root, comm, &s->q);
            break;
        case 1:
            if (me != s->root)
                for (int i = 0; i < N; i++)
                    s->in[i] = -1;
            MPI_Ibcast(s->in, N, MPI_INT, s->root, comm, &s->q);
            break;
        case 2:
            MPI_Iallreduce(s->in, s->out, N, MPI_INT, MPI_SUM, comm, &s->q);
            break;
        default:
            for (int r = 0; r < size; r++)
                for (int i = 0; i < N; i++)
                    s->in[r * N + i] = 1000 * call + 100 * me + 10 * r + i;
            MPI_Ialltoall(s->in, N, MPI_INT, s->out, N, MPI_INT, comm, &s->q);
        }
    }
    free(slots);
    free(cm);
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    MPI_Finalize();
    return 0;
}
