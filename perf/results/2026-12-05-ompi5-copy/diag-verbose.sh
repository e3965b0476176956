set -e; sh contrib/deps.sh >/dev/null 2>&1; autoreconf -fi >/dev/null 2>&1; ./configure >/dev/null 2>&1; make -j2 >/dev/null 2>&1
ompi_info --version | head -1; df -h /dev/shm | tail -1
P=$(ompi_info --path pkglibdir | sed 's/.*: *//'); C=$PWD/ompi/.libs
export PMIX_MCA_mca_base_component_show_load_errors=none
X="--mca mca_base_component_path $C:$P:/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix"
mpirun --allow-run-as-root -np 2 --bind-to core $X --mca coll_kbinomial_verbose 1 perf/osu_style_bcast -M osu -m 65536:4194304 -c 2>&1 | grep -v "^#" | head -60
echo "== verify off"
mpirun --allow-run-as-root -np 2 --bind-to core $X --mca coll_kbinomial_verify_trials 0 perf/osu_style_bcast -M osu -m 65536:4194304 -c 2>&1 | grep -v "^#"
echo "== stock"
mpirun --allow-run-as-root -np 2 --bind-to core --mca coll ^kbinomial,pathmc perf/osu_style_bcast -M osu -m 65536:4194304 -c 2>&1 | grep -v "^#"
