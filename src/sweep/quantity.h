// Values as grid files write them: a plain number ("4096", "0.5") or a
// number with a unit that one of snr's parsers reads ("2TB/s", "64KiB",
// "500ns", "1.41GHz", "400W", "826mm2", "312TFLOP/s"). Random ranges use it
// to check that both ends measure the same thing and to sample in the
// unit the user wrote; the report uses it to put parameters on an axis.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace snr::sweep {

struct QuantityKind {
  std::string_view name;       // "bandwidth", "size", ...; "number" for plain numbers
  std::string_view base_unit;  // what `base` is in ("B/s", "B", "s", ...; "" for numbers)
  double (*parse)(std::string_view text);  // text -> base units; throws snr::Error
};

struct Quantity {
  const QuantityKind* kind = nullptr;
  double base = 0;      // in kind->base_unit
  double number = 0;    // as written, before the unit
  std::string unit;     // as written ("TB/s"); empty for plain numbers
  bool integer = false; // a plain number written without '.', 'e' or a unit
};

// nullopt when `text` is neither a finite plain number nor a quantity of
// a known kind.
std::optional<Quantity> parse_quantity(std::string_view text);

// `number` followed by `unit`, with `digits` significant digits (17 read
// back exactly; a whole number when `whole`), in a form parse_quantity and
// the input readers read back.
std::string format_quantity(double number, std::string_view unit, bool whole, int digits = 6);

}  // namespace snr::sweep
