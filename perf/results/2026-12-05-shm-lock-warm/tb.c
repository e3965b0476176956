/* tb BYTES ITERS: MPI_Bcast of BYTES chars from rank 0 with an MPI_Barrier between the
 * calls (as osu_bcast), 3 runs of ITERS calls after 1000 untimed: each run prints rank
 * 0's and rank 1's mean time per call and their mean (OSU's value), and the same for the
 * barriers.  2 ranks.  Build: mpicc -O2 -o tb tb.c */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc,char**argv){
  MPI_Init(&argc,&argv);
  int r; MPI_Comm_rank(MPI_COMM_WORLD,&r);
  int n=atoi(argv[1]), it=atoi(argv[2]);
  char*b=malloc(n+1);
  for(int rep=0;rep<3;rep++){
  double tb=0,tt=0;
  for(int i=0;i<it+1000;i++){
    double t0=MPI_Wtime();
    MPI_Bcast(b,n,MPI_CHAR,0,MPI_COMM_WORLD);
    double t1=MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    double t2=MPI_Wtime();
    if(i>=1000){tb+=t1-t0;tt+=t2-t1;}
  }
  double a[2]={tb/it*1e6,tt/it*1e6},s[2];
  MPI_Reduce(a,s,2,MPI_DOUBLE,MPI_SUM,0,MPI_COMM_WORLD);
  double mine=a[0];
  double o[2]; 
  if(r==1) MPI_Send(a,2,MPI_DOUBLE,0,0,MPI_COMM_WORLD);
  if(r==0){MPI_Recv(o,2,MPI_DOUBLE,1,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);
    printf("bytes %d bcast root %.3f r1 %.3f mean %.3f | barrier root %.3f r1 %.3f\n",n,mine,o[0],(mine+o[0])/2,a[1],o[1]);}
  }
  MPI_Finalize();
}
