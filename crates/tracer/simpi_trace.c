/*
 * simpi's MPI tracer: a preloaded library that interposes the MPI calls of an unmodified
 * program through the PMPI profiling interface and writes, per rank,
 *   rank-<r>.tit     the calls in simpi's TIT dialect (docs/formats.md),
 *   rank-<r>.times   for each TIT line, its name and measured start and end (seconds),
 *   rank-<r>.counts  how often the program called every MPI function, traced or not.
 * Time between calls becomes `compute` lines in flops at SIMPI_TRACE_SPEED flop/s. With
 * SIMPI_TRACE_COMPUTE=cpu the flops come from the thread's CPU time over that interval
 * instead of the wall clock's: the work itself, without the time other processes held the
 * CPU (ranks sharing cores; a model of shared CPUs adds that back). The .times files keep
 * the wall clock.
 * Built with -DSIMPI_OTF2 (`simpi trace --otf2`), it also writes the same calls as an
 * OTF2 archive (traces.otf2; simpi_otf2.c): the O2(...) hooks vanish otherwise.
 *
 * Built by `simpi trace` against the MPI it will run with, together with generated
 * pass-through wrappers that count every other MPI function of that library's mpi.h.
 * Assumes MPI calls come from one thread at a time (MPI_THREAD_FUNNELED or SERIALIZED).
 *
 * Chaining (SIMPI_TRACE_NEXT=1, `simpi trace --chain LIB`): each wrapper forwards the
 * program's call to the next definition of MPI_X in the preload order (dlsym RTLD_NEXT,
 * resolved once per function) instead of PMPI_X, so that another PMPI tracer preloaded
 * after this one (libdumpi, liballprof) records the same run. The tracer's own helper
 * calls (PMPI_Type_size, the clock synchronisation...) stay PMPI: the other tracer does
 * not see them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "simpi_fns.h"

#ifdef SIMPI_OTF2
#include "simpi_otf2.h"
#define O2(...) __VA_ARGS__
#else
#define O2(...)
#endif

unsigned long long simpi_calls[SIMPI_FN_COUNT];
/* Depth of MPI calls in progress: only calls the program makes itself (depth 0) count. */
int simpi_depth;

static FILE *tit_out, *times_out;
static int me = -1;
static int active;
static double epoch, last_exit, carry;
/* SIMPI_TRACE_COMPUTE=cpu: thread CPU time at the last exit and not yet written. */
static int cpu_compute;
static double last_exit_cpu, carry_cpu;
/* Whether calls go to a chained tracer (SIMPI_TRACE_NEXT, read when tracing starts). */
static int chain_on;
/* Chaining: when the chained call returned (ENDED(), after NEXT(...)(...)), 0 if unset. */
static double call_end;
static double speed = 1e9, min_gap = 1e-6;
static char out_dir[4096] = "simpi-trace";
static long long icoll_count;

/* ------------------------------------------------------------------ chaining */

/* What NEXT(MPI_X) calls: `pmpi` (PMPI_X), or with SIMPI_TRACE_NEXT set to anything but
 * 0, the next MPI_X after this library (PMPI_X if there is none). */
static int chaining(void) {
    static int chain = -1;
    if (chain < 0) {
        const char *e = getenv("SIMPI_TRACE_NEXT");
        chain = e && *e && strcmp(e, "0") != 0;
    }
    return chain;
}

void *simpi_next(const char *name, void *pmpi) {
    if (!chaining()) return pmpi;
    void *f = dlsym(RTLD_NEXT, name);
    return f ? f : pmpi;
}

/* ------------------------------------------------------------------ clock and lines */

static double clock_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double rel_now(void) { return clock_now() - epoch; }

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Starts a traced call: time since the previous call is the program's own computation. */
static double enter(void) {
    double t = rel_now();
    call_end = 0;
    if (!active) return t;
    if (t > last_exit) carry += t - last_exit;
    if (cpu_compute) {
        double c = cpu_now();
        if (c > last_exit_cpu) carry_cpu += c - last_exit_cpu;
        last_exit_cpu = c;
    }
    if (carry >= min_gap) {
        fprintf(tit_out, "%d compute %.9g\n", me, (cpu_compute ? carry_cpu : carry) * speed);
        fprintf(times_out, "compute %.9f %.9f\n", t - carry, t);
        carry = 0;
        carry_cpu = 0;
        if (chain_on) {
            /* A chained tracer sees these writes as computation: the next gap gets them. */
            double t2 = rel_now();
            carry = t2 - t;
            return t2;
        }
    }
    return t;
}

#define ENDED() (call_end = chain_on && trace_ ? rel_now() : 0.0)

/* Ends a traced call; with chaining at call_end, so that the writing of its line counts
 * as computation, as it does for the chained tracer. */
static void leave(const char *name, double start) {
    double t = call_end > 0 ? call_end : rel_now();
    call_end = 0;
    fprintf(times_out, "%s %.9f %.9f\n", name, start, t);
    O2(o2_region(start, t);)
    last_exit = t;
    if (cpu_compute) last_exit_cpu = cpu_now();
}

#define ENTER(fn)                                        \
    int outer_ = (simpi_depth++ == 0);                   \
    if (outer_) simpi_calls[SIMPI_FN_##fn]++;            \
    int trace_ = outer_ && active;                       \
    O2(if (trace_) o2_call(SIMPI_FN_##fn);)              \
    double t0_ = trace_ ? enter() : 0.0
#define LEAVE() simpi_depth--

static long long type_bytes(long long count, MPI_Datatype dt) {
    int size = 0;
    if (dt == MPI_DATATYPE_NULL || count <= 0) return 0;
    PMPI_Type_size(dt, &size);
    return count * (long long)size;
}

/* ------------------------------------------------------------------ communicators */

typedef struct {
    MPI_Comm handle;
    char id[48];
    int size;
    int inter;
    int *world; /* world rank of each rank (of the remote group for an intercommunicator) */
    O2(unsigned o2; /* its reference in the OTF2 events */)
} comm_rec;

static comm_rec *comms;
static int ncomms, cap_comms;

typedef struct {
    uint64_t hash;
    unsigned count;
} ordinal_rec;
static ordinal_rec *ordinals;
static int nordinals, cap_ordinals;

static void *grow(void *p, int *cap, size_t elem) {
    int c = *cap ? *cap * 2 : 16;
    void *q = realloc(p, (size_t)c * elem);
    if (!q) {
        fprintf(stderr, "simpi tracer: out of memory\n");
        abort();
    }
    *cap = c;
    return q;
}

static int *group_to_world(MPI_Group g, int *n_out) {
    MPI_Group wg;
    int n = 0;
    PMPI_Group_size(g, &n);
    int *ranks = malloc(sizeof(int) * (size_t)(n ? n : 1));
    int *world = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) ranks[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, n, ranks, wg, world);
    PMPI_Group_free(&wg);
    free(ranks);
    *n_out = n;
    return world;
}

/* The same member list gets the same id on every member: its hash and how many
 * communicators with those members this rank has made before. */
static void make_id(char *id, size_t len, const int *world, int n, int ordinal) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) {
        uint32_t v = (uint32_t)world[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xff;
            h *= 1099511628211ULL;
        }
    }
    unsigned k = 0;
    if (ordinal) {
        int i;
        for (i = 0; i < nordinals && ordinals[i].hash != h; i++) {
        }
        if (i == nordinals) {
            if (nordinals == cap_ordinals) ordinals = grow(ordinals, &cap_ordinals, sizeof *ordinals);
            ordinals[nordinals].hash = h;
            ordinals[nordinals].count = 0;
            nordinals++;
        }
        k = ordinals[i].count++;
        snprintf(id, len, "c%016llx.%u", (unsigned long long)h, k);
    } else {
        snprintf(id, len, "k%016llx", (unsigned long long)h);
    }
}

static comm_rec *comm_lookup(MPI_Comm c) {
    for (int i = 0; i < ncomms; i++)
        if (comms[i].handle == c) return &comms[i];
    return NULL;
}

