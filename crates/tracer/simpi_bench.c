/* simpi bench: MPIBench-style measurement of one-way message times, built by simpi
 * against the user's MPI and run with the user's launcher.
 *
 *   simpi_bench OUT SIZES LEVELS REPEATS WARMUP [pairs|fan-in]
 *
 * `pairs` (the default): rank i of the first half sends to rank i + n/2; at contention
 * level k, pairs 0..k-1 send at once. `fan-in`: at level k, ranks 1..k send to rank 0
 * at once, so that k messages share the links into rank 0 (contention as simpi's
 * scoreboard counts it: messages in flight on one link). For each size and level, every
 * repeat starts with a barrier; each active sender reads the clock and sends; its
 * receiver reads the clock when the message is in. The one-way time is the receiver's
 * reading minus the sender's, corrected by the offset between their clocks (measured
 * first by ping-pong, the exchange with the shortest round trip counting). Rank 0
 * writes one line per sample: `<bytes> <level> <seconds>`.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DATA 1
#define TAG_T0 2
#define TAG_SAMPLES 3
#define OFFSET_ROUNDS 50

/* Parses a comma-separated list of non-negative integers; returns how many. */
static int parse_list(const char *s, long *out, int max) {
    int n = 0;
    while (*s && n < max) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0) return -1;
        out[n++] = v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return *s ? -1 : n; /* more values than room: refused, not cut short */
}

/* The receiver's clock minus the sender's (seconds), from the ping-pong with the
 * shortest round trip: the receiver's reading is taken as the middle of that trip. */
