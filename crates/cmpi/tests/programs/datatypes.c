/* Derived datatypes through messages and collectives, MPI_Pack/MPI_Unpack, and the
 * v-collectives. Every value is checked against what MPI defines; a wrong one exits
 * with the check's number. Needs at least 2 ranks. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(n, cond)                                                      \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "datatypes.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                       \
        }                                                                   \
    } while (0)

struct particle {
    int id;
    double x[3];
    char tag;
};

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(1, size >= 2);

    /* A column of a 4x4 row-major matrix: 4 blocks of 1 double, 4 apart. */
    MPI_Datatype col;
    MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    int tsize;
    MPI_Aint lb, ext;
    MPI_Type_size(col, &tsize);
    MPI_Type_get_extent(col, &lb, &ext);
    CHECK(2, tsize == 32 && lb == 0 && ext == 13 * 8);
    double m[16];
    for (int i = 0; i < 16; i++) m[i] = rank == 0 ? i : -1;
    MPI_Status st;
    if (rank == 0) {
        /* Column 1 goes out; it arrives as 4 contiguous doubles. */
        MPI_Send(&m[1], 1, col, 1, 0, MPI_COMM_WORLD);
        /* And a contiguous row arrives into column 2 of rank 1's matrix. */
        MPI_Send(&m[4], 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        double c[4];
        int n;
        MPI_Recv(c, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        CHECK(3, n == 4 && c[0] == 1 && c[1] == 5 && c[2] == 9 && c[3] == 13);
        MPI_Recv(&m[2], 1, col, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, col, &n);
        CHECK(4, n == 1 && m[2] == 4 && m[6] == 5 && m[10] == 6 && m[14] == 7 && m[3] == -1);
    }

    /* A struct with holes: id, x[3] and tag, resized to the C struct's extent. */
    struct particle p[2];
    int lens[3] = {1, 3, 1};
    MPI_Aint disp[3] = {offsetof(struct particle, id), offsetof(struct particle, x),
                        offsetof(struct particle, tag)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, raw, part;
    MPI_Type_create_struct(3, lens, disp, types, &raw);
    MPI_Type_create_resized(raw, 0, sizeof(struct particle), &part);
    MPI_Type_commit(&part);
    MPI_Type_size(part, &tsize);
    CHECK(5, tsize == 4 + 24 + 1);
    if (rank == 0) {
        for (int i = 0; i < 2; i++) {
            p[i].id = 10 + i;
            p[i].tag = 'a' + i;
            for (int k = 0; k < 3; k++) p[i].x[k] = i * 3 + k + 0.5;
        }
    }
    MPI_Bcast(p, 2, part, 0, MPI_COMM_WORLD);
    CHECK(6, p[1].id == 11 && p[1].tag == 'b' && p[1].x[2] == 5.5 && p[0].x[0] == 0.5);

    /* Indexed: blocks of 2 and 1 ints at 0 and 5; reduced element-wise. */
    int il[2] = {2, 1}, id[2] = {0, 5}, v[6], s[6];
    MPI_Datatype idx;
    MPI_Type_indexed(2, il, id, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    for (int i = 0; i < 6; i++) { v[i] = rank + 1; s[i] = -7; }
    MPI_Allreduce(v, s, 1, idx, MPI_SUM, MPI_COMM_WORLD);
    int tri = size * (size + 1) / 2;
    CHECK(7, s[0] == tri && s[1] == tri && s[5] == tri && s[2] == -7 && s[4] == -7);

    /* A 2x2 subarray at (1,1) of a 3x4 C array is 4 ints of it. */
    int sizes[2] = {3, 4}, subs[2] = {2, 2}, starts[2] = {1, 1}, a[12], packed[4];
    MPI_Datatype sub;
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    for (int i = 0; i < 12; i++) a[i] = i;
    int pos = 0, psize;
    MPI_Pack_size(1, sub, MPI_COMM_WORLD, &psize);
    MPI_Pack(a, 1, sub, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    CHECK(8, psize == 16 && pos == 16 && packed[0] == 5 && packed[1] == 6 && packed[2] == 9 &&
                 packed[3] == 10);
    int back[12] = {0};
    pos = 0;
    MPI_Unpack(packed, sizeof packed, &pos, back, 1, sub, MPI_COMM_WORLD);
    CHECK(9, back[5] == 5 && back[10] == 10 && back[4] == 0 && pos == 16);

    /* Gatherv: rank r sends r+1 ints of value r; the root lays them out with a gap
     * of one int between blocks. */
    int mine[64], all[256], counts[64], displs[64], at = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r + 1;
        displs[r] = at;
        at += r + 2;
    }
    for (int i = 0; i <= rank; i++) mine[i] = rank;
    for (int i = 0; i < at; i++) all[i] = -1;
    MPI_Gatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < counts[r]; i++) CHECK(10, all[displs[r] + i] == r);
            CHECK(11, all[displs[r] + counts[r]] == -1);
        }
    }
    /* Allgatherv: the same layout on every rank. */
    for (int i = 0; i < at; i++) all[i] = -1;
    MPI_Allgatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    CHECK(12, all[displs[size - 1]] == size - 1 && all[displs[1] + 1] == 1 && all[1] == -1);
    /* Scatterv back: rank r gets its block. */
    int got[64] = {0};
    MPI_Scatterv(all, counts, displs, MPI_INT, got, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(13, got[0] == rank && got[rank] == rank);
    /* Reduce_scatter: rank r gets r+1 sums; element i of the vector is i everywhere. */
    int vec[512], res[64], total = 0;
    for (int r = 0; r < size; r++) total += r + 1;
    for (int i = 0; i < total; i++) vec[i] = i;
    MPI_Reduce_scatter(vec, res, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int first = rank * (rank + 1) / 2;
    CHECK(14, res[0] == first * size && res[rank] == (first + rank) * size);

    /* Alltoallw: rank r sends r * 10 + d to rank d; each arrives at a byte
     * displacement of 8 per source, leaving a gap after it. */
    int wsend[64], wrecv[128], wsc[64], wrc[64], wsd[64], wrd[64];
    MPI_Datatype wst[64], wrt[64];
    for (int d = 0; d < size; d++) {
        wsend[d] = rank * 10 + d;
        wsc[d] = 1;
        wrc[d] = 1;
        wsd[d] = d * (int)sizeof(int);
        wrd[d] = 2 * d * (int)sizeof(int);
        wst[d] = MPI_INT;
        wrt[d] = MPI_INT;
    }
    for (int k = 0; k < 2 * size; k++) wrecv[k] = -1;
    MPI_Alltoallw(wsend, wsc, wsd, wst, wrecv, wrc, wrd, wrt, MPI_COMM_WORLD);
    for (int s2 = 0; s2 < size; s2++) CHECK(18, wrecv[2 * s2] == s2 * 10 + rank && wrecv[2 * s2 + 1] == -1);

    char tname[MPI_MAX_OBJECT_NAME];
    int tlen;
    MPI_Type_get_name(MPI_DOUBLE, tname, &tlen);
    CHECK(19, strcmp(tname, "MPI_DOUBLE") == 0 && tlen == 10);
    MPI_Type_set_name(col, "column");
    MPI_Type_get_name(col, tname, &tlen);
    CHECK(20, strcmp(tname, "column") == 0);

    int ni, na, nd, comb;
    MPI_Type_get_envelope(col, &ni, &na, &nd, &comb);
    CHECK(16, comb == MPI_COMBINER_VECTOR);
    MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
    CHECK(17, comb == MPI_COMBINER_NAMED && ni == 0);
    double *mem;
    MPI_Alloc_mem(64 * sizeof(double), MPI_INFO_NULL, &mem);
    mem[63] = 1.0;
    MPI_Free_mem(mem);

    MPI_Type_free(&col);
    MPI_Type_free(&raw);
    MPI_Type_free(&part);
    MPI_Type_free(&idx);
    MPI_Type_free(&sub);
    CHECK(15, sub == MPI_DATATYPE_NULL);

    /* The large-count forms: counts that fit an int work as the int forms; a larger
     * one is refused with MPI_ERR_COUNT, not truncated. */
    MPI_Count big;
    MPI_Type_size_c(MPI_DOUBLE, &big);
    CHECK(18, big == 8);
    if (rank < 2) {
        long long w[5] = {1, 2, 3, 4, 5}, r[8];
        MPI_Status st;
        if (rank == 0)
            MPI_Send_c(w, 5, MPI_LONG_LONG, 1, 9, MPI_COMM_WORLD);
        else {
            MPI_Recv_c(r, 8, MPI_LONG_LONG, 0, 9, MPI_COMM_WORLD, &st);
            MPI_Get_count_c(&st, MPI_LONG_LONG, &big);
            CHECK(19, big == 5 && r[4] == 5);
        }
    }
    /* Alltoallv with MPI_Count counts and MPI_Aint displacements: one int each. */
    int *ta = malloc(size * sizeof(int)), *tb = malloc(size * sizeof(int));
    MPI_Count *tc = malloc(size * sizeof(MPI_Count));
    MPI_Aint *td = malloc(size * sizeof(MPI_Aint));
    for (int r = 0; r < size; r++) {
        ta[r] = 100 * rank + r;
        tb[r] = -1;
        tc[r] = 1;
        td[r] = r;
    }
    MPI_Alltoallv_c(ta, tc, td, MPI_INT, tb, tc, td, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        CHECK(21, tb[r] == 100 * r + rank);
    free(ta);
    free(tb);
    free(tc);
    free(td);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Send_c(m, (MPI_Count)1 << 31, MPI_INT, rank, 0, MPI_COMM_WORLD), cls;
    MPI_Error_class(err, &cls);
    CHECK(20, cls == MPI_ERR_COUNT);
    MPI_Finalize();
    return 0;
}
