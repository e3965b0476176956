/* pg MODE USLEEP: the first 2000-byte write to each of 8 slots (32 KiB apart) of a
 * MAP_SHARED tmpfs mapping, us per write, then three passes after sleeping USLEEP us.
 * MODE 0: nothing before; 1: MAP_POPULATE; 2: madvise(MADV_POPULATE_WRITE); 3: memset of
 * the region; 4: an atomic add of 0 per page (its time printed); 5: 2 then 4.
 * Build: cc -O2 -o pg pg.c */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); size_t S=8, C=32768, B=S*C+8192;
  int fd=shm_open("/pgtest",O_CREAT|O_RDWR,0600); shm_unlink("/pgtest");
  ftruncate(fd,B); posix_fallocate(fd,0,B);
  char*p=mmap(NULL,B,PROT_READ|PROT_WRITE,MAP_SHARED|(mode==1?MAP_POPULATE:0),fd,0);
  if(mode==2) printf("madvise %d\n", madvise(p,B,MADV_POPULATE_WRITE));
  if(mode==3) memset(p,0,B);
  if(mode==4||mode==5){ if(mode==5) madvise(p,B,MADV_POPULATE_WRITE); double t0=now(); for(size_t o=0;o<B;o+=4096) __atomic_fetch_add(p+o,0,__ATOMIC_RELAXED); printf("touch %.1f us\n",now()-t0);}
  char src[2000]; memset(src,1,sizeof src);
  for(int k=0;k<12;k++){ double t0=now(); memcpy(p+8192+(k%S)*C,src,2000); double t1=now(); printf(" %.2f",t1-t0);} printf("\n");
  for(int rep=0;rep<3;rep++){ usleep(atoi(argv[2])); for(int k=0;k<8;k++){ double t0=now(); memcpy(p+8192+(k%S)*C,src,2000); double t1=now(); printf(" %.2f",t1-t0);} printf("  (after sleep)\n");}
}
