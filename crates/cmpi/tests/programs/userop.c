/* A reduction with the program's own operation: 2x2 integer matrix products, which
 * do not commute, so the result shows the order MPI defines (rank 0's matrix on the
 * left). Rank r contributes M_r = [[1, r+1], [0, 1]] x [[1, 0], [1, 1]]. Each rank
 * computes the expected products itself and exits with the check's number on a
 * difference. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void mul(const int *a, const int *b, int *out) {
    int t[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(out, t, sizeof t);
}

/* inout = in x inout, for each matrix (4 ints) of the vector. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++) mul((int *)in + 4 * i, (int *)inout + 4 * i, (int *)inout + 4 * i);
}

static void mat(int r, int *m) {
    int s[4] = {1, r + 1, 0, 1}, l[4] = {1, 0, 1, 1};
    mul(s, l, m);
}

#define CHECK(n, cond)                                                  \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "userop.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                   \
        }                                                               \
    } while (0)

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype m4;
    MPI_Type_contiguous(4, MPI_INT, &m4);
    MPI_Type_commit(&m4);
    MPI_Op op;
    MPI_Op_create(matmul, 0, &op);
    int commute = 1;
    MPI_Op_commutative(op, &commute);
    CHECK(1, commute == 0);
    /* Products M_0 ... M_k for every k. */
    int prefix[64][4], m[4];
    mat(0, prefix[0]);
    for (int r = 1; r < size; r++) {
        mat(r, m);
        mul(prefix[r - 1], m, prefix[r]);
    }
    /* Two matrices per rank: the second is the first, to check `len`. */
    int mine[8], out[8];
    mat(rank, mine);
    memcpy(mine + 4, mine, sizeof(int) * 4);
    MPI_Allreduce(mine, out, 2, m4, op, MPI_COMM_WORLD);
    CHECK(2, memcmp(out, prefix[size - 1], sizeof m) == 0 && memcmp(out + 4, out, sizeof m) == 0);
    memset(out, 0, sizeof out);
    MPI_Reduce(mine, out, 2, m4, op, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1) CHECK(3, memcmp(out, prefix[size - 1], sizeof m) == 0);
    MPI_Scan(mine, out, 2, m4, op, MPI_COMM_WORLD);
    CHECK(4, memcmp(out + 4, prefix[rank], sizeof m) == 0);
    /* MPI_Reduce_local: inout = in op inout, with the program's operation (the
     * order shows) and a predefined one. */
    int l[4], r[4], want[4];
    mat(1, l);
    mat(2, r);
    mul(l, r, want);
    MPI_Reduce_local(l, r, 1, m4, op);
    CHECK(6, memcmp(r, want, sizeof want) == 0);
    double da[2] = {1.5, -2.0}, db[2] = {2.0, 4.0};
    MPI_Reduce_local(da, db, 2, MPI_DOUBLE, MPI_MAX);
    CHECK(7, db[0] == 2.0 && db[1] == 4.0);
    MPI_Op_free(&op);
    CHECK(5, op == MPI_OP_NULL);
    MPI_Type_free(&m4);
    MPI_Finalize();
    return 0;
}
