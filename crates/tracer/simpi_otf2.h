/*
 * The OTF2 part of simpi's tracer (simpi_otf2.c), called by simpi_trace.c when built
 * with -DSIMPI_OTF2 (`simpi trace --otf2`). Ranks (`peer`, `root`) are communicator
 * ranks; `comm` is the reference o2_comm gave; times are seconds since the tracer's
 * origin. Events given between o2_call and o2_region belong to that call.
 */
#ifndef SIMPI_OTF2_H
#define SIMPI_OTF2_H
#include <stdint.h>

void o2_open(int me, int n, const char *dir);
void o2_close(double end);
unsigned o2_comm(const char *id, int size, const int *world);
uint64_t o2_new_request(void);
void o2_call(int fn);
void o2_region(double t0, double t1);
void o2_send(unsigned comm, int peer, int tag, long long bytes);
void o2_isend(unsigned comm, int peer, int tag, long long bytes, uint64_t req);
void o2_isend_complete(uint64_t req);
void o2_irecv_request(uint64_t req);
void o2_recv(unsigned comm, int peer, int tag, long long bytes);
void o2_irecv(unsigned comm, int peer, int tag, long long bytes, uint64_t req);
void o2_request_test(uint64_t req);
void o2_coll(int op, unsigned comm, int root, long long sent, long long recvd);
void o2_icoll(uint64_t req);
void o2_icoll_complete(int op, unsigned comm, int root, long long sent, long long recvd, uint64_t req);

/* OTF2_CollectiveOp values. */
enum {
    O2_BARRIER = 0, O2_BCAST = 1, O2_GATHER = 2, O2_GATHERV = 3, O2_SCATTER = 4, O2_SCATTERV = 5,
    O2_ALLGATHER = 6, O2_ALLGATHERV = 7, O2_ALLTOALL = 8, O2_ALLTOALLV = 9, O2_ALLREDUCE = 11,
    O2_REDUCE = 12, O2_REDUCE_SCATTER = 13, O2_SCAN = 14, O2_EXSCAN = 15, O2_REDUCE_SCATTER_BLOCK = 16
};
#endif
