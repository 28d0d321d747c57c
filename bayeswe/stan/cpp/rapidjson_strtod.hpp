// SPDX-License-Identifier: BSD-3-Clause
//
// Installed by bayeswe as include/rapidjson/internal/strtod.h of the bundled
// CmdStan-compatible installation; rapidjson's own file is kept beside it as
// strtod_rapidjson_1_1_0.h and included below.
//
// Why: the httpstan wheel ships the rapidjson 1.1.0 release, whereas CmdStan
// 2.35 builds against the newer rapidjson that Stan carries in
// stan/lib/rapidjson_1.1.0 (not part of the wheel). The release's
// full-precision decimal-to-double conversion, which Stan's JSON reader
// (stan/io/json/rapidjson_parser.hpp) uses, is wrong in places fixed since:
//   - 2.4703282292062327e-324 (just below half the smallest subnormal)
//     is read as 4.9e-324 instead of 0;
//   - some inputs with more than 17 significant digits are misrounded by
//     one unit in the last place;
//   - tiny numbers with many digits (1.9322856371625668e-337) read outside
//     a table and crash the program;
//   - numbers above the double range (1.9e310) come out as garbage.
// Here that conversion is replaced by the C library's strtod, which rounds
// every decimal number correctly (round to nearest, ties to even), so a
// data file reads as CmdStan reads it. Numbers above the double range are
// an error, as in CmdStan ("Number too big to be stored in double.").
//
// The rest of rapidjson is the wheel's, unchanged.

#ifndef BAYESWE_RAPIDJSON_INTERNAL_STRTOD_H_
#define BAYESWE_RAPIDJSON_INTERNAL_STRTOD_H_

// rapidjson 1.1.0's version, with its full-precision conversion renamed.
#define StrtodFullPrecision StrtodFullPrecision_rapidjson_1_1_0
#include "strtod_rapidjson_1_1_0.h"
#undef StrtodFullPrecision

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

RAPIDJSON_NAMESPACE_BEGIN
namespace internal {

/**
 * The double nearest to the decimal number digits * 10^(decimalPosition -
 * length + exp), where digits are the `length` significant digits of the
 * JSON number (without sign, decimal point or exponent) and
 * decimalPosition is how many of them stood before the decimal point. The
 * first two arguments, rapidjson's approximation, are not needed.
 */
inline double StrtodFullPrecision(double, int, const char* decimals,
                                  size_t length, size_t decimalPosition,
                                  int exp) {
  const long long exponent = static_cast<long long>(decimalPosition)
                             - static_cast<long long>(length) + exp;
  // Digits and an exponent only: no decimal point, so no locale dependence.
  const std::string text
      = std::string(decimals, length) + "e" + std::to_string(exponent);
  const double value = std::strtod(text.c_str(), nullptr);
  if (std::isinf(value))
    throw std::out_of_range(
        "Error in JSON parsing: Number too big to be stored in double.");
  return value;
}

}  // namespace internal
RAPIDJSON_NAMESPACE_END

#endif  // BAYESWE_RAPIDJSON_INTERNAL_STRTOD_H_