static comm_rec *comm_register(MPI_Comm c, int ordinal) {
    if (ncomms == cap_comms) comms = grow(comms, &cap_comms, sizeof *comms);
    comm_rec *r = &comms[ncomms++];
    MPI_Group g;
    r->handle = c;
    r->inter = 0;
    PMPI_Comm_test_inter(c, &r->inter);
    if (r->inter)
        PMPI_Comm_remote_group(c, &g);
    else
        PMPI_Comm_group(c, &g);
    r->world = group_to_world(g, &r->size);
    PMPI_Group_free(&g);
    if (c == MPI_COMM_WORLD)
        snprintf(r->id, sizeof r->id, "world");
    else if (c == MPI_COMM_SELF)
        snprintf(r->id, sizeof r->id, "self");
    else
        make_id(r->id, sizeof r->id, r->world, r->size, ordinal);
    O2(r->o2 = r->inter ? 0u : o2_comm(r->id, r->size, r->world);)
    return r;
}

/* A communicator the trace has not seen made (an intercommunicator merge, say) is
 * declared on first use by its members. */
static comm_rec *comm_of(MPI_Comm c) {
    comm_rec *r = comm_lookup(c);
    if (r) return r;
    r = comm_register(c, 0);
    if (!r->inter && c != MPI_COMM_WORLD && c != MPI_COMM_SELF) {
        fprintf(tit_out, "%d comm_known world %s", me, r->id);
        for (int i = 0; i < r->size; i++) fprintf(tit_out, " %d", r->world[i]);
        fprintf(tit_out, "\n");
        fprintf(times_out, "comm_known %.9f %.9f\n", last_exit, last_exit);
    }
    return r;
}

static void comm_forget(MPI_Comm c) {
    for (int i = 0; i < ncomms; i++)
        if (comms[i].handle == c) {
            free(comms[i].world);
            comms[i] = comms[--ncomms];
            return;
        }
}

/* World rank of `rank` in `comm`: -1 for MPI_ANY_SOURCE, -2 for MPI_PROC_NULL. */
static int world_of(comm_rec *c, int rank) {
    if (rank == MPI_ANY_SOURCE) return -1;
    if (rank == MPI_PROC_NULL) return -2;
    if (rank < 0 || rank >= c->size) return -2;
    return c->world[rank];
}

static int tag_of(int tag) { return tag == MPI_ANY_TAG ? -1 : tag; }

/* Starts a TIT line: the rank and, off MPI_COMM_WORLD, the communicator. */
static void line_start(comm_rec *c) {
    if (c->handle == MPI_COMM_WORLD)
        fprintf(tit_out, "%d ", me);
    else
        fprintf(tit_out, "%d @%s ", me, c->id);
}

/* A line naming a new communicator made from `parent`: `<name> parent new|- [members]`. */
static void creation_line(const char *name, MPI_Comm parent, MPI_Comm made, int with_members, MPI_Group g) {
    comm_rec *p = comm_of(parent);
    fprintf(tit_out, "%d %s %s ", me, name, p->id);
    if (made != MPI_COMM_NULL) {
        comm_rec *n = comm_register(made, 1);
        fprintf(tit_out, "%s", n->id);
        if (with_members)
            for (int i = 0; i < n->size; i++) fprintf(tit_out, " %d", n->world[i]);
    } else {
        fprintf(tit_out, "-");
        if (with_members && g != MPI_GROUP_NULL) {
            int n;
            int *w = group_to_world(g, &n);
            for (int i = 0; i < n; i++) fprintf(tit_out, " %d", w[i]);
            free(w);
        }
    }
    fprintf(tit_out, "\n");
}

/* ------------------------------------------------------------------ requests */

enum { REQ_P2P = 1, REQ_PERSISTENT_SEND, REQ_PERSISTENT_RECV, REQ_COLL };

typedef struct {
    MPI_Request handle;
    int used;
    int kind;
    int src, dst, tag; /* the key its completion names */
    int peer;          /* persistent: partner world rank */
    long long bytes;   /* persistent: size */
    O2(uint64_t oid;   /* OTF2 request id while active (0: no OTF2 event) */
       int dir;        /* 0: send, 1: receive */
       unsigned o2comm; int o2peer; /* communicator and partner's rank in it */
       int o2op, o2root; long long o2sent, o2recvd; /* a non-blocking collective */)
} req_rec;

static req_rec *reqs;
static int cap_reqs, nreqs;

static uint64_t req_hash(MPI_Request h) {
    uint64_t v = 0;
    memcpy(&v, &h, sizeof h < sizeof v ? sizeof h : sizeof v);
    v ^= v >> 31;
    v *= 0x9e3779b97f4a7c15ULL;
    return v ^ (v >> 29);
}

static req_rec *req_slot(MPI_Request h) {
    uint64_t i = req_hash(h) & (uint64_t)(cap_reqs - 1);
    while (reqs[i].used && reqs[i].handle != h) i = (i + 1) & (uint64_t)(cap_reqs - 1);
    return &reqs[i];
}

static void req_put(MPI_Request h, req_rec rec) {
    if (h == MPI_REQUEST_NULL) return;
    if (2 * (nreqs + 1) > cap_reqs) {
        req_rec *old = reqs;
        int old_cap = cap_reqs;
        cap_reqs = cap_reqs ? cap_reqs * 2 : 1024;
        reqs = calloc((size_t)cap_reqs, sizeof *reqs);
        for (int i = 0; i < old_cap; i++)
            if (old[i].used) *req_slot(old[i].handle) = old[i];
        free(old);
    }
    req_rec *s = req_slot(h);
    if (!s->used) nreqs++;
    rec.handle = h;
    rec.used = 1;
    *s = rec;
}

static req_rec *req_get(MPI_Request h) {
    if (!cap_reqs || h == MPI_REQUEST_NULL) return NULL;
    req_rec *s = req_slot(h);
    return s->used ? s : NULL;
}

/* Removes a record, re-seating the entries after it (linear probing). */
static void req_del(MPI_Request h) {
    req_rec *s = req_get(h);
    if (!s) return;
    uint64_t mask = (uint64_t)(cap_reqs - 1);
    uint64_t i = (uint64_t)(s - reqs);
    reqs[i].used = 0;
    nreqs--;
    for (uint64_t j = (i + 1) & mask; reqs[j].used; j = (j + 1) & mask) {
        req_rec r = reqs[j];
        reqs[j].used = 0;
        *req_slot(r.handle) = r;
    }
}

static void p2p_req(MPI_Request h, int src, int dst, int tag) {
    req_rec r = {0};
    r.kind = REQ_P2P;
    if (src == -2 || dst == -2) {
        r.src = -4, r.dst = me, r.tag = 0;
    } else {
        r.src = src, r.dst = dst, r.tag = tag;
    }
    req_put(h, r);
}

/* Writes the key a completion names: " src dst tag". */
static void put_key(MPI_Request h) {
    req_rec *r = req_get(h);
    if (!r || r->kind == 0)
        fprintf(tit_out, " -4 %d 0", me);
    else
        fprintf(tit_out, " %d %d %d", r->src, r->dst, r->tag);
}

/* After a completion: non-persistent requests are gone. */
static void completed(MPI_Request h) {
    req_rec *r = req_get(h);
    if (r && (r->kind == REQ_P2P || r->kind == REQ_COLL)) req_del(h);
}

#ifdef SIMPI_OTF2
/* A non-blocking send or receive request just made: its OTF2 request and event. */
static void o2_post(MPI_Request h, comm_rec *c, int peer, int tag, long long bytes, int recv) {
    req_rec *r = req_get(h);
    if (!r || c->inter || peer == MPI_PROC_NULL) return;
    r->oid = o2_new_request();
    r->dir = recv;
    r->o2comm = c->o2;
    r->o2peer = peer;
    if (recv)
        o2_irecv_request(r->oid);
    else
        o2_isend(c->o2, peer, tag, bytes, r->oid);
}

/* A started persistent request. */
static void o2_start(MPI_Request h) {
    req_rec *r = req_get(h);
    if (!r || (r->kind != REQ_PERSISTENT_SEND && r->kind != REQ_PERSISTENT_RECV) || r->peer == -2 ||
        r->o2peer == MPI_PROC_NULL)
        return;
    r->oid = o2_new_request();
    if (r->dir)
        o2_irecv_request(r->oid);
    else
        o2_isend(r->o2comm, r->o2peer, r->tag, r->bytes, r->oid);
}

