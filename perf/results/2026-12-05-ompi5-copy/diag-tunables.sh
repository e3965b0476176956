set -e; sh contrib/deps.sh >/dev/null 2>&1; autoreconf -fi >/dev/null 2>&1; ./configure >/dev/null 2>&1; make -j2 >/dev/null 2>&1
/lib64/ld-linux-x86-64.so.2 --list-tunables | grep -i "non_temporal\|rep_movsb\|x86_shared\|data_cache"
P=$(ompi_info --path pkglibdir | sed 's/.*: *//'); C=$PWD/ompi/.libs
export PMIX_MCA_mca_base_component_show_load_errors=none
X="--mca mca_base_component_path $C:$P:/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix --mca coll_kbinomial_verify_trials 0 --mca btl ^tcp"
echo "== ours, default tunables"
mpirun --allow-run-as-root -np 2 --bind-to core $X perf/osu_style_bcast -M osu -m 65536:4194304 -c 2>&1 | grep -v "^#"
echo "== ours, non_temporal_threshold 64 MiB"
mpirun --allow-run-as-root -np 2 --bind-to core -x GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x4000000 $X perf/osu_style_bcast -M osu -m 65536:4194304 -c 2>&1 | grep -v "^#"
