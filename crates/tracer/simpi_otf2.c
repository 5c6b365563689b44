/*
 * simpi's tracer, OTF2 part (built in with `simpi trace --otf2`): writes the traced
 * calls of the same run as an OTF2 archive, `traces.otf2` beside the TIT files, with
 * Score-P's conventions for MPI events (an Enter and a Leave of the MPI function's
 * region around MpiSend, MpiIsend, MpiIrecvRequest, MpiRecv, MpiIrecv at completion,
 * MpiIsendComplete, MpiRequestTest, MpiCollectiveBegin/End with Score-P's byte counts,
 * NonBlockingCollectiveRequest/Complete), so that a replay of one can be checked
 * against a replay of the other.
 *
 * Times are the tracer's own (seconds since its common origin) in nanoseconds. Events
 * of a call are kept until the call ends, then written between its Enter and Leave.
 * Communicators get a local reference when the tracer first sees them; at MPI_Finalize
 * rank 0 gathers every rank's communicators, numbers them trace-wide and writes the
 * global definitions, and each rank writes a mapping table from its local references
 * (as OTF2's mapping tables are meant to be used).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/otf2.h>

#include "simpi_fns.h"
#include "simpi_otf2.h"

static OTF2_Archive *archive;
static OTF2_EvtWriter *writer;
static int o2_me, o2_n;
static int o2_fn = -1;
static uint64_t next_request = 1;
static uint64_t last_ts;

/* ------------------------------------------------------------------ events of a call */

enum { E_SEND, E_ISEND, E_ISEND_DONE, E_IRECV_REQ, E_RECV, E_IRECV, E_TEST, E_COLL, E_ICOLL, E_ICOLL_DONE };

typedef struct {
    int kind;
    unsigned comm;
    int peer, tag, op, root;
    long long bytes, sent, recvd;
    uint64_t req;
} o2_event;

static o2_event *events;
static int nevents, cap_events;

