/* simpi calibrate's measurement program, built by simpi against the user's MPI and
 * run with the user's launcher. Ranks 0 and 1 measure; the others only compute and
 * wait.
 *
 *   simpi_calibrate OUT SIZES REPEATS [all|pair|cpus]
 *
 * For each size (bytes, comma-separated), rank 0 writes to OUT one line per sample,
 * `<kind> <bytes> <seconds>`:
 *   pingpong  half the round trip of a ping-pong between ranks 0 and 1;
 *   send      time rank 0 spends in MPI_Send while rank 1 is late to receive;
 *   recv      time rank 1 spends in MPI_Recv posted after the message had time to
 *             arrive (both sides start together after a barrier; rank 1 sleeps first);
 * then `gap 1 <s>`: time per message of 100 back-to-back one-byte sends at the
 * receiver; `detached <B> 0`: the smallest size whose MPI_Send waited for its late
 * receiver (bisection between the measured sizes); `bidir <B> <s>` for each size of at
 * least 256 KiB: the time of an MPI_Sendrecv of B bytes each way at once (two flows
 * through the same links in opposite directions); `flops 0 <rate>` per rank: the rate
 * of a multiply-add kernel while every rank runs it; `solo 0 <rate>`: rank 0's kernel
 * while the other ranks sleep outside MPI; `spin <k> <rate>`: rank 0's kernel while the
 * k other ranks wait inside MPI_Recv (where an MPI that busy-waits spins: on ranks that
 * share cores, the difference says how much of a core a waiting rank takes);
 * `ranks <n> 0`: the ranks of the run; with more than two, `alltoall <B> <s>` for each
 * power of two from 64 KiB to 1 MiB among the sizes: every rank sends B bytes to every
 * other and receives B from each at once (nonblocking), the slowest rank's time: every
 * link busy, which on ranks that share cores shows what moving bytes costs the CPUs;
 * and `ring <B> <s>` for the same sizes: every rank sends B bytes to the next and
 * receives B from the one before at once, the slowest rank's time: as many messages
 * as ranks, none converging on a link with another host's, so that what it costs
 * beyond the network is the CPUs' (and what the all-to-all costs beyond that is its
 * converging flows'); and `alltoall 8 <s>`: the mean time of one of SMALL_ROUNDS
 * all-to-alls of 8 bytes in a row, each rank's next round after its last one's
 * messages (many small messages at once: what each costs the shared CPUs whatever its
 * size); and `token 8 <s>`: the time per hop of an 8-byte token passed around every
 * rank TOKEN_LAPS times (one message in flight, every other rank waiting in MPI_Recv:
 * on ranks that share cores, how long a waiting rank takes to notice its message).
 * The last argument chooses: `pair` measures only ranks 0 and 1 (run it with two
 * ranks: alone, they measure cleanest), `cpus` only the kernel and the all-to-all
 * (run it with every rank that shares the cores), `all` (the default) both.
 * Ranks 2 and up sleep outside MPI while ranks 0 and 1 measure, so that a run with more
 * ranks than cores measures the pair as if it were alone.
 * Large sizes get fewer repeats (at least 5) so that no size takes much more than a
 * second per kind.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG 7
#define STREAM 100
#define MAX_SIZES 512
#define BIDIR_FROM (256L * 1024)
#define QUIET 8
#define KERNEL_REPEATS 3
#define ALLTOALL_FROM (64L * 1024)
#define ALLTOALL_TO (1024L * 1024)
#define SMALL 8
#define TOKEN_LAPS 10
#define SMALL_ROUNDS 20

static int parse_list(const char *s, long *out, int max) {
    int n = 0;
    while (*s && n < max) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0) return -1;
        out[n++] = v;
        if (*end && *end != ',') return -1;
        s = *end == ',' ? end + 1 : end;
    }
    return *s ? -1 : n; /* more values than room: refused, not cut short */
}

/* Sleeps, then spins through the last 200 us: the CPU stays free for the others
 * (on the testbed, the switch) but the receive does not pay the scheduler's wake-up. */
