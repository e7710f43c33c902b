// Status plumbing shared by every layer. Errors cross API boundaries as absl::Status; these
// macros keep the early-return style readable.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include <string_view>

namespace tilejit {
// Debian's Abseil is built with its own string_view: absl::StrCat and friends do not take
// std::string_view, so views cross over through this.
inline absl::string_view asAbsl(std::string_view text) { return {text.data(), text.size()}; }
}  // namespace tilejit

#define TJ_STATUS_CONCAT_INNER(a, b) a##b
#define TJ_STATUS_CONCAT(a, b) TJ_STATUS_CONCAT_INNER(a, b)

#define TJ_RETURN_IF_ERROR(expr)                    \
  do {                                              \
    ::absl::Status tj_status_ = (expr);             \
    if (!tj_status_.ok()) return tj_status_;        \
  } while (0)

#define TJ_ASSIGN_OR_RETURN(lhs, expr) \
  TJ_ASSIGN_OR_RETURN_IMPL(TJ_STATUS_CONCAT(tj_statusor_, __LINE__), lhs, expr)

#define TJ_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
