/* cluster_mpi — the MPI implementation of the cluster layer (cluster.h),
 * compiled only into lbench-mpi.  The binary's main calls init before the
 * runtime exists and finish after it is gone. */
#ifndef LB_CLUSTER_MPI_H
#define LB_CLUSTER_MPI_H

/* MPI_Init_thread (funnelled: only the main thread calls MPI) and register
 * the MPI ops; 0, or -1 (MPI reports its own errors). */
int lb_cluster_mpi_init(int *argc, char ***argv);
/* End the job's MPI: MPI_Abort(status or 1) when lb_cluster_abort_requested
 * (a rank stopped answering: finalising would wait for it forever), else
 * MPI_Finalize. */
void lb_cluster_mpi_finish(int status);

#endif