static double clock_offset(int me, int sender, int receiver) {
    double best_rtt = 1e30, offset = 0.0;
    for (int i = 0; i < OFFSET_ROUNDS; i++) {
        if (me == sender) {
            double t_a = MPI_Wtime(), t_b;
            MPI_Send(&t_a, 1, MPI_DOUBLE, receiver, TAG_T0, MPI_COMM_WORLD);
            MPI_Recv(&t_b, 1, MPI_DOUBLE, receiver, TAG_T0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t_c = MPI_Wtime();
            if (t_c - t_a < best_rtt) {
                best_rtt = t_c - t_a;
                offset = t_b - (t_a + t_c) / 2.0;
            }
        } else if (me == receiver) {
            double t_a, t_b;
            MPI_Recv(&t_a, 1, MPI_DOUBLE, sender, TAG_T0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t_b = MPI_Wtime();
            MPI_Send(&t_b, 1, MPI_DOUBLE, sender, TAG_T0, MPI_COMM_WORLD);
        }
    }
    /* The sender knows it; the receiver needs it. */
    if (me == sender) MPI_Send(&offset, 1, MPI_DOUBLE, receiver, TAG_T0, MPI_COMM_WORLD);
    if (me == receiver) MPI_Recv(&offset, 1, MPI_DOUBLE, sender, TAG_T0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return offset;
}

/* What to measure: the sizes, the levels, the samples per size and level, and where
 * rank 0 writes them. */
struct plan {
    const long *sizes, *levels;
    int ns, nl;
    long repeats, warmup, max_size;
    char *buf; /* max_size bytes to send from */
    FILE *out; /* rank 0's */
};

/* The pairs pattern: rank i sends to rank i + n/2; at level k, pairs 0..k-1 at once.
 * Receivers time their messages and hand the samples to rank 0. */
static void pair_levels(int me, int n, const struct plan *p) {
    int pairs = n / 2, pair = me % pairs, sender = pair, receiver = pair + pairs;
    int in_pair = me < 2 * pairs;
    double offset = 0.0, *samples = malloc(sizeof(double) * (size_t)p->repeats);
    if (!samples) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int q = 0; q < pairs; q++) {
        double o = clock_offset(me, q, q + pairs);
        if (q == pair) offset = o;
    }
    for (int s = 0; s < p->ns; s++) {
        int bytes = (int)p->sizes[s];
        for (int l = 0; l < p->nl; l++) {
            int active = in_pair && pair < p->levels[l];
            for (long r = -p->warmup; r < p->repeats; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                if (!active) continue;
                if (me == sender) {
                    double t0 = MPI_Wtime();
                    MPI_Send(p->buf, bytes, MPI_BYTE, receiver, TAG_DATA, MPI_COMM_WORLD);
                    MPI_Send(&t0, 1, MPI_DOUBLE, receiver, TAG_T0, MPI_COMM_WORLD);
                } else {
                    double t0;
                    MPI_Recv(p->buf, bytes, MPI_BYTE, sender, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    double t1 = MPI_Wtime();
                    MPI_Recv(&t0, 1, MPI_DOUBLE, sender, TAG_T0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    if (r >= 0) samples[r] = t1 - t0 - offset;
                }
            }
            /* Receivers of active pairs hand their samples to rank 0. */
            for (int q = 0; q < p->levels[l]; q++) {
                int rcv = q + pairs;
                if (me == rcv && me != 0)
                    MPI_Send(samples, (int)p->repeats, MPI_DOUBLE, 0, TAG_SAMPLES, MPI_COMM_WORLD);
                if (me == 0) {
                    if (rcv != 0)
                        MPI_Recv(samples, (int)p->repeats, MPI_DOUBLE, rcv, TAG_SAMPLES, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
                    for (long r = 0; r < p->repeats; r++)
                        fprintf(p->out, "%d %ld %.9e\n", bytes, p->levels[l], samples[r]);
                }
            }
        }
    }
    free(samples);
}

/* The fan-in pattern: at level k, ranks 1..k send to rank 0 at once; rank 0 reads the
 * clock as each message completes (MPI_Waitany) and writes every sample. */
static void fan_in_levels(int me, int n, const struct plan *p) {
    size_t room = (size_t)(p->max_size > 0 ? p->max_size : 1);
    double *offset = calloc((size_t)n, sizeof(double)), *t1 = calloc((size_t)n, sizeof(double));
    char *rbuf = me == 0 ? malloc(room * (size_t)n) : NULL;
    MPI_Request *req = calloc((size_t)n, sizeof(MPI_Request));
    if (!offset || !t1 || !req || (me == 0 && !rbuf)) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 1; i < n; i++) {
        double o = clock_offset(me, i, 0);
        if (me == 0) offset[i] = o;
    }
    for (int s = 0; s < p->ns; s++) {
        int bytes = (int)p->sizes[s];
        for (int l = 0; l < p->nl; l++) {
            int k = (int)p->levels[l];
            for (long r = -p->warmup; r < p->repeats; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                if (me >= 1 && me <= k) {
                    double t0 = MPI_Wtime();
                    MPI_Send(p->buf, bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
                    MPI_Send(&t0, 1, MPI_DOUBLE, 0, TAG_T0, MPI_COMM_WORLD);
                } else if (me == 0) {
                    for (int i = 1; i <= k; i++)
                        MPI_Irecv(rbuf + room * (size_t)i, bytes, MPI_BYTE, i, TAG_DATA, MPI_COMM_WORLD, &req[i - 1]);
                    for (int done = 0; done < k; done++) {
                        int j;
                        MPI_Waitany(k, req, &j, MPI_STATUS_IGNORE);
                        t1[j + 1] = MPI_Wtime();
                    }
                    for (int i = 1; i <= k; i++) {
                        double t0;
                        MPI_Recv(&t0, 1, MPI_DOUBLE, i, TAG_T0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        if (r >= 0) fprintf(p->out, "%d %d %.9e\n", bytes, k, t1[i] - t0 - offset[i]);
                    }
                }
            }
        }
    }
    free(offset);
    free(t1);
    free(rbuf);
    free(req);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long sizes[256], levels[256];
    int ns = argc > 2 ? parse_list(argv[2], sizes, 256) : -1;
    int nl = argc > 3 ? parse_list(argv[3], levels, 256) : -1;
    long repeats = argc > 4 ? atol(argv[4]) : 0;
    long warmup = argc > 5 ? atol(argv[5]) : 0;
    const char *pattern = argc > 6 ? argv[6] : "pairs";
    int fan_in = strcmp(pattern, "fan-in") == 0;
    if (argc < 6 || argc > 7 || ns < 1 || nl < 1 || repeats < 1 || warmup < 0 || n < 2 ||
        (!fan_in && strcmp(pattern, "pairs") != 0)) {
        if (me == 0)
            fprintf(stderr,
                    "simpi_bench: usage: simpi_bench OUT SIZES LEVELS REPEATS WARMUP [pairs|fan-in] (at least 2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int most = fan_in ? n - 1 : n / 2;
    for (int l = 0; l < nl; l++) {
        if (levels[l] < 1 || levels[l] > most) {
            if (me == 0)
                fprintf(stderr, "simpi_bench: level %ld: %d ranks make 1 to %d %s\n", levels[l], n, most,
                        fan_in ? "senders into one rank" : "pairs");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    long max_size = 0;
    for (int s = 0; s < ns; s++) max_size = sizes[s] > max_size ? sizes[s] : max_size;
    char *buf = malloc(max_size > 0 ? max_size : 1);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(buf, 7, max_size > 0 ? max_size : 1);

    FILE *out = NULL;
    if (me == 0) {
        out = fopen(argv[1], "w");
        if (!out) {
            perror(argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    struct plan p = {sizes, levels, ns, nl, repeats, warmup, max_size, buf, out};
    if (fan_in)
        fan_in_levels(me, n, &p);
    else
        pair_levels(me, n, &p);
    if (out && fclose(out) != 0) {
        perror(argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
