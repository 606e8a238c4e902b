// Number text and mixed-kind number comparison for the CEL subset: how doubles print
// (string(1.5), messages), how int(), uint() and double() read strings, and how an int, a
// uint and a double compare with one another.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_CEL_NUMBERS_H_
#define CUB_LIB_CEL_NUMBERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cub::cel {

class Value;

// Shortest text that reads back as `d`, spelled as Go's strconv.FormatFloat(d, 'g', -1, 64)
// (what cel-go's string(double) gives): "123.456", "-0.0045", "1e+06", "NaN", "+Inf".
std::string FormatDouble(double d);

// Whole-text parses. Integers are decimal with an optional sign ('-' only for int); doubles
// accept decimal and exponent forms plus "NaN", "Inf", "Infinity" (any case, optional sign).
// nullopt when the text is malformed or out of range.
std::optional<int64_t> ParseInt64(std::string_view s);
std::optional<uint64_t> ParseUint64(std::string_view s);
std::optional<double> ParseDouble(std::string_view s);

// Orders two numbers (kinds int, uint, double) by value: -1, 0 or 1, or kUnordered when a
// NaN is involved. int and uint compare exactly; an int or uint against a double is
// converted to double first, as cel-go does.
inline constexpr int kUnordered = 2;
int CompareNumbers(const Value& a, const Value& b);

}  // namespace cub::cel

#endif  // CUB_LIB_CEL_NUMBERS_H_
