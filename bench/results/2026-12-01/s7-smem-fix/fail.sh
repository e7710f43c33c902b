export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers TILEJIT_LIB=.device/bin/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/fresh
echo "== fresh cache"; python3 .device/fail.py
echo "== after the GPU tests' merge_in_kernel cases into the same cache"
.device/bin/tilejit_gpu_tests --gtest_filter='*merge_in_kernel*' --gtest_brief=1 2>&1 | tail -2
python3 .device/fail.py
