! The `mpi` module: constants and special addresses through `use mpi`. Each rank
! sums the ranks with MPI_IN_PLACE and sends its rank to the next with a status
! ignored. Exits with status 1 on a wrong value.
program uses_mpi
  use mpi
  implicit none
  integer :: ierr, rank, size, total, got, right, left
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, size, ierr)
  total = rank
  call mpi_allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= size * (size - 1) / 2) stop 1
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  call mpi_sendrecv(rank, 1, MPI_INTEGER, right, 5, got, 1, MPI_INTEGER, left, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (got /= left) stop 1
  if (mpi_wtime() < 0.0d0) stop 1
  call mpi_finalize(ierr)
end program uses_mpi
