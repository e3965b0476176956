cd /root/repo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_mca_base_component_show_load_errors=none
P=$(pwd)/ompi/.libs
for np in 2 4; do for r in 1 2 3; do
  echo "== np=$np round=$r ours"
  mpirun -np $np --oversubscribe --bind-to none --mca btl self,sm --mca mca_base_component_path $P perf/osu_style_pbcast -m 1:1048576 -i 200 2>/dev/null | grep -v "^#"
  echo "== np=$np round=$r stock"
  mpirun -np $np --oversubscribe --bind-to none --mca btl self,sm --mca coll ^kbinomial,pathmc perf/osu_style_pbcast -m 1:1048576 -i 200 2>/dev/null | grep -v "^#"
done; done