static o2_event *push(int kind) {
    if (nevents == cap_events) {
        cap_events = cap_events ? 2 * cap_events : 64;
        events = realloc(events, sizeof *events * (size_t)cap_events);
        if (!events) {
            fprintf(stderr, "simpi tracer: out of memory\n");
            abort();
        }
    }
    o2_event *e = &events[nevents++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    return e;
}

static uint64_t ticks(double seconds) {
    uint64_t t = seconds <= 0 ? 0 : (uint64_t)(seconds * 1e9 + 0.5);
    /* A location's events never go back in time. */
    if (t < last_ts) t = last_ts;
    last_ts = t;
    return t;
}

void o2_call(int fn) { o2_fn = fn; }

uint64_t o2_new_request(void) { return next_request++; }

void o2_send(unsigned comm, int peer, int tag, long long bytes) {
    o2_event *e = push(E_SEND);
    e->comm = comm, e->peer = peer, e->tag = tag, e->bytes = bytes;
}

void o2_isend(unsigned comm, int peer, int tag, long long bytes, uint64_t req) {
    o2_event *e = push(E_ISEND);
    e->comm = comm, e->peer = peer, e->tag = tag, e->bytes = bytes, e->req = req;
}

void o2_isend_complete(uint64_t req) { push(E_ISEND_DONE)->req = req; }

void o2_irecv_request(uint64_t req) { push(E_IRECV_REQ)->req = req; }

void o2_recv(unsigned comm, int peer, int tag, long long bytes) {
    o2_event *e = push(E_RECV);
    e->comm = comm, e->peer = peer, e->tag = tag, e->bytes = bytes;
}

void o2_irecv(unsigned comm, int peer, int tag, long long bytes, uint64_t req) {
    o2_event *e = push(E_IRECV);
    e->comm = comm, e->peer = peer, e->tag = tag, e->bytes = bytes, e->req = req;
}

void o2_request_test(uint64_t req) { push(E_TEST)->req = req; }

void o2_coll(int op, unsigned comm, int root, long long sent, long long recvd) {
    o2_event *e = push(E_COLL);
    e->op = op, e->comm = comm, e->root = root, e->sent = sent, e->recvd = recvd;
}

void o2_icoll(uint64_t req) { push(E_ICOLL)->req = req; }

void o2_icoll_complete(int op, unsigned comm, int root, long long sent, long long recvd, uint64_t req) {
    o2_event *e = push(E_ICOLL_DONE);
    e->op = op, e->comm = comm, e->root = root, e->sent = sent, e->recvd = recvd, e->req = req;
}

static uint32_t root_of(int root) { return root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root; }

/* Writes the call that ran from t0 to t1: Enter, its events (those that start it at t0,
 * those that end it at t1), Leave. */
void o2_region(double t0, double t1) {
    if (!writer || o2_fn < 0) {
        nevents = 0;
        return;
    }
    OTF2_TimeStamp a = ticks(t0), b = ticks(t1);
    OTF2_EvtWriter_Enter(writer, NULL, a, (OTF2_RegionRef)o2_fn);
    for (int i = 0; i < nevents; i++) {
        o2_event *e = &events[i];
        switch (e->kind) {
        case E_SEND:
            OTF2_EvtWriter_MpiSend(writer, NULL, a, (uint32_t)e->peer, e->comm, (uint32_t)e->tag, (uint64_t)e->bytes);
            break;
        case E_ISEND:
            OTF2_EvtWriter_MpiIsend(writer, NULL, a, (uint32_t)e->peer, e->comm, (uint32_t)e->tag, (uint64_t)e->bytes,
                                    e->req);
            break;
        case E_IRECV_REQ:
            OTF2_EvtWriter_MpiIrecvRequest(writer, NULL, a, e->req);
            break;
        case E_ICOLL:
            OTF2_EvtWriter_NonBlockingCollectiveRequest(writer, NULL, a, e->req);
            break;
        case E_COLL:
            OTF2_EvtWriter_MpiCollectiveBegin(writer, NULL, a);
            break;
        default:
            break;
        }
    }
    for (int i = 0; i < nevents; i++) {
        o2_event *e = &events[i];
        switch (e->kind) {
        case E_ISEND_DONE:
            OTF2_EvtWriter_MpiIsendComplete(writer, NULL, b, e->req);
            break;
        case E_RECV:
            OTF2_EvtWriter_MpiRecv(writer, NULL, b, (uint32_t)e->peer, e->comm, (uint32_t)e->tag, (uint64_t)e->bytes);
            break;
        case E_IRECV:
            OTF2_EvtWriter_MpiIrecv(writer, NULL, b, (uint32_t)e->peer, e->comm, (uint32_t)e->tag, (uint64_t)e->bytes,
                                    e->req);
            break;
        case E_TEST:
            OTF2_EvtWriter_MpiRequestTest(writer, NULL, b, e->req);
            break;
        case E_COLL:
            OTF2_EvtWriter_MpiCollectiveEnd(writer, NULL, b, (OTF2_CollectiveOp)e->op, e->comm, root_of(e->root),
                                            (uint64_t)e->sent, (uint64_t)e->recvd);
            break;
        case E_ICOLL_DONE:
            OTF2_EvtWriter_NonBlockingCollectiveComplete(writer, NULL, b, (OTF2_CollectiveOp)e->op, e->comm,
                                                         root_of(e->root), (uint64_t)e->sent, (uint64_t)e->recvd,
                                                         e->req);
            break;
        default:
            break;
        }
    }
    OTF2_EvtWriter_Leave(writer, NULL, b, (OTF2_RegionRef)o2_fn);
    nevents = 0;
    o2_fn = -1;
}

/* ------------------------------------------------------------------ communicators */

typedef struct {
    char id[48];
    int size;
    int *world;
} o2_comm_rec;

static o2_comm_rec *ocomms;
static int nocomms, cap_ocomms;

unsigned o2_comm(const char *id, int size, const int *world) {
    for (int i = 0; i < nocomms; i++)
        if (strcmp(ocomms[i].id, id) == 0) return (unsigned)i;
    if (nocomms == cap_ocomms) {
        cap_ocomms = cap_ocomms ? 2 * cap_ocomms : 16;
        ocomms = realloc(ocomms, sizeof *ocomms * (size_t)cap_ocomms);
        if (!ocomms) {
            fprintf(stderr, "simpi tracer: out of memory\n");
            abort();
        }
    }
    o2_comm_rec *c = &ocomms[nocomms];
    /* Ids are compared as 48 bytes when rank 0 numbers them: no stray bytes after the name. */
    memset(c->id, 0, sizeof c->id);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->size = size;
    c->world = malloc(sizeof(int) * (size_t)(size ? size : 1));
    memcpy(c->world, world, sizeof(int) * (size_t)size);
    return (unsigned)nocomms++;
}

/* ------------------------------------------------------------------ archive */

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final) {
    (void)user, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

static void check(OTF2_ErrorCode rc, const char *what) {
    if (rc != OTF2_SUCCESS) {
        fprintf(stderr, "simpi tracer: OTF2 cannot %s: %s\n", what, OTF2_Error_GetDescription(rc));
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
}

void o2_open(int me, int n, const char *dir) {
    o2_me = me, o2_n = n;
    archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!archive) {
        fprintf(stderr, "simpi tracer: OTF2 cannot create the archive in %s\n", dir);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    check(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL), "set its flush callbacks");
    check(OTF2_MPI_Archive_SetCollectiveCallbacks(archive, MPI_COMM_WORLD, MPI_COMM_NULL),
          "set its collective callbacks");
    check(OTF2_Archive_OpenEvtFiles(archive), "open the event files");
    writer = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)me);
    if (!writer) check(OTF2_ERROR_INVALID_ARGUMENT, "open this rank's event writer");
}

