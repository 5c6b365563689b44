/* SMPI's source annotations for simpi (SimGrid's smpi/smpi.h names and meanings):
 * programs written for SMPI build with simpicc unchanged. See docs/online.md.
 *
 *   SMPI_SAMPLE_LOCAL(init, cond, step, count, threshold) { body }
 *   SMPI_SAMPLE_GLOBAL(init, cond, step, count, threshold) { body }
 *     the loop `for (init; cond; step) body`, whose iterations run (and are timed)
 *     until there are `count` samples, or at least two whose mean's relative standard
 *     error is below `threshold`; the iterations left do not run and each counts as
 *     the mean. LOCAL: each rank's own samples; GLOBAL: every rank's together.
 *   SMPI_SAMPLE_DELAY(seconds) { body }, SMPI_SAMPLE_FLOPS(flops) { body }
 *     the body does not run; the rank computes that long instead.
 *   SMPI_SHARED_MALLOC(size), SMPI_PARTIAL_SHARED_MALLOC(size, offsets, n),
 *   SMPI_SHARED_FREE(p)
 *     memory shared by every rank allocating at that line (the partial form: only
 *     the blocks [offsets[2i], offsets[2i+1]) are shared). */
#ifndef SIMPI_SMPI_H
#define SIMPI_SMPI_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void smpi_execute(double seconds);
void smpi_execute_benched(double seconds);
void smpi_execute_flops(double flops);
void smpi_execute_flops_benched(double flops);
void smpi_bench_begin(void);
void smpi_bench_end(void);
int simpi_sample_next(int global, const char *file, int line, const char *tag, int count,
                      double threshold, long total, int more);
void *smpi_shared_malloc(size_t size, const char *file, int line);
void *smpi_shared_malloc_partial(size_t size, const size_t *shared_block_offsets,
                                 int nb_shared_blocks);
void smpi_shared_free(void *data);

#ifdef __cplusplus
}
#endif

#define SIMPI_PASTE_(a, b) a##b
#define SIMPI_PASTE(a, b) SIMPI_PASTE_(a, b)

/* The loop's header runs once alone to count its iterations, then the loop runs
 * while simpi_sample_next says so. */
#define SIMPI_SAMPLE_LOOP(init, cond, step, global, count, threshold, tag)                     \
    long SIMPI_PASTE(simpi_iterations_, __LINE__) = 0;                                        \
    {                                                                                          \
        init;                                                                                  \
        for (; (cond); step)                                                                   \
            SIMPI_PASTE(simpi_iterations_, __LINE__)++;                                        \
    }                                                                                          \
    for (init; simpi_sample_next((global), __FILE__, __LINE__, (tag), (count), (threshold),   \
                                 SIMPI_PASTE(simpi_iterations_, __LINE__), (cond) ? 1 : 0);   \
         step)

#define SMPI_SAMPLE_LOCAL(init, cond, step, count, threshold)                                  \
    SIMPI_SAMPLE_LOOP(init, cond, step, 0, count, threshold, "")
#define SMPI_SAMPLE_LOCAL_TAG(init, cond, step, count, threshold, tag)                         \
    SIMPI_SAMPLE_LOOP(init, cond, step, 0, count, threshold, tag)
#define SMPI_SAMPLE_GLOBAL(init, cond, step, count, threshold)                                 \
    SIMPI_SAMPLE_LOOP(init, cond, step, 1, count, threshold, "")
#define SMPI_SAMPLE_GLOBAL_TAG(init, cond, step, count, threshold, tag)                        \
    SIMPI_SAMPLE_LOOP(init, cond, step, 1, count, threshold, tag)
#define SMPI_SAMPLE_DELAY(seconds) for (smpi_execute(seconds); 0;)
#define SMPI_SAMPLE_FLOPS(flops) for (smpi_execute_flops(flops); 0;)

#define SMPI_SHARED_MALLOC(size) smpi_shared_malloc((size), __FILE__, __LINE__)
#define SMPI_PARTIAL_SHARED_MALLOC(size, offsets, n) smpi_shared_malloc_partial((size), (offsets), (n))
#define SMPI_SHARED_FREE(p) smpi_shared_free(p)

#endif
