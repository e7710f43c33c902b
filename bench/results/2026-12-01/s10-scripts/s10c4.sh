# s10 call 4: grid_order heads_first and merge_in_kernel at the low-bandwidth cells (params only)
# (staged with scripts/stage_for_device.sh at da3a653; run as OUT=$OUT bash .device/s10c4.sh)
export PYTHONPATH=python:bench/peers PEERS_DIR=.peers TILEJIT_LIB=.device/bin/libtilejit_c.so LD_LIBRARY_PATH=$PWD/.device/bin
export CELLS=32/8:1:1024,64/8:1:1024,32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096 PARTITIONS=128,512,2048 BLOCK_NS=64 MERGE_IN_KERNEL=0,1
for run in seqs1 heads seqs2; do mkdir -p $OUT/$run
  if [ $run = heads ]; then P='{"grid_order": "heads_first"}'; else P='{}'; fi
  OUT=$OUT/$run TILEJIT_CACHE_DIR=/tmp/c4 DECODE_PARAMS="$P" python3 bench/bench_decode.py > $OUT/$run/log.txt 2>&1
  grep -B1 -A8 "^read ceiling" $OUT/$run/log.txt | tail -8; done
cd $OUT && tar czf c4.tgz seqs1 heads seqs2 && rm -rf seqs1 heads seqs2
