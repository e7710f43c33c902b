#!/usr/bin/env bash
# Session 13, call 6: shared-memory counters of the same cell (32/8 x 64 x 4K, p1024 n64) in
# both layouts: bank conflicts of loads (ldmatrix) and stores, shared instructions, cp.async.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R/ncu && cd $R/ncu
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_ldsm.sum,smsp__inst_executed_op_ldgsts.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum
for L in standard shuffled; do
  KV_LAYOUT=$L CELLS=32/8:64:4096:1024:64 TILEJIT_CACHE_DIR=/tmp/c6n TILEJIT_LIB=$OLDPWD/$B/libtilejit_c.so LD_LIBRARY_PATH=$OLDPWD/$B PYTHONPATH=$OLDPWD/python:$OLDPWD/bench/peers \
    ncu --kernel-name regex:'^tj_paged_decode$' --metrics $M python3 $OLDPWD/bench/ncu_decode_cells.py > $L.txt 2>&1
  echo "== $L"; grep -E "l1tex__|smsp__|lts__|dram__" $L.txt
done
cd $OLDPWD; tar -C $OUT -czf $OUT/c6.tgz r && rm -rf $R
