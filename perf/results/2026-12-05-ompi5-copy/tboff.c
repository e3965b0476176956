/* Build: mpicc -O2 -o tboff tboff.c (perf/results/2026-12-05-ompi5-copy/README.md, "Offsets") */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* tboff BYTES OFFSET ITERS: MPI_Bcast from a buffer at OFFSET bytes past a page; root writes new data each call */
int main(int argc,char**argv){
  MPI_Init(&argc,&argv);
  int r; MPI_Comm_rank(MPI_COMM_WORLD,&r);
  size_t n=atol(argv[1]); int off=atoi(argv[2]), it=atoi(argv[3]);
  char*b0; posix_memalign((void**)&b0,4096,n+8192); char*b=b0+off;
  double tot=0;
  for(int i=0;i<it+20;i++){
    if(r==0) memset(b,i,n);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0=MPI_Wtime(); MPI_Bcast(b,(int)n,MPI_CHAR,0,MPI_COMM_WORLD); double t1=MPI_Wtime();
    if(i>=20) tot+=t1-t0;
  }
  double m=tot/it*1e6, s; MPI_Reduce(&m,&s,1,MPI_DOUBLE,MPI_SUM,0,MPI_COMM_WORLD);
  if(r==0) printf("%zu off=%d mean %.2f us\n",n,off,s/2);
  MPI_Finalize();
}
