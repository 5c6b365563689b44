/* For the diagnostic pass of bench/online/mpich_suite.sh (MPICH_SUITE_DIAG=1) only.
 * These are the constants that the MPICH test suite's support code (util/mtest.c,
 * util/mtest_common.c, dtpools/) uses and simpi's mpi.h lacks. Without them, every
 * test of the suite fails to build. The values are those of the MPI 5.0 standard ABI,
 * whose handle values simpi's mpi.h follows. The functions that take these constants
 * are not in libsimpi_mpi.so either: they reach the stub library, which names them and
 * ends the rank. A constant that mpi.h gains is taken from mpi.h. */
#ifndef SIMPI_MPICH_COMPAT_H
#define SIMPI_MPICH_COMPAT_H
#include <mpi.h>

#ifndef MPI_ORDER_C
#define MPI_ORDER_C 0xC
#endif
#ifndef MPI_ORDER_FORTRAN
#define MPI_ORDER_FORTRAN 0xF
#endif
#ifndef MPI_COMBINER_NAMED
#define MPI_COMBINER_NAMED 101
#endif
#ifndef MPI_UNIVERSE_SIZE
#define MPI_UNIVERSE_SIZE 505
#endif
#ifndef MPI_WIN_BASE
#define MPI_WIN_BASE 601
#endif
/* The ABI's null callbacks are null function pointers. */
#ifndef MPI_WIN_NULL_COPY_FN
#define MPI_WIN_NULL_COPY_FN ((void *)0)
#endif
#ifndef MPI_WIN_NULL_DELETE_FN
#define MPI_WIN_NULL_DELETE_FN ((void *)0)
#endif
#endif
