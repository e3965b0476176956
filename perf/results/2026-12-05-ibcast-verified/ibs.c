#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc,char**argv){MPI_Init(&argc,&argv);int me;MPI_Comm_rank(MPI_COMM_WORLD,&me);
 int S=atoi(argv[1]), N=atoi(argv[2]); char*b=calloc(S,1); MPI_Request r;
 for(int i=0;i<1000;i++){MPI_Ibcast(b,S,MPI_BYTE,0,MPI_COMM_WORLD,&r);MPI_Wait(&r,MPI_STATUS_IGNORE);}
 MPI_Barrier(MPI_COMM_WORLD); double t=MPI_Wtime();
 double ts=0; for(int i=0;i<N;i++){double a=MPI_Wtime(); MPI_Ibcast(b,S,MPI_BYTE,0,MPI_COMM_WORLD,&r); ts+=MPI_Wtime()-a; MPI_Wait(&r,MPI_STATUS_IGNORE);} if(me<2)printf("rank %d start %.3f us\n",me,ts/N*1e6);
 t=MPI_Wtime()-t; double mx; MPI_Reduce(&t,&mx,1,MPI_DOUBLE,MPI_MAX,0,MPI_COMM_WORLD); if(!me)printf("%d %.3f us\n",S,mx/N*1e6); MPI_Finalize();}
