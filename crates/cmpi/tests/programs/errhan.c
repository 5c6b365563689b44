/* Error handlers: the program's own on a duplicate of the world (called with that
 * communicator and the error's code, and the call returns the code), MPI_ERRORS_RETURN
 * on the world, and error classes, codes and strings the program adds. Exits with the
 * failed check's number. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int calls = 0, last_code = 0;
static MPI_Comm seen = MPI_COMM_NULL;

static void handler(MPI_Comm *comm, int *code, ...) {
    calls++;
    last_code = *code;
    seen = *comm;
}

#define CHECK(n, cond)                                                   \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "errhan.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                    \
        }                                                                \
    } while (0)

int main(int argc, char **argv) {
    int rank, size, x = 1, class, rc, len;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Errhandler_free(&eh);
    rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, dup);
    MPI_Error_class(rc, &class);
    CHECK(1, calls == 1 && class == MPI_ERR_RANK && last_code == rc && seen == dup);
    /* The world keeps the default until set; then errors return. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    CHECK(2, rc == MPI_ERR_TAG && calls == 1);
    /* Added classes, codes and strings. */
    int myclass, mycode;
    MPI_Add_error_class(&myclass);
    MPI_Add_error_code(myclass, &mycode);
    MPI_Add_error_string(mycode, "the flux capacitor is empty");
    MPI_Error_class(mycode, &class);
    MPI_Error_string(mycode, text, &len);
    CHECK(3, class == myclass && strcmp(text, "the flux capacitor is empty") == 0);
    MPI_Comm_call_errhandler(dup, mycode);
    CHECK(4, calls == 2 && last_code == mycode);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
