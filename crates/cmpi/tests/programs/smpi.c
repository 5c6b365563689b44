/* SMPI's annotations: declared delays and flops, sampled loops (local and global),
 * shared memory (whole and partial). Exits with the failed check's number. */
#include <smpi/smpi.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define CHECK(n, cond)                                                    \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "smpi.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                     \
        }                                                                 \
    } while (0)

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (argc > 1 && strcmp(argv[1], "measure") == 0) {
        /* Computation measured: 20 iterations of 1 ms of CPU each, sampled 4 times;
         * the 16 skipped count as the mean, so the clock moves about 20 ms while
         * about 4 ms of CPU were spent. */
        int runs = 0;
        clock_t c0 = clock();
        double w0 = MPI_Wtime();
        SMPI_SAMPLE_LOCAL(int i = 0, i < 20, i++, 4, 0.0) {
            clock_t start = clock();
            while (clock() - start < CLOCKS_PER_SEC / 1000)
                ;
            runs++;
        }
        double w1 = MPI_Wtime();
        double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
        CHECK(20, runs == 4);
        CHECK(21, cpu < 0.010 && w1 - w0 > 0.018 && w1 - w0 < 0.030);
        MPI_Finalize();
        return 0;
    }

    /* A declared delay and declared flops: the bodies do not run; the clock moves,
     * and the C library's clocks read the simulated time too. */
    int ran = 0;
    struct timeval tv0, tv1;
    struct timespec ts0, ts1;
    gettimeofday(&tv0, NULL);
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    double t0 = MPI_Wtime();
    SMPI_SAMPLE_DELAY(0.5) { ran = 1; }
    double t1 = MPI_Wtime();
    gettimeofday(&tv1, NULL);
    clock_gettime(CLOCK_MONOTONIC, &ts1);
    CHECK(1, !ran && fabs(t1 - t0 - 0.5) < 1e-6);
    double dtv = (tv1.tv_sec - tv0.tv_sec) + 1e-6 * (tv1.tv_usec - tv0.tv_usec);
    double dts = (ts1.tv_sec - ts0.tv_sec) + 1e-9 * (ts1.tv_nsec - ts0.tv_nsec);
    CHECK(10, fabs(dtv - 0.5) < 2e-6 && fabs(dts - 0.5) < 1e-6);
    SMPI_SAMPLE_FLOPS(2e9) { ran = 1; }
    double t2 = MPI_Wtime();
    /* Hosts of 1 Gflop/s (the run's): 2 s. */
    CHECK(2, !ran && fabs(t2 - t1 - 2.0) < 1e-6);

    /* A local loop of 100 iterations sampled 5 times: 5 run; run again, none do. */
    int count = 0;
    SMPI_SAMPLE_LOCAL(int i = 0, i < 100, i++, 5, 0.0) { count++; }
    CHECK(3, count == 5);
    for (int k = 0; k < 2; k++) {
        SMPI_SAMPLE_LOCAL(int i = 0, i < 100, i++, 3, 0.0) { count++; }
    }
    CHECK(4, count == 8);
    /* A loop whose own condition ends first runs to its end. */
    int few = 0;
    SMPI_SAMPLE_LOCAL(int i = 0, i < 2, i++, 10, 0.0) { few++; }
    CHECK(5, few == 2);

    /* A global loop pools every rank's samples: 6 in all, each rank's iterations
     * counted once the next test of the loop sees them, so at most size - 1 more. */
    int mine = 0, total;
    SMPI_SAMPLE_GLOBAL(int i = 0, i < 50, i++, 6, 0.0) { mine++; }
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(6, total >= 6 && total <= 5 + size);

    /* Shared memory: what one rank writes, every rank sees. */
    long *shared = SMPI_SHARED_MALLOC(1 << 20);
    CHECK(7, shared != NULL);
    if (rank == 0)
        shared[1000] = 4242;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(8, shared[1000] == 4242);
    MPI_Barrier(MPI_COMM_WORLD);
    SMPI_SHARED_FREE(shared);

    /* Partly shared: only the second page is common. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t offsets[2] = {page, 2 * page};
    char *part = SMPI_PARTIAL_SHARED_MALLOC(3 * page, offsets, 1);
    part[0] = (char)rank;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        part[page + 7] = 99;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(9, part[page + 7] == 99 && part[0] == (char)rank);
    MPI_Barrier(MPI_COMM_WORLD);
    SMPI_SHARED_FREE(part);

    MPI_Finalize();
    return 0;
}
