// Calls the library functions the shipped templates do not (f32 dot, fp8 casts, f64 scalars,
// tanh, rem, range, reductions along axis 0, arrive, prefetch, num_programs), so that every
// one is instantiated and compiled for each AMD target (library_api.mlir).
#define TJ_THREADS 128
#include "tj/device.h"
struct A { tj::View<float, 2> f; tj::View<int32_t, 1> c; tj::View<tj::f8e4m3, 1> q; tj::View<double, 1> d; };
TJ_KERNEL_ENTRY(api, A) {
  const int64_t n = tj::num_programs<0>() + tj::num_programs<1>() + tj::num_programs<2>();
  tj::Tile<float, 32, 16> x = tj::load<32, 16>(args.f, tj::Index<2>{0, 0}, tj::Index<2>{args.f.shape[0], args.f.shape[1]}, 0.0f);
  tj::Tile<float, 32, 16> t = tj::tanh(x);
  t = tj::rem(t, tj::splat<tj::Tile<float, 32, 16>>(1.5f));
  t = tj::add(t, tj::rsqrt(tj::abs(x)));
  t = tj::add(t, tj::log2(tj::sqrt(tj::abs(x))));
  tj::Tile<float, 16> m = tj::reduce_min<0>(t);
  tj::Tile<float, 32> s = tj::reduce_sum<1>(t);
  tj::Tile<int32_t, 32> r = tj::range<int32_t, 32>(3);
  tj::Tile<int32_t, 32, 16> ra = tj::range_along<0, tj::Tile<int32_t, 32, 16>>(int32_t(1));
  tj::Tile<int32_t, 16> rs = tj::reduce_max<0>(ra);
  tj::Tile<float, 32, 32> acc = tj::full<float, 32, 32>(0.0f);
  tj::Tile<float, 32, 32> prod = tj::dot<true>(x, x, acc);
  tj::Tile<tj::f8e4m3, 32, 16> q8 = tj::cast<tj::f8e4m3>(x);
  tj::Tile<float, 32, 16> back = tj::cast<float>(q8);
  tj::Tile<bool, 32, 16> u = tj::cmp_uno(back, x);
  tj::Tile<float, 32, 16> sel = tj::select(u, x, back);
  tj::Tile<int32_t, 32> fd = tj::floordiv(r, tj::full<int32_t, 32>(-3));
  fd = tj::ceildiv(fd, tj::full<int32_t, 32>(2));
  tj::Tile<float, 1, 16> m2 = tj::expand_dims<0>(m);
  tj::Tile<float, 32, 16> mb = tj::broadcast<32, 16>(m2);
  tj::Tile<float, 512> flat = tj::reshape<512>(tj::add(sel, mb));
  const float total = tj::reduce_sum<0>(flat) + tj::reduce_sum<0>(s) + float(tj::reduce_sum<0>(fd)) + float(tj::reduce_min<0>(rs));
  tj::store(args.f, tj::Index<2>{0, 0}, tj::Index<2>{32, 32}, prod);
  tj::store_scalar(args.c, tj::Index<1>{0}, int32_t(total) + int32_t(n));
  tj::prefetch(args.c, tj::Index<1>{0}, 64);
  const bool last = tj::arrive(args.c, tj::Index<1>{1}, 4);
  if (last) tj::store(args.q, tj::Index<1>{0}, tj::Index<1>{args.q.shape[0]}, tj::reshape<512>(q8));
  const double dd = tj::load_scalar(args.d, tj::Index<1>{0});
  tj::store_scalar(args.d, tj::Index<1>{1}, tj::sqrt(dd) + tj::maximumf(dd, 1.0) + tj::cast<double>(tj::cast<tj::bf16>(dd)));
  tj::wait_previous_kernel();
  tj::start_next_kernel();
}
