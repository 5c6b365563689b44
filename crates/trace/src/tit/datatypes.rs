//! SimGrid's datatype ids and their sizes in bytes (x86_64), as its tracer writes them.

/// Size in bytes of datatype `id` (SimGrid 3.32's encoding; -1 is a derived type, which
/// SimGrid records as 0 bytes).
pub fn datatype_size(id: i64) -> Option<u64> {
    const SIZES: [u64; 60] = [
        8, 4, 1, 2, 8, 4, 1, 8, 1,
        1, // 0-9: double int char short long float byte long_long signed_char unsigned_char
        2, 4, 8, 8, 16, 4, 1, 1, 2,
        4, // 10-19: unsigned_short unsigned unsigned_long unsigned_long_long long_double wchar c_bool int8 int16 int32
        8, 1, 2, 4, 8, 8, 16, 32, 8,
        8, // 20-29: int64 uint8 uint16 uint32 uint64 c_float_complex c_double_complex c_long_double_complex aint offset
        8, 16, 16, 8, 8, 8, 16, 16, 4,
        4, // 30-39: float_int long_int double_int short_int 2int 2float 2double 2long real real4
        8, 16, 8, 16, 16, 4, 2, 4, 8,
        16, // 40-49: real8 real16 complex8 complex16 complex32 integer1 integer2 integer4 integer8 integer16
        32, 1, 8, 16, 32, 0, 0, 1, 8,
        8, // 50-59: long_double_int cxx_bool cxx_float_complex cxx_double_complex cxx_long_double_complex ub lb packed ptr count
    ];
    match id {
        -1 => Some(0),
        0..=59 => Some(SIZES[id as usize]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_types() {
        assert_eq!(datatype_size(0), Some(8)); // MPI_DOUBLE
        assert_eq!(datatype_size(1), Some(4)); // MPI_INT
        assert_eq!(datatype_size(6), Some(1)); // MPI_BYTE
        assert_eq!(datatype_size(-1), Some(0)); // derived
        assert_eq!(datatype_size(60), None);
    }
}
