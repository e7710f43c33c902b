// Event time of one empty launch against its parameter size and cluster shape (H200), timed
// as bench/peers/common.py times an op: a 200-us spin kernel first so the host is ahead, then
// start event, the launch, end event; median of 300.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>
template <int B> struct P { unsigned char b[B]; };
template <int B> __global__ void empty(P<B> p) { if (p.b[0] == 123 && threadIdx.x == 999) printf("x"); }
template <int B> __global__ void __cluster_dims__(1, 1, 2) emptyC(P<B> p) { if (p.b[0] == 123 && threadIdx.x == 999) printf("x"); }
__global__ void spin(long long ns) { long long t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0)); long long t; do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns); }
template <typename F> float timeIt(F launch) {
  cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
  std::vector<float> v;
  for (int i = 0; i < 320; ++i) {
    spin<<<1, 1>>>(200000);
    cudaEventRecord(s); launch(); cudaEventRecord(e); cudaEventSynchronize(e);
    float ms; cudaEventElapsedTime(&ms, s, e); if (i >= 20) v.push_back(ms * 1000.f);
  }
  std::sort(v.begin(), v.end()); return v[v.size() / 2];
}
int main() {
  dim3 grid(8, 16, 2), block(128);
  P<16> p16{}; P<544> p544{}; P<2048> p2k{};
  printf("empty 256 programs, 16 B params:   %.2f us\n", timeIt([&] { empty<16><<<grid, block>>>(p16); }));
  printf("empty 256 programs, 544 B params:  %.2f us\n", timeIt([&] { empty<544><<<grid, block>>>(p544); }));
  printf("empty 256 programs, 2048 B params: %.2f us\n", timeIt([&] { empty<2048><<<grid, block>>>(p2k); }));
  printf("cluster 2, 16 B params:            %.2f us\n", timeIt([&] { emptyC<16><<<grid, block>>>(p16); }));
  printf("cluster 2, 544 B params:           %.2f us\n", timeIt([&] { emptyC<544><<<grid, block>>>(p544); }));
  cudaFuncSetAttribute(emptyC<544>, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000);
  printf("cluster 2, 544 B, 70 KB dyn smem:  %.2f us\n", timeIt([&] { emptyC<544><<<grid, block, 70000>>>(p544); }));
  printf("1 program, 16 B params:            %.2f us\n", timeIt([&] { empty<16><<<1, 32>>>(p16); }));
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
