// The elementwise operations the GPU device libraries define over their tiles, as one table:
// a library defines TJ_BINARY(name, expr), TJ_UNARY(name, expr) or TJ_COMPARE(name, expr)
// (p, q: the operands' elements) and includes this file where that macro is defined, once per
// macro. No include guard, on purpose.
#ifdef TJ_BINARY
TJ_BINARY(add, p + q)
TJ_BINARY(sub, p - q)
TJ_BINARY(mul, p * q)
TJ_BINARY(div, p / q)
TJ_BINARY(rem, detail::remImpl(p, q))
TJ_BINARY(maxsi, p > q ? p : q)
TJ_BINARY(minsi, p < q ? p : q)
TJ_BINARY(maxnumf, detail::maxnumImpl(p, q))
TJ_BINARY(minnumf, detail::minnumImpl(p, q))
TJ_BINARY(maximumf, detail::maximumImpl(p, q))
TJ_BINARY(minimumf, detail::minimumImpl(p, q))
TJ_BINARY(logical_and, p & q)
TJ_BINARY(logical_or, p | q)
TJ_BINARY(logical_xor, p ^ q)
TJ_BINARY(floordiv, (p % q != 0 && ((p < 0) != (q < 0))) ? p / q - 1 : p / q)
TJ_BINARY(ceildiv, (p % q != 0 && ((p < 0) == (q < 0))) ? p / q + 1 : p / q)
#endif
#ifdef TJ_UNARY
TJ_UNARY(neg, -p)
TJ_UNARY(exp, detail::expImpl(p))
TJ_UNARY(exp2, detail::exp2Impl(p))
TJ_UNARY(log, detail::logImpl(p))
TJ_UNARY(log2, detail::log2Impl(p))
TJ_UNARY(sqrt, detail::sqrtImpl(p))
TJ_UNARY(rsqrt, detail::rsqrtImpl(p))
TJ_UNARY(tanh, detail::tanhImpl(p))
TJ_UNARY(abs, detail::absImpl(p))
#endif
#ifdef TJ_COMPARE
TJ_COMPARE(cmp_eq, p == q)
TJ_COMPARE(cmp_ne, p != q)
TJ_COMPARE(cmp_lt, p < q)
TJ_COMPARE(cmp_le, p <= q)
TJ_COMPARE(cmp_gt, p > q)
TJ_COMPARE(cmp_ge, p >= q)
TJ_COMPARE(cmp_uno, p != p || q != q)
#endif
