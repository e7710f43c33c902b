# Staged as c1, plus .device/{main,swz}.cubin: paged_decode sm_90 gqa 8, block_n 64, partition
# 1024 (tilejit compile --emit binary) of each build, disassembled there.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers
R=$OUT/c2; mkdir -p $R
which cuobjdump nvdisasm > $R/which.txt 2>&1; ls /usr/local/cuda*/bin >> $R/which.txt 2>&1
for b in main swz; do (cuobjdump -sass .device/$b.cubin || nvdisasm -c .device/$b.cubin) > $R/$b.sass 2>&1; done
C=32/8:1:1024,32/8:1:4096,64/8:1:1024,32/8:16:1024,64/8:16:4096,32/8:16:16384,64/8:64:16384
run() { name=$1 d=$2 params=$3; echo "=== $name $(date +%T)"; mkdir -p $R/$name
  OUT=$R/$name TILEJIT_LIB=.device/$d/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c2-$name CELLS=$C PARTITIONS=128,256,1024 BLOCK_NS=32,64 \
  DECODE_PARAMS="$params" timeout 110 python3 bench/bench_decode.py > $R/$name/log.txt 2>&1; tail -2 $R/$name/log.txt; }
run main bin '{}'
run swz5 swz '{}'
run swz0 swz '{"min_blocks_per_sm": 0}'
run swz2 swz '{"min_blocks_per_sm": 2}'
run main0 bin '{"min_blocks_per_sm": 0}'
echo "=== done $(date +%T)"
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