/* Request h completed with status st: its completion event. */
static void o2_done(MPI_Request h, MPI_Status *st) {
    req_rec *r = req_get(h);
    if (!r || !r->oid) return;
    if (r->kind == REQ_COLL) {
        o2_icoll_complete(r->o2op, r->o2comm, r->o2root, r->o2sent, r->o2recvd, r->oid);
    } else if (!r->dir) {
        o2_isend_complete(r->oid);
    } else if (st->MPI_SOURCE != MPI_PROC_NULL) {
        int got = 0;
        long long bytes = 0;
        if (PMPI_Get_count(st, MPI_BYTE, &got) == MPI_SUCCESS && got != MPI_UNDEFINED) bytes = got;
        o2_irecv(r->o2comm, st->MPI_SOURCE, st->MPI_TAG, bytes, r->oid);
    }
    r->oid = 0;
}

/* A test found request h incomplete. */
static void o2_tested(MPI_Request h) {
    req_rec *r = req_get(h);
    if (r && r->oid) o2_request_test(r->oid);
}

/* The collective of the call being traced, until coll_end writes it. */
static struct {
    int set, op, root;
    unsigned comm;
    long long sent, recvd;
} o2_pending;

static void o2_coll_info(int op, comm_rec *c, int root, long long sent, long long recvd) {
    o2_pending.set = 1;
    o2_pending.op = op, o2_pending.root = root, o2_pending.comm = c->o2;
    o2_pending.sent = sent, o2_pending.recvd = recvd;
}
#endif

static MPI_Request *copy_reqs(int n, const MPI_Request *a, MPI_Request *stack, int cap) {
    MPI_Request *c = n <= cap ? stack : malloc(sizeof(MPI_Request) * (size_t)n);
    memcpy(c, a, sizeof(MPI_Request) * (size_t)n);
    return c;
}

/* ------------------------------------------------------------------ setup and teardown */

static void fail(const char *what, const char *path) {
    fprintf(stderr, "simpi tracer: cannot %s %s: %s\n", what, path, strerror(errno));
    PMPI_Abort(MPI_COMM_WORLD, 1);
}

static void mkdirs(const char *dir) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0777);
            *p = '/';
        }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) fail("create the directory", dir);
}

/* Starts tracing once MPI_Init returned at `init_end` (clock_now()). */
static void start_tracing(double init_end) {
    const char *d = getenv("SIMPI_TRACE_DIR");
    const char *s = getenv("SIMPI_TRACE_SPEED");
    const char *g = getenv("SIMPI_TRACE_MIN_COMPUTE");
    int n;
    char path[4200];
    if (d && *d) snprintf(out_dir, sizeof out_dir, "%s", d);
    if (s && atof(s) > 0) speed = atof(s);
    if (g && atof(g) >= 0) min_gap = atof(g);
    const char *c = getenv("SIMPI_TRACE_COMPUTE");
    cpu_compute = c && strcmp(c, "cpu") == 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &n);
    mkdirs(out_dir);
    snprintf(path, sizeof path, "%s/rank-%d.tit", out_dir, me);
    if (!(tit_out = fopen(path, "w"))) fail("write", path);
    setvbuf(tit_out, NULL, _IOFBF, 1 << 20);
    snprintf(path, sizeof path, "%s/rank-%d.times", out_dir, me);
    if (!(times_out = fopen(path, "w"))) fail("write", path);
    setvbuf(times_out, NULL, _IOFBF, 1 << 20);
    if (me == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        snprintf(path, sizeof path, "%s/index.txt", out_dir);
        FILE *f = fopen(path, "w");
        if (!f) fail("write", path);
        for (int r = 0; r < n; r++) fprintf(f, "rank-%d.tit\n", r);
        fclose(f);
        snprintf(path, sizeof path, "%s/meta.txt", out_dir);
        if (!(f = fopen(path, "w"))) fail("write", path);
        PMPI_Get_library_version(lib, &len);
        for (int i = 0; i < len; i++)
            if (lib[i] == '\n') lib[i] = ' ';
        fprintf(f, "ranks %d\nspeed %.17g\nmin_compute %.17g\nlibrary %.*s\n", n, speed, min_gap, len, lib);
        fclose(f);
    }
    O2(o2_open(me, n, out_dir);)
    comm_register(MPI_COMM_WORLD, 0);
    comm_register(MPI_COMM_SELF, 0);
    chain_on = chaining();
    if (chain_on) {
        /* A chained tracer sees this function's time (files, synchronisation) as the
         * program's: so does the trace, from the end of the chained MPI_Init on, so that
         * both describe the same computation. The origin: the first rank's end of it. */
        double t = init_end;
        PMPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        epoch = t;
        last_exit = init_end - epoch;
    } else {
        /* One clock origin for all ranks: rank 0's, just after everyone left MPI_Init. */
        PMPI_Barrier(MPI_COMM_WORLD);
        double t = clock_now();
        PMPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        epoch = t;
        last_exit = rel_now();
    }
    if (cpu_compute) last_exit_cpu = cpu_now();
    active = 1;
    O2(o2_call(SIMPI_FN_MPI_Init); o2_region(last_exit, last_exit);)
    fprintf(tit_out, "%d init\n", me);
    fprintf(times_out, "init %.9f %.9f\n", last_exit, last_exit);
}

/* Stops tracing; OTF2's archive is closed collectively, before MPI_Finalize. */
static void stop_tracing(void) {
    active = 0;
    O2(o2_close(last_exit);)
}

