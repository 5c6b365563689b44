/* Cartesian topologies, attributes with copy and delete functions, and info objects.
 * Every value is checked against what MPI defines; exits with the failed check's
 * number. */
#include <mpi.h>
/* MPI_UNWEIGHTED is a small constant address (the MPI 5.0 ABI's): gcc takes it for an
 * empty array. */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdio.h>
#include <string.h>

#define CHECK(n, cond)                                                 \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "topo.c: check %d failed on rank %d\n", n, rank); \
            return n;                                                  \
        }                                                              \
    } while (0)

static int deleted = 0, self_deleted = 0, finalized_then = -1;

/* Run by MPI_Finalize, before it finalizes: it may ask MPI whether it did. */
static long delete_order[2];
static int on_self_delete(MPI_Comm c, int key, void *val, void *extra) {
    (void)c; (void)key; (void)extra;
    if (self_deleted < 2)
        delete_order[self_deleted] = (long)val;
    self_deleted++;
    MPI_Finalized(&finalized_then);
    return MPI_SUCCESS;
}

/* Both ask MPI about the communicator (allowed in attribute callbacks). */
static int count_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
    int size;
    (void)key; (void)extra;
    MPI_Comm_size(c, &size);
    *(long *)out = (long)in + 1;
    *flag = size > 0;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int key, void *val, void *extra) {
    int rank;
    (void)key; (void)val;
    MPI_Comm_rank(c, &rank);
    deleted += *(int *)extra;
    return rank >= 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* A 2-D grid, periodic in the second dimension. */
    int dims[2] = {0, 0}, periods[2] = {0, 1}, coords[2], r2;
    MPI_Dims_create(size, 2, dims);
    CHECK(1, dims[0] * dims[1] == size && dims[0] >= dims[1]);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    int status;
    MPI_Topo_test(grid, &status);
    CHECK(2, status == MPI_CART);
    MPI_Comm_rank(grid, &r2);
    MPI_Cart_coords(grid, r2, 2, coords);
    CHECK(3, coords[0] == r2 / dims[1] && coords[1] == r2 % dims[1]);
    int src, dst;
    MPI_Cart_shift(grid, 1, 1, &src, &dst);
    int want_dst = coords[0] * dims[1] + (coords[1] + 1) % dims[1];
    CHECK(4, dst == want_dst);
    MPI_Cart_shift(grid, 0, 1, &src, &dst);
    CHECK(5, (coords[0] == 0) == (src == MPI_PROC_NULL));
    /* A halo exchange along the periodic dimension. */
    int got = -1;
    MPI_Cart_shift(grid, 1, 1, &src, &dst);
    MPI_Sendrecv(&r2, 1, MPI_INT, dst, 0, &got, 1, MPI_INT, src, 0, grid, MPI_STATUS_IGNORE);
    CHECK(6, got == coords[0] * dims[1] + (coords[1] + dims[1] - 1) % dims[1]);
    /* Rows: the sum over a row is over its columns. */
    int keep[2] = {0, 1}, rowsum = 0, rsize;
    MPI_Comm row;
    MPI_Cart_sub(grid, keep, &row);
    MPI_Comm_size(row, &rsize);
    MPI_Allreduce(&r2, &rowsum, 1, MPI_INT, MPI_SUM, row);
    int first = coords[0] * dims[1];
    CHECK(7, rsize == dims[1] && rowsum == dims[1] * first + dims[1] * (dims[1] - 1) / 2);

    /* Attributes: the predefined tag bound; a copied and a counted keyval. */
    int *tagub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag);
    CHECK(8, flag && *tagub >= 32767);
    int key, weight = 10;
    MPI_Comm_create_keyval(count_copy, count_delete, &key, &weight);
    MPI_Comm_set_attr(grid, key, (void *)5L);
    MPI_Comm copy;
    MPI_Comm_dup(grid, &copy);
    long *v;
    MPI_Comm_get_attr(copy, key, &v, &flag);
    CHECK(9, flag && (long)v == 6);
    MPI_Topo_test(copy, &status);
    CHECK(10, status == MPI_CART);
    MPI_Comm_free(&copy);
    CHECK(11, deleted == 10);
    MPI_Comm_delete_attr(grid, key);
    MPI_Comm_get_attr(grid, key, &v, &flag);
    CHECK(12, !flag && deleted == 20);
    MPI_Comm_free_keyval(&key);
    CHECK(13, key == MPI_KEYVAL_INVALID);

    /* Info: ordered keys, replaced values, duplicates. */
    MPI_Info info, dup;
    char val[MPI_MAX_INFO_VAL + 1], k[MPI_MAX_INFO_KEY + 1];
    int n;
    MPI_Info_create(&info);
    MPI_Info_set(info, "b", "1");
    MPI_Info_set(info, "a", "2");
    MPI_Info_set(info, "b", "3");
    MPI_Info_get_nkeys(info, &n);
    MPI_Info_get_nthkey(info, 0, k);
    MPI_Info_get(info, "b", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(14, n == 2 && strcmp(k, "b") == 0 && flag && strcmp(val, "3") == 0);
    MPI_Info_dup(info, &dup);
    MPI_Info_delete(info, "b");
    MPI_Info_get(info, "b", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(15, !flag);
    MPI_Info_get(dup, "b", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(16, flag);
    MPI_Info_free(&info);
    MPI_Info_free(&dup);
    CHECK(17, info == MPI_INFO_NULL);

    /* Balanced dimensions: 72 nodes in two dimensions are 9 x 8. */
    int d2[2] = {0, 0};
    MPI_Dims_create(72, 2, d2);
    CHECK(18, d2[0] == 9 && d2[1] == 8);
    /* Cart_map keeps the ranks that fit the grid, in order. */
    int one_dim[1] = {1}, nper[1] = {0}, mapped;
    MPI_Cart_map(MPI_COMM_WORLD, 1, one_dim, nper, &mapped);
    CHECK(19, mapped == (rank == 0 ? 0 : MPI_UNDEFINED));
    /* A ring as a distributed graph, each rank giving the edge into its right
     * neighbor's from itself: each learns its in- and out-neighbor. */
    int me_src[1] = {rank}, deg[1] = {1}, right_nb[1] = {(rank + 1) % size};
    MPI_Comm ring;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me_src, deg, right_nb, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
    int indeg, outdeg, weighted, in_nb = -1, out_nb = -1;
    MPI_Dist_graph_neighbors_count(ring, &indeg, &outdeg, &weighted);
    CHECK(20, indeg == 1 && outdeg == 1 && !weighted);
    MPI_Dist_graph_neighbors(ring, 1, &in_nb, MPI_UNWEIGHTED, 1, &out_nb, MPI_UNWEIGHTED);
    CHECK(21, in_nb == (rank + size - 1) % size && out_nb == (rank + 1) % size);
    MPI_Comm_free(&ring);
    /* Attributes on a datatype: copied by MPI_Type_dup, deleted by MPI_Type_free. */
    int tkey, tflag;
    void *tval;
    MPI_Datatype t1, t2;
    MPI_Type_contiguous(2, MPI_INT, &t1);
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &tkey, NULL);
    MPI_Type_set_attr(t1, tkey, (void *)(long)33);
    MPI_Type_dup(t1, &t2);
    MPI_Type_get_attr(t2, tkey, &tval, &tflag);
    CHECK(22, tflag && (long)tval == 33);
    MPI_Type_delete_attr(t1, tkey);
    MPI_Type_get_attr(t1, tkey, &tval, &tflag);
    CHECK(23, !tflag);
    MPI_Type_free(&t1);
    MPI_Type_free(&t2);
    MPI_Type_free_keyval(&tkey);

    /* The null communicator has a name; a hardware-guided split without the info
     * that names the level gives no communicator. */
    char cname[MPI_MAX_OBJECT_NAME];
    int clen;
    MPI_Comm_get_name(MPI_COMM_NULL, cname, &clen);
    CHECK(24, strcmp(cname, "MPI_COMM_NULL") == 0);
    MPI_Comm hw;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &hw);
    CHECK(25, hw == MPI_COMM_NULL);
    MPI_Info other;
    MPI_Info_create(&other);
    MPI_Info_set(other, "some_key", "x");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, other, &hw);
    CHECK(26, hw == MPI_COMM_NULL);
    MPI_Info_free(&other);

    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    /* MPI_COMM_SELF's attributes go at MPI_Finalize, the last set first (not in
     * the order of their keys). */
    int selfkey, selfkey2;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_self_delete, &selfkey, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_self_delete, &selfkey2, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, selfkey, (void *)1L);
    MPI_Comm_set_attr(MPI_COMM_SELF, selfkey2, (void *)2L);
    MPI_Finalize();
    if (delete_order[0] != 2 || delete_order[1] != 1)
        return 31;
    return self_deleted == 2 && finalized_then == 0 ? 0 : 30;
}
