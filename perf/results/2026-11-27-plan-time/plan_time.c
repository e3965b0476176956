/* Times mcast_plan_select on a topology file: every host one rank, default machine and
 * forced parameters, sizes 8 B - 1 MiB, without and with the topology.  Build and run:
 * see README.md next to this file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mcast_planner.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  FILE*f=fopen(argv[1],"r"); fseek(f,0,SEEK_END); long L=ftell(f); rewind(f); char*buf=malloc(L+1); fread(buf,1,L,f); buf[L]=0;
  pm_topology_t*topo=NULL; char err[256];
  if(pm_topology_parse_string(buf,PM_FMT_AUTO,argv[1],&topo,err,sizeof err)!=PM_OK){printf("parse: %s\n",err);return 1;}
  int n=pm_topology_nhosts(topo); const char**hosts=malloc(sizeof(char*)*n); for(int i=0;i<n;i++)hosts[i]=pm_topology_host_name(topo,i);
  mcast_machine_t m; mcast_machine_default(&m); mcast_forced_t fo; mcast_forced_default(&fo);
  size_t sizes[]={8,4096,65536,1048576};
  for(int s=0;s<4;s++){ for(int topo_on=0;topo_on<2;topo_on++){
    mcast_plan_input_t in; memset(&in,0,sizeof in); in.component=MCAST_COMP_KBINOMIAL; in.n=n; in.root=0; in.bytes=sizes[s]; in.nnodes=n; in.machine=&m; in.forced=&fo;
    if(topo_on){in.topology=topo; in.hosts=hosts;}
    double t0=now(); mcast_plan_t*p=NULL; int rc=mcast_plan_select(&in,&p,err,sizeof err); double t1=now();
    mcast_plan_info_t info; mcast_plan_get_info(p,&info);
    printf("n=%d M=%zu topo=%d rc=%d %s %.1f ms\n",n,sizes[s],topo_on,rc,info.name,1e3*(t1-t0)); mcast_plan_free(p);}}
  return 0;}