/* Strings of the global definitions. */
enum { S_EMPTY, S_MACHINE, S_RANK0 };

void o2_close(double end) {
    if (!archive) return;
    uint64_t nev = 0;
    OTF2_EvtWriter_GetNumberOfEvents(writer, &nev);
    check(OTF2_Archive_CloseEvtWriter(archive, writer), "close the event writer");
    writer = NULL;
    check(OTF2_Archive_CloseEvtFiles(archive), "close the event files");

    /* This rank's communicators as ints: count, then (12 ints of id, size, members). */
    int len = 1;
    for (int i = 0; i < nocomms; i++) len += 13 + ocomms[i].size;
    int *mine = malloc(sizeof(int) * (size_t)len), at = 0;
    mine[at++] = nocomms;
    for (int i = 0; i < nocomms; i++) {
        memcpy(&mine[at], ocomms[i].id, 48);
        at += 12;
        mine[at++] = ocomms[i].size;
        memcpy(&mine[at], ocomms[i].world, sizeof(int) * (size_t)ocomms[i].size);
        at += ocomms[i].size;
    }
    int *lens = NULL, *displs = NULL, *all = NULL, total = 0;
    if (o2_me == 0) {
        lens = malloc(sizeof(int) * (size_t)o2_n);
        displs = malloc(sizeof(int) * (size_t)o2_n);
    }
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (o2_me == 0) {
        for (int r = 0; r < o2_n; r++) displs[r] = total, total += lens[r];
        all = malloc(sizeof(int) * (size_t)total);
    }
    PMPI_Gatherv(mine, len, MPI_INT, all, lens, displs, MPI_INT, 0, MPI_COMM_WORLD);
    uint64_t *events_of = o2_me == 0 ? malloc(sizeof(uint64_t) * (size_t)o2_n) : NULL;
    PMPI_Gather(&nev, 1, MPI_UINT64_T, events_of, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    double last = end;
    PMPI_Reduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* Rank 0 numbers the communicators trace-wide, in order of first appearance. */
    int *map_lens = NULL, *map_displs = NULL, *maps = NULL, nmaps = 0;
    int nglobal = 0, *gstart = NULL; /* offset in `all` of each global communicator's record */
    if (o2_me == 0) {
        map_lens = malloc(sizeof(int) * (size_t)o2_n);
        map_displs = malloc(sizeof(int) * (size_t)o2_n);
        for (int r = 0; r < o2_n; r++) {
            map_displs[r] = nmaps;
            map_lens[r] = all[displs[r]];
            nmaps += map_lens[r];
        }
        maps = malloc(sizeof(int) * (size_t)(nmaps ? nmaps : 1));
        gstart = malloc(sizeof(int) * (size_t)(nmaps ? nmaps : 1));
        for (int r = 0; r < o2_n; r++) {
            int p = displs[r] + 1;
            for (int i = 0; i < map_lens[r]; i++) {
                int g;
                for (g = 0; g < nglobal; g++)
                    if (memcmp(&all[gstart[g]], &all[p], 48) == 0) break;
                if (g == nglobal) gstart[nglobal++] = p;
                maps[map_displs[r] + i] = g;
                p += 13 + all[p + 12];
            }
        }
    }
    int *local_map = malloc(sizeof(int) * (size_t)(nocomms ? nocomms : 1));
    PMPI_Scatterv(maps, map_lens, map_displs, MPI_INT, local_map, nocomms, MPI_INT, 0, MPI_COMM_WORLD);

    check(OTF2_Archive_OpenDefFiles(archive), "open the definition files");
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)o2_me);
    if (nocomms > 0) {
        uint64_t *m = malloc(sizeof(uint64_t) * (size_t)nocomms);
        for (int i = 0; i < nocomms; i++) m[i] = (uint64_t)local_map[i];
        OTF2_IdMap *idmap = OTF2_IdMap_CreateFromUint64Array((uint64_t)nocomms, m, false);
        check(OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_COMM, idmap), "write the mapping table");
        OTF2_IdMap_Free(idmap);
        free(m);
    }
    check(OTF2_Archive_CloseDefWriter(archive, dw), "close the definition writer");
    check(OTF2_Archive_CloseDefFiles(archive), "close the definition files");

    if (o2_me == 0) {
        OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
        char name[128];
        OTF2_StringRef s_fn = S_RANK0 + (OTF2_StringRef)o2_n, s_comm = s_fn + SIMPI_FN_COUNT;
        check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, ticks(last), OTF2_UNDEFINED_TIMESTAMP),
              "write the clock properties");
        OTF2_GlobalDefWriter_WriteString(g, S_EMPTY, "");
        OTF2_GlobalDefWriter_WriteString(g, S_MACHINE, "machine");
        for (int r = 0; r < o2_n; r++) {
            snprintf(name, sizeof name, "MPI Rank %d", r);
            OTF2_GlobalDefWriter_WriteString(g, S_RANK0 + (OTF2_StringRef)r, name);
        }
        for (int f = 0; f < SIMPI_FN_COUNT; f++) OTF2_GlobalDefWriter_WriteString(g, s_fn + (OTF2_StringRef)f, simpi_fn_names[f]);
        for (int c = 0; c < nglobal; c++) {
            const char *id = (const char *)&all[gstart[c]];
            snprintf(name, sizeof name, "%s",
                     strcmp(id, "world") == 0 ? "MPI_COMM_WORLD" : strcmp(id, "self") == 0 ? "MPI_COMM_SELF" : id);
            OTF2_GlobalDefWriter_WriteString(g, s_comm + (OTF2_StringRef)c, name);
        }
        OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_MACHINE, S_MACHINE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
        for (int r = 0; r < o2_n; r++)
            OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, S_RANK0 + (OTF2_StringRef)r,
                                                    OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                    OTF2_UNDEFINED_LOCATION_GROUP);
        for (int r = 0; r < o2_n; r++)
            OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r, S_RANK0 + (OTF2_StringRef)r,
                                               OTF2_LOCATION_TYPE_CPU_THREAD, events_of[r], (OTF2_LocationGroupRef)r);
        for (int f = 0; f < SIMPI_FN_COUNT; f++)
            OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)f, s_fn + (OTF2_StringRef)f,
                                             s_fn + (OTF2_StringRef)f, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
                                             OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
        uint64_t *members = malloc(sizeof(uint64_t) * (size_t)o2_n);
        for (int r = 0; r < o2_n; r++) members[r] = (uint64_t)r;
        OTF2_GlobalDefWriter_WriteGroup(g, 0, S_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, (uint32_t)o2_n, members);
        for (int c = 0; c < nglobal; c++) {
            int p = gstart[c];
            const char *id = (const char *)&all[p];
            int size = all[p + 12];
            if (strcmp(id, "self") == 0) {
                OTF2_GlobalDefWriter_WriteGroup(g, (OTF2_GroupRef)(1 + c), S_EMPTY, OTF2_GROUP_TYPE_COMM_SELF,
                                                OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL);
            } else {
                uint64_t *m = malloc(sizeof(uint64_t) * (size_t)(size ? size : 1));
                for (int i = 0; i < size; i++) m[i] = (uint64_t)all[p + 13 + i];
                OTF2_GlobalDefWriter_WriteGroup(g, (OTF2_GroupRef)(1 + c), S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP,
                                                OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)size, m);
                free(m);
            }
            OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)c, s_comm + (OTF2_StringRef)c, (OTF2_GroupRef)(1 + c),
                                           OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        }
        free(members);
        check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "close the global definition writer");
    }
    check(OTF2_Archive_Close(archive), "close the archive");
    archive = NULL;
    free(mine), free(lens), free(displs), free(all), free(events_of);
    free(map_lens), free(map_displs), free(maps), free(gstart), free(local_map);
}