/* Writes the rest after MPI_Finalize: a chained tracer does not count it as computation. */
static void close_files(void) {
    char path[4200];
    fclose(tit_out);
    fclose(times_out);
    snprintf(path, sizeof path, "%s/rank-%d.counts", out_dir, me);
    FILE *f = fopen(path, "w");
    if (!f) {
        /* MPI is finalized: no MPI_Abort; the exit status tells `simpi trace`. */
        fprintf(stderr, "simpi tracer: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    for (int i = 0; i < SIMPI_FN_COUNT; i++)
        if (simpi_calls[i]) fprintf(f, "%s %llu\n", simpi_fn_names[i], simpi_calls[i]);
    fclose(f);
}

int MPI_Init(int *argc, char ***argv) {
    ENTER(MPI_Init);
    (void)t0_;
    int rc = NEXT(MPI_Init)(argc, argv); ENDED();
    if (outer_ && rc == MPI_SUCCESS) start_tracing(clock_now());
    LEAVE();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    ENTER(MPI_Init_thread);
    (void)t0_;
    int rc = NEXT(MPI_Init_thread)(argc, argv, required, provided); ENDED();
    if (outer_ && rc == MPI_SUCCESS) start_tracing(clock_now());
    LEAVE();
    return rc;
}

int MPI_Finalize(void) {
    ENTER(MPI_Finalize);
    if (trace_) {
        fprintf(tit_out, "%d finalize\n", me);
        leave("finalize", t0_);
        stop_tracing();
    }
    int rc = NEXT(MPI_Finalize)(); ENDED();
    if (trace_) close_files();
    LEAVE();
    return rc;
}

/* ------------------------------------------------------------------ point to point */

#define SEND(fn, name)                                                                         \
    int fn(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {    \
        ENTER(fn);                                                                             \
        int rc = NEXT(fn)(buf, count, dt, dest, tag, comm); ENDED();                                       \
        if (trace_) {                                                                          \
            comm_rec *c = comm_of(comm);                                                       \
            line_start(c);                                                                     \
            fprintf(tit_out, name " %d %d %lld 6\n", world_of(c, dest), tag, type_bytes(count, dt)); \
            O2(if (!c->inter && dest != MPI_PROC_NULL) o2_send(c->o2, dest, tag, type_bytes(count, dt));) \
            leave(name, t0_);                                                                  \
        }                                                                                      \
        LEAVE();                                                                               \
        return rc;                                                                             \
    }
SEND(MPI_Send, "send")
SEND(MPI_Ssend, "Ssend")
SEND(MPI_Bsend, "bsend")
SEND(MPI_Rsend, "rsend")

#define ISEND(fn, name)                                                                        \
    int fn(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,      \
           MPI_Request *req) {                                                                 \
        ENTER(fn);                                                                             \
        int rc = NEXT(fn)(buf, count, dt, dest, tag, comm, req); ENDED();                                  \
        if (trace_) {                                                                          \
            comm_rec *c = comm_of(comm);                                                       \
            int to = world_of(c, dest);                                                        \
            line_start(c);                                                                     \
            fprintf(tit_out, name " %d %d %lld 6\n", to, tag, type_bytes(count, dt));          \
            p2p_req(*req, me, to, tag);                                                        \
            O2(o2_post(*req, c, dest, tag, type_bytes(count, dt), 0);)                          \
            leave(name, t0_);                                                                  \
        }                                                                                      \
        LEAVE();                                                                               \
        return rc;                                                                             \
    }
ISEND(MPI_Isend, "isend")
ISEND(MPI_Issend, "ISsend")
ISEND(MPI_Ibsend, "ibsend")
ISEND(MPI_Irsend, "irsend")

/* A blocking receive records whom it received from and how much, so the replay matches
 * the same message. */
int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status) {
    ENTER(MPI_Recv);
    MPI_Status own;
    if (status == MPI_STATUS_IGNORE) status = &own;
    int rc = NEXT(MPI_Recv)(buf, count, dt, source, tag, comm, status); ENDED();
    if (trace_) {
        comm_rec *c = comm_of(comm);
        int got = 0;
        long long bytes = type_bytes(count, dt);
        if (source != MPI_PROC_NULL) {
            source = status->MPI_SOURCE;
            tag = status->MPI_TAG;
            if (PMPI_Get_count(status, MPI_BYTE, &got) == MPI_SUCCESS && got != MPI_UNDEFINED) bytes = got;
        }
        line_start(c);
        fprintf(tit_out, "recv %d %d %lld 6\n", world_of(c, source), tag_of(tag), bytes);
        O2(if (!c->inter && source != MPI_PROC_NULL) o2_recv(c->o2, source, tag, bytes);)
        leave("recv", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *req) {
    ENTER(MPI_Irecv);
    int rc = NEXT(MPI_Irecv)(buf, count, dt, source, tag, comm, req); ENDED();
    if (trace_) {
        comm_rec *c = comm_of(comm);
        int from = world_of(c, source);
        line_start(c);
        fprintf(tit_out, "irecv %d %d %lld 6\n", from, tag_of(tag), type_bytes(count, dt));
        p2p_req(*req, from, me, tag_of(tag));
        O2(o2_post(*req, c, source, tag, 0, 1);)
        leave("irecv", t0_);
    }
    LEAVE();
    return rc;
}

static void sendrecv_line(const char *name, comm_rec *c, long long sbytes, int dest, int stag, long long rbytes,
                          int source, int rtag, MPI_Status *st) {
    int got = 0;
    if (source != MPI_PROC_NULL) {
        source = st->MPI_SOURCE;
        rtag = st->MPI_TAG;
        if (PMPI_Get_count(st, MPI_BYTE, &got) == MPI_SUCCESS && got != MPI_UNDEFINED) rbytes = got;
    }
    line_start(c);
    fprintf(tit_out, "%s %lld %d %lld %d 6 6 %d %d\n", name, sbytes, world_of(c, dest), rbytes, world_of(c, source),
            stag, tag_of(rtag));
    O2(if (!c->inter && dest != MPI_PROC_NULL) o2_send(c->o2, dest, stag, sbytes);
       if (!c->inter && source != MPI_PROC_NULL) o2_recv(c->o2, source, rtag, rbytes);)
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rdt, int source, int rtag, MPI_Comm comm, MPI_Status *status) {
    ENTER(MPI_Sendrecv);
    MPI_Status own;
    if (status == MPI_STATUS_IGNORE) status = &own;
    int rc = NEXT(MPI_Sendrecv)(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm, status); ENDED();
    if (trace_) {
        sendrecv_line("sendRecv", comm_of(comm), type_bytes(scount, sdt), dest, stag, type_bytes(rcount, rdt), source,
                      rtag, status);
        leave("sendRecv", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int source, int rtag,
                         MPI_Comm comm, MPI_Status *status) {
    ENTER(MPI_Sendrecv_replace);
    MPI_Status own;
    if (status == MPI_STATUS_IGNORE) status = &own;
    int rc = NEXT(MPI_Sendrecv_replace)(buf, count, dt, dest, stag, source, rtag, comm, status); ENDED();
    if (trace_) {
        long long b = type_bytes(count, dt);
        sendrecv_line("sendrecv_replace", comm_of(comm), b, dest, stag, b, source, rtag, status);
        leave("sendrecv_replace", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
    ENTER(MPI_Probe);
    int rc = NEXT(MPI_Probe)(source, tag, comm, status); ENDED();
    if (trace_) {
        comm_rec *c = comm_of(comm);
        line_start(c);
        fprintf(tit_out, "probe %d %d\n", world_of(c, source), tag_of(tag));
        leave("probe", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
    ENTER(MPI_Iprobe);
    int rc = NEXT(MPI_Iprobe)(source, tag, comm, flag, status); ENDED();
    if (trace_) {
        comm_rec *c = comm_of(comm);
        line_start(c);
        fprintf(tit_out, "iprobe %d %d %d\n", world_of(c, source), tag_of(tag), *flag ? 1 : 0);
        leave("iprobe", t0_);
    }
    LEAVE();
    return rc;
}

/* ------------------------------------------------------------------ persistent requests */

#define PINIT(fn, name, is_recv)                                                                \
    int fn(CONSTBUF(is_recv) buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm, \
           MPI_Request *req) {                                                                  \
        ENTER(fn);                                                                              \
        int rc = NEXT(fn)(buf, count, dt, peer, tag, comm, req); ENDED();                                   \
        if (trace_) {                                                                           \
            comm_rec *c = comm_of(comm);                                                        \
            req_rec r = {0};                                                                    \
            r.kind = is_recv ? REQ_PERSISTENT_RECV : REQ_PERSISTENT_SEND;                       \
            r.peer = world_of(c, peer);                                                         \
            r.bytes = type_bytes(count, dt);                                                    \
            r.tag = is_recv ? tag_of(tag) : tag;                                                \
            r.src = is_recv ? r.peer : me;                                                      \
            r.dst = is_recv ? me : r.peer;                                                      \
            if (r.peer == -2) r.src = -4, r.dst = me, r.tag = 0;                                \
            O2(r.dir = is_recv; r.o2comm = c->inter ? 0u : c->o2;                               \
               r.o2peer = c->inter ? MPI_PROC_NULL : peer;)                                     \
            req_put(*req, r);                                                                   \
            line_start(c);                                                                      \
            fprintf(tit_out, name " %d %d %lld\n", r.peer, r.tag, r.bytes);                     \
            leave(name, t0_);                                                                   \
        }                                                                                       \
        LEAVE();                                                                                \
        return rc;                                                                              \
    }
#define CONSTBUF(is_recv) CONSTBUF_##is_recv
#define CONSTBUF_0 const void *
#define CONSTBUF_1 void *
PINIT(MPI_Send_init, "send_init", 0)
PINIT(MPI_Ssend_init, "ssend_init", 0)
PINIT(MPI_Bsend_init, "bsend_init", 0)
PINIT(MPI_Rsend_init, "rsend_init", 0)
PINIT(MPI_Recv_init, "recv_init", 1)

/* " peer tag bytes s|r" for a started persistent request. */
static void put_start(MPI_Request h, int with_kind) {
    req_rec *r = req_get(h);
    if (!r || (r->kind != REQ_PERSISTENT_SEND && r->kind != REQ_PERSISTENT_RECV)) {
        fprintf(tit_out, with_kind ? " -2 0 0 s" : " -2 0 0 6");
        return;
    }
    int recv = r->kind == REQ_PERSISTENT_RECV;
    if (with_kind)
        fprintf(tit_out, " %d %d %lld %s", r->peer, r->tag, r->bytes, recv ? "r" : "s");
    else
        fprintf(tit_out, " %d %d %lld 6%s", r->peer, r->tag, r->bytes, recv ? " r" : "");
}

int MPI_Start(MPI_Request *req) {
    ENTER(MPI_Start);
    MPI_Request h = *req;
    int rc = NEXT(MPI_Start)(req); ENDED();
    if (trace_) {
        O2(o2_start(h);)
        fprintf(tit_out, "%d Start", me);
        put_start(h, 0);
        fprintf(tit_out, "\n");
        leave("Start", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs_in[]) {
    ENTER(MPI_Startall);
    MPI_Request stack[64];
    MPI_Request *h = trace_ ? copy_reqs(n, reqs_in, stack, 64) : NULL;
    int rc = NEXT(MPI_Startall)(n, reqs_in); ENDED();
    if (trace_) {
        fprintf(tit_out, "%d startall %d", me, n);
        O2(for (int i = 0; i < n; i++) o2_start(h[i]);)
        for (int i = 0; i < n; i++) put_start(h[i], 1);
        fprintf(tit_out, "\n");
        if (h != stack) free(h);
        leave("startall", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Request_free(MPI_Request *req) {
    ENTER(MPI_Request_free);
    MPI_Request h = *req;
    int rc = NEXT(MPI_Request_free)(req); ENDED();
    if (trace_) {
        req_del(h);
        fprintf(tit_out, "%d request_free\n", me);
        leave("request_free", t0_);
    }
    LEAVE();
    return rc;
}

/* ------------------------------------------------------------------ completions */

int MPI_Wait(MPI_Request *req, MPI_Status *status) {
    ENTER(MPI_Wait);
    MPI_Request h = *req;
    O2(MPI_Status own_st_;
       if (trace_ && status == MPI_STATUS_IGNORE) status = &own_st_;)
    int rc = NEXT(MPI_Wait)(req, status); ENDED();
    if (trace_) {
        fprintf(tit_out, "%d wait", me);
        put_key(h);
        fprintf(tit_out, "\n");
        O2(o2_done(h, status);)
        completed(h);
        leave("wait", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs_in[], MPI_Status statuses[]) {
    ENTER(MPI_Waitall);
    MPI_Request stack[64];
    MPI_Request *h = trace_ ? copy_reqs(n, reqs_in, stack, 64) : NULL;
    O2(MPI_Status *own_sts_ = NULL;
       if (trace_ && statuses == MPI_STATUSES_IGNORE)
           statuses = own_sts_ = malloc(sizeof(MPI_Status) * (size_t)(n > 0 ? n : 1));)
    int rc = NEXT(MPI_Waitall)(n, reqs_in, statuses); ENDED();
    if (trace_) {
        fprintf(tit_out, "%d waitall %d", me, n);
        for (int i = 0; i < n; i++) put_key(h[i]);
        fprintf(tit_out, "\n");
        O2(for (int i = 0; i < n; i++) o2_done(h[i], &statuses[i]);)
        for (int i = 0; i < n; i++) completed(h[i]);
        if (h != stack) free(h);
        leave("waitall", t0_);
    }
    O2(free(own_sts_);)
    LEAVE();
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs_in[], int *index, MPI_Status *status) {
    ENTER(MPI_Waitany);
    MPI_Request stack[64];
    MPI_Request *h = trace_ ? copy_reqs(n, reqs_in, stack, 64) : NULL;
    O2(MPI_Status own_st_;
       if (trace_ && status == MPI_STATUS_IGNORE) status = &own_st_;)
    int rc = NEXT(MPI_Waitany)(n, reqs_in, index, status); ENDED();
    if (trace_) {
        fprintf(tit_out, "%d waitany %d", me, n);
        if (*index != MPI_UNDEFINED && *index >= 0 && *index < n) {
            put_key(h[*index]);
            O2(o2_done(h[*index], status);)
            completed(h[*index]);
        } else {
            fprintf(tit_out, " -4 %d 0", me);
        }
        fprintf(tit_out, "\n");
        if (h != stack) free(h);
        leave("waitany", t0_);
    }
    LEAVE();
    return rc;
}

static void some_line(const char *name, int n, MPI_Request *h, int outcount, const int *idx) {
    int k = outcount == MPI_UNDEFINED ? 0 : outcount;
    fprintf(tit_out, "%d %s %d %d", me, name, n, k);
    for (int i = 0; i < k; i++) put_key(h[idx[i]]);
    fprintf(tit_out, "\n");
    for (int i = 0; i < k; i++) completed(h[idx[i]]);
}

int MPI_Waitsome(int n, MPI_Request reqs_in[], int *outcount, int idx[], MPI_Status statuses[]) {
    ENTER(MPI_Waitsome);
    MPI_Request stack[64];
    MPI_Request *h = trace_ ? copy_reqs(n, reqs_in, stack, 64) : NULL;
    O2(MPI_Status *own_sts_ = NULL;
       if (trace_ && statuses == MPI_STATUSES_IGNORE)
           statuses = own_sts_ = malloc(sizeof(MPI_Status) * (size_t)(n > 0 ? n : 1));)
    int rc = NEXT(MPI_Waitsome)(n, reqs_in, outcount, idx, statuses); ENDED();
    if (trace_) {
        O2(for (int i = 0; *outcount != MPI_UNDEFINED && i < *outcount; i++) o2_done(h[idx[i]], &statuses[i]);)
        some_line("waitsome", n, h, *outcount, idx);
        if (h != stack) free(h);
        leave("waitsome", t0_);
    }
    O2(free(own_sts_);)
    LEAVE();
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs_in[], int *outcount, int idx[], MPI_Status statuses[]) {
    ENTER(MPI_Testsome);
    MPI_Request stack[64];
    MPI_Request *h = trace_ ? copy_reqs(n, reqs_in, stack, 64) : NULL;
    O2(MPI_Status *own_sts_ = NULL;
       if (trace_ && statuses == MPI_STATUSES_IGNORE)
           statuses = own_sts_ = malloc(sizeof(MPI_Status) * (size_t)(n > 0 ? n : 1));)
    int rc = NEXT(MPI_Testsome)(n, reqs_in, outcount, idx, statuses); ENDED();
    if (trace_) {
        O2(for (int i = 0; *outcount != MPI_UNDEFINED && i < *outcount; i++) o2_done(h[idx[i]], &statuses[i]);)
        some_line("testsome", n, h, *outcount, idx);
        if (h != stack) free(h);
        leave("testsome", t0_);
    }
    O2(free(own_sts_);)
    LEAVE();
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status) {
    ENTER(MPI_Test);
    MPI_Request h = *req;
    O2(MPI_Status own_st_;
       if (trace_ && status == MPI_STATUS_IGNORE) status = &own_st_;)
    int rc = NEXT(MPI_Test)(req, flag, status); ENDED();
    if (trace_) {
        fprintf(tit_out, "%d test", me);
        put_key(h);
        fprintf(tit_out, " %d\n", *flag ? 1 : 0);
        O2(if (*flag) o2_done(h, status); else o2_tested(h);)
        if (*flag) completed(h);
        leave("test", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs_in[], int *index, int *flag, MPI_Status *status) {
    ENTER(MPI_Testany);
    MPI_Request stack[64];
    MPI_Request *h = trace_ ? copy_reqs(n, reqs_in, stack, 64) : NULL;
    O2(MPI_Status own_st_;
       if (trace_ && status == MPI_STATUS_IGNORE) status = &own_st_;)
    int rc = NEXT(MPI_Testany)(n, reqs_in, index, flag, status); ENDED();
    if (trace_) {
        int got = *flag && *index != MPI_UNDEFINED && *index >= 0 && *index < n;
        fprintf(tit_out, "%d testany %d %d", me, n, got);
        if (got) {
            put_key(h[*index]);
            O2(o2_done(h[*index], status);)
            completed(h[*index]);
        }
        fprintf(tit_out, "\n");
        if (h != stack) free(h);
        leave("testany", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs_in[], int *flag, MPI_Status statuses[]) {
    ENTER(MPI_Testall);
    MPI_Request stack[64];
    MPI_Request *h = trace_ ? copy_reqs(n, reqs_in, stack, 64) : NULL;
    O2(MPI_Status *own_sts_ = NULL;
       if (trace_ && statuses == MPI_STATUSES_IGNORE)
           statuses = own_sts_ = malloc(sizeof(MPI_Status) * (size_t)(n > 0 ? n : 1));)
    int rc = NEXT(MPI_Testall)(n, reqs_in, flag, statuses); ENDED();
    if (trace_) {
        fprintf(tit_out, "%d testall %d %d", me, n, *flag ? 1 : 0);
        if (*flag) {
            for (int i = 0; i < n; i++) put_key(h[i]);
            O2(for (int i = 0; i < n; i++) o2_done(h[i], &statuses[i]);)
            for (int i = 0; i < n; i++) completed(h[i]);
        }
        fprintf(tit_out, "\n");
        if (h != stack) free(h);
        leave("testall", t0_);
    }
    O2(free(own_sts_);)
    LEAVE();
    return rc;
}

/* ------------------------------------------------------------------ collectives */

/* Starts a collective line (`i` prefixed when non-blocking); returns its communicator. */
static comm_rec *coll_start(MPI_Comm comm, const char *name, MPI_Request *req) {
    comm_rec *c = comm_of(comm);
    if (c->inter) {
        fprintf(tit_out, "# %s on an intercommunicator is not traced\n", name);
        return NULL;
    }
    line_start(c);
    fprintf(tit_out, "%s%s", req ? "i" : "", name);
    return c;
}

static void coll_end(MPI_Request *req, const char *name, double t0) {
    char full[64];
    fprintf(tit_out, "\n");
    if (req) {
        req_rec r = {0};
        r.kind = REQ_COLL;
        r.src = -3, r.dst = me, r.tag = (int)icoll_count++;
        req_put(*req, r);
    }
    O2(if (o2_pending.set) {
        req_rec *q = req ? req_get(*req) : NULL;
        if (q) {
            q->oid = o2_new_request();
            q->o2op = o2_pending.op, q->o2root = o2_pending.root, q->o2comm = o2_pending.comm;
            q->o2sent = o2_pending.sent, q->o2recvd = o2_pending.recvd;
            o2_icoll(q->oid);
        } else if (!req) {
            o2_coll(o2_pending.op, o2_pending.comm, o2_pending.root, o2_pending.sent, o2_pending.recvd);
        }
        o2_pending.set = 0;
    })
    snprintf(full, sizeof full, "%s%s", req ? "i" : "", name);
    leave(full, t0);
}

static int rank_in(MPI_Comm comm) {
    int r;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static void t_barrier(MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, "barrier", req);
    if (!c) return;
    O2(o2_coll_info(O2_BARRIER, c, -1, 0, 0);)
    coll_end(req, "barrier", t0);
}

static void t_bcast(int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, "bcast", req);
    if (!c) return;
    fprintf(tit_out, " %lld %d 6", type_bytes(count, dt), root);
    O2(long long b = type_bytes(count, dt);
       o2_coll_info(O2_BCAST, c, root, rank_in(comm) == root ? c->size * b : 0, b);)
    coll_end(req, "bcast", t0);
}

static void t_reduce(int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, "reduce", req);
    if (!c) return;
    fprintf(tit_out, " %lld 0 %d 6", type_bytes(count, dt), root);
    O2(long long b = type_bytes(count, dt);
       o2_coll_info(O2_REDUCE, c, root, b, rank_in(comm) == root ? c->size * b : 0);)
    coll_end(req, "reduce", t0);
}

static void t_counted(const char *name, int count, MPI_Datatype dt, MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, name, req);
    if (!c) return;
    fprintf(tit_out, " %lld 0 6", type_bytes(count, dt));
    O2(long long b = type_bytes(count, dt), n = c->size, m = rank_in(comm);
       if (strcmp(name, "scan") == 0)
           o2_coll_info(O2_SCAN, c, -1, (n - m) * b, (m + 1) * b);
       else if (strcmp(name, "exscan") == 0)
           o2_coll_info(O2_EXSCAN, c, -1, (n - m - 1) * b, m * b);
       else
           o2_coll_info(strcmp(name, "allreduce") == 0 ? O2_ALLREDUCE : O2_REDUCE_SCATTER_BLOCK, c, -1, n * b, n * b);)
    coll_end(req, name, t0);
}

static void t_gather(const char *name, int all, const void *sbuf, int scount, MPI_Datatype sdt, int rcount,
                     MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, name, req);
    if (!c) return;
    int here = all || rank_in(comm) == root;
    long long s = sbuf == MPI_IN_PLACE ? type_bytes(rcount, rdt) : type_bytes(scount, sdt);
    long long r = here ? type_bytes(rcount, rdt) : s;
    if (all)
        fprintf(tit_out, " %lld %lld 6 6", s, r);
    else
        fprintf(tit_out, " %lld %lld %d 6 6", s, r, root);
    O2(long long n = c->size, rb = type_bytes(rcount, rdt);
       int in_place = sbuf == MPI_IN_PLACE;
       if (all)
           o2_coll_info(O2_ALLGATHER, c, -1, in_place ? (n - 1) * rb : n * s, in_place ? (n - 1) * rb : n * rb);
       else if (here)
           o2_coll_info(O2_GATHER, c, root, in_place ? 0 : s, in_place ? (n - 1) * rb : n * rb);
       else
           o2_coll_info(O2_GATHER, c, root, s, 0);)
    coll_end(req, name, t0);
}

static void t_scatter(const char *name, int scount, MPI_Datatype sdt, const void *rbuf, int rcount, MPI_Datatype rdt,
                      int root, MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, name, req);
    if (!c) return;
    long long r = rbuf == MPI_IN_PLACE ? type_bytes(scount, sdt) : type_bytes(rcount, rdt);
    long long s = rank_in(comm) == root ? type_bytes(scount, sdt) : r;
    fprintf(tit_out, " %lld %lld %d 6 6", s, r, root);
    O2(long long n = c->size;
       if (rank_in(comm) != root)
           o2_coll_info(O2_SCATTER, c, root, 0, r);
       else if (rbuf == MPI_IN_PLACE)
           o2_coll_info(O2_SCATTER, c, root, (n - 1) * s, 0);
       else
           o2_coll_info(O2_SCATTER, c, root, n * s, r);)
    coll_end(req, name, t0);
}

static void t_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, int rcount, MPI_Datatype rdt, MPI_Comm comm,
                       MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, "alltoall", req);
    if (!c) return;
    long long r = type_bytes(rcount, rdt);
    long long s = sbuf == MPI_IN_PLACE ? r : type_bytes(scount, sdt);
    fprintf(tit_out, " %lld %lld 6 6", s, r);
    O2(long long n = c->size;
       if (sbuf == MPI_IN_PLACE)
           o2_coll_info(O2_ALLTOALL, c, -1, (n - 1) * r, (n - 1) * r);
       else
           o2_coll_info(O2_ALLTOALL, c, -1, n * s, n * r);)
    coll_end(req, "alltoall", t0);
}

static void put_counts(const int *counts, MPI_Datatype dt, int n, int valid) {
    for (int i = 0; i < n; i++) fprintf(tit_out, " %lld", valid ? type_bytes(counts[i], dt) : 0LL);
}

static void t_alltoallv(const void *sbuf, const int *sc, MPI_Datatype sdt, const int *rc, MPI_Datatype rdt,
                        MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, "alltoallv", req);
    if (!c) return;
    int n = c->size;
    if (sbuf == MPI_IN_PLACE) sc = rc, sdt = rdt;
    long long ss = 0, rs = 0;
    for (int i = 0; i < n; i++) ss += type_bytes(sc[i], sdt), rs += type_bytes(rc[i], rdt);
    fprintf(tit_out, " %lld", ss);
    put_counts(sc, sdt, n, 1);
    fprintf(tit_out, " %lld", rs);
    put_counts(rc, rdt, n, 1);
    fprintf(tit_out, " 6 6");
    O2(o2_coll_info(O2_ALLTOALLV, c, -1, ss, rs);)
    coll_end(req, "alltoallv", t0);
}

static void t_gatherv(const char *name, int all, const void *sbuf, int scount, MPI_Datatype sdt, const int *rc,
                      MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, name, req);
    if (!c) return;
    int mine = rank_in(comm);
    int here = all || mine == root;
    long long s = sbuf == MPI_IN_PLACE ? type_bytes(rc[mine], rdt) : type_bytes(scount, sdt);
    fprintf(tit_out, " %lld", s);
    put_counts(rc, rdt, c->size, here);
    if (all)
        fprintf(tit_out, " 6 6");
    else
        fprintf(tit_out, " %d 6 6", root);
    O2(long long n = c->size, sum = 0;
       int in_place = sbuf == MPI_IN_PLACE;
       if (here)
           for (int i = 0; i < c->size; i++) sum += type_bytes(rc[i], rdt);
       if (all)
           o2_coll_info(O2_ALLGATHERV, c, -1, in_place ? (n - 1) * s : n * s, in_place ? sum - s : sum);
       else if (here)
           o2_coll_info(O2_GATHERV, c, root, in_place ? 0 : s, in_place ? sum - s : sum);
       else
           o2_coll_info(O2_GATHERV, c, root, s, 0);)
    coll_end(req, name, t0);
}

static void t_scatterv(const int *sc, MPI_Datatype sdt, const void *rbuf, int rcount, MPI_Datatype rdt, int root,
                       MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, "scatterv", req);
    if (!c) return;
    int mine = rank_in(comm);
    int here = mine == root;
    put_counts(sc, sdt, c->size, here);
    long long r = rbuf == MPI_IN_PLACE ? type_bytes(sc[mine], sdt) : type_bytes(rcount, rdt);
    fprintf(tit_out, " %lld %d 6 6", r, root);
    O2(long long sum = 0;
       if (here)
           for (int i = 0; i < c->size; i++) sum += type_bytes(sc[i], sdt);
       if (!here)
           o2_coll_info(O2_SCATTERV, c, root, 0, r);
       else if (rbuf == MPI_IN_PLACE)
           o2_coll_info(O2_SCATTERV, c, root, sum - r, 0);
       else
           o2_coll_info(O2_SCATTERV, c, root, sum, r);)
    coll_end(req, "scatterv", t0);
}

static void t_reduce_scatter(const int *rc, MPI_Datatype dt, MPI_Comm comm, MPI_Request *req, double t0) {
    comm_rec *c = coll_start(comm, "reducescatter", req);
    if (!c) return;
    put_counts(rc, dt, c->size, 1);
    fprintf(tit_out, " 0 6");
    O2(long long sum = 0;
       for (int i = 0; i < c->size; i++) sum += type_bytes(rc[i], dt);
       o2_coll_info(O2_REDUCE_SCATTER, c, -1, sum, c->size * type_bytes(rc[rank_in(comm)], dt));)
    coll_end(req, "reducescatter", t0);
}

#define COLL_BEGIN(fn) ENTER(fn)
#define COLL_END() \
    LEAVE();       \
    return rc

int MPI_Barrier(MPI_Comm comm) {
    COLL_BEGIN(MPI_Barrier);
    int rc = NEXT(MPI_Barrier)(comm); ENDED();
    if (trace_) t_barrier(comm, NULL, t0_);
    COLL_END();
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req) {
    COLL_BEGIN(MPI_Ibarrier);
    int rc = NEXT(MPI_Ibarrier)(comm, req); ENDED();
    if (trace_) t_barrier(comm, req, t0_);
    COLL_END();
}
int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
    COLL_BEGIN(MPI_Bcast);
    int rc = NEXT(MPI_Bcast)(buf, count, dt, root, comm); ENDED();
    if (trace_) t_bcast(count, dt, root, comm, NULL, t0_);
    COLL_END();
}
int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req) {
    COLL_BEGIN(MPI_Ibcast);
    int rc = NEXT(MPI_Ibcast)(buf, count, dt, root, comm, req); ENDED();
    if (trace_) t_bcast(count, dt, root, comm, req, t0_);
    COLL_END();
}
int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
    COLL_BEGIN(MPI_Reduce);
    int rc = NEXT(MPI_Reduce)(s, r, count, dt, op, root, comm); ENDED();
    if (trace_) t_reduce(count, dt, root, comm, NULL, t0_);
    COLL_END();
}
int MPI_Ireduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *req) {
    COLL_BEGIN(MPI_Ireduce);
    int rc = NEXT(MPI_Ireduce)(s, r, count, dt, op, root, comm, req); ENDED();
    if (trace_) t_reduce(count, dt, root, comm, req, t0_);
    COLL_END();
}
/* Reductions without a root, blocking and non-blocking (MPI_<x> and MPI_I<x>). */
#define COUNTED(suffix, isuffix, name)                                                                      \
    int MPI_##suffix(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) { \
        COLL_BEGIN(MPI_##suffix);                                                                  \
        int rc = NEXT(MPI_##suffix)(s, r, count, dt, op, comm); ENDED();                                         \
        if (trace_) t_counted(name, count, dt, comm, NULL, t0_);                                   \
        COLL_END();                                                                                \
    }                                                                                              \
    int MPI_##isuffix(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, \
                      MPI_Request *req) {                                                          \
        COLL_BEGIN(MPI_##isuffix);                                                                 \
        int rc = NEXT(MPI_##isuffix)(s, r, count, dt, op, comm, req); ENDED();                                   \
        if (trace_) t_counted(name, count, dt, comm, req, t0_);                                    \
        COLL_END();                                                                                \
    }
COUNTED(Allreduce, Iallreduce, "allreduce")
COUNTED(Scan, Iscan, "scan")
COUNTED(Exscan, Iexscan, "exscan")

#define GATHER(suffix, isuffix, name, all)                                                                  \
    int MPI_##suffix(const void *s, int sc, MPI_Datatype sdt, void *r, int rc_, MPI_Datatype rdt,  \
                     GATHER_ROOT_##all MPI_Comm comm) {                                            \
        COLL_BEGIN(MPI_##suffix);                                                                  \
        int rc = NEXT(MPI_##suffix)(s, sc, sdt, r, rc_, rdt, GATHER_ARG_##all comm); ENDED();                    \
        if (trace_) t_gather(name, all, s, sc, sdt, rc_, rdt, GATHER_VAL_##all, comm, NULL, t0_);  \
        COLL_END();                                                                                \
    }                                                                                              \
    int MPI_##isuffix(const void *s, int sc, MPI_Datatype sdt, void *r, int rc_, MPI_Datatype rdt, \
                      GATHER_ROOT_##all MPI_Comm comm, MPI_Request *req) {                         \
        COLL_BEGIN(MPI_##isuffix);                                                                 \
        int rc = NEXT(MPI_##isuffix)(s, sc, sdt, r, rc_, rdt, GATHER_ARG_##all comm, req); ENDED();              \
        if (trace_) t_gather(name, all, s, sc, sdt, rc_, rdt, GATHER_VAL_##all, comm, req, t0_);   \
        COLL_END();                                                                                \
    }
#define GATHER_ROOT_0 int root,
#define GATHER_ARG_0 root,
#define GATHER_VAL_0 root
#define GATHER_ROOT_1
#define GATHER_ARG_1
#define GATHER_VAL_1 0
GATHER(Gather, Igather, "gather", 0)
GATHER(Allgather, Iallgather, "allgather", 1)

int MPI_Scatter(const void *s, int sc, MPI_Datatype sdt, void *r, int rc_, MPI_Datatype rdt, int root,
                MPI_Comm comm) {
    COLL_BEGIN(MPI_Scatter);
    int rc = NEXT(MPI_Scatter)(s, sc, sdt, r, rc_, rdt, root, comm); ENDED();
    if (trace_) t_scatter("scatter", sc, sdt, r, rc_, rdt, root, comm, NULL, t0_);
    COLL_END();
}
int MPI_Iscatter(const void *s, int sc, MPI_Datatype sdt, void *r, int rc_, MPI_Datatype rdt, int root,
                 MPI_Comm comm, MPI_Request *req) {
    COLL_BEGIN(MPI_Iscatter);
    int rc = NEXT(MPI_Iscatter)(s, sc, sdt, r, rc_, rdt, root, comm, req); ENDED();
    if (trace_) t_scatter("scatter", sc, sdt, r, rc_, rdt, root, comm, req, t0_);
    COLL_END();
}
int MPI_Alltoall(const void *s, int sc, MPI_Datatype sdt, void *r, int rc_, MPI_Datatype rdt, MPI_Comm comm) {
    COLL_BEGIN(MPI_Alltoall);
    int rc = NEXT(MPI_Alltoall)(s, sc, sdt, r, rc_, rdt, comm); ENDED();
    if (trace_) t_alltoall(s, sc, sdt, rc_, rdt, comm, NULL, t0_);
    COLL_END();
}
int MPI_Ialltoall(const void *s, int sc, MPI_Datatype sdt, void *r, int rc_, MPI_Datatype rdt, MPI_Comm comm,
                  MPI_Request *req) {
    COLL_BEGIN(MPI_Ialltoall);
    int rc = NEXT(MPI_Ialltoall)(s, sc, sdt, r, rc_, rdt, comm, req); ENDED();
    if (trace_) t_alltoall(s, sc, sdt, rc_, rdt, comm, req, t0_);
    COLL_END();
}
int MPI_Alltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype sdt, void *r, const int rc_[],
                  const int rd[], MPI_Datatype rdt, MPI_Comm comm) {
    COLL_BEGIN(MPI_Alltoallv);
    int rc = NEXT(MPI_Alltoallv)(s, sc, sd, sdt, r, rc_, rd, rdt, comm); ENDED();
    if (trace_) t_alltoallv(s, sc, sdt, rc_, rdt, comm, NULL, t0_);
    COLL_END();
}
int MPI_Ialltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype sdt, void *r, const int rc_[],
                   const int rd[], MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req) {
    COLL_BEGIN(MPI_Ialltoallv);
    int rc = NEXT(MPI_Ialltoallv)(s, sc, sd, sdt, r, rc_, rd, rdt, comm, req); ENDED();
    if (trace_) t_alltoallv(s, sc, sdt, rc_, rdt, comm, req, t0_);
    COLL_END();
}
int MPI_Gatherv(const void *s, int sc, MPI_Datatype sdt, void *r, const int rc_[], const int d[], MPI_Datatype rdt,
                int root, MPI_Comm comm) {
    COLL_BEGIN(MPI_Gatherv);
    int rc = NEXT(MPI_Gatherv)(s, sc, sdt, r, rc_, d, rdt, root, comm); ENDED();
    if (trace_) t_gatherv("gatherv", 0, s, sc, sdt, rc_, rdt, root, comm, NULL, t0_);
    COLL_END();
}
int MPI_Igatherv(const void *s, int sc, MPI_Datatype sdt, void *r, const int rc_[], const int d[], MPI_Datatype rdt,
                 int root, MPI_Comm comm, MPI_Request *req) {
    COLL_BEGIN(MPI_Igatherv);
    int rc = NEXT(MPI_Igatherv)(s, sc, sdt, r, rc_, d, rdt, root, comm, req); ENDED();
    if (trace_) t_gatherv("gatherv", 0, s, sc, sdt, rc_, rdt, root, comm, req, t0_);
    COLL_END();
}
int MPI_Allgatherv(const void *s, int sc, MPI_Datatype sdt, void *r, const int rc_[], const int d[],
                   MPI_Datatype rdt, MPI_Comm comm) {
    COLL_BEGIN(MPI_Allgatherv);
    int rc = NEXT(MPI_Allgatherv)(s, sc, sdt, r, rc_, d, rdt, comm); ENDED();
    if (trace_) t_gatherv("allgatherv", 1, s, sc, sdt, rc_, rdt, 0, comm, NULL, t0_);
    COLL_END();
}
int MPI_Iallgatherv(const void *s, int sc, MPI_Datatype sdt, void *r, const int rc_[], const int d[],
                    MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req) {
    COLL_BEGIN(MPI_Iallgatherv);
    int rc = NEXT(MPI_Iallgatherv)(s, sc, sdt, r, rc_, d, rdt, comm, req); ENDED();
    if (trace_) t_gatherv("allgatherv", 1, s, sc, sdt, rc_, rdt, 0, comm, req, t0_);
    COLL_END();
}
int MPI_Scatterv(const void *s, const int sc[], const int d[], MPI_Datatype sdt, void *r, int rc_, MPI_Datatype rdt,
                 int root, MPI_Comm comm) {
    COLL_BEGIN(MPI_Scatterv);
    int rc = NEXT(MPI_Scatterv)(s, sc, d, sdt, r, rc_, rdt, root, comm); ENDED();
    if (trace_) t_scatterv(sc, sdt, r, rc_, rdt, root, comm, NULL, t0_);
    COLL_END();
}
int MPI_Iscatterv(const void *s, const int sc[], const int d[], MPI_Datatype sdt, void *r, int rc_,
                  MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *req) {
    COLL_BEGIN(MPI_Iscatterv);
    int rc = NEXT(MPI_Iscatterv)(s, sc, d, sdt, r, rc_, rdt, root, comm, req); ENDED();
    if (trace_) t_scatterv(sc, sdt, r, rc_, rdt, root, comm, req, t0_);
    COLL_END();
}
int MPI_Reduce_scatter(const void *s, void *r, const int rc_[], MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    COLL_BEGIN(MPI_Reduce_scatter);
    int rc = NEXT(MPI_Reduce_scatter)(s, r, rc_, dt, op, comm); ENDED();
    if (trace_) t_reduce_scatter(rc_, dt, comm, NULL, t0_);
    COLL_END();
}
int MPI_Ireduce_scatter(const void *s, void *r, const int rc_[], MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                        MPI_Request *req) {
    COLL_BEGIN(MPI_Ireduce_scatter);
    int rc = NEXT(MPI_Ireduce_scatter)(s, r, rc_, dt, op, comm, req); ENDED();
    if (trace_) t_reduce_scatter(rc_, dt, comm, req, t0_);
    COLL_END();
}
int MPI_Reduce_scatter_block(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
    COLL_BEGIN(MPI_Reduce_scatter_block);
    int rc = NEXT(MPI_Reduce_scatter_block)(s, r, count, dt, op, comm); ENDED();
    if (trace_) t_counted("reducescatterblock", count, dt, comm, NULL, t0_);
    COLL_END();
}
int MPI_Ireduce_scatter_block(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                              MPI_Request *req) {
    COLL_BEGIN(MPI_Ireduce_scatter_block);
    int rc = NEXT(MPI_Ireduce_scatter_block)(s, r, count, dt, op, comm, req); ENDED();
    if (trace_) t_counted("reducescatterblock", count, dt, comm, req, t0_);
    COLL_END();
}

/* ------------------------------------------------------------------ communicators */

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    ENTER(MPI_Comm_split);
    int rc = NEXT(MPI_Comm_split)(comm, color, key, newcomm); ENDED();
    if (trace_) {
        comm_rec *p = comm_of(comm);
        fprintf(tit_out, "%d comm_split %s %d %d ", me, p->id, color == MPI_UNDEFINED ? -1 : color, key);
        if (*newcomm != MPI_COMM_NULL)
            fprintf(tit_out, "%s\n", comm_register(*newcomm, 1)->id);
        else
            fprintf(tit_out, "-\n");
        leave("comm_split", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    ENTER(MPI_Comm_dup);
    int rc = NEXT(MPI_Comm_dup)(comm, newcomm); ENDED();
    if (trace_) {
        creation_line("comm_dup", comm, *newcomm, 0, MPI_GROUP_NULL);
        leave("comm_dup", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
    ENTER(MPI_Comm_create);
    int rc = NEXT(MPI_Comm_create)(comm, group, newcomm); ENDED();
    if (trace_) {
        creation_line("comm_create", comm, *newcomm, 1, group);
        leave("comm_create", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
    ENTER(MPI_Comm_create_group);
    int rc = NEXT(MPI_Comm_create_group)(comm, group, tag, newcomm); ENDED();
    if (trace_) {
        creation_line("comm_create_group", comm, *newcomm, 1, group);
        leave("comm_create_group", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
    ENTER(MPI_Comm_split_type);
    int rc = NEXT(MPI_Comm_split_type)(comm, split_type, key, info, newcomm); ENDED();
    if (trace_) {
        creation_line("comm_split_type", comm, *newcomm, 1, MPI_GROUP_NULL);
        leave("comm_split_type", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm) {
    ENTER(MPI_Cart_create);
    int rc = NEXT(MPI_Cart_create)(comm, ndims, dims, periods, reorder, newcomm); ENDED();
    if (trace_) {
        creation_line("cart_create", comm, *newcomm, 1, MPI_GROUP_NULL);
        leave("cart_create", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
    ENTER(MPI_Cart_sub);
    int rc = NEXT(MPI_Cart_sub)(comm, remain_dims, newcomm); ENDED();
    if (trace_) {
        creation_line("cart_sub", comm, *newcomm, 1, MPI_GROUP_NULL);
        leave("cart_sub", t0_);
    }
    LEAVE();
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm) {
    ENTER(MPI_Comm_free);
    MPI_Comm c = *comm;
    char id[48] = "-";
    if (trace_) {
        comm_rec *r = comm_lookup(c);
        if (r) snprintf(id, sizeof id, "%s", r->id);
    }
    int rc = NEXT(MPI_Comm_free)(comm); ENDED();
    if (trace_) {
        comm_forget(c);
        fprintf(tit_out, "%d comm_free %s\n", me, id);
        leave("comm_free", t0_);
    }
    LEAVE();
    return rc;
}
