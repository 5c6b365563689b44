! simpi's `mpi` module for Fortran 90 programs (`use mpi`): the constants, handles
! and special addresses of mpif.h. The routines keep implicit interfaces, as with
! mpif.h (simpif90 passes -fallow-argument-mismatch). simpif90 compiles this file
! once per compiler version, into a cache, the first time a program needs it.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