static void sleep_for(double seconds) {
    double end = MPI_Wtime() + seconds;
    double nap = seconds - 200e-6;
    if (nap > 0) {
        struct timespec ts;
        ts.tv_sec = (time_t)nap;
        ts.tv_nsec = (long)((nap - (double)ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    while (MPI_Wtime() < end) {
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* One late-receiver exchange of `bytes` between ranks 0 and 1 over `pair`; rank 1
 * sleeps `late` seconds before receiving. Returns the caller's time in its call. */
static double late_exchange(MPI_Comm pair, int me, char *buf, long bytes, double late) {
    MPI_Barrier(pair);
    double t0, t1;
    if (me == 0) {
        t0 = MPI_Wtime();
        MPI_Send(buf, (int)bytes, MPI_BYTE, 1, TAG, pair);
        t1 = MPI_Wtime();
    } else {
        sleep_for(late);
        t0 = MPI_Wtime();
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, TAG, pair, MPI_STATUS_IGNORE);
        t1 = MPI_Wtime();
    }
    return t1 - t0;
}

/* The rate of a multiply-add kernel: four independent chains, 8 flops per iteration. */
static double kernel_rate(void) {
    long iters = 20000000;
    double x0 = 1.0, x1 = 1.1, x2 = 1.2, x3 = 1.3, m = 0.999999, c = 1e-7;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        x0 = x0 * m + c;
        x1 = x1 * m + c;
        x2 = x2 * m + c;
        x3 = x3 * m + c;
    }
    double rate = 8.0 * (double)iters / (MPI_Wtime() - t0);
    if (x0 + x1 + x2 + x3 == 42.0) rate += 1.0; /* keeps the loop */
    return rate;
}

/* Waits for rank 0's word on `tag` without spinning inside MPI: a probe every 10 ms
 * (each probe runs the MPI library's progress: rarely, so that sleepers do not disturb
 * the pair measured). */
static void quiet_wait(int tag) {
    int flag = 0;
    char c;
    for (;;) {
        MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag) break;
        sleep_for(1e-2);
    }
    MPI_Recv(&c, 1, MPI_CHAR, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0 tells ranks `from` and up that the wait on `tag` is over. */
static void release(int from, int n, int tag) {
    char c = 0;
    for (int r = from; r < n; r++) MPI_Send(&c, 1, MPI_CHAR, r, tag, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long sizes[MAX_SIZES];
    int ns = argc > 2 ? parse_list(argv[2], sizes, MAX_SIZES) : -1;
    long repeats = argc > 3 ? atol(argv[3]) : 0;
    const char *what = argc > 4 ? argv[4] : "all";
    int do_pair = strcmp(what, "cpus") != 0, do_cpus = strcmp(what, "pair") != 0;
    if (argc < 4 || argc > 5 || ns < 1 || repeats < 1 || n < 2 ||
        (strcmp(what, "all") && strcmp(what, "pair") && strcmp(what, "cpus"))) {
        if (me == 0)
            fprintf(stderr, "simpi_calibrate: usage: simpi_calibrate OUT SIZES REPEATS [all|pair|cpus] (at least 2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long max_size = STREAM;
    for (int s = 0; s < ns; s++) max_size = sizes[s] > max_size ? sizes[s] : max_size;
    char *buf = malloc(max_size);
    double *a = malloc(sizeof(double) * repeats), *b = malloc(sizeof(double) * repeats);
    if (!buf || !a || !b) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(buf, 3, max_size);
    FILE *out = NULL;
    if (me == 0 && !(out = fopen(argv[1], "w"))) {
        perror(argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, me, &pair);

    /* The compute kernel on every rank at once. */
    if (do_cpus) {
        MPI_Barrier(MPI_COMM_WORLD);
        double rate = kernel_rate();
        double *rates = me == 0 ? malloc(sizeof(double) * n) : NULL;
        MPI_Gather(&rate, 1, MPI_DOUBLE, rates, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (me == 0) {
            for (int r = 0; r < n; r++) fprintf(out, "flops 0 %.9e\n", rates[r]);
            free(rates);
        }
    }
    /* Rank 0's kernel alone, then while the others wait inside MPI. */
    for (int spin = 0; do_cpus && spin < 2; spin++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            sleep_for(0.01); /* the others are waiting by then */
            for (int r = 0; r < KERNEL_REPEATS; r++) {
                double rate = kernel_rate();
                if (spin)
                    fprintf(out, "spin %d %.9e\n", n - 1, rate);
                else
                    fprintf(out, "solo 0 %.9e\n", rate);
            }
            release(1, n, QUIET);
        } else if (spin) {
            char c;
            MPI_Recv(&c, 1, MPI_CHAR, 0, QUIET, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            quiet_wait(QUIET);
        }
    }

    if (me >= 2 && do_pair) quiet_wait(QUIET);
    if (pair != MPI_COMM_NULL && do_pair) {
        int first_waiting = -1;
        double last_late = 1e-3;
        for (int s = 0; s < ns; s++) {
            long bytes = sizes[s];
            /* Warm up, and estimate the one-way time to size the repeats and delays. */
            double t0 = MPI_Wtime();
            for (int w = 0; w < 2; w++) {
                if (me == 0) {
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 1, TAG, pair);
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, TAG, pair, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, TAG, pair, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 0, TAG, pair);
                }
            }
            double est = (MPI_Wtime() - t0) / 4.0;
            MPI_Bcast(&est, 1, MPI_DOUBLE, 0, pair);
            long reps = repeats;
            if (est * 4.0 * (double)reps > 1.0) reps = (long)(1.0 / (est * 4.0));
            if (reps < 5) reps = 5;
            if (reps > repeats) reps = repeats;
            for (long r = 0; r < reps; r++) {
                if (me == 0) {
                    double p0 = MPI_Wtime();
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 1, TAG, pair);
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, TAG, pair, MPI_STATUS_IGNORE);
                    a[r] = (MPI_Wtime() - p0) / 2.0;
                } else {
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, TAG, pair, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 0, TAG, pair);
                }
            }
            if (me == 0)
                for (long r = 0; r < reps; r++) fprintf(out, "pingpong %ld %.9e\n", bytes, a[r]);
            /* Late receiver: long enough for the message to be in before the receive. */
            double late = 3.0 * est + 1e-3;
            last_late = late;
            for (long r = 0; r < reps; r++) a[r] = late_exchange(pair, me, buf, bytes, late);
            if (me == 1) MPI_Send(a, (int)reps, MPI_DOUBLE, 0, TAG, pair);
            if (me == 0) {
                MPI_Recv(b, (int)reps, MPI_DOUBLE, 1, TAG, pair, MPI_STATUS_IGNORE);
                for (long r = 0; r < reps; r++) fprintf(out, "send %ld %.9e\n", bytes, a[r]);
                for (long r = 0; r < reps; r++) fprintf(out, "recv %ld %.9e\n", bytes, b[r]);
                if (first_waiting < 0 && median(a, (int)reps) > 0.5 * late) first_waiting = s;
            }
            MPI_Bcast(&first_waiting, 1, MPI_INT, 0, pair);
        }
        /* The detached threshold, by bisection between the last size that went on and
         * the first that waited. */
        if (first_waiting > 0) {
            long lo = sizes[first_waiting - 1], hi = sizes[first_waiting];
            while (hi - lo > 1) {
                long mid = lo + (hi - lo) / 2;
                double late = last_late;
                double t[3];
                for (int r = 0; r < 3; r++) t[r] = late_exchange(pair, me, buf, mid, late);
                int waited = me == 0 && median(t, 3) > 0.5 * late;
                MPI_Bcast(&waited, 1, MPI_INT, 0, pair);
                if (waited)
                    hi = mid;
                else
                    lo = mid;
            }
            if (me == 0) fprintf(out, "detached %ld 0\n", hi);
        } else if (first_waiting == 0 && me == 0) {
            fprintf(out, "detached %ld 0\n", sizes[0]);
        }
        /* Two flows at once, one each way: what each direction's traffic costs the other. */
        char *rbuf = malloc(max_size);
        if (!rbuf) MPI_Abort(MPI_COMM_WORLD, 3);
        for (int s = 0; s < ns; s++) {
            long bytes = sizes[s];
            if (bytes < BIDIR_FROM) continue;
            long reps = repeats < 5 ? repeats : 5;
            for (long r = 0; r < reps; r++) {
                MPI_Barrier(pair);
                double t0 = MPI_Wtime();
                MPI_Sendrecv(buf, (int)bytes, MPI_BYTE, 1 - me, TAG, rbuf, (int)bytes, MPI_BYTE, 1 - me, TAG, pair,
                             MPI_STATUS_IGNORE);
                a[r] = MPI_Wtime() - t0;
            }
            if (me == 0)
                for (long r = 0; r < reps; r++) fprintf(out, "bidir %ld %.9e\n", bytes, a[r]);
        }
        free(rbuf);
        /* Gap: a stream of one-byte messages, timed at the receiver. */
        for (long r = 0; r < (repeats < 10 ? repeats : 10); r++) {
            MPI_Barrier(pair);
            if (me == 0) {
                MPI_Request req[STREAM];
                for (int i = 0; i < STREAM; i++) MPI_Isend(buf + i, 1, MPI_BYTE, 1, TAG, pair, &req[i]);
                MPI_Waitall(STREAM, req, MPI_STATUSES_IGNORE);
                MPI_Recv(&a[r], 1, MPI_DOUBLE, 1, TAG, pair, MPI_STATUS_IGNORE);
            } else {
                double first = 0.0;
                for (int i = 0; i < STREAM; i++) {
                    MPI_Recv(buf + i, 1, MPI_BYTE, 0, TAG, pair, MPI_STATUS_IGNORE);
                    if (i == 0) first = MPI_Wtime();
                }
                double gap = (MPI_Wtime() - first) / (STREAM - 1);
                MPI_Send(&gap, 1, MPI_DOUBLE, 0, TAG, pair);
            }
            if (me == 0) fprintf(out, "gap 1 %.9e\n", a[r]);
        }
    }
    if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
    if (me == 0 && do_pair) release(2, n, QUIET);
    if (me == 0) fprintf(out, "ranks %d 0\n", n);
    /* Every rank sends to every other at once. */
    if (n > 2 && do_cpus) {
        MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)n);
        if (!req) MPI_Abort(MPI_COMM_WORLD, 3);
        for (int s = 0; s < ns; s++) {
            long bytes = sizes[s];
            if (bytes < ALLTOALL_FROM || bytes > ALLTOALL_TO || (bytes & (bytes - 1)) != 0) continue;
            char *sb = malloc((size_t)bytes * n), *rb = malloc((size_t)bytes * n);
            if (!req || !sb || !rb) MPI_Abort(MPI_COMM_WORLD, 3);
            memset(sb, 5, (size_t)bytes * n);
            long reps = repeats < 5 ? repeats : 5;
            for (long r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                int k = 0;
                for (int i = 1; i < n; i++) {
                    int from = (me + n - i) % n, to = (me + i) % n;
                    MPI_Irecv(rb + (size_t)from * bytes, (int)bytes, MPI_BYTE, from, TAG, MPI_COMM_WORLD, &req[k++]);
                    MPI_Isend(sb + (size_t)to * bytes, (int)bytes, MPI_BYTE, to, TAG, MPI_COMM_WORLD, &req[k++]);
                }
                MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
                double mine = MPI_Wtime() - t0, slowest = 0.0;
                MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                if (me == 0) fprintf(out, "alltoall %ld %.9e\n", bytes, slowest);
            }
            free(sb);
            free(rb);
        }
        for (int s = 0; s < ns; s++) {
            long bytes = sizes[s];
            if (bytes < ALLTOALL_FROM || bytes > ALLTOALL_TO || (bytes & (bytes - 1)) != 0) continue;
            char *sb = malloc((size_t)bytes), *rb = malloc((size_t)bytes);
            if (!sb || !rb) MPI_Abort(MPI_COMM_WORLD, 3);
            memset(sb, 5, (size_t)bytes);
            long reps = repeats < 5 ? repeats : 5;
            for (long r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                MPI_Irecv(rb, (int)bytes, MPI_BYTE, (me + n - 1) % n, TAG, MPI_COMM_WORLD, &req[0]);
                MPI_Isend(sb, (int)bytes, MPI_BYTE, (me + 1) % n, TAG, MPI_COMM_WORLD, &req[1]);
                MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
                double mine = MPI_Wtime() - t0, slowest = 0.0;
                MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                if (me == 0) fprintf(out, "ring %ld %.9e\n", bytes, slowest);
            }
            free(sb);
            free(rb);
        }
        {
            char *sb = malloc((size_t)SMALL * n), *rb = malloc((size_t)SMALL * n);
            if (!sb || !rb) MPI_Abort(MPI_COMM_WORLD, 3);
            memset(sb, 5, (size_t)SMALL * n);
            long reps = repeats < 20 ? repeats : 20;
            for (long r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int round = 0; round < SMALL_ROUNDS; round++) {
                    int k = 0;
                    for (int i = 1; i < n; i++) {
                        int from = (me + n - i) % n, to = (me + i) % n;
                        MPI_Irecv(rb + (size_t)from * SMALL, SMALL, MPI_BYTE, from, TAG, MPI_COMM_WORLD, &req[k++]);
                        MPI_Isend(sb + (size_t)to * SMALL, SMALL, MPI_BYTE, to, TAG, MPI_COMM_WORLD, &req[k++]);
                    }
                    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
                }
                double mine = (MPI_Wtime() - t0) / SMALL_ROUNDS, slowest = 0.0;
                MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                if (me == 0) fprintf(out, "alltoall %d %.9e\n", SMALL, slowest);
            }
            free(sb);
            free(rb);
        }
        {
            char token[SMALL];
            memset(token, 5, SMALL);
            int next = (me + 1) % n, prev = (me + n - 1) % n;
            long reps = repeats < 20 ? repeats : 20;
            for (long r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int lap = 0; lap < TOKEN_LAPS; lap++) {
                    if (me == 0) {
                        MPI_Send(token, SMALL, MPI_BYTE, next, TAG, MPI_COMM_WORLD);
                        MPI_Recv(token, SMALL, MPI_BYTE, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Recv(token, SMALL, MPI_BYTE, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        MPI_Send(token, SMALL, MPI_BYTE, next, TAG, MPI_COMM_WORLD);
                    }
                }
                double hop = (MPI_Wtime() - t0) / ((double)TOKEN_LAPS * n);
                if (me == 0) fprintf(out, "token %d %.9e\n", SMALL, hop);
            }
        }
        free(req);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (out && fclose(out) != 0) {
        perror(argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(buf);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
