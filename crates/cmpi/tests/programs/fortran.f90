! The Fortran bindings: a ring exchange, reductions (one on double complex numbers,
! one in place), a split, and MPI_WTIME. Each check that fails stops the program
! with its number.
program fortran
  implicit none
  include 'mpif.h'
  integer :: rank, size, ierr, left, right, got, req, sub, srank, ssize, total
  integer :: status(MPI_STATUS_SIZE), n
  double complex :: z, zsum
  double precision :: t0, t1, v(2)
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  t0 = mpi_wtime()
  call mpi_irecv(got, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, req, ierr)
  call mpi_send(rank, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  call mpi_wait(req, status, ierr)
  call mpi_get_count(status, MPI_INTEGER, n, ierr)
  if (got /= left .or. status(MPI_SOURCE) /= left .or. n /= 1) stop 1
  if (req /= MPI_REQUEST_NULL) stop 2
  t1 = mpi_wtime()
  if (size > 1 .and. t1 <= t0) stop 3
  z = dcmplx(dble(rank), 1.0d0)
  call mpi_allreduce(z, zsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (zsum /= dcmplx(dble(size * (size - 1) / 2), dble(size))) stop 4
  v = (/ dble(rank), 1.0d0 /)
  call mpi_allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (v(1) /= dble(size - 1) .or. v(2) /= 1.0d0) stop 5
  call mpi_comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call mpi_comm_rank(sub, srank, ierr)
  call mpi_comm_size(sub, ssize, ierr)
  if (srank /= rank / 2) stop 6
  call mpi_reduce(1, total, 1, MPI_INTEGER, MPI_SUM, 0, sub, ierr)
  if (srank == 0 .and. total /= ssize) stop 7
  call mpi_comm_free(sub, ierr)
  call mpi_finalize(ierr)
end program fortran
