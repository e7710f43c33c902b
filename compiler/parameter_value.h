// A template parameter's value as a caller gives it: text (parsed by the parameter's kind when
// the template is specialized), an integer, a string or a type name. Typed values are bound
// without a text round trip; every value has one text form, the one cache keys hash, so a
// value given as 128 and one given as "128" make the same key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <utility>

namespace tilejit {

class ParameterValue {
 public:
  enum class Kind { kText, kInteger, kString, kType };

  ParameterValue() = default;
  ParameterValue(std::string text) : text_(std::move(text)) {}
  ParameterValue(const char* text) : text_(text) {}
  template <typename Integer, std::enable_if_t<std::is_integral_v<Integer>, int> = 0>
  ParameterValue(Integer value)
      : kind_(Kind::kInteger), integer_(int64_t(value)), text_(std::to_string(int64_t(value))) {}

  static ParameterValue string(std::string value) { return {Kind::kString, std::move(value)}; }
  static ParameterValue typeName(std::string name) { return {Kind::kType, std::move(name)}; }

  Kind kind() const { return kind_; }
  bool isInteger() const { return kind_ == Kind::kInteger; }
  int64_t integer() const { return integer_; }  // 0 unless isInteger()
  const std::string& text() const { return text_; }

  // By text form, as cache keys compare them.
  friend bool operator==(const ParameterValue& a, const ParameterValue& b) {
    return a.text_ == b.text_;
  }
  friend bool operator!=(const ParameterValue& a, const ParameterValue& b) { return !(a == b); }

 private:
  ParameterValue(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}
  Kind kind_ = Kind::kText;
  int64_t integer_ = 0;
  std::string text_;
};

// Parameter values by name, as kernel specs and the specializer take them.
using ParameterMap = std::map<std::string, ParameterValue>;

}  // namespace tilejit
