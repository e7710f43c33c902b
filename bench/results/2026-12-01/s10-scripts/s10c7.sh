# s10 call 7: where one program per SM waits, prefetch depth 1 against 2 (Nsight Compute)
export PYTHONPATH=$PWD/python:$PWD/bench/peers PEERS_DIR=$PWD/.peers TILEJIT_LIB=$PWD/.device/bin/libtilejit_c.so LD_LIBRARY_PATH=$PWD/.device/bin TILEJIT_CACHE_DIR=/tmp/c7
mkdir -p $OUT/ncu && cd $OUT/ncu
CELLS=32/8:16:1024:1024:64:1,32/8:16:1024:1024:64:2 ncu --kernel-name regex:'^tj_paged_decode$' --section WarpStateStats --section SourceCounters --section SpeedOfLight \
  -o prof python3 $OLDPWD/bench/ncu_decode_cells.py > ncu_log.txt 2>&1; tail -3 ncu_log.txt
ncu -i prof.ncu-rep --page source --csv --print-source sass > sass.csv 2>/dev/null
ncu -i prof.ncu-rep > details.txt 2>&1
python3 $OLDPWD/bench/ncu_stalls.py sass.csv > stalls.txt 2>&1; python3 $OLDPWD/bench/ncu_stalls.py sass.csv 0 30 > stalls0.txt 2>&1; python3 $OLDPWD/bench/ncu_stalls.py sass.csv 1 30 > stalls1.txt 2>&1
cat stalls.txt; gzip -f sass.csv; rm -f prof.ncu-rep
